//! Several runs of each side that are not paired rounds (main's uploaded
//! artifacts, runs on several machines): a two-sample test on the logs of
//! the runs, whose power grows with every run, instead of asking every
//! run of the change to be worse than every run of the baseline (a rule
//! that catches less with every run added: one run of ten that lands
//! well clears the row).
//!
//! Welch's statistic with each side's variance moderated by the suite's
//! (the same empirical Bayes prior as the paired verdict: with two or three
//! runs a side, a row's own spread is barely known, and the rows of a suite
//! measured together have spreads of a family). A row regresses when its
//! median is worse than the fail threshold and the runs show it at the
//! row's share of `--false-alarms`. Pure.
//!
//! With main's history, and every run of the baseline on the level it
//! predicts, the change's runs are tested against that level instead
//! ([`against_level`]): the history's last level and the baseline's runs
//! are one reference known from all of them, and the row's spread is the
//! history's (ten runs or more, within its levels, moderated by the
//! suite's rows) pooled with the change's own runs, where Welch's test
//! knew each side's spread from two or three runs. The threshold is then
//! the configured one: one run's band is the test of one run, and asking
//! it of a mean known better demanded too much (pvlib's VM: three runs a
//! side 15-18% slower on rows of 1.5-4% spread were `noisy` within bands
//! of 15-48%). Measured on the public histories in BENCHMARKS.md ("The
//! unpaired flows beside the oracle").

use super::samples::Samples;
use super::{BASELINE, CURRENT, Comparison};
use crate::series::prior::Prior;
use crate::series::student;

/// Both sides' runs of a row: the difference of their mean logs (signed,
/// negative worse) and the chances of so much worse, or so much better,
/// if nothing changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoSample {
    /// The change the test judges (a fraction, negative worse): the
    /// medians' for Welch's test, the runs' mean against the level for
    /// [`against_level`].
    pub change: f64,
    pub difference: f64,
    pub p_worse: f64,
    pub p_better: f64,
    pub runs: (usize, usize),
    /// The change's runs were tested against main's level (the baseline's
    /// runs pooled into it), not against the baseline's runs alone.
    pub against_level: bool,
}

/// The mean and variance of the logs of a side's runs, and its degrees of
/// freedom (runs less one).
fn log_moments(values: &[f64]) -> Option<(f64, f64, f64)> {
    let logs: Vec<f64> = values
        .iter()
        .filter(|v| **v > 0.0 && v.is_finite())
        .map(|v| v.ln())
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let n = logs.len() as f64;
    let mean = logs.iter().sum::<f64>() / n;
    let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((mean, var, n - 1.0))
}

/// The pooled variance of a row's two sides and its degrees of freedom.
fn pooled(base: &[f64], cur: &[f64]) -> Option<(f64, f64)> {
    let (_, vb, db) = log_moments(base)?;
    let (_, vc, dc) = log_moments(cur)?;
    let dof = db + dc;
    Some(((db * vb + dc * vc) / dof, dof))
}

/// The suite's prior for spreads, from every row with two or more runs on
/// each side (each side read on the baseline's metric).
pub fn prior(comparison: &Comparison<'_>) -> Option<Prior> {
    Prior::fit((0..comparison.join.len()).filter_map(|slot| {
        let metric = comparison
            .join
            .rows(slot, BASELINE)
            .find_map(|r| r.measure())?
            .0;
        let side = |group| -> Vec<f64> {
            comparison
                .join
                .rows(slot, group)
                .filter_map(|r| r.value(metric))
                .collect()
        };
        pooled(&side(BASELINE), &side(CURRENT))
    }))
}

