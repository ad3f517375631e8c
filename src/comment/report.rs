//! compare's JSON report (`--format json`, schema 2) as `comment` reads it:
//! only the fields the comment shows, each optional, every string a
//! stranger's (a fork's code wrote the CSVs the report came from). A
//! report is refused over [`MAX_REPORT_BYTES`]; unknown fields are ignored.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use thiserror::Error;

use crate::compare::report::Provenance;
use crate::runner::read::{self, FileError};
use crate::runner::shown;

/// 100,000 rows are about 45 MB of JSON.
pub const MAX_REPORT_BYTES: u64 = 128 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("the report {origin} is not compare's JSON report: {message}")]
    Invalid { origin: String, message: String },
}

#[derive(Debug, Default, Deserialize)]
pub struct Report {
    pub verdict: Option<String>,
    pub gate: Option<String>,
    #[serde(default)]
    pub report_only: bool,
    pub provenance: Option<Provenance>,
    #[serde(default)]
    pub baselines: Vec<Baseline>,
    #[serde(default)]
    pub warnings: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Baseline {
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub gate: bool,
    #[serde(default)]
    pub available: bool,
    pub unavailable_reason: Option<String>,
    pub verdict: Option<String>,
    #[serde(default)]
    pub counts: std::collections::BTreeMap<String, u64>,
    #[serde(default)]
    pub rows: Vec<Row>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Row {
    #[serde(default)]
    pub key: Key,
    #[serde(default)]
    pub class: String,
    pub change_pct: Option<f64>,
    pub unit: Option<String>,
    pub baseline: Option<Side>,
    pub current: Option<Side>,
    pub reason: Option<String>,
    pub thresholds: Option<Thresholds>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Thresholds {
    pub fail_pct: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Side {
    pub median: Option<f64>,
}

/// A row's key cells in the report's order (a map would sort them).
#[derive(Debug, Default)]
pub struct Key(pub Vec<(String, String)>);

impl Key {
    /// The cells joined by spaces, as the dashboard shows a key.
    pub fn cells(&self) -> String {
        let cells: Vec<&str> = self.0.iter().map(|(_, v)| v.as_str()).collect();
        cells.join(" ")
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
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    let v = match v {
                        serde_json::Value::String(s) => s,
                        other => other.to_string(),
                    };
                    cells.push((k, v));
                }
                Ok(Key(cells))
            }
        }
        d.deserialize_map(Cells)
    }
}

impl Row {
    /// Whether the row's class is one of `classes` (by compare's spelling).
    pub fn is(&self, classes: &[crate::compare::class::Class]) -> bool {
        classes.iter().any(|c| c.name() == self.class)
    }
}

impl Report {
    /// From a file, or from the JSON itself (compare's `json` output).
    pub fn load(value: &str) -> Result<Report, ReportError> {
        let (text, origin) = read::file_or_inline("the report", value, MAX_REPORT_BYTES)?;
        let report: Report = serde_json::from_str(&text).map_err(|e| ReportError::Invalid {
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

    pub fn gate(&self) -> Option<&Baseline> {
        self.baselines.iter().find(|b| b.gate)
    }
}
