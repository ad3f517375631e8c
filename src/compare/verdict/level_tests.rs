//! The test of several runs of the change against main's level
//! ([`against_level`]), pure: its chances are probabilities, and a larger
//! drop is never likelier noise. The verdict through it is tested in
//! tests/integration/unpaired_level.rs.

use super::samples::Samples;
use super::two_sample::against_level;
use proptest::prelude::*;

fn samples(values: &[f64]) -> Samples {
    Samples::of(values).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A larger effect never turns a regression into a pass: the chance of
    /// so much worse only falls as the runs fall further below the level,
    /// and every chance is a probability.
    #[test]
    fn a_larger_drop_is_never_likelier_noise(
        runs in prop::collection::vec(0.5f64..2.0, 2..6),
        more in 0.0f64..0.5,
        sigma in 0.001f64..0.3,
        dof in 1.0f64..40.0,
        weight in 1.0f64..20.0,
    ) {
        let worse: Vec<f64> = runs.iter().map(|v| v * (1.0 - more)).collect();
        let a = against_level(&samples(&runs), 0.0, weight, (sigma, dof), 1.0).unwrap();
        let b = against_level(&samples(&worse), 0.0, weight, (sigma, dof), 1.0).unwrap();
        prop_assert!(b.p_worse <= a.p_worse + 1e-12, "{a:?} {b:?}");
        prop_assert!(b.change <= a.change + 1e-12);
        for p in [a.p_worse, a.p_better, b.p_worse, b.p_better] {
            prop_assert!((0.0..=1.0).contains(&p));
        }
    }

}
