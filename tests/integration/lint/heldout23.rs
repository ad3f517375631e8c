//! `lint` on the shapes the twenty-third held-out set found missed or
//! wrongly (issue 49; BENCHMARKS.md, "Mends after held-out 23"). Each
//! fixture in `tests/fixtures/lint/heldout23/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// db-benchmark's steps run `./run.sh` after variables set for it; the
/// script's `set +e` before its launcher is followed by a plain `echo` of
/// the failure: found once, at the first command that runs it. The step
/// that fails on the launcher's log after the script, and the script that
/// exits with the status, are acted on.
#[test]
fn a_set_e_in_a_script_the_step_runs_is_read() {
    assert_eq!(
        lint_in("heldout23", "regression.yml"),
        [at("silent-baseline", 14)]
    );
}

/// ix's pull-request benchmark runs the base side with its own program's
/// `bench` subcommand (`ix bench run --repo base`) after `set +e` and only
/// echoes its status: found. `make bench-docs` runs no benchmark.
#[test]
fn a_programs_bench_subcommand_runs_benchmarks() {
    assert_eq!(
        lint_in("heldout23", "base-side.yml"),
        [at("silent-baseline", 16)]
    );
}

/// RedisBloom's benchmark flow checks out redis at `ref: '7.2'`, a
/// maintenance branch (its releases are `7.2.4`): found at its `ref:`.
/// The release beside it is pinned.
#[test]
fn two_numbers_alone_are_a_branch() {
    assert_eq!(
        lint_in("heldout23", "benchmark-flow.yml"),
        [at("unpinned-clone", 14)]
    );
}

/// iroh's flaky tests run on `fromJSON(matrix.runs_on)`, whose `include:`
/// values write lists, the macOS cells `'["self-hosted","macOS","ARM64"]'`:
/// a self-hosted job, so adding a label cancels it (found at
/// `cancel-in-progress:`). The same matrix writing a hosted image is no
/// expensive runner.
#[test]
fn a_matrix_value_read_as_json_is_a_list_of_labels() {
    assert_eq!(
        lint_in("heldout23", "matrix-json-self-hosted.yml"),
        [at("label-cancel", 7)]
    );
    assert_eq!(lint_in("heldout23", "matrix-json-hosted.yml"), []);
}

/// tt-llk's group gives a protected branch's runs a group each
/// (`github.ref_protected && github.run_id || ...number || github.ref`): a
/// pull request's merge ref is never protected, so its runs share the
/// group by number and a label cancels them (found at
/// `cancel-in-progress:`); main's pushes, maybe protected, are not read
/// as cancelled.
#[test]
fn a_pull_requests_ref_is_never_protected() {
    assert_eq!(
        lint_in("heldout23", "ref-protected.yml"),
        [at("label-cancel", 12)]
    );
}

/// tt-llk's performance calls are named `setup-and-test-<chip>`: setting up
/// and then testing is more than the chore, so the call named for
/// performance is a benchmark call and its 240 minutes passed to the
/// called job's `timeout-minutes` are found at the call. A call named for
/// the setup alone is not.
#[test]
fn a_chore_and_then_the_running_is_more_than_the_chore() {
    assert_eq!(
        lint_in("heldout23", "perf-calls.yml"),
        [at("long-timeout", 6)]
    );
}

/// db-benchmark's `mount.sh` clones the checkout's own remote (`git clone
/// $(git remote get-url origin) $MOUNT_POINT/...`) onto a faster disk: the
/// repository's own code, no finding. Another project's clone beside it
/// is found.
#[test]
fn a_clone_of_the_checkouts_own_remote_is_the_repositorys_code() {
    assert_eq!(
        lint_in("heldout23", "run-benchmark.yml"),
        [at("unpinned-clone", 16)]
    );
}

/// neqo's benchmark job runs each side's build in turn, `bench_exec
/// "$BASELINE_BENCH" -- --bench --save-baseline baseline` and `bench_exec
/// "$PR_BENCH" -- --bench --baseline-lenient baseline`, the baseline's
/// variable emptied on a condition when its build is missing: both sides
/// measured in one run, so the checkout serves both alike (no finding).
/// Where only the change's build runs, the checkout drifts.
#[test]
fn each_sides_build_run_in_turn_measures_both() {
    assert_eq!(lint_in("heldout23", "interleaved-both.yml"), []);
    assert_eq!(
        lint_in("heldout23", "interleaved-one.yml"),
        [at("unpinned-clone", 14)]
    );
}

/// neqo's CodSpeed jobs run on `matrix.bench.runner`, the matrix key read
/// from another job's outputs, which the repository's own action writes
/// (`bench-matrix`'s `jq` adds `runner: "ubuntu-24.04"`): a hosted image,
/// so no timeout is asked for. The same action writing `self-hosted`
/// makes the job one on an expensive runner with no timeout.
#[test]
fn a_runner_picked_by_the_repositorys_own_action_is_read_there() {
    assert_eq!(lint_in("heldout23", "picked-bench.yml"), []);
    assert_eq!(
        lint_in("heldout23", "picked-gpu.yml"),
        [at("long-timeout", 13)]
    );
}
