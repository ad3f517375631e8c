//! compare's JSON report (`--format json`, schema 2) as `comment` reads it:
//! only what a comment of at most 65,536 characters can show, plus counts.
//! Every string is a stranger's (a fork's code wrote the CSVs the report
//! came from), and so is every size.
//!
//! The report is streamed, never held whole and never built into a value
//! tree: rows are read one at a time and kept only while the body could
//! still show them ([`MAX_ROWS`] in order, [`MAX_ROWS`] failing, the
//! chart's few per baseline), every string is cut to what the body shows
//! of it as it is read, a count is kept only for compare's own class
//! names, and past [`MAX_BASELINES`] baselines or [`MAX_WARNINGS`] warnings
//! only their number. Whatever the report holds, what is kept is a few
//! megabytes; the file itself is refused over [`MAX_REPORT_BYTES`].

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::io::BufReader;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use thiserror::Error;

use crate::contract::class::Class;
use crate::contract::resolution::Provenance;
use crate::runner::read::{self, FileError};
use crate::runner::shown;

pub use super::cells::{Cut, Key};

/// compare's report of 100,000 rows is about 45 MB; a real one is far
/// smaller. Bigger is refused before it is read.
pub const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;
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

/// The longest a kept string is, in characters, by what it is: one more
/// than the body shows, so the body still knows it was cut.
const LABEL: usize = 61;
const TEXT: usize = 301;
#[cfg(test)]
use super::cells::CELL;
use super::cells::NAME;
const UNIT: usize = 13;
const CLASS: usize = 21;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("the report {origin} is not compare's JSON report: {message}")]
    Invalid { origin: String, message: String },
}

#[derive(Debug, Default)]
pub struct Report {
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
    /// What each side was measured on (compare's `machine`), each cut.
    pub machine: Machine,
}

/// compare's `machine`: only the two one-line descriptions are read (the
/// fingerprints themselves are skipped unread).
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Machine {
    pub current_measured_on: Option<Cut<TEXT>>,
    pub baseline_measured_on: Option<Cut<TEXT>>,
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
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct Row {
    #[serde(default)]
    pub key: Key,
    #[serde(default)]
    pub class: Cut<CLASS>,
    pub change_pct: Option<f64>,
    pub unit: Option<Cut<UNIT>>,
    pub baseline: Option<Side>,
    pub current: Option<Side>,
    pub reason: Option<Cut<TEXT>>,
    pub thresholds: Option<Thresholds>,
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct Thresholds {
    pub fail_pct: Option<f64>,
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct Side {
    pub median: Option<f64>,
}

impl Row {
    /// Whether the row's class is one of `classes` (by compare's spelling).
    pub fn is(&self, classes: &[Class]) -> bool {
        classes.iter().any(|c| c.name() == self.class.as_str())
    }

    /// How far below the baseline, for the chart: a finite negative change.
    fn below(&self) -> Option<f64> {
        self.change_pct.filter(|c| c.is_finite() && *c < 0.0)
    }
}

/// What may still be kept, shared by every baseline of a report.
struct Budget {
    rows: Cell<usize>,
    failing: Cell<usize>,
}

impl Budget {
    fn take(cell: &Cell<usize>) -> bool {
        let left = cell.get();
        cell.set(left.saturating_sub(1));
        left > 0
    }
}

/// A baseline's `rows`, one at a time into `baseline`.
struct RowsSeed<'a> {
    budget: &'a Budget,
    baseline: &'a mut Baseline,
}

impl<'de> DeserializeSeed<'de> for RowsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RowsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of rows")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let b = self.baseline;
        while let Some(row) = seq.next_element::<Row>()? {
            b.total = b.total.saturating_add(1);
            if row.is(&[Class::Regressed, Class::Lost]) {
                b.failing_total = b.failing_total.saturating_add(1);
                if Budget::take(&self.budget.failing) {
                    b.failing.push(row.clone());
                }
            }
            if let Some(change) = row
                .below()
                .filter(|_| row.is(&[Class::Regressed, Class::Warned, Class::Noisy]))
            {
                keep_worst(&mut b.worse, &row, change);
            }
            if Budget::take(&self.budget.rows) {
                b.rows.push(row);
            }
        }
        Ok(())
    }
}

/// Keeps the [`CHART_ROWS`] lowest changes, lowest first.
fn keep_worst(worse: &mut Vec<Row>, row: &Row, change: f64) {
    let at = worse.partition_point(|r| r.below().is_some_and(|c| c <= change));
    if at < CHART_ROWS {
        worse.insert(at, row.clone());
        worse.truncate(CHART_ROWS);
    }
}

/// One baseline object, streamed.
struct BaselineSeed<'a> {
    budget: &'a Budget,
}

