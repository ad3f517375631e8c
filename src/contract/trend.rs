//! trend's report (`trend --format json`, its `json` output), written by
//! `trend` and read by `comment` (to post it on a tracking issue): one set
//! of types for both sides. A reader treats every string as a stranger's
//! (a fork's benchmark wrote the files the history came from) and bounds
//! the file by [`MAX_TREND_BYTES`].

use std::borrow::Cow;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The `json` output is at most 1 MiB, and `--format json` of a history of
/// thousands of changed rows a few; bigger is not a trend report.
pub const MAX_TREND_BYTES: u64 = 4 * 1024 * 1024;

/// One change of a row's level.
#[derive(Debug, Serialize, Deserialize)]
pub struct TrendChange<'a> {
    pub run: Cow<'a, str>,
    pub sha: Option<String>,
    pub index: usize,
    pub before: f64,
    pub after: f64,
    pub before_spread_pct: f64,
    pub after_spread_pct: f64,
    pub change_pct: f64,
    /// `persistent`, `transient` or `drift`.
    pub kind: Cow<'a, str>,
    pub new: bool,
}

/// A row with its changes (only rows with a change are listed).
#[derive(Debug, Serialize, Deserialize)]
pub struct TrendRow<'a> {
    pub key: KeyCells,
    pub metric: Cow<'a, str>,
    pub unit: Cow<'a, str>,
    pub runs: usize,
    pub outliers: Vec<Cow<'a, str>>,
    pub changes: Vec<TrendChange<'a>>,
}

/// The whole report.
#[derive(Debug, Serialize, Deserialize)]
pub struct TrendReport<'a> {
    pub schema: u32,
    pub runs: usize,
    pub rows_judged: usize,
    pub min_change_pct: f64,
    pub recent: usize,
    pub counts: Counts,
    pub rows_listed: usize,
    pub rows: Vec<TrendRow<'a>>,
    pub warnings: Vec<Cow<'a, str>>,
    /// Where the machine changed along the history (added with issue 52;
    /// absent from older reports).
    #[serde(default)]
    pub machine_changes: Vec<TrendMachineChange>,
}

/// A change of machine at one run, and the rows whose level moved with it
/// (not counted as regressions or improvements).
#[derive(Debug, Serialize, Deserialize)]
pub struct TrendMachineChange {
    pub run: String,
    pub from: String,
    pub to: String,
    pub differences: Vec<crate::contract::fingerprint::Difference>,
    pub rows: Vec<TrendMovedRow>,
}

/// A row that moved with a machine change.
#[derive(Debug, Serialize, Deserialize)]
pub struct TrendMovedRow {
    pub key: String,
    pub change_pct: f64,
}

/// How many of each, over every row (listed or not).
#[derive(Debug, Default, Serialize, Deserialize, Clone, Copy)]
pub struct Counts {
    pub regressions: usize,
    pub new_regressions: usize,
    pub improvements: usize,
    pub drifts: usize,
    pub transients: usize,
    pub outliers: usize,
}

/// A row's key: its cells in the config's column order, written as a JSON
/// object (`{"op": ..., "shape": ..., "dtype": ...}`) and read back in the
/// same order (a map type would sort them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyCells(pub Vec<(String, String)>);

impl Serialize for KeyCells {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (column, value) in &self.0 {
            map.serialize_entry(column, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for KeyCells {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyCells, D::Error> {
        struct Cells;
        impl<'de> Visitor<'de> for Cells {
            type Value = KeyCells;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of key cells")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyCells, A::Error> {
                let mut cells = Vec::new();
                while let Some(pair) = map.next_entry::<String, String>()? {
                    cells.push(pair);
                }
                Ok(KeyCells(cells))
            }
        }
        d.deserialize_map(Cells)
    }
}
