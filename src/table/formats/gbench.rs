//! Google Benchmark's JSON (`--benchmark_format=json` or
//! `--benchmark_out=FILE`): `context` and `benchmarks`. Each entry whose
//! `run_type` is `iteration` is one repetition of its run (`run_name`,
//! or `name` where older versions write no `run_name`): the run's name
//! up to its first `/` is the benchmark, the rest (`/8/16`, `/threads:4`,
//! `/real_time`) its params. `aggregate` entries (mean, median, stddev,
//! cv, Big-O) are left out: they are computed from the repetitions the
//! row already has. Metrics: `real_time` and `cpu_time` in nanoseconds (from
//! `time_unit`), `items_per_second` and `bytes_per_second`. An entry with
//! `error_occurred` makes its row failed, with the `error_message`.

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::list;
use super::{Format, by_unit, json, nanos_per, time};
use crate::table::{Table, TableError};

/// One entry, its strings borrowed from the file where they hold no escape.
#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    run_name: Option<json::Text<'a>>,
    #[serde(borrow)]
    run_type: Option<json::Text<'a>>,
    real_time: Option<f64>,
    cpu_time: Option<f64>,
    #[serde(borrow)]
    time_unit: Option<json::Text<'a>>,
    items_per_second: Option<f64>,
    bytes_per_second: Option<f64>,
    #[serde(default)]
    error_occurred: bool,
    #[serde(borrow)]
    error_message: Option<json::Text<'a>>,
}

/// Names older versions give aggregates, which have no `run_type`.
const AGGREGATE_SUFFIXES: [&str; 6] = ["_mean", "_median", "_stddev", "_cv", "_BigO", "_RMS"];

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::GoogleBenchmark;
    let text = json::python_json(bytes);
    let metrics = vec![
        time("real_time"),
        time("cpu_time"),
        by_unit("items_per_second", "items/s"),
        by_unit("bytes_per_second", "B/s"),
    ];
    let mut rows = Collect::new(path, format, metrics);
    list::benchmarks(path, format, &text, |i, entry: Entry<'_>| {
        let aggregate = match entry.run_type.as_deref() {
            Some(kind) => kind != "iteration",
            None => AGGREGATE_SUFFIXES.iter().any(|s| entry.name.ends_with(s)),
        };
        if aggregate {
            return Ok(());
        }
        let run = entry.run_name.as_deref().unwrap_or(&entry.name);
        let (benchmark, params) = run.split_once('/').unwrap_or((run, ""));
        let line = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
        let row = rows.row(benchmark, params, line);
        if entry.error_occurred {
            let why = entry.error_message.as_deref().unwrap_or("error_occurred");
            rows.fail(row, &format!("error: {why}"));
            return Ok(());
        }
        let unit = entry.time_unit.as_deref().unwrap_or("ns");
        let Some(scale) = nanos_per(unit) else {
            return Err(rows.error(
                format!("at benchmarks[{i}].time_unit"),
                format!("{:?} is not a time unit", crate::runner::shown(unit)),
            ));
        };
        let at = |field: &'static str| move || format!("at benchmarks[{i}].{field}");
        let fields = [
            (entry.real_time.map(|v| v * scale), "real_time"),
            (entry.cpu_time.map(|v| v * scale), "cpu_time"),
            (entry.items_per_second, "items_per_second"),
            (entry.bytes_per_second, "bytes_per_second"),
        ];
        for (metric, (value, field)) in (0u16..).zip(fields) {
            if let Some(v) = value {
                rows.sample(row, metric, v, at(field))?;
            }
        }
        Ok(())
    })?;
    Ok(rows.finish())
}
