//! How much a row moves from run to run when nothing changed, learned from
//! the history of the gate baseline's branch (`--history`: past runs, in
//! run order). Pure: samples in, a band out.
//!
//! The estimator, in log space (ratios, so scaling a file changes nothing):
//!
//! 1. Gross outliers go: a run further than [`CUT`] robust deviations
//!    (1.4826 x the median absolute deviation) from the median is dropped.
//!    Real no-change repeats have heavy tails (single runs 20-60% off on
//!    cloud machines); one such run must not make a row unjudgeable.
//! 2. Successive differences `d[i] = ln(h[i+1] / h[i])` of the runs kept:
//!    each is itself a "one run against one run" change, exactly what the
//!    gate compares, and a level shift (a real change a few runs back) is
//!    one large difference, not a wide spread. Measured on a real GPU
//!    benchmark history: a plain standard deviation over the last 5 runs
//!    misses 6 of 30 real slowdowns of more than 10%, successive
//!    differences 1.
//! 3. The largest difference is dropped (a level shift the first step did
//!    not remove), and the root mean square of the rest times a multiplier
//!    for the number of runs kept ([`multiplier`]) is the band.
//!
//! The multipliers were chosen by simulation (the noise mix of the
//! motivating repository, see BENCHMARKS.md section 8): at ten runs the
//! band sits near 5.2 standard deviations of a run-to-run change, wide
//! enough that a suite of 65 rows raises a false alarm in about 1% of pull
//! requests that change nothing, while a quiet row still catches a
//! regression of a few percent; with fewer runs the estimate is poorer, and
//! the multiplier grows so that a row's chance of a false alarm stays the
//! same. rustc-perf sets its significance threshold from an IQR fence over
//! recent changes; on ten runs that fence leaked (a false alarm in 15% of
//! simulated no-change pull requests with `auto`), so the spread here is
//! the trimmed root mean square, which uses every difference.

/// A row's run-to-run noise band: a ratio, as the noise is multiplicative.
/// A value within a factor of `e^log` of the baseline, either way, is
/// explained by noise; so a fall is noise down to `1 - e^-log` (never 100%:
/// a large enough drop always fails) and a rise up to `e^log - 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// The band in log space (natural log of the ratio), finite.
    pub log: f64,
    /// The history runs it was learned from (valid samples of the row).
    pub runs: usize,
}

impl Band {
    /// The largest fall (a fraction) noise explains: `1 - e^-log`.
    pub fn fall(&self) -> f64 {
        -(-self.log).exp_m1()
    }

    /// The largest rise (a fraction) noise explains: `e^log - 1`.
    pub fn rise(&self) -> f64 {
        self.log.exp_m1()
    }
}

/// Why a row's history gives no band: the configured threshold judges it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoBand {
    /// Fewer than [`MIN_RUNS`] valid samples (after outliers): `runs` there were.
    TooFew { runs: usize },
    /// A band whose fall reaches [`NEVER_FAIL`], or not a number: with it
    /// the row could never fail (a higher-is-better value falls at most
    /// 100%), so this history cannot judge the row. `band` is its rise.
    Unusable { runs: usize, band: f64 },
}

/// A band this wide (a fraction) or wider would let no drop fail the row:
/// a higher-is-better value falls at most 100%, to zero.
pub const NEVER_FAIL: f64 = 1.0;

/// Fewer valid history samples than this (after outliers are dropped): no
/// band, the configured threshold alone applies (and the row says so).
pub const MIN_RUNS: usize = 5;

/// Runs further than this many robust deviations from the median are
/// outliers, not noise.
pub const CUT: f64 = 8.0;

/// The multiplier on the trimmed root mean square of the differences of
/// `runs` runs, from 5 to 20 (and the value at 20 above): chosen by
/// simulation so that a row's chance of a false alarm is the same whatever
/// the number of runs, 7 in 10,000 (5.2 standard deviations at ten runs).
const MULTIPLIERS: [f64; 16] = [
    18.36, 12.05, 9.37, 8.03, 7.29, 6.51, 6.03, 5.68, 5.49, 5.30, 5.08, 4.95, 4.79, 4.66, 4.55,
    4.48,
];

/// The multiplier for `runs` runs (`None` below [`MIN_RUNS`]).
pub fn multiplier(runs: usize) -> Option<f64> {
    let at = runs.checked_sub(MIN_RUNS)?;
    MULTIPLIERS.get(at).or(MULTIPLIERS.last()).copied()
}

/// The band of a row from its history samples (valid values, run order),
/// or why there is none.
pub fn band(samples: &[f64]) -> Result<Band, NoBand> {
    let logs: Vec<f64> = samples
        .iter()
        .filter(|v| v.is_finite() && **v > 0.0)
        .map(|v| v.ln())
        .collect();
    let kept = without_outliers(&logs);
    let Some(factor) = multiplier(kept.len()) else {
        return Err(NoBand::TooFew { runs: logs.len() });
    };
    let mut diffs: Vec<f64> = kept
        .windows(2)
        .filter_map(|w| match w {
            [a, b] => Some((b - a).abs()),
            _ => None,
        })
        .collect();
    diffs.sort_by(f64::total_cmp);
    diffs.pop();
    #[allow(clippy::cast_precision_loss, reason = "a few dozen differences")]
    let rms = (diffs.iter().map(|d| d * d).sum::<f64>() / diffs.len().max(1) as f64).sqrt();
    let band = Band {
        log: factor * rms,
        runs: logs.len(),
    };
    if !band.log.is_finite() || band.fall() >= NEVER_FAIL {
        return Err(NoBand::Unusable {
            runs: band.runs,
            band: band.rise(),
        });
    }
    Ok(band)
}

