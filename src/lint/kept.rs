//! Whether a workflow's benchmark results outlive its run: kept in a
//! history (a dashboard action, a results branch pushed to, an artifact
//! named for the commit) by a benchmark job or by the job that takes
//! their results on, or read by a later run. A cancelled run of the
//! default branch then loses a baseline later runs compare with
//! (`cancel-main`). Pure.

use std::collections::BTreeSet;

use super::workflow::{Job, Workflow};

/// Whether any job keeps what the benchmark jobs (`bench`, by position)
/// measured, or reads an earlier run's results.
pub fn results_kept(w: &Workflow<'_>, bench: &[bool]) -> bool {
    // The benchmark jobs' ids, once: each keeping job asks of its `needs:`.
    let ids: BTreeSet<&str> = w
        .jobs
        .iter()
        .zip(bench)
        .filter(|(_, b)| **b)
        .map(|(j, _)| j.id.text.as_str())
        .collect();
    w.jobs.iter().any(reads_earlier_runs)
        || w.jobs.iter().zip(bench).any(|(job, b)| {
            keeps_results(job) && (*b || needs_any(job, &ids) || downloads_artifacts(job))
        })
}

/// Actions that keep a history of results (a dashboard, a baseline store).
const HISTORIES: &[&str] = &[
    "benchmark-action/github-action-benchmark",
    "rhysd/github-action-benchmark",
    "codspeedhq/action",
    "bencherdev/bencher",
];

/// Whether an action keeps a history of results: one of [`HISTORIES`],
/// or a fork of github-action-benchmark under another owner
/// (`GaloisInc/github-action-benchmark`, cn's, which auto-pushes to
/// gh-pages).
fn history_action(action: &str) -> bool {
    HISTORIES.contains(&action) || action.split('/').nth(1) == Some("github-action-benchmark")
}

/// Whether the job keeps what it measured for later runs: a history
/// action, a `git push` (a results branch) or an action named for pushing,
/// deploying or committing (macauff's `JamesIves/github-pages-deploy-action`
/// to its `benchmarks` branch, schema-benchmarks' `actions-js/push`), or an
/// artifact named for its commit (`bench-${{ github.sha }}`: what a later
/// run looks up) or for a baseline or a base (aztec-fpc's
/// `benchmark-baseline-<branch>`, which its pull requests' runs download
/// and compare against).
fn keeps_results(job: &Job<'_>) -> bool {
    job.steps.iter().any(|s| {
        let action = s.action();
        let pushes = action
            .as_deref()
            .is_some_and(super::names::pushes_what_it_made);
        pushes
            || action.as_deref().is_some_and(history_action)
            || (action.as_deref() == Some("actions/upload-artifact")
                && s.with_text("name").is_some_and(|n| {
                    let n = n.to_ascii_lowercase();
                    n.contains("sha")
                        || n.contains("commit")
                        || n.contains("baseline")
                        // A base side's results: DLXEmu's
                        // `base_benchmark_<compiler>.json`.
                        || super::names::words(&n).any(|w| w == "base")
                }))
            || s.script
                .as_ref()
                .is_some_and(|script| script.commands.iter().any(|c| c.git("push")))
    })
}

/// Whether a job needs one of the workflow's benchmark jobs (`needs:
/// [bench-stack, ...]`): what it pushes is what they measured.
fn needs_any(job: &Job<'_>, bench_ids: &BTreeSet<&str>) -> bool {
    let mut needed = Vec::new();
    if let Some(n) = job.get("needs") {
        n.scalars(&mut needed);
    }
    needed.iter().any(|id| bench_ids.contains(id.text.trim()))
}

/// Whether a job downloads artifacts (of this run: what its benchmark
/// jobs uploaded, when it pushes them on, schema-benchmarks'
/// `push-results`, or relays them, [`super::relays`]).
pub(super) fn downloads_artifacts(job: &Job<'_>) -> bool {
    job.steps.iter().any(|s| {
        s.action().is_some_and(|a| {
            a == "actions/download-artifact" || a.ends_with("/action-download-artifact")
        })
    })
}

/// Whether a job reads another run's artifacts (its baseline from an
/// earlier run: `dawidd6/action-download-artifact`, `actions/download-artifact`
/// with a `run-id`, resolve's `artifact-name`).
fn reads_earlier_runs(job: &Job<'_>) -> bool {
    job.steps.iter().any(|s| match s.action().as_deref() {
        Some("dawidd6/action-download-artifact") => true,
        Some("actions/download-artifact") => s.with("run-id").is_some(),
        Some(a) => a.contains("baseline-resolver") && s.with("artifact-name").is_some(),
        None => false,
    })
}
