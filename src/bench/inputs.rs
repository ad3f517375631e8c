//! Validated inputs of `bench`: the inputs [`super::args`] declares, flags
//! merged with `INPUT_*` variables through the runner's [`Reader`], each
//! named by where it came from when it is wrong. Paths that go into the command are made absolute and must
//! be plain words ([`plan::plain_word`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::args::*;
use super::plan::{self, GroupsFormat, Sides, Volume};
use crate::github::network;
use crate::paired::Schedule;
use crate::runner::declare::Default;
use crate::runner::format::FORMAT;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, Input, InputError, Reader, Value, shown};

const SERVER_URL: Input = Input::new("", &["GITHUB_SERVER_URL"]);
/// The out dir when none is given: under the volume's HOST with one, else
/// under the working directory.
const OUT_DIR_DEFAULT: &str = "bench-results";
/// The repository as given, without the workspace it otherwise defaults to.
const REPOSITORY_GIVEN: Input = Input::new("repository", &["INPUT_REPOSITORY"]);

#[derive(Debug, Clone)]
pub struct Inputs {
    pub command: String,
    pub list_command: Option<String>,
    /// Run once per side in its tree before its harness (`{side}`,
    /// `{tree}`, `{sha}`, `{label}`): the base wheel installed on the
    /// baseline's side, say.
    pub setup_command: Option<String>,
    /// Run in a side's tree after its command was stopped (a timeout, a
    /// cancellation): what ends a harness inside a container.
    pub stop_command: Option<String>,
    /// Run once for a side whose command failed or timed out: what shows
    /// why (the harness's own logs).
    pub failure_command: Option<String>,
    /// Prints a JSON object merged into the machine's fingerprint.
    pub fingerprint_command: Option<String>,
    /// The JSON itself or a file of it, read by the command.
    pub resolution: Option<String>,
    pub selection: Option<String>,
    /// `--config`: the selection's groups must be its `[select]` groups,
    /// and the paired rounds are judged by it; read once, when first needed.
    pub config: super::config_file::ConfigFile,
    /// `--keys`, `--metric`, `--ignore`: applied over the config when the
    /// rounds are judged.
    pub columns: crate::config::columns::Columns,
    pub baseline_result: Option<PathBuf>,
    /// `--results-format`: `{out}` and `--baseline-result` read as this
    /// format; `None` finds each file's from its content.
    pub results_format: Option<crate::table::formats::Format>,
    pub groups_format: GroupsFormat,
    pub timeout: Duration,
    pub sides: Sides,
    pub tag: bool,
    /// `--with-tag`: the release tag measured too, after both sides.
    pub with_tag: bool,
    /// `--tag-setup-command`: the tag's setup (else `setup_command`).
    pub tag_setup_command: Option<String>,
    pub strict: bool,
    /// Reuse a downloaded result measured on another machine.
    pub reuse_other_machine: bool,
    /// Absolute.
    pub out_dir: PathBuf,
    /// Absolute; `None`: a new directory in RUNNER_TEMP (else the system's).
    pub worktree_dir: Option<PathBuf>,
    pub temp: PathBuf,
    /// The harness sees paths under another name (a container's mount).
    pub volume: Option<Volume>,
    /// Every command runs through `docker exec` in this container.
    pub container: Option<super::container::Container>,
    /// Absolute.
    pub repository: PathBuf,
    /// `GITHUB_WORKSPACE`, else the working directory: with `repository`,
    /// `temp` and the volume, where the files bench writes, reads and
    /// removes must lie once every symlink is followed.
    pub workspace: PathBuf,
    /// The working directory (relative paths are taken from it).
    pub cwd: PathBuf,
    /// `GITHUB_SERVER_URL` (github.com, or an Enterprise Server): the base
    /// repository the baseline's commit is fetched from is under it.
    pub server_url: String,
    pub format: Format,
    /// Which sides' harness output is printed again, unprefixed, at the end.
    pub print_log: super::plan::PrintLog,
    pub files: RunnerFiles,
    /// How many rounds, how many at most, in which order, judged how.
    pub rounds: Asked,
}

/// `path` made absolute against `cwd`, and a plain word (it goes into the
/// command unquoted).
fn place(value: &crate::runner::Value, cwd: &Path) -> Result<PathBuf, InputError> {
    let path = cwd.join(&value.text);
    let text = path.to_string_lossy();
    if !plan::plain_word(&text) {
        return Err(value.invalid(format!(
            "{:?} goes into the command unquoted, so it must be letters, digits and ._+:@%/=- only",
            shown(&text)
        )));
    }
    Ok(path)
}

