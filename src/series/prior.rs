//! What the other rows say about one row's noise. Five or ten runs tell a
//! row's run-to-run spread only roughly, and a band is a high quantile of
//! that rough estimate: with 4 degrees of freedom, Student's t at one in a
//! million is 60, so a row would need to move 60 times its spread to fail.
//! Rows of one suite, measured on one machine, have spreads of a family; the
//! empirical Bayes moderation of limma (Smyth 2004, "Linear models and
//! empirical Bayes methods for assessing differential expression in
//! microarray experiments", section 6.2, `fitFDist`) fits a scaled
//! inverse-chi-square prior to the rows' variances and gives each row the
//! weighted mean of its own variance and the prior's, with the degrees of
//! freedom of both. A suite of rows of very different spreads gets a prior
//! of few degrees of freedom (little moderation); a suite of similar rows, a
//! strong one.

use statrs::function::gamma::digamma;

/// A prior for the variances: `dof` pseudo-runs of variance `var`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior {
    pub dof: f64,
    pub var: f64,
}

/// At most this many prior degrees of freedom: a suite of identical rows
/// must still let each row's own runs count.
pub const MAX_DOF: f64 = 100.0;

impl Prior {
    /// Fits the prior to rows' (variance, degrees of freedom); `None` for
    /// fewer than three rows with a positive, finite variance.
    pub fn fit(rows: impl Iterator<Item = (f64, f64)>) -> Option<Prior> {
        let mut e = Vec::new();
        let mut tri = 0.0;
        for (var, dof) in rows {
            if var > 0.0 && var.is_finite() && dof >= 1.0 && dof.is_finite() {
                e.push(var.ln() - digamma(dof / 2.0) + (dof / 2.0).ln());
                tri += trigamma(dof / 2.0);
            }
        }
        if e.len() < 3 {
            return None;
        }
        let n = e.len() as f64;
        let mean = e.iter().sum::<f64>() / n;
        let spread = e.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) - tri / n;
        let dof = if spread > 0.0 {
            (2.0 * trigamma_inverse(spread)).min(MAX_DOF)
        } else {
            MAX_DOF
        };
        let var = (mean + digamma(dof / 2.0) - (dof / 2.0).ln()).exp();
        (var.is_finite() && var > 0.0).then_some(Prior { dof, var })
    }

    /// A row's variance and degrees of freedom, moderated.
    pub fn moderate(&self, var: f64, dof: f64) -> (f64, f64) {
        let total = self.dof + dof;
        ((self.dof * self.var + dof * var) / total, total)
    }
}

/// The trigamma function, psi'(x) for x > 0: the recurrence up to 10, then
/// the asymptotic series.
pub fn trigamma(x: f64) -> f64 {
    let (mut x, mut acc) = (x, 0.0);
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return f64::NAN;
    }
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let y = 1.0 / (x * x);
    acc + 1.0 / x + y / 2.0 + y / x * (1.0 / 6.0 - y * (1.0 / 30.0 - y * (1.0 / 42.0 - y / 30.0)))
}

/// psi''(x) for x > 0, for Newton's steps on the trigamma.
fn tetragamma(x: f64) -> f64 {
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 2.0 / (x * x * x);
        x += 1.0;
    }
    let y = 1.0 / (x * x);
    acc - y * (1.0 + 1.0 / x + y / 2.0 - y * y / 6.0 + y * y * y / 6.0 - 3.0 * y * y * y * y / 10.0)
}

/// The x > 0 with trigamma(x) = `v` (v > 0): Smyth's Newton iteration.
pub fn trigamma_inverse(v: f64) -> f64 {
    if v > 1e7 {
        return 1.0 / v.sqrt();
    }
    if v < 1e-6 {
        return 1.0 / v;
    }
    let mut y = 0.5 + 1.0 / v;
    for _ in 0..50 {
        let tri = trigamma(y);
        let step = tri * (1.0 - tri / v) / tetragamma(y);
        y += step;
        if !y.is_finite() || y <= 0.0 {
            return 1.0 / v;
        }
        if -step / y < 1e-8 {
            break;
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polygamma_values() {
        // psi'(1) = pi^2 / 6, psi'(1/2) = pi^2 / 2, psi''(1) = -2 zeta(3).
        let pi2 = std::f64::consts::PI.powi(2);
        assert!((trigamma(1.0) - pi2 / 6.0).abs() < 1e-10);
        assert!((trigamma(0.5) - pi2 / 2.0).abs() < 1e-10);
        assert!((tetragamma(1.0) + 2.0 * 1.202_056_903_159_594).abs() < 1e-9);
        for x in [0.05, 0.7, 3.0, 40.0] {
            assert!(
                (trigamma_inverse(trigamma(x)) / x - 1.0).abs() < 1e-6,
                "{x}"
            );
        }
    }

    /// Rows of one spread, each estimated from 4 degrees of freedom: the
    /// prior finds the spread and many degrees of freedom.
    #[test]
    fn a_family_of_like_rows_gives_a_strong_prior() {
        let mut state = 9u64;
        let mut normal = move || {
            let mut u = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
            };
            let (a, b) = (u(), u());
            (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
        };
        let rows: Vec<(f64, f64)> = (0..2000)
            .map(|_| {
                let v: f64 = (0..4).map(|_| (0.01 * normal()).powi(2)).sum::<f64>() / 4.0;
                (v, 4.0)
            })
            .collect();
        let prior = Prior::fit(rows.iter().copied()).unwrap();
        assert!(prior.dof > 30.0, "{prior:?}");
        assert!((prior.var.sqrt() / 0.01 - 1.0).abs() < 0.1, "{prior:?}");
        let (var, dof) = prior.moderate(0.0004, 4.0);
        assert!(var < 0.0004 && dof > 34.0);
    }

    /// Spreads from 0.1% to 20%: a weak prior, each row mostly its own.
    #[test]
    fn a_mixed_suite_gives_a_weak_prior() {
        let rows = (0..300).map(|i| ((0.001 * 1.02f64.powi(i)).powi(2), 4.0));
        let prior = Prior::fit(rows).unwrap();
        assert!(prior.dof < 2.0, "{prior:?}");
        assert_eq!(Prior::fit([(1.0, 4.0), (0.0, 4.0)].into_iter()), None);
    }
}
