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

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::json::{Shown, Text};
use super::list::{self, At};
use super::{Format, by_unit, json, time};
use crate::runner::shown as shown_text;
use crate::table::{Table, TableError};

/// One benchmark and its states, their strings borrowed from the file
/// where they hold no escape, read as the list is (`list::each`); the
/// summaries' descriptions, hints and every field not named here are
/// skipped unbuilt.
#[derive(Deserialize)]
struct Bench<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    devices: Option<Vec<serde::de::IgnoredAny>>,
    #[serde(default, borrow)]
    states: Option<Vec<State<'a>>>,
}

#[derive(Deserialize)]
struct State<'a> {
    device: Option<i64>,
    #[serde(default, borrow)]
    axis_values: Option<Vec<Named<'a>>>,
    #[serde(default, borrow)]
    summaries: Option<Vec<Summary<'a>>>,
    #[serde(default)]
    is_skipped: bool,
    #[serde(borrow)]
    skip_reason: Option<Text<'a>>,
}

/// An axis value or a summary's datum: nvbench writes numbers as strings.
#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow)]
    name: Text<'a>,
    #[serde(borrow)]
    value: Option<Shown<'a>>,
}

#[derive(Deserialize)]
struct Summary<'a> {
    #[serde(borrow)]
    tag: Text<'a>,
    #[serde(default, borrow)]
    data: Datum<'a>,
}

/// A summary's `data` as the reader keeps it: the value of its first
/// datum named `value` (`Some(None)` when that datum has no value), the
/// list read through and not built (a list a summary: four allocations a
/// state, most of them for summaries the reader does not keep).
#[derive(Default)]
struct Datum<'a>(Option<Option<Shown<'a>>>);

impl<'de: 'a, 'a> Deserialize<'de> for Datum<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Datum<'a>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Datum<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of data")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Datum<'de>, A::Error> {
                let mut found = None;
                while let Some(datum) = seq.next_element::<Named<'de>>()? {
                    if found.is_none() && &*datum.name == "value" {
                        found = Some(datum.value);
                    }
                }
                Ok(Datum(found))
            }
        }
        d.deserialize_seq(V)
    }
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

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Nvbench;
    let text = json::python_json(bytes);
    let metrics = vec![
        time("gpu_time"),
        time("cpu_time"),
        time("batch_gpu_time"),
        by_unit("item_rate", "items/s"),
        by_unit("bytes_per_second", "B/s"),
    ];
    let mut rows = Collect::new(path, format, metrics);
    let mut line = 0u32;
    let mut params = String::new();
    list::each(
        path,
        format,
        &text,
        At::Field("benchmarks"),
        |b, bench: Bench<'_>| {
            let devices = bench.devices.as_ref().map_or(0, Vec::len);
            for (s, state) in bench.states.iter().flatten().enumerate() {
                params.clear();
                if let (true, Some(d)) = (devices > 1, state.device) {
                    params.push_str(&format!("Device={d}"));
                }
                let axes = state.axis_values.iter().flatten();
                let pairs = axes.map(|a| (&*a.name, a.value.as_deref().unwrap_or("")));
                super::text::push_pairs(&mut params, pairs);
                line = line.saturating_add(1);
                let row = rows.row(&bench.name, &params, line);
                if state.is_skipped {
                    let why = state.skip_reason.as_deref().unwrap_or("no reason given");
                    rows.fail(row, &format!("skipped: {why}"));
                    continue;
                }
                for summary in state.summaries.iter().flatten() {
                    let Some(m) = TAGS.iter().position(|(tag, _, _)| *tag == &*summary.tag) else {
                        continue;
                    };
                    let (_, column, scale) = TAGS.get(m).copied().unwrap_or(("", "", 1.0));
                    let datum = summary.data.0.as_ref().and_then(Option::as_ref);
                    let text = datum.map_or("", |v| &**v);
                    let at = || format!("at benchmarks[{b}].states[{s}].summaries[{column}]");
                    let Ok(value) = text.trim().parse::<f64>() else {
                        return Err(
                            rows.error(at(), format!("{:?} is not a number", shown_text(text)))
                        );
                    };
                    let metric = u16::try_from(m).unwrap_or(u16::MAX);
                    rows.sample(row, metric, value * scale, at)?;
                }
            }
            Ok(())
        },
    )?;
    Ok(rows.finish())
}
