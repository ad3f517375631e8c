//! `compare`: the benchmark results of the change against those of the one
//! baseline (and, reported beside it, the release tag's), as a verdict that
//! can fail the step: never a silent pass.
//!
//! [`args`] and the environment become [`inputs`]; the result files are
//! read into [`table`]s (a partial baseline keeps its valid rows); the
//! [`config`] gives keys, metrics and per-row rules; [`verdict`] (pure)
//! classifies every row and decides; [`report`] holds it all and
//! [`render`] shows it (the dashboard's log lines, step outputs, a job
//! summary, JSON).

pub mod args;
pub mod config;
pub mod defaults;
pub mod inputs;
pub mod render;
pub mod report;
pub mod table;
pub mod verdict;

use std::path::Path;

use thiserror::Error;

use crate::runner::file_command::EncodeError;
use crate::runner::log::LogSink as _;
use crate::runner::{self, Env, Format, InputError, WriteError, exit};
use args::CompareArgs;
use config::{Config, ConfigError};
use inputs::Inputs;
use report::{InputFile, Provenance, ProvenanceError, Report};
use table::{Table, TableError};
use verdict::{Thresholds, Verdict};

/// Exit codes of `compare` beyond the shared ones (0, 1 bad input, 2 usage).
pub mod exits {
    /// `--strict`, and the gate is inconclusive.
    pub const INCONCLUSIVE: u8 = 3;
    /// Rows regressed or were lost against the gate baseline.
    pub const REGRESSION: u8 = 4;
}

#[derive(Debug, Error)]
pub enum CompareError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Provenance(#[from] ProvenanceError),
    #[error("cannot encode the step outputs: {0}")]
    Encode(#[from] EncodeError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

impl CompareError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CompareError::Input(_) => exit::USAGE,
            _ => exit::BAD_INPUT,
        }
    }
}

/// The command: validate, compare, write; an error becomes one line on
/// stderr (and an `::error::` annotation on a runner) and its exit code.
pub fn main(args: &CompareArgs, env: Env<'_>) -> u8 {
    match inputs::validate(args, env)
        .map_err(CompareError::from)
        .and_then(|inputs| run(&inputs))
    {
        Ok(code) => code,
        Err(err) => {
            runner::report_error("baseline-resolver compare", &err.to_string(), env);
            err.exit_code()
        }
    }
}

/// Compares and writes the report; returns the exit code.
pub fn run(inputs: &Inputs) -> Result<u8, CompareError> {
    let report = compare(inputs)?;
    match inputs.format {
        Format::Json => runner::write::stdout(|log| log.json(&render::json(&report, None)))?,
        Format::Text => runner::write::stdout(|log| render::write_text(&report, log))?,
        Format::Github => {
            let rendered = render::actions(&report)?;
            let warning = runner::write::outputs_and_summary(&inputs.files, &rendered)?;
            runner::write::stdout(|log| {
                log.append(&rendered.stdout)?;
                render::write_text(&report, log)?;
                log.append(&warning)
            })?;
        }
    }
    let (verdict, report_only) = (report.verdict(), report.report_only);
    // The process ends next: freeing a few hundred thousand rows one by one
    // would cost more than the comparison did.
    std::mem::forget(report);
    Ok(match verdict {
        _ if report_only => exit::OK,
        Verdict::Regression => exits::REGRESSION,
        Verdict::Inconclusive if inputs.strict => exits::INCONCLUSIVE,
        Verdict::Pass | Verdict::Inconclusive => exit::OK,
    })
}

