//! `lint` on the shapes the twentieth held-out set found wrongly (issue
//! 49; BENCHMARKS.md, "Mends after held-out 20"). Each fixture in
//! `tests/fixtures/lint/heldout20/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it that must still be found.

use super::heldout5::{at, lint_in};

/// Expander's GPU benchmarks loop over problem sizes and say so, `echo
/// "Running with 2^$npow points..."`: a message's `^$npow` names no older
/// commit, no finding. A loop that checks out `HEAD~$i` and measures it is
/// a walk: found once, at the line naming the older commit.
#[test]
fn a_message_in_a_loop_names_no_older_commit() {
    assert_eq!(
        lint_in("heldout20", "sizes-loop.yml"),
        [at("baseline-walk", 23)]
    );
}

/// aspect's performance job: the sampler, checked out at a moving branch,
/// is given main's and the feature's builds in one command (`cbdr sample
/// "main:.../main/source/build/aspect-release ..." "feature:..."`), so it
/// measures both sides with one clone: no finding. Given one side's
/// build only, the same clone is found.
#[test]
fn a_command_given_each_sides_build_measures_both() {
    assert_eq!(
        lint_in("heldout20", "both-sides.yml"),
        [at("unpinned-clone", 38)]
    );
}
