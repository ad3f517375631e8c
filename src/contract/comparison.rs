//! compare's report (`compare --format json`, `--report FILE`, the `json`
//! output; schema [`super::REPORT_SCHEMA`]): one set of types that compare
//! serializes and that `comment` and `gate` read back, so a field is named
//! and typed in one place.
//!
//! Two things are left to the side that uses them, as type parameters:
//! a baseline's rows (`R`: compare writes them one by one as it classifies
//! them, never holding them; a reader streams them through its own type
//! and keeps only what it shows) and a row's key (`K`: compare writes the
//! cells without copying them; a reader gets [`Key`]).
//!
//! A reader treats every string as a stranger's (a fork's benchmark wrote
//! the files the report came from): the file is refused over
//! [`MAX_REPORT_BYTES`], nesting stops at serde_json's 128 levels, every
//! field defaults (a report from an older compare still reads), a key cell
//! of another type than text is shown, never refused, and unknown class
//! names in `counts` are skipped without being kept.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::io::BufReader;
use std::path::Path;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::class::Class;
use super::coverage::Coverage;
use super::fingerprint::{Difference, Fingerprint};
use super::resolution::Provenance;
use crate::runner::read::{self, FileError};
use crate::runner::shown;

/// What a paired row's `change_pct` is, said above every table that shows
/// it beside the two sides' medians (compare's summary, comment's body):
/// the two can point opposite ways when the machine drifted between
/// rounds, and a reader must know which one the verdict went by.
pub const PAIRED_CHANGE: &str = "change (paired): the verdict's estimate: each round's current run against that round's baseline run, averaged over the rounds (what moved a whole round, and a row's outlying rounds, set aside). The medians are each side's own over the same rounds; a row whose medians alone point the other way says so in why.";

/// compare's report of 100,000 rows is about 45 MB; a real one is far
/// smaller. Bigger is refused before it is read.
pub const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("the report {origin} is not compare's JSON report: {message}")]
    Invalid { origin: String, message: String },
}

/// The whole report; `R` is a baseline's rows (see the module's doc).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, bound(deserialize = "R: Deserialize<'de> + Default"))]
pub struct Comparison<'a, R> {
    pub schema: u32,
    /// `pass`, `regression` or `inconclusive`, against the gate baseline.
    pub verdict: Option<Cow<'a, str>>,
    /// `--no-gate`: reported, the step passed whatever the verdict.
    pub report_only: bool,
    /// The gate baseline's label.
    pub gate: Option<Cow<'a, str>>,
    pub thresholds: Thresholds<'a>,
    pub inputs: Vec<Input<'a>>,
    pub provenance: Option<Provenance>,
    pub rerun: Rerun<'a>,
    pub baselines: Vec<Baseline<'a, R>>,
    pub warnings: Vec<Cow<'a, str>>,
    /// What each side was measured on (`contract::fingerprint`).
    pub machine: Machine<'a>,
}

/// What each side was measured on, and whether that moves the verdict.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Machine<'a> {
    pub current: Option<Cow<'a, Fingerprint>>,
    pub baseline: Option<Cow<'a, Fingerprint>>,
    /// The fields that move performance and differ.
    pub differences: Cow<'a, [Difference]>,
    /// Each side in one line (`Fingerprint::measured_on`), for comment and
    /// gate to show without reading the fingerprints.
    pub current_measured_on: Option<Cow<'a, str>>,
    pub baseline_measured_on: Option<Cow<'a, str>>,
    /// `--fingerprint strict`, and they differ: the gate is inconclusive.
    pub inconclusive: bool,
    /// History runs left out for another machine.
    pub history_left_out: u64,
}

/// The thresholds the report was judged by.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds<'a> {
    /// `null` with `--fail-threshold auto`.
    pub fail_pct: Option<f64>,
    pub fail: Cow<'a, str>,
    pub warn_pct: f64,
    /// The chance that a pull request of noise alone fails (with history).
    pub false_alarms_pct: f64,
}

/// One results file compare read.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Input<'a> {
    pub role: Cow<'a, str>,
    pub path: Cow<'a, str>,
    pub sha256: Option<Cow<'a, str>>,
    pub rows: usize,
    pub valid_rows: usize,
}

/// What a re-run could change.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Rerun<'a> {
    /// The `[rerun] key` column's values of the rows a re-run could change.
    pub groups: Vec<Cow<'a, str>>,
    pub keys: Vec<Cow<'a, str>>,
    /// The groups whose baseline run to run again.
    pub baseline_groups: Vec<Cow<'a, str>>,
}

