//! The decision on simulated pull requests (fixed seeds): the false-alarm
//! rate over all rows and all looks under heavy-tailed noise, the power by
//! effect size, and the properties a verdict must keep.

use super::*;

/// SplitMix64: a small, seeded generator, so every figure here is the same
/// on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// Student's t with 3 degrees of freedom, scaled to unit variance:
    /// heavy tails (the kurtosis is infinite).
    fn heavy(&mut self) -> f64 {
        let chi: f64 = (0..3).map(|_| self.normal().powi(2)).sum();
        self.normal() / (chi / 3.0).sqrt() / 3f64.sqrt()
    }
}

const FAIL: f64 = 0.10;

fn row(worse: Vec<f64>) -> RowRounds {
    RowRounds {
        round: (0..worse.len()).collect(),
        worse,
        fail: (1.0 + FAIL).ln(),
        better: (1.0 + FAIL).ln(),
        warn: (1.03f64).ln(),
    }
}

fn settings() -> Settings {
    Settings {
        false_alarms: 0.01,
        schedule: Schedule {
            rounds: 3,
            max_rounds: 20,
        },
    }
}

/// A suite of `rows` rows on one machine: each row's spread drawn from
/// 0.5% to 5% (log-uniform), each round's noise heavy-tailed, and with a
/// 2% chance a round of one side is hit by a spike of 5-30% (a neighbour,
/// a page fault storm). `effect(i)` is row i's true change (log, worse).
fn suite(rng: &mut Rng, rows: usize, effect: impl Fn(usize) -> f64) -> Vec<RowRounds> {
    (0..rows)
        .map(|i| {
            let spread = (0.005f64.ln() + rng.uniform() * (10f64).ln()).exp();
            let worse = (0..20)
                .map(|_| {
                    let mut d = effect(i) + spread * rng.heavy();
                    if rng.uniform() < 0.02 {
                        let spike = 0.05 + 0.25 * rng.uniform();
                        d += if rng.uniform() < 0.5 { spike } else { -spike };
                    }
                    d
                })
                .collect();
            row(worse)
        })
        .collect()
}

#[test]
fn pull_requests_changing_nothing_fail_at_most_at_the_rate() {
    let mut rng = Rng(48);
    let prs = 10_000;
    let mut failed = 0;
    let mut rounds = 0usize;
    let mut rows_seen = 0usize;
    for _ in 0..prs {
        let rows = suite(&mut rng, 30, |_| 0.0);
        let decisions = decide(&rows, &settings());
        if decisions.iter().any(|d| d.class == Class::Regressed) {
            failed += 1;
        }
        rounds += decisions.iter().map(|d| d.rounds).sum::<usize>();
        rows_seen += decisions.len();
    }
    let rate = failed as f64 / prs as f64;
    assert!(rate <= 0.01, "{failed} of {prs} pull requests failed");
    let mean_rounds = rounds as f64 / rows_seen as f64;
    assert!(mean_rounds < 6.0, "{mean_rounds} rounds per row");
}

/// The share of rows of a true change `effect` (a fraction, worse) caught
/// as regressed, in suites where only that row changed.
fn power(effect: f64, seed: u64) -> f64 {
    let mut rng = Rng(seed);
    let trials = 400;
    let caught = (0..trials)
        .filter(|_| {
            let rows = suite(
                &mut rng,
                30,
                |i| if i == 0 { (1.0 + effect).ln() } else { 0.0 },
            );
            decide(&rows, &settings())
                .first()
                .is_some_and(|d| d.class == Class::Regressed)
        })
        .count();
    caught as f64 / trials as f64
}

#[test]
fn power_grows_with_the_effect() {
    let curve: Vec<f64> = [0.05, 0.10, 0.15, 0.25, 0.50]
        .iter()
        .map(|e| power(*e, 7))
        .collect();
    assert!(curve.windows(2).all(|w| w[0] <= w[1] + 0.02), "{curve:?}");
    assert!(curve[0] < 0.1, "{curve:?}");
    assert!(curve[2] >= 0.95, "15%: {curve:?}");
    assert!(curve[3] >= 0.99, "25%: {curve:?}");
}

