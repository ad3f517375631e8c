//! `lint` on the shapes found wrongly or missed in held-out set 46 at
//! first sight (issue 49; BENCHMARKS.md, "Mends after held-out 45
//! to 49"). Each fixture in `tests/fixtures/lint/heldout46/` is a real
//! workflow's shape cut down and written anew, with a look-alike beside
//! it.

use super::heldout5::{at, lint_in};

/// matter-labs' `matterlabs-ci-runner-high-performance` runs lints,
/// builds and releases: "high" before the word says the machine's size,
/// not a use, so a build on it with no timeout is no benchmark job (sets
/// 43 and 46, read again under the new letter). A runner labelled `perf`
/// is kept for measuring.
#[test]
fn a_high_performance_runner_is_a_size_not_a_use() {
    assert_eq!(
        lint_in("heldout46", "sized-runner.yml"),
        [at("long-timeout", 11)]
    );
}

/// rally-tracks names its step "Run tests${{ needs.determine-build.outputs
/// .release_build }}": the words of an expression are its contexts' paths
/// (`build`), not a chore the step does, so its 160 minutes are a
/// benchmark's in a job that uploads rally's races.
#[test]
fn an_expression_in_a_steps_name_says_no_chore() {
    assert_eq!(
        lint_in("heldout46", "expression-name.yml"),
        [at("long-timeout", 12)]
    );
}

/// DLXEmu uploads `base_benchmark_<compiler>.json` from pushes that
/// cancel each other: an artifact named for the base side is kept for
/// later runs, as one named for a baseline is, so the hosted job's
/// cancelling group loses it. An artifact named `database-image` is not.
#[test]
fn an_artifact_named_for_the_base_is_kept_results() {
    assert_eq!(
        lint_in("heldout46", "base-artifact.yml"),
        [at("cancel-main", 7)]
    );
    assert_eq!(lint_in("heldout46", "image-artifact.yml"), []);
}

/// XiangShan's "SPEC06 Test - astar" steps run SPEC CPU2006 on its
/// simulator, allowed 500 minutes: SPEC's CPU suites by their year are a
/// known benchmark's name. "Run spec tests" (a specification's) is not.
#[test]
fn a_spec_cpu_suite_is_a_known_benchmark() {
    assert_eq!(
        lint_in("heldout46", "spec-suite.yml"),
        [at("long-timeout", 8)]
    );
}

/// zq2 archives a closed pull request's branch in Bencher (`bencher
/// archive`), continued on error, in its benchmarks' workflow: archiving
/// is a chore, and `bencherdev/bencher` only installs the command line,
/// so the job runs no benchmark. `bencher run ... cargo bench` measures,
/// and its `continue-on-error` is found.
#[test]
fn archiving_results_runs_no_benchmark() {
    assert_eq!(
        lint_in("heldout46", "closed-branch.yml"),
        [at("silent-baseline", 21)]
    );
}
