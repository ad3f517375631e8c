//! How much of the suite a comparison covered, and why the rest was not
//! compared: a green job with no real comparison is the failure to avoid,
//! and a baseline whose run died after a third of the suite would
//! otherwise pass on that third. Pure: a comparison's counts in, the
//! report's [`Coverage`] (`contract::coverage`) out, with the warning and
//! the step output every form shows alike.

use super::verdict::{Class, Comparison};
pub use crate::contract::coverage::Coverage;

fn count(c: &Comparison<'_>, classes: &[Class]) -> u64 {
    let n: usize = classes.iter().map(|k| c.count(*k)).sum();
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The comparison's coverage.
pub fn of(c: &Comparison<'_>) -> Coverage {
    Coverage {
        compared: u64::try_from(c.compared()).unwrap_or(u64::MAX),
        suite: u64::try_from(c.suite()).unwrap_or(u64::MAX),
        absent: count(c, &[Class::Absent]),
        new: count(c, &[Class::New]),
        invalid: count(c, &[Class::NotComparable, Class::Skipped]),
        lost: count(c, &[Class::Lost]),
        not_selected: count(c, &[Class::NotSelected]),
        ignored: count(c, &[Class::Ignored]),
        stopped: c.stopped().map(str::to_owned),
        pct: c.coverage_pct().map(|p| (p * 10.0).round() / 10.0),
        min_pct: c.min_coverage(),
    }
}

/// The warning when the gate covered too little to pass.
pub fn warning(c: &Comparison<'_>, min: f64) -> Option<String> {
    let pct = c.coverage_pct().filter(|p| *p < min)?;
    Some(format!(
        "only {pct:.1}% of the suite was compared against {} ({} of {} rows, under --min-coverage {min}%): the verdict is inconclusive, not a pass",
        c.label,
        c.compared(),
        c.suite()
    ))
}

/// The `coverage` step output: the share, one decimal, or empty.
pub fn output(c: &Comparison<'_>) -> String {
    c.coverage_pct()
        .map(|p| format!("{p:.1}"))
        .unwrap_or_default()
}
