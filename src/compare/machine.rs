//! Whether the two sides, and the history, were measured on the same
//! machine (`contract::fingerprint`). A baseline from another GPU, driver
//! or runtime, or with other clocks or power cap, moves every row; the
//! rows are still judged, but the report says so before anything else,
//! and `--fingerprint strict` makes the gate inconclusive. A history run
//! from another machine would teach a row the wrong noise and level: it is
//! left out of the bands, and the report counts it.

use std::path::{Path, PathBuf};

use super::CompareError;
use super::args::{BASELINE_FINGERPRINT, CURRENT_FINGERPRINT, FINGERPRINT};
use crate::contract::fingerprint::{Difference, Fingerprint, mismatch_sentence};
use crate::runner::{InputError, Reader, shown};

/// What the command line asks about machines.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// `--fingerprint strict`: another machine makes the gate inconclusive.
    pub strict: bool,
    /// Instead of the fingerprint beside the first current file.
    pub current: Option<PathBuf>,
    /// Instead of the fingerprint beside the gate baseline's first file.
    pub baseline: Option<PathBuf>,
}

/// `--fingerprint warn|strict`, `--current-fingerprint`,
/// `--baseline-fingerprint`.
pub fn asked(r: &Reader<'_>) -> Result<Asked, InputError> {
    let strict = match r.text(&FINGERPRINT) {
        None => false,
        Some(v) => match v.text.as_str() {
            "" | "warn" => false,
            "strict" => true,
            other => {
                return Err(InputError {
                    origin: v.origin,
                    message: format!("expected `warn` or `strict`, got {:?}", shown(other)),
                });
            }
        },
    };
    Ok(Asked {
        strict,
        current: r
            .path(&CURRENT_FINGERPRINT)
            .filter(|p| !p.as_os_str().is_empty()),
        baseline: r
            .path(&BASELINE_FINGERPRINT)
            .filter(|p| !p.as_os_str().is_empty()),
    })
}

/// The two sides' machines and what differs between them.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    pub current: Option<Fingerprint>,
    pub baseline: Option<Fingerprint>,
    pub differences: Vec<Difference>,
    pub strict: bool,
    /// History runs left out: measured on another machine than this run.
    pub history_left_out: usize,
    /// The first of them, as a person reads it.
    pub history_other: Option<String>,
}

impl Machine {
    /// Reads both sides' fingerprints: a file named on the command line
    /// must be one (bad input otherwise); one found beside a results file
    /// may be missing or unreadable (the machine is then unknown).
    pub fn load(
        asked: &Asked,
        current: &[PathBuf],
        baseline: &[PathBuf],
    ) -> Result<Machine, CompareError> {
        let side = |flag: &Option<PathBuf>, files: &[PathBuf], name: &str| match flag {
            Some(path) => Fingerprint::load(path).map(Some).map_err(|e| {
                CompareError::Usage(InputError {
                    origin: format!("--{name}-fingerprint"),
                    message: format!("{}: {e}", shown(&path.to_string_lossy())),
                })
            }),
            None => Ok(files.first().and_then(|f| Fingerprint::beside(f))),
        };
        let current = side(&asked.current, current, "current")?;
        let baseline = side(&asked.baseline, baseline, "baseline")?;
        let differences = match (&baseline, &current) {
            (Some(b), Some(c)) => b.differences(c),
            _ => Vec::new(),
        };
        Ok(Machine {
            current,
            baseline,
            differences,
            strict: asked.strict,
            ..Machine::default()
        })
    }

    /// Whether a history file measured on another machine is to be left
    /// out: its fingerprint is known and differs from this run's (a run
    /// without one is kept: an older bench wrote none).
    pub fn leaves_out(&mut self, history: &Path) -> bool {
        let (Some(current), Some(theirs)) = (&self.current, Fingerprint::beside(history)) else {
            return false;
        };
        if theirs.same_machine(current) {
            return false;
        }
        self.history_left_out = self.history_left_out.saturating_add(1);
        self.history_other
            .get_or_insert_with(|| theirs.measured_on());
        true
    }

    /// The sentence the report leads with when the machines differ.
    pub fn sentence(&self) -> Option<String> {
        let (Some(b), Some(c)) = (&self.baseline, &self.current) else {
            return None;
        };
        (!self.differences.is_empty()).then(|| {
            let strict = if self.strict {
                " --fingerprint strict makes the gate inconclusive."
            } else {
                ""
            };
            format!("{}.{strict}", mismatch_sentence(b, c, &self.differences))
        })
    }

    /// Under `--fingerprint strict`, another machine makes the gate
    /// inconclusive (the rows keep their classes).
    pub fn inconclusive(&self) -> bool {
        self.strict && !self.differences.is_empty()
    }

    /// The warning for history runs left out.
    pub fn history_warning(&self) -> Option<String> {
        let other = self.history_other.as_deref()?;
        let runs = crate::runner::text::counted(self.history_left_out, "history run");
        Some(format!(
            "{runs} left out of the noise bands: measured on another machine ({other}) than this run ({})",
            self.current
                .as_ref()
                .map_or_else(String::new, Fingerprint::measured_on)
        ))
    }

    /// `measured on` for one side, or `unknown`.
    pub fn line(fingerprint: Option<&Fingerprint>) -> String {
        fingerprint.map_or_else(
            || "unknown (no fingerprint)".to_owned(),
            Fingerprint::measured_on,
        )
    }
}
