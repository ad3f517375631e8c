//! A history whose runs sit on two levels (alternating 100/60, values near
//! the largest double, pandas's rows on one of two code paths): no band; the
//! configured threshold judges the row, and a move from one level to the
//! other is noisy, end to end.

use std::path::PathBuf;

use serde_json::Value;

use crate::compare::{against_main, csv, line, suite, write};
use crate::support::harness::{Bin, Run};

/// Compares a suite whose first row's ten history runs alternate `high`
/// and `low`, its baseline at `high` and its current run at `cur`
/// (`--format json`), expecting exit `code`.
fn judged(high: f64, low: f64, cur: f64, code: i32) -> (Run, Value) {
    let rows = suite();
    let bin = Bin::new();
    let dir = bin.dir().to_owned();
    std::fs::create_dir_all(dir.join("h")).unwrap();
    let file = |name: &str, first: f64| -> PathBuf {
        write(
            &dir,
            name,
            &csv(&rows, |i, b| {
                Some(line(b, Some(if i == 0 { first } else { b.value }), "ok"))
            }),
        )
    };
    for k in 0..10 {
        file(
            &format!("h/{k:04}.csv"),
            if k % 2 == 0 { high } else { low },
        );
    }
    let (base, cur) = (file("base.csv", high), file("cur.csv", cur));
    against_main(bin, &cur, &base)
        .arg("--history")
        .arg(dir.join("h/*.csv"))
        .json_code(code)
}

/// Issue 26: a history alternating 100/60 (or holding values near the
/// largest double) gave a band of +-2681% (or +-inf) and a 99% drop passed
/// with exit 0. Such a history cannot judge the row: the configured
/// threshold does, with a warning, and the drop fails.
#[test]
fn two_levels_are_unusable_and_a_large_drop_still_fails() {
    for (high, low) in [(100.0, 60.0), (1e308, 1.0)] {
        let (_, j) = judged(high, low, high * 0.01, 4);
        let row = &j["baselines"][0]["rows"][0];
        assert_eq!(row["class"], "regressed", "{high}: {row}");
        // Issue 29: two levels are no band at all (a band of 2681% let a
        // 99% drop pass): the configured threshold judges, and says why.
        let fail = row["thresholds"]["fail_pct"].as_f64().unwrap();
        assert_eq!(row["thresholds"]["source"], "history-unusable", "{row}");
        assert_eq!(fail, 10.0, "{row}");
        assert!(row["thresholds"]["band_pct"].is_null(), "{row}");
        let warnings = j["warnings"].to_string();
        assert!(
            warnings.contains("history unusable for op=softmax"),
            "{warnings}"
        );
        let levels = if high == 100.0 {
            "two levels 100.0 and 60.00 over 10 runs"
        } else {
            "two levels 1.000e308 and 1.000 over 10 runs"
        };
        assert!(warnings.contains(levels), "{warnings}");
    }
}

/// On pandas's suite, rows that land on one of two code paths failed
/// pull requests whose runs landed on the other: a move between the two
/// levels the history holds is noisy, to be re-run, and the exit is 0.
#[test]
fn a_move_between_two_levels_is_noisy_and_re_run() {
    let rows = suite();
    let (_, j) = judged(100.0, 60.0, 60.3, 0);
    let row = &j["baselines"][0]["rows"][0];
    assert_eq!(row["class"], "noisy", "{row}");
    assert!(
        row["reason"]
            .as_str()
            .unwrap()
            .starts_with("main's history holds two levels, the higher 1.67 times the lower"),
        "{row}"
    );
    assert_eq!(row["rerun"], true, "{row}");
    assert_eq!(
        j["rerun"]["groups"][0],
        rows[0].op.as_str(),
        "{}",
        j["rerun"]
    );
    assert!(
        j["warnings"].to_string().contains(
            "the configured threshold judges them (a move from one level to the other is noisy)"
        ),
        "{}",
        j["warnings"]
    );
}
