//! The body a reviewer reads of a paired comparison (`compare --paired`)
//! whose rows are still in doubt after three rounds: the undecided rows
//! and the advice to run more rounds, as a snapshot (`comment --dry-run`).

use crate::support::harness::Bin;

/// The comment body of `compare --paired --format json` over rounds
/// `setup` writes (it returns their flags).
fn body(setup: impl FnOnce(&std::path::Path) -> Vec<String>) -> String {
    let bin = Bin::new();
    let args = setup(bin.dir());
    let run = bin
        .arg("compare")
        .arg("--paired")
        .args(args)
        .args(["--format", "json"])
        .run();
    run.assert_code(0);
    super::dry_run(&run.stdout)["body"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn body_of_a_paired_comparison_with_undecided_rows() {
    // 12% noise per run on every row: three rounds cannot rule out 10%.
    let body = body(|dir| crate::compare::paired::rounds(dir, 3, 0.0, 0.12, 3, |_| 0.0));
    insta::assert_snapshot!("comment_body_paired_undecided", body);
}

/// The cells of the body's table rows under a head that holds `column`.
fn table_rows<'a>(body: &'a str, column: &str) -> Vec<Vec<&'a str>> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in body.lines() {
        if line.starts_with("| benchmark") {
            inside = line.contains(column);
        } else if inside && line.starts_with("| ") {
            rows.push(line.trim_matches('|').split(" | ").map(str::trim).collect());
        } else if !line.starts_with('|') {
            inside = false;
        }
    }
    rows
}

/// `102.168 TFLOPS` or `-4.6%` as a number.
fn number(cell: &str) -> f64 {
    cell.trim_end_matches('%')
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// A reviewer reads a paired row's two medians and its change side by
/// side. The change is the paired estimate (each round's two runs, what
/// moved a whole round set aside), which can point the other way from the
/// medians' own ratio when the machine drifted between rounds: a row of
/// 102.2 TFLOPS to 103.6 TFLOPS read -4.6% and said nothing. Every such row
/// now says what its medians alone give, under a head that names the
/// paired change.
#[test]
fn a_paired_rows_medians_never_contradict_its_change_silently() {
    // The machine's speed drifts 8% from round to round; each run 4%.
    let body = body(|dir| crate::compare::paired::drifting(dir, 5));
    assert!(
        body.contains("*change (paired): the verdict's estimate"),
        "{body}"
    );
    let rows = table_rows(&body, "| change (paired) |");
    assert_eq!(rows.len(), 20, "{body}");
    let mut other_way = 0;
    for row in &rows {
        // benchmark, class, baseline, current, change, why (TFLOPS: higher is better).
        let why = row[5].replace("\\(", "(").replace("\\)", ")");
        let (base, current, change) = (number(row[2]), number(row[3]), number(row[4]));
        let medians = (current / base - 1.0) * 100.0;
        let shown = |x: f64| (x * 10.0).round() != 0.0;
        if medians * change < 0.0 && shown(medians) && shown(change) {
            other_way += 1;
            assert!(
                why.starts_with(&format!(
                    "the medians alone: {medians:+.1}% (the change pairs"
                )),
                "{row:?}"
            );
        } else {
            assert!(!why.contains("medians alone"), "{row:?}");
        }
    }
    assert!(
        other_way > 0,
        "no row whose medians point the other way: {body}"
    );
}
