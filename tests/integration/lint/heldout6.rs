//! `lint` on the shapes behind the sixth held-out set's wrong findings
//! and misses (issue 49; BENCHMARKS.md, "Mends after held-out 6"). Each
//! fixture in `tests/fixtures/lint/heldout6/` is a real workflow's shape
//! cut down, with a look-alike beside it that must still be found (or
//! stay silent).

use super::calls::text_findings;
use super::heldout5::{at, lint_in};
use crate::support::harness::repo_root;

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout6", file)
}

/// memgraph's daily benchmarks: a last step that computes `${{
/// steps.a.outcome == 'success' && ... }}` in its script (or reads
/// `conclusion == 'failure'` in its `env:`) and exits 1 acts on every
/// step's failure; a step read only by a later `if:` on its success, or
/// asked only whether it ran (`!= 'skipped'`), still fails silently.
#[test]
fn an_outcome_a_later_script_compares_with_success_is_acted_on() {
    assert_eq!(
        lint("daily-benchmark.yml"),
        [at("silent-baseline", 47), at("silent-baseline", 52)]
    );
}

/// reth's benchmarks: a tool cloned at a moving branch in a job that
/// builds the baseline and the feature (one build script run once per
/// side) and measures both in turns is no `unpinned-clone`; the same
/// clone in a job that measures the pull request only, downloading the
/// baseline's results and comparing two result files, still is.
#[test]
fn a_clone_shared_by_both_sides_measured_in_one_job_does_not_drift() {
    assert_eq!(lint("both-sides.yml"), [at("unpinned-clone", 46)]);
}

/// sglang-jax's weekly accuracy evaluations: a publisher given
/// `--data-type bench` names a kind of data, not a script named for
/// benchmarking, so the evaluation job on its TPU runner is no benchmark
/// job (no `long-timeout` for its missing timeout); the performance job
/// and a script run after a short flag (`python3 -u bench_serving.py`)
/// still are.
#[test]
fn the_value_of_a_long_option_is_not_a_benchmark_script() {
    assert_eq!(
        lint("accuracy.yml"),
        [at("long-timeout", 29), at("long-timeout", 33)]
    );
}

/// sglang-jax's `pallas-kernel-benchmark`: a job named for benchmarking
/// with no timeout, whose one program step ("Run test") is allowed 120
/// minutes, is one cost, found at that step (not at the job); a job so
/// named whose program step is bounded at 30 keeps the job's finding; a
/// long build step beside a seen benchmark step is not one, nor a step
/// named for downloading the models (ROCm/aiter's `atom_benchmark`).
#[test]
fn in_a_job_named_for_benchmarking_its_program_steps_measure() {
    assert_eq!(
        lint("kernel-benchmark.yml"),
        [
            at("long-timeout", 19),
            at("long-timeout", 22),
            at("long-timeout", 43)
        ]
    );
}

/// XNNPACK's `build.yml`: a reusable workflow with only `workflow_call`
/// runs when its callers' events do, so its cancelling `head_ref || ref`
/// group is met by the pushes to master its caller is started by
/// (`cancel-main`), and by the `labeled` pull requests of another caller
/// (`label-cancel`); one called only by a nightly schedule stays quiet.
#[test]
fn a_reusable_workflows_group_is_met_by_its_callers_runs() {
    let root = repo_root().join("tests/fixtures/lint/heldout6-calls");
    let text = text_findings(&root);
    let found: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(": warning["))
        .map(|l| l.split(" cancel-in-progress").next().unwrap_or(l))
        .collect();
    assert_eq!(
        found,
        [
            ".github/workflows/build.yml:13:23: warning[cancel-main]",
            ".github/workflows/gpu-tests.yml:9:23: warning[label-cancel] a `labeled` trigger in a cancelling per-pull-request group: adding any label cancels the running benchmark jobs",
        ],
        "{text}"
    );
}

/// apache/arrow's CUDA builds: a cache saved from a GPU machine in a
/// workflow pull requests run, keyed by a hash of `cpp/**`, is saved again
/// by every pull request that changes the C++ sources; a key hashing a
/// lockfile is stable, and a save limited to pushes is guarded.
#[test]
fn a_cache_key_hashing_the_sources_differs_per_pull_request() {
    assert_eq!(lint("cuda-extra.yml"), [at("cache-discipline", 17)]);
}
