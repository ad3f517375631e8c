//! `lint` on the shapes the thirty-seventh held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 35 to 37"). Each
//! fixture in `tests/fixtures/lint/heldout37/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_with};

/// Neuroblox's CI runs on pushes to `master` and cancels every ref but
/// `refs/heads/master`; the repository's default is known as `main`. Its
/// pushes run under `master`, for which the cancel is false: main's runs
/// are never cancelled. The same file run on pushes to `main` cancels
/// them.
#[test]
fn pushes_run_under_the_default_name_the_filter_gives() {
    let known = ["--default-branch", "main"];
    assert_eq!(lint_with("heldout37", "master-filter.yml", &known), []);
    assert_eq!(
        lint_with("heldout37", "main-filter.yml", &known),
        [at("cancel-main", 9)]
    );
}
