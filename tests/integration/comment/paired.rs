//! The body a reviewer reads of a paired comparison (`compare --paired`)
//! whose rows are still in doubt after three rounds: the undecided rows
//! and the advice to run more rounds, as a snapshot (`comment --dry-run`).

use crate::support::harness::Bin;

#[test]
fn body_of_a_paired_comparison_with_undecided_rows() {
    let bin = Bin::new();
    // 12% noise per run on every row: three rounds cannot rule out 10%.
    let args = crate::compare::paired::rounds(bin.dir(), 3, 0.0, 0.12, 3, |_| 0.0);
    let run = bin
        .arg("compare")
        .arg("--paired")
        .args(args)
        .args(["--format", "json"])
        .run();
    run.assert_code(0);
    let v = super::dry_run(&run.stdout);
    insta::assert_snapshot!("comment_body_paired_undecided", v["body"].as_str().unwrap());
}
