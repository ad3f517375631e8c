//! Everything one `trend` run found, in the order a reader wants it:
//! persistent regressions first (the largest first), then improvements,
//! drifts and transients; which regressions are new (starting within the
//! last `--recent` runs). Pure: the judged series in, the report out.

use super::changes::{Change, Judged, Kind};
use super::history::{History, Run, Series};
use crate::config::Config;
use crate::contract::fingerprint::Difference;

/// One row's changes.
#[derive(Debug)]
pub struct RowTrend<'h> {
    pub series: &'h Series,
    pub judged: Judged,
}

/// One change of one row, for the lists.
#[derive(Debug, Clone, Copy)]
pub struct Found<'r, 'h> {
    pub row: &'r RowTrend<'h>,
    pub change: Change,
}

/// The sections of the report, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Regressions,
    Improvements,
    Drifts,
    Transients,
}

impl Section {
    pub const ALL: [Section; 4] = [
        Section::Regressions,
        Section::Improvements,
        Section::Drifts,
        Section::Transients,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Section::Regressions => "Persistent regressions",
            Section::Improvements => "Persistent improvements",
            Section::Drifts => "Drifts",
            Section::Transients => "Transient changes",
        }
    }

    fn of(change: &Change) -> Section {
        match (change.kind, change.is_regression()) {
            (Kind::Persistent, true) => Section::Regressions,
            (Kind::Persistent, false) => Section::Improvements,
            (Kind::Drift, _) => Section::Drifts,
            (Kind::Transient, _) => Section::Transients,
        }
    }
}

/// One row that moved with a machine change.
#[derive(Debug, Clone)]
pub struct Moved {
    /// The row's key, as the report describes it.
    pub key: String,
    /// after/before - 1, negative worse (as a trend change).
    pub change: f64,
}

/// A change of machine at one run of the history.
#[derive(Debug, Clone)]
pub struct MachineChange {
    /// The first run on the new machine.
    pub run: usize,
    pub from: String,
    pub to: String,
    pub differences: Vec<Difference>,
    pub rows: Vec<Moved>,
}

pub struct Report<'h> {
    pub history: &'h History,
    pub config: &'h Config,
    /// Every row with a change or an outlier.
    pub rows: Vec<RowTrend<'h>>,
    /// Rows judged (every series).
    pub judged: usize,
    /// Where main's machine changed, with the rows that moved with it.
    pub machines: Vec<MachineChange>,
    pub min_change: f64,
    pub recent: usize,
}

impl<'h> Report<'h> {
    /// The changes of one section, largest first.
    pub fn section(&self, section: Section) -> Vec<Found<'_, 'h>> {
        let mut found: Vec<Found<'_, 'h>> = self
            .rows
            .iter()
            .flat_map(|row| {
                row.judged
                    .changes
                    .iter()
                    .filter(move |c| Section::of(c) == section)
                    .map(move |c| Found { row, change: *c })
            })
            .collect();
        found.sort_by(|a, b| b.change.change.abs().total_cmp(&a.change.change.abs()));
        found
    }

    /// Whether a change starts within the last `recent` runs.
    pub fn is_new(&self, change: &Change) -> bool {
        change.run.saturating_add(self.recent) >= self.history.runs.len()
    }

    /// The persistent regressions that are new.
    pub fn new_regressions(&self) -> Vec<Found<'_, 'h>> {
        self.section(Section::Regressions)
            .into_iter()
            .filter(|f| self.is_new(&f.change))
            .collect()
    }

    pub fn run(&self, index: usize) -> Option<&'h Run> {
        self.history.runs.get(index)
    }

    /// The unit of a row's metric.
    pub fn unit(&self, series: &Series) -> &str {
        self.config
            .metrics
            .get(series.metric)
            .map_or("", |m| m.unit.as_str())
    }

    pub fn outliers(&self) -> usize {
        self.rows.iter().map(|r| r.judged.outliers.len()).sum()
    }
}
