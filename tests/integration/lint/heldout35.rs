//! `lint` on the shapes the thirty-fifth held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 35"). Each fixture in
//! `tests/fixtures/lint/heldout35/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// doctranslate's "Perf nightly" workflow runs memray through `uv run`:
/// the program after an environment manager's `run` is what the step
/// runs, so the job is a benchmark job by its workflow's name, and its
/// job-level `continue-on-error` hides a failed run. A job that only
/// syncs its environment (`uv sync`) runs no program.
#[test]
fn an_environment_managers_run_runs_the_program_after_it() {
    assert_eq!(
        lint_in("heldout35", "env-run.yml"),
        [at("silent-baseline", 8)]
    );
}

/// OBDDimal's benchmark job runs `cargo bench` through `actions-rs/cargo`
/// (`command: bench`) on a self-hosted runner with no timeout. A build
/// through the same action measures nothing.
#[test]
fn an_action_given_cargos_subcommand_runs_it() {
    assert_eq!(
        lint_in("heldout35", "cargo-action.yml"),
        [at("long-timeout", 4)]
    );
}

/// xtdb's "Clear Bench State" may fail without hiding a comparison: it
/// empties what the last run left. The benchmark's own step may not.
#[test]
fn a_step_named_for_clearing_hides_no_comparison() {
    assert_eq!(
        lint_in("heldout35", "clear-state.yml"),
        [at("silent-baseline", 15)]
    );
}

/// checkstyle's script times `base-all.jar` and `patch-all.jar`, each
/// side's build, with one of its functions: both sides are measured in
/// one run against the same JDK sources, checked out at their default
/// branch. The same function writing `base-all.json` and
/// `patch-all.json` names results, not builds.
#[test]
fn each_sides_built_program_measures_both_sides() {
    assert_eq!(
        lint_in("heldout35", "jar-sides.yml"),
        [at("unpinned-clone", 22)]
    );
}
