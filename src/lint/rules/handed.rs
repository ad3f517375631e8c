//! Whether a later job acts on a step's outcome that its own job hands
//! on: the job's `outputs:` give the raw result (`outcome: ${{
//! steps.bench.outcome }}`) and a job that needs it compares it
//! (`BASE_OUTCOME: ${{ needs.bench-base.outputs.outcome }}`, then `[
//! "$BASE_OUTCOME" != "success" ]` and a failure comment). Read on
//! go-billy's benchmark jobs, which continue on error and leave the
//! verdict to their compare job. So may the step's outputs, handed on the
//! same way (canopy's `complete=false`). Pure.

use super::acted::{Compared, acts, on_failure, on_result, script_text};
use crate::lint::workflow::{Job, Workflow};
use crate::lint::yaml::Node;

/// Whether a job of `w` other than `job` acts on the result of `job`'s
/// step `id`, handed on in `job`'s outputs: in a job's or a step's `if:`
/// a test for the failure, anywhere else a comparison with `success` or
/// `failure`, also through an `env:` entry the step's script compares.
pub(super) fn later_job_acts(w: &Workflow<'_>, job: &Job<'_>, id: &str) -> bool {
    let Some(outputs) = job.get("outputs") else {
        return false;
    };
    let result = [
        format!("steps.{id}.outcome"),
        format!("steps.{id}.conclusion"),
    ];
    let names = handed_on(outputs, job, &result);
    if names.is_empty() {
        return false;
    }
    w.jobs
        .iter()
        .filter(|other| other.id.text != job.id.text)
        .any(|other| {
            other
                .get("if")
                .is_some_and(|n| reads(n, &names, on_failure))
                || other.steps.iter().any(|step| {
                    let compared = Compared::of(script_text(step));
                    step.node
                        .entries()
                        .iter()
                        .any(|(key, node)| match key.text.as_str() {
                            "if" => reads(node, &names, on_failure),
                            "env" => node.entries().iter().any(|(name, value)| {
                                reads(value, &names, |_| true)
                                    && compared.get(&name.text).is_some_and(|&(result, _)| result)
                            }),
                            _ => reads(node, &names, on_result),
                        })
                })
        })
}

/// Whether a later job fails on what step `id` (at `index`) handed on in
/// its outputs: `job`'s `outputs:` give the step's outputs (`complete:
/// ${{ steps.bench.outputs.complete }}`), or those of a later step of the
/// job that reads them and writes its own to `$GITHUB_OUTPUT`, and a
/// script step of another job that fails or says an error reads them
/// (`pr_complete="${{ needs.benchmark-pr.outputs.complete }}"`, then `exit
/// 1` unless it is `true`). Read on canopy's benchmark jobs, which
/// continue on error, write `complete=false` when the suite fails, and
/// leave the verdict to their comparison job.
pub(super) fn later_job_fails_on_outputs(
    w: &Workflow<'_>,
    job: &Job<'_>,
    index: usize,
    id: &str,
) -> bool {
    let Some(outputs) = job.get("outputs") else {
        return false;
    };
    let mut sources = vec![format!("steps.{id}.outputs.")];
    for step in job.steps.iter().skip(index.saturating_add(1)) {
        if let Some(relay) = step.text("id")
            && script_text(step).contains("GITHUB_OUTPUT")
            && reads(step.node, &sources, |_| true)
        {
            sources.push(format!("steps.{relay}.outputs."));
        }
    }
    let names = handed_on(outputs, job, &sources);
    !names.is_empty()
        && w.jobs
            .iter()
            .filter(|other| other.id.text != job.id.text)
            .flat_map(|other| other.steps.iter())
            .any(|step| acts(step) && reads(step.node, &names, |_| true))
}

/// How a later job reads each of `job`'s `outputs:` whose value reads
/// one of `reads` (`needs.<job>.outputs.<name>`).
fn handed_on(outputs: &Node, job: &Job<'_>, reads: &[String]) -> Vec<String> {
    outputs
        .entries()
        .iter()
        .filter(|(_, v)| {
            v.str()
                .is_some_and(|t| reads.iter().any(|r| t.contains(r.as_str())))
        })
        .map(|(k, _)| format!("needs.{}.outputs.{}", job.id.text, k.text))
        .collect()
}

/// Whether a scalar of `node` reads one of `names` and `test` holds for
/// the text after the read.
fn reads(node: &Node, names: &[String], test: fn(&str) -> bool) -> bool {
    let mut scalars = Vec::new();
    node.scalars(&mut scalars);
    scalars.iter().any(|s| {
        names.iter().any(|n| {
            s.text
                .match_indices(n.as_str())
                .any(|(at, m)| test(s.text.get(at.saturating_add(m.len())..).unwrap_or("")))
        })
    })
}
