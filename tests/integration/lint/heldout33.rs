//! `lint` on the shapes the thirty-third held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 33"). Each fixture in
//! `tests/fixtures/lint/heldout33/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// bench-formatter runs its suite with `vp run bench`: a task runner's
/// `run` then the `bench` task, as `npm run bench` is. Its repositories
/// to format are checked out at their default branches. `vp run
/// bench-docs` names a chore.
#[test]
fn a_task_runners_run_bench_runs_the_benchmarks() {
    assert_eq!(
        lint_in("heldout33", "task-run.yml"),
        [at("unpinned-clone", 13)]
    );
}

/// valkey's `inputs.max_commits || '1'` and `inputs.commits || 'false'`
/// fall back to a count and a switch, no branch. A base commit that falls
/// back to `unstable` does.
#[test]
fn a_count_or_a_switch_is_no_branch_to_fall_back_to() {
    assert_eq!(
        lint_in("heldout33", "counts.yml"),
        [at("moving-fallback", 19)]
    );
}

/// memtier's build job asks `./memtier_benchmark --version`: the program
/// is named for benchmarking, but asked only its version it measures
/// nothing, and the job is no benchmark job. A short run is one.
#[test]
fn a_program_asked_its_version_measures_nothing() {
    assert_eq!(
        lint_in("heldout33", "version.yml"),
        [at("silent-baseline", 16)]
    );
}

/// valkey-search's endurance job runs `docker run ... IMAGE sudo -E
/// scripts/benchmark/run_endurance_test.sh`: the container's command is
/// the repository's script after a wrapper, read as part of the step, and
/// its clone of valkey at `unstable` is found. A mount's `src:dst` naming
/// the same script runs nothing.
#[test]
fn a_containers_script_after_a_wrapper_is_read() {
    assert_eq!(
        lint_in("heldout33", "container-sudo.yml"),
        [at("unpinned-clone", 13)]
    );
}
