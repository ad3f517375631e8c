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

use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};

use super::collect::Collect;
use super::json::Text;
use super::{Format, json};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

#[derive(Deserialize)]
struct Measure {
    value: Option<f64>,
}

/// An object's entries in name order, the last of a name twice kept (as
/// a map keeps it): a list sorted once, not a map built entry by entry
/// (a tree node allocated for every benchmark's one measure).
struct Sorted<'a, V>(Vec<(Text<'a>, V)>);

impl<'de: 'a, 'a, V: Deserialize<'de>> Deserialize<'de> for Sorted<'a, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Entries<V> {
            type Value = Vec<(Text<'de>, V)>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(entries)
            }
        }
        let mut entries = d.deserialize_map(Entries(std::marker::PhantomData))?;
        // Stable: of a name given twice, the later stays after the earlier,
        // and is the one kept.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                std::mem::swap(later, kept);
            }
            same
        });
        Ok(Sorted(entries))
    }
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
    let file: Sorted<'_, Sorted<'_, Measure>> = json::parse_text(path, format, &text)?;
    let mut rows = Collect::new(path, format, Vec::new());
    for (line, (name, measures)) in (1u32..).zip(&file.0) {
        let row = rows.row(name, "", line);
        for (measure, m) in &measures.0 {
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