/// `logs` without the runs further than [`CUT`] robust deviations from
/// their median, in order.
fn without_outliers(logs: &[f64]) -> Vec<f64> {
    let Some(median) = median(logs) else {
        return Vec::new();
    };
    let deviations: Vec<f64> = logs.iter().map(|v| (v - median).abs()).collect();
    let spread = median_of(deviations).unwrap_or(0.0) * 1.4826;
    logs.iter()
        .copied()
        .filter(|v| (v - median).abs() <= CUT * spread)
        .collect()
}

fn median(values: &[f64]) -> Option<f64> {
    median_of(values.to_vec())
}

fn median_of(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    match (values.get(mid.wrapping_sub(1)), values.get(mid)) {
        (Some(a), Some(b)) if values.len().is_multiple_of(2) => Some((a + b) / 2.0),
        (_, Some(m)) => Some(*m),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic normal samples (Box-Muller on an xorshift).
    pub fn normal(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed | 1;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        move || {
            let (u, v) = (uniform(), uniform());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        }
    }

    #[test]
    fn too_little_history_is_no_band() {
        assert_eq!(band(&[1.0, 1.0, 1.0, 1.0]), Err(NoBand::TooFew { runs: 4 }));
        assert!(band(&[1.0; 5]).is_ok());
        assert_eq!(
            band(&[1.0, 2.0, 0.0, -1.0]),
            Err(NoBand::TooFew { runs: 2 }),
            "only valid samples count"
        );
    }

    /// Issue 26: a history alternating 100/60 gave +-2681% and let a 99%
    /// drop pass; one of values near the largest double gave +-inf. A band
    /// is a ratio: its fall stays below 100% (a large enough drop fails),
    /// and one that reaches it, or is not finite, is no band at all.
    #[test]
    fn a_band_that_could_never_fail_is_unusable() {
        let alternating: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 100.0 } else { 60.0 })
            .collect();
        let wide = band(&alternating).unwrap();
        assert!(wide.rise() > 10.0, "{wide:?}");
        assert!(wide.fall() < 0.99, "a 99% drop is beyond it: {wide:?}");
        let absurd: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 1e308 } else { 1e-300 })
            .collect();
        assert!(
            matches!(band(&absurd), Err(NoBand::Unusable { runs: 10, .. })),
            "{:?}",
            band(&absurd)
        );
    }

    #[test]
    fn identical_runs_have_no_noise() {
        assert_eq!(band(&[3.5; 10]).unwrap().log, 0.0);
    }

    #[test]
    fn a_wild_outlier_widens_the_band_by_a_bounded_amount() {
        let mut z = normal(11);
        let runs: Vec<f64> = (0..10).map(|_| 100.0 * (0.01 * z()).exp()).collect();
        let quiet = band(&runs).unwrap().log;
        for spike in [1.6, 0.4, 1000.0, 1e-6] {
            let mut with = runs.clone();
            with[4] *= spike;
            let wider = band(&with).unwrap().log;
            assert!(wider <= quiet * 1.5 + 1e-9, "{spike}: {quiet} -> {wider}");
        }
    }

    #[test]
    fn fewer_runs_mean_a_wider_band_for_the_same_noise() {
        assert!(multiplier(4).is_none());
        let m: Vec<f64> = (5..25).map(|n| multiplier(n).unwrap()).collect();
        assert!(m.windows(2).all(|w| w[0] >= w[1]), "{m:?}");
    }

    /// On Gaussian noise of relative size s, the band is near 5.2 s√2 on
    /// average over many histories of ten runs.
    #[test]
    fn the_band_tracks_the_noise_it_is_given() {
        let mut z = normal(42);
        for s in [0.005, 0.02, 0.1] {
            let mut total = 0.0;
            let n = 2000;
            for _ in 0..n {
                let runs: Vec<f64> = (0..10).map(|_| 100.0 * (s * z()).exp()).collect();
                total += band(&runs).unwrap().rise();
            }
            let mean = total / f64::from(n);
            let expected = (5.2 * s * std::f64::consts::SQRT_2).exp_m1();
            assert!(
                (mean / expected - 1.0).abs() < 0.25,
                "noise {s}: mean band {mean}, expected about {expected}"
            );
        }
    }

    #[test]
    fn a_level_shift_is_not_noise() {
        let mut runs = vec![100.0; 7];
        runs.extend([80.0, 80.0, 80.0]);
        assert_eq!(band(&runs).unwrap().log, 0.0);
    }

    #[test]
    fn scaling_changes_nothing() {
        let mut z = normal(7);
        let runs: Vec<f64> = (0..10).map(|_| 50.0 * (1.0 + 0.03 * z())).collect();
        let scaled: Vec<f64> = runs.iter().map(|v| v * 1234.5).collect();
        let (a, b) = (band(&runs).unwrap(), band(&scaled).unwrap());
        assert!((a.log - b.log).abs() < 1e-12);
    }
}
