//! `lint` on the shapes the twenty-eighth held-out set found wrongly or
//! missed (issue 49; BENCHMARKS.md, "Mends after held-out 27, 28 and 29").
//! Each fixture in `tests/fixtures/lint/heldout28/` is a real workflow's
//! shape cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// go-billy's benchmark jobs continue on error and hand the outcome on in
/// their `outputs:`; the compare job fails when the base's is not
/// `success`. The pull request's outcome, only printed, is still found.
#[test]
fn an_outcome_a_later_job_compares_is_acted_on() {
    assert_eq!(
        lint_in("heldout28", "compare-job.yml"),
        [at("silent-baseline", 24)]
    );
}

/// whitenoise-rs' hotspot issue is written by an actions/github-script
/// step that compares `process.env.BENCHMARK_OUTCOME === 'success'`: the
/// suite's failure is acted on. An outcome only printed is not.
#[test]
fn a_github_script_comparison_acts_on_the_outcome() {
    assert_eq!(
        lint_in("heldout28", "hotspot.yml"),
        [at("silent-baseline", 18)]
    );
}

/// noir-bench's baseline download runs only `gh` and `mkdir` and says a
/// `::warning` where it fails: continued on error, it hides nothing. A
/// download that says nothing is found.
#[test]
fn a_set_up_step_that_warns_hides_no_failure() {
    assert_eq!(
        lint_in("heldout28", "baseline-download.yml"),
        [at("silent-baseline", 25)]
    );
}

/// physa-db's `just bench-iai` runs its iai-callgrind suite (a target
/// beginning with `bench`), so "Run iai on base", continued on error, is
/// a measuring step. `just bench-docs` runs none.
#[test]
fn a_target_beginning_with_bench_runs_the_benchmarks() {
    assert_eq!(lint_in("heldout28", "iai.yml"), [at("silent-baseline", 16)]);
}

/// chainflip's `terraform-benchmarks-runner` job stands up the machine
/// its benchmarks run on ("Deploy/Destroy Benchmarks Runner"): a chore,
/// so its checkout at `main` is no finding. The job that runs the
/// benchmarks with its harness at `main` is found.
#[test]
fn a_job_that_terraforms_a_benchmark_runner_measures_nothing() {
    assert_eq!(
        lint_in("heldout28", "deploy-runner.yml"),
        [at("unpinned-clone", 25)]
    );
}

/// LoAT checks its own repository out into `actions/` and runs
/// `./actions/scripts/run_benchmarks.sh`: the repository's
/// `scripts/run_benchmarks.sh`, a script named for benchmarking whose
/// `set +e` before the solver is never undone by a failure.
#[test]
fn a_script_under_the_repositorys_own_checkout_folder_is_read() {
    assert_eq!(
        lint_in("heldout28", "own-checkout-path.yml"),
        [at("silent-baseline", 15)]
    );
}
