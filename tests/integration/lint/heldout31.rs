//! `lint` on the shapes the thirty-first held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 31"). Each fixture in
//! `tests/fixtures/lint/heldout31/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// opea's scans upload their logs on `docker-build-${{ inputs.node }}`
/// with a job-level `always()`: whatever the input, one of the project's
/// own machines. `ubuntu-${{ ... }}` may be GitHub's, and RunsOn's
/// `run-id=${{ github.run_id }}` describes a provider's machine.
#[test]
fn fixed_text_no_hosted_label_begins_with_is_a_custom_runner() {
    assert_eq!(
        lint_in("heldout31", "custom-family.yml"),
        [at("job-always", 19)]
    );
}

/// opea's matrix step lists changed files with `git diff --name-only
/// $base $(git log -1 ...)`: one commit, no walk back. A loop over `git
/// log -8` tries older commits.
#[test]
fn a_listing_of_one_commit_is_no_walk() {
    assert_eq!(
        lint_in("heldout31", "one-commit.yml"),
        [at("baseline-walk", 28)]
    );
}

/// STeLLAR runs its experiments through `nick-fields/retry`'s `command:`
/// on a self-hosted runner with no timeout: what the step runs, read as a
/// `run:` is. The same on a hosted runner is freed when the job ends.
#[test]
fn a_retry_actions_command_is_what_the_step_runs() {
    assert_eq!(lint_in("heldout31", "retry.yml"), [at("long-timeout", 6)]);
}

/// js2il's "Ingest Mitata results to Supabase" sends results made and
/// checked before it: continued on error, it hides no comparison. Its
/// comparison continued on error does.
#[test]
fn a_step_named_for_sending_hides_no_comparison() {
    assert_eq!(
        lint_in("heldout31", "ingest.yml"),
        [at("silent-baseline", 15)]
    );
}

/// kt-speed-tests builds `"${BASELINE_BRANCH}"` and `"${PATCHED_BRANCH}"`
/// with one script and measures both against one clone: `patched` names
/// the change's side. A job that builds the patched side alone is found.
#[test]
fn the_patched_side_is_the_changes() {
    assert_eq!(
        lint_in("heldout31", "patched.yml"),
        [at("unpinned-clone", 24)]
    );
}
