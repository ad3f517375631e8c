//! select's text, job summary, JSON and step outputs as their readers see
//! them, kept as snapshots (`snapshots/` beside this file): one selection
//! that picks two groups and one that fails safe to all, saying why.

use crate::select::{CONFIG, Work, select_bin};
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
    let bin = Bin::new().on_runner();
    let dir = bin.dir().display().to_string();
    let run = select_bin(bin, CONFIG, w.path(), &base, &head)
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

/// The selection's text, JSON, and the runner's form (no `--format` on a
/// runner: the step outputs, the job summary and what stdout says), each
/// snapshot named `select_<form>_<case>`.
fn snapshot_each_form(all: bool, case: &str) {
    let text = run_select(all, &["--format", "text"]);
    text.assert_code(0);
    insta::assert_snapshot!(format!("select_text_{case}"), text.stdout);
    let json = run_select(all, &["--format", "json"]);
    json.assert_code(0);
    insta::assert_snapshot!(format!("select_json_{case}"), json.stdout);
    let github = run_select(all, &[]);
    github.assert_code(0);
    insta::assert_snapshot!(format!("select_github_stdout_{case}"), github.stdout);
    insta::assert_snapshot!(format!("select_summary_{case}"), github.summary);
    insta::assert_snapshot!(format!("select_outputs_{case}"), github.outputs_text());
}

#[test]
fn select_in_each_form_picking_two_groups() {
    snapshot_each_form(false, "some");
}

#[test]
fn select_in_each_form_failing_safe_to_all() {
    snapshot_each_form(true, "all");
}
