//! `lint` on the shapes found wrongly in held-out set 43 at first sight
//! (issue 49; BENCHMARKS.md, "Mends after held-out 43").
//! Each fixture in `tests/fixtures/lint/heldout43/` is a real workflow's
//! shape cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// TulipaEnergyModel's benchmark workflow cancels when
/// `startsWith(github.ref, 'refs/pull/')`: true for every pull request's
/// run, the labelled one's among them, so adding a label cancels the
/// running benchmark. An expression false for pull requests cancels none.
#[test]
fn an_expression_true_for_every_pull_request_cancels_a_labelled_run() {
    assert_eq!(
        lint_in("heldout43", "pull-ref-cancel.yml"),
        [at("label-cancel", 7)]
    );
    assert_eq!(lint_in("heldout43", "pull-ref-kept.yml"), []);
}

/// distance-hashing's base checkout falls back from the pull request's
/// base commit to a dispatch input and then to `'main'`: a dispatch that
/// blanks the input measures main's tip. A chain whose last fallback is
/// the run's own commit moves nowhere.
#[test]
fn a_commit_then_an_input_then_a_branch_falls_back_to_the_branch() {
    assert_eq!(
        lint_in("heldout43", "input-then-branch.yml"),
        [at("moving-fallback", 14)]
    );
}

/// zksync-os-server's image build runs on a runner named for
/// performance (here `...-perf`: its own, `...-high-performance`, names a
/// size since set 46), but its only script signs in to the cloud's registry
/// (`gcloud auth configure-docker`) before an action builds: it runs no
/// program of its own, so its name gives no benchmark job. A job on the
/// same runner that builds with a program of its own is one, by the
/// runner's name, and holds it for 360 minutes.
#[test]
fn signing_in_to_a_registry_runs_no_program() {
    assert_eq!(
        lint_in("heldout43", "signed-in-image.yml"),
        [at("long-timeout", 15)]
    );
}

/// mosaic's solver runs are bounded at their step by `timeout-minutes:
/// ${{ inputs.timeout }}`, and its benchmark call passes 600: the cost is
/// the call's, found at its key, as a called job's own input allowance
/// is; a call passing 30 is none. In the called file, that step bounds
/// the job (loading images, `docker load` under `shopt`, runs nothing
/// measured before it), so the job's missing `timeout-minutes` is no
/// 360 minutes.
#[test]
fn a_step_bounded_by_an_input_is_read_at_the_call() {
    assert_eq!(
        lint_in("heldout43", "solver-calls.yml"),
        [at("long-timeout", 5)]
    );
    assert_eq!(lint_in("heldout43", "solver-run.yml"), []);
}

/// scipy/xsf's test jobs end with "Ccache performance", `pixi run ccache
/// -s`: pixi's `run` runs the program after it, as uv's does, and a
/// compiler cache's statistics measure nothing, so the jobs are no
/// benchmark jobs and their per-run caches are no finding (set 44). A
/// job that runs asv through pixi is one.
#[test]
fn pixi_runs_the_program_after_its_run() {
    assert_eq!(
        lint_in("heldout43", "cache-statistics.yml"),
        [at("cache-discipline", 25)]
    );
}

/// mlsdm's evaluation job checks its test dependencies with `python -c
/// "import hypothesis, pytest, pytest_benchmark"`: inline code that
/// imports a harness runs no script named for benchmarking, so the job,
/// continued on error, is no benchmark job (set 44). A job that then runs
/// pytest-benchmark's `--benchmark-json` is one.
#[test]
fn inline_code_that_imports_a_harness_runs_no_benchmark() {
    assert_eq!(
        lint_in("heldout43", "import-check.yml"),
        [at("silent-baseline", 19)]
    );
}

/// kreuzberg's setup job, "Build harness + native libs", runs
/// `ensure-benchmark-harness-exists.sh` and `build-native-libs.sh`: scripts
/// named for a chore around the benchmarks (ensuring, building) run none,
/// so the job's 120 minutes are a build's (set 44). The job that runs
/// `run-benchmarks.sh` is allowed as long, and found.
#[test]
fn a_script_named_for_a_chore_around_the_benchmarks_runs_none() {
    assert_eq!(
        lint_in("heldout43", "harness-setup.yml"),
        [at("long-timeout", 18)]
    );
}

/// z42's "Fetch main baseline" continues on error and writes
/// `BASELINE_AVAILABLE=true` to `$GITHUB_ENV` only when it fetched one;
/// "Note when baseline absent", `if: env.BASELINE_AVAILABLE != 'true'`,
/// says so in the run's summary: the missing baseline is said where the
/// run is read (set 43). A job whose summary is written only on the
/// success side (`== 'true'`) says nothing when the fetch failed.
#[test]
fn a_missing_baseline_noted_in_the_summary_is_said() {
    assert_eq!(
        lint_in("heldout43", "baseline-noted.yml"),
        [at("silent-baseline", 34)]
    );
}

/// bielu's "Commit baseline to repository" copies the results and pushes
/// them, continuing on error: a step named for committing what was
/// measured hands it on, as one named for uploading does, and compares
/// nothing (set 43). The comparison after it, continued on error, is
/// found.
#[test]
fn a_step_named_for_committing_the_results_hands_them_on() {
    assert_eq!(
        lint_in("heldout43", "baseline-committed.yml"),
        [at("silent-baseline", 22)]
    );
}
