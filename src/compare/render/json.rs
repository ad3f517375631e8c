//! The report as one JSON object: `--format json` on stdout (every row,
//! keys whole) and the `json` step output (at most [`super::OUTPUT_ROWS`]
//! rows per baseline that are not unchanged, key cells cut, the whole under
//! the step output limit). Rows are serialized as they are classified:
//! a hundred thousand rows are never held as JSON values.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::{Rerun, threshold_source};
use crate::compare::noise::NoBand;
use crate::compare::report::Report;
use crate::compare::verdict::{Class, Comparison, Origin, RowResult, Samples};
use crate::config::FailThreshold;
use crate::contract::comparison::{
    self as contract, Baseline, Comparison as JsonReport, Counts, Input, Paired, Row,
    RowThresholds, Shift, Side, Thresholds, Worst,
};
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

fn side(s: &Samples) -> Side<'_> {
    Side {
        median: Some(s.median),
        samples: Cow::Borrowed(s.samples()),
    }
}

fn json_row<'a>(report: &'a Report<'_>, row: &'a RowResult<'a>, cut: bool) -> Row<'a, JsonKey<'a>> {
    let (runs, band) = match row.applied.map(|a| a.origin) {
        Some(Origin::Learned(b)) => (Some(b.runs), Some(b.rise() * 100.0)),
        Some(
            Origin::NoBand {
                why:
                    NoBand::TooFew { runs }
                    | NoBand::Unusable { runs, .. }
                    | NoBand::TwoLevels { runs, .. },
                ..
            }
            | Origin::Level { runs, .. },
        ) => (Some(runs), None),
        _ => (None, None),
    };
    Row {
        key: JsonKey {
            columns: &report.config.keys,
            row,
            cut,
        },
        class: Cow::Borrowed(row.class.name()),
        change_pct: row.change.map(|c| c * 100.0),
        unit: row.metric.map(|m| Cow::Borrowed(report.unit(Some(m)))),
        baseline: row.baseline.as_ref().map(side),
        current: row.current.as_ref().map(side),
        reason: row
            .reason
            .as_deref()
            .map(|r| Cow::Owned(if cut { super::cut(r) } else { r.to_owned() })),
        thresholds: RowThresholds {
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
            source: Cow::Borrowed(threshold_source(row)),
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

fn json_paired(c: &Comparison<'_>) -> Option<Paired> {
    let judged = c.paired()?;
    let rounds: Vec<usize> = judged.decisions.iter().map(|d| d.rounds).collect();
    Some(Paired {
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
) -> Baseline<'a, JsonRows<'a>> {
    let mut counts: BTreeMap<&'static str, u64> = Class::ALL
        .iter()
        .map(|class| (class.name(), count(c.count(*class))))
        .collect();
    counts.insert("compared", count(c.compared()));
    let listed = match limit {
        None => Class::ALL.iter().map(|k| c.count(*k)).sum(),
        Some(max) => Class::NOTABLE
            .iter()
            .map(|k| c.count(*k))
            .sum::<usize>()
            .min(max),
    };
    Baseline {
        label: Cow::Borrowed(&c.label),
        gate: report.is_gate(c),
        available: c.unavailable.is_none(),
        unavailable_reason: c.unavailable.as_deref().map(Cow::Borrowed),
        verdict: Some(Cow::Borrowed(c.verdict().name())),
        counts: Counts(counts),
        coverage: Some(crate::compare::coverage::of(c)),
        worst: c.worst().map(|r| Worst {
            key: Cow::Owned(r.key.describe(&report.config.keys)),
            change_pct: r.change.map(|x| x * 100.0),
        }),
        suite_shift: c.shift().map(|s| Shift {
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

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn owned(strings: Vec<String>) -> Vec<Cow<'static, str>> {
    strings.into_iter().map(Cow::Owned).collect()
}

/// The whole report as one JSON object; `rows` caps the rows listed per
/// baseline (the step output: cells and messages cut too), `None` lists
/// every row whole (`--format json`).
pub fn json(report: &Report<'_>, rows: Option<usize>) -> String {
    let cut = rows.is_some();
    let rerun = Rerun::of(report);
    let value = JsonReport {
        schema: SCHEMA,
        verdict: Some(Cow::Borrowed(report.verdict().name())),
        report_only: report.report_only,
        gate: report
            .gate
            .as_ref()
            .map(|g| Cow::Borrowed(g.label.as_str())),
        thresholds: Thresholds {
            fail_pct: match report.thresholds.fail {
                FailThreshold::Fixed(f) => Some(f * 100.0),
                FailThreshold::Auto => None,
            },
            fail: Cow::Owned(super::fail_text(report)),
            warn_pct: report.thresholds.warn * 100.0,
            false_alarms_pct: report.thresholds.false_alarms * 100.0,
        },
        inputs: report
            .inputs
            .iter()
            .map(|f| Input {
                role: Cow::Borrowed(&f.role),
                path: Cow::Owned(f.path.display().to_string()),
                sha256: f.sha256.as_deref().map(Cow::Borrowed),
                rows: f.rows,
                valid_rows: f.valid_rows,
            })
            .collect(),
        provenance: report
            .provenance
            .as_ref()
            .map(|p| if cut { p.cut() } else { p.clone() }),
        rerun: contract::Rerun {
            groups: owned(rerun.shown_groups(cut)),
            keys: owned(Rerun::keys(
                report,
                if cut { super::OUTPUT_ROWS } else { usize::MAX },
            )),
            baseline_groups: owned(rerun.baseline_groups.clone()),
        },
        baselines: report
            .comparisons()
            .map(|c| json_comparison(report, c, rows))
            .collect(),
        warnings: report
            .warnings
            .iter()
            .map(|w| Cow::Owned(if cut { super::cut(w) } else { w.clone() }))
            .collect(),
        machine: contract::Machine {
            current: report.machine.current.as_ref().map(Cow::Borrowed),
            baseline: report.machine.baseline.as_ref().map(Cow::Borrowed),
            differences: Cow::Borrowed(&report.machine.differences),
            current_measured_on: report
                .machine
                .current
                .as_ref()
                .map(|f| Cow::Owned(f.measured_on())),
            baseline_measured_on: report
                .machine
                .baseline
                .as_ref()
                .map(|f| Cow::Owned(f.measured_on())),
            inconclusive: report.machine.inconclusive(),
            history_left_out: count(report.machine.history_left_out),
        },
    };
    // Strings, numbers and options: serializing cannot fail.
    serde_json::to_string(&value).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}