fn command(r: &Reader<'_>) -> Result<String, InputError> {
    let value = r.needed(
        &COMMAND,
        "no command: pass --command './run_benchmark.sh --output_csv {out}' (the harness; {out} is the CSV it writes)",
    )?;
    if !value.text.contains("{out}") {
        return Err(value.invalid(
            "the command has no {out}: it must write its CSV where {out} says (e.g. --output_csv {out})",
        ));
    }
    Ok(value.text)
}

/// `HOST:INSIDE`, as `docker run -v` writes it; HOST made absolute.
fn volume(value: &crate::runner::Value, cwd: &Path) -> Result<Volume, InputError> {
    let Some((host, inside)) = value.text.split_once(':') else {
        return Err(value.invalid(
            "expected HOST:INSIDE (docker run -v's form), e.g. flydsl-test:/flydsl-test",
        ));
    };
    let host = place(
        &crate::runner::Value {
            text: host.to_owned(),
            origin: value.origin.clone(),
        },
        cwd,
    )?;
    if !inside.starts_with('/') || !plan::plain_word(inside) {
        return Err(
            value.invalid("INSIDE must be an absolute path of letters, digits and ._+:@%/=-")
        );
    }
    Ok(Volume {
        host: host.to_string_lossy().into_owned(),
        inside: inside.to_owned(),
    })
}

/// With a volume, a path the command gets must be under it (or the
/// harness in the container could not see it).
fn seen(volume: Option<&Volume>, path: &Path, input: &Input) -> Result<(), InputError> {
    match volume {
        Some(v) if v.inside(&path.to_string_lossy()).is_none() => Err(InputError {
            origin: input.both(),
            message: format!(
                "{} is not under the volume {}: the harness could not see it",
                shown(&path.to_string_lossy()),
                shown(&v.host)
            ),
        }),
        _ => Ok(()),
    }
}

pub fn validate(args: &BenchArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::given(env, &args.flags);
    let cwd = std::env::current_dir().map_err(|e| InputError {
        origin: "the working directory".to_owned(),
        message: e.to_string(),
    })?;
    let text = |input: &Input| r.text(input).map(|v| v.text);
    let (out_dir, repository, volume) = places(&r, &cwd)?;
    let inputs = Inputs {
        command: command(&r)?,
        list_command: text(&LIST_COMMAND),
        setup_command: text(&SETUP_COMMAND),
        stop_command: text(&STOP_COMMAND),
        failure_command: text(&FAILURE_COMMAND),
        fingerprint_command: text(&FINGERPRINT_COMMAND),
        resolution: text(&RESOLUTION),
        selection: text(&SELECTION),
        config: super::config_file::ConfigFile::new(r.path(&CONFIG).map(|p| cwd.join(p))),
        columns: crate::config::columns::read(&r)?,
        baseline_result: r.path(&BASELINE_RESULT).map(|p| cwd.join(p)),
        results_format: r.typed(&RESULTS_FORMAT)?,
        groups_format: r.typed_or_default(&GROUPS_FORMAT)?,
        timeout: r.typed_or_default(&TIMEOUT)?,
        sides: r.typed_or_default(&SIDE)?,
        tag: r.on(&TAG)?,
        with_tag: r.on(&WITH_TAG)?,
        tag_setup_command: text(&TAG_SETUP_COMMAND),
        strict: r.on(&STRICT)?,
        reuse_other_machine: r.on(&REUSE_OTHER)?,
        out_dir,
        worktree_dir: r.text(&WORKTREE_DIR).map(|v| place(&v, &cwd)).transpose()?,
        temp: r
            .var("RUNNER_TEMP")
            .map_or_else(std::env::temp_dir, PathBuf::from),
        volume,
        container: container(&r)?,
        repository,
        workspace: r
            .var("GITHUB_WORKSPACE")
            .map_or_else(|| cwd.clone(), |w| cwd.join(w)),
        cwd: cwd.clone(),
        server_url: r
            .parsed(&SERVER_URL, network::git_server)?
            .unwrap_or_else(|| network::SERVER_URL.to_owned()),
        format: Format::choose(r.text(&FORMAT), crate::runner::on_runner(env))?,
        print_log: r
            .parsed(&PRINT_LOG, super::plan::PrintLog::parse)?
            .unwrap_or_default(),
        files: RunnerFiles::from_env(&r),
        rounds: asked(&r)?,
    };
    checked(inputs)
}

