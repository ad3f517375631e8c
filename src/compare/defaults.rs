//! Every default of `compare`, in one place (the thresholds, keys and
//! metrics are the config's, re-exported). The help text,
//! `compare/action.yml` and docs/compare.md repeat them for their readers; a
//! test checks they agree.

pub use crate::config::defaults::{
    FAIL_THRESHOLD, FAIL_THRESHOLD_PCT, FALSE_ALARMS, FALSE_ALARMS_PCT, KEYS, METRICS,
    WARN_THRESHOLD, WARN_THRESHOLD_PCT,
};

/// With `--fail-threshold auto`, a row's band decides, but never below
/// this: a band learned from ten runs can be too tight by chance, and a
/// quiet row's 5% is still half the default (chosen by the simulation of
/// BENCHMARKS.md section 8: false alarms on no-change pull requests fell
/// from 2.0% to 1.0% against a floor at the warn threshold, 3%).
pub const AUTO_FLOOR: f64 = 0.05;
/// The most input files one comparison reads (current, baselines and
/// history together), and the most bytes they hold together: the ground
/// floor's limits, which `trend` keeps too.
pub use crate::table::files::{MAX_FILES, MAX_TOTAL_BYTES};
