//! The Bencher Metric Format (what `bencher run` reads from a file or a
//! harness's output with `--adapter json`): an object of benchmark names,
//! each an object of measures (`latency`, `throughput`, or a measure of
//! the user's), each with a `value` and optionally `lower_value` and
//! `upper_value`. A benchmark is a row: its name is the benchmark, with
//! no params. Each measure is a metric of its name: `latency` is ns, lower
//! is better; `throughput` is operations per second, higher; `file-size`
//! is bytes and `build-time` seconds, lower; any other measure (Bencher's
//! `instructions`, `cycles`, a user's slug) is lower is better, the file
//! not saying otherwise. The format holds one value per measure, the
//! row's one sample; `lower_value` and `upper_value` (a range the
//! adapter computed) are left out.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::json::Text;
use super::{Format, json};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

#[derive(Deserialize)]
struct Measure {
    value: Option<f64>,
}

/// The metric a measure's name is.
fn metric_of(name: &str) -> Metric {
    let (unit, direction) = match name {
        "latency" => ("ns", Direction::Lower),
        "throughput" => ("ops/s", Direction::Higher),
        "file-size" => ("B", Direction::Lower),
        "build-time" => ("s", Direction::Lower),
        _ => ("", Direction::Lower),
    };
    Metric {
        column: name.to_owned(),
        unit: unit.to_owned(),
        direction,
    }
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Bmf;
    // Names and measures borrowed from the file (no copy of each), in
    // name order as before.
    let text = json::python_json(bytes);
    let file: BTreeMap<Text<'_>, BTreeMap<Text<'_>, Measure>> =
        json::parse_text(path, format, &text)?;
    let mut rows = Collect::new(path, format, Vec::new());
    for (line, (name, measures)) in (1u32..).zip(&file) {
        let row = rows.row(name, "", line);
        for (measure, m) in measures {
            let metric = rows.metric(|| metric_of(measure), measure)?;
            let Some(value) = m.value else {
                rows.fail(row, &format!("{measure} has no value"));
                continue;
            };
            rows.sample(row, metric, value, || format!("at {name}.{measure}.value"))?;
        }
    }
    Ok(rows.finish())
}