/// The out dir, the repository and the volume. With a volume and neither
/// of the others given, the repository is the volume's HOST (the checkout
/// the container mounts: the harness must see the tree it measures) and
/// the out dir `HOST/bench-results` (it must see where it writes), so a
/// container's workflow names the mount once instead of three times.
fn places(r: &Reader<'_>, cwd: &Path) -> Result<(PathBuf, PathBuf, Option<Volume>), InputError> {
    let volume = r.text(&VOLUME).map(|v| volume(&v, cwd)).transpose()?;
    let host = volume.as_ref().map(|v| PathBuf::from(&v.host));
    let out_dir = match (r.text(&OUT_DIR), &host) {
        (Some(v), _) => place(&v, cwd)?,
        (None, Some(host)) => host.join(OUT_DIR_DEFAULT),
        (None, None) => place(
            &Value {
                text: OUT_DIR_DEFAULT.to_owned(),
                origin: OUT_DIR.both(),
            },
            cwd,
        )?,
    };
    let repository = match (r.text(&REPOSITORY_GIVEN), &host) {
        (Some(v), _) => place(&v, cwd)?,
        (None, Some(host)) => host.clone(),
        (None, None) => place(&or_default(r, &REPOSITORY), cwd)?,
    };
    Ok((out_dir, repository, volume))
}

/// `--container` and `--container-env`, checked (`--container-env`
/// without a container is refused: it would pass nothing anywhere).
fn container(r: &Reader<'_>) -> Result<Option<super::container::Container>, InputError> {
    use super::container;
    let name = r.parsed(&CONTAINER, container::name)?;
    let env = r.parsed(&CONTAINER_ENV, container::env)?;
    match (name, env) {
        (Some(name), env) => Ok(Some(container::Container {
            name,
            env: env.unwrap_or_default(),
        })),
        (None, Some(env)) if !env.is_empty() => Err(InputError {
            origin: CONTAINER_ENV.both(),
            message: "container-env names variables for --container, which is not given".into(),
        }),
        (None, _) => Ok(None),
    }
}

/// A directory input's value, else its declared default, else the working
/// directory; named by the input.
fn or_default(r: &Reader<'_>, input: &Input) -> Value {
    r.text(input).unwrap_or_else(|| Value {
        text: match input.default {
            Default::Value(v) => v.to_owned(),
            Default::Said(_) | Default::None => ".".to_owned(),
        },
        origin: input.both(),
    })
}

/// What the user asked of the rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    pub rounds: usize,
    pub max_rounds: usize,
    /// `--seed`; `None`: drawn at random (and printed).
    pub seed: Option<u64>,
    /// Fractions, as compare's thresholds.
    pub fail: f64,
    /// `--fail-threshold` was given (a `[[rules]]` threshold yields to it,
    /// as in compare).
    pub fail_given: bool,
    pub warn: f64,
    pub false_alarms: f64,
}

/// `--rounds`, `--max-rounds`, `--seed`, the config and thresholds the
/// looks between rounds are judged by.
fn asked(r: &Reader<'_>) -> Result<Asked, InputError> {
    let rounds = r.typed_or_default(&ROUNDS_INPUT)?;
    let default_max = r.typed_or_default(&MAX_ROUNDS_INPUT)?;
    let Schedule { max_rounds, .. } =
        Schedule::asked(rounds, r.typed(&MAX_ROUNDS_INPUT)?, default_max).map_err(|message| {
            InputError {
                origin: MAX_ROUNDS_INPUT.input.both(),
                message,
            }
        })?;
    let fail = r.typed(&FAIL)?;
    Ok(Asked {
        rounds,
        max_rounds,
        seed: r.typed(&SEED)?,
        fail_given: fail.is_some(),
        fail: fail.map_or_else(|| r.typed_or_default(&FAIL), Ok)?,
        warn: r.typed_or_default(&WARN)?,
        false_alarms: r.typed_or_default(&FALSE_ALARMS)?,
    })
}

/// What no single input says wrong, but two together do.
fn checked(inputs: Inputs) -> Result<Inputs, InputError> {
    seen(inputs.volume.as_ref(), &inputs.out_dir, &OUT_DIR)?;
    if let Some(dir) = &inputs.worktree_dir {
        seen(inputs.volume.as_ref(), dir, &WORKTREE_DIR)?;
    }
    if inputs.with_tag && inputs.tag {
        return Err(InputError {
            origin: WITH_TAG.both(),
            message: "with-tag measures the release beside the base commit; tag makes the tag the baseline: give one".to_owned(),
        });
    }
    if inputs.sides.has(plan::Side::Baseline)
        && inputs.resolution.is_none()
        && inputs.baseline_result.is_none()
    {
        return Err(InputError {
            origin: RESOLUTION.both(),
            message: "the baseline side needs resolve's answer (--resolution) or main's downloaded result (--baseline-result); pass --side current to run only the change".to_owned(),
        });
    }
    Ok(inputs)
}
