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
