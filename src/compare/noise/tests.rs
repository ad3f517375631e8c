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

fn band(samples: &[f64]) -> Result<Band, NoBand> {
    learn(samples)?.band(0.001, 10.0)
}

#[test]
fn too_little_history_is_no_band() {
    assert_eq!(
        learn(&[1.0, 1.0, 1.0, 1.0]),
        Err(NoBand::TooFew { runs: 4 })
    );
    assert!(learn(&[1.0, 1.1, 0.9, 1.0, 1.05]).is_ok());
    assert_eq!(
        learn(&[1.0, 2.0, 0.0, -1.0]),
        Err(NoBand::TooFew { runs: 2 }),
        "only valid samples count"
    );
}

/// Issue 26 and 29: a history alternating 100/60 gave +-2681% and let a
/// 99% drop pass; values near the largest double gave +-inf. Two levels
/// are no band at all, and neither is a band that is not finite.
#[test]
fn two_levels_or_an_absurd_history_cannot_judge() {
    let alternating: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { 100.0 } else { 60.0 })
        .collect();
    match learn(&alternating) {
        Err(NoBand::TwoLevels {
            runs: 10,
            low,
            high,
        }) => {
            assert!((low - 60.0).abs() < 1e-9 && (high - 100.0).abs() < 1e-9);
        }
        other => panic!("{other:?}"),
    }
    let absurd: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { 1e308 } else { 1e-300 })
        .collect();
    assert!(learn(&absurd).is_err(), "{:?}", learn(&absurd));
    let wide = Noise {
        sigma: 5.0,
        dof: 3.0,
        level: 0.0,
        weight: 10.0,
        runs: 5,
        shifts: 0,
        excursions: [None, None],
        drift: 0.0,
    };
    assert!(matches!(
        wide.band(0.001, 5.0),
        Err(NoBand::Unusable { runs: 5, .. })
    ));
}

