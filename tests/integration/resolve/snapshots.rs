//! resolve's job summary and text output as a reader sees them, kept as
//! snapshots (`tests/integration/resolve/snapshots/`), so a change of layout is
//! reviewed as a diff (`cargo insta review`, or rename the `.snap.new`).
//! Its JSON and step outputs for a fork's and a same-repository pull
//! request too. Each other command's snapshots are in its own folder's
//! `snapshots/`.

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

/// The fork's example event with its head moved into the base repository:
/// a pull request from a branch of the same repository.
fn same_repo_pull_request() -> Bin {
    let path = repo_root().join("examples/events/fork-pull-request.json");
    let mut event: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let base_repo = event["pull_request"]["base"]["repo"].clone();
    event["pull_request"]["head"]["repo"] = base_repo;
    event["pull_request"]["head"]["label"] = "ROCm:mla-kernel".into();
    Bin::new()
        .payload(&event.to_string(), "pull_request")
        .arg("--offline")
}

/// resolve's JSON (`--format json`) and its step outputs (the runner's
/// form, the step outputs written only there), its scratch dir named.
fn json_and_outputs(bin: impl Fn() -> Bin) -> (String, String) {
    let redact = |bin: Bin, args: &[&str]| {
        let dir = bin.dir().display().to_string();
        let run = bin.on_runner().args(args).run();
        run.assert_code(0);
        let outputs = run.outputs_text().replace(&dir, "<dir>");
        (run.stdout.replace(&dir, "<dir>"), outputs)
    };
    let (json, _) = redact(bin(), &["--format", "json"]);
    let (_, outputs) = redact(bin(), &[]);
    (json, outputs)
}

#[test]
fn a_fork_pull_requests_json_and_step_outputs() {
    let (json, outputs) = json_and_outputs(fork_pull_request);
    insta::assert_snapshot!("json_fork_pull_request", json);
    insta::assert_snapshot!("outputs_fork_pull_request", outputs);
}

#[test]
fn a_same_repository_pull_requests_json_and_step_outputs() {
    let (json, outputs) = json_and_outputs(same_repo_pull_request);
    insta::assert_snapshot!("json_same_repo_pull_request", json);
    insta::assert_snapshot!("outputs_same_repo_pull_request", outputs);
}
