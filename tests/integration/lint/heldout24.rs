//! `lint` on the shapes the twenty-fourth held-out set found missed or
//! wrongly (issue 49; BENCHMARKS.md, "Mends after held-out 24"). Each
//! fixture in `tests/fixtures/lint/heldout24/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// csp-benchmarks' `detect-crates` lists the crates to run with text
/// tools, an array over lines and a `[[ =~ ]]` regex test: it runs no
/// program of its own, so it is no benchmark job and its missing timeout
/// is no finding. The `cargo bench` job on the same runner is found.
#[test]
fn a_listing_job_runs_no_program() {
    assert_eq!(
        lint_in("heldout24", "detect-crates.yml"),
        [at("long-timeout", 31)]
    );
}

/// nodejs-bench-operations' `commit` job continues on error, downloads the
/// benchmark job's artifacts, runs "Write Benchmark Reports"
/// (`write-bench-results.mjs`, `generate-reports.mjs`) and commits them: it
/// relays results measured before, so it is no benchmark job. The same job
/// running the suite again measures, and its `continue-on-error` is found.
#[test]
fn a_job_writing_reports_from_downloaded_results_relays() {
    assert_eq!(lint_in("heldout24", "reports-relay.yml"), []);
    assert_eq!(
        lint_in("heldout24", "reports-measure.yml"),
        [at("silent-baseline", 19)]
    );
}

/// ATOM's benchmark client continues on error; a later step keeps its
/// outcome in a variable (`BENCH_OUTCOME="${{ steps.x.outcome }}"`, or an
/// `env:` entry) and compares it with `success` before a `::warning`:
/// acted on. An outcome kept and only shown is not: found.
#[test]
fn an_outcome_kept_in_a_variable_and_compared_is_acted_on() {
    assert_eq!(
        lint_in("heldout24", "outcome-variable.yml"),
        [at("silent-baseline", 20)]
    );
}

/// azure-storage-fuse's "Remove generated secrets and mounts" runs `set
/// +e` before unmounting the baseline's and the candidate's file systems
/// on any outcome: a clean-up, no results. A step running the baseline's
/// build after `set +e` is found.
#[test]
fn a_step_named_for_removing_holds_no_results() {
    assert_eq!(
        lint_in("heldout24", "remove-mounts.yml"),
        [at("silent-baseline", 21)]
    );
}

/// ATOM checks out `${{ inputs.atom_commit || github.ref }}`: with no
/// commit given, the run's own ref, the branch it was started on, no
/// fallback to another branch's tip. `|| default_branch` is one: found.
#[test]
fn the_runs_own_ref_is_no_moving_fallback() {
    assert_eq!(
        lint_in("heldout24", "own-ref.yml"),
        [at("moving-fallback", 22)]
    );
}

/// geocat-comp checks out its results repository at `main`, copies the
/// new results into it, and `ad-m/github-push-action` pushes its folder
/// (`directory: geocat-comp-asv`): a target the job writes to, no
/// dependency measured. Another project checked out at `main` is found.
#[test]
fn a_checkout_an_action_pushes_is_a_target() {
    assert_eq!(
        lint_in("heldout24", "push-action.yml"),
        [at("unpinned-clone", 21)]
    );
}

/// ATOM clones its serving benchmark client at its default branch inside
/// the container, `$CONTAINER_ENGINE exec box bash -lc "git clone ..."`:
/// a login shell's `-lc` runs its script as `-c` does, found at the step.
#[test]
fn a_shells_c_among_other_flags_runs_its_script() {
    assert_eq!(
        lint_in("heldout24", "login-shell.yml"),
        [at("unpinned-clone", 15)]
    );
}

/// openxla-benchmark's GPU benchmark runs `docker run ... IMAGE
/// ./experimental/.../run_mmperf.sh` in the workspace it mounts: the
/// container's command is the repository's script, read as part of the
/// step, and its clone of mmperf at the default branch is found there.
#[test]
fn a_containers_command_script_is_read_as_part_of_the_step() {
    assert_eq!(
        lint_in("heldout24", "container-script.yml"),
        [at("unpinned-clone", 15)]
    );
}

/// bpf-benchmark's "x86 Benchmark" workflow is a benchmark job by its name
/// alone: no step runs a known harness. Its step running `micro/driver.py
/// suite --output micro/results/...` measures, as `long-timeout` reads
/// such a job, and its `continue-on-error` is found; the build step's,
/// named for a chore, is not.
#[test]
fn in_a_job_measuring_by_name_a_program_step_measures() {
    assert_eq!(
        lint_in("heldout24", "name-only.yml"),
        [at("silent-baseline", 16)]
    );
}

