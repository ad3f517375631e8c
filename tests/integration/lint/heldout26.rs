//! `lint` on the shapes the twenty-sixth held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 26"). Each fixture in
//! `tests/fixtures/lint/heldout26/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// prime-rl's "Get image digest" job pulls and inspects the image its
/// benchmark jobs run, on a GPU runner in a workflow named for
/// benchmarking: fetching or describing an image runs no program of the
/// job's own, so it is no benchmark job. The job that runs the image's
/// benchmark is found.
#[test]
fn pulling_and_inspecting_an_image_runs_no_program() {
    assert_eq!(
        lint_in("heldout26", "image-digest.yml"),
        [at("long-timeout", 18)]
    );
}

/// gemini-cli's "Configure npm for Windows performance" configures npm:
/// a chore, not a step that runs performance tests. The step "Run
/// performance tests" is one.
#[test]
fn configuring_for_performance_is_a_chore() {
    assert_eq!(
        lint_in("heldout26", "windows-e2e.yml"),
        [at("long-timeout", 14)]
    );
}

/// gemini-cli's `ci` job, on its 16-core runner with a job-level
/// `always()`, tests its needs' results in one `[[ (...) || (...) ]]`
/// over continued lines and exits 1: a status shim (the test's `||` and
/// parentheses are its own, no command of their own). A job that runs a
/// notification script is more.
#[test]
fn a_status_check_in_one_double_bracket_test_is_a_shim() {
    assert_eq!(
        lint_in("heldout26", "status-check.yml"),
        [at("job-always", 29)]
    );
}

/// chisel's one `hyperfine` runs `./base` and `./head`, each side's build
/// named for its side: both measured with the same releases checkout in
/// one run, so its branch is no `unpinned-clone`. A job measuring one
/// program against the moving checkout is found.
#[test]
fn programs_named_for_their_sides_measure_both_in_one_run() {
    assert_eq!(
        lint_in("heldout26", "both-sides.yml"),
        [at("unpinned-clone", 33)]
    );
}

/// aas-benchmark-observatory's environment record writes
/// `${GITHUB_SHA:-unknown}`: a placeholder for a commit not known, no
/// branch to fall back to. `${BASE_SHA:-main}`, checked out, is found.
#[test]
fn a_placeholder_default_is_no_moving_fallback() {
    assert_eq!(
        lint_in("heldout26", "env-record.yml"),
        [at("moving-fallback", 17), at("moving-fallback", 18)]
    );
}
