//! `bench`: the suite on the change and on exactly one baseline, each once,
//! in one step. The glue every benchmark workflow wrote by hand (a worktree
//! at the resolved commit, the selected groups the older harness knows,
//! the partial CSV kept when one benchmark fails, a timeout, cleanup,
//! skipping it all when main's artifact was downloaded) is where benchmark
//! workflows' bugs live: a retry loop over older commits, a discarded
//! partial result, a step that could not fail.
//!
//! The flow: [`args`] and the environment become validated [`inputs`];
//! the resolution and selection (the shared contracts) and the downloaded
//! result become a [`plan`] (pure); [`side`] carries each side out
//! ([`worktree`], [`process`]); [`render`] shows it and the runner layer
//! writes it.

pub mod args;
pub mod config_file;
pub mod container;
pub mod files;
pub mod fingerprint;
pub mod inputs;
pub mod live;
pub mod log;
pub mod manifest;
pub mod outcome;
pub mod plan;
pub mod print_log;
pub mod process;
pub mod record;
pub mod render;
pub mod rounds;
pub mod row_count;
pub mod setup;
pub mod side;
pub mod signals;
pub mod values;
pub mod with_tag;
pub mod worktree;

use thiserror::Error;

use crate::contract::resolution::{Provenance, ProvenanceError};
use crate::contract::selection::{Chosen, SelectionError};
use crate::runner::{self, CommandError, Env, Failure, InputError, shown};
use args::BenchArgs;
use inputs::Inputs;
use plan::{Facts, Side};

/// What both sides did: what the outputs render (`render`) and the
/// manifest compare reads (`manifest`) are made from.
#[derive(Debug)]
pub struct Outcome {
    pub current: side::SideRun,
    pub baseline: side::SideRun,
    /// `--with-tag`: the release tag's one run, reported beside.
    pub tag: Option<side::SideRun>,
    /// The paired rounds, when there were several (`--rounds` above 1 and
    /// both sides ran).
    pub rounds: Option<manifest::Done>,
    /// The manifest compare reads (written after every run; `None` only
    /// before it is).
    pub manifest: Option<std::path::PathBuf>,
}

/// The exit codes of `bench`: the shared ones (0, 1 bad input, 2 usage)
/// and its own.
pub mod exit {
    pub use crate::runner::exit::*;
    /// `--strict`, and a side failed, timed out, wrote no rows, or the
    /// baseline is unavailable.
    pub const STRICT: u8 = 4;
}

