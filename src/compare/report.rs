//! Everything one comparison run found, as every output form shows it: the
//! gate's comparison and the others, the files read, the provenance of the
//! baseline (`resolve`'s answer, [`Provenance`]), and what is worth a
//! warning.

use std::path::PathBuf;

use super::verdict::{Comparison, Verdict};
use crate::config::{Config, Thresholds};
pub use crate::contract::resolution::Provenance;

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
    /// What each side was measured on, and whether the machines differ.
    pub machine: super::machine::Machine,
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

    /// The gate's verdict; inconclusive without a gate, and under
    /// `--fingerprint strict` when the baseline's machine is another.
    pub fn verdict(&self) -> Verdict {
        if self.machine.inconclusive() {
            return Verdict::Inconclusive;
        }
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
