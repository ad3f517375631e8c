//! asv's results (`results/<machine>/<commit>-<env>.json`): an object with
//! `commit_hash` and `results`, one entry per benchmark, either a list in
//! the order `result_columns` names (asv 0.5 on, `version` 2) or an
//! object with `result`, `params`, `samples` (earlier versions).
//!
//! A benchmark with parameters has one result per combination of them
//! (the product of its `params` lists, the first varying slowest); each
//! combination is a row: the benchmark's name is the benchmark, the
//! combination's values joined by `, ` (`'float64', 1000`) the params. The
//! metric is what the name's last part starts with: `time_` is `time` (ns;
//! asv writes seconds), `peakmem_` and `mem_` `memory` (B), `track_` a
//! value of unknown unit (`track`); all lower is better (asv's own
//! default). Each of the combination's `samples` (written with
//! `--record-samples`) is a sample; without them, its result is the one
//! value. A result that is `null` (failed) or `NaN` (skipped) makes its
//! row failed. `stats`, `version`, `started_at`, `duration` and
//! `profile` are left out.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::collect::Collect;
use super::{Format, json, time};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

#[derive(Deserialize)]
struct File {
    results: BTreeMap<String, Value>,
    result_columns: Option<Vec<String>>,
}

/// One benchmark's result, whichever version wrote it.
struct Entry<'v> {
    result: &'v Value,
    params: Option<&'v Value>,
    samples: Option<&'v Value>,
}

fn entry<'v>(value: &'v Value, columns: Option<&[String]>) -> Entry<'v> {
    let field = |name: &str| -> Option<&'v Value> {
        match (value, columns) {
            (Value::Array(cells), Some(cols)) => cells.get(cols.iter().position(|c| c == name)?),
            (Value::Object(map), _) => map.get(name),
            _ => None,
        }
    };
    match value {
        Value::Array(_) | Value::Object(_) => Entry {
            result: field("result").unwrap_or(&Value::Null),
            params: field("params"),
            samples: field("samples"),
        },
        other => Entry {
            result: other,
            params: None,
            samples: None,
        },
    }
}

/// The metric a benchmark's name says, and nanoseconds per its unit.
fn metric_of(name: &str) -> (Metric, f64) {
    let last = name.rsplit('.').next().unwrap_or(name);
    let lower = |column: &str, unit: &str| Metric {
        column: column.to_owned(),
        unit: unit.to_owned(),
        direction: Direction::Lower,
    };
    if last.starts_with("time_") {
        (time("time"), 1e9)
    } else if last.starts_with("peakmem_") || last.starts_with("mem_") {
        (lower("memory", "B"), 1.0)
    } else {
        (lower("track", ""), 1.0)
    }
}

/// Each combination of `params` (lists of values), the first varying
/// slowest, as asv orders its results.
fn combinations(params: Option<&Value>) -> Vec<String> {
    let lists: Vec<Vec<String>> = params
        .and_then(Value::as_array)
        .map(|ls| {
            ls.iter()
                .map(|l| {
                    l.as_array()
                        .map(|vs| vs.iter().map(shown_value).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = vec![String::new()];
    for list in lists.iter().filter(|l| !l.is_empty()) {
        let mut next = Vec::with_capacity(out.len().saturating_mul(list.len()));
        for head in &out {
            for v in list {
                next.push(if head.is_empty() {
                    v.clone()
                } else {
                    format!("{head}, {v}")
                });
            }
        }
        out = next;
        if out.len() > super::MAX_SAMPLES {
            break;
        }
    }
    out
}

fn shown_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Asv;
    let file: File = json::parse(path, format, bytes)?;
    let mut rows = Collect::new(path, format, Vec::new());
    let columns = file.result_columns.as_deref();
    let mut line = 0u32;
    for (name, value) in &file.results {
        let e = entry(value, columns);
        let (want, scale) = metric_of(name);
        let column = want.column.clone();
        let metric = rows.metric(|| want, &column)?;
        let combos = combinations(e.params);
        let results: Vec<&Value> = match e.result {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for (k, params) in combos.iter().enumerate() {
            line = line.saturating_add(1);
            let row = rows.row(name, params, line);
            let samples = e
                .samples
                .and_then(Value::as_array)
                .and_then(|s| s.get(k))
                .and_then(Value::as_array)
                .filter(|s| !s.is_empty());
            let values: Vec<&Value> = match samples {
                Some(s) => s.iter().collect(),
                None => results.get(k).copied().into_iter().collect(),
            };
            let mut any = false;
            for (j, v) in values.iter().enumerate() {
                let Some(v) = v.as_f64() else { continue };
                any = true;
                rows.sample(row, metric, v * scale, || {
                    format!("at results.{name}, combination {k}, value {j}")
                })?;
            }
            if !any {
                rows.fail(row, "no result: the benchmark failed or was skipped");
            }
        }
    }
    Ok(rows.finish())
}
