//! The noise-aware verdict: thresholds learned from main's history.
//! The simulation's targets (BENCHMARKS.md section 8 runs it with 2,000
//! pull requests per scenario), properties of the learned thresholds, and
//! `--history` end to end with files that are missing, partial or
//! malformed (a warning and a fallback, never a failure by itself).

use std::path::Path;

use baseline_resolver::compare::noise::{self as learned, NEVER_FAIL, NoBand};
use baseline_resolver::compare::verdict::{Origin, Sides, compare};
use baseline_resolver::config::{Config, FailThreshold, Thresholds};
use baseline_resolver::contract::class::{Class, Verdict};
use baseline_resolver::table::Table;
use baseline_resolver::table::read::parse;
use proptest::prelude::*;

use crate::compare::{Bench, against_main, csv, line, suite, write};
use crate::support::harness::Bin;
use crate::support::simulation::{self, Random, Suite};

/// The targets, on 500 simulated pull requests per scenario (fixed seed).
#[test]
fn the_simulation_meets_its_targets() {
    let rates = simulation::scenarios(500, 0x7e57);
    let rate = |name: &str| {
        rates
            .iter()
            .find(|r| r.name.starts_with(name))
            .unwrap_or_else(|| panic!("{name}"))
            .fraction()
    };
    let fixed = rate("no change, 10% with history");
    let caught = rate("one quiet row 20% slower");
    let auto = rate("no change, auto");
    let very_quiet = rate("one very quiet row");
    let without = rate("no change, 10% without history");
    assert!(fixed <= 0.02, "false alarms with history: {fixed}");
    assert!(caught >= 0.95, "a quiet row 20% slower caught: {caught}");
    assert!(auto <= 0.02, "false alarms with auto: {auto}");
    assert!(
        very_quiet >= 0.90,
        "a very quiet row 8% slower caught with auto: {very_quiet}"
    );
    assert!(
        without > 0.5,
        "without history a fixed 10% fails most no-change PRs: {without}"
    );
}

fn table(values: &[f64]) -> Table {
    let mut text = String::from("op,shape,dtype,tflops,status\n");
    for (i, v) in values.iter().enumerate() {
        text.push_str(&format!("op{i},{i}x1,bf16,{v},ok\n"));
    }
    let c = Config::default();
    parse(Path::new("t.csv"), text.as_bytes(), &c.keys, &c.metrics).unwrap()
}

/// Compares `cur` with `base` over `history` and returns each row's class
/// and the fail threshold it was judged by.
fn judge(
    base: &[f64],
    cur: &[f64],
    history: &[Vec<f64>],
    fail: FailThreshold,
) -> (Verdict, Vec<(Class, f64)>) {
    let (verdict, rows) = judge_runs(&[base.to_vec()], &[cur.to_vec()], history, fail);
    (verdict, rows.into_iter().map(|r| (r.0, r.1)).collect())
}

/// As [`judge`], with several runs (files) a side: each row's class, the
/// fail threshold it was judged by and its reason.
pub fn judge_runs(
    base: &[Vec<f64>],
    cur: &[Vec<f64>],
    history: &[Vec<f64>],
    fail: FailThreshold,
) -> (Verdict, Vec<(Class, f64, Option<String>)>) {
    let tables = |runs: &[Vec<f64>]| -> Vec<Table> { runs.iter().map(|v| table(v)).collect() };
    let (b, c, h) = (tables(base), tables(cur), tables(history));
    let config = Config::default();
    let sides = Sides {
        label: "main".to_owned(),
        baseline: &b,
        current: &c,
        history: &h,
        unselected: &[],
        unavailable: None,
        paired: None,
    };
    let thresholds = Thresholds {
        fail,
        ..Thresholds::default()
    };
    let comparison = compare(sides, &config, thresholds);
    let rows = comparison
        .rows()
        .map(|r| (r.class, r.applied.map_or(f64::NAN, |a| a.fail), r.reason))
        .collect();
    (comparison.verdict(), rows)
}

