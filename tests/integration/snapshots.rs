//! resolve's job summary and text output as a reader sees them, kept as
//! snapshots (`tests/integration/snapshots/`), so a change of layout is
//! reviewed as a diff (`cargo insta review`, or rename the `.snap.new`).
//! Each other command's snapshots are in its own folder's `snapshots/`.

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
fn a_fork_pull_requests_summary_names_the_base_repository_never_the_fork() {
    let run = fork_pull_request().on_runner().run();
    run.assert_code(0);
    insta::assert_snapshot!("summary_fork_pull_request", run.summary);
}

#[test]
fn a_missing_baseline_is_a_warning_in_the_job_summary_never_a_quiet_skip() {
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
fn a_fork_pull_requests_text_names_the_base_repository_never_the_fork() {
    let run = fork_pull_request().args(["--format", "text"]).run();
    run.assert_code(0);
    insta::assert_snapshot!("text_fork_pull_request", run.stdout);
}
