//! `lint` on the shapes the sixteenth held-out set found missed or
//! wrongly found (issue 49; BENCHMARKS.md, "Mends after held-out 16").
//! Each fixture in `tests/fixtures/lint/heldout16/` is a real workflow's
//! shape cut down and written anew, with a look-alike beside it that must
//! stay as it was.

use super::calls::findings;
use super::heldout5::{at, lint_in};
use crate::support::harness::{Bin, repo_root};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout16", file)
}

/// The findings of linting every workflow of `tests/fixtures/lint/<set>/`
/// at once, as (file, rule, line): a reusable workflow's callers are read
/// among the files linted.
pub(crate) fn lint_all(set: &str) -> Vec<(String, String, u64)> {
    let root = repo_root().join("tests/fixtures/lint").join(set);
    let run = Bin::new()
        .in_dir(&root)
        .args(["lint", "--format", "json"])
        .run();
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("one JSON object ({e}): {}\n{}", run.stdout, run.stderr));
    findings(&v)
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

/// ada's `_build.yaml` runs on `${{ inputs.runner }}`, which its callers
/// pass as `${{ matrix.runner }}` over GitHub's own images: each value
/// the matrix gives is a hosted runner, so its missing timeout is
/// GitHub's 360 minutes on a machine that is freed, no finding. A
/// caller whose matrix also gives a GPU label is still found.
#[test]
fn a_callers_matrix_gives_the_called_jobs_runner() {
    let device = ("_device-build.yml".to_owned(), "long-timeout".to_owned(), 9);
    assert_eq!(lint_all("heldout16-callers"), [device]);
}

/// jmh's pre-integration job allows its build and tests 180 minutes; its
/// only tie to performance was a step "Set up perf (Linux)", which
/// installs Linux's profiler: "set up", as two words, is the chore
/// "setup" is, no benchmark evidence. A step named "Perf tests" that
/// runs a program still is.
#[test]
fn a_step_that_sets_up_a_profiler_measures_nothing() {
    assert_eq!(lint("harness-tests.yml"), [at("long-timeout", 23)]);
}

/// TritonBench's bisect job checks its harness out at `main` and runs
/// `.ci/bisect/run.sh` between a good and a bad commit: a bisection
/// measures every commit it tries in one run with that one clone, as
/// `asv continuous` does, so no drift between the sides. A nightly job
/// with the same checkout (and a directory named `bisect`, not run) is
/// still found.
#[test]
fn a_bisection_measures_both_sides_with_one_clone() {
    assert_eq!(lint("bisect.yml"), [at("unpinned-clone", 43)]);
}

/// oneflow's test suite runs its benchmarks through another repository's
/// action in a folder named for them (`get-oneflow/pytest-benchmark`):
/// that step measures, so the 120-minute job is a benchmark job. An
/// action in a folder named for setting them up is not evidence.
#[test]
fn another_repositorys_action_named_for_benchmarks_runs_them() {
    assert_eq!(lint("suite.yml"), [at("long-timeout", 7)]);
}

/// vLLM's nightly benchmark: its `set-parameters` job, itself on
/// `ubuntu-latest`, runs a Python program that writes the matrix of
/// machines (ROCm, Gaudi and B200 ones, which the file never shows), and
/// the benchmark job runs on `${{ matrix.runner }}` of it with no
/// timeout: a runner lint cannot read, found. The picking job's own
/// `runs-on` is where it runs, not what it writes. A job whose picker
/// writes GitHub's images in its script is hosted: no finding.
#[test]
fn a_runner_a_program_picks_is_one_lint_cannot_read() {
    assert_eq!(lint("generated-matrix.yml"), [at("long-timeout", 19)]);
}
