//! `lint` on the shapes the eleventh held-out set found missed or wrongly
//! found (issue 49; BENCHMARKS.md, "Mends after held-out 11"). Each
//! fixture in `tests/fixtures/lint/heldout11/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it that must stay
//! as it was.

use super::heldout5::{at, lint_in};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout11", file)
}

/// BladeDISC's TorchBench jobs call the repository's own reusable
/// workflow with `exec_command: bash ./.../torch_bench_gpu.sh cuda
/// partial`, which the called job runs as its container's command; the
/// script clones the suite and `git pull && git checkout main` before
/// measuring. The clone is found at the call's `exec_command:` line. A
/// script that checks out a full SHA, and a value the called job only
/// echoes (`label:`), are no finding.
#[test]
fn a_command_a_call_passes_its_reusable_workflow_to_run_is_read_as_a_step() {
    assert_eq!(lint("nightly-models.yml"), [at("unpinned-clone", 14)]);
}

/// The same script run by a step: what a benchmark command's script does
/// before it measures is part of that command's run, so its clone is
/// measured even when no command after it is named for benchmarking.
#[test]
fn what_a_benchmark_script_runs_is_measured_by_it() {
    assert_eq!(lint("models-step.yml"), [at("unpinned-clone", 14)]);
}

/// snmalloc's Morello job: its runner is `fromJSON(format('[
/// "self-hosted", "{0}", "{1}" ]', ... || 'benchmark'))` (a machine kept
/// for measuring) and its name is `${{ matrix.os }} ${{
/// matrix.build-type }}`, whose `build` is a matrix key, not a chore:
/// a benchmark job by its runner with no timeout. A job whose written
/// name says it builds (`Build ${{ matrix.os }}`) is a chore by its name,
/// but a chore undoes only the name's and the workflow's evidence: on the
/// runner kept for measuring it holds that machine, and is found too
/// (set 24's scala3-benchmarks `publish-pr`, confirmed by its blind
/// reading).
#[test]
fn the_words_of_a_names_expressions_say_no_chore() {
    assert_eq!(
        lint("board-ci.yml"),
        [at("long-timeout", 13), at("long-timeout", 30)]
    );
}

/// isa-l's RISC-V job on its own runner label runs `bash
/// tools/test_extended.sh`, whose commands run the build's performance
/// programs (`./igzip_file_perf`): a benchmark job with no timeout. The
/// job that runs only the unit tests, and one that profiles a test with
/// `./perf stat` (Linux's profiler), are not benchmark jobs.
#[test]
fn a_built_program_named_for_performance_runs_benchmarks() {
    assert_eq!(lint("ci.yml"), [at("long-timeout", 8)]);
}

/// llm-d-benchmark's "Find latest experiment results dirs": `set +e`,
/// then a loop over `baseline ...` whose `case` sets
/// `base=/tmp/baseline-results` and `find`s the newest directory. It runs
/// and compares nothing, so its `set +e` swallows no comparison; the
/// step that then runs the comparison table after `set +e` still does.
#[test]
fn set_plus_e_before_only_locating_the_baseline_swallows_nothing() {
    assert_eq!(lint("results-dirs.yml"), [at("silent-baseline", 29)]);
}

/// llm-d-benchmark's wait for its baseline: `exit 0` in the `else` of
/// `[[ $? -ne 0 ]]` after listing the baseline runs when the baseline was
/// found, not when a file is missing. The `else` of a file's test (`[ -f
/// baseline.csv ]`) still is the missing file's branch.
#[test]
fn the_else_of_a_test_of_no_file_is_not_a_missing_files_branch() {
    assert_eq!(lint("wait-baseline.yml"), [at("silent-baseline", 32)]);
}

/// openobserve's regression summary: `always()` on a 5-minute job of its
/// self-hosted pool whose one step sets `TESTS_OK=false`, tests the
/// needed jobs' results and echoes or exits: a report shim. A job that
/// also runs a program (`npx playwright merge-reports`) is none.
#[test]
fn a_shim_that_sets_variables_still_only_reports() {
    assert_eq!(lint("summary-shim.yml"), [at("job-always", 42)]);
}

/// BladeDISC's benchmark jobs call its reusable workflow, whose one job
/// is allowed `timeout-minutes: ${{ inputs.timeout_minutes }}`: the
/// 4,320 to 14,400 minutes a call passes, or else the input's 360-minute
/// default. That is the calling benchmark job's allowance, found at each
/// call's key line (the called job's own line is one line for every
/// caller, and not every caller benchmarks). A call passing 60 is no
/// finding, nor a call that is no benchmark job (`make docs`) though it
/// gets the 360-minute default.
#[test]
fn a_called_jobs_timeout_input_is_the_calling_benchmark_jobs_allowance() {
    assert_eq!(
        lint("models-allowance.yml"),
        [at("long-timeout", 9), at("long-timeout", 16)]
    );
}
