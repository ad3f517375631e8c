//! `lint` on a shape the twelfth held-out set found missed (issue 49;
//! BENCHMARKS.md, "Mends after held-out 18"). The fixtures in
//! `tests/fixtures/lint/heldout12/` are a real workflow's shape cut down
//! and written anew, with a look-alike beside it that must stay silent.

use super::heldout5::{at, lint_in};

/// bionemo's recipes: the workflow never runs on `pull_request`; a bot
/// copies each vetted pull request to a `pull-request/N` branch, and that
/// push is the pull request's run. A GPU job's cache keyed by
/// `github.sha` then saves a copy for every pull request: found at the
/// cache's `uses:`. The lockfile-keyed cache beside it only restores what
/// was saved before: no finding.
#[test]
fn pushes_to_pull_request_branches_are_pull_requests_runs() {
    assert_eq!(
        lint_in("heldout12", "copied-pulls.yml"),
        [at("cache-discipline", 17)]
    );
}

/// The same job in a workflow only release branches' pushes run: no pull
/// request saves there, so its key per run is no finding.
#[test]
fn pushes_to_release_branches_are_not() {
    assert_eq!(lint_in("heldout12", "release-pushes.yml"), []);
}

/// bionemo's GPU tests save a cache keyed by the commit behind an `||` of
/// event tests and a label test: a pull request with the label passes it
/// and saves its own copy, found at the save's `uses:` (a step's `if:`,
/// and a job's `changed && (schedule || merge_group || a label)`). The
/// saves whose every way in is an event no pull request's run has stay
/// silent.
#[test]
fn an_or_with_a_side_a_pull_request_passes_guards_nothing() {
    assert_eq!(
        lint_in("heldout12", "labelled-guard.yml"),
        [at("cache-discipline", 16), at("cache-discipline", 42)]
    );
}
