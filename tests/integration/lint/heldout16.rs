//! `lint` on the shapes the sixteenth held-out set found missed or
//! wrongly found (issue 49; BENCHMARKS.md, "Mends after held-out 16").
//! Each fixture in `tests/fixtures/lint/heldout16/` is a real workflow's
//! shape cut down and written anew, with a look-alike beside it that must
//! stay as it was.

use super::heldout5::{at, lint_in};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout16", file)
}

/// vLLM's nightly benchmark looks back through `HEAD~${i}` for the newest
/// commit with an image: every probe of the loop names the commit it
/// tries (through `$SHA` and `$IMAGE`), yet the loop is one walk, found
/// once at the line naming the older commit. A second loop is a second.
#[test]
fn one_loop_over_older_commits_is_one_finding() {
    assert_eq!(
        lint("image-lookback.yml"),
        [at("baseline-walk", 14), at("baseline-walk", 23)]
    );
}
