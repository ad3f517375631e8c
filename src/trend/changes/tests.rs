use super::*;

/// `judge` on a history where `None` is a run without the row.
fn judge_runs(values: &[Option<f64>], sign: f64, min_change: f64) -> Judged {
    let present: Vec<(usize, f64)> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .collect();
    judge(&present, sign, min_change)
}

/// A fixed-seed generator (xorshift64*), so every simulation is the same.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-12), self.next());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// `n` runs around `level` with log-normal noise of `sigma`.
fn noisy(rng: &mut Rng, n: usize, level: f64, sigma: f64) -> Vec<Option<f64>> {
    (0..n)
        .map(|_| Some(level * (sigma * rng.normal()).exp()))
        .collect()
}

const HIGHER: f64 = 1.0;
const LOWER: f64 = -1.0;

#[test]
fn a_flat_history_has_at_most_one_false_change_point_per_1000_row_runs() {
    let mut rng = Rng(0x5eed_2026);
    let (rows, runs) = (200, 200);
    let mut false_points = 0;
    for row in 0..rows {
        // The suite's noise mix: most rows quiet, some loud.
        let sigma = [0.005, 0.01, 0.02, 0.03][row % 4];
        let judged = judge_runs(&noisy(&mut rng, runs, 100.0, sigma), HIGHER, 0.05);
        false_points += judged.changes.len();
    }
    let per_1000 = false_points as f64 * 1000.0 / (rows * runs) as f64;
    assert!(
        per_1000 <= 1.0,
        "{false_points} false change points: {per_1000} per 1,000"
    );
}

#[test]
fn a_step_is_found_at_its_run_with_its_levels_and_stays_persistent() {
    let mut rng = Rng(7);
    let mut values = noisy(&mut rng, 120, 100.0, 0.01);
    values.extend(noisy(&mut rng, 80, 80.0, 0.01));
    let judged = judge_runs(&values, HIGHER, 0.05);
    assert_eq!(judged.changes.len(), 1, "{judged:?}");
    let c = judged.changes[0];
    assert!(c.run.abs_diff(120) <= 1, "{c:?}");
    assert_eq!(c.kind, Kind::Persistent);
    assert!((c.change + 0.2).abs() < 0.01, "{c:?}");
    assert!((c.before - 100.0).abs() < 1.0 && (c.after - 80.0).abs() < 1.0);
    assert!(c.before_spread < 0.02 && c.is_regression());
}

/// (run, kind, is a regression) of each change.
fn kinds(judged: &Judged) -> Vec<(usize, Kind, bool)> {
    judged
        .changes
        .iter()
        .map(|c| (c.run, c.kind, c.is_regression()))
        .collect()
}

/// Issue 49: a step that came back within [`HOLD`] runs is one change,
/// transient; its return is not listed apart as an improvement.
#[test]
fn a_step_that_came_back_within_hold_runs_is_one_transient_change() {
    let mut rng = Rng(11);
    let mut values = noisy(&mut rng, 30, 10.0, 0.01);
    values.extend(noisy(&mut rng, 3, 200.0, 0.01));
    values.extend(noisy(&mut rng, 30, 10.0, 0.01));
    let judged = judge_runs(&values, LOWER, 0.05);
    assert_eq!(kinds(&judged), [(30, Kind::Transient, true)]);
}

/// Issue 49: telco 20 times slower for six runs, then fixed. The level
/// held [`HOLD`] runs: the regression is persistent (it landed, and stayed
/// a week of nightly runs), and its fix a persistent improvement. Before,
/// a step followed by a second one that undid it was `transient` however
/// long it held, because the kind was read off the last run.
#[test]
fn a_step_that_held_and_the_step_that_undid_it_are_both_persistent() {
    let mut rng = Rng(11);
    let mut values = noisy(&mut rng, 30, 10.0, 0.01);
    values.extend(noisy(&mut rng, 6, 200.0, 0.01)); // telco: 20 times slower
    values.extend(noisy(&mut rng, 30, 10.0, 0.01));
    let judged = judge_runs(&values, LOWER, 0.05);
    assert_eq!(
        kinds(&judged),
        [(30, Kind::Persistent, true), (36, Kind::Persistent, false)]
    );
}

/// Issue 49: a 13% step two runs from the start, then a slow move back
/// in two small steps (4% and 3%, as pyperf's `deepcopy` did). The
/// strongest split of the history was the slow move, too small to count,
/// and the search stopped there: the step was never looked for.
#[test]
fn a_step_two_runs_from_the_start_is_found_at_its_run() {
    let mut rng = Rng(23);
    let mut values = noisy(&mut rng, 2, 113.0, 0.01);
    values.extend(noisy(&mut rng, 6, 100.0, 0.01));
    values.extend(noisy(&mut rng, 10, 104.0, 0.01));
    values.extend(noisy(&mut rng, 40, 107.0, 0.01));
    let judged = judge_runs(&values, LOWER, 0.05);
    let first = judged.changes.first().copied();
    assert!(
        first.is_some_and(|c| c.run == 2 && c.kind == Kind::Persistent && !c.is_regression()),
        "{judged:?}"
    );
}

