//! The report as one JSON object: `--format json` on stdout (every row,
//! keys whole) and the `json` step output (at most [`super::OUTPUT_ROWS`]
//! rows per baseline that are not unchanged, key cells cut, the whole under
//! the step output limit). Rows are serialized as they are classified:
//! a hundred thousand rows are never held as JSON values.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::{Rerun, threshold_source};
use crate::compare::noise::NoBand;
use crate::compare::report::{Provenance, Report};
use crate::compare::verdict::{Class, Comparison, Origin, RowResult, Samples};
use crate::config::FailThreshold;
use crate::runner::text::visible;
use crate::table::SHOWN_CELL;

/// The schema of the object (the contract's, which `comment` reads).
pub use crate::contract::REPORT_SCHEMA as SCHEMA;

/// A row's key as a JSON object: `{"op": ..., "shape": ..., "dtype": ...}`.
struct JsonKey<'a> {
    columns: &'a [String],
    row: &'a RowResult<'a>,
    cut: bool,
}

impl Serialize for JsonKey<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.columns.len()))?;
        for (column, value) in self.columns.iter().zip(self.row.key.fields()) {
            if self.cut {
                map.serialize_entry(column, &visible(&value, SHOWN_CELL))?;
            } else {
                map.serialize_entry(column, &value)?;
            }
        }
        map.end()
    }
}

#[derive(Serialize)]
struct JsonThreshold {
    /// The fail threshold the row was judged by.
    fail_pct: Option<f64>,
    warn_pct: f64,
    floor: f64,
    rule: Option<usize>,
    /// `default`, `input`, `rule`, `learned`, `too-little-history` or
    /// `history-unusable`.
    source: &'static str,
    history_runs: Option<usize>,
    band_pct: Option<f64>,
}

#[derive(Serialize)]
struct JsonSide<'a> {
    median: f64,
    samples: &'a [f64],
}

fn side(s: &Samples) -> JsonSide<'_> {
    JsonSide {
        median: s.median,
        samples: s.samples(),
    }
}

#[derive(Serialize)]
struct JsonRow<'a> {
    key: JsonKey<'a>,
    class: &'static str,
    change_pct: Option<f64>,
    unit: Option<&'a str>,
    baseline: Option<JsonSide<'a>>,
    current: Option<JsonSide<'a>>,
    reason: Option<String>,
    thresholds: JsonThreshold,
    rerun: bool,
    /// The baseline's run was itself off its history's level.
    rerun_baseline: bool,
    /// With --paired: the rounds the decision used, the 98% interval of
    /// the change (percent, low to high), and the chance of so much worse
    /// if nothing changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    rounds: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval_pct: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p_worse: Option<f64>,
}

fn json_row<'a>(report: &'a Report<'_>, row: &'a RowResult<'a>, cut: bool) -> JsonRow<'a> {
    let (runs, band) = match row.applied.map(|a| a.origin) {
        Some(Origin::Learned(b)) => (Some(b.runs), Some(b.rise() * 100.0)),
        Some(Origin::NoBand {
            why:
                NoBand::TooFew { runs } | NoBand::Unusable { runs, .. } | NoBand::TwoLevels { runs, .. },
            ..
        }) => (Some(runs), None),
        _ => (None, None),
    };
    JsonRow {
        key: JsonKey {
            columns: &report.config.keys,
            row,
            cut,
        },
        class: row.class.name(),
        change_pct: row.change.map(|c| c * 100.0),
        unit: row.metric.map(|m| report.unit(Some(m))),
        baseline: row.baseline.as_ref().map(side),
        current: row.current.as_ref().map(side),
        reason: row
            .reason
            .as_deref()
            .map(|r| if cut { super::cut(r) } else { r.to_owned() }),
        thresholds: JsonThreshold {
            fail_pct: row
                .applied
                .map(|a| a.fail * 100.0)
                .or(match row.policy.fail {
                    FailThreshold::Fixed(f) => Some(f * 100.0),
                    FailThreshold::Auto => None,
                }),
            warn_pct: row.policy.warn * 100.0,
            floor: row.policy.floor,
            rule: row.policy.rule,
            source: threshold_source(row),
            history_runs: runs,
            band_pct: band,
        },
        rerun: row.worth_rerun(),
        rerun_baseline: row.rerun_baseline,
        rounds: row.paired.map(|p| p.rounds),
        interval_pct: row
            .paired
            .and_then(|p| p.interval)
            .map(|(low, high)| [low * 100.0, high * 100.0]),
        p_worse: row.paired.map(|p| p.p_worse),
    }
}

