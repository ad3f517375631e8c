//! `lint` on the shapes the twenty-ninth held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 27, 28 and 29"). Each fixture in
//! `tests/fixtures/lint/heldout29/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// SparkCyclone's "Generate TPC-H Data" makes the queries' input with
/// `dbgen` before its unit tests: a chore, though it names a benchmark,
/// so its `build` job on the custom `ve` runner is no benchmark job. A
/// job that runs the queries is.
#[test]
fn generating_a_benchmarks_data_is_a_chore() {
    assert_eq!(lint_in("heldout29", "tpc.yml"), [at("long-timeout", 13)]);
}

/// skyhookdm's "Installing benchmark" clones and installs the suite in a
/// job named `build`: a chore in its `-ing` form. The job "Running
/// benchmark" with the same clone is found.
#[test]
fn a_chore_said_with_ing_is_a_chore() {
    assert_eq!(
        lint_in("heldout29", "install-benchmark.yml"),
        [at("unpinned-clone", 22)]
    );
}

/// stenciljs' `codspeed-macro` is CodSpeed's own machine, freed when the
/// job ends, as a hosted provider's is: no `long-timeout` for a missing
/// timeout. A self-hosted benchmark runner needs one.
#[test]
fn codspeeds_macro_runner_is_a_providers() {
    assert_eq!(
        lint_in("heldout29", "codspeed.yml"),
        [at("long-timeout", 13)]
    );
}

/// network_system's comparison tests its baseline with two tests, `[ -z
/// "$BASELINE" ] || [ ! -f "$BASELINE" ]`, then exits 0: the branch where
/// the file is missing, found as a single test's is. The same shape that
/// says a `::warning` first, and a condition of no file test, are not.
#[test]
fn a_condition_of_several_tests_tells_the_missing_files_branch() {
    assert_eq!(
        lint_in("heldout29", "baseline-or.yml"),
        [at("silent-baseline", 18)]
    );
}
