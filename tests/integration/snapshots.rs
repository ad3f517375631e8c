//! The job summary and the text output as a reader sees them, kept as
//! snapshots (`tests/integration/snapshots/`), so a change of layout is
//! reviewed as a diff (`cargo insta review`, or rename the `.snap.new`).

use crate::support::harness::{Bin, repo_root};

fn fork_pull_request() -> Bin {
    Bin::new()
        .event(
            repo_root().join("examples/events/fork-pull-request.json"),
            "pull_request",
        )
        .arg("--offline")
}

#[test]
fn job_summary_of_a_fork_pull_request() {
    let run = fork_pull_request().on_runner().run();
    run.assert_code(0);
    insta::assert_snapshot!("summary_fork_pull_request", run.summary);
}

#[test]
fn job_summary_of_a_missing_baseline() {
    let run = Bin::new()
        .payload(
            r#"{"ref": "refs/heads/main", "repository": {"full_name": "ROCm/FlyDSL", "default_branch": "main"}}"#,
            "workflow_dispatch",
        )
        .arg("--offline")
        .on_runner()
        .run();
    run.assert_code(0);
    insta::assert_snapshot!("summary_missing_baseline", run.summary);
}

#[test]
fn text_output_of_a_fork_pull_request() {
    let run = fork_pull_request().args(["--format", "text"]).run();
    run.assert_code(0);
    insta::assert_snapshot!("text_fork_pull_request", run.stdout);
}

/// `compare` on the seed case (a failed baseline row, a 20% regression, a
/// new benchmark), its inputs named by file name only.
fn compare_seed(format: &[&str]) -> crate::support::harness::Run {
    let bin = crate::compare::compare_seed();
    let prefix = format!("{}/", bin.dir().display());
    let mut run = bin.args(format).run();
    run.stdout = run.stdout.replace(&prefix, "");
    run
}

#[test]
fn job_summary_of_a_compare_regression() {
    let run = crate::compare::compare_seed().on_runner().run();
    run.assert_code(4);
    insta::assert_snapshot!("summary_compare_regression", run.summary);
}

#[test]
fn json_of_a_compare_regression() {
    let run = compare_seed(&["--format", "json"]);
    run.assert_code(4);
    let mut value: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // The 63 unchanged rows look alike: the snapshot keeps the others.
    let rows = value["baselines"][0]["rows"].as_array_mut().unwrap();
    rows.retain(|r| r["class"] != "unchanged");
    insta::assert_snapshot!(
        "json_compare_regression",
        serde_json::to_string_pretty(&value).unwrap()
    );
}
