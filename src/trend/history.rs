//! main's history as `trend` reads it: the files in run order (name
//! order, as compare reads `--history`), each a run whose name may carry
//! its commit (`0042-<sha>.csv`), and each row's series: its headline
//! value in every run that has it.
//!
//! Bounded like compare: at most [`MAX_FILES`] files and [`MAX_TOTAL_BYTES`]
//! together, refused before anything is read; files are read a few at a
//! time on the pool and dropped once their values are taken, so memory is
//! the series (16 bytes per row per run) plus the files being read. A file
//! that cannot be read or is malformed is a warning and is left out; a
//! row's series is the runs that have it, so rows may appear and vanish.
//! A history that leaves nothing to judge (no file named, none readable, no
//! row with a value) is an error, never "0 runs" and a green step: the
//! command's one input said nothing, and the user must hear which file and
//! why.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::config::Config;
use crate::parallel;
use crate::runner::shown;
use crate::runner::text::counted;
use crate::table::files::{self, MAX_FILES, MAX_TOTAL_BYTES, run_of};
use crate::table::read::Budget;
use crate::table::{self, Key, TableError};
use crate::validate::Sha;

/// Files read at once (and held at once): enough to keep every core busy.
const BATCH: usize = 16;

/// One run of the history: its file's name without the extension, and the
/// commit the name ends in, if it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub name: String,
    pub sha: Option<Sha>,
}

/// One row's values along the history, on one metric.
#[derive(Debug, Clone)]
pub struct Series {
    /// The key's joined text (see `table::Key`).
    pub key: String,
    pub metric: usize,
    /// (run, value), in run order.
    pub values: Vec<(usize, f64)>,
}

impl Series {
    pub fn key(&self) -> Key<'_> {
        Key::of(&self.key)
    }
}

#[derive(Debug, Default)]
pub struct History {
    pub runs: Vec<Run>,
    pub series: Vec<Series>,
    pub warnings: Vec<String>,
    /// What each run was measured on (bench's fingerprint beside its
    /// file), by run; `None` where there is none.
    pub machines: Vec<Option<crate::contract::fingerprint::Fingerprint>>,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("--history: {count} files; trend reads at most {MAX_FILES}")]
    TooMany { count: usize },
    #[error("--history names no file ({patterns}): trend has no run to judge")]
    NoFile { patterns: String },
    #[error(
        "--history names {}, and {} be read, so trend has no run to judge; the first: {first}",
        counted(*count, "file"),
        if *count == 1 { "it cannot" } else { "none can" }
    )]
    NoneRead { count: usize, first: String },
    #[error(
        "--history: no row in the {} read has a value to judge (the first row: {first})",
        counted(*runs, "run")
    )]
    NoValue { runs: usize, first: String },
    #[error(transparent)]
    Table(#[from] TableError),
}

/// The files the patterns name, in order, with a warning for each pattern
/// that names nothing.
fn plan(patterns: &[PathBuf], warnings: &mut Vec<String>) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for pattern in patterns {
        let found = files::expand(pattern);
        if found.is_empty() {
            warnings.push(format!(
                "history {}: no such file",
                shown(&pattern.display().to_string())
            ));
        }
        paths.extend(found);
    }
    paths
}

/// Reads every history file into series.
pub fn read(
    patterns: &[PathBuf],
    config: &mut Config,
    format: Option<crate::table::formats::Format>,
) -> Result<History, HistoryError> {
    let mut history = History::default();
    let paths = plan(patterns, &mut history.warnings);
    if paths.is_empty() {
        let patterns = patterns.iter().map(|p| p.display().to_string());
        return Err(HistoryError::NoFile {
            patterns: shown(&patterns.collect::<Vec<_>>().join(", ")),
        });
    }
    if paths.len() > MAX_FILES {
        return Err(HistoryError::TooMany { count: paths.len() });
    }
    files::check_total(paths.iter().map(PathBuf::as_path), MAX_TOTAL_BYTES)?;
    let budget = Budget::new(MAX_TOTAL_BYTES);
    // Harnesses' files (pyperf, Google Benchmark, ...) lined up on one
    // list of metrics; the config takes their keys where it has the defaults.
    let mut unify = table::schema::Unify::new(config);
    let mut index: FxHashMap<(String, usize), usize> = FxHashMap::default();
    // The first file left out and the first row without a value: what the
    // error says when nothing is left to judge.
    let (mut unread, mut invalid) = (None, None);
    for batch in paths.chunks(BATCH) {
        let tables = parallel::each(batch, |path| {
            // trend shows no file's identity: none is computed.
            table::read::read_with(
                path,
                &config.keys,
                &config.metrics,
                &budget,
                format,
                table::read::Identity::Unhashed,
            )
        });
        for (path, result) in batch.iter().zip(tables) {
            match result {
                Ok(mut t) => {
                    unify.admit(&mut t)?;
                    add(&mut history, &mut index, path, &t);
                    // Looked for only while no row has had a value.
                    if history.series.is_empty() && invalid.is_none() {
                        invalid = t.first_invalid();
                    }
                }
                Err(e @ TableError::OverBudget { .. }) => return Err(e.into()),
                Err(e) => {
                    history
                        .warnings
                        .push(format!("history {e}; the file is left out"));
                    unread.get_or_insert_with(|| e.to_string());
                }
            }
        }
    }
    unify.apply(config);
    if history.runs.is_empty() {
        let first = unread.unwrap_or_default();
        return Err(HistoryError::NoneRead {
            count: paths.len(),
            first,
        });
    }
    if history.series.is_empty() {
        let first = invalid.unwrap_or_else(|| "no file holds a row".to_owned());
        let runs = history.runs.len();
        return Err(HistoryError::NoValue { runs, first });
    }
    Ok(history)
}

/// One run's table into the series.
fn add(
    history: &mut History,
    index: &mut FxHashMap<(String, usize), usize>,
    path: &Path,
    t: &table::Table,
) {
    let run = history.runs.len();
    let (name, sha) = run_of(path);
    history.runs.push(Run { name, sha });
    history
        .machines
        .push(crate::contract::fingerprint::Fingerprint::beside(path));
    for row in t.rows() {
        let Some((metric, value)) = row.measure() else {
            continue;
        };
        let key = row.key().joined();
        let slot = match index.get(&(key.to_owned(), metric)) {
            Some(slot) => *slot,
            None => {
                let slot = history.series.len();
                history.series.push(Series {
                    key: key.to_owned(),
                    metric,
                    values: Vec::new(),
                });
                index.insert((key.to_owned(), metric), slot);
                slot
            }
        };
        if let Some(series) = history.series.get_mut(slot) {
            series.values.push((run, value));
        }
    }
}
