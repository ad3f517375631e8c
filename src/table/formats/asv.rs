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

use super::asv_cells::{Entry, in_asv_order};
use super::collect::Collect;
use super::json::Text;
use super::{Format, json, time};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

/// The file, each entry read into what the reader keeps (`asv_cells`),
/// its names borrowed from the text where they hold no escape.
#[derive(Deserialize)]
struct File<'a> {
    #[serde(borrow)]
    results: BTreeMap<Text<'a>, Entry<'a>>,
    #[serde(borrow)]
    result_columns: Option<Vec<Text<'a>>>,
}

/// The file as `Value`s, for entries whose columns are in another order
/// than asv's own.
#[derive(Deserialize)]
struct Loose<'a> {
    #[serde(borrow)]
    results: BTreeMap<Text<'a>, Value>,
    #[serde(borrow)]
    result_columns: Option<Vec<Text<'a>>>,
}

/// Every entry, its columns where the file's `result_columns` say.
fn entries<'a>(path: &Path, text: &'a [u8]) -> Result<Vec<(Text<'a>, Entry<'a>)>, TableError> {
    let format = Format::Asv;
    let file: File<'a> = json::parse_text(path, format, text)?;
    let lists = file.results.values().any(|e| e.list);
    match file.result_columns.as_deref() {
        Some(cols) if in_asv_order(cols) => return Ok(file.results.into_iter().collect()),
        None if !lists => return Ok(file.results.into_iter().collect()),
        _ => {}
    }
    let loose: Loose<'a> = json::parse_text(path, format, text)?;
    let columns = loose.result_columns.as_deref();
    Ok(loose
        .results
        .into_iter()
        .map(|(name, v)| (name, Entry::of_value(&v, columns)))
        .collect())
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
fn combinations(lists: &[Vec<super::json::Shown<'_>>]) -> Vec<String> {
    let mut out = vec![String::new()];
    for list in lists.iter().filter(|l| !l.is_empty()) {
        let mut next = Vec::with_capacity(out.len().saturating_mul(list.len()));
        for head in &out {
            for v in list {
                next.push(if head.is_empty() {
                    v.to_string()
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

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Asv;
    let text = json::python_json(bytes);
    let mut rows = Collect::new(path, format, Vec::new());
    let mut line = 0u32;
    for (name, e) in &entries(path, &text)? {
        let (want, scale) = metric_of(name);
        let column = want.column.clone();
        let metric = rows.metric(|| want, &column)?;
        for (k, params) in combinations(&e.params).iter().enumerate() {
            line = line.saturating_add(1);
            let row = rows.row(name, params, line);
            let samples = e
                .samples
                .get(k)
                .and_then(Option::as_ref)
                .filter(|s| !s.is_empty());
            let values = match samples {
                Some(s) => s.as_slice(),
                None => e.result.get(k..=k).unwrap_or_default(),
            };
            let mut any = false;
            for (j, v) in values.iter().enumerate() {
                let Some(v) = v else { continue };
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