/// The test for a row with two or more runs on each side, judging the
/// medians' `change`; `None` otherwise.
pub fn test(
    base: &Samples,
    cur: &Samples,
    (change, sign): (f64, f64),
    prior: Option<Prior>,
) -> Option<TwoSample> {
    let (b, c) = (base.samples(), cur.samples());
    let (mb, _, _) = log_moments(b)?;
    let (mc, _, _) = log_moments(c)?;
    let (var, dof) = pooled(b, c)?;
    let (var, dof) = match prior {
        Some(p) => p.moderate(var, dof),
        None => (var, dof),
    };
    let se = (var * (1.0 / b.len() as f64 + 1.0 / c.len() as f64)).sqrt();
    let difference = (mc - mb) * sign;
    let (p_worse, p_better) = chances(difference, se, dof);
    Some(TwoSample {
        change,
        difference,
        p_worse,
        p_better,
        runs: (b.len(), c.len()),
        against_level: false,
    })
}

/// The chances of a difference this much worse, and this much better, if
/// nothing changed, for a standard error `se` known to `dof` degrees of
/// freedom.
fn chances(difference: f64, se: f64, dof: f64) -> (f64, f64) {
    if se > 0.0 && se.is_finite() {
        let t = difference / se;
        (student::upper_tail(-t, dof), student::upper_tail(t, dof))
    } else if difference < 0.0 {
        (0.0, 1.0)
    } else if difference > 0.0 {
        (1.0, 0.0)
    } else {
        (1.0, 1.0)
    }
}

/// The row's spread from its history (`sigma`, to `dof` degrees of
/// freedom) pooled with the spread of the change's own runs: runs that
/// disagree among themselves (a slow night among them) widen what their
/// mean is allowed, as they would in Welch's test.
pub fn pooled_with(cur: &Samples, sigma: f64, dof: f64) -> (f64, f64) {
    match log_moments(cur.samples()) {
        Some((_, var, d)) => {
            let total = dof + d;
            (((dof * sigma * sigma + d * var) / total).sqrt(), total)
        }
        None => (sigma, dof),
    }
}

/// The baseline's runs are pooled with the history's level only when
/// their mean sits on it at this two-sided chance: a generous test, as
/// pooling is what lets the change's runs fail, and a baseline that fails
/// it is still judged, against its own runs. Measured on pvlib's VM
/// (BENCHMARKS.md): at the row's share of the rate instead, a baseline
/// that wandered 13% was pooled and an unchanged row failed.
pub const POOL_RATE: f64 = 0.05;

/// Whether the baseline's runs (`base`, values), each already within
/// noise of the history's `level` (log, known from `weight` runs), sit on
/// it together: their mean within Student's t at [`POOL_RATE`] of it, for
/// one run's spread `sigma` known to `dof` degrees of freedom. Runs each
/// within their band may still sit off it together (pvlib's numba row:
/// three runs of main 13% above a level of 3.5% spread): main wandered,
/// and the old level must not be pooled with them.
pub fn sits_on(base: &[f64], level: f64, weight: f64, (sigma, dof): (f64, f64)) -> bool {
    let Some((mean, _, _)) = log_moments(base) else {
        return false;
    };
    let runs = base.iter().filter(|v| **v > 0.0 && v.is_finite()).count() as f64;
    let se = sigma * (1.0 / runs + 1.0 / weight.max(1.0)).sqrt();
    (mean - level).abs() <= student::quantile(POOL_RATE / 2.0, dof) * se
}

/// Several runs of the change against main's level: the mean of their
/// logs against `level` (the history's last level pooled with the
/// baseline's runs, known from `weight` runs), its standard error from the
/// spread `sigma` (to `dof` degrees of freedom) of one run about the
/// level. `None` for fewer than two valid runs.
pub fn against_level(
    cur: &Samples,
    level: f64,
    weight: f64,
    (sigma, dof): (f64, f64),
    sign: f64,
) -> Option<TwoSample> {
    let (mean, _, _) = log_moments(cur.samples())?;
    let n = cur.samples().len();
    let se = sigma * (1.0 / n as f64 + 1.0 / weight.max(1.0)).sqrt();
    let difference = (mean - level) * sign;
    let (p_worse, p_better) = chances(difference, se, dof);
    Some(TwoSample {
        change: difference.exp_m1(),
        difference,
        p_worse,
        p_better,
        runs: (0, n),
        against_level: true,
    })
}
