//! `resolve`'s answer as the commands after it read it (`compare`, `select`,
//! `comment`): its JSON (the action's `json` output, or a file of it), the
//! fields they use. It is evidence as well as decoration: a resolution that
//! says there is no baseline makes the gate inconclusive, whatever the
//! baseline file holds. Unknown fields are ignored, so a newer `resolve`
//! can add one without breaking an older reader.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::runner::read::{self, FileError};
use crate::runner::shown;

/// Where the baseline came from: `resolve`'s answer, as its JSON says it.
/// Strangers may have written it (a fork's run uploads it): every field is
/// shown as data, cut, never trusted as a path or a command.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
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
