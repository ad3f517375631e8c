//! `compare`: the benchmark results of the change against those of the one
//! baseline (and, reported beside it, the release tag's), as a verdict that
//! can fail the step: never a silent pass.
//!
//! [`args`] and the environment become [`inputs`]; the [`config`] gives
//! keys, metrics and per-row rules; [`files`] reads every results file
//! (bounded: a pool of threads, a cap on files and on bytes) into
//! [`table`]s (a partial baseline keeps its valid rows); [`join`] lines up
//! the keys, [`noise`] learns each row's run-to-run band from the history,
//! and [`verdict`] (pure) classifies every row and decides; [`report`]
//! holds it all and [`render`] shows it (the dashboard's log lines, step
//! outputs, a job summary, JSON).

pub mod args;
pub mod coverage;
pub mod defaults;
pub mod files;
pub mod inputs;
pub mod join;
pub mod machine;
pub mod manifest;
pub mod noise;
pub mod render;
pub mod report;
pub mod verdict;

use thiserror::Error;

use crate::config::{self, Config, ConfigError, FailThreshold};
use crate::contract;
use crate::contract::resolution::{Provenance, ProvenanceError};
use crate::contract::selection::{Chosen, SelectionError};
use crate::runner::{self, CommandError, Env, Failure, InputError, WriteError};
use crate::table::TableError;
use args::CompareArgs;
use files::Read;
use inputs::Inputs;
use report::Report;
use verdict::{Sides, Verdict};

/// The exit codes of `compare`: the shared ones (0, 1 bad input, 2 usage)
/// and its own.
pub mod exit {
    pub use crate::runner::exit::*;
    /// `--strict`, and the gate is inconclusive.
    pub const INCONCLUSIVE: u8 = 3;
    /// Rows regressed or were lost against the gate baseline.
    pub const REGRESSION: u8 = 4;
}

