//! `lint` on jobs that call reusable workflows (issue 49): a call holds the
//! runners the called workflow's jobs ask for. The fixture repository
//! (`tests/fixtures/lint/calls/`) is linted from its root, as a user runs
//! `lint` in a checkout; the text output is kept as a snapshot.

use crate::support::harness::{Bin, repo_root};

#[test]
fn calls_are_judged_by_the_called_file_or_what_they_pass() {
    let root = repo_root().join("tests/fixtures/lint/calls");
    insta::assert_snapshot!("lint_reusable_workflow_calls", text_findings(&root));
}

/// `lint .github/workflows --format text` run in `root`, as a user runs
/// it in a checkout: its output, the exit asserted to be 4 (findings).
pub(crate) fn text_findings(root: &std::path::Path) -> String {
    let run = Bin::new()
        .in_dir(root)
        .args([
            "lint",
            ".github/workflows",
            "--format",
            "text",
            "--fail-on",
            "note",
        ])
        .run();
    run.assert_code(4);
    run.stdout
}

#[test]
fn a_call_whose_file_is_not_at_hand_is_judged_by_what_it_passes() {
    // Linted alone, from elsewhere: gpu-tests.yml is not read, so each
    // call is judged by what it passes (the local GPU runner input counts,
    // the call that passes nothing does not).
    let file = repo_root().join("tests/fixtures/lint/calls/.github/workflows/gpu-ci.yml");
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("gpu-ci.yml");
    std::fs::copy(&file, &copy).unwrap();
    let (run, v) = Bin::new()
        .in_dir(tmp.path())
        .args(["lint", "gpu-ci.yml", "--fail-on", "note"])
        .json_code(4);
    let lines: Vec<(String, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("cancel-main".to_owned(), 13),
            ("label-cancel".to_owned(), 13),
            ("job-always".to_owned(), 16),
            ("job-always".to_owned(), 24),
        ],
        "{}",
        run.stdout
    );
}

/// Each finding of a lint run as (file name, rule, line).
pub(crate) fn findings(v: &serde_json::Value) -> Vec<(String, String, u64)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = f["file"].as_str().unwrap();
            (
                file.rsplit('/').next().unwrap().to_owned(),
                f["rule"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn any_input_naming_a_gpu_runner_and_a_called_benchmark_job_count() {
    // build.yaml: the docs job's GPU machine is passed as `node_type`, so
    // the group that cancels main's pushes loses a GPU run (rapids' shape);
    // cpu-build.yaml passes only CPU machines, names and paths. nightly's
    // `always()` is on a call of a local benchmark job whose runner is an
    // expression (vllm-ascend's shape); the call of a lint job is not.
    let root = repo_root().join("tests/fixtures/lint/calls-inputs");
    let (run, v) = Bin::new()
        .in_dir(&root)
        .args(["lint", ".github/workflows", "--fail-on", "note"])
        .json_code(4);
    assert_eq!(
        findings(&v),
        [
            ("build.yaml".to_owned(), "cancel-main".to_owned(), 11),
            ("nightly.yaml".to_owned(), "job-always".to_owned(), 20),
        ],
        "{}",
        run.stdout
    );
}

#[test]
fn calls_nested_in_calls_are_judged_within_a_bounded_count_of_jobs() {
    // 100 jobs each call b.yml, whose 100 jobs each call b.yml again:
    // followed down 4 calls, that is 10^10 jobs to judge. Lint reads at
    // most MAX_JOBS_JUDGED (1,024) called jobs per call, so it answers:
    // the called jobs name no expensive runner, so no call is costly.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".github/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    let calls = |n: usize| -> String {
        (0..n)
            .map(|i| format!("  j{i}:\n    uses: ./.github/workflows/b.yml\n"))
            .collect()
    };
    let a = format!(
        "on: pull_request\nconcurrency:\n  group: ci\n  cancel-in-progress: true\njobs:\n{}",
        calls(100)
    );
    std::fs::write(dir.join("a.yml"), a).unwrap();
    std::fs::write(
        dir.join("b.yml"),
        format!("on: workflow_call\njobs:\n{}", calls(100)),
    )
    .unwrap();
    let (run, v) = Bin::new()
        .in_dir(tmp.path())
        .args(["lint", ".github/workflows/a.yml", "--fail-on", "note"])
        .json_code(0);
    assert_eq!(findings(&v), [], "{}", run.stdout);
}