/// The rows of a comparison, classified and written one by one.
struct JsonRows<'a> {
    report: &'a Report<'a>,
    comparison: &'a Comparison<'a>,
    limit: Option<usize>,
}

impl Serialize for JsonRows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let cut = self.limit.is_some();
        let row = |r| OwnedRow {
            report: self.report,
            row: r,
            cut,
        };
        match self.limit {
            None => serializer.collect_seq(self.comparison.rows().map(row)),
            Some(max) => {
                serializer.collect_seq(self.comparison.rows_of(&Class::NOTABLE).take(max).map(row))
            }
        }
    }
}

/// A classified row and how to show it (a row lives only while it is
/// written).
struct OwnedRow<'a> {
    report: &'a Report<'a>,
    row: RowResult<'a>,
    cut: bool,
}

impl Serialize for OwnedRow<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json_row(self.report, &self.row, self.cut).serialize(serializer)
    }
}

#[derive(Serialize)]
struct JsonWorst {
    key: String,
    change_pct: Option<f64>,
}

#[derive(Serialize)]
struct JsonShift {
    change_pct: f64,
    rows: usize,
    compared: usize,
}

#[derive(Serialize)]
struct JsonComparison<'a> {
    label: &'a str,
    gate: bool,
    available: bool,
    unavailable_reason: Option<&'a str>,
    verdict: &'static str,
    counts: BTreeMap<&'static str, usize>,
    /// How much of the suite was compared, and why the rest was not.
    coverage: crate::compare::coverage::Coverage,
    worst: Option<JsonWorst>,
    /// Most rows moved together (a machine or build environment?).
    suite_shift: Option<JsonShift>,
    /// With history: each row's chance of a false alarm.
    false_alarm_per_row: Option<f64>,
    /// With --paired: the rounds, and the rows still undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    paired: Option<JsonPaired>,
    rows_listed: usize,
    rows: JsonRows<'a>,
}

#[derive(Serialize)]
struct JsonPaired {
    /// The rows with at least one round measuring both sides.
    rows: usize,
    undecided: usize,
    /// Rounds per row, as the decisions used them: the mean and the most.
    rounds_mean: f64,
    rounds_max: usize,
}

#[allow(
    clippy::cast_precision_loss,
    reason = "rows and rounds are far below 2^52"
)]
fn json_paired(c: &Comparison<'_>) -> Option<JsonPaired> {
    let judged = c.paired()?;
    let rounds: Vec<usize> = judged.decisions.iter().map(|d| d.rounds).collect();
    Some(JsonPaired {
        rows: rounds.len(),
        undecided: c.undecided().unwrap_or(0),
        rounds_mean: rounds.iter().sum::<usize>() as f64 / rounds.len().max(1) as f64,
        rounds_max: rounds.iter().copied().max().unwrap_or(0),
    })
}

fn json_comparison<'a>(
    report: &'a Report<'a>,
    c: &'a Comparison<'a>,
    limit: Option<usize>,
) -> JsonComparison<'a> {
    let mut counts: BTreeMap<&'static str, usize> = Class::ALL
        .iter()
        .map(|class| (class.name(), c.count(*class)))
        .collect();
    counts.insert("compared", c.compared());
    let listed = match limit {
        None => Class::ALL.iter().map(|k| c.count(*k)).sum(),
        Some(max) => Class::NOTABLE
            .iter()
            .map(|k| c.count(*k))
            .sum::<usize>()
            .min(max),
    };
    JsonComparison {
        label: &c.label,
        gate: report.is_gate(c),
        available: c.unavailable.is_none(),
        unavailable_reason: c.unavailable.as_deref(),
        verdict: c.verdict().as_str(),
        counts,
        coverage: crate::compare::coverage::of(c),
        worst: c.worst().map(|r| JsonWorst {
            key: r.key.describe(&report.config.keys),
            change_pct: r.change.map(|x| x * 100.0),
        }),
        suite_shift: c.shift().map(|s| JsonShift {
            change_pct: s.change * 100.0,
            rows: s.rows,
            compared: s.compared,
        }),
        false_alarm_per_row: c.has_history().then(|| c.row_rate()),
        paired: json_paired(c),
        rows_listed: listed,
        rows: JsonRows {
            report,
            comparison: c,
            limit,
        },
    }
}