#[test]
fn a_larger_effect_never_turns_a_regression_into_a_pass() {
    let mut rng = Rng(3);
    for _ in 0..200 {
        let rows = suite(&mut rng, 10, |_| 0.0);
        let base = decide(&rows, &settings());
        for (i, d) in base.iter().enumerate() {
            if d.class != Class::Regressed {
                continue;
            }
            let mut larger = rows.clone();
            for w in &mut larger[i].worse {
                *w += 0.05;
            }
            assert_eq!(decide(&larger, &settings())[i].class, Class::Regressed);
        }
    }
    // And a row made worse step by step only moves towards regressed.
    let noise = [0.01, -0.02, 0.015, 0.0, -0.01, 0.02];
    let mut last = 0;
    for step in 0..40 {
        let shift = f64::from(step) * 0.01;
        let rows = vec![row(noise.iter().map(|n| n + shift).collect())];
        let rank = match decide(&rows, &settings())[0].class {
            Class::Improved | Class::Unchanged => 0,
            Class::Warned => 1,
            Class::Noisy => 2,
            Class::Regressed => 3,
            other => panic!("{other:?}"),
        };
        assert!(
            rank >= last || rank == 2,
            "step {step}: {rank} after {last}"
        );
        last = last.max(rank);
    }
    assert_eq!(last, 3);
}

#[test]
fn one_more_identical_round_never_widens_the_interval() {
    let mut rng = Rng(11);
    for _ in 0..300 {
        let n = 2 + (rng.next() % 15) as usize;
        let mut values: Vec<f64> = (0..n).map(|_| 0.02 * rng.normal()).collect();
        let mean = values.iter().sum::<f64>() / n as f64;
        let width = |v: &[f64]| {
            let s = stats(v, 1.0, None);
            s.interval().map(|(l, h)| h - l)
        };
        let before = width(&values);
        values.push(mean);
        let after = width(&values);
        match (before, after) {
            (Some(b), Some(a)) => assert!(a <= b + 1e-12, "{a} > {b}"),
            (None, _) => {}
            (Some(_), None) => panic!("the interval vanished"),
        }
    }
}

#[test]
fn every_estimate_and_interval_is_finite() {
    let odd = [
        vec![],
        vec![0.0],
        vec![0.0, 0.0, 0.0],
        vec![1e300, -1e300, 0.0],
        vec![0.3, 0.3, 0.3],
        vec![-0.3; 20],
    ];
    let rows: Vec<RowRounds> = odd.iter().cloned().map(row).collect();
    for d in decide(&rows, &settings()) {
        assert!(d.estimate.is_finite(), "{d:?}");
        if let Some((l, h)) = d.interval {
            assert!(l.is_finite() && h.is_finite() && l <= h, "{d:?}");
        }
    }
    let d = decide(&rows, &settings());
    // Three identical rounds 35% worse: certain, and beyond the threshold.
    assert_eq!(d[4].class, Class::Regressed);
    assert_eq!(d[5].class, Class::Improved);
    // Nothing to go on: in doubt, and more rounds could tell.
    assert_eq!((d[0].class, d[0].rerun), (Class::Noisy, true));
}

#[test]
fn a_row_in_doubt_at_the_cap_stays_noisy_without_rerun() {
    // Twenty rounds that swing 40% either way around +10%.
    let worse: Vec<f64> = (0..20)
        .map(|i| 0.1 + if i % 2 == 0 { 0.4 } else { -0.4 })
        .collect();
    let d = decide(&[row(worse.clone())], &settings());
    assert_eq!(
        (d[0].class, d[0].rerun, d[0].rounds),
        (Class::Noisy, false, 20)
    );
    // The same row after three rounds: in doubt, and worth more rounds.
    let d = decide(&[row(worse[..3].to_vec())], &settings());
    assert_eq!(
        (d[0].class, d[0].rerun, d[0].rounds),
        (Class::Noisy, true, 3)
    );
}

#[test]
fn the_same_rounds_give_the_same_decisions() {
    let mut rng = Rng(5);
    let rows = suite(&mut rng, 30, |i| if i < 3 { 0.2 } else { 0.0 });
    assert_eq!(decide(&rows, &settings()), decide(&rows, &settings()));
}

