//! Within one level: how far the runs move, and whether they drift. A
//! straight line through a segment's runs (least squares) takes a slow
//! drift out of the noise, so a row that creeps 2.5% per run is not given
//! a band of 18%; the residuals about the lines of every segment, pooled,
//! are the run-to-run noise. Gross outliers (further than [`CUT`] robust
//! deviations from the median of the whole history, before it is split
//! into levels) are left out first: one run 60% off on a cloud machine
//! must not make a row unjudgeable.

use super::median_of;

/// Runs further than this many robust deviations (1.4826 x the median
/// absolute deviation) from the median of the runs they are among are
/// outliers. Asked once of the whole history, before its levels are
/// found. Asked again within each level, it left pvlib's figures as they
/// were and cost pyperf's re-run flow one slowdown caught (BENCHMARKS.md,
/// "The verdict on real noise").
pub const CUT: f64 = 8.0;

/// A straight line through one segment, at positions 0, 1, ... of its runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub intercept: f64,
    /// Change per run (log).
    pub slope: f64,
    /// Sum of squared residuals.
    pub rss: f64,
    /// Runs the line was fitted to.
    pub n: usize,
    /// Sum of (x - mean x)^2, for the uncertainty of a prediction.
    pub sxx: f64,
    /// Mean position.
    pub mean_x: f64,
}

impl Line {
    pub fn fit(xs: &[f64], ys: &[f64]) -> Option<Line> {
        let n = xs.len().min(ys.len());
        if n == 0 {
            return None;
        }
        let nf = n as f64;
        let mean_x = xs.iter().take(n).sum::<f64>() / nf;
        let mean_y = ys.iter().take(n).sum::<f64>() / nf;
        let sxx: f64 = xs.iter().take(n).map(|x| (x - mean_x).powi(2)).sum();
        let sxy: f64 = xs
            .iter()
            .zip(ys)
            .map(|(x, y)| (x - mean_x) * (y - mean_y))
            .sum();
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let intercept = mean_y - slope * mean_x;
        let rss = xs
            .iter()
            .zip(ys)
            .map(|(x, y)| (y - intercept - slope * x).powi(2))
            .sum();
        Some(Line {
            intercept,
            slope,
            rss,
            n,
            sxx,
            mean_x,
        })
    }

    pub fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }

    /// Degrees of freedom the residuals carry: n - 2.
    pub fn dof(&self) -> usize {
        self.n.saturating_sub(2)
    }
}

/// `values` split in order into the runs kept and those set aside as
/// further than [`CUT`] robust deviations from their median.
pub fn kept(values: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let Some((median, spread)) = super::robust(values) else {
        return (Vec::new(), Vec::new());
    };
    values
        .iter()
        .partition(|v| (**v - median).abs() <= CUT * spread)
}

/// Two levels in one segment, alternating or mixed (a row that lands on
/// one of two machines, or two code paths): the largest gap between sorted
/// values is wider than eight times the spread on either side, and each
/// side holds at least two runs and a quarter of them. `Some((low, high))`,
/// the medians of the two sides.
pub fn two_levels(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    if n < 4 {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (at, gap) = sorted
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            (
                i.saturating_add(1),
                w.get(1).copied().unwrap_or(0.0) - w.first().copied().unwrap_or(0.0),
            )
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let (low, high) = sorted.split_at(at);
    let least = (n.saturating_add(3) / 4).max(2);
    if low.len() < least || high.len() < least || gap < 0.0488 {
        return None;
    }
    let spread =
        |side: &[f64]| side.last().copied().unwrap_or(0.0) - side.first().copied().unwrap_or(0.0);
    if gap <= 8.0 * spread(low).max(spread(high)) {
        return None;
    }
    let (mut l, mut h) = (low.to_vec(), high.to_vec());
    Some((median_of(&mut l)?, median_of(&mut h)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drift_is_a_line_not_noise() {
        let xs: Vec<f64> = (0..10).map(f64::from).collect();
        let ys: Vec<f64> = xs.iter().map(|x| 0.025 * x).collect();
        let line = Line::fit(&xs, &ys).unwrap();
        assert!((line.slope - 0.025).abs() < 1e-12 && line.rss < 1e-20);
        assert_eq!(line.dof(), 8);
        assert!((line.at(10.0) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn two_levels_are_told_from_noise() {
        let alternating: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 100f64.ln() } else { 60f64.ln() })
            .collect();
        let (l, h) = two_levels(&alternating).unwrap();
        assert!((l.exp() - 60.0).abs() < 1e-9 && (h.exp() - 100.0).abs() < 1e-9);
        let quiet: Vec<f64> = (0..10).map(|i| 0.001 * f64::from(i % 3)).collect();
        assert_eq!(two_levels(&quiet), None);
        let mut one_off = vec![0.0; 10];
        one_off[4] = 0.5;
        assert_eq!(
            two_levels(&one_off),
            None,
            "one run is an outlier, not a level"
        );
    }

    #[test]
    fn outliers_are_left_out() {
        let mut v = vec![1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0];
        v[3] = 5.0;
        let (k, aside) = kept(&v);
        assert_eq!(k.len(), 6);
        assert_eq!(aside, [5.0], "the run at position 3 alone");
    }
}