#[derive(Serialize)]
struct JsonInput<'a> {
    role: &'a str,
    path: String,
    sha256: Option<&'a str>,
    rows: usize,
    valid_rows: usize,
}

#[derive(Serialize)]
struct JsonThresholds {
    /// `null` with `--fail-threshold auto`.
    fail_pct: Option<f64>,
    fail: String,
    warn_pct: f64,
    /// The chance that a pull request of noise alone fails (with history).
    false_alarms_pct: f64,
}

#[derive(Serialize)]
struct JsonRerun {
    /// The first key column's values (what `run_benchmark.sh --only` takes).
    groups: Vec<String>,
    keys: Vec<String>,
    /// The groups whose baseline run to run again.
    baseline_groups: Vec<String>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    schema: u32,
    verdict: &'static str,
    report_only: bool,
    gate: Option<&'a str>,
    thresholds: JsonThresholds,
    inputs: Vec<JsonInput<'a>>,
    provenance: Option<Provenance>,
    rerun: JsonRerun,
    baselines: Vec<JsonComparison<'a>>,
    warnings: Vec<String>,
    /// What each side was measured on (`contract::fingerprint`).
    machine: JsonMachine<'a>,
}

#[derive(Serialize)]
struct JsonMachine<'a> {
    current: Option<&'a crate::contract::fingerprint::Fingerprint>,
    baseline: Option<&'a crate::contract::fingerprint::Fingerprint>,
    /// The fields that move performance and differ.
    differences: &'a [crate::contract::fingerprint::Difference],
    /// Each side in one line (`Fingerprint::measured_on`), for comment and
    /// gate to show without reading the fingerprints.
    current_measured_on: Option<String>,
    baseline_measured_on: Option<String>,
    /// `--fingerprint strict`, and they differ: the gate is inconclusive.
    inconclusive: bool,
    history_left_out: usize,
}

/// The whole report as one JSON object; `rows` caps the rows listed per
/// baseline (the step output: cells and messages cut too), `None` lists
/// every row whole (`--format json`).
pub fn json(report: &Report<'_>, rows: Option<usize>) -> String {
    let cut = rows.is_some();
    let rerun = Rerun::of(report);
    let value = JsonReport {
        schema: SCHEMA,
        verdict: report.verdict().as_str(),
        report_only: report.report_only,
        gate: report.gate.as_ref().map(|g| g.label.as_str()),
        thresholds: JsonThresholds {
            fail_pct: match report.thresholds.fail {
                FailThreshold::Fixed(f) => Some(f * 100.0),
                FailThreshold::Auto => None,
            },
            fail: super::fail_text(report),
            warn_pct: report.thresholds.warn * 100.0,
            false_alarms_pct: report.thresholds.false_alarms * 100.0,
        },
        inputs: report
            .inputs
            .iter()
            .map(|f| JsonInput {
                role: &f.role,
                path: f.path.display().to_string(),
                sha256: f.sha256.as_deref(),
                rows: f.rows,
                valid_rows: f.valid_rows,
            })
            .collect(),
        provenance: report
            .provenance
            .as_ref()
            .map(|p| if cut { p.cut() } else { p.clone() }),
        rerun: JsonRerun {
            groups: rerun.shown_groups(cut),
            keys: Rerun::keys(report, if cut { super::OUTPUT_ROWS } else { usize::MAX }),
            baseline_groups: rerun.baseline_groups.clone(),
        },
        baselines: report
            .comparisons()
            .map(|c| json_comparison(report, c, rows))
            .collect(),
        warnings: report
            .warnings
            .iter()
            .map(|w| if cut { super::cut(w) } else { w.clone() })
            .collect(),
        machine: JsonMachine {
            current: report.machine.current.as_ref(),
            baseline: report.machine.baseline.as_ref(),
            differences: &report.machine.differences,
            current_measured_on: report.machine.current.as_ref().map(|f| f.measured_on()),
            baseline_measured_on: report.machine.baseline.as_ref().map(|f| f.measured_on()),
            inconclusive: report.machine.inconclusive(),
            history_left_out: report.machine.history_left_out,
        },
    };
    // Strings, numbers and options: serializing cannot fail.
    serde_json::to_string(&value).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}