/// What stops a comparison, besides what stops every command
/// ([`CommandError`]): a file, the config, the resolution, the selection
/// or the manifest that cannot be read, or inputs that cannot go together.
#[derive(Debug, Error)]
pub enum CompareError {
    /// Inputs each valid alone that do not fit what was read (a threshold
    /// that can never fail, columns the config lacks, more files than one
    /// comparison reads, a fingerprint file that is not one): exit 2.
    #[error(transparent)]
    Usage(InputError),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Provenance(#[from] ProvenanceError),
    #[error(transparent)]
    Selection(#[from] SelectionError),
    #[error(transparent)]
    Manifest(#[from] crate::contract::rounds::ManifestError),
}

impl Failure for CompareError {
    fn usage(&self) -> bool {
        matches!(self, CompareError::Usage(_))
    }
}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &CompareArgs, env: Env<'_>) -> Result<u8, CommandError<CompareError>> {
    let inputs = inputs::validate(args, env)?;
    let inputs = manifest::with_manifest(inputs)?;
    work(&inputs)
}

/// Everything a comparison reads, before anything is compared or written:
/// every bad input is found first.
pub struct Loaded {
    pub config: Config,
    pub provenance: Option<Provenance>,
    pub read: Read,
    /// The config's groups (by position) that `--selection` says did not run.
    pub unselected: Vec<usize>,
    /// Warnings about the selection (group names the config does not know).
    pub selection_warnings: Vec<String>,
}

/// Reads the config, the resolution and every results file.
pub fn load(inputs: &Inputs) -> Result<Loaded, CompareError> {
    let mut config = match &inputs.config {
        Some(inputs::ConfigFrom::File(path)) => config::load::load(path)?,
        Some(inputs::ConfigFrom::Benched(config)) => config.as_ref().clone(),
        None => Config::default(),
    };
    config::columns::apply(&mut config, &inputs.columns).map_err(CompareError::Usage)?;
    if let FailThreshold::Fixed(f) = inputs.thresholds.fail
        && let Err(message) = config::judging::reachable(f, &config)
    {
        return Err(CompareError::Usage(InputError {
            origin: inputs.fail_origin.clone(),
            message: format!("{message}, or --no-gate to report without failing"),
        }));
    }
    let provenance = inputs
        .resolution
        .as_deref()
        .map(Provenance::load)
        .transpose()?;
    let (unselected, unknown) = match inputs.selection.as_deref() {
        Some(value) => Chosen::load(value)?.unselected(config.select.as_ref())?,
        None => (Vec::new(), Vec::new()),
    };
    let selection_warnings = unknown
        .into_iter()
        .map(|g| format!("the selection names the group {g:?}, which the config does not know"))
        .collect();
    let mut read = files::read(inputs, &config)?;
    files::line_up(&mut read, &mut config)?;
    Ok(Loaded {
        config,
        provenance,
        read,
        unselected,
        selection_warnings,
    })
}

/// Compares and writes the report; returns the exit code.
pub fn work(inputs: &Inputs) -> Result<u8, CommandError<CompareError>> {
    // An earlier run's report (a self-hosted runner keeps its workspace)
    // must never be uploaded as this run's when this one fails.
    if let Some(path) = inputs.report.as_ref().filter(|p| p.is_file()) {
        std::fs::remove_file(path).map_err(|source| WriteError::File {
            what: "the earlier report",
            path: path.clone(),
            source,
        })?;
    }
    let loaded = load(inputs)?;
    let report = compare(inputs, &loaded);
    if let Some(path) = &inputs.report {
        let text = render::json::json(&report, None);
        std::fs::write(path, text).map_err(|source| WriteError::File {
            what: "the report",
            path: path.clone(),
            source,
        })?;
    }
    runner::emit(inputs.format, &inputs.files, &report)?;
    let (verdict, report_only) = (report.verdict(), report.report_only);
    let undecided = report
        .gate
        .as_ref()
        .and_then(verdict::Comparison::undecided)
        .unwrap_or(0);
    drop(report);
    // The process ends next: freeing millions of rows would cost more than
    // the comparison did.
    std::mem::forget(loaded);
    Ok(match verdict {
        _ if report_only => exit::OK,
        Verdict::Regression => exit::REGRESSION,
        Verdict::Inconclusive if inputs.strict => exit::INCONCLUSIVE,
        Verdict::Pass if inputs.strict && undecided > 0 => exit::INCONCLUSIVE,
        Verdict::Pass | Verdict::Inconclusive => exit::OK,
    })
}

/// The warning for rows whose history could not judge them (two levels,
/// or a band with which they could never fail): they keep the configured
/// threshold (and a move between two levels is noisy, said in the row).
fn unusable_history(comparison: &verdict::Comparison<'_>) -> Option<String> {
    let (count, first) = comparison.unusable_history();
    let (slot, why) = first?;
    let key = comparison.key_text(slot);
    let others = match count {
        1 => String::new(),
        n => format!(" and {} other rows", n.saturating_sub(1)),
    };
    let moves = if matches!(why, noise::NoBand::TwoLevels { .. }) {
        " (a move from one level to the other is noisy)"
    } else {
        ""
    };
    Some(format!(
        "history unusable for {key}{others}: {}; the configured threshold judges them{moves}",
        render::unusable(why)
    ))
}

/// The warning for paired rows still in doubt: how many, and whether more
/// rounds could decide them.
fn undecided(comparison: &verdict::Comparison<'_>) -> Option<String> {
    let count = comparison.undecided().filter(|n| *n > 0)?;
    let more = comparison
        .rows_of(&[contract::class::Class::Noisy])
        .filter(verdict::RowResult::worth_rerun)
        .count();
    let rows = if count == 1 { "row" } else { "rows" };
    Some(match more {
        0 => format!(
            "{count} {rows} still undecided at the most rounds (noisy): the rounds neither rule out a regression nor show one; --strict fails them"
        ),
        _ => format!(
            "{count} {rows} still undecided (noisy), {more} of them before the most rounds: run more rounds of them (the rerun output lists them); --strict fails them"
        ),
    })
}

/// The warning for a suite that moved together.
fn suite_shift(comparison: &verdict::Comparison<'_>) -> Option<String> {
    let shift = comparison.shift()?;
    Some(format!(
        "the whole suite moved by {:+.1}% ({} of {} rows compared against {}): a different machine or build environment is the likelier cause; re-run on another machine before trusting the rows",
        shift.change * 100.0,
        shift.rows,
        shift.compared,
        comparison.label
    ))
}

/// What a comparison warns of: too little of the suite compared (the
/// gate), an unavailable baseline, an unusable history, a whole-suite
/// shift, paired rows still in doubt.
fn comparison_warnings(
    comparison: &verdict::Comparison<'_>,
    is_gate: bool,
    min_coverage: f64,
) -> Vec<String> {
    let label = comparison.label.as_str();
    let mut warnings = Vec::new();
    if let Some(warning) = is_gate
        .then(|| coverage::warning(comparison, min_coverage))
        .flatten()
        .filter(|_| comparison.verdict() == Verdict::Inconclusive)
    {
        warnings.push(warning);
    }
    if let Some(why) = &comparison.unavailable {
        warnings.push(format!("baseline {label} unavailable: {why}"));
    }
    if let Some(warning) = unusable_history(comparison) {
        warnings.push(warning);
    }
    if let Some(warning) = suite_shift(comparison) {
        warnings.push(warning);
    }
    if let Some(warning) = undecided(comparison) {
        warnings.push(warning);
    }
    warnings
}

/// The report over what was loaded. The resolution is evidence: when it
/// says its label has no baseline, or neither its label nor its release
/// tag is one of the baselines, that comparison (or the gate) is
/// inconclusive with a warning.
pub fn compare<'t>(inputs: &Inputs, loaded: &'t Loaded) -> Report<'t> {
    let read = &loaded.read;
    // Another machine is said before anything else.
    let mut warnings: Vec<String> = read.machine.sentence().into_iter().collect();
    warnings.extend(read.machine.history_warning());
    warnings.extend(read.warnings.iter().cloned());
    warnings.extend(loaded.selection_warnings.iter().cloned());
    warnings.extend(inputs.manifest_warnings.iter().cloned());
    let evidence = loaded
        .provenance
        .as_ref()
        .map(|p| (p.label(), p.no_baseline()));
    // The release tag the resolution names speaks for a baseline labelled
    // with it, as its label speaks for main's.
    let tag = loaded.provenance.as_ref().and_then(|p| p.tag.as_deref());
    let mut gate = None;
    let mut others = Vec::new();
    for baseline in &read.baselines {
        let label = baseline.label.as_str();
        let is_gate = label == inputs.gate.as_str();
        let mut unavailable = baseline.unavailable.clone();
        match &evidence {
            Some((resolved, Some(why))) if *resolved == label => unavailable = Some(why.clone()),
            Some((resolved, _))
                if is_gate
                    && tag != Some(label)
                    && !read.baselines.iter().any(|b| b.label.as_str() == *resolved) =>
            {
                unavailable = Some(format!(
                    "the resolution is for the label {:?}, which no --baseline names, so nothing says these results are its baseline",
                    runner::shown(resolved)
                ));
            }
            _ => {}
        }
        let sides = Sides {
            label: label.to_owned(),
            baseline: &baseline.tables,
            current: &read.current,
            history: if is_gate { &read.history } else { &[] },
            unselected: &loaded.unselected,
            unavailable,
            paired: inputs
                .paired
                .filter(|_| is_gate)
                .map(|schedule| crate::paired::Settings {
                    false_alarms: inputs.thresholds.false_alarms,
                    schedule,
                }),
        };
        let partial = verdict::Partial {
            stopped: baseline.stopped.clone(),
            min_coverage: inputs.min_coverage,
        };
        let comparison =
            verdict::compare_partial(sides, &loaded.config, inputs.thresholds, partial);
        warnings.extend(comparison_warnings(
            &comparison,
            is_gate,
            inputs.min_coverage,
        ));
        if is_gate {
            gate = Some(comparison);
        } else {
            others.push(comparison);
        }
    }
    Report {
        gate,
        others,
        report_only: inputs.report_only,
        thresholds: inputs.thresholds,
        inputs: read.inputs.clone(),
        provenance: loaded.provenance.clone(),
        warnings,
        config: &loaded.config,
        machine: read.machine.clone(),
    }
}
