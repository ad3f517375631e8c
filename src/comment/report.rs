//! compare's JSON report (`--format json`, `--report FILE`) as `comment`
//! shows it: the shared contract (`contract::comparison`) read back, and
//! of it only what a comment of at most 65,536 characters can show, plus
//! counts. Every string is a stranger's (a fork's code wrote the CSVs the
//! report came from), and so is every size.
//!
//! Rows are streamed, never held whole: each is read, cut to what the body
//! shows of it, and kept only while the body could still show it
//! ([`MAX_ROWS`] in order, [`MAX_ROWS`] failing, the chart's few per
//! baseline); the rest are counted. The budget is shared by every baseline
//! of a report, so it lives beside the reader for the length of one read
//! (a derived reader has no other way to hand it to the rows). Past
//! [`MAX_BASELINES`] baselines or [`MAX_WARNINGS`] warnings only their
//! number is kept; the file itself is refused over [`MAX_REPORT_BYTES`].

use std::cell::Cell;
use std::collections::BTreeMap;

#[cfg(test)]
use super::cells::CELL;
use super::cells::{self, CLASS, LABEL, TEXT};
use crate::contract::class::Class;
use crate::contract::comparison::{self, Keep, Read, Streamed};
use crate::contract::resolution::Provenance;

pub use crate::contract::comparison::{Key, MAX_REPORT_BYTES, ReportError};

/// A row as the body shows it (its strings cut).
pub type Row = comparison::Row<'static>;

/// A row of the body is never shorter than 16 bytes, so a body of 65,536
/// shows at most this many rows: more are counted, not kept.
pub const MAX_ROWS: usize = 4_096;
/// Baselines kept; a body has room for a line per baseline at most about
/// this many times anyway.
pub const MAX_BASELINES: usize = 256;
/// Warnings the body shows.
pub const MAX_WARNINGS: usize = 10;
/// Bars of the chart: the worst rows of a baseline kept for it.
pub const CHART_ROWS: usize = crate::runner::markdown::CHART_BARS;

/// Compare's report as a comment shows it: an excerpt of the shared
/// contract (`contract::comparison`), never a second model of the whole.
#[derive(Debug, Default)]
pub struct Excerpt {
    pub verdict: Option<String>,
    pub gate: Option<String>,
    pub report_only: bool,
    pub provenance: Option<Provenance>,
    /// The first [`MAX_BASELINES`] baselines.
    pub baselines: Vec<Baseline>,
    /// How many baselines the report holds.
    pub baselines_total: usize,
    /// The first [`MAX_WARNINGS`] warnings, each cut.
    pub warnings: Vec<String>,
    pub warnings_total: usize,
    /// What each side was measured on, one line each, cut.
    pub current_measured_on: Option<String>,
    pub baseline_measured_on: Option<String>,
}

#[derive(Debug, Default)]
pub struct Baseline {
    pub label: String,
    pub gate: bool,
    pub available: bool,
    pub unavailable_reason: Option<String>,
    pub verdict: Option<String>,
    /// compare's class names (and `compared`) with their counts.
    pub counts: BTreeMap<&'static str, u64>,
    /// How much of the suite was compared, and why the rest was not.
    pub coverage: Option<crate::contract::coverage::Coverage>,
    /// The rows in report order, as long as the shared budget lasts.
    pub rows: Vec<Row>,
    /// Every row the report lists for this baseline.
    pub total: usize,
    /// Regressed and lost rows in order, as long as their budget lasts.
    pub failing: Vec<Row>,
    pub failing_total: usize,
    /// The [`CHART_ROWS`] rows furthest below the baseline among the
    /// regressed, warned and noisy ones, worst first.
    pub worse: Vec<Row>,
    /// Its rows are paired rounds (`compare --paired`): their change is the
    /// paired estimate, not the ratio of the medians beside it.
    pub paired: bool,
}

/// How far below the baseline, for the chart: a finite negative change.
fn below(row: &Row) -> Option<f64> {
    row.change_pct.filter(|c| c.is_finite() && *c < 0.0)
}