/// Found on pandas's suite (asv-runner, `time_get_loc_non_unique_sorted`):
/// three runs of ten, among the others, 3,000 times slower were dropped as
/// outliers and the other seven gave a band. Runs that land on two levels
/// in turn are two levels; one block of slow runs stays outliers.
#[test]
fn a_minority_level_in_turn_is_two_levels_and_a_block_is_not() {
    let pandas = [
        3.03e-5, 3.38e-5, 0.109, 3.1e-5, 0.0994, 2.99e-5, 3.62e-5, 3.26e-5, 0.0981, 3.45e-5,
    ];
    match learn(&pandas) {
        Err(NoBand::TwoLevels {
            runs: 10,
            low,
            high,
        }) => {
            assert!(
                (low - 3.26e-5).abs() < 1e-7 && (high - 0.0994).abs() < 1e-6,
                "{low} {high}"
            );
        }
        other => panic!("{other:?}"),
    }
    let mut z = normal(21);
    let block: Vec<f64> = [
        100.0, 100.0, 100.0, 108.0, 108.0, 108.0, 100.0, 100.0, 100.0, 100.0,
    ]
    .iter()
    .map(|v| v * (0.002 * z()).exp())
    .collect();
    let noise = learn(&block).unwrap();
    assert_eq!(noise.runs, 10);
    assert!(noise.sigma < 0.01, "{noise:?}");
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

/// The same noise, fewer runs: a wider band (Student's t).
#[test]
fn fewer_runs_mean_a_wider_band_for_the_same_noise() {
    let at = |dof: f64| {
        Noise {
            sigma: 0.01,
            dof,
            level: 0.0,
            weight: 10.0,
            runs: 10,
            shifts: 0,
            excursions: [None, None],
            drift: 0.0,
        }
        .band(0.001, 10.0)
        .unwrap()
        .log
    };
    let bands: Vec<f64> = (1..30).map(|d| at(f64::from(d))).collect();
    assert!(bands.windows(2).all(|w| w[0] > w[1]), "{bands:?}");
}

/// On Gaussian noise of relative size s, sigma estimates s.
#[test]
fn the_spread_tracks_the_noise_it_is_given() {
    let mut z = normal(42);
    for s in [0.005, 0.02, 0.1] {
        let mut total = 0.0;
        let n = 2000;
        for _ in 0..n {
            let runs: Vec<f64> = (0..10).map(|_| 100.0 * (s * z()).exp()).collect();
            total += learn(&runs).unwrap().sigma;
        }
        let mean = total / f64::from(n);
        assert!(
            (mean / s - 1.0).abs() < 0.15,
            "noise {s}: mean sigma {mean}"
        );
    }
}

/// Issue 29: past level shifts inflated the band (33-48% on a row with two
/// real changes). Within segments, the band is the quiet stretches'.
#[test]
fn a_level_shift_is_not_noise() {
    let mut z = normal(5);
    let mut runs: Vec<f64> = (0..20).map(|_| 100.0 * (0.01 * z()).exp()).collect();
    for r in runs.iter_mut().skip(7) {
        *r *= 0.8;
    }
    for r in runs.iter_mut().skip(14) {
        *r *= 1.3;
    }
    let noise = learn(&runs).unwrap();
    assert_eq!(noise.shifts, 2, "{noise:?}");
    assert!(noise.sigma < 0.02, "{noise:?}");
    assert!((noise.level - (104f64).ln()).abs() < 0.03, "{noise:?}");
}

/// Issue 29: a history drifting 2.5% per run gave a band of +-18%.
#[test]
fn a_drift_is_not_noise() {
    let mut z = normal(8);
    let runs: Vec<f64> = (0..10)
        .map(|i| 100.0 * (0.025 * f64::from(i) + 0.005 * z()).exp())
        .collect();
    let noise = learn(&runs).unwrap();
    assert!((noise.drift - 0.025).abs() < 0.005, "{noise:?}");
    // The runs spread 7.5% about their mean; about the line, near 1%.
    assert!(noise.sigma < 0.015, "{noise:?}");
    assert!(
        (noise.level - (100f64.ln() + 0.25)).abs() < 0.03,
        "{noise:?}"
    );
}

#[test]
fn scaling_changes_nothing() {
    let mut z = normal(7);
    let runs: Vec<f64> = (0..10).map(|_| 50.0 * (1.0 + 0.03 * z())).collect();
    let scaled: Vec<f64> = runs.iter().map(|v| v * 1234.5).collect();
    let (a, b) = (band(&runs).unwrap(), band(&scaled).unwrap());
    assert!((a.log - b.log).abs() < 1e-12);
}

#[test]
fn the_rate_is_shared_among_the_rows() {
    assert!((row_rate(0.01, 1) - 0.01).abs() < 1e-15);
    let each = row_rate(0.01, 100);
    assert!(
        (1.0 - (1.0 - each).powi(100) - 0.01).abs() < 1e-12,
        "{each}"
    );
    assert!(row_rate(0.01, 1_000_000) > 0.0);
}

#[test]
fn a_run_off_the_level_is_told() {
    let mut z = normal(3);
    let runs: Vec<f64> = (0..10).map(|_| 100.0 * (0.01 * z()).exp()).collect();
    let noise = learn(&runs).unwrap();
    assert_eq!(noise.off_level(100.0, 0.001), None);
    let off = noise.off_level(112.0, 0.001).unwrap();
    assert!((off - 0.12).abs() < 0.03, "{off}");
    assert!(noise.off_level(88.0, 0.001).unwrap() < 0.0);
}

/// A reference known from more runs is a narrower band; the baseline on
/// main's level counts with it.
#[test]
fn a_level_known_from_more_runs_is_a_narrower_band() {
    let mut z = normal(4);
    let runs: Vec<f64> = (0..10).map(|_| 100.0 * (0.01 * z()).exp()).collect();
    let noise = learn(&runs).unwrap();
    let one = noise.band(1e-4, 1.0).unwrap().log;
    let eleven = noise.band(1e-4, 11.0).unwrap().log;
    assert!(eleven < one * 0.75, "{one} {eleven}");
    let (level, weight) = noise.reference(&[noise.level.exp()]);
    assert!((level - noise.level).abs() < 1e-12 && (weight - 11.0).abs() < 1e-9);
}

/// Issue 29, pyperf's `json_loads` (ten runs of main before a 16%
/// slowdown): five runs climbing 12%, then five within 1.4% and 16%
/// below them. They were one level, with a spread of 6.9% (a band of
/// +36% at the suite's share, moderated), and the slowdown passed as
/// `noisy`. The step is a change point (the climb may be split too), and
/// the level is the last five runs'.
#[test]
fn a_step_after_a_drifting_stretch_is_a_change_point() {
    let history = [
        2.563, 2.507, 2.671, 2.81, 2.812, 2.346, 2.389, 2.382, 2.433, 2.382,
    ];
    let noise = learn(&history).unwrap();
    assert!(noise.shifts >= 1, "{noise:?}");
    assert!((noise.weight - 5.0).abs() < 1e-9, "{noise:?}");
    assert!((noise.level - 2.386f64.ln()).abs() < 0.005, "{noise:?}");
    assert!(noise.sigma < 0.025, "the spread within levels: {noise:?}");
}