fn values() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(1.0f64..1000.0, 1..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A history of identical runs holds no noise: no row's threshold
    /// grows past the configured one.
    #[test]
    fn identical_history_never_widens_a_threshold(
        base in values(),
        change in prop::collection::vec(0.5f64..1.5, 12),
        runs in 5usize..12,
    ) {
        let cur: Vec<f64> = base.iter().zip(&change).map(|(b, c)| b * c).collect();
        let history = vec![base.clone(); runs];
        let (_, rows) = judge(&base, &cur, &history, FailThreshold::Fixed(0.10));
        for (_, fail) in rows {
            prop_assert!((fail - 0.10).abs() < 1e-12, "{fail}");
        }
    }

    /// Issue 29: a run of main identical to the median of its history
    /// (added as the latest run) never widens the row's band: it is no
    /// evidence of noise. For a history of one level, as here: where noise
    /// happened to lean enough to pass for a drift (1 history in 100 at the
    /// drift test's level), the new run can take the drift away and the
    /// band becomes that of the flat level, wider.
    #[test]
    fn a_run_at_the_median_never_widens_a_band(
        seed in any::<u64>(),
        runs in 5usize..16,
        spread in 0.001f64..0.3,
    ) {
        let mut r = Random::new(seed);
        let history: Vec<f64> = (0..runs).map(|_| 100.0 * (spread * r.normal()).exp()).collect();
        let band = |h: &[f64]| -> Option<f64> {
            let noise = learned::learn(h).ok()?;
            noise.band(1e-4, noise.weight + 1.0).ok().map(|b| b.log)
        };
        let mut sorted = history.clone();
        sorted.sort_by(f64::total_cmp);
        let mut with = history.clone();
        with.push(median(sorted));
        let flat = learned::learn(&history).is_ok_and(|n| n.drift == 0.0 && n.shifts == 0);
        if let (true, Some(before), Some(after)) = (flat, band(&history), band(&with)) {
            prop_assert!(after <= before + 1e-12, "{before} -> {after}");
        }
    }

    /// A band is never non-finite, and its fall stays below 100%: a
    /// history that would give one is no band, and says why.
    #[test]
    fn a_band_is_never_non_finite(
        history in prop::collection::vec(
            prop::sample::select(vec![1e-300, 1e-9, 0.5, 1.0, 60.0, 100.0, 1e9, 1e300, f64::MAX]),
            0..14,
        ),
        p in prop::sample::select(vec![1e-12, 1e-6, 0.01, 0.5]),
    ) {
        match learned::learn(&history) {
            Ok(noise) => match noise.band(p, noise.weight + 1.0) {
                Ok(band) => prop_assert!(band.log.is_finite() && band.fall() < NEVER_FAIL),
                Err(why) => {
                    let unusable = matches!(why, NoBand::Unusable { .. });
                    prop_assert!(unusable, "{:?}", why);
                }
            },
            Err(NoBand::TooFew { .. } | NoBand::TwoLevels { .. } | NoBand::Unusable { .. }) => {}
        }
    }

    /// Whatever its history, a row fails by a large enough drop (its
    /// threshold, learned or configured, is below 100%).
    #[test]
    fn a_large_enough_drop_always_fails(
        history in prop::collection::vec(prop::collection::vec(1e-6f64..1e6, 1), 0..14),
        auto in any::<bool>(),
    ) {
        let fail = if auto { FailThreshold::Auto } else { FailThreshold::Fixed(0.10) };
        let (verdict, rows) = judge(&[100.0], &[1e-9], &history, fail);
        prop_assert_eq!(verdict, Verdict::Regression, "{:?}", rows);
        prop_assert!(rows[0].1 < 1.0);
    }

    /// Every file scaled by the same factor: the same verdict, the same
    /// class for every row (thresholds are learned from ratios).
    #[test]
    fn scaling_every_file_changes_no_verdict(seed in any::<u64>(), f in 0.01f64..100.0) {
        let mut r = Random::new(seed);
        let s = Suite::draw(&mut r);
        let run = |r: &mut Random| -> Vec<f64> {
            s.values.iter().zip(&s.noise).map(|(v, n)| v * (n * r.normal()).exp()).collect()
        };
        let history: Vec<Vec<f64>> = (0..10).map(|_| run(&mut r)).collect();
        let (base, cur) = (run(&mut r), run(&mut r));
        let scale = |v: &[f64]| -> Vec<f64> { v.iter().map(|x| x * f).collect() };
        let scaled_history: Vec<Vec<f64>> = history.iter().map(|h| scale(h)).collect();
        for fail in [FailThreshold::Fixed(0.10), FailThreshold::Auto] {
            let (v1, rows1) = judge(&base, &cur, &history, fail);
            let (v2, rows2) = judge(&scale(&base), &scale(&cur), &scaled_history, fail);
            prop_assert_eq!(v1, v2);
            let classes = |rows: &[(Class, f64)]| rows.iter().map(|r| r.0).collect::<Vec<_>>();
            prop_assert_eq!(classes(&rows1), classes(&rows2));
        }
    }
}

