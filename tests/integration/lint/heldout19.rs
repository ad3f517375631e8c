//! `lint` on the shapes the nineteenth held-out set found missed or
//! wrongly found (issue 49; BENCHMARKS.md, "Mends after held-out 19").
//! Each fixture in `tests/fixtures/lint/heldout19/` is a real workflow's
//! shape cut down and written anew, with a look-alike beside it that must
//! stay as it was.

use super::heldout5::{at, lint_in};
use super::heldout16::lint_all;

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout19", file)
}

/// SciML's GPU tests: `cancel-in-progress` is an expression meant to spare
/// the default branch and the tags, `github.ref_name !=
/// github.event.repository.default_branch || github.ref != 'refs/tags/v*'`,
/// but `!=` compares text (no glob), so it is true on every push to
/// master and master's self-hosted GPU runs cancel each other: found at
/// the cancel. An expression that does spare the default branch (by its
/// name, or `!contains(github.ref, 'master')`) is no finding.
#[test]
fn a_cancel_expression_is_read_for_mains_pushes() {
    assert_eq!(lint("gpu-cancel.yml"), [at("cancel-main", 13)]);
    assert_eq!(lint("gpu-cancel-spared.yml"), []);
}

/// faiss's GPU wheels: the reusable workflow's group cancels every run
/// but a tag's, yet its only caller calls it on pull requests and tags
/// (`if: github.event_name != 'push' || startsWith(github.ref,
/// 'refs/tags/v')`): no push to main reaches it, no finding. The same
/// group in a workflow the caller calls on every push is found.
#[test]
fn a_callers_if_keeps_mains_pushes_from_the_called_workflow() {
    assert_eq!(
        lint_all("heldout19-callers"),
        [("gpu-tests.yml".to_owned(), "cancel-main".to_owned(), 6)]
    );
}

/// concrete's benchmarks: a results sender's repository checked out
/// after the last measuring step, used by a step named for sending
/// ("Send data to Slab") whose program reads a file named for the
/// benchmarks, is no finding; nor is one after a benchmark run by
/// `addnab/docker-run-action`'s `run:` (what the step runs, in its
/// image). A clone made before that step, which the benchmark runs, is
/// found.
#[test]
fn a_sender_after_the_measuring_is_not_measured() {
    assert_eq!(lint("send-results.yml"), [at("unpinned-clone", 54)]);
}

/// cocotb's NVC clone is pinned by `git reset --hard r1.16.0`, a release
/// tag after a word: no finding. `release-1.2`, a word and two numbers,
/// is as often a maintenance branch that moves: found.
#[test]
fn a_release_tag_after_a_word_pins_a_clone() {
    assert_eq!(lint("release-tag.yml"), [at("unpinned-clone", 22)]);
}
