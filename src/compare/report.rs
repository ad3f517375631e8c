//! Everything one comparison run found, as every output form shows it: the
//! comparisons (the gate's first), the files read, the provenance of the
//! baseline, and what is worth a warning.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::config::Config;
use super::verdict::{Comparison, Thresholds, Verdict};
use crate::runner::read::{self, ReadError};

/// A file the comparison read (or could not).
#[derive(Debug, Clone)]
pub struct InputFile {
    /// `current`, or the baseline label.
    pub role: String,
    pub path: PathBuf,
    pub sha256: Option<String>,
    pub rows: usize,
    pub valid_rows: usize,
}

/// Where the baseline came from: `resolve`'s answer, as its JSON says it.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct Provenance {
    pub label: Option<String>,
    pub base_repo: Option<String>,
    pub base_sha: Option<String>,
    pub base_source: Option<String>,
    pub tag: Option<String>,
    pub tag_sha: Option<String>,
}

/// `resolve`'s JSON answer is kilobytes (its warnings and artifact list are
/// capped); anything this large is not one.
pub const MAX_RESOLUTION_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Error)]
pub enum ProvenanceError {
    #[error("cannot read the resolution {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the resolution {path} is {size} bytes, over the {MAX_RESOLUTION_BYTES}-byte limit")]
    TooLarge { path: PathBuf, size: u64 },
    #[error("the resolution {origin} is not resolve's JSON answer: {message}")]
    Invalid { origin: String, message: String },
}

impl Provenance {
    /// From a file, or from the JSON itself (what the action's `json` output
    /// holds, passed straight through `with:`).
    pub fn load(value: &str) -> Result<Provenance, ProvenanceError> {
        let (text, origin) = if value.trim_start().starts_with('{') {
            (value.to_owned(), "(inline JSON)".to_owned())
        } else {
            let path = Path::new(value);
            let text = read::bounded_text(path, MAX_RESOLUTION_BYTES).map_err(|err| match err {
                ReadError::Io(source) => ProvenanceError::Read {
                    path: path.to_owned(),
                    source,
                },
                ReadError::TooLarge { size } => ProvenanceError::TooLarge {
                    path: path.to_owned(),
                    size,
                },
            })?;
            (text, path.display().to_string())
        };
        serde_json::from_str(&text).map_err(|e| ProvenanceError::Invalid {
            origin,
            message: crate::runner::shown(&e.to_string()),
        })
    }

    /// `ROCm/FlyDSL@fa4f8ae2...` for a label, when the resolution names it:
    /// the base commit for the resolution's label, the tag's commit for the tag.
    pub fn describe(&self, label: &str) -> Option<String> {
        let repo = self.base_repo.as_deref()?;
        if self.label.as_deref().unwrap_or("main") == label {
            let source = self.base_source.as_deref().unwrap_or("?");
            return Some(format!("{repo}@{} ({source})", self.base_sha.as_deref()?));
        }
        if self.tag.as_deref() == Some(label) {
            return Some(format!("{repo}@{} (release tag)", self.tag_sha.as_deref()?));
        }
        None
    }
}

pub struct Report {
    /// The gate's comparison first, then the other baselines in the order given.
    pub comparisons: Vec<Comparison>,
    pub report_only: bool,
    pub thresholds: Thresholds,
    pub inputs: Vec<InputFile>,
    pub provenance: Option<Provenance>,
    /// Baselines that could not be read, and other things worth a warning.
    pub warnings: Vec<String>,
    pub config: Config,
    /// The tables read. Nothing reads them after the comparison; they are
    /// held so that `compare::run` can end the process without freeing
    /// them row by row.
    pub tables: Vec<super::table::Table>,
}

impl Report {
    pub fn gate(&self) -> Option<&Comparison> {
        self.comparisons.first()
    }

    /// The gate's verdict; inconclusive without a gate.
    pub fn verdict(&self) -> Verdict {
        self.gate()
            .map_or(Verdict::Inconclusive, Comparison::verdict)
    }

    /// The unit a row's metric is shown in.
    pub fn unit(&self, metric: Option<usize>) -> &str {
        metric
            .and_then(|m| self.config.metrics.get(m))
            .map_or("", |m| m.unit.as_str())
    }
}
