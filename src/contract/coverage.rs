//! How much of the suite a comparison covered, and why the rest was not
//! compared: part of compare's report (each baseline's `coverage`), which
//! comment reads back. One type and one wording for both, so the log, the
//! summary and the pull-request comment say it alike.

use serde::{Deserialize, Serialize};

/// The suite's rows by what became of them. Every field defaults, so a
/// report from an older compare reads as no coverage at all.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Coverage {
    /// Rows measured on both sides.
    pub compared: u64,
    /// Rows that should have been compared: every row but those ignored
    /// by the config or not selected for this change.
    pub suite: u64,
    /// Not in a baseline whose run stopped short.
    pub absent: u64,
    /// Not in the baseline, whose run ended well: new benchmarks.
    pub new: u64,
    /// Without a valid value on a side (`not-comparable`, `skipped`).
    pub invalid: u64,
    /// In the baseline, missing from the change (these fail the gate).
    pub lost: u64,
    pub not_selected: u64,
    pub ignored: u64,
    /// Why the baseline's run stopped short, when it did.
    pub stopped: Option<String>,
    /// The share compared, percent, one decimal (`None` for an empty suite).
    pub pct: Option<f64>,
    /// The least share a pass needs (`--min-coverage`).
    pub min_pct: f64,
}

impl Coverage {
    /// `3 of 9 rows compared (33.3%); not compared: 6 absent from the
    /// baseline (its run failed with exit status 139), 1 not selected`.
    pub fn text(&self) -> String {
        let pct = self
            .pct
            .filter(|p| p.is_finite())
            .map(|p| format!(" ({p:.1}%)"))
            .unwrap_or_default();
        let mut why = Vec::new();
        if self.absent > 0 {
            let stopped = self.stopped.as_deref().unwrap_or("its run stopped");
            why.push(format!(
                "{} absent from the baseline ({stopped})",
                self.absent
            ));
        }
        for (n, what) in [
            (self.new, "new"),
            (self.invalid, "invalid (not-comparable or skipped)"),
            (self.lost, "lost"),
            (self.not_selected, "not selected"),
            (self.ignored, "ignored by the config"),
        ] {
            if n > 0 {
                why.push(format!("{n} {what}"));
            }
        }
        let rest = if why.is_empty() {
            String::new()
        } else {
            format!("; not compared: {}", why.join(", "))
        };
        format!(
            "{} of {} rows compared{pct}{rest}",
            self.compared, self.suite
        )
    }
}
