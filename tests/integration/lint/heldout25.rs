//! `lint` on the shapes the twenty-fifth held-out set found missed or
//! wrongly (issue 49; BENCHMARKS.md, "Mends after held-out 25"). Each
//! fixture in `tests/fixtures/lint/heldout25/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in, lint_with};

/// mise's perf gate runs `tak compare` under `set +e`, keeps `$?` in a
/// file and packages that file for the job that fails on it: handed on.
/// The same script whose file nobody reads swallows the status: found.
#[test]
fn a_status_kept_in_a_file_a_later_step_reads_is_handed_on() {
    assert_eq!(
        lint_in("heldout25", "status-file.yml"),
        [at("silent-baseline", 36)]
    );
}

/// typeberry-testing's `non-perf` runner label marks machines kept off
/// performance work: not named for it. The `perf` label is.
#[test]
fn a_negated_perf_label_names_no_benchmark_runner() {
    assert_eq!(
        lint_in("heldout25", "non-perf.yml"),
        [at("long-timeout", 13)]
    );
}

/// uxarray checks its own repository out at `ref: main`: its own code,
/// not another project. Its `uxarray-asv` dependency at `main` is found.
#[test]
fn the_repository_itself_at_a_branch_is_its_own_code() {
    assert_eq!(
        lint_with(
            "heldout25",
            "own-branch.yml",
            &["--repository", "UXARRAY/uxarray"]
        ),
        [at("unpinned-clone", 22)]
    );
}

/// starcoin skips its base run when the bench crate's `Cargo.toml` is not
/// on the base branch: a build manifest, not a results file. The `exit 0`
/// when the base's results are missing before `critcmp` is found.
#[test]
fn a_missing_build_manifest_is_no_missing_results_file() {
    assert_eq!(
        lint_in("heldout25", "manifest-missing.yml"),
        [at("silent-baseline", 24)]
    );
}

/// Steps that keep or show results (mlir-air's "Append perf history",
/// dynoxide's `update_readme_benchmarks.py`) and one that diffs outputs
/// for correctness (rosetta-ruchy's) compare no measurements: their
/// `continue-on-error` hides none. The performance comparison's does.
#[test]
fn keeping_showing_or_diffing_outputs_is_no_comparison() {
    assert_eq!(
        lint_in("heldout25", "results-kept.yml"),
        [at("silent-baseline", 25)]
    );
}

/// ColdVox's `ci_success` echoes its needs' results into `report.md`,
/// fails on a failed one and uploads the report: a status shim, whose
/// `always()` costs nothing. A job that runs a log collector is more.
#[test]
fn a_shim_that_uploads_its_own_report_is_still_a_shim() {
    assert_eq!(
        lint_in("heldout25", "report-upload.yml"),
        [at("job-always", 31)]
    );
}

/// zksync-os keeps `refs/heads/master`'s runs, but its default branch is
/// `main`: when the default branch is known to be `main`, `master` is
/// another branch, and main's pushes cancel each other. Keeping
/// `refs/heads/main`'s runs is no finding.
#[test]
fn master_is_another_branch_when_the_default_is_main() {
    assert_eq!(
        lint_with(
            "heldout25",
            "master-kept.yml",
            &["--default-branch", "main"]
        ),
        [at("cancel-main", 14)]
    );
}

/// aztec-fpc uploads its measurements as `benchmark-baseline-main`, the
/// artifact its pull requests download and compare against: results kept
/// for later runs, so main's pushes cancelling each other lose them.
#[test]
fn a_baseline_artifact_is_kept_results() {
    assert_eq!(
        lint_in("heldout25", "baseline-artifact.yml"),
        [at("cancel-main", 7)]
    );
}

/// cn stores its results with `GaloisInc/github-action-benchmark`, a fork
/// of the benchmark history action, pushing them to gh-pages: kept.
#[test]
fn a_forked_history_action_keeps_results() {
    assert_eq!(
        lint_in("heldout25", "forked-history.yml"),
        [at("cancel-main", 9)]
    );
}

/// gazelle_plugin's "Native SQL Engine TPC-H Suite" is named for a known
/// benchmark (TPC-H, written as two words), and clones its fork of Arrow
/// at `arrow-4.0.0-oap`: a version followed by a word that names the
/// fork's line of work, a branch that moves. `arrow-4.0.1-rc2` is a
/// release's stage: a tag.
#[test]
fn a_tpch_suite_and_a_forks_versioned_branch() {
    assert_eq!(
        lint_in("heldout25", "tpch-fork-branch.yml"),
        [at("unpinned-clone", 16)]
    );
}

/// zio-http's benchmark step goes into its FrameworkBenchmarks checkout,
/// `git init`s a folder, clones the pull request there and checks that
/// clone out at its commit: the checkout itself is never pinned, and is
/// found. A checkout pinned in its own directory is not.
#[test]
fn a_pin_in_a_repository_made_inside_a_checkout_is_not_the_checkouts() {
    assert_eq!(
        lint_in("heldout25", "nested-clone.yml"),
        [at("unpinned-clone", 17)]
    );
}

/// pylcm's GPU job "Run benchmarks on GPU and publish to ..." and its step
/// "Run benchmarks and publish" say they run the benchmarks: publishing
/// after the running does not make them a chore, so its 14,400 minutes
/// are found. A job named only for publishing is a chore.
#[test]
fn running_benchmarks_then_publishing_still_runs_them() {
    assert_eq!(
        lint_in("heldout25", "run-and-publish.yml"),
        [at("long-timeout", 10)]
    );
}

/// typeberry-testing's own `detect-perf` action says whether the job runs
/// on perf hardware: a look before the work, not the benchmarks, so its
/// set-up job is no benchmark job. Its `perf-suite` action runs them.
#[test]
fn an_own_action_that_detects_the_machine_runs_no_benchmark() {
    assert_eq!(
        lint_in("heldout25", "detect-perf.yml"),
        [at("long-timeout", 16)]
    );
}
