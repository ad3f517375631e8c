//! Every results file of one comparison, read: the current runs, each
//! baseline's samples, the history. Bounded whatever the inputs: at most
//! [`defaults::MAX_FILES`] files, at most [`defaults::MAX_TOTAL_BYTES`]
//! bytes together, read by a pool of at most one thread per core (a thread
//! the system refuses is work this thread does itself).
//!
//! What a missing file means depends on its role: a current file is bad
//! input; a baseline that is absent, unreadable or empty is a baseline
//! that is not there (a warning, and an inconclusive gate); a history file
//! that cannot be read is a warning and its rows fall back to the
//! configured threshold. A malformed current or baseline file is bad input.

use std::path::{Path, PathBuf};

use super::CompareError;
use super::defaults;
use super::inputs::Inputs;
use super::machine::Machine;
use super::report::InputFile;
use crate::config::Config;
use crate::contract::run::RunRecord;
use crate::parallel;
use crate::runner::read::FileError;
use crate::runner::{InputError, shown};
use crate::table::formats::Format;
use crate::table::{self, Table, TableError, files, read::Budget};
use crate::validate::Label;

/// One baseline label's samples, as read.
#[derive(Debug)]
pub struct BaselineRead {
    pub label: Label,
    pub tables: Vec<Table>,
    /// Why no sample could be read (absent, unreadable, empty).
    pub unavailable: Option<String>,
    /// Why the run that wrote a sample stopped short (failed, timed out),
    /// from bench's record beside the file (`contract::run`).
    pub stopped: Option<String>,
}

/// Everything read.
#[derive(Debug, Default)]
pub struct Read {
    pub current: Vec<Table>,
    pub baselines: Vec<BaselineRead>,
    /// Past runs of the gate's branch, in run order.
    pub history: Vec<Table>,
    pub inputs: Vec<InputFile>,
    pub warnings: Vec<String>,
    /// What each side was measured on; the history runs left out.
    pub machine: Machine,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Current,
    Baseline(usize),
    History,
}

struct Job {
    role: Role,
    path: PathBuf,
}

/// Reads every file the inputs name.
pub fn read(inputs: &Inputs, config: &Config) -> Result<Read, CompareError> {
    let (mut jobs, warnings) = plan(inputs);
    let gate_files = inputs
        .baselines
        .iter()
        .find(|b| b.label == inputs.gate)
        .map_or(&[][..], |b| b.files.as_slice());
    let mut machine = Machine::load(&inputs.machine, &inputs.current, gate_files)?;
    // A history run from another machine would teach the bands its level.
    jobs.retain(|j| j.role != Role::History || !machine.leaves_out(&j.path));
    if jobs.len() > defaults::MAX_FILES {
        return Err(CompareError::Usage(InputError {
            origin: "--current / --baseline / --history".to_owned(),
            message: format!(
                "{} input files; one comparison reads at most {}",
                jobs.len(),
                defaults::MAX_FILES
            ),
        }));
    }
    files::check_total(
        jobs.iter().map(|j| j.path.as_path()),
        defaults::MAX_TOTAL_BYTES,
    )?;
    let budget = Budget::new(defaults::MAX_TOTAL_BYTES);
    let results = parallel::each(&jobs, |job| {
        read_one(job, config, &budget, inputs.results_format)
    });
    let mut out = Read {
        warnings,
        machine,
        ..Read::default()
    };
    sort(inputs, &jobs, results, &mut out)?;
    Ok(out)
}

/// The files to read, each with its role, and warnings for history
/// patterns that name nothing.
fn plan(inputs: &Inputs) -> (Vec<Job>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    jobs.extend(inputs.current.iter().map(|p| Job {
        role: Role::Current,
        path: p.clone(),
    }));
    for (i, b) in inputs.baselines.iter().enumerate() {
        jobs.extend(b.files.iter().map(|p| Job {
            role: Role::Baseline(i),
            path: p.clone(),
        }));
    }
    for pattern in &inputs.history {
        let paths = files::expand(pattern);
        if paths.is_empty() {
            warnings.push(format!(
                "history {}: no such file; its rows use the configured threshold",
                shown(&pattern.display().to_string())
            ));
        }
        jobs.extend(paths.into_iter().map(|path| Job {
            role: Role::History,
            path,
        }));
    }
    (jobs, warnings)
}

