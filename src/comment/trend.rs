//! trend's report as a comment, for a tracking issue (`--issue N`) or the
//! merged pull request: the headline, then the persistent regressions (new
//! ones marked, with their commit), improvements, drifts and transient
//! changes, every value inert text, the whole under GitHub's limit.
//!
//! The report is told from compare's by its top-level keys (trend's has
//! `rows_judged`, compare's never does); `comment` reads it once (see
//! `Loaded::load`).

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::body::{self, Body, Out};
use super::report::ReportError;
use crate::contract::trend::{TrendChange, TrendReport, TrendRow};
use crate::runner::shown;
use crate::runner::text::counted;

/// Changes each section lists before it only counts.
const LISTED: usize = 200;

/// Whether JSON `text` is a trend report: its top-level keys are read (the
/// values skipped, nothing kept), and trend's has `rows_judged`, compare's
/// never does.
pub fn is_trend(text: &str) -> bool {
    serde_json::Deserializer::from_str(text)
        .deserialize_map(TopKeys)
        .unwrap_or(false)
}

/// Reads an object's keys, skipping its values: whether one is `rows_judged`.
struct TopKeys;

impl<'de> Visitor<'de> for TopKeys {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut trend = false;
        while let Some(is) = map.next_key::<KeyIs>()? {
            trend |= is.0;
            map.next_value::<IgnoredAny>()?;
        }
        Ok(trend)
    }
}

/// A key, compared without keeping it.
struct KeyIs(bool);

impl<'de> Deserialize<'de> for KeyIs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyIs, D::Error> {
        struct Compare;
        impl Visitor<'_> for Compare {
            type Value = KeyIs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<KeyIs, E> {
                Ok(KeyIs(key == "rows_judged"))
            }
        }
        d.deserialize_str(Compare)
    }
}

/// A trend report from its text; `origin` names it in errors.
pub fn parse(text: &str, origin: String) -> Result<TrendReport<'static>, ReportError> {
    serde_json::from_str(text).map_err(|e| ReportError::Invalid {
        origin,
        message: shown(&e.to_string()),
    })
}

/// `op=gemm,shape=4096x4096: -20.0% at run 0097-... (commit fa4f8ae2d93c): 100.000 -> 80.000 TFLOPS (new)`.
fn line(row: &TrendRow<'_>, c: &TrendChange<'_>) -> String {
    let key: Vec<String> = row.key.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let commit = c
        .sha
        .as_deref()
        .map(|s| format!(" (commit {})", s.get(..12).unwrap_or(s)))
        .unwrap_or_default();
    let value = |v: f64| crate::runner::text::quantity(v, "");
    format!(
        "- {}: {:+.1}% at run {}{}: {} -> {} {}{}\n",
        body::inert(&key.join(","), 300),
        c.change_pct,
        body::inert(&c.run, 80),
        body::inert(&commit, 40),
        value(c.before),
        value(c.after),
        body::inert(&row.unit, 12),
        if c.new { " **(new)**" } else { "" }
    )
}

/// Which changes a section lists, as trend orders them.
#[derive(Clone, Copy)]
enum Wanted {
    Regressions,
    Improvements,
    Drifts,
    Transients,
}

impl Wanted {
    fn holds(self, c: &TrendChange<'_>) -> bool {
        match self {
            Wanted::Regressions => c.kind == "persistent" && c.change_pct < 0.0,
            Wanted::Improvements => c.kind == "persistent" && c.change_pct >= 0.0,
            Wanted::Drifts => c.kind == "drift",
            Wanted::Transients => c.kind == "transient",
        }
    }
}

/// The changes of one section, largest first.
fn section<'r>(
    report: &'r TrendReport<'_>,
    wanted: impl Fn(&TrendChange<'_>) -> bool,
) -> Vec<(&'r TrendRow<'r>, &'r TrendChange<'r>)> {
    let mut found: Vec<_> = report
        .rows
        .iter()
        .flat_map(|r| r.changes.iter().filter(|c| wanted(c)).map(move |c| (r, c)))
        .collect();
    found.sort_by(|a, b| b.1.change_pct.abs().total_cmp(&a.1.change_pct.abs()));
    found
}

/// The comment for a trend report.
pub fn render(report: &TrendReport<'_>, marker: &str, run_url: Option<&str>) -> Body {
    let mut out = Out::new();
    let c = report.counts;
    out.part(&format!("{}\n", body::marker(marker)));
    out.part(&format!(
        "### Benchmark trend on main: {} ({} new in the last {})\n\n{}, {} judged, changes of {:.1}% or more: {}, {}, {} transient; {}.\n\n",
        counted(c.regressions, "persistent regression"),
        c.new_regressions,
        counted(report.recent, "run"),
        counted(report.runs, "run"),
        counted(report.rows_judged, "row"),
        report.min_change_pct,
        counted(c.improvements, "improvement"),
        counted(c.drifts, "drift"),
        c.transients,
        counted(c.outliers, "single-run outlier"),
    ));
    let sections = [
        ("Persistent regressions", Wanted::Regressions),
        ("Persistent improvements", Wanted::Improvements),
        ("Drifts", Wanted::Drifts),
        ("Transient changes", Wanted::Transients),
    ];
    for (title, wanted) in sections {
        let found = section(report, |c| wanted.holds(c));
        if found.is_empty() {
            continue;
        }
        out.part(&format!("#### {title}\n\n"));
        let lines: Vec<String> = found.iter().take(LISTED).map(|(r, c)| line(r, c)).collect();
        out.lines(&lines, found.len().saturating_sub(LISTED));
        out.part("\n");
    }
    out.finish(run_url)
}
