//! `lint` on the shapes the twenty-second held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 22"). Each fixture in
//! `tests/fixtures/lint/heldout22/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it that must still be found.

use super::heldout5::{at, lint_in};

/// package-benchmark's comparison continues on error and writes its
/// status to `$GITHUB_ENV`; the last step exits with it (`exit ${{
/// env.exitStatus }}`): acted on, no finding. Written but only shown, the
/// same status is found.
#[test]
fn a_status_handed_on_through_the_environment_is_acted_on() {
    assert_eq!(
        lint_in("heldout22", "env-status.yml"),
        [at("silent-baseline", 25)]
    );
}

/// sgkit clones its results repository after `asv run` and a later step
/// pushes to it; sunpy checks its results repository out at `main` into
/// the folder a deploy action pushes: targets, not dependencies, no
/// finding. A harness cloned at its branch and run is found.
#[test]
fn a_results_repository_pushed_to_later_is_no_dependency() {
    assert_eq!(
        lint_in("heldout22", "results-repo.yml"),
        [at("unpinned-clone", 53)]
    );
}
