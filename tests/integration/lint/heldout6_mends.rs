//! `lint` on the shapes left missed after the fifth held-out set, mended
//! before the sixth (issue 49; BENCHMARKS.md, "Sweep before held-out 6").
//! Each fixture in `tests/fixtures/lint/heldout6-mends/` is a real
//! workflow's shape cut down and written anew, with a look-alike beside
//! it that must stay silent.

use super::heldout5::{at, lint_in};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout6-mends", file)
}

/// tt-xla's transformers uplift: `always()` on jobs that call local
/// workflows whose accelerator jobs are two and three calls down (a
/// Tenstorrent card in a container, a self-hosted perf runner); the call
/// that reaches only GitHub's runners two down stays silent.
#[test]
fn a_call_is_judged_by_the_runners_of_the_workflows_it_calls_in_turn() {
    assert_eq!(
        lint("nightly-uplift.yml"),
        [at("job-always", 17), at("job-always", 24)]
    );
}

/// RediSearch's benchmark flow: the step runs a script of the repository
/// that clones the module the benchmarks load and checks out
/// `${MODULE_REF:-master}` (the input's branch, master when none is
/// given), through a function that runs its arguments quietly. Found at
/// the step's command; the script that pins a commit, one outside the
/// repository (`../outside.sh`) and a clone in a job that measures
/// nothing stay silent.
#[test]
fn a_repository_script_a_benchmark_step_runs_is_read_as_part_of_it() {
    assert_eq!(lint("benchmark-flow.yml"), [at("unpinned-clone", 19)]);
}

/// MNN's commit-message check (found in the sweep before held-out 6): a
/// loop over `git log origin/master..HEAD` checks each commit the pull
/// request adds, not an older baseline; loops over `git rev-list
/// --max-count=8 origin/master` and `HEAD~8..HEAD` still walk back.
#[test]
fn a_loop_over_the_changes_own_commits_walks_no_baseline() {
    assert_eq!(
        lint("commit-check.yml"),
        [at("baseline-walk", 31), at("baseline-walk", 34)]
    );
}

/// FlyDSL's LLVM build (the old corpus, once its scripts are read): a
/// repository script run in the head's checkout `pushd`es into a checkout
/// of its own (`git init`, its own `origin`) before `git fetch origin`,
/// which fetches no fork; a script that fetches from `origin` where it
/// starts, the head's checkout, still does.
#[test]
fn pushd_moves_a_script_out_of_the_heads_checkout() {
    assert_eq!(lint("fork-build.yml"), [at("fork-remote", 20)]);
}

/// qibojit's GPU tests: a `labeled` trigger in a cancelling per-head_ref
/// group over another repository's workflow named for self-hosted
/// runners (`.../selfhosted.yml@v1`) that is passed no runner; the same
/// over a workflow named for nothing expensive stays silent.
#[test]
fn a_remote_workflow_named_for_self_hosted_runners_holds_one() {
    assert_eq!(lint("remote-gpu.yml"), [at("label-cancel", 9)]);
    assert_eq!(lint("remote-rules.yml"), []);
}
