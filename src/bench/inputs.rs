//! Validated inputs of `bench`: flags merged with `INPUT_*` variables
//! through the runner's [`Reader`], each named by where it came from when
//! it is wrong. Paths that go into the command are made absolute and must
//! be plain words ([`plan::plain_word`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::args::BenchArgs;
use super::plan::{self, GroupsFormat, Sides, Volume};
use crate::github::network;
use crate::runner::env::Input;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader, shown};

const COMMAND: Input = Input::new("command", &["INPUT_COMMAND"]);
const RESOLUTION: Input = Input::new("resolution", &["INPUT_RESOLUTION"]);
const SELECTION: Input = Input::new("selection", &["INPUT_SELECTION"]);
const CONFIG: Input = Input::new("config", &["INPUT_CONFIG"]);
const BASELINE_RESULT: Input = Input::new("baseline-result", &["INPUT_BASELINE_RESULT"]);
const RESULTS_FORMAT: Input = Input::new("results-format", &["INPUT_RESULTS_FORMAT"]);
const LIST_COMMAND: Input = Input::new("list-command", &["INPUT_LIST_COMMAND"]);
const SETUP_COMMAND: Input = Input::new("setup-command", &["INPUT_SETUP_COMMAND"]);
const STOP_COMMAND: Input = Input::new("stop-command", &["INPUT_STOP_COMMAND"]);
const FINGERPRINT_COMMAND: Input =
    Input::new("fingerprint-command", &["INPUT_FINGERPRINT_COMMAND"]);
const GROUPS_FORMAT: Input = Input::new("groups-format", &["INPUT_GROUPS_FORMAT"]);
const TIMEOUT: Input = Input::new("timeout-minutes", &["INPUT_TIMEOUT_MINUTES"]);
const SIDE: Input = Input::new("side", &["INPUT_SIDE"]);
const TAG: Input = Input::new("tag", &["INPUT_TAG"]);
const WITH_TAG: Input = Input::new("with-tag", &["INPUT_WITH_TAG"]);
const TAG_SETUP_COMMAND: Input = Input::new("tag-setup-command", &["INPUT_TAG_SETUP_COMMAND"]);
const STRICT: Input = Input::new("strict", &["INPUT_STRICT"]);
const REUSE_OTHER: Input = Input::new("reuse-other-machine", &["INPUT_REUSE_OTHER_MACHINE"]);
const OUT_DIR: Input = Input::new("out-dir", &["INPUT_OUT_DIR"]);
const WORKTREE_DIR: Input = Input::new("worktree-dir", &["INPUT_WORKTREE_DIR"]);
const VOLUME: Input = Input::new("volume", &["INPUT_VOLUME"]);
const REPOSITORY: Input = Input::new("repository", &["INPUT_REPOSITORY", "GITHUB_WORKSPACE"]);
/// The repository as given, without the workspace it otherwise defaults to.
const REPOSITORY_GIVEN: Input = Input::new("repository", &["INPUT_REPOSITORY"]);
const SERVER_URL: Input = Input::new("", &["GITHUB_SERVER_URL"]);
const FORMAT: Input = Input::new("format", &[]);
const CONTAINER: Input = Input::new("container", &["INPUT_CONTAINER"]);
const CONTAINER_ENV: Input = Input::new("container-env", &["INPUT_CONTAINER_ENV"]);
const PRINT_LOG: Input = Input::new("print-log", &["INPUT_PRINT_LOG"]);
const ROUNDS_INPUT: Input = Input::new("rounds", &["INPUT_ROUNDS"]);
const MAX_ROUNDS_INPUT: Input = Input::new("max-rounds", &["INPUT_MAX_ROUNDS"]);
const SEED: Input = Input::new("seed", &["INPUT_SEED"]);
const FAIL: Input = Input::new("fail-threshold", &["INPUT_FAIL_THRESHOLD"]);
const WARN: Input = Input::new("warn-threshold", &["INPUT_WARN_THRESHOLD"]);
const FALSE_ALARMS: Input = Input::new("false-alarms", &["INPUT_FALSE_ALARMS"]);

/// The defaults, as the help, the action and docs/bench.md say them.
pub const TIMEOUT_MINUTES: u64 = 60;
/// A day: a side that needs longer is not a benchmark step.
pub const MAX_TIMEOUT_MINUTES: u64 = 1440;
pub const OUT_DIR_DEFAULT: &str = "bench-results";

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
    /// Prints a JSON object merged into the machine's fingerprint.
    pub fingerprint_command: Option<String>,
    /// The JSON itself or a file of it, read by the command.
    pub resolution: Option<String>,
    pub selection: Option<String>,
    /// `--config`: the selection's groups must be its `[select]` groups.
    pub config: Option<PathBuf>,
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