/// The report, without writing anything. Everything is read (and every bad
/// input found) before anything is written.
pub fn compare(inputs: &Inputs) -> Result<Report, CompareError> {
    let config = match &inputs.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    let provenance = inputs
        .resolution
        .as_deref()
        .map(Provenance::load)
        .transpose()?;
    // The gate first, then the other baselines in the order given.
    let mut order: Vec<&inputs::BaselineFiles> = inputs.baselines.iter().collect();
    order.sort_by_key(|b| b.label != inputs.gate);
    let (current, baselines) = read_all(&inputs.current, &order, &config)?;
    let mut files: Vec<InputFile> = inputs
        .current
        .iter()
        .zip(&current)
        .map(|(path, table)| input_file("current", path, Some(table)))
        .collect();
    let thresholds = Thresholds {
        fail_pct: inputs.fail_pct,
        warn_pct: inputs.warn_pct,
    };
    let mut warnings = Vec::new();
    let mut comparisons = Vec::new();
    let mut tables = Vec::new();
    for (baseline, read) in order.iter().zip(baselines) {
        let label = baseline.label.as_str();
        let mut samples = Vec::new();
        let mut missing = Vec::new();
        for (path, table) in baseline.files.iter().zip(read) {
            files.push(input_file(label, path, table.as_ref().ok()));
            match table {
                Ok(table) => samples.push(table),
                Err(why) => missing.push(why),
            }
        }
        let unavailable = samples.is_empty().then(|| missing.join("; "));
        if !samples.is_empty() {
            for why in &missing {
                warnings.push(format!(
                    "baseline {label}: {why}; the other samples are compared"
                ));
            }
        }
        let comparison =
            verdict::compare(label, &current, &samples, unavailable, &config, thresholds);
        if let Some(why) = &comparison.unavailable {
            warnings.push(format!("baseline {label} unavailable: {why}"));
        }
        comparisons.push(comparison);
        tables.extend(samples);
    }
    tables.extend(current);
    Ok(Report {
        comparisons,
        report_only: inputs.report_only,
        thresholds,
        inputs: files,
        provenance,
        warnings,
        config,
        tables,
    })
}

/// A baseline's files as read: a table, or why the file is not there.
type BaselineRead = Vec<Result<Table, String>>;

/// Reads every file at once, each on a thread of its own: parsing is most
/// of a comparison's time, and the files do not depend on each other. The
/// first bad input, in the order given, is the error.
fn read_all(
    current: &[std::path::PathBuf],
    baselines: &[&inputs::BaselineFiles],
    config: &Config,
) -> Result<(Vec<Table>, Vec<BaselineRead>), CompareError> {
    std::thread::scope(|scope| {
        let current: Vec<_> = current
            .iter()
            .map(|path| scope.spawn(move || table::read(path, &config.keys, &config.metrics)))
            .collect();
        let baselines: Vec<Vec<_>> = baselines
            .iter()
            .map(|b| {
                b.files
                    .iter()
                    .map(|path| scope.spawn(move || read_baseline(path, config)))
                    .collect()
            })
            .collect();
        let current = current
            .into_iter()
            .map(|h| joined(h).map_err(CompareError::from))
            .collect::<Result<Vec<Table>, _>>()?;
        let baselines = baselines
            .into_iter()
            .map(|files| {
                files
                    .into_iter()
                    .map(joined)
                    .collect::<Result<BaselineRead, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((current, baselines))
    })
}

/// A reading thread's result; its panic, if it had one, goes on here (and
/// to the panic hook).
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// A baseline file: absent, unreadable or empty is a baseline that is not
/// there (`Ok(Err(why))`, a warning); a malformed one is bad input.
fn read_baseline(path: &Path, config: &Config) -> Result<Result<Table, String>, CompareError> {
    match std::fs::metadata(path) {
        Err(e) => return Ok(Err(format!("{}: {e}", path.display()))),
        Ok(meta) if meta.len() == 0 => return Ok(Err(format!("{} is empty", path.display()))),
        Ok(_) => {}
    }
    match table::read(path, &config.keys, &config.metrics) {
        Ok(table) => Ok(Ok(table)),
        Err(TableError::Read { path, source }) => Ok(Err(format!("{}: {source}", path.display()))),
        Err(err) => Err(err.into()),
    }
}

fn input_file(role: &str, path: &Path, table: Option<&Table>) -> InputFile {
    InputFile {
        role: role.to_owned(),
        path: path.to_owned(),
        sha256: table.map(|t| t.sha256.clone()),
        rows: table.map_or(0, |t| t.rows.len()),
        valid_rows: table.map_or(0, Table::valid_rows),
    }
}