/// What stops a run, besides what stops every command ([`CommandError`]):
/// the resolution, the selection or the config that cannot be read, a
/// value refused before it reaches the harness's command, a place that
/// cannot be made or written.
#[derive(Debug, Error)]
pub enum BenchError {
    /// Columns given as inputs that the config does not have: exit 2.
    #[error(transparent)]
    Usage(InputError),
    #[error(transparent)]
    Resolution(#[from] ProvenanceError),
    #[error(transparent)]
    Selection(#[from] SelectionError),
    #[error(transparent)]
    Refused(#[from] values::Refused),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("{0}")]
    Place(String),
    /// `--config` could not be read at the start of the run, or is not a
    /// config: exit 1, where a step needs it.
    #[error("{0}")]
    ConfigRead(String),
}

impl Failure for BenchError {
    fn usage(&self) -> bool {
        matches!(self, BenchError::Usage(_))
    }
}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &BenchArgs, env: Env<'_>) -> Result<u8, CommandError<BenchError>> {
    let inputs = inputs::validate(args, env)?;
    reachable(&inputs)?;
    work(&inputs)
}

/// A `--fail-threshold` no row could reach (100% or more with a
/// higher-is-better metric) is refused before anything runs, in compare's
/// words: compare --manifest would refuse it after every round had run.
fn reachable(inputs: &Inputs) -> Result<(), BenchError> {
    let fail = inputs.rounds.fail;
    if fail < 1.0 {
        return Ok(());
    }
    let config = inputs.config.judging(&inputs.columns)?;
    crate::config::judging::reachable(fail, &config).map_err(|message| {
        BenchError::Usage(InputError {
            origin: args::FAIL.input.both(),
            message,
        })
    })
}

/// select's answer, its group names checked ([`values::check_groups`],
/// against `--config`'s groups when given): they go into the command.
fn selection(inputs: &Inputs) -> Result<Option<Chosen>, BenchError> {
    let Some(value) = &inputs.selection else {
        return Ok(None);
    };
    let chosen = Chosen::load(value)?;
    let declared = inputs.config.written()?.map(declared);
    values::check_groups(&chosen.groups, declared.as_deref())?;
    Ok(Some(chosen))
}

/// The group names the config's `[select]` table declares (none when it
/// has no such table: then no selection's group is one of them).
fn declared(config: &crate::config::Config) -> Vec<String> {
    config
        .select
        .iter()
        .flat_map(|s| s.groups.iter().map(|g| g.name.clone()))
        .collect()
}

/// `--baseline-result` when it is there with rows; otherwise the baseline
/// runs, and the note says why.
fn reusable(inputs: &Inputs) -> (Option<std::path::PathBuf>, Option<side::Note>) {
    let Some(path) = &inputs.baseline_result else {
        return (None, None);
    };
    let shown_path = shown(&path.to_string_lossy());
    match row_count::downloaded(path, inputs) {
        Err(what) => (
            None,
            Some(side::Note {
                warning: true,
                text: format!("the downloaded result {shown_path} is {what}: the baseline runs"),
            }),
        ),
        Ok(Some(rows)) if rows > 0 => match other_machine(path, inputs) {
            Some(note) if !inputs.reuse_other_machine => (None, Some(note)),
            note => (Some(path.clone()), note),
        },
        Ok(Some(_)) => (
            None,
            Some(side::Note {
                warning: true,
                text: format!(
                    "the downloaded result {shown_path} holds no rows: the baseline runs"
                ),
            }),
        ),
        Ok(None) => (
            None,
            Some(side::Note {
                warning: false,
                text: format!("no downloaded result at {shown_path}: the baseline runs"),
            }),
        ),
    }
}

/// A notice when the fingerprint beside the downloaded result says another
/// machine measured it than this runner: a baseline from another GPU or
/// driver would judge the machine, not the change. `None` when they match
/// or either is unknown.
fn other_machine(path: &std::path::Path, inputs: &Inputs) -> Option<side::Note> {
    use crate::contract::fingerprint::{Fingerprint, mismatch_sentence};
    let theirs = Fingerprint::beside(path)?;
    let ours = fingerprint::machine(&inputs.repository, inputs.fingerprint_command.as_deref());
    let differences = theirs.differences(ours);
    if differences.is_empty() {
        return None;
    }
    let then = if inputs.reuse_other_machine {
        "it is reused as --reuse-other-machine asks"
    } else {
        "it is not reused: the baseline runs in this job (--reuse-other-machine reuses it)"
    };
    Some(side::Note {
        warning: false,
        text: format!(
            "the downloaded result {}: {}; {then}",
            shown(&path.to_string_lossy()),
            mismatch_sentence(&theirs, ours, &differences)
        ),
    })
}

/// Plans, runs each side once, writes; returns the exit code.
pub fn work(inputs: &Inputs) -> Result<u8, CommandError<BenchError>> {
    let outcome = measure(inputs)?;
    if inputs.print_log != plan::PrintLog::None {
        let mut text = runner::log::LogText::new();
        let _ = print_log::print(
            inputs.print_log,
            &[&outcome.current, &outcome.baseline],
            &mut text,
        );
        runner::write::stderr(&text);
    }
    runner::emit(inputs.format, &inputs.files, &outcome)?;
    let failing = inputs.strict
        && [&outcome.current, &outcome.baseline]
            .iter()
            .any(|r| r.fails_strict() && inputs.sides.has(r.side));
    if let Some(signal) = signals::caught() {
        return Ok(u8::try_from(signal.saturating_add(128)).unwrap_or(u8::MAX));
    }
    Ok(if failing { exit::STRICT } else { exit::OK })
}

/// A config no step needed and that could not be read (or is not a
/// config) stops nothing, but the manifest holds no copy of it, so compare
/// will refuse it: a warning says so now, with bench's reason.
fn unread_config(inputs: &Inputs, outcome: &mut Outcome) {
    let (Some(path), Err(why)) = (inputs.config.path(), inputs.config.text()) else {
        return;
    };
    let side = match inputs.sides.has(Side::Current) {
        true => &mut outcome.current,
        false => &mut outcome.baseline,
    };
    side.warn(format!(
        "--config {} was not used by this run and could not be read ({}): the manifest holds no copy of it, and compare --manifest refuses it unless given --config",
        runner::shown(&path.to_string_lossy()),
        crate::contract::rounds::config_error_line(why)
    ));
}

/// Reads what the inputs name, plans, and runs each side once.
fn measure(inputs: &Inputs) -> Result<Outcome, BenchError> {
    signals::install();
    let resolution = inputs
        .resolution
        .as_deref()
        .map(Provenance::load)
        .transpose()?;
    let chosen = selection(inputs)?;
    if inputs.sides.has(Side::Baseline) {
        values::label(resolution.as_ref(), inputs.tag)?;
    }
    let (reuse, reuse_note) = reusable(inputs);
    let plan = plan::plan(&Facts {
        sides: inputs.sides,
        resolution: resolution.as_ref(),
        selection: chosen.as_ref(),
        reusable: reuse.as_ref(),
        tag: inputs.tag,
    });
    let (current, mut baseline, rounds) = live::sides(&plan, inputs)?;
    if let Some(note) = reuse_note.filter(|_| inputs.sides.has(Side::Baseline)) {
        baseline.notes.insert(0, note);
    }
    let tag = match inputs.with_tag && signals::caught().is_none() {
        true => Some(with_tag::run(inputs, resolution.as_ref(), chosen.as_ref())?),
        false => None,
    };
    let mut outcome = Outcome {
        current,
        baseline,
        tag,
        rounds,
        manifest: None,
    };
    // Nothing selected, nothing run: no results dir, no manifest.
    let skipped = [&outcome.current, &outcome.baseline]
        .iter()
        .all(|r| r.status == side::Status::Skipped);
    if !skipped {
        outcome.manifest = Some(manifest::write(
            inputs,
            &outcome,
            resolution.as_ref(),
            chosen.as_ref(),
        )?);
        unread_config(inputs, &mut outcome);
    }
    Ok(outcome)
}