/// One baseline's comparison.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, bound(deserialize = "R: Deserialize<'de> + Default"))]
pub struct Baseline<'a, R> {
    pub label: Cow<'a, str>,
    /// Whether this is the gate baseline.
    pub gate: bool,
    pub available: bool,
    pub unavailable_reason: Option<Cow<'a, str>>,
    pub verdict: Option<Cow<'a, str>>,
    pub counts: Counts,
    /// How much of the suite was compared, and why the rest was not.
    pub coverage: Option<Coverage>,
    pub worst: Option<Worst<'a>>,
    /// Most rows moved together (a machine or build environment?).
    pub suite_shift: Option<Shift>,
    /// With history: each row's chance of a false alarm.
    pub false_alarm_per_row: Option<f64>,
    /// With `--paired`: the rounds, and the rows still undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
    pub rows_listed: usize,
    pub rows: R,
}

/// The row with the largest change for the worse.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Worst<'a> {
    /// `op=gemm,shape=4096,dtype=bf16`.
    pub key: Cow<'a, str>,
    pub change_pct: Option<f64>,
}

/// A whole suite that moved together.
#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize)]
#[serde(default)]
pub struct Shift {
    pub change_pct: f64,
    pub rows: usize,
    pub compared: usize,
}

/// `--paired`'s rounds.
#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize)]
#[serde(default)]
pub struct Paired {
    /// The rows with at least one round measuring both sides.
    pub rows: usize,
    /// Rows still in doubt (noisy) at the most rounds or before.
    pub undecided: usize,
    /// Rounds per row, as the decisions used them: the mean and the most.
    pub rounds_mean: f64,
    pub rounds_max: usize,
}

/// One row; `K` is its key (see the module's doc).
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Row<'a, K = Key> {
    pub key: K,
    /// compare's class name (`regressed`, `not-selected`, ...).
    pub class: Cow<'a, str>,
    pub change_pct: Option<f64>,
    pub unit: Option<Cow<'a, str>>,
    pub baseline: Option<Side<'a>>,
    pub current: Option<Side<'a>>,
    pub reason: Option<Cow<'a, str>>,
    pub thresholds: RowThresholds,
    pub rerun: bool,
    /// The baseline's run was itself off its history's level.
    pub rerun_baseline: bool,
    /// With --paired: the rounds the decision used, the 90% interval of
    /// the change (percent, low to high), and the chance of so much worse
    /// if nothing changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_pct: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_worse: Option<f64>,
}

impl<K> Row<'_, K> {
    /// Whether the row's class is one of `classes` (by compare's spelling).
    pub fn is(&self, classes: &[Class]) -> bool {
        classes.iter().any(|c| c.name() == self.class)
    }
}

/// The threshold a row was judged by.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct RowThresholds {
    /// The fail threshold the row was judged by.
    pub fail_pct: Option<f64>,
    pub warn_pct: f64,
    pub floor: f64,
    pub rule: Option<usize>,
    /// `default`, `input`, `rule`, `learned`, `too-little-history` or
    /// `history-unusable`.
    pub source: Cow<'static, str>,
    pub history_runs: Option<usize>,
    pub band_pct: Option<f64>,
}

/// A side's value: its median and every sample.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Side<'a> {
    pub median: Option<f64>,
    pub samples: Cow<'a, [f64]>,
}

/// Counts per class name (and `compared`); reading keeps only compare's
/// own names, so a stranger's report cannot make it keep more.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct Counts(pub BTreeMap<&'static str, u64>);

impl Counts {
    pub fn of(&self, class: Class) -> u64 {
        self.0.get(class.name()).copied().unwrap_or(0)
    }
}

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Counts, D::Error> {
        struct Known;
        impl<'de> Visitor<'de> for Known {
            type Value = Counts;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of counts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Counts, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(name) = map.next_key::<Cow<'_, str>>()? {
                    let known = Class::ALL
                        .iter()
                        .map(|c| c.name())
                        .chain(["compared"])
                        .find(|k| *k == name);
                    match known {
                        Some(k) => {
                            out.insert(k, map.next_value()?);
                        }
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Counts(out))
            }
        }
        d.deserialize_map(Known)
    }
}

/// A row's key cells in the report's order (a map would sort them). A
/// cell written as a number or a boolean reads as its text; an array or an
/// object is not a cell and reads as `…`, never built.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Key(pub Vec<(String, String)>);

impl Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (column, value) in &self.0 {
            map.serialize_entry(column, value)?;
        }
        map.end()
    }
}