#[test]
fn one_wild_row_among_quiet_ones_does_not_fail_by_chance() {
    let mut rng = Rng(99);
    let prs = 10_000;
    let mut failed = 0;
    for _ in 0..prs {
        let rows: Vec<RowRounds> = (0..30)
            .map(|i| {
                let spread = if i == 0 { 0.10 } else { 0.01 };
                row((0..20).map(|_| spread * rng.heavy()).collect())
            })
            .collect();
        if decide(&rows, &settings())
            .iter()
            .any(|d| d.class == Class::Regressed)
        {
            failed += 1;
        }
    }
    assert!(failed as f64 / prs as f64 <= 0.01, "{failed} of {prs}");
}

/// A burst that slowed one side of one round on every row (the machine
/// busy for that side's run, seen a few times in 40 real rounds) is the
/// round's, not the rows': it neither fails the unchanged rows nor keeps
/// them in doubt, and the rows that did change are still caught at once.
#[test]
fn a_burst_on_one_side_of_a_round_neither_fails_nor_hides_a_change() {
    let mut rng = Rng(5);
    let mut rows = suite(&mut rng, 20, |i| if i < 3 { 0.25f64.ln_1p() } else { 0.0 });
    for r in &mut rows {
        if let Some(v) = r.worse.get_mut(1) {
            *v += 0.7;
        }
    }
    let d = decide(&rows, &settings());
    for (i, d) in d.iter().enumerate() {
        if i < 3 {
            assert_eq!((d.class, d.rounds), (Class::Regressed, 3), "row {i}: {d:?}");
        } else {
            assert_ne!(d.class, Class::Regressed, "row {i}: {d:?}");
        }
    }
    let at_once = d.iter().skip(3).filter(|d| d.rounds == 3).count();
    assert!(
        at_once >= 12,
        "{at_once} of 17 unchanged rows decided at the first look"
    );
}

/// A burst that hit some rows of one side of one round (the last
/// benchmarks of a side's run) is set aside for those rows: it fails none
/// of them, and they are still decided at the first look.
#[test]
fn a_burst_on_some_rows_of_one_round_is_set_aside_for_them() {
    let mut rng = Rng(11);
    let mut rows = suite(&mut rng, 20, |_| 0.0);
    for r in rows.iter_mut().skip(15) {
        if let Some(v) = r.worse.get_mut(2) {
            *v += 0.4;
        }
    }
    let d = decide(&rows, &settings());
    assert!(d.iter().all(|d| d.class != Class::Regressed), "{d:?}");
    let at_once = d.iter().skip(15).filter(|d| d.rounds == 3).count();
    assert!(
        at_once >= 4,
        "{at_once} of the 5 burst rows decided at the first look: {d:?}"
    );
}

/// The suite's prior for spreads is learned from the rounds each row is
/// judged on, its outlying rounds set aside: a burst that hit a quarter of
/// the rows in one round (the last benchmarks of one side's run) would
/// otherwise read as rows of a wildly different spread, the prior would
/// say rows share nothing (under two degrees of freedom on real rounds),
/// and every row would be judged on its own three rounds alone, so that
/// even a 25% slowdown waited for more rounds.
#[test]
fn a_burst_on_some_rows_leaves_the_suite_prior_its_strength() {
    let mut rng = Rng(23);
    let mut rows: Vec<RowRounds> = (0..20)
        .map(|i| {
            let effect = if i == 0 { 0.25f64.ln_1p() } else { 0.0 };
            row((0..3).map(|_| effect + 0.02 * rng.normal()).collect())
        })
        .collect();
    for r in rows.iter_mut().skip(15) {
        if let Some(v) = r.worse.get_mut(1) {
            *v -= 0.7;
        }
    }
    let d = decide(&rows, &settings());
    assert_eq!(
        (d[0].class, d[0].rounds),
        (Class::Regressed, 3),
        "the slowed row: {:?}",
        d[0]
    );
    assert!(
        d.iter().skip(1).all(|d| d.class != Class::Regressed),
        "{d:?}"
    );
}
