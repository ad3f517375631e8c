//! BenchmarkDotNet's full JSON (`[JsonExporterAttribute.Full]`,
//! `--exporters json`: `*-report-full.json`; the brief and default JSON
//! exporters have no measurements, and are read from their statistics):
//! `HostEnvironmentInfo` and `Benchmarks`. A benchmark is a row:
//! `Namespace.Type.Method` is the benchmark, its `Parameters`
//! (`N=10&Size=100` as BenchmarkDotNet writes them) the params, with the
//! job (from `DisplayInfo`, `Benchmarks.Fib10: ShortRun`) added as
//! `job=NAME` when it is not `DefaultJob`, so that two jobs of one method
//! are two rows. The metric is `time` in nanoseconds per operation; each
//! `Measurements` entry of the `Workload` mode and `Result` stage (the
//! measured iterations, overhead already taken off) is a sample,
//! `Nanoseconds / Operations`. Without them, `Statistics.OriginalValues`
//! are the samples; without those, `Statistics.Median` is the one value.
//! `Memory.BytesAllocatedPerOperation` (with `[MemoryDiagnoser]`) is
//! `allocated` (B/op, lower). A benchmark with neither measurements nor
//! statistics failed to run: its row is failed.

use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::json::Text;
use super::list::{self, At};
use super::{Format, json, time};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

/// One benchmark, its strings borrowed from the file where they hold no
/// escape, read as the list is (`list::each`); the statistics and fields
/// not named here are skipped unbuilt.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Bench<'a> {
    #[serde(borrow)]
    namespace: Option<Text<'a>>,
    #[serde(rename = "Type", borrow)]
    kind: Option<Text<'a>>,
    #[serde(borrow)]
    method: Option<Text<'a>>,
    #[serde(borrow)]
    full_name: Option<Text<'a>>,
    #[serde(borrow)]
    display_info: Option<Text<'a>>,
    #[serde(borrow)]
    parameters: Option<Text<'a>>,
    statistics: Option<Stats>,
    #[serde(default, borrow)]
    measurements: Vec<Measurement<'a>>,
    memory: Option<Memory>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Stats {
    original_values: Option<Vec<Option<f64>>>,
    median: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Measurement<'a> {
    #[serde(borrow)]
    iteration_mode: Option<Text<'a>>,
    #[serde(borrow)]
    iteration_stage: Option<Text<'a>>,
    operations: Option<f64>,
    nanoseconds: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Memory {
    bytes_allocated_per_operation: Option<f64>,
}

impl Bench<'_> {
    /// `Namespace.Type.Method`, or `FullName` where those are missing,
    /// written in `out` (cleared first: one buffer for every row).
    fn name(&self, out: &mut String) {
        out.clear();
        let parts = [
            self.namespace.as_deref(),
            self.kind.as_deref(),
            self.method.as_deref(),
        ];
        match parts {
            [Some(ns), Some(t), Some(m)] if !ns.is_empty() => {
                out.extend([ns, ".", t, ".", m]);
            }
            [_, Some(t), Some(m)] => out.extend([t, ".", m]),
            _ => out.push_str(self.full_name.as_deref().unwrap_or_default()),
        }
    }

    /// The parameters, and the job when it is not the default one, written
    /// in `out` (cleared first).
    fn params(&self, out: &mut String) {
        out.clear();
        let job = self
            .display_info
            .as_deref()
            .and_then(|d| d.rsplit_once(": "))
            .map(|(_, job)| job.split(" [").next().unwrap_or(job).trim())
            .filter(|job| !job.is_empty() && *job != "DefaultJob");
        let params = self.parameters.as_deref().unwrap_or("");
        out.push_str(params);
        if let Some(job) = job {
            if !params.is_empty() {
                out.push('&');
            }
            out.extend(["job=", job]);
        }
    }
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::BenchmarkDotNet;
    let text = json::python_json(bytes);
    let allocated = Metric {
        column: "allocated".to_owned(),
        unit: "B".to_owned(),
        direction: Direction::Lower,
    };
    let mut rows = Collect::new(path, format, vec![time("time"), allocated]);
    let (mut name, mut params) = (String::new(), String::new());
    list::each(
        path,
        format,
        &text,
        At::Field("Benchmarks"),
        |i, bench: Bench<'_>| {
            let line = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
            bench.name(&mut name);
            bench.params(&mut params);
            let row = rows.row(&name, &params, line);
            let mut any = false;
            for (k, m) in bench.measurements.iter().enumerate() {
                let result = m.iteration_mode.as_deref() == Some("Workload")
                    && m.iteration_stage.as_deref() == Some("Result");
                let (Some(ns), Some(ops), true) = (m.nanoseconds, m.operations, result) else {
                    continue;
                };
                if ops > 0.0 {
                    any = true;
                    rows.sample(row, 0, ns / ops, || {
                        format!("at Benchmarks[{i}].Measurements[{k}]")
                    })?;
                }
            }
            let stats = bench.statistics.as_ref();
            if !any && let Some(values) = stats.and_then(|s| s.original_values.as_ref()) {
                for (k, v) in values.iter().enumerate() {
                    let Some(v) = v else { continue };
                    any = true;
                    rows.sample(row, 0, *v, || {
                        format!("at Benchmarks[{i}].Statistics.OriginalValues[{k}]")
                    })?;
                }
            }
            if !any && let Some(median) = stats.and_then(|s| s.median) {
                any = true;
                rows.sample(row, 0, median, || {
                    format!("at Benchmarks[{i}].Statistics.Median")
                })?;
            }
            if !any {
                rows.fail(
                    row,
                    "no measurements and no statistics: the benchmark failed",
                );
                return Ok(());
            }
            if let Some(b) = bench
                .memory
                .as_ref()
                .and_then(|m| m.bytes_allocated_per_operation)
            {
                rows.sample(row, 1, b, || {
                    format!("at Benchmarks[{i}].Memory.BytesAllocatedPerOperation")
                })?;
            }
            Ok(())
        },
    )?;
    Ok(rows.finish())
}
