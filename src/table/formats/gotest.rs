//! `go test -bench` text (what benchstat reads). Each result line,
//! `BenchmarkName/sub=1-8  1000  415 ns/op  128 B/op  2 allocs/op`, is one
//! sample: the name up to its first `/` is the benchmark (after the
//! package of the last `pkg:` line, `pkg.BenchmarkName`), the rest its
//! params; the `-8` GOMAXPROCS suffix is left out (the machine's, not the
//! benchmark's). Every `value unit` pair is a metric: `ns/op` (and
//! benchfmt's `sec/op`) is `time` in nanoseconds, a rate (`MB/s`) is higher is
//! better, any other unit (`B/op`, `allocs/op`, custom) lower. With
//! `-count N` a benchmark's N lines are its samples. A `--- FAIL:` line
//! makes its benchmark's row failed. Other lines (logs, `goos:`, `PASS`)
//! are left out.

use std::path::Path;

use super::collect::Collect;
use super::{Format, by_unit, time};
use crate::table::{Table, TableError};

/// One result line: its name, its iterations, then value-unit pairs put
/// in `pairs` (cleared first, and kept from line to line so that a line
/// allocates nothing).
fn result<'t>(line: &'t str, pairs: &mut Vec<(f64, &'t str)>) -> Option<&'t str> {
    pairs.clear();
    let mut words = line.split_ascii_whitespace();
    let name = words.next().filter(|n| n.starts_with("Benchmark"))?;
    words.next()?.parse::<u64>().ok()?;
    while let Some(value) = words.next() {
        let unit = words.next()?;
        pairs.push((value.parse::<f64>().ok()?, unit));
    }
    (!pairs.is_empty()).then_some(name)
}

/// Whether some line of `bytes` is a benchmark result line.
pub fn looks_like(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let mut pairs = Vec::new();
    text.lines().any(|l| result(l, &mut pairs).is_some())
}

/// `BenchmarkX/sub-8` without its GOMAXPROCS suffix, as (benchmark, params).
fn split_name(name: &str) -> (&str, &str) {
    let name = match name.rsplit_once('-') {
        Some((head, procs)) if !procs.is_empty() && procs.bytes().all(|b| b.is_ascii_digit()) => {
            head
        }
        _ => name,
    };
    name.split_once('/').unwrap_or((name, ""))
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::GoTest;
    let mut rows = Collect::new(path, format, vec![time("time")]);
    let text = rows.text(bytes)?;
    let mut pkg = String::new();
    let mut qualified = String::new();
    let mut pairs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let number = u32::try_from(n).unwrap_or(u32::MAX).saturating_add(1);
        if let Some(p) = line.strip_prefix("pkg:") {
            p.trim().clone_into(&mut pkg);
            continue;
        }
        let failed = line.trim_start().strip_prefix("--- FAIL:").map(str::trim);
        let name = match (failed, result(line, &mut pairs)) {
            (Some(name), _) if name.starts_with("Benchmark") => {
                name.split_ascii_whitespace().next().unwrap_or(name)
            }
            (_, Some(name)) => name,
            _ => continue,
        };
        let (benchmark, params) = split_name(name);
        qualified.clear();
        if !pkg.is_empty() {
            qualified.push_str(&pkg);
            qualified.push('.');
        }
        qualified.push_str(benchmark);
        let row = rows.row(&qualified, params, number);
        if failed.is_some() {
            rows.fail(row, "--- FAIL");
            continue;
        }
        for &(value, unit) in &pairs {
            let (column, value) = match unit {
                "ns/op" => ("time", value),
                "sec/op" => ("time", value * 1e9),
                other => (other, value),
            };
            let metric = rows.metric(|| by_unit(column, unit), column)?;
            rows.sample(row, metric, value, || format!("line {number}"))?;
        }
    }
    Ok(rows.finish())
}
