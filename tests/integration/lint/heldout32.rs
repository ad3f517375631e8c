//! `lint` on the shapes the thirty-second held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 30, 31 and 32"). Each
//! fixture in `tests/fixtures/lint/heldout32/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// scpn-control sources `.venv/bin/activate` in every step: its optional
/// backend's build, continued on error, sets up and measures nothing,
/// though the suite's steps source the same file. A step that reruns the
/// suite's script does measure. (The backend's clone at its default
/// branch is the job's `unpinned-clone`.)
#[test]
fn a_sourced_environment_is_no_measuring_script() {
    assert_eq!(
        lint_in("heldout32", "venv.yml"),
        [at("unpinned-clone", 17), at("silent-baseline", 24)]
    );
}

/// databricks' "Compare and post results" compares the pull request's
/// results with main's before it posts them: its job is no relay, and the
/// baseline's download continued on error with no warning is found. A job
/// that only publishes relays.
#[test]
fn a_step_that_compares_first_is_no_relay() {
    assert_eq!(
        lint_in("heldout32", "compare-and-post.yml"),
        [at("silent-baseline", 25)]
    );
}

/// sycamore's benchmark is given `keyed/sycamore` and
/// `keyed/sycamore-baseline`: the change and the base branch's copy
/// beside it, measured in one run with the same harness checkout. A job
/// that measures the change alone is found.
#[test]
fn a_path_beside_its_baseline_copy_measures_both_sides() {
    assert_eq!(
        lint_in("heldout32", "copy-and-baseline.yml"),
        [at("unpinned-clone", 31)]
    );
}
