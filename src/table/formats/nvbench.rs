//! nvbench's JSON (`--json FILE`): `meta`, `devices` and `benchmarks`,
//! each with its `states`, one per combination of its axes' values (and
//! device). A state is a row: the benchmark's `name` is the benchmark, the
//! state's `axis_values` the params as `Name=value` joined by `,` (with
//! `Device=N` first when the benchmark ran on more than one device). The
//! metrics are the state's summaries that nvbench measured: the mean cold
//! GPU time (`gpu_time`), the mean cold CPU time (`cpu_time`) and the
//! mean batch GPU time (`batch_gpu_time`), all in nanoseconds (nvbench
//! writes seconds), and the rates `item_rate` (items/s) and
//! `bytes_per_second` (B/s), higher is better. nvbench writes each
//! summary as one number (its samples go to a side file of raw floats
//! that this reader does not open), so a row has one value per metric.
//! A skipped state (`is_skipped`) is a failed row with its `skip_reason`.

use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::{Format, by_unit, json, time};
use crate::runner::shown as shown_text;
use crate::table::{Table, TableError};

#[derive(Deserialize)]
struct File {
    benchmarks: Vec<Bench>,
}

#[derive(Deserialize)]
struct Bench {
    name: String,
    #[serde(default)]
    devices: Option<Vec<serde::de::IgnoredAny>>,
    #[serde(default)]
    states: Option<Vec<State>>,
}

#[derive(Deserialize)]
struct State {
    device: Option<i64>,
    #[serde(default)]
    axis_values: Option<Vec<Named>>,
    #[serde(default)]
    summaries: Option<Vec<Summary>>,
    #[serde(default)]
    is_skipped: bool,
    skip_reason: Option<String>,
}

/// An axis value or a summary's datum: nvbench writes numbers as strings.
#[derive(Deserialize)]
struct Named {
    name: String,
    value: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Summary {
    tag: String,
    #[serde(default)]
    data: Vec<Named>,
}

/// The summaries read, by tag: the metric's column, and what a value is
/// multiplied by (seconds to nanoseconds for times).
const TAGS: [(&str, &str, f64); 5] = [
    ("nv/cold/time/gpu/mean", "gpu_time", 1e9),
    ("nv/cold/time/cpu/mean", "cpu_time", 1e9),
    ("nv/batch/time/gpu/mean", "batch_gpu_time", 1e9),
    ("nv/cold/bw/item_rate", "item_rate", 1.0),
    (
        "nv/cold/bw/global/bytes_per_second",
        "bytes_per_second",
        1.0,
    ),
];

/// A value as nvbench writes it: a string holding a number, or a number.
fn shown(value: Option<&serde_json::Value>) -> String {
    match value {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Nvbench;
    let file: File = json::parse(path, format, bytes)?;
    let metrics = vec![
        time("gpu_time"),
        time("cpu_time"),
        time("batch_gpu_time"),
        by_unit("item_rate", "items/s"),
        by_unit("bytes_per_second", "B/s"),
    ];
    let mut rows = Collect::new(path, format, metrics);
    let mut line = 0u32;
    for (b, bench) in file.benchmarks.iter().enumerate() {
        let devices = bench.devices.as_ref().map_or(0, Vec::len);
        for (s, state) in bench.states.iter().flatten().enumerate() {
            let mut params: Vec<String> = Vec::new();
            if let (true, Some(d)) = (devices > 1, state.device) {
                params.push(format!("Device={d}"));
            }
            for axis in state.axis_values.iter().flatten() {
                params.push(format!("{}={}", axis.name, shown(axis.value.as_ref())));
            }
            line = line.saturating_add(1);
            let row = rows.row(&bench.name, &params.join(","), line);
            if state.is_skipped {
                let why = state.skip_reason.as_deref().unwrap_or("no reason given");
                rows.fail(row, &format!("skipped: {why}"));
                continue;
            }
            for summary in state.summaries.iter().flatten() {
                let Some(m) = TAGS.iter().position(|(tag, _, _)| *tag == summary.tag) else {
                    continue;
                };
                let (_, column, scale) = TAGS.get(m).copied().unwrap_or(("", "", 1.0));
                let datum = summary.data.iter().find(|d| d.name == "value");
                let text = shown(datum.and_then(|d| d.value.as_ref()));
                let at = || format!("at benchmarks[{b}].states[{s}].summaries[{column}]");
                let Ok(value) = text.trim().parse::<f64>() else {
                    return Err(
                        rows.error(at(), format!("{:?} is not a number", shown_text(&text)))
                    );
                };
                let metric = u16::try_from(m).unwrap_or(u16::MAX);
                rows.sample(row, metric, value * scale, at)?;
            }
        }
    }
    Ok(rows.finish())
}
