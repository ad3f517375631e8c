//! `lint` on the shapes the fourteenth and fifteenth held-out sets found
//! wrongly found or missed (issue 49; BENCHMARKS.md, "Mends after
//! held-out 14 and 15"). Each fixture in `tests/fixtures/lint/heldout15/`
//! is a real workflow's shape cut down and written anew, with look-alikes
//! beside it that must stay as they were.

use super::heldout5::{at, lint_in, lint_with};
use crate::support::harness::{Bin, repo_root};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout15", file)
}

/// A model server's performance workflow: `create-runners` starts the
/// GPU machines with `./start_instance.sh` on a small self-hosted
/// scheduler, `stop-gpu-runners` and "Terminate EC2 machines" give them
/// back. Starting and stopping machines is a chore, not a benchmark, so
/// the workflow's name makes none of them a benchmark job: no
/// `long-timeout`. The model tests between them still are (one allowed
/// 240 minutes, one on a self-hosted GPU runner with no timeout), and the
/// teardown's job-level `always()` on its self-hosted runner is still
/// `job-always`, which asks only what the runner costs.
#[test]
fn jobs_that_start_or_stop_machines_are_chores() {
    assert_eq!(
        lint("provisioning.yml"),
        [
            at("long-timeout", 20),
            at("long-timeout", 27),
            at("job-always", 34),
        ]
    );
}

/// A database driver's tests: `runs-on: ${{ matrix.os }}` over `matrix:
/// ${{ fromJSON(needs.list.outputs.matrix) }}`, a matrix the `list` job's
/// Python writes with GitHub's own images; and a lint job whose
/// `matrix.os` is `fromJson` of another output, also hosted images. The
/// file shows what those jobs pick, and it is hosted: a benchmark step
/// with no timeout there is no `long-timeout`. A job whose picker writes
/// `self-hosted` (`LABELS: '["self-hosted", "llm", "perf"]'`), a runner a
/// job starts with a runner action, and one a variable names (which the
/// file never shows) are still found.
#[test]
fn a_runner_another_job_picks_is_what_that_job_writes() {
    assert_eq!(
        lint("picked-runner.yml"),
        [
            at("long-timeout", 53),
            at("long-timeout", 59),
            at("long-timeout", 74),
        ]
    );
}

/// A results store's ingest job, run on `workflow_run` after the
/// benchmarks: it downloads their results and runs
/// `benchmark_store.py upload DIR` in a step named "Ingest source
/// comparison", exiting 0 when the manifest is missing. It sends what
/// another run measured, so it is no benchmark job and its `exit 0`
/// hides no comparison. A job that runs the benchmark with `--upload`
/// (a flag: it measures, then also uploads) and exits 0 when its
/// baseline is missing is still `silent-baseline`.
#[test]
fn a_job_that_only_sends_downloaded_results_measures_nothing() {
    assert_eq!(lint("ingest.yml"), [at("silent-baseline", 39)]);
}

/// A benchmarking tool's repository (`example/load-benchmarker`): its
/// image build job on an organisation's runner group uploads the binary
/// it built, `load-benchmarker_x86_64`. The artifact is named for
/// benchmarking only by the repository's name, which says what the
/// project is, not what the artifact holds: no benchmark job, no
/// `long-timeout`. Its load test uploading `benchmark-results`, and a
/// "Build benchmarks" job uploading `codspeed-benchmarks` with
/// `continue-on-error`, are still found. The step says what it uploads
/// ("Upload binary"): a program built, no results, whatever the
/// repository is called (held-out 27's timefold build jobs, "Upload the
/// binaries" of a `.jar`, made this so for any repository).
#[test]
fn an_upload_named_for_benchmarking_by_the_repositorys_name_alone_is_no_evidence() {
    let found = [at("long-timeout", 28), at("silent-baseline", 44)];
    let own = ["--repository", "example/load-benchmarker"];
    assert_eq!(lint_with("heldout15", "build-image.yml", &own), found);
    let other = ["--repository", "example/loadgen"];
    assert_eq!(lint_with("heldout15", "build-image.yml", &other), found);
}