/// Ten history runs in `dir/history` where row `wild` strays 25% from run
/// to run and the others 0.1%, a partial run (five rows) and a malformed
/// one (no key column).
fn write_history_with_a_wild_row(dir: &Path, rows: &[Bench], wild: usize) {
    let value = |i: usize, b: &Bench, k: usize| -> f64 {
        if i == wild {
            b.value * [1.0, 1.3, 0.8, 1.2, 0.75, 1.25, 0.85, 1.1, 0.7, 1.0][k % 10]
        } else {
            b.value * (1.0 + 0.001 * (k as f64 - 5.0))
        }
    };
    std::fs::create_dir_all(dir.join("history")).unwrap();
    for k in 0..10 {
        write(
            dir,
            &format!("history/{k:04}.csv"),
            &csv(rows, |i, b| Some(line(b, Some(value(i, b, k)), "ok"))),
        );
    }
    // A partial file: only some rows (the others keep what they have).
    write(
        dir,
        "history/0010-partial.csv",
        &csv(&rows[..5], |_, b| Some(line(b, Some(b.value), "ok"))),
    );
    // A malformed one: no key column.
    write(
        dir,
        "history/0011-broken.csv",
        "shape,dtype,tflops\n1,b,2\n",
    );
}

/// A wild row (25% run to run) 20% slower than its baseline: a regression
/// against the fixed threshold, noise against its history.
#[test]
fn a_missing_partial_or_malformed_history_file_is_a_warning_never_a_failure() {
    let rows = suite();
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().to_owned();
    let bin = Bin::new();
    let wild = 3;
    write_history_with_a_wild_row(&dir, &rows, wild);
    let base = write(
        &dir,
        "base.csv",
        &csv(&rows, |_, b| Some(line(b, Some(b.value), "ok"))),
    );
    let cur = write(
        &dir,
        "cur.csv",
        &csv(&rows, |i, b| {
            Some(line(
                b,
                Some(if i == wild { b.value * 0.8 } else { b.value }),
                "ok",
            ))
        }),
    );
    let (run, j) = against_main(bin, &cur, &base)
        .arg("--history")
        .arg(dir.join("history/*.csv"))
        .arg("--history")
        .arg(dir.join("history/missing.csv"))
        .json();
    assert_eq!(j["verdict"], "pass", "{}", run.stdout);
    let row = &j["baselines"][0]["rows"][wild];
    assert_eq!(row["class"], "noisy", "{row}");
    assert!(
        row["reason"]
            .as_str()
            .unwrap()
            .starts_with("within main's run-to-run noise: -"),
        "{row}"
    );
    assert_eq!(row["thresholds"]["source"], "learned");
    assert_eq!(
        row["thresholds"]["history_runs"], 11,
        "ten runs and the partial file"
    );
    let quiet = &j["baselines"][0]["rows"][20];
    assert_eq!(
        quiet["thresholds"]["fail_pct"], 10.0,
        "a quiet row keeps the configured threshold: {quiet}"
    );
    let warnings = j["warnings"].to_string();
    assert!(warnings.contains("missing.csv: no such file"), "{warnings}");
    assert!(warnings.contains("0011-broken.csv"), "{warnings}");
    assert!(
        warnings.contains("its rows use what the other runs say"),
        "{warnings}"
    );
    let history_inputs = j["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "history")
        .count();
    assert_eq!(
        history_inputs, 12,
        "the glob expanded to every file, in name order"
    );
    // Without the history: the fixed threshold fails the wild row.
    let run = against_main(Bin::new(), &cur, &base).run();
    run.assert_code(4);
}

#[test]
fn too_little_history_says_so_and_keeps_the_configured_threshold() {
    let rows = suite();
    let bin = Bin::new();
    let dir = bin.dir().to_owned();
    let h = write(
        &dir,
        "h.csv",
        &csv(&rows, |_, b| Some(line(b, Some(b.value), "ok"))),
    );
    let base = write(
        &dir,
        "base.csv",
        &csv(&rows, |_, b| Some(line(b, Some(b.value), "ok"))),
    );
    let (_, j) = against_main(bin, &base, &base)
        .arg("--history")
        .arg(&h)
        .args(["--fail-threshold", "auto"])
        .json();
    let row = &j["baselines"][0]["rows"][0];
    assert_eq!(row["thresholds"]["source"], "too-little-history", "{row}");
    assert_eq!(row["thresholds"]["history_runs"], 1);
    assert_eq!(
        row["thresholds"]["fail_pct"], 10.0,
        "auto falls back to the default"
    );
}

#[test]
fn the_summary_charts_rows_beyond_the_warn_threshold() {
    let rows = suite();
    let bin = Bin::new();
    let dir = bin.dir().to_owned();
    let base = write(
        &dir,
        "base.csv",
        &csv(&rows, |_, b| Some(line(b, Some(b.value), "ok"))),
    );
    let cur = write(
        &dir,
        "cur.csv",
        &csv(&rows, |i, b| {
            Some(line(
                b,
                Some(if i == 7 { b.value * 0.7 } else { b.value }),
                "ok",
            ))
        }),
    );
    let run = against_main(bin, &cur, &base).on_runner().run();
    run.assert_code(4);
    assert!(
        run.summary.contains("```mermaid\nxychart-beta\n"),
        "{}",
        run.summary
    );
    assert!(run.summary.contains("bar [30.0]"), "{}", run.summary);
    assert_eq!(run.outputs()["rerun"], rows[7].op);
    let calm = Bin::new();
    let f = write(
        calm.dir(),
        "same.csv",
        &csv(&rows, |_, b| Some(line(b, Some(b.value), "ok"))),
    );
    let run = against_main(calm, &f, &f).on_runner().run();
    run.assert_code(0);
    assert!(
        run.summary
            .contains("No row is worse than its warn threshold: no chart.")
    );
    assert_eq!(run.outputs()["rerun"], "");
}

/// A row judged against a band says which band and how many runs.
#[test]
fn a_learned_threshold_names_its_band_and_runs() {
    let history: Vec<Vec<f64>> = (0..10).map(|k| vec![100.0 + (k % 3) as f64]).collect();
    let (b, c) = ([table(&[100.0])], [table(&[95.0])]);
    let h: Vec<Table> = history.iter().map(|v| table(v)).collect();
    let config = Config::default();
    let comparison = compare(
        Sides {
            label: "main".into(),
            baseline: &b,
            current: &c,
            history: &h,
            unselected: &[],
            unavailable: None,
            paired: None,
        },
        &config,
        Thresholds::default(),
    );
    let row = comparison.rows().next().unwrap();
    assert!(matches!(row.applied.unwrap().origin, Origin::Learned(band) if band.runs == 10));
}

/// The median, as the outlier cut takes it (the mean of the middle two of
/// an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

/// On a runner: a baseline run off its level names its row's group in
/// `rerun-baseline`, a suite that moved together fills `suite-shift` and
/// says to re-run elsewhere, and the summary says the false-alarm rate.
#[test]
fn a_baseline_off_its_level_and_a_suite_shift_are_named_on_a_runner() {
    let rows = suite();
    let bin = Bin::new();
    let dir = bin.dir().to_owned();
    std::fs::create_dir_all(dir.join("h")).unwrap();
    for k in 0..10 {
        let wobble = 1.0 + 0.003 * f64::from(k % 3);
        write(
            &dir,
            &format!("h/{k:04}.csv"),
            &csv(&rows, |_, b| Some(line(b, Some(b.value * wobble), "ok"))),
        );
    }
    // Row 0's baseline run is 15% off its level; every other row's current
    // run 20% worse than its baseline.
    let base = write(
        &dir,
        "base.csv",
        &csv(&rows, |i, b| {
            Some(line(
                b,
                Some(if i == 0 { b.value * 1.15 } else { b.value }),
                "ok",
            ))
        }),
    );
    let cur = write(
        &dir,
        "cur.csv",
        &csv(&rows, |i, b| {
            Some(line(
                b,
                Some(if i == 0 { b.value } else { b.value * 0.8 }),
                "ok",
            ))
        }),
    );
    let run = against_main(bin, &cur, &base)
        .arg("--history")
        .arg(dir.join("h/*.csv"))
        .args(["--false-alarms", "2"])
        .on_runner()
        .run();
    run.assert_code(4);
    let out = run.outputs();
    assert_eq!(out["rerun-baseline"], rows[0].op, "{out:?}");
    assert_eq!(out["suite-shift"], "-20.0", "{out:?}");
    assert!(
        run.summary.contains("the whole suite moved by -20.0%"),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains("re-run on another machine"),
        "{}",
        run.summary
    );
    assert!(
        run.summary
            .contains("a pull request of noise alone fails with a chance of 2%"),
        "{}",
        run.summary
    );
}