/// Issue 49: eight runs 12% slower in the middle of 200 noisy ones (3%),
/// then back. Over the whole history its two sides balance, so no split of
/// it was significant and the search stopped; the seeded search of its
/// halves, quarters, ... finds both steps at their runs.
#[test]
fn a_step_undone_by_a_second_one_in_a_long_noisy_history_is_found() {
    let mut rng = Rng(29);
    let mut values = noisy(&mut rng, 100, 100.0, 0.03);
    values.extend(noisy(&mut rng, 8, 88.0, 0.03));
    values.extend(noisy(&mut rng, 92, 100.0, 0.03));
    let judged = judge_runs(&values, HIGHER, 0.05);
    let found = kinds(&judged);
    assert_eq!(found.len(), 2, "{judged:?}");
    assert!(found[0].0.abs_diff(100) <= 1 && found[0].2, "{found:?}");
    assert!(found[1].0.abs_diff(108) <= 1 && !found[1].2, "{found:?}");
    assert!(found.iter().all(|f| f.1 == Kind::Persistent), "{found:?}");
}

#[test]
fn a_single_odd_run_is_an_outlier_not_a_change() {
    let mut rng = Rng(3);
    let mut values = noisy(&mut rng, 60, 50.0, 0.01);
    values[40] = Some(150.0);
    let judged = judge_runs(&values, HIGHER, 0.05);
    assert!(judged.changes.is_empty(), "{judged:?}");
    assert_eq!(judged.outliers, [40]);
}

#[test]
fn a_creep_of_two_percent_per_run_over_ten_runs_is_a_drift() {
    let mut rng = Rng(5);
    for start in [0usize, 20] {
        let mut values = noisy(&mut rng, start, 100.0, 0.005);
        values
            .extend((0..10).map(|i| Some(100.0 * 0.98f64.powi(i) * (0.005 * rng.normal()).exp())));
        // Alone, and after 20 flat runs: a drift from the run it starts at.
        let judged = judge_runs(&values, HIGHER, 0.05);
        assert_eq!(judged.changes.len(), 1, "{judged:?}");
        let c = judged.changes[0];
        assert_eq!((c.kind, c.run), (Kind::Drift, start), "{c:?}");
        assert!((c.change + 0.166).abs() < 0.03, "{c:?}");
    }
}

/// Found by the fuzzer (`trend_judge`): a drift's line, fitted in logs, can
/// end beyond every run it was fitted to, and near the largest double its
/// level was `inf`. Every level, spread and change is finite.
#[test]
fn a_drift_from_the_largest_double_states_finite_levels() {
    let mut rng = Rng(7);
    for draw in 0..20 {
        let values: Vec<Option<f64>> = (0..12)
            .map(|i| Some((f64::MAX.ln() - 0.3 * f64::from(i) - 0.02 * rng.normal().abs()).exp()))
            .collect();
        for c in judge_runs(&values, HIGHER, 0.05).changes {
            let all = [c.before, c.after, c.before_spread, c.after_spread, c.change];
            assert!(all.iter().all(|v| v.is_finite()), "draw {draw}: {c:?}");
        }
    }
}

#[test]
fn lower_is_better_turns_a_rise_into_a_regression() {
    let mut rng = Rng(13);
    let mut values = noisy(&mut rng, 40, 1.0, 0.01);
    values.extend(noisy(&mut rng, 40, 1.31, 0.01)); // time_aoi +31%
    let judged = judge_runs(&values, LOWER, 0.05);
    let c = judged.changes[0];
    assert!(c.is_regression() && (c.change + 0.31).abs() < 0.02, "{c:?}");
}

#[test]
fn a_step_under_min_change_is_not_reported() {
    let mut rng = Rng(17);
    let mut values = noisy(&mut rng, 50, 100.0, 0.002);
    values.extend(noisy(&mut rng, 50, 97.0, 0.002));
    assert!(judge_runs(&values, HIGHER, 0.05).changes.is_empty());
    assert_eq!(judge_runs(&values, HIGHER, 0.02).changes.len(), 1);
}

#[test]
fn missing_runs_keep_their_places_and_too_few_runs_say_nothing() {
    let mut rng = Rng(19);
    let mut values = noisy(&mut rng, 30, 100.0, 0.01);
    values.extend(noisy(&mut rng, 30, 70.0, 0.01));
    for i in (0..60).step_by(7) {
        values[i] = None;
    }
    let judged = judge_runs(&values, HIGHER, 0.05);
    assert_eq!(judged.changes[0].run, 30, "{judged:?}");
    assert_eq!(judged.runs, 60 - 9);
    assert_eq!(
        judge_runs(&[Some(1.0), Some(9.0), None], HIGHER, 0.05),
        Judged {
            runs: 2,
            ..Judged::default()
        }
    );
    let hostile = [
        Some(f64::NAN),
        Some(-1.0),
        Some(f64::INFINITY),
        Some(0.0),
        Some(1e308),
    ];
    assert!(judge_runs(&hostile, HIGHER, 0.05).changes.is_empty());
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Scaling a row (another unit) changes no change point, kind or
        /// percentage; every change is finite.
        #[test]
        fn scale_free(
            values in proptest::collection::vec(0.5f64..2.0, 4..80),
            step in 0usize..80,
            factor in 0.001f64..1000.0,
        ) {
            let series: Vec<Option<f64>> = values
                .iter()
                .enumerate()
                .map(|(i, v)| Some(if i >= step { v * 3.0 } else { *v }))
                .collect();
            let scaled: Vec<Option<f64>> = series.iter().map(|v| v.map(|v| v * factor)).collect();
            let (a, b) = (judge_runs(&series, HIGHER, 0.05), judge_runs(&scaled, HIGHER, 0.05));
            prop_assert_eq!(a.changes.len(), b.changes.len());
            for (x, y) in a.changes.iter().zip(&b.changes) {
                prop_assert_eq!((x.run, x.kind), (y.run, y.kind));
                prop_assert!((x.change - y.change).abs() < 1e-6);
                prop_assert!(x.change.is_finite() && x.before.is_finite() && x.after.is_finite());
            }
        }
    }
}
