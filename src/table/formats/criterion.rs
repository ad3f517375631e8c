//! criterion's results tree (`target/criterion`, the directory given as
//! the results path). Each benchmark's latest run is a `new` directory
//! holding `benchmark.json` (its `group_id`, `function_id` and
//! `value_str`) and `sample.json` (`iters` and `times`, nanoseconds per
//! measurement of that many iterations). The group is the benchmark, the
//! function and value (joined by `/`) its params; each measurement's
//! time per iteration is a sample of `time` in nanoseconds. Without
//! `sample.json`, `estimates.json`'s median is the row's one value. `base`
//! and `change` (criterion's own comparison), `report` and any saved
//! baseline are left out.
//!
//! Bounded: at most 16 levels deep, 100,000 directory entries, each file
//! within the CSV's limit and every byte taken from the command's budget.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::collect::Collect;
use super::{Format, json, time};
use crate::runner::read;
use crate::table::read::{Budget, Identity, MAX_FILE_BYTES};
use crate::table::{Table, TableError};

const MAX_DEPTH: usize = 16;
const MAX_ENTRIES: usize = 100_000;

#[derive(Deserialize)]
struct Benchmark {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
}

#[derive(Deserialize)]
struct Sample {
    iters: Vec<f64>,
    times: Vec<f64>,
}

#[derive(Deserialize)]
struct Estimates {
    median: Estimate,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
}

/// Every `new` directory with a `benchmark.json` under `root`, sorted.
fn runs(root: &Path, rows: &Collect) -> Result<Vec<PathBuf>, TableError> {
    let mut found = Vec::new();
    let mut stack = vec![(root.to_owned(), 0usize)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| rows.error(dir.display().to_string(), format!("cannot list: {e}")))?;
        for entry in entries.filter_map(Result::ok) {
            seen = seen.saturating_add(1);
            if seen > MAX_ENTRIES {
                return Err(rows.error(
                    root.display().to_string(),
                    format!("more than {MAX_ENTRIES} entries"),
                ));
            }
            // Links are not followed: a tree must not lead out of itself.
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let path = entry.path();
            let name = entry.file_name();
            if name == "new" && path.join("benchmark.json").is_file() {
                found.push(path);
            } else if name != "report" && name != "base" && name != "change" && depth < MAX_DEPTH {
                stack.push((path, depth.saturating_add(1)));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The tree's rows; its identity (the SHA-256 of every file read, in the
/// order read) only when `identity` asks.
pub fn read(root: &Path, budget: &Budget, identity: Identity) -> Result<Table, TableError> {
    let format = Format::Criterion;
    let mut rows = Collect::new(root, format, vec![time("time")]);
    let mut hash = openssl::sha::Sha256::new();
    let mut bytes_read = 0u64;
    let mut load = |path: &Path, hash: &mut openssl::sha::Sha256| -> Result<Vec<u8>, TableError> {
        let bytes = read::bounded("criterion file", path, MAX_FILE_BYTES)?;
        budget.spend(path, bytes.len())?;
        if identity == Identity::Sha256 {
            hash.update(&bytes);
        }
        bytes_read = bytes_read.saturating_add(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
        Ok(bytes)
    };
    for (n, dir) in runs(root, &rows)?.iter().enumerate() {
        let at = dir.join("benchmark.json");
        let bench: Benchmark = json::parse(&at, format, &load(&at, &mut hash)?)?;
        let params: Vec<&str> = [bench.function_id.as_deref(), bench.value_str.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        let line = u32::try_from(n).unwrap_or(u32::MAX).saturating_add(1);
        let row = rows.row(&bench.group_id, &params.join("/"), line);
        let sample_path = dir.join("sample.json");
        if sample_path.is_file() {
            let sample: Sample =
                json::parse(&sample_path, format, &load(&sample_path, &mut hash)?)?;
            for (k, (iters, t)) in sample.iters.iter().zip(&sample.times).enumerate() {
                if *iters > 0.0 {
                    let shown = sample_path.display().to_string();
                    rows.sample(row, 0, t / iters, || format!("{shown} at times[{k}]"))?;
                }
            }
            continue;
        }
        let estimates_path = dir.join("estimates.json");
        if estimates_path.is_file() {
            let e: Estimates =
                json::parse(&estimates_path, format, &load(&estimates_path, &mut hash)?)?;
            let shown = estimates_path.display().to_string();
            rows.sample(row, 0, e.median.point_estimate, || {
                format!("{shown} at median")
            })?;
        }
    }
    if rows.is_empty() {
        return Err(rows.error(
            "the directory",
            "no benchmark: no new/benchmark.json under it (is it criterion's target/criterion?)",
        ));
    }
    let mut table = rows.finish();
    if identity == Identity::Sha256 {
        table.sha256 = crate::table::read::hex(&hash.finish());
    }
    table.bytes = bytes_read;
    Ok(table)
}
