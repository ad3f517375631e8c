//! `lint` on the shapes the thirtieth held-out set found wrongly (issue
//! 49; BENCHMARKS.md, "Mends after held-out 30"). Each fixture in
//! `tests/fixtures/lint/heldout30/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// QuantLib-Forge checks QuantLib out at its default branch, then pins it
/// with `git checkout b3612ef`, an abbreviated SHA: a fixed commit. Its
/// checkout of forge, pinned by nothing, still moves.
#[test]
fn an_abbreviated_sha_pins_a_checkout() {
    assert_eq!(
        lint_in("heldout30", "short-sha.yml"),
        [at("unpinned-clone", 24)]
    );
}

/// MsDyn365Bc.On.Linux's `${BC_DL_BIG_SHARE:-50}` is a share of
/// downloads: SHA inside another word names no commit. `${BASE_SHA:-main}`
/// does.
#[test]
fn sha_inside_another_word_is_no_commit() {
    assert_eq!(
        lint_in("heldout30", "share.yml"),
        [at("moving-fallback", 19)]
    );
}

/// mmtk's comparison script is given the trunk's and the branch's source
/// trees (`mmtk-jikesrvm-trunk/ mmtk-jikesrvm-branch/`) and measures both
/// in one run: the trunk's checkout at `master` serves both sides alike.
/// A job that measures the trunk alone is found.
#[test]
fn each_sides_tree_given_to_one_comparison_measures_both() {
    assert_eq!(
        lint_in("heldout30", "trees.yml"),
        [at("unpinned-clone", 34)]
    );
}

/// gzippy's "Check performance guards" compares the aggregated results
/// with its guards; `continue-on-error` hides a failed guard. A check of
/// the report's formatting compares no measurements.
#[test]
fn a_check_of_performance_compares_results() {
    assert_eq!(
        lint_in("heldout30", "guards.yml"),
        [at("silent-baseline", 24)]
    );
}

/// keyhog's trackers run `cargo test --test regression_ml_scorer_features`:
/// a regression test, no baseline of measurements. Its perf guards,
/// `--test performance_regression`, are found.
#[test]
fn a_regression_test_target_is_no_baseline() {
    assert_eq!(
        lint_in("heldout30", "regression-tests.yml"),
        [at("silent-baseline", 12)]
    );
}

/// aurora-pro-ai's "Load Testing" runs `locust --headless` in its
/// benchmark job, continued on error: a load generator measures the
/// service. `locust` with its web interface, in a smoke job, measures
/// nothing by itself.
#[test]
fn a_load_generator_measures() {
    assert_eq!(
        lint_in("heldout30", "load.yml"),
        [at("silent-baseline", 16)]
    );
}