/// What may still be kept, shared by every baseline of the report being
/// read (reset by each read).
struct Budget {
    rows: Cell<usize>,
    failing: Cell<usize>,
}

thread_local! {
    static BUDGET: Budget = const {
        Budget {
            rows: Cell::new(MAX_ROWS),
            failing: Cell::new(MAX_ROWS),
        }
    };
}

fn take(which: fn(&Budget) -> &Cell<usize>) -> bool {
    BUDGET.with(|b| {
        let cell = which(b);
        let left = cell.get();
        cell.set(left.saturating_sub(1));
        left > 0
    })
}

/// A baseline's rows as the body keeps them.
#[derive(Debug, Default)]
pub struct Rows {
    rows: Vec<Row>,
    total: usize,
    failing: Vec<Row>,
    failing_total: usize,
    worse: Vec<Row>,
}

impl Rows {
    fn add(&mut self, row: Row) {
        self.total = self.total.saturating_add(1);
        if row.is(&[Class::Regressed, Class::Lost]) {
            self.failing_total = self.failing_total.saturating_add(1);
            if take(|b| &b.failing) {
                self.failing.push(row.clone());
            }
        }
        if let Some(change) =
            below(&row).filter(|_| row.is(&[Class::Regressed, Class::Warned, Class::Noisy]))
        {
            keep_worst(&mut self.worse, &row, change);
        }
        if take(|b| &b.rows) {
            self.rows.push(row);
        }
    }
}

impl Keep for Rows {
    fn keep(&mut self, row: Row) {
        self.add(cells::cut_row(row));
    }
}

/// Keeps the [`CHART_ROWS`] lowest changes, lowest first.
fn keep_worst(worse: &mut Vec<Row>, row: &Row, change: f64) {
    let at = worse.partition_point(|r| below(r).is_some_and(|c| c <= change));
    if at < CHART_ROWS {
        worse.insert(at, row.clone());
        worse.truncate(CHART_ROWS);
    }
}

impl Excerpt {
    /// From a file (streamed) or from the JSON itself (compare's `json`
    /// output, passed through `with:`, at most 1 MiB as a step output).
    pub fn load(value: &str) -> Result<Excerpt, ReportError> {
        Excerpt::read(|| comparison::load::<Streamed<Rows>>(value))
    }

    /// From JSON text already read; `origin` names it in errors.
    pub fn from_text(text: &str, origin: String) -> Result<Excerpt, ReportError> {
        Excerpt::read(|| comparison::from_text::<Streamed<Rows>>(text, origin))
    }

    fn read(
        read: impl FnOnce() -> Result<Read<Streamed<Rows>>, ReportError>,
    ) -> Result<Excerpt, ReportError> {
        BUDGET.with(|b| {
            b.rows.set(MAX_ROWS);
            b.failing.set(MAX_ROWS);
        });
        read().map(Excerpt::shown)
    }

    /// What the body shows of a report read: strings cut, at most
    /// [`MAX_BASELINES`] baselines and [`MAX_WARNINGS`] warnings.
    fn shown(read: Read<Streamed<Rows>>) -> Excerpt {
        let baselines_total = read.baselines.len();
        let warnings_total = read.warnings.len();
        Excerpt {
            verdict: read.verdict.map(|v| cells::cut(v.into_owned(), CLASS)),
            gate: read.gate.map(|g| cells::cut(g.into_owned(), LABEL)),
            report_only: read.report_only,
            provenance: read.provenance,
            baselines: read
                .baselines
                .into_iter()
                .take(MAX_BASELINES)
                .map(|b| Baseline {
                    label: cells::cut(b.label.into_owned(), LABEL),
                    gate: b.gate,
                    available: b.available,
                    unavailable_reason: b
                        .unavailable_reason
                        .map(|r| cells::cut(r.into_owned(), TEXT)),
                    verdict: b.verdict.map(|v| cells::cut(v.into_owned(), CLASS)),
                    counts: b.counts.0,
                    coverage: b.coverage,
                    rows: b.rows.0.rows,
                    total: b.rows.0.total,
                    failing: b.rows.0.failing,
                    failing_total: b.rows.0.failing_total,
                    worse: b.rows.0.worse,
                    paired: b.paired.is_some(),
                })
                .collect(),
            baselines_total,
            warnings: read
                .warnings
                .into_iter()
                .take(MAX_WARNINGS)
                .map(|w| cells::cut(w.into_owned(), TEXT))
                .collect(),
            warnings_total,
            current_measured_on: read
                .machine
                .current_measured_on
                .map(|m| cells::cut(m.into_owned(), TEXT)),
            baseline_measured_on: read
                .machine
                .baseline_measured_on
                .map(|m| cells::cut(m.into_owned(), TEXT)),
        }
    }

