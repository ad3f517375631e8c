//! Every default of `compare`, in one place. The help text, `compare/action.yml`
//! and the README repeat them for their readers; a test checks they agree.

/// Worse by more than this (percent) fails the gate.
pub const FAIL_THRESHOLD_PCT: f64 = 10.0;
/// Worse by more than this (percent) is a warning: the dashboard's red line.
pub const WARN_THRESHOLD_PCT: f64 = 3.0;
/// The same as fractions, as the comparison uses them.
pub const FAIL_THRESHOLD: f64 = FAIL_THRESHOLD_PCT / 100.0;
pub const WARN_THRESHOLD: f64 = WARN_THRESHOLD_PCT / 100.0;
/// With `--fail-threshold auto`, a row's band decides, but never below
/// this: a band learned from ten runs can be too tight by chance, and a
/// quiet row's 5% is still half the default (chosen by the simulation of
/// BENCHMARKS.md section 8: false alarms on no-change pull requests fell
/// from 2.0% to 1.0% against a floor at the warn threshold, 3%).
pub const AUTO_FLOOR: f64 = 0.05;
/// The most input files one comparison reads (current, baselines and
/// history together), so that thousands of files cannot exhaust threads
/// or descriptors.
pub const MAX_FILES: usize = 1000;
/// The most bytes all input files of one comparison may hold together
/// (each file at most 64 MiB).
pub const MAX_TOTAL_BYTES: u64 = 512 * 1024 * 1024;
/// The columns that name a benchmark row.
pub const KEYS: [&str; 3] = ["op", "shape", "dtype"];
/// The headline metric of a row: the first of these that holds a number,
/// with the unit the dashboard line shows. Higher is better for both.
pub const METRICS: [(&str, &str); 2] = [("tflops", "TFLOPS"), ("tbps", "TB/s")];
