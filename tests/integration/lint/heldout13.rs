//! `lint` on the shapes the twelfth and thirteenth held-out sets found
//! missed or wrongly found (issue 49; BENCHMARKS.md, "Mends after
//! held-out 12 and 13"). Each fixture in `tests/fixtures/lint/heldout13/`
//! is a real workflow's shape cut down and written anew, with a
//! look-alike beside it that must stay as it was.

use super::heldout5::{at, lint_in};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout13", file)
}

/// micropython's unix-port jobs run `tools/ci.sh port_build`: a script of
/// functions whose dispatcher runs `ci_$1`, one of which (never called
/// here) takes `git merge-base` for a commit-message check. Only the
/// function the argument picks, and what it calls, run: no finding in
/// the build and test jobs (an array's quoted default before the
/// functions is read as one value, not the rest of the file). The job
/// that runs the check by its argument, and a step that sources the
/// script and calls it, are still found.
#[test]
fn a_script_of_functions_runs_the_one_its_argument_picks() {
    assert_eq!(
        lint("port.yml"),
        [at("shallow-merge-base", 24), at("shallow-merge-base", 30)]
    );
}

/// mlperf-automations' monthly GPT-J job: a self-hosted GPU machine with
/// no timeout, in a workflow and a step named for MLPerf (MLCommons'
/// benchmark suite, as `pgbench` and `ycsb` name theirs), running `mlcr
/// run-mlperf,...`: a benchmark job, its missing timeout found. The same
/// job with a 90-minute timeout, and a formatting job on the same runner
/// in a workflow not named for a benchmark, are not.
#[test]
fn mlperf_names_a_benchmark_suite() {
    assert_eq!(lint("mlperf-gptj.yml"), [at("long-timeout", 6)]);
    assert_eq!(lint("inference-lint.yml"), []);
}

/// rocprofiler-sdk's CI: `runs-on: ${{ matrix.runner }}-runner-set` over
/// `[mi200, mi300]` is `mi200-runner-set` and `mi300-runner-set`, its own
/// GPU machines, so the cancelling group its default branch's pushes
/// share is found. The same label built from `[ubuntu, windows]`
/// (`ubuntu-latest`, `windows-latest`: GitHub's own) is no finding.
#[test]
fn a_label_built_from_a_matrix_value_is_that_value() {
    assert_eq!(lint("runner-set.yml"), [at("cancel-main", 8)]);
    assert_eq!(lint("hosted-set.yml"), []);
}

/// ceno's GPU integration: `cancel-in-progress: ${{ github.ref !=
/// 'refs/heads/main' }}` keeps main's runs but cancels a pull request's,
/// so a `labeled` trigger in its per-pull-request group cancels the GPU
/// job whenever a label is added. The same expression that also leaves
/// labelled runs out (`&& github.event.action != 'labeled'`) is not.
#[test]
fn cancelling_every_ref_but_a_branch_cancels_labelled_runs() {
    assert_eq!(lint("gpu-label.yml"), [at("label-cancel", 9)]);
    assert_eq!(lint("gpu-label-kept.yml"), []);
}