/// Minutes above 0, at most a day (`90`, `0.5`).
fn minutes(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(m) if m > 0.0 && m <= MAX_TIMEOUT_MINUTES as f64 => {
            Ok(Duration::from_secs_f64(m * 60.0))
        }
        _ => Err(format!(
            "expected minutes above 0 and at most {MAX_TIMEOUT_MINUTES}, got {:?}",
            shown(text)
        )),
    }
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

fn command(r: &Reader<'_>, args: &BenchArgs) -> Result<String, InputError> {
    let value = r.required(
        &COMMAND,
        args.command.as_deref(),
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
    let r = Reader::new(env);
    let cwd = std::env::current_dir().map_err(|e| InputError {
        origin: "the working directory".to_owned(),
        message: e.to_string(),
    })?;
    let path_of = |p: &Option<PathBuf>| p.as_ref().map(|p| p.to_string_lossy().into_owned());
    let text = |input: &Input, given: Option<&str>| r.value(input, given).map(|v| v.text);
    let (out_dir, repository, volume) = places(&r, args, &cwd)?;
    let worktree_dir = r.value(&WORKTREE_DIR, path_of(&args.worktree_dir).as_deref());
    let sides = r
        .parse(&SIDE, args.side.as_deref(), |t| {
            Sides::parse(t).ok_or("expected current, baseline or both")
        })?
        .unwrap_or(Sides::Both);
    let inputs = Inputs {
        command: command(&r, args)?,
        list_command: text(&LIST_COMMAND, args.list_command.as_deref()),
        setup_command: text(&SETUP_COMMAND, args.setup_command.as_deref()),
        stop_command: text(&STOP_COMMAND, args.stop_command.as_deref()),
        fingerprint_command: text(&FINGERPRINT_COMMAND, args.fingerprint_command.as_deref()),
        resolution: text(&RESOLUTION, args.resolution.as_deref()),
        selection: text(&SELECTION, args.selection.as_deref()),
        config: r
            .value(&CONFIG, path_of(&args.config).as_deref())
            .map(|v| cwd.join(v.text)),
        baseline_result: r
            .value(&BASELINE_RESULT, path_of(&args.baseline_result).as_deref())
            .map(|v| cwd.join(v.text)),
        results_format: r.parse(
            &RESULTS_FORMAT,
            args.results_format.as_deref(),
            crate::table::formats::Format::parse_name,
        )?,
        groups_format: groups_format(&r, args)?,
        timeout: r
            .parse(&TIMEOUT, args.timeout_minutes.as_deref(), minutes)?
            .unwrap_or(Duration::from_secs(TIMEOUT_MINUTES.saturating_mul(60))),
        sides,
        tag: r.switch(&TAG, args.tag, false)?,
        with_tag: r.switch(&WITH_TAG, args.with_tag, false)?,
        tag_setup_command: text(&TAG_SETUP_COMMAND, args.tag_setup_command.as_deref()),
        strict: r.switch(&STRICT, args.strict, false)?,
        reuse_other_machine: r.switch(&REUSE_OTHER, args.reuse_other_machine, false)?,
        out_dir,
        worktree_dir: worktree_dir.map(|v| place(&v, &cwd)).transpose()?,
        temp: r
            .var("RUNNER_TEMP")
            .map_or_else(std::env::temp_dir, PathBuf::from),
        volume,
        container: container(&r, args)?,
        repository,
        workspace: r
            .var("GITHUB_WORKSPACE")
            .map_or_else(|| cwd.clone(), |w| cwd.join(w)),
        cwd: cwd.clone(),
        server_url: r
            .parse(&SERVER_URL, None, network::git_server)?
            .unwrap_or_else(|| network::SERVER_URL.to_owned()),
        format: Format::choose(
            r.value(&FORMAT, args.format.as_deref()),
            crate::runner::on_runner(env),
        )?,
        print_log: r
            .parse(
                &PRINT_LOG,
                args.print_log.as_deref(),
                super::plan::PrintLog::parse,
            )?
            .unwrap_or_default(),
        files: RunnerFiles::from_env(&r),
        rounds: asked(&r, args)?,
    };
    checked(inputs)
}

/// The out dir, the repository and the volume. With a volume and neither
/// of the others given, the repository is the volume's HOST (the checkout
/// the container mounts: the harness must see the tree it measures) and
/// the out dir `HOST/bench-results` (it must see where it writes), so a
/// container's workflow names the mount once instead of three times.
fn places(
    r: &Reader<'_>,
    args: &BenchArgs,
    cwd: &Path,
) -> Result<(PathBuf, PathBuf, Option<Volume>), InputError> {
    let path_of = |p: &Option<PathBuf>| p.as_ref().map(|p| p.to_string_lossy().into_owned());
    let volume = r
        .value(&VOLUME, args.volume.as_deref())
        .map(|v| volume(&v, cwd))
        .transpose()?;
    let host = volume.as_ref().map(|v| PathBuf::from(&v.host));
    let out_dir = match r.value(&OUT_DIR, path_of(&args.out_dir).as_deref()) {
        Some(v) => place(&v, cwd)?,
        None => match &host {
            Some(host) => host.join(OUT_DIR_DEFAULT),
            None => place(
                &crate::runner::Value {
                    text: OUT_DIR_DEFAULT.to_owned(),
                    origin: OUT_DIR.both(),
                },
                cwd,
            )?,
        },
    };
    let given = r.value(&REPOSITORY_GIVEN, path_of(&args.repository).as_deref());
    let repository = match (given, &host) {
        (Some(v), _) => place(&v, cwd)?,
        (None, Some(host)) => host.clone(),
        (None, None) => {
            let v = r.value(&REPOSITORY, None).unwrap_or(crate::runner::Value {
                text: ".".to_owned(),
                origin: REPOSITORY.both(),
            });
            place(&v, cwd)?
        }
    };
    Ok((out_dir, repository, volume))
}

/// `--container` and `--container-env`, checked (`--container-env`
/// without a container is refused: it would pass nothing anywhere).
fn container(
    r: &Reader<'_>,
    args: &BenchArgs,
) -> Result<Option<super::container::Container>, InputError> {
    use super::container;
    let name = r.parse(&CONTAINER, args.container.as_deref(), container::name)?;
    let env = r.parse(
        &CONTAINER_ENV,
        args.container_env.as_deref(),
        container::env,
    )?;
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

/// `--groups-format`: how `{groups}` is written (commas by default).
fn groups_format(r: &Reader<'_>, args: &BenchArgs) -> Result<GroupsFormat, InputError> {
    Ok(r.parse(
        &GROUPS_FORMAT,
        args.groups_format.as_deref(),
        GroupsFormat::parse,
    )?
    .unwrap_or(GroupsFormat::Comma))
}

/// `--rounds`' and `--max-rounds`' defaults, and the most either may be:
/// the paired decision's (compare --paired takes the same), so bench's
/// looks are the ones compare judges at.
pub use crate::paired::schedule::{LIMIT as MAX_ROUNDS, MAX_ROUNDS as MAX_ROUNDS_DEFAULT, ROUNDS};

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
fn asked(r: &Reader<'_>, args: &BenchArgs) -> Result<Asked, InputError> {
    const MOST: usize = MAX_ROUNDS;
    let count = |text: &str| match text.trim().parse::<usize>() {
        Ok(n) if (1..=MOST).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a whole number from 1 to {MOST}, got {:?}",
            shown(text)
        )),
    };
    let pct = |low: f64, high: f64| {
        move |text: &str| match text.trim_end_matches('%').trim().parse::<f64>() {
            Ok(p) if p.is_finite() && p > low && p <= high => Ok(p / 100.0),
            _ => Err(format!(
                "expected a percentage above {low} and at most {high}, got {:?}",
                shown(text)
            )),
        }
    };
    let rounds = r
        .parse(&ROUNDS_INPUT, args.rounds.as_deref(), count)?
        .unwrap_or(ROUNDS);
    let max = r.parse(&MAX_ROUNDS_INPUT, args.max_rounds.as_deref(), count)?;
    let max_rounds = match max {
        Some(m) if m < rounds => {
            return Err(InputError {
                origin: MAX_ROUNDS_INPUT.both(),
                message: format!("--max-rounds {m} is below --rounds {rounds}"),
            });
        }
        Some(m) => m,
        None => MAX_ROUNDS_DEFAULT.max(rounds),
    };
    let fail = r.parse(&FAIL, args.fail_threshold.as_deref(), pct(0.0, 1000.0))?;
    Ok(Asked {
        rounds,
        max_rounds,
        seed: r.parse(&SEED, args.seed.as_deref(), |t| {
            t.trim().parse::<u64>().map_err(|_| {
                format!(
                    "expected a whole number from 0 to {}, got {:?}",
                    u64::MAX,
                    shown(t)
                )
            })
        })?,
        fail_given: fail.is_some(),
        fail: fail.unwrap_or(crate::config::defaults::FAIL_THRESHOLD),
        warn: r
            .parse(
                &WARN,
                args.warn_threshold.as_deref(),
                pct(-0.000_001, 1000.0),
            )?
            .unwrap_or(crate::config::defaults::WARN_THRESHOLD),
        false_alarms: r
            .parse(&FALSE_ALARMS, args.false_alarms.as_deref(), pct(0.0, 50.0))?
            .unwrap_or(crate::config::defaults::FALSE_ALARMS),
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
