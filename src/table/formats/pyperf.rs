//! pyperf's JSON (`-o FILE`, `pyperformance run -o FILE`; a `.json.gz`
//! must be decompressed first): `version`, `metadata` and `benchmarks`,
//! each with `runs`. A benchmark is a row: its `name` (from its own
//! metadata, or the file's for a file of one benchmark) is the benchmark,
//! with no params. Every value of every run (`values`; `warmups` and the
//! calibration runs, which have no values, are left out) is a sample of
//! the metric its `unit` says: `second` is `time` in nanoseconds, `byte` is
//! `memory` in bytes, `integer` is `count`; all lower is better.

use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::json::Text;
use super::{Format, json, time};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

/// The file, its names borrowed from the text where they hold no escape.
/// Read whole, not entry by entry: pyperf writes its keys sorted, so the
/// file's `metadata` (a one-benchmark file's name, a suite's common unit)
/// comes after `benchmarks`.
#[derive(Deserialize)]
struct File<'a> {
    #[serde(default, borrow)]
    metadata: Meta<'a>,
    #[serde(borrow)]
    benchmarks: Vec<Bench<'a>>,
}

#[derive(Deserialize, Default)]
struct Meta<'a> {
    #[serde(borrow)]
    name: Option<Text<'a>>,
    #[serde(borrow)]
    unit: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct Bench<'a> {
    #[serde(default, borrow)]
    metadata: Meta<'a>,
    #[serde(default)]
    runs: Vec<Run>,
}

#[derive(Deserialize)]
struct Run {
    #[serde(default)]
    values: Vec<Option<f64>>,
}

/// The metric a pyperf unit is.
fn metric_of(unit: &str) -> Metric {
    match unit {
        "second" => time("time"),
        "byte" => Metric {
            column: "memory".to_owned(),
            unit: "B".to_owned(),
            direction: Direction::Lower,
        },
        other => Metric {
            column: "count".to_owned(),
            unit: other.to_owned(),
            direction: Direction::Lower,
        },
    }
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Pyperf;
    let text = json::python_json(bytes);
    let file: File<'_> = json::parse_text(path, format, &text)?;
    let mut rows = Collect::new(path, format, Vec::new());
    // The metric of the last unit seen: one a file, as a rule.
    let mut last: Option<(&str, u16)> = None;
    for (i, bench) in file.benchmarks.iter().enumerate() {
        let name = bench
            .metadata
            .name
            .as_deref()
            .or(file.metadata.name.as_deref());
        let Some(name) = name else {
            return Err(rows.error(
                format!("at benchmarks[{i}].metadata"),
                "the benchmark has no name",
            ));
        };
        let unit = bench
            .metadata
            .unit
            .as_deref()
            .or(file.metadata.unit.as_deref())
            .unwrap_or("second");
        let metric = match last {
            Some((seen, metric)) if seen == unit => metric,
            _ => {
                let want = metric_of(unit);
                let column = want.column.clone();
                let metric = rows.metric(|| want, &column)?;
                last = Some((unit, metric));
                metric
            }
        };
        let scale = if unit == "second" { 1e9 } else { 1.0 };
        let line = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
        let row = rows.row(name, "", line);
        for (r, run) in bench.runs.iter().enumerate() {
            for (k, v) in run.values.iter().enumerate() {
                let Some(v) = v else { continue };
                rows.sample(row, metric, *v * scale, || {
                    format!("at benchmarks[{i}].runs[{r}].values[{k}]")
                })?;
            }
        }
    }
    Ok(rows.finish())
}
