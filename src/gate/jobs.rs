//! Each job's report read, keeping only what the gate shows: the gate
//! baseline's verdict, counts, coverage and rounds, and its worst failing
//! rows (the report's rows are streamed; at most [`WORST_ROWS`] are kept,
//! the rest counted). A report that cannot be read is kept as that, with
//! its path and why: its job fails, it is never skipped.

use std::path::{Path, PathBuf};

use super::args::NameFrom;
use super::find::Found;
use crate::contract::class::Class;
use crate::contract::comparison::{self, Baseline, Keep, Read, Row, Streamed};

/// Failing rows a job's line shows.
pub const WORST_ROWS: usize = 3;

/// One job: its name, where its report was, and what it says.
#[derive(Debug)]
pub struct Job {
    pub name: String,
    pub path: PathBuf,
    pub report: Result<Read<Streamed<Worst>>, String>,
}

/// A baseline's rows as the gate reads them: the regressed and lost rows,
/// the [`WORST_ROWS`] worst kept (lost first, then by change), all counted.
#[derive(Debug, Default)]
pub struct Worst {
    pub rows: Vec<Row<'static>>,
    pub failing: usize,
}

impl Worst {
    /// Lost rows first (the change is gone), then the largest fall.
    fn rank(row: &Row<'_>) -> f64 {
        if row.is(&[Class::Lost]) {
            f64::NEG_INFINITY
        } else {
            row.change_pct.filter(|c| c.is_finite()).unwrap_or(0.0)
        }
    }

    fn add(&mut self, row: Row<'static>) {
        self.failing = self.failing.saturating_add(1);
        let rank = Worst::rank(&row);
        let at = self.rows.partition_point(|r| Worst::rank(r) <= rank);
        if at < WORST_ROWS {
            self.rows.insert(at, row);
            self.rows.truncate(WORST_ROWS);
        }
    }
}

impl Keep for Worst {
    fn keep(&mut self, row: Row<'static>) {
        if row.is(&[Class::Regressed, Class::Lost]) {
            self.add(row);
        }
    }
}

/// The job's name: the directory the report is in (an artifact's name),
/// or the file's name without its extension.
pub fn name(path: &Path, from: NameFrom) -> String {
    let file = || path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let dir = || {
        path.parent()
            .and_then(Path::file_name)
            .map(|s| s.to_string_lossy().into_owned())
    };
    let named = match from {
        NameFrom::Dir => dir().or_else(file),
        NameFrom::File => file(),
    };
    named.unwrap_or_else(|| path.display().to_string())
}

/// Reads one report (a symbolic link is not followed: its job fails).
pub fn read(found: &Found, from: NameFrom) -> Job {
    let report = if found.link {
        Err(format!(
            "the report {} is a symbolic link: not followed",
            found.path.display()
        ))
    } else {
        comparison::from_file::<Streamed<Worst>>(&found.path).map_err(|e| e.to_string())
    };
    Job {
        name: name(&found.path, from),
        path: found.path.clone(),
        report,
    }
}

/// The gate baseline of a report read.
pub fn gate(report: &Read<Streamed<Worst>>) -> Option<&Baseline<'static, Streamed<Worst>>> {
    report.gate_baseline()
}