impl<'de> DeserializeSeed<'de> for BaselineSeed<'_> {
    type Value = Baseline;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Baseline, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BaselineSeed<'_> {
    type Value = Baseline;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a baseline object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Baseline, A::Error> {
        let mut b = Baseline::default();
        while let Some(field) = map.next_key::<Cut<NAME>>()? {
            match field.as_str() {
                "label" => b.label = map.next_value::<Cut<LABEL>>()?.0,
                "gate" => b.gate = map.next_value()?,
                "available" => b.available = map.next_value()?,
                "unavailable_reason" => {
                    b.unavailable_reason = map.next_value::<Option<Cut<TEXT>>>()?.map(|c| c.0);
                }
                "verdict" => b.verdict = map.next_value::<Option<Cut<CLASS>>>()?.map(|c| c.0),
                "counts" => b.counts = map.next_value::<Counts>()?.0,
                "coverage" => b.coverage = map.next_value()?,
                "rows" => map.next_value_seed(RowsSeed {
                    budget: self.budget,
                    baseline: &mut b,
                })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(b)
    }
}

/// `counts`, keeping only compare's class names and `compared`.
struct Counts(BTreeMap<&'static str, u64>);

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Counts, D::Error> {
        struct Known;
        impl<'de> Visitor<'de> for Known {
            type Value = Counts;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of counts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Counts, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(name) = map.next_key::<Cut<NAME>>()? {
                    let known = Class::ALL
                        .iter()
                        .map(|c| c.name())
                        .chain(["compared"])
                        .find(|k| *k == name.as_str());
                    match known {
                        Some(k) => {
                            out.insert(k, map.next_value()?);
                        }
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Counts(out))
            }
        }
        d.deserialize_map(Known)
    }
}

/// The `baselines` array: the first [`MAX_BASELINES`] kept, all counted.
struct BaselinesSeed<'a> {
    budget: &'a Budget,
    report: &'a mut Report,
}

impl<'de> DeserializeSeed<'de> for BaselinesSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BaselinesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of baselines")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let r = self.report;
        loop {
            if r.baselines.len() < MAX_BASELINES {
                match seq.next_element_seed(BaselineSeed {
                    budget: self.budget,
                })? {
                    Some(b) => r.baselines.push(b),
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            r.baselines_total = r.baselines_total.saturating_add(1);
        }
        Ok(())
    }
}

/// The `warnings` array: the first [`MAX_WARNINGS`] kept (cut), all counted.
struct WarningsSeed<'a>(&'a mut Report);

impl<'de> DeserializeSeed<'de> for WarningsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for WarningsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of warnings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let r = self.0;
        loop {
            if r.warnings.len() < MAX_WARNINGS {
                match seq.next_element::<Cut<TEXT>>()? {
                    Some(w) => r.warnings.push(w.0),
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            r.warnings_total = r.warnings_total.saturating_add(1);
        }
        Ok(())
    }
}

/// The whole report, streamed.
struct ReportVisitor;

impl<'de> Visitor<'de> for ReportVisitor {
    type Value = Report;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("compare's JSON report (an object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Report, A::Error> {
        let budget = Budget {
            rows: Cell::new(MAX_ROWS),
            failing: Cell::new(MAX_ROWS),
        };
        let mut r = Report::default();
        while let Some(field) = map.next_key::<Cut<NAME>>()? {
            match field.as_str() {
                "verdict" => r.verdict = map.next_value::<Option<Cut<CLASS>>>()?.map(|c| c.0),
                "gate" => r.gate = map.next_value::<Option<Cut<LABEL>>>()?.map(|c| c.0),
                "report_only" => r.report_only = map.next_value()?,
                "provenance" => r.provenance = map.next_value()?,
                "baselines" => map.next_value_seed(BaselinesSeed {
                    budget: &budget,
                    report: &mut r,
                })?,
                "warnings" => map.next_value_seed(WarningsSeed(&mut r))?,
                "machine" => r.machine = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(r)
    }
}

impl Report {
    /// From a file (streamed) or from the JSON itself (compare's `json`
    /// output, passed through `with:`, at most 1 MiB as a step output).
    pub fn load(value: &str) -> Result<Report, ReportError> {
        if value.trim_start().starts_with('{') {
            return Report::from_text(value, "(inline JSON)".to_owned());
        }
        let path = std::path::Path::new(value);
        let file = read::bounded_reader("the report", path, MAX_REPORT_BYTES)?;
        let mut d = serde_json::Deserializer::from_reader(BufReader::new(file));
        Report::checked(parse(&mut d), path.display().to_string())
    }

    /// From JSON text already read; `origin` names it in errors.
    pub fn from_text(text: &str, origin: String) -> Result<Report, ReportError> {
        let mut d = serde_json::Deserializer::from_str(text);
        Report::checked(parse(&mut d), origin)
    }

    fn checked(
        parsed: Result<Report, serde_json::Error>,
        origin: String,
    ) -> Result<Report, ReportError> {
        let report = parsed.map_err(|e| ReportError::Invalid {
            origin: origin.clone(),
            message: shown(&e.to_string()),
        })?;
        if report.verdict.is_none() && report.baselines.is_empty() {
            return Err(ReportError::Invalid {
                origin,
                message: "it has neither a verdict nor baselines".to_owned(),
            });
        }
        Ok(report)
    }

    pub fn gate(&self) -> Option<&Baseline> {
        self.baselines.iter().find(|b| b.gate)
    }
}

fn parse<'de, R: serde_json::de::Read<'de>>(
    d: &mut serde_json::Deserializer<R>,
) -> Result<Report, serde_json::Error> {
    let report = d.deserialize_map(ReportVisitor)?;
    d.end()?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(json: &str) -> Report {
        Report::load(json).unwrap()
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
        assert_eq!(row.class.as_str().chars().count(), CLASS);
        assert!(r.baselines[1].label.chars().count() == LABEL);
    }

    #[test]
    fn a_non_report_is_refused() {
        assert!(Report::load("{}").is_err());
        assert!(Report::load(r#"{"verdict":"pass"} trailing"#).is_err());
        assert!(Report::load(r#"{"verdict":"pass","baselines":{}}"#).is_err());
    }
}
