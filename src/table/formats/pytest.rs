//! pytest-benchmark's JSON (`--benchmark-json=FILE`, or a saved run under
//! `.benchmarks/`): `machine_info` and `benchmarks`. A test is a row: its
//! `fullname` without the `[param]` part is the benchmark, `param` (the
//! id pytest gave the parametrisation) the params. Each round in
//! `stats.data` (written with `--benchmark-save-data`, or kept in a saved
//! run) is a sample of the metric `time` in nanoseconds (pytest-benchmark writes seconds); without `data`, the
//! row's one value is `stats.median`. The other statistics, `options`
//! and `extra_info` are left out.

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::list;
use super::{Format, json, time};
use crate::table::{Table, TableError};

/// One entry, its strings borrowed from the file where they hold no escape.
#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    fullname: Option<json::Text<'a>>,
    #[serde(borrow)]
    param: Option<json::Text<'a>>,
    stats: Option<Stats>,
}

#[derive(Deserialize)]
struct Stats {
    median: Option<f64>,
    data: Option<Vec<Option<f64>>>,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::PytestBenchmark;
    let text = json::python_json(bytes);
    let mut rows = Collect::new(path, format, vec![time("time")]);
    list::benchmarks(path, format, &text, |i, entry: Entry<'_>| {
        let full = entry.fullname.as_deref().unwrap_or(&entry.name);
        let param = entry.param.as_deref().unwrap_or("");
        let benchmark = full
            .strip_suffix(']')
            .and_then(|f| f.strip_suffix(param))
            .and_then(|f| f.strip_suffix('['))
            .filter(|_| !param.is_empty())
            .unwrap_or(full);
        let line = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
        let row = rows.row(benchmark, param, line);
        let Some(stats) = &entry.stats else {
            rows.fail(row, "no stats: the benchmark did not run");
            return Ok(());
        };
        match (&stats.data, stats.median) {
            (Some(data), _) if !data.is_empty() => {
                for (k, v) in data.iter().enumerate() {
                    let Some(v) = v else { continue };
                    rows.sample(row, 0, *v * 1e9, || {
                        format!("at benchmarks[{i}].stats.data[{k}]")
                    })?;
                }
            }
            (_, Some(median)) => {
                rows.sample(row, 0, median * 1e9, || {
                    format!("at benchmarks[{i}].stats.median")
                })?;
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(rows.finish())
}
