//! `lint` on the shapes the tenth held-out set (and the ninth, seventh and
//! eighth) still missed or wrongly found after their first mends (issue
//! 49; BENCHMARKS.md, "Mends after held-out 10 (second round)"). Each
//! fixture in `tests/fixtures/lint/heldout10/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it that must stay
//! as it was.

use super::heldout5::{at, lint_in};
use super::heldout16::lint_all;

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout10", file)
}

/// optimum-amd's "Run Benchmarks": `docker run ... --entrypoint /bin/bash
/// IMAGE -c "pip install git+URL && ..."`, written as a plain scalar over
/// many lines. The container's shell runs the `-c` script, so its
/// unpinned installs are found, each at the line it starts on; the step
/// measures by its name alone, so all of it may measure. A pinned install
/// and an install in an upload step after the measuring are not found.
#[test]
fn a_containers_shell_script_in_a_plain_scalar_is_read_at_its_lines() {
    assert_eq!(
        lint("entrypoint-shell.yml"),
        [at("unpinned-clone", 25), at("unpinned-clone", 27)]
    );
}

/// AutoMQ's nightly `benchmarks_e2e`: a call named for benchmarking of
/// the repository's own `e2e-run.yml`, whose one job (an end-to-end test
/// job by its own file) allows 2,880 minutes. Found at the call; the same
/// workflow called for a test suite, and a benchmark call of a workflow
/// allowed 60 minutes, are not.
#[test]
fn a_benchmark_calls_long_allowance_is_found_at_the_call() {
    assert_eq!(lint("nightly-suites.yml"), [at("long-timeout", 19)]);
    assert_eq!(lint("suite-run.yml"), []);
}

/// valkey-glide's language test jobs run the repository's own
/// `./.github/workflows/test-benchmark` action on a runner from an
/// earlier job's matrix (an expression): benchmark jobs, so their
/// job-level `always()` is found. A job that only uses an action named
/// for setting the benchmarks up is not one.
#[test]
fn the_repositorys_own_benchmark_action_makes_a_benchmark_job() {
    assert_eq!(
        lint("language-tests.yml"),
        [at("job-always", 30), at("job-always", 45)]
    );
}

/// test-infra's weekly update of pytorch/pytorch's expected accuracy: an
/// `actions/checkout` of another project at its tip that a later step
/// pushes to is the target the job writes, as a clone pushed to is. The
/// same checkout with no push still measures a moving tip.
#[test]
fn a_checkout_pushed_to_is_a_target() {
    assert_eq!(lint("update-expected.yml"), [at("unpinned-clone", 36)]);
}

/// test-infra's reusable upload: a job that downloads the results its
/// caller measured and only runs steps named for uploading them relays
/// them, though its script is named for benchmarking; no benchmark rule
/// applies. A job that downloads a baseline and runs the benchmarks
/// itself is still a benchmark job.
#[test]
fn a_job_that_only_relays_downloaded_results_is_no_benchmark_job() {
    assert_eq!(
        lint("upload-results.yml"),
        [at("long-timeout", 36), at("unpinned-clone", 44)]
    );
}

/// aws-lc's ABI diff: a step named "Perform library ABI Diff" is named
/// for a verb, not for performance, so its job is no benchmark job and
/// its unchecked `github.event.before` no finding. A step named for
/// performance still makes one.
#[test]
fn perform_is_a_verb_not_performance() {
    assert_eq!(lint("interface-diff.yml"), [at("unchecked-before", 36)]);
}

/// test-infra's dependency check: a loop over `git log
/// HEAD~101..HEAD~1` that rebases each commit out reads history and tries
/// no baseline. The same listing looped over to check each commit out and
/// build it is a walk.
#[test]
fn a_loop_that_only_reads_history_is_no_walk() {
    assert_eq!(lint("dependency-check.yml"), [at("baseline-walk", 36)]);
}

/// rally's tracks compatibility job: known to measure only by the logs
/// under `benchmarks/` it uploads, so its program step measured them and
/// its 160 minutes are found at the step; a download allowed 150 minutes
/// is a chore.
#[test]
fn an_upload_alone_makes_the_program_steps_the_measuring_ones() {
    assert_eq!(lint("upload-only-evidence.yml"), [at("long-timeout", 20)]);
}

/// Torch-TensorRT's `linux-test.yml`: called by `_test-linux.yml`, which
/// the push workflows call. Its cancelling group of `pull_request.number
/// || github.ref_name` is met by main's pushes two calls up, so it is
/// `cancel-main`; the `labeled` trigger two calls up is found at the
/// caller whose group it cancels, not here.
#[test]
fn a_callers_callers_pushes_meet_the_called_group() {
    let expected = [("gpu-test.yml".to_owned(), "cancel-main".to_owned(), 19)];
    assert_eq!(lint_all("heldout10-callers"), expected);
}

/// RediSearch's benchmark flow: a runner expression whose input is only
/// compared picks one of its quoted labels, both GitHub's images: a
/// hosted job, no `long-timeout` for its missing allowance. A runner that
/// may be the input itself stays an expression lint cannot read.
#[test]
fn a_runner_chosen_by_comparing_an_input_is_one_of_its_labels() {
    assert_eq!(lint("arch-runner.yml"), [at("long-timeout", 25)]);
}

/// intel's `check-jobs`: a status job on a self-hosted label that checks
/// out, sets Python up and runs alls-green over its needs holds the
/// runner for seconds; its `always()` is no finding. A job that runs the
/// tests after the same set-up still is.
#[test]
fn a_status_job_after_set_up_is_a_shim() {
    assert_eq!(lint("status-job.yml"), [at("job-always", 36)]);
}
