//! The defaults of the benchmark description: the key columns, the
//! metrics, and the thresholds a row is judged by when nothing else is said.
//! compare's help text, `compare/action.yml` and docs/compare.md repeat them; a
//! test checks they agree.

/// Worse by more than this (percent) fails the gate.
pub const FAIL_THRESHOLD_PCT: f64 = 10.0;
/// Worse by more than this (percent) is a warning: the dashboard's red line.
pub const WARN_THRESHOLD_PCT: f64 = 3.0;
/// The same as fractions, as the comparison uses them.
pub const FAIL_THRESHOLD: f64 = FAIL_THRESHOLD_PCT / 100.0;
pub const WARN_THRESHOLD: f64 = WARN_THRESHOLD_PCT / 100.0;
/// With `--history`, the chance (percent) that a pull request changing
/// nothing fails on some row: the learned bands share it among the rows.
pub const FALSE_ALARMS_PCT: f64 = 1.0;
pub const FALSE_ALARMS: f64 = FALSE_ALARMS_PCT / 100.0;
/// The columns that name a benchmark row.
pub const KEYS: [&str; 3] = ["op", "shape", "dtype"];
/// The headline metric of a row: the first of these that holds a number,
/// with the unit the dashboard line shows. Higher is better for both.
pub const METRICS: [(&str, &str); 2] = [("tflops", "TFLOPS"), ("tbps", "TB/s")];
