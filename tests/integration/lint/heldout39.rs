//! `lint` on the shapes found wrongly in the held-out sets after the
//! thirty-eighth, and in sets 39 to 41 at first sight (issue 49;
//! BENCHMARKS.md, "Mends after held-out 39 to 41").
//! Each fixture in `tests/fixtures/lint/heldout39/` is a real workflow's
//! shape cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// Abseil's releases are dated tags with `_` between the numbers
/// (`lts_2022_06_23`), as Boost's old ones were (`Boost_1_84_0`): a
/// clone at either is pinned. A word and two numbers (`lts_2022_06`) is
/// as often a branch that moves, so that clone is still found.
#[test]
fn numbers_apart_with_underscores_after_a_word_are_a_release_tag() {
    assert_eq!(
        lint_in("heldout39", "dated-tags.yml"),
        [at("unpinned-clone", 13)]
    );
}

/// thread_system's benchmark job draws what it measured: "Update
/// performance badge" (`update_performance_badge.py`) and "Generate
/// performance dashboard" read the stored results and compare none, so
/// their `continue-on-error` hides no comparison. A step that plots a
/// comparison may still compare: its `continue-on-error` is found.
#[test]
fn a_step_that_only_draws_what_was_measured_hides_no_comparison() {
    assert_eq!(
        lint_in("heldout39", "drawn.yml"),
        [at("silent-baseline", 19)]
    );
}

/// canopy's benchmark jobs continue on error and write `complete=false`
/// when the suite fails; a later step hands it on to the job's outputs,
/// and the comparison job fails unless the PR's run completed: acted on.
/// A job whose outputs only a summary prints hides the failure, and so
/// does one whose outputs no job reads.
#[test]
fn outputs_handed_to_a_later_job_that_fails_on_them_are_acted_on() {
    assert_eq!(
        lint_in("heldout39", "outputs-handed-on.yml"),
        [at("silent-baseline", 32), at("silent-baseline", 55)]
    );
}

/// bandit's load test checks its harness out at the default branch, but
/// one `mix benchmark` is given the base's branch and the head's commit:
/// both sides measured with the same harness. A job that measures the
/// head alone with it still holds the moving harness.
#[test]
fn one_command_given_the_base_and_the_head_measures_both_sides() {
    assert_eq!(
        lint_in("heldout39", "both-commits.yml"),
        [at("unpinned-clone", 18)]
    );
}

/// rocm-jax's jaxlib checkout reads `repository: ${{ env.JAX_REPO }}`
/// with `JAX_REPO: ''`: actions/checkout's default, the workflow's own
/// repository. The same checkout of `ROCm/jax` at `main` moves.
#[test]
fn an_empty_repository_is_the_workflows_own() {
    assert_eq!(
        lint_in("heldout39", "empty-repository.yml"),
        [at("unpinned-clone", 31)]
    );
}

/// arity-arrays' "Bench compare (main)" calls its comparison workflow with
/// `timeout-minutes: 330`: a call in a workflow named for benchmarking is
/// a benchmark job by that name. The call passing nothing gets the
/// 90-minute default, and a call named for a chore is none.
#[test]
fn a_call_in_a_workflow_named_for_benchmarking_is_read_at_the_call() {
    assert_eq!(
        lint_in("heldout39", "compare-main.yml"),
        [at("long-timeout", 6)]
    );
}

/// An `exit 0` when a script is missing (a merge-base older than the
/// harness, IronCache's `perf_measure.sh`) or a device is (`/dev/kfd`, no
/// GPU on this machine) says the code or the machine is not there, not
/// that a measurement is missing. The baseline's results file missing
/// still is.
#[test]
fn a_missing_script_or_device_is_no_missing_results_file() {
    assert_eq!(
        lint_in("heldout39", "harness-missing.yml"),
        [at("silent-baseline", 26)]
    );
}

/// stef's result cache runs only `if: env.CACHE_BENCHMARK == 'on'`, and
/// its workflow sets `CACHE_BENCHMARK: "off"`: switched off, it never
/// saves. The step whose test the value meets still does.
#[test]
fn a_cache_switched_off_by_the_workflows_env_saves_nothing() {
    assert_eq!(
        lint_in("heldout39", "cache-switched-off.yml"),
        [at("cache-discipline", 19)]
    );
}

/// boundless builds its images on its own `cpu` machines, and one on
/// `[self-hosted, ..., cuda, g6.4xlarge]`, a GPU machine: a push to main
/// cancelling that build loses GPU time. The same matrix on `cpu`
/// machines only, a label that names a project (`cudaqx`) among them,
/// loses nothing costly.
#[test]
fn a_label_naming_cuda_is_a_gpu_machine_among_cpu_ones() {
    assert_eq!(
        lint_in("heldout39", "cuda-matrix.yml"),
        [at("cancel-main", 7)]
    );
    assert_eq!(lint_in("heldout39", "cpu-matrix.yml"), []);
}

/// Each matrix entry is a machine of its own: one entry's `cpu` label
/// says nothing of the GPU machine another entry asks for, so the
/// workflow's cancelled pushes to main cancel that machine's work.
#[test]
fn each_matrix_entry_is_judged_by_its_own_labels() {
    assert_eq!(
        lint_in("heldout39", "entry-runners.yml"),
        [at("cancel-main", 7)]
    );
}
