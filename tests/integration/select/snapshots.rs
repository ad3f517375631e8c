//! select's text, job summary, JSON and step outputs as their readers see
//! them, kept as snapshots (`snapshots/` beside this file): one selection
//! that picks two groups and one that fails safe to all, saying why.

use crate::select::{CONFIG, Work, config_file};
use crate::support::harness::{Bin, Run};

/// A repository where `base..head` touches two kernels and a readme
/// (`some`), or a kernel and the harness script (`all`).
fn scenario(all: bool) -> (Work, String, String) {
    let w = Work::new();
    let base = w.head();
    w.touch("kernels/gemm/gemm.cu");
    w.touch("kernels/softmax/softmax.cu");
    w.touch("README.md");
    if all {
        w.touch("scripts/run_benchmark.sh");
    }
    let head = w.commit("the change under test");
    (w, base, head)
}

/// Runs `select` on the scenario with `extra` arguments, on a runner, and
/// replaces what varies between runs (the temp dirs, and the commits'
/// SHAs, which follow git's clock) by names.
fn run_select(all: bool, extra: &[&str]) -> Run {
    let (w, base, head) = scenario(all);
    let bin = Bin::new();
    let config = config_file(bin.dir(), CONFIG);
    let dir = bin.dir().display().to_string();
    let run = bin
        .on_runner()
        .arg("select")
        .arg("--config")
        .arg(config)
        .args(["--base", &base, "--head", &head])
        .arg("--repo")
        .arg(w.path())
        .args(extra)
        .run();
    let repo = w.path().display().to_string();
    run.redact(&[
        (&repo, "<repo>"),
        (&dir, "<dir>"),
        (&base, "<base>"),
        (&head, "<head>"),
    ])
}

#[test]
fn select_text_of_two_groups() {
    let run = run_select(false, &["--format", "text"]);
    run.assert_code(0);
    insta::assert_snapshot!("select_text_some", run.stdout);
}

/// The runner's form (no `--format` on a runner): the step outputs, the
/// job summary and what stdout says (annotations).
#[test]
fn select_summary_and_outputs_of_two_groups() {
    let run = run_select(false, &[]);
    run.assert_code(0);
    insta::assert_snapshot!("select_github_stdout_some", run.stdout);
    insta::assert_snapshot!("select_summary_some", run.summary);
    insta::assert_snapshot!("select_outputs_some", run.outputs_text());
}

#[test]
fn select_json_of_two_groups() {
    let run = run_select(false, &["--format", "json"]);
    run.assert_code(0);
    insta::assert_snapshot!("select_json_some", run.stdout);
}

#[test]
fn select_text_failing_safe_to_all() {
    let run = run_select(true, &["--format", "text"]);
    run.assert_code(0);
    insta::assert_snapshot!("select_text_all", run.stdout);
}

#[test]
fn select_summary_and_outputs_failing_safe_to_all() {
    let run = run_select(true, &[]);
    run.assert_code(0);
    insta::assert_snapshot!("select_github_stdout_all", run.stdout);
    insta::assert_snapshot!("select_summary_all", run.summary);
    insta::assert_snapshot!("select_outputs_all", run.outputs_text());
}

#[test]
fn select_json_failing_safe_to_all() {
    let run = run_select(true, &["--format", "json"]);
    run.assert_code(0);
    insta::assert_snapshot!("select_json_all", run.stdout);
}
