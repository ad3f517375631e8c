//! `lint` on the shapes found wrongly in the held-out sets after the
//! thirty-eighth (issue 49; BENCHMARKS.md, "Mends after held-out 39").
//! Each fixture in `tests/fixtures/lint/heldout39/` is a real workflow's
//! shape cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// Abseil's releases are dated tags with `_` between the numbers
/// (`lts_2022_06_23`), as Boost's old ones were (`Boost_1_84_0`): a
/// clone at either is pinned. A word and two numbers (`lts_2022_06`) is
/// as often a branch that moves, so that clone is still found.
#[test]
fn numbers_apart_with_underscores_after_a_word_are_a_release_tag() {
    assert_eq!(
        lint_in("heldout39", "dated-tags.yml"),
        [at("unpinned-clone", 13)]
    );
}

/// thread_system's benchmark job draws what it measured: "Update
/// performance badge" (`update_performance_badge.py`) and "Generate
/// performance dashboard" read the stored results and compare none, so
/// their `continue-on-error` hides no comparison. A step that plots a
/// comparison may still compare: its `continue-on-error` is found.
#[test]
fn a_step_that_only_draws_what_was_measured_hides_no_comparison() {
    assert_eq!(
        lint_in("heldout39", "drawn.yml"),
        [at("silent-baseline", 19)]
    );
}
