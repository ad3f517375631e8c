//! Whether a later job acts on a step's outcome that its own job hands
//! on: the job's `outputs:` give the raw result (`outcome: ${{
//! steps.bench.outcome }}`) and a job that needs it compares it
//! (`BASE_OUTCOME: ${{ needs.bench-base.outputs.outcome }}`, then `[
//! "$BASE_OUTCOME" != "success" ]` and a failure comment). Read on
//! go-billy's benchmark jobs, which continue on error and leave the
//! verdict to their compare job. So may the step's outputs, handed on the
//! same way (canopy's `complete=false`). Pure.

use rustc_hash::FxHashSet;

use super::acted::{Compared, acts, on_failure, on_result, script_text, step_reads};
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

/// The ids of `job`'s steps whose outputs a later job fails on: `job`'s
/// `outputs:` give them (`complete: ${{ steps.bench.outputs.complete
/// }}`), or give those of a later step of the job that reads them and
/// writes its own to `$GITHUB_OUTPUT`, and a script step of another job
/// that fails or says an error reads that output
/// (`pr_complete="${{ needs.benchmark-pr.outputs.complete }}"`, then
/// `exit 1` unless it is `true`). Read on canopy's benchmark jobs, which
/// continue on error, write `complete=false` when the suite fails, and
/// leave the verdict to their comparison job. Found once per job, each
/// text read once: asked step by step, a stranger's 3,000 steps each
/// relaying the last one's output took eight minutes.
pub(super) fn outputs_failed_on(w: &Workflow<'_>, job: &Job<'_>) -> FxHashSet<String> {
    let mut handed = FxHashSet::default();
    let Some(outputs) = job.get("outputs") else {
        return handed;
    };
    let read = outputs_read_by_failing_steps(w, job);
    if read.is_empty() {
        return handed;
    }
    for (key, value) in outputs.entries() {
        if let Some(text) = value.str().filter(|_| read.contains(key.text.as_str())) {
            handed.extend(outputs_read(text).map(str::to_owned));
        }
    }
    // Back through the job's relays, last step first: a step whose
    // outputs a handed step reads, and writes on, is handed too.
    for step in job.steps.iter().rev() {
        let relays = step.text("id").is_some_and(|id| handed.contains(id))
            && script_text(step).contains("GITHUB_OUTPUT");
        if relays {
            let mut scalars = Vec::new();
            step.node.scalars(&mut scalars);
            for text in scalars.iter().map(|s| s.text.as_str()) {
                handed.extend(outputs_read(text).map(str::to_owned));
            }
        }
    }
    handed
}

/// The names of `job`'s outputs (`needs.<job>.outputs.<name>`) that a
/// script step of another job reads and that fails or says an error.
fn outputs_read_by_failing_steps<'w>(w: &'w Workflow<'_>, job: &Job<'_>) -> FxHashSet<&'w str> {
    let prefix = format!("needs.{}.outputs.", job.id.text);
    let mut read = FxHashSet::default();
    let steps = w
        .jobs
        .iter()
        .filter(|other| other.id.text != job.id.text)
        .flat_map(|other| other.steps.iter());
    for step in steps.filter(|s| acts(s)) {
        let mut scalars = Vec::new();
        step.node.scalars(&mut scalars);
        for text in scalars.iter().map(|s| s.text.as_str()) {
            for (at, m) in text.match_indices(prefix.as_str()) {
                let rest = text.get(at.saturating_add(m.len())..).unwrap_or("");
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .unwrap_or(rest.len());
                read.insert(rest.get(..end).unwrap_or(""));
            }
        }
    }
    read
}

/// The step ids whose outputs `text` reads (`steps.<id>.outputs.<name>`).
fn outputs_read(text: &str) -> impl Iterator<Item = &str> {
    step_reads(text).filter_map(|(_, id, kind, _)| (kind == "outputs").then_some(id))
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
