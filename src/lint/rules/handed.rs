//! Whether a later job acts on a step's outcome that its own job hands
//! on: the job's `outputs:` give the raw result (`outcome: ${{
//! steps.bench.outcome }}`) and a job that needs it compares it
//! (`BASE_OUTCOME: ${{ needs.bench-base.outputs.outcome }}`, then `[
//! "$BASE_OUTCOME" != "success" ]` and a failure comment). Read on
//! go-billy's benchmark jobs, which continue on error and leave the
//! verdict to their compare job. Pure.

use super::acted::{Compared, on_failure, on_result, script_text};
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
    let names: Vec<String> = outputs
        .entries()
        .iter()
        .filter(|(_, v)| {
            v.str()
                .is_some_and(|t| result.iter().any(|r| t.contains(r.as_str())))
        })
        .map(|(k, _)| format!("needs.{}.outputs.{}", job.id.text, k.text))
        .collect();
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