/// schema-benchmarks' `push-results` job needs the benchmark jobs and
/// pushes their results with `actions-js/push`: the results outlive the
/// run, so main's pushes cancelling each other lose a baseline (found at
/// `cancel-in-progress:`). With no job keeping them, nothing is lost.
#[test]
fn results_pushed_by_the_job_after_the_benchmarks_are_kept() {
    assert_eq!(
        lint_in("heldout24", "kept-by-push.yml"),
        [at("cancel-main", 9)]
    );
    assert_eq!(lint_in("heldout24", "not-kept.yml"), []);
}

/// An engine checked out at `main` and built into the image the benchmark
/// measures by `docker/build-push-action` (`context: engine`, pushed to a
/// registry): the image is measured code, not results sent away, so the
/// checkout is found, whatever word of pushing the action's name holds.
#[test]
fn a_checkout_built_into_an_image_is_measured_code() {
    assert_eq!(
        lint_in("heldout24", "build-push.yml"),
        [at("unpinned-clone", 15)]
    );
}

/// smg's radix-tree benchmark runs `cargo bench` on its `k8s-runner-cpu`
/// label with no timeout: a CPU machine of the project's own still waits
/// out GitHub's 360 minutes, so `long-timeout` finds it (the rules about
/// superseded runs let a CPU machine go). The hosted job is no finding.
#[test]
fn a_benchmark_job_on_an_own_cpu_machine_needs_a_timeout() {
    assert_eq!(
        lint_in("heldout24", "cpu-own-machine.yml"),
        [at("long-timeout", 9)]
    );
}

/// openxla's `compile_models_for_android` job, in a workflow named for
/// benchmarking, compiles what the device job measures: "compile" names a
/// chore unless the name says it is timed. Its script's
/// `compile_workloads.py --benchmark_name=...` names the benchmark it
/// builds, not a harness's option; `bench_compile_time
/// --benchmark_format=json` is timed and found.
#[test]
fn compiling_what_others_measure_is_no_benchmark_job() {
    assert_eq!(
        lint_in("heldout24", "compile-for-benchmarks.yml"),
        [at("long-timeout", 13)]
    );
    assert_eq!(
        lint_in("heldout24", "compile-workloads.yml"),
        [at("long-timeout", 13)]
    );
}

/// smg's `summarize-benchmarks` downloads the results and runs
/// `e2e_test/benchmarks/summarize.py`: summing up results measured before
/// is handling them, so its missing timeout is no finding.
#[test]
fn summarizing_results_is_no_benchmark_job() {
    assert_eq!(lint_in("heldout24", "summarize-benchmarks.yml"), []);
}

/// `pytest --benchmark-skip` runs the tests without pytest-benchmark's
/// benchmarks: no evidence. `--benchmark-only` is.
#[test]
fn pytest_told_to_skip_benchmarks_runs_none() {
    assert_eq!(
        lint_in("heldout24", "pytest-units.yml"),
        [at("long-timeout", 12)]
    );
}

/// delta-rs-benchmarking's `prepare_delta_rs.sh` clones delta-rs, then
/// checks out `DELTA_RS_REF` when it is set and else pulls `main`: the
/// pull moves the clone to main's tip on the path the nightly runs take.
/// A clone only ever checked out at the given commit is pinned.
#[test]
fn a_clone_pulled_on_one_path_is_unpinned() {
    assert_eq!(
        lint_in("heldout24", "pull-or-pin.yml"),
        [at("unpinned-clone", 13)]
    );
}

/// bpf-benchmark's arm64 job runs `python3 micro/driver.py suite` in its
/// baseline step, then again in a fallback step named for no benchmark;
/// both continue on error. The fallback reruns what the baseline step
/// measures, so it measures too. A step that shows the machine, running
/// another script, is no measuring step.
#[test]
fn a_step_rerunning_a_measured_script_measures() {
    assert_eq!(
        lint_in("heldout24", "fallback-rerun.yml"),
        [at("silent-baseline", 14), at("silent-baseline", 18)]
    );
}

/// scala3-benchmarks' `publish-pr` is named for a chore, but runs on its
/// `benchmarks` runner: a chore in the name undoes the name's and the
/// workflow's evidence, not the runner's, so its missing timeout is found.
/// A publishing job on an ordinary self-hosted runner is a chore.
#[test]
fn a_chore_on_a_benchmark_runner_holds_it() {
    assert_eq!(
        lint_in("heldout24", "publish-on-bench-runner.yml"),
        [at("long-timeout", 7)]
    );
}