impl Key {
    /// The cells joined by spaces, as the dashboard shows a key.
    pub fn cells(&self) -> String {
        let cells: Vec<&str> = self.0.iter().map(|(_, v)| v.as_str()).collect();
        cells.join(" ")
    }
}

/// A key cell's value as text.
struct CellText;

impl<'de> Visitor<'de> for CellText {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key cell")
    }
    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }
    fn visit_string<E>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
    fn visit_bool<E>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_i64<E>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u64<E>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_f64<E>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_unit<E>(self) -> Result<String, E> {
        Ok("null".to_owned())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok("…".to_owned())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok("…".to_owned())
    }
}

struct CellValue(String);

impl<'de> Deserialize<'de> for CellValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CellText).map(CellValue)
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct Cells;
        impl<'de> Visitor<'de> for Cells {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of key cells")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Key, A::Error> {
                let mut cells = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, CellValue>()? {
                    cells.push((k, v.0));
                }
                Ok(Key(cells))
            }
        }
        d.deserialize_map(Cells)
    }
}

/// What a reader keeps of a baseline's rows, handed one at a time as they
/// are read (a comment's budget, a gate's worst rows).
pub trait Keep: Default {
    fn keep(&mut self, row: Row<'static>);
}

/// A baseline's rows streamed into `K`: each row is read, handed on and
/// dropped, so a report of a million rows is never held whole.
#[derive(Debug, Default)]
pub struct Streamed<K>(pub K);

impl<'de, K: Keep> Deserialize<'de> for Streamed<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Streamed<K>, D::Error> {
        struct Each<K>(std::marker::PhantomData<K>);
        impl<'de, K: Keep> Visitor<'de> for Each<K> {
            type Value = Streamed<K>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of rows")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Streamed<K>, A::Error> {
                let mut kept = K::default();
                while let Some(row) = seq.next_element::<Row<'static>>()? {
                    kept.keep(row);
                }
                Ok(Streamed(kept))
            }
        }
        d.deserialize_seq(Each(std::marker::PhantomData))
    }
}

/// A report read back; `R` streams each baseline's rows.
pub type Read<R> = Comparison<'static, R>;

/// Reads a report from a file (streamed, at most [`MAX_REPORT_BYTES`]) or,
/// when `value` starts with `{`, from the JSON itself (compare's `json`
/// output passed through `with:`).
pub fn load<R: for<'de> Deserialize<'de> + Default>(value: &str) -> Result<Read<R>, ReportError> {
    if value.trim_start().starts_with('{') {
        return from_text(value, "(inline JSON)".to_owned());
    }
    from_file(Path::new(value))
}

/// Reads a report file, streamed, at most [`MAX_REPORT_BYTES`].
pub fn from_file<R: for<'de> Deserialize<'de> + Default>(
    path: &Path,
) -> Result<Read<R>, ReportError> {
    let file = read::bounded_reader("the report", path, MAX_REPORT_BYTES)?;
    let mut d = serde_json::Deserializer::from_reader(BufReader::new(file));
    checked(parse(&mut d), path.display().to_string())
}

/// From JSON text already read; `origin` names it in errors.
pub fn from_text<R: for<'de> Deserialize<'de> + Default>(
    text: &str,
    origin: String,
) -> Result<Read<R>, ReportError> {
    let mut d = serde_json::Deserializer::from_str(text);
    checked(parse(&mut d), origin)
}

fn parse<'de, R, T>(d: &mut serde_json::Deserializer<R>) -> Result<T, serde_json::Error>
where
    R: serde_json::de::Read<'de>,
    T: Deserialize<'de>,
{
    let report = T::deserialize(&mut *d)?;
    d.end()?;
    Ok(report)
}

fn checked<R>(
    parsed: Result<Read<R>, serde_json::Error>,
    origin: String,
) -> Result<Read<R>, ReportError> {
    let report = parsed.map_err(|e| ReportError::Invalid {
        origin: origin.clone(),
        message: shown(&e.to_string()),
    })?;
    if report.verdict.is_none() && report.baselines.is_empty() {
        return Err(ReportError::Invalid {
            origin,
            message: "it has neither a verdict nor baselines".to_owned(),
        });
    }
    Ok(report)
}

impl<'a, R> Comparison<'a, R> {
    /// The gate baseline (the one whose regressions fail).
    pub fn gate_baseline(&self) -> Option<&Baseline<'a, R>> {
        self.baselines.iter().find(|b| b.gate)
    }
}