    pub fn gate(&self) -> Option<&Baseline> {
        self.baselines.iter().find(|b| b.gate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(json: &str) -> Excerpt {
        Excerpt::load(json).unwrap()
    }

    #[test]
    fn rows_past_what_a_body_shows_are_counted_not_kept() {
        let rows: Vec<String> = (0..10_000)
            .map(|i| {
                let class = if i % 3 == 0 { "regressed" } else { "unchanged" };
                format!(
                    r#"{{"key":{{"op":"k{i}"}},"class":"{class}","change_pct":-{}.0}}"#,
                    i % 50
                )
            })
            .collect();
        let r = load(&format!(
            r#"{{"verdict":"regression","baselines":[{{"label":"main","gate":true,"available":true,"rows":[{}]}}]}}"#,
            rows.join(",")
        ));
        let b = &r.baselines[0];
        assert_eq!((b.total, b.rows.len()), (10_000, MAX_ROWS));
        assert_eq!((b.failing_total, b.failing.len()), (3_334, 3_334));
        assert_eq!(b.worse.len(), CHART_ROWS);
        assert!(b.worse.iter().all(|r| r.change_pct == Some(-49.0)));
    }

    #[test]
    fn strings_counts_baselines_and_warnings_are_cut_as_read() {
        let long = "x".repeat(200_000);
        let baselines: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    r#"{{"label":"b{i}{long}","available":false,"unavailable_reason":"{long}"}}"#
                )
            })
            .collect();
        let warnings: Vec<String> = (0..50).map(|_| format!("\"{long}\"")).collect();
        let r = load(&format!(
            r#"{{"verdict":"pass","unknown":[[[{{}}]]],"warnings":[{}],"baselines":[{{"label":"main","gate":true,"available":true,"counts":{{"{long}":1,"regressed":2,"compared":3}},"rows":[{{"key":{{"op":"{long}","n":[1,{{"a":2}}],"b":true}},"class":"{long}"}}]}},{}]}}"#,
            warnings.join(","),
            baselines.join(",")
        ));
        assert_eq!((r.baselines.len(), r.baselines_total), (MAX_BASELINES, 301));
        assert_eq!((r.warnings.len(), r.warnings_total), (MAX_WARNINGS, 50));
        assert!(r.warnings.iter().all(|w| w.chars().count() == TEXT));
        let gate = r.gate().unwrap();
        assert_eq!(
            gate.counts
                .iter()
                .map(|(k, v)| (*k, *v))
                .collect::<Vec<_>>(),
            vec![("compared", 3), ("regressed", 2)]
        );
        let row = &gate.rows[0];
        assert_eq!(row.key.0.len(), 1, "cells past what is shown are dropped");
        assert_eq!(row.key.0[0].1.chars().count(), CELL);
        assert_eq!(row.class.chars().count(), CLASS);
        assert!(r.baselines[1].label.chars().count() == LABEL);
    }

    #[test]
    fn a_non_report_is_refused() {
        assert!(Excerpt::load("{}").is_err());
        assert!(Excerpt::load(r#"{"verdict":"pass"} trailing"#).is_err());
        assert!(Excerpt::load(r#"{"verdict":"pass","baselines":{}}"#).is_err());
    }
}
