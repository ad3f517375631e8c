//! JMH's JSON (`-rf json -rff FILE`): a list, one entry per benchmark run.
//! An entry is a row: `benchmark` (`pkg.Class.method`) is the benchmark,
//! its `params` (`@Param`) the params as `name=value` joined by `,`. The
//! metric is the entry's `mode`, in the unit of `primaryMetric.scoreUnit`:
//! a time per operation (`avgt`, `sample`, `ss`: `us/op`) is made ns/op,
//! lower is better; a rate (`thrpt`: `ops/ms`) is made ops/s, higher is
//! better; another unit is kept as it is, its direction from the unit.
//! Every iteration of every fork in `primaryMetric.rawData` is a sample;
//! without `rawData` (the `sample` mode writes a histogram instead), the
//! row's one value is `score`. `secondaryMetrics` (profilers' counters),
//! `scoreError` and the percentiles are left out.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::{Format, by_unit, json, nanos_per};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

#[derive(Deserialize)]
struct Entry {
    benchmark: String,
    mode: Option<String>,
    #[serde(default)]
    params: BTreeMap<String, String>,
    #[serde(rename = "primaryMetric")]
    primary: Primary,
}

#[derive(Deserialize)]
struct Primary {
    score: Option<f64>,
    #[serde(rename = "scoreUnit")]
    unit: Option<String>,
    #[serde(rename = "rawData")]
    raw: Option<Vec<Vec<Option<f64>>>>,
}

/// The metric for `mode` in `unit`, and what a value is multiplied by.
fn metric_of(mode: &str, unit: &str) -> (Metric, f64) {
    let per_op = unit.strip_suffix("/op").and_then(nanos_per);
    let rate = unit.strip_prefix("ops/").and_then(nanos_per);
    let metric = |unit: &str, direction| Metric {
        column: mode.to_owned(),
        unit: unit.to_owned(),
        direction,
    };
    match (per_op, rate) {
        (Some(ns), _) => (metric("ns/op", Direction::Lower), ns),
        (_, Some(ns)) => (metric("ops/s", Direction::Higher), 1e9 / ns),
        _ => (by_unit(&format!("{mode} ({unit})"), unit), 1.0),
    }
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Jmh;
    let entries: Vec<Entry> = json::parse(path, format, bytes)?;
    let mut rows = Collect::new(path, format, Vec::new());
    for (i, entry) in entries.iter().enumerate() {
        let params: Vec<String> = entry
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let line = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
        let row = rows.row(&entry.benchmark, &params.join(","), line);
        let mode = entry.mode.as_deref().unwrap_or("score");
        let unit = entry.primary.unit.as_deref().unwrap_or("");
        let (want, scale) = metric_of(mode, unit);
        let column = want.column.clone();
        let metric = rows.metric(|| want, &column)?;
        let raw: Vec<(usize, usize, f64)> = entry
            .primary
            .raw
            .iter()
            .flatten()
            .enumerate()
            .flat_map(|(f, fork)| {
                fork.iter()
                    .enumerate()
                    .filter_map(move |(k, v)| v.map(|v| (f, k, v)))
            })
            .collect();
        if raw.is_empty() {
            if let Some(score) = entry.primary.score {
                rows.sample(row, metric, score * scale, || {
                    format!("at [{i}].primaryMetric.score")
                })?;
            }
            continue;
        }
        for (f, k, v) in raw {
            rows.sample(row, metric, v * scale, || {
                format!("at [{i}].primaryMetric.rawData[{f}][{k}]")
            })?;
        }
    }
    Ok(rows.finish())
}
