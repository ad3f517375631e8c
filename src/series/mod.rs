//! Why `series`: a time series, the runs of one row in order; the
//! statistics of such series live here.
//!
//! A row's history as a series of runs, in log space (ratios: scaling a
//! file changes nothing), and what can be told from it: where its level
//! changed ([`segment`]), how far it moves from run to run within a level,
//! and whether it drifts ([`fit`]). Shared by `compare` (a row's noise
//! band) and `trend` (the change points of main's own history): one
//! implementation. Pure: numbers in, numbers out.

pub mod fit;
pub mod prior;
pub mod segment;
pub mod student;

/// The largest change (a fraction, a ratio less one) a result states.
/// Two positive finite values can be 1e616 times apart (1e308 against
/// 1e-308): their ratio, or its percentage, would be infinite, which JSON
/// writes as `null` and text as `inf%`. Beyond this bound, far beyond any
/// measurement, a change is stated as the bound: every threshold judges it
/// the same.
pub const MAX_CHANGE: f64 = 1e100;

/// `x` (a change or a ratio) within +-[`MAX_CHANGE`], so that every output
/// can state it.
pub fn bounded(x: f64) -> f64 {
    x.clamp(-MAX_CHANGE, MAX_CHANGE)
}

/// `e^x - 1` of a log step, [`bounded`]: a change in log space as a
/// fraction every output can state.
pub fn step_change(log_step: f64) -> f64 {
    bounded(log_step.exp_m1())
}

/// A level from its log, at most the largest double: a drift's line,
/// fitted in logs, can end beyond every run it was fitted to.
pub fn level_of(log: f64) -> f64 {
    log.exp().min(f64::MAX)
}

/// The median of `values` (`None` for none); `values` is reordered.
pub fn median_of(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    match (values.get(mid.wrapping_sub(1)), values.get(mid)) {
        (Some(a), Some(b)) if values.len().is_multiple_of(2) => Some((a + b) / 2.0),
        (_, Some(m)) => Some(*m),
        _ => None,
    }
}

/// The median of `values` and their robust spread about it (1.4826 times
/// the median absolute deviation: the standard deviation for normal
/// noise, and unmoved by a few wild runs); `None` for none.
pub fn robust(values: &[f64]) -> Option<(f64, f64)> {
    let mut sorted = values.to_vec();
    let median = median_of(&mut sorted)?;
    let mut deviations: Vec<f64> = values.iter().map(|v| (v - median).abs()).collect();
    Some((median, median_of(&mut deviations).unwrap_or(0.0) * 1.4826))
}

/// The mean of `values`, 0 for none.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let n = values.len() as f64;
    values.iter().sum::<f64>() / n
}

/// The natural logs of the values that are finite and positive, in order,
/// with their positions in `values` (a run with no value keeps its place).
pub fn logs(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut out = Vec::with_capacity(values.len());
    let mut at = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        if v.is_finite() && *v > 0.0 {
            out.push(v.ln());
            at.push(i);
        }
    }
    (out, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_logs() {
        assert_eq!(median_of(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median_of(&mut [4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median_of(&mut []), None);
        let (l, at) = logs(&[1.0, -1.0, f64::NAN, std::f64::consts::E]);
        assert_eq!(at, vec![0, 3]);
        assert!((l[1] - 1.0).abs() < 1e-12);
    }
}
