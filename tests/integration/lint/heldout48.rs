//! `lint` on the shape found wrongly in held-out set 48 at first sight
//! (issue 49; BENCHMARKS.md, "Mends after held-out 45 to 49"). The
//! fixture repository `tests/fixtures/lint/heldout48/` holds two CI
//! workflows cut down from a real one, each read by another workflow
//! through `workflow_run`: it is linted whole, as a user lints their
//! repository, since what one file's runs keep depends on its neighbours.

use super::calls::findings;
use crate::support::harness::{Bin, repo_root};

/// flist-walker's hosted CI cancels pushes to `master`; its dependabot
/// auto-merge workflow runs after it through `workflow_run` but reads
/// only the run's conclusion (its concurrency group keyed by the run's
/// id): no results outlive the run, so nothing is lost. A workflow that
/// downloads the run's artifact (`run-id: ${{
/// github.event.workflow_run.id }}`) keeps its timings, and the cancelling
/// group loses them.
#[test]
fn a_workflow_run_that_reads_only_the_conclusion_keeps_no_results() {
    let root = repo_root().join("tests/fixtures/lint/heldout48");
    let run = Bin::new()
        .in_dir(&root)
        .args(["lint", ".github/workflows", "--format", "json"])
        .run();
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("one JSON object ({e}): {}", run.stdout));
    assert_eq!(
        findings(&v),
        [("ci-kept.yml".to_owned(), "cancel-main".to_owned(), 8)]
    );
    assert_eq!(run.code, 4, "{}", run.stderr);
}
