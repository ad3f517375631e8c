//! The Student t distribution, for the change-point test and the noise
//! bands: a level estimated from a few runs is uncertain, and a band from
//! ten runs must be wider than one from a hundred for the same chance of a
//! false alarm. From `statrs`; a degree of freedom below 1 or a value that
//! is not a number gives the most cautious answer (no evidence, the widest
//! band).

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Whether `dof` is a usable degree of freedom (at least 1; NaN is not).
fn usable(dof: f64) -> bool {
    dof >= 1.0
}

/// P(T > t) for `dof` degrees of freedom: 1 when nothing can be said.
pub fn upper_tail(t: f64, dof: f64) -> f64 {
    if t.is_nan() || !usable(dof) {
        return 1.0;
    }
    if t == f64::INFINITY {
        return 0.0;
    }
    match StudentsT::new(0.0, 1.0, dof) {
        Ok(d) => d.sf(t).clamp(0.0, 1.0),
        Err(_) => 1.0,
    }
}

/// The t with P(T > t) = `p` for `dof` degrees of freedom; infinite when
/// `dof` is below 1 or `p` is not in (0, 1).
pub fn quantile(p: f64, dof: f64) -> f64 {
    if !(p > 0.0 && p < 1.0 && usable(dof)) {
        return f64::INFINITY;
    }
    match StudentsT::new(0.0, 1.0, dof) {
        Ok(d) => d.inverse_cdf(1.0 - p),
        Err(_) => f64::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Tables: t(0.975, 10) = 2.228, t(0.995, 5) = 4.032.
        assert!((quantile(0.025, 10.0) - 2.228).abs() < 1e-3);
        assert!((quantile(0.005, 5.0) - 4.032).abs() < 1e-3);
        assert!((upper_tail(2.228, 10.0) - 0.025).abs() < 1e-4);
        assert_eq!(quantile(0.01, 0.0), f64::INFINITY);
        assert_eq!(upper_tail(f64::NAN, 3.0), 1.0);
        assert_eq!(upper_tail(f64::INFINITY, 3.0), 0.0);
    }
}