/// Lines up harnesses' results files (Google Benchmark, pyperf, ...) with
/// each other and the config: the config takes their keys and metrics
/// where it has the defaults (`table::schema`). The CSV is untouched.
pub fn line_up(read: &mut Read, config: &mut Config) -> Result<(), CompareError> {
    let mut unify = table::schema::Unify::new(config);
    let baselines = read.baselines.iter_mut().flat_map(|b| b.tables.iter_mut());
    for t in read
        .current
        .iter_mut()
        .chain(baselines)
        .chain(read.history.iter_mut())
    {
        unify.admit(t)?;
    }
    unify.apply(config);
    Ok(())
}

/// Each file's table (or why it is missing) to where its role puts it.
fn sort(
    inputs: &Inputs,
    jobs: &[Job],
    results: Vec<Result<Table, TableError>>,
    out: &mut Read,
) -> Result<(), CompareError> {
    out.baselines = inputs
        .baselines
        .iter()
        .map(|b| BaselineRead {
            label: b.label.clone(),
            tables: Vec::new(),
            unavailable: None,
            stopped: b
                .files
                .iter()
                .find_map(|f| RunRecord::beside(f).and_then(|r| r.stopped())),
        })
        .collect();
    let mut missing: Vec<Vec<String>> = vec![Vec::new(); inputs.baselines.len()];
    for (job, result) in jobs.iter().zip(results) {
        let role = match job.role {
            Role::Current => "current".to_owned(),
            Role::History => "history".to_owned(),
            Role::Baseline(i) => out
                .baselines
                .get(i)
                .map_or_else(String::new, |b| b.label.to_string()),
        };
        out.inputs
            .push(input_file(&role, &job.path, result.as_ref().ok()));
        match (job.role, result) {
            (Role::Current, Ok(t)) => out.current.push(t),
            (Role::Current, Err(e)) => return Err(e.into()),
            (Role::Baseline(i), Ok(t)) => {
                if let Some(b) = out.baselines.get_mut(i) {
                    b.tables.push(t);
                }
            }
            (Role::Baseline(i), Err(e)) => match absent(&e) {
                Some(why) => {
                    if let Some(m) = missing.get_mut(i) {
                        m.push(why);
                    }
                }
                None => return Err(e.into()),
            },
            (Role::History, Ok(t)) => out.history.push(t),
            (Role::History, Err(TableError::OverBudget { path, limit })) => {
                return Err(TableError::OverBudget { path, limit }.into());
            }
            (Role::History, Err(e)) => out.warnings.push(format!(
                "history {e}; the file is left out and its rows use what the other runs say"
            )),
        }
    }
    for (b, why) in out.baselines.iter_mut().zip(missing) {
        if b.tables.is_empty() {
            b.unavailable = Some(if why.is_empty() {
                "no file given (LABEL= with nothing after it: the step that was to write it left its output empty)".to_owned()
            } else {
                why.join("; ")
            });
        } else {
            for w in why {
                out.warnings.push(format!(
                    "baseline {}: {w}; the other samples are compared",
                    b.label
                ));
            }
        }
    }
    Ok(())
}

fn read_one(
    job: &Job,
    config: &Config,
    budget: &Budget,
    format: Option<Format>,
) -> Result<Table, TableError> {
    if job.role != Role::Current
        && let Ok(meta) = std::fs::metadata(&job.path)
        && meta.len() == 0
    {
        return Err(TableError::File(FileError::Read {
            what: "results file",
            path: job.path.clone(),
            source: std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file is empty"),
        }));
    }
    table::read::read_as(&job.path, &config.keys, &config.metrics, budget, format)
}

/// Why a baseline file is not there, when that is the error (absent,
/// unreadable, empty); `None` when it is there and malformed.
fn absent(err: &TableError) -> Option<String> {
    match err {
        TableError::File(FileError::Read { path, source, .. }) => {
            Some(format!("{}: {source}", path.display()))
        }
        _ => None,
    }
}

fn input_file(role: &str, path: &Path, table: Option<&Table>) -> InputFile {
    InputFile {
        role: role.to_owned(),
        path: path.to_owned(),
        sha256: table.map(|t| t.sha256.clone()),
        rows: table.map_or(0, Table::len),
        valid_rows: table.map_or(0, Table::valid_rows),
    }
}
