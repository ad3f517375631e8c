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

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::json::Text;
use super::list::{self, At};
use super::{Format, by_unit, json, nanos_per};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

/// One run, its strings borrowed from the file where they hold no escape,
/// read as the list is (`list::each`); every field not named here (the
/// JVM, the percentiles, `secondaryMetrics`) is skipped unbuilt.
#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(borrow)]
    benchmark: Cow<'a, str>,
    #[serde(borrow)]
    mode: Option<Text<'a>>,
    #[serde(default, borrow)]
    params: BTreeMap<Text<'a>, Text<'a>>,
    #[serde(rename = "primaryMetric", borrow)]
    primary: Primary<'a>,
}

#[derive(Deserialize)]
struct Primary<'a> {
    score: Option<f64>,
    #[serde(rename = "scoreUnit", borrow)]
    unit: Option<Text<'a>>,
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
    let text = json::python_json(bytes);
    let mut rows = Collect::new(path, format, Vec::new());
    // The metric of each (mode, unit) seen, found once, not once a run.
    let mut seen: Vec<(String, String, u16, f64)> = Vec::new();
    let mut params = String::new();
    list::each(path, format, &text, At::Document, |i, entry: Entry<'_>| {
        params.clear();
        let pairs = entry.params.iter().map(|(k, v)| (&**k, &**v));
        super::text::push_pairs(&mut params, pairs);
        let line = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
        let row = rows.row(&entry.benchmark, &params, line);
        let mode = entry.mode.as_deref().unwrap_or("score");
        let unit = entry.primary.unit.as_deref().unwrap_or("");
        let known = seen.iter().find(|(m, u, _, _)| m == mode && u == unit);
        let (metric, scale) = match known {
            Some(&(_, _, metric, scale)) => (metric, scale),
            None => {
                let (want, scale) = metric_of(mode, unit);
                let column = want.column.clone();
                let metric = rows.metric(|| want, &column)?;
                seen.push((mode.to_owned(), unit.to_owned(), metric, scale));
                (metric, scale)
            }
        };
        let mut any = false;
        for (f, fork) in entry.primary.raw.iter().flatten().enumerate() {
            for (k, v) in fork.iter().enumerate() {
                let Some(v) = v else { continue };
                any = true;
                rows.sample(row, metric, v * scale, || {
                    format!("at [{i}].primaryMetric.rawData[{f}][{k}]")
                })?;
            }
        }
        if let (false, Some(score)) = (any, entry.primary.score) {
            rows.sample(row, metric, score * scale, || {
                format!("at [{i}].primaryMetric.score")
            })?;
        }
        Ok(())
    })?;
    Ok(rows.finish())
}
