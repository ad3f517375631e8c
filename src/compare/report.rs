//! Everything one comparison run found, as every output form shows it: the
//! gate's comparison and the others, the files read, the provenance of the
//! baseline, and what is worth a warning. Also `resolve`'s answer
//! ([`Provenance`]), which is evidence as well as decoration: a resolution
//! that says there is no baseline makes the gate inconclusive, whatever
//! the baseline file holds.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::verdict::{Comparison, Verdict};
use crate::config::{Config, Thresholds};
use crate::runner::read::{self, FileError};
use crate::runner::shown;

/// A file the comparison read (or could not).
#[derive(Debug, Clone)]
pub struct InputFile {
    /// `current`, `history`, or the baseline label.
    pub role: String,
    pub path: PathBuf,
    pub sha256: Option<String>,
    pub rows: usize,
    pub valid_rows: usize,
}

/// Where the baseline came from: `resolve`'s answer, as its JSON says it.
/// Strangers may have written it (a fork's run uploads it): every field is
/// shown as data, cut, never trusted as a path or a command.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct Provenance {
    pub label: Option<String>,
    pub base_repo: Option<String>,
    pub base_sha: Option<String>,
    pub base_source: Option<String>,
    pub base_available: Option<bool>,
    pub skip: Option<bool>,
    pub skip_reason: Option<String>,
    pub tag: Option<String>,
    pub tag_sha: Option<String>,
    /// The commit of the change (`select`'s default head).
    pub head_sha: Option<String>,
}

/// `resolve`'s JSON answer is kilobytes (its warnings and artifact list are
/// capped); anything this large is not one.
pub const MAX_RESOLUTION_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Error)]
pub enum ProvenanceError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("the resolution {origin} is not resolve's JSON answer: {message}")]
    Invalid { origin: String, message: String },
}

impl Provenance {
    /// From a file, or from the JSON itself (what the action's `json` output
    /// holds, passed straight through `with:`).
    pub fn load(value: &str) -> Result<Provenance, ProvenanceError> {
        let (text, origin) = read::file_or_inline("the resolution", value, MAX_RESOLUTION_BYTES)?;
        serde_json::from_str(&text).map_err(|e| ProvenanceError::Invalid {
            origin,
            message: shown(&e.to_string()),
        })
    }

    /// The label the resolution answered for (`main` unless it says).
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or("main")
    }

    /// `ROCm/FlyDSL@fa4f8ae2...` for a label, when the resolution names it:
    /// the base commit for the resolution's label, the tag's commit for the tag.
    pub fn describe(&self, label: &str) -> Option<String> {
        let repo = shown(self.base_repo.as_deref()?);
        if self.label() == label {
            let source = shown(self.base_source.as_deref().unwrap_or("?"));
            return Some(format!(
                "{repo}@{} ({source})",
                shown(self.base_sha.as_deref()?)
            ));
        }
        if self.tag.as_deref() == Some(label) {
            return Some(format!(
                "{repo}@{} (release tag)",
                shown(self.tag_sha.as_deref()?)
            ));
        }
        None
    }

    /// Every field cut to what an output shows of it.
    pub fn cut(&self) -> Provenance {
        let c = |v: &Option<String>| v.as_deref().map(shown);
        Provenance {
            label: c(&self.label),
            base_repo: c(&self.base_repo),
            base_sha: c(&self.base_sha),
            base_source: c(&self.base_source),
            base_available: self.base_available,
            skip: self.skip,
            skip_reason: c(&self.skip_reason),
            tag: c(&self.tag),
            tag_sha: c(&self.tag_sha),
            head_sha: c(&self.head_sha),
        }
    }

    /// Why the resolution says there is no baseline for its label, if it
    /// does: then that label's results are not evidence of anything.
    pub fn no_baseline(&self) -> Option<String> {
        if self.skip == Some(true) {
            let why = self.skip_reason.as_deref().unwrap_or("no reason given");
            return Some(format!(
                "the resolution says there is nothing to benchmark (skip: true, {})",
                shown(why)
            ));
        }
        (self.base_available == Some(false)).then(|| {
            "the resolution says the baseline is unavailable (base_available: false), so a results file for it cannot be the baseline"
                .to_owned()
        })
    }
}

pub struct Report<'t> {
    /// The gate's comparison, when there is a baseline at all.
    pub gate: Option<Comparison<'t>>,
    /// The other baselines (the release tag), reported but not gated, in
    /// the order given.
    pub others: Vec<Comparison<'t>>,
    pub report_only: bool,
    pub thresholds: Thresholds,
    pub inputs: Vec<InputFile>,
    pub provenance: Option<Provenance>,
    /// Baselines that could not be read, and other things worth a warning.
    pub warnings: Vec<String>,
    pub config: &'t Config,
}

impl<'t> Report<'t> {
    /// Every comparison, the gate's first.
    pub fn comparisons(&self) -> impl Iterator<Item = &Comparison<'t>> {
        self.gate.iter().chain(&self.others)
    }

    /// Whether `comparison` is the gate's.
    pub fn is_gate(&self, comparison: &Comparison<'_>) -> bool {
        self.gate
            .as_ref()
            .is_some_and(|g| std::ptr::eq(g, comparison))
    }

    /// The gate's verdict; inconclusive without a gate.
    pub fn verdict(&self) -> Verdict {
        self.gate
            .as_ref()
            .map_or(Verdict::Inconclusive, Comparison::verdict)
    }

    /// The unit a row's metric is shown in.
    pub fn unit(&self, metric: Option<usize>) -> &str {
        metric
            .and_then(|m| self.config.metrics.get(m))
            .map_or("", |m| m.unit.as_str())
    }
}
