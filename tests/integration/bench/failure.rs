//! Issue 47: `--failure-command`, once for a side whose command failed or
//! timed out, where the command ran: what shows why (a harness's own logs),
//! relayed as the harness's lines are, its own failure a warning that
//! changes nothing else.

use crate::bench::{Project, Tree, quiet, statuses};

/// `{side} {label} {round}` of each run of the failure command, and a line
/// that would be a workflow command if it were not relayed as data.
const FAILURE: &str =
    "echo {side} {label} {round} >> ../failures.txt; echo '::error::why {side} failed'; exit 7";

#[test]
fn a_failing_side_runs_the_failure_command_once_and_its_failure_is_a_warning() {
    let failing = |value| Tree {
        value,
        mode: "fail",
        groups: "gemm softmax attention",
    };
    let p = Project::new(&failing("100"), &failing("90"));
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--rounds", "3", "--seed", "1", "--failure-command", FAILURE])
        .run();
    run.assert_code(0);
    assert_eq!(
        statuses(&run),
        ("failed".into(), "failed".into()),
        "the sides' status is their commands'"
    );
    let ran = std::fs::read_to_string(p.root.path().join("failures.txt")).unwrap();
    let mut lines: Vec<&str> = ran.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        ["baseline main 1", "current current 1"],
        "once a side, though every round failed"
    );
    assert!(
        run.stderr
            .contains("[current failure] ::error::why current failed"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("why current failed"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("the current side's failure command exited with status 7"),
        "{}",
        run.stdout
    );
    // --strict fails on the sides, not on the failure command.
    let strict = p
        .bench(&p.resolution(&p.base))
        .args(["--rounds", "1", "--strict", "--failure-command", FAILURE])
        .run();
    strict.assert_code(4);
}

#[test]
fn a_side_that_succeeds_never_runs_the_failure_command() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--rounds", "1", "--failure-command", FAILURE])
        .run();
    run.assert_code(0);
    assert!(!p.root.path().join("failures.txt").exists());
    assert!(!run.stderr.contains("failure]"), "{}", run.stderr);
}