/// GitHub runs only the files directly in `.github/workflows`: one in a
/// subfolder (`.github/workflows/disabled/test-gpu.yml`, a cancelling
/// group on a self-hosted GPU runner, put aside by its project) never
/// runs, and lint, given the folder, reads only the folder's own files.
/// Named on the command line, the same file is linted and found.
#[test]
fn a_workflow_in_a_subfolder_is_never_run_and_not_read() {
    let root = repo_root().join("tests/fixtures/lint/heldout15");
    let run = Bin::new()
        .in_dir(&root)
        .args(["lint", "--format", "json", "--fail-on", "error"])
        .run();
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["files"], 12, "{}", run.stdout);
    let files: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["file"].as_str())
        .collect();
    assert!(!files.iter().any(|f| f.contains("disabled")), "{files:?}");
    assert_eq!(
        lint("disabled/test-gpu.yml"),
        [at("cancel-main", 10)],
        "named, it is linted"
    );
}

/// A code-size job builds the reference and the change in one run,
/// through a script's function given each side by a variable
/// (`build_step $REFERENCE ~/size0` and `build_step $COMPARISON
/// ~/size1`): a tool it cloned at its default branch serves both sides
/// alike, no drift between them. A job that builds one side only
/// (`build_one ${REFERENCE:-HEAD^1}`) and compares with stored sizes
/// still measures against a clone that may have moved.
#[test]
fn a_side_named_by_a_variable_is_that_side() {
    assert_eq!(lint("code-size.yml"), [at("unpinned-clone", 25)]);
}

/// A runtime's tests on a GPU runner run the benchmark it built,
/// `./runtime/build/deploy_benchmark`, in a container's shell: a program
/// from the build's folder is named for what it measures (it times the
/// runtime's deploy path), not for a chore, so the job is a benchmark job
/// and its missing timeout is found. A script named for deploying the
/// benchmarks (`./tools/deploy_benchmarks.py`) is still a chore.
#[test]
fn a_built_program_named_for_benchmarking_measures_whatever_its_other_words() {
    assert_eq!(lint("docker-tests.yml"), [at("long-timeout", 7)]);
}

/// A runtime's reusable build-and-test workflow calls pytorch/test-infra's
/// `linux_job_v2.yml`, which runs the call's `script:` on the runner it
/// names: that script is read as a step of the calling job, so its clone
/// of pyenv at the default branch, before the benchmark it runs, is
/// `unpinned-clone`. The same script passed to a workflow lint does not
/// know, and a test-only script passed to the known one, are no finding.
#[test]
fn a_script_a_well_known_remote_job_workflow_runs_is_a_step() {
    assert_eq!(lint("remote-job.yml"), [at("unpinned-clone", 18)]);
}

/// A router's pull-request workflow, on `labeled` with a cancelling
/// per-pull-request group, runs its benchmarks through a call of its own
/// `perf-tests.yml` (`cargo bench`): adding a label cancels them, so the
/// group is `label-cancel`. The same workflow calling a docs build is
/// not.
#[test]
fn benchmarks_run_through_a_call_are_the_calling_workflows() {
    assert_eq!(lint("pr-label.yml"), [at("label-cancel", 10)]);
    assert_eq!(lint("pr-docs.yml"), []);
}

/// A depth-benchmark job's step named "Run Execution Benchmark Tests"
/// runs each test of its list with `pytest` after `set +e`, then `set -e`
/// and `exit 0 # force successful exit`: the step measures by its name,
/// so the programs it runs are the measurement, and their failures leave
/// it green. The same loop that exits 1 when any test failed is handled.
#[test]
fn set_plus_e_in_a_step_that_measures_by_its_name_swallows_its_programs() {
    assert_eq!(lint("depth-tests.yml"), [at("silent-baseline", 16)]);
}
