//! How much a row moves from run to run when nothing changed, learned from
//! the history of the gate baseline's branch (`--history`: past runs, in
//! run order). Pure: samples in, a band out.
//!
//! The estimator works on successive log ratios `d[i] = ln(h[i+1] / h[i])`
//! and sets the band at the upper IQR fence of their magnitude spread,
//! `max(|Q1 - K*IQR|, |Q3 + K*IQR|)`, as rustc-perf sets its significance
//! threshold from an IQR fence over recent changes. Why this one:
//!
//! - A successive difference is itself a "one run against one run" change:
//!   exactly the comparison the gate makes (one current run against one
//!   baseline run), so no √2 or distribution is assumed.
//! - A real change a few runs back (a level shift) is one large difference
//!   among many small ones: quartiles ignore it, where a standard deviation
//!   over the runs would be inflated by the step (measured on a real GPU
//!   history: the standard deviation misses 6 of 30 real slowdowns of more
//!   than 10%, successive differences 1).
//! - Ratios make it scale-free: a file scaled by any factor gives the same
//!   band.
//!
//! `K = 3` puts the fence at 4.7 standard deviations of Gaussian noise: wide
//! enough that ten runs (nine differences, a poor estimate of spread) do not
//! make it leak across the rows of a suite; see BENCHMARKS.md for the
//! simulation that chose it.

/// A row's run-to-run noise band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// A change (fraction, either way) within this is explained by noise.
    pub fraction: f64,
    /// The history runs it was learned from.
    pub runs: usize,
}

/// Fewer valid history samples than this: no band, the configured
/// threshold alone applies (and the row says so).
pub const MIN_RUNS: usize = 5;

/// The fence factor on the interquartile range.
pub const K: f64 = 3.0;

/// The band of a row from its history samples (valid values, run order),
/// or `None` with fewer than [`MIN_RUNS`].
pub fn band(samples: &[f64]) -> Option<Band> {
    if samples.len() < MIN_RUNS {
        return None;
    }
    let mut diffs: Vec<f64> = samples
        .windows(2)
        .filter_map(|w| match w {
            [a, b] if *a > 0.0 && *b > 0.0 => Some((b / a).ln()),
            _ => None,
        })
        .collect();
    diffs.sort_by(f64::total_cmp);
    let (q1, q3) = (quantile(&diffs, 0.25)?, quantile(&diffs, 0.75)?);
    let iqr = q3 - q1;
    let log_band = (q3 + K * iqr).abs().max((q1 - K * iqr).abs());
    Some(Band {
        fraction: log_band.exp_m1(),
        runs: samples.len(),
    })
}

/// Linear interpolation between order statistics (R's type 7).
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    #[allow(clippy::cast_precision_loss, reason = "a few dozen samples")]
    let position = q * last as f64;
    let below = position.floor();
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "0 <= position <= last"
    )]
    let i = below as usize;
    let lo = *sorted.get(i)?;
    let hi = *sorted.get(i.saturating_add(1)).unwrap_or(&lo);
    Some(lo + (hi - lo) * (position - below))
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
        assert_eq!(band(&[1.0, 1.0, 1.0, 1.0]), None);
        assert!(band(&[1.0; 5]).is_some());
    }

    #[test]
    fn identical_runs_have_no_noise() {
        assert_eq!(band(&[3.5; 10]).unwrap().fraction, 0.0);
    }

    /// On Gaussian noise of relative size s, the band is near 4.7 s√2 on
    /// average over many histories of ten runs.
    #[test]
    fn the_band_tracks_the_noise_it_is_given() {
        let mut z = normal(42);
        for s in [0.005, 0.02, 0.1] {
            let mut total = 0.0;
            let n = 2000;
            for _ in 0..n {
                let runs: Vec<f64> = (0..10).map(|_| 100.0 * (1.0 + s * z())).collect();
                total += band(&runs).unwrap().fraction;
            }
            let mean = total / f64::from(n);
            let expected = (4.72 * s * std::f64::consts::SQRT_2).exp_m1();
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
        assert_eq!(band(&runs).unwrap().fraction, 0.0);
    }

    #[test]
    fn scaling_changes_nothing() {
        let mut z = normal(7);
        let runs: Vec<f64> = (0..10).map(|_| 50.0 * (1.0 + 0.03 * z())).collect();
        let scaled: Vec<f64> = runs.iter().map(|v| v * 1234.5).collect();
        let (a, b) = (band(&runs).unwrap(), band(&scaled).unwrap());
        assert!((a.fraction - b.fraction).abs() < 1e-12);
    }
}
