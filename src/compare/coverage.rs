//! How much of the suite a comparison covered, and why the rest was not
//! compared: the seed's failure was a green job with no real comparison,
//! and a baseline whose run died after a third of the suite would
//! otherwise pass on that third. Pure: counts in, a share and its reasons
//! out; every output form shows the same [`Coverage`].

use serde::Serialize;

use super::verdict::{Class, Comparison};

/// The default of `--min-coverage`: below half the suite, a pass is
/// inconclusive.
pub const DEFAULT_MIN_COVERAGE: f64 = 50.0;

/// The suite's rows by what became of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    /// Rows measured on both sides.
    pub compared: usize,
    /// Rows that should have been compared: every row but those ignored
    /// by the config or not selected for this change.
    pub suite: usize,
    /// Not in a baseline whose run stopped short.
    pub absent: usize,
    /// Not in the baseline, whose run ended well: new benchmarks.
    pub new: usize,
    /// Without a valid value on a side (`not-comparable`, `skipped`).
    pub invalid: usize,
    /// In the baseline, missing from the change (these fail the gate).
    pub lost: usize,
    pub not_selected: usize,
    pub ignored: usize,
    /// Why the baseline's run stopped short, when it did.
    pub stopped: Option<String>,
    #[serde(skip)]
    pct: Option<f64>,
}

impl Coverage {
    pub fn of(c: &Comparison<'_>) -> Coverage {
        Coverage {
            compared: c.compared(),
            suite: c.suite(),
            absent: c.count(Class::Absent),
            new: c.count(Class::New),
            invalid: c
                .count(Class::NotComparable)
                .saturating_add(c.count(Class::Skipped)),
            lost: c.count(Class::Lost),
            not_selected: c.count(Class::NotSelected),
            ignored: c.count(Class::Ignored),
            stopped: c.stopped().map(str::to_owned),
            pct: c.coverage_pct(),
        }
    }

    /// The share compared, in percent (`None` for an empty suite).
    pub fn pct(&self) -> Option<f64> {
        self.pct
    }

    /// `3 of 9 rows compared (33.3%); not compared: 6 absent from the
    /// baseline (its run failed with exit status 1), 1 not selected`.
    pub fn text(&self) -> String {
        let pct = self
            .pct()
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
            "coverage: {} of {} rows compared{pct}{rest}",
            self.compared, self.suite
        )
    }

    /// The warning when the gate covered too little to pass.
    pub fn warning(&self, label: &str, min: f64) -> Option<String> {
        let pct = self.pct().filter(|p| *p < min)?;
        Some(format!(
            "only {pct:.1}% of the suite was compared against {label} ({} of {} rows, under --min-coverage {min}%): the verdict is inconclusive, not a pass",
            self.compared, self.suite
        ))
    }

    /// The `coverage` step output: the share, one decimal, or empty.
    pub fn output(&self) -> String {
        self.pct().map(|p| format!("{p:.1}")).unwrap_or_default()
    }
}

/// The coverage as compare's JSON report writes it (each baseline's
/// `coverage`): the counts, the share and the minimum a pass needs.
#[derive(Debug, Serialize)]
pub struct CoverageJson {
    #[serde(flatten)]
    pub coverage: Coverage,
    /// The share compared, percent, one decimal (`null` for an empty suite).
    pub pct: Option<f64>,
    pub min_pct: f64,
}

impl CoverageJson {
    pub fn of(c: &Comparison<'_>) -> CoverageJson {
        let coverage = Coverage::of(c);
        CoverageJson {
            pct: coverage.pct().map(|p| (p * 10.0).round() / 10.0),
            min_pct: c.min_coverage(),
            coverage,
        }
    }
}
