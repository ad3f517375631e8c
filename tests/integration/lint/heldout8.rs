//! `lint` on the shapes the eighth held-out set found missed or wrongly
//! found (issue 49; BENCHMARKS.md, "Mends after held-out 8"). Each
//! fixture in `tests/fixtures/lint/heldout8/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it that must stay
//! as it was.

use super::heldout5::{at, lint_in};
use super::heldout9::lint_given;
use crate::support::harness::{Bin, repo_root};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout8", file)
}

/// redb's trailer check (`git log "$BASE_SHA".."$HEAD_SHA"`, quoted
/// sides) and OLMo-core's release comments (`git log
/// "${last_tag}..${current_tag}"` in a script the step runs, each side a
/// variable holding a command): a loop over a range's commits walks no
/// baseline. `git rev-list --first-parent main` and a range from
/// `HEAD~8` still do.
#[test]
fn a_loop_over_a_ranges_commits_walks_no_baseline() {
    assert_eq!(
        lint("ranges.yml"),
        [at("baseline-walk", 41), at("baseline-walk", 44)]
    );
}

/// oneDNN's aarch64 performance check: a comparison that continues on
/// error carries its verdict in its outputs, and the next step (`if:
/// steps.perf.outputs.pass != 'True'`) says it as a `::warning`: acted on
/// and said. A comparison whose outputs only reach the summary is still
/// silent.
#[test]
fn a_later_step_that_says_a_comparisons_outputs_acts_on_it() {
    assert_eq!(lint("perf-said.yml"), [at("silent-baseline", 24)]);
}

/// The findings of `release-branch.yml` with the default branch given as
/// the action gives it (`INPUT_DEFAULT_BRANCH`) or as a flag.
fn lint_with_default(how: &[(&str, &str)], flag: &[&str]) -> (i32, Vec<(String, u64)>) {
    lint_file_with_default("release-branch.yml", how, flag)
}

fn lint_file_with_default(
    file: &str,
    how: &[(&str, &str)],
    flag: &[&str],
) -> (i32, Vec<(String, u64)>) {
    lint_given("heldout8", file, how, flag)
}

/// cuspatial's build (default branch `branch-25.06`, pushes to `branch-*`,
/// a cancelling group of the ref, GPU runners) and marqo's (`mainline`):
/// a push to the repository's default branch is one, whatever its name,
/// once lint knows it; with no default branch given, only `main` and
/// `master` are. A value that is no branch name is refused by name.
#[test]
fn the_default_branch_given_makes_its_pushes_the_default_branchs_runs() {
    let found = vec![at("cancel-main", 12)];
    assert_eq!(lint_with_default(&[], &[]), (0, vec![]));
    let given = lint_with_default(&[], &["--default-branch", "branch-25.06"]);
    assert_eq!(given, (4, found.clone()));
    let from_action = lint_with_default(&[("INPUT_DEFAULT_BRANCH", "branch-25.06")], &[]);
    assert_eq!(from_action, (4, found));
    let other = lint_with_default(&[("INPUT_DEFAULT_BRANCH", "develop")], &[]);
    assert_eq!(other, (0, vec![]));
    let run = Bin::new()
        .in_dir(&repo_root().join("tests/fixtures/lint/heldout8"))
        .env("INPUT_DEFAULT_BRANCH", "main\n::error::x")
        .args(["lint", ".github/workflows/release-branch.yml"])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("INPUT_DEFAULT_BRANCH: expected a branch name of at most 255 bytes"),
        "{}",
        run.stderr
    );
}

/// kuzu's build-and-test jobs on a self-hosted runner: `$(python3
/// benchmark/version.py)` (a version string) and a repository script that
/// runs `benchmark/serializer.py` (a dataset) are scripts of the
/// benchmark directory that measure nothing, so neither job is a
/// benchmark job; the job that runs `benchmark/benchmark_runner.py` is.
#[test]
fn a_benchmark_directorys_script_that_makes_inputs_runs_no_benchmark() {
    assert_eq!(lint("build-test.yml"), [at("long-timeout", 26)]);
}

/// spiceai's E2E workflow (default branch `trunk`): a group that gives
/// each push to trunk its own part (`github.ref_name == 'trunk' &&
/// github.sha`) cancels no run of the default branch once lint knows trunk
/// is it; a job's group of the ref alone still does.
#[test]
fn a_group_that_names_the_default_branch_is_read_with_it() {
    let given = lint_file_with_default("trunk.yml", &[], &["--default-branch", "trunk"]);
    assert_eq!(given, (4, vec![at("cancel-main", 25)]));
}

/// knowhere's unit tests on a self-hosted runner save their ccache
/// through the repository's own `cache-save` action, whose
/// `actions/cache/save` keys it by a hash of the sources, from pull
/// requests too: found at the step that uses the action. The same action
/// on a hosted runner, and an action saving a manifest-keyed cache, stay
/// silent.
#[test]
fn a_cache_the_repositorys_own_action_saves_is_saved_by_the_step() {
    assert_eq!(lint("unit-test.yml"), [at("cache-discipline", 18)]);
}

/// opendal's promotion of a contributor's pull request: the head's own
/// branch fetched from its URL (`${PR_HEAD_REF}:refs/remotes/contrib/head`)
/// is the code under test, mirrored, not a baseline from the fork; the
/// fork's `main` fetched from the same URL still is.
#[test]
fn the_heads_own_branch_fetched_from_its_url_is_no_baseline() {
    assert_eq!(lint("promote.yml"), [at("fork-remote", 26)]);
}

/// marqo's large-model tests: the job runs on an EC2 GPU runner that
/// another job starts (`machulav/ec2-github-runner`, `mode: start`), its
/// label read from that job's outputs (`needs.start-runner.outputs.label`
/// of the job `Start-Runner`): self-hosted by construction, so the
/// cancelling group main's pushes share is found. A label another job
/// picks in a script stays unknown: no finding.
#[test]
fn a_runner_another_job_starts_is_self_hosted() {
    assert_eq!(lint("ec2-runner.yml"), [at("cancel-main", 12)]);
    assert_eq!(lint("picked-runner.yml"), []);
}
