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

/// The ids of `job`'s steps whose failure a later job acts on, handed
/// on in `job`'s `outputs:`. Found once per job, each text read once:
/// asked step by step, a stranger's 3,000 steps each relaying the last
/// one's output took eight minutes, and 12,000 steps' outcomes handed on
/// and echoed half a minute.
///
/// - Their result (`outcome: ${{ steps.bench.outcome }}`), which another
///   job tests for the failure in a job's or a step's `if:`, or compares
///   with `success` or `failure` anywhere else, also through an `env:`
///   entry its script compares (go-billy's `BASE_OUTCOME`).
/// - Their outputs (`complete: ${{ steps.bench.outputs.complete }}`), or
///   those of a later step of the job that reads them and writes its own
///   to `$GITHUB_OUTPUT`, read by a script step of another job that fails
///   or says an error (canopy's `complete=false`, then `exit 1` in its
///   comparison job unless it is `true`).
pub(super) fn acted_on_later(w: &Workflow<'_>, job: &Job<'_>) -> FxHashSet<String> {
    let mut results = FxHashSet::default();
    let mut outputs = FxHashSet::default();
    let Some(given) = job.get("outputs") else {
        return results;
    };
    let read = Read::of(w, job);
    for (key, value) in given.entries() {
        let Some(text) = value.str() else { continue };
        for (_, id, kind, _) in step_reads(text) {
            let set = match kind {
                "outputs" if read.failing.contains(key.text.as_str()) => &mut outputs,
                "outcome" | "conclusion" if read.results.contains(key.text.as_str()) => {
                    &mut results
                }
                _ => continue,
            };
            set.insert(id.to_owned());
        }
    }
    // Back through the job's relays, last step first: a step whose
    // outputs a handed step reads, and writes on, is handed too.
    for step in job.steps.iter().rev() {
        let relays = step.text("id").is_some_and(|id| outputs.contains(id))
            && script_text(step).contains("GITHUB_OUTPUT");
        if relays {
            let mut scalars = Vec::new();
            step.node.scalars(&mut scalars);
            for text in scalars.iter().map(|s| s.text.as_str()) {
                for (_, id, kind, _) in step_reads(text) {
                    if kind == "outputs" {
                        outputs.insert(id.to_owned());
                    }
                }
            }
        }
    }
    results.extend(outputs);
    results
}

/// How the other jobs of a workflow read one job's outputs
/// (`needs.<job>.outputs.<name>`): by name.
struct Read<'w> {
    /// Outputs a read acts on as a step's result: tested for the failure
    /// in an `if:`, compared with `success` or `failure` elsewhere.
    results: FxHashSet<&'w str>,
    /// Outputs a script step that fails or says an error reads.
    failing: FxHashSet<&'w str>,
}

impl<'w> Read<'w> {
    fn of(w: &'w Workflow<'_>, job: &Job<'_>) -> Read<'w> {
        let prefix = format!("needs.{}.outputs.", job.id.text);
        let mut read = Read {
            results: FxHashSet::default(),
            failing: FxHashSet::default(),
        };
        for other in w.jobs.iter().filter(|other| other.id.text != job.id.text) {
            if let Some(n) = other.get("if") {
                read.results.extend(names_read(n, &prefix, on_failure));
            }
            for step in &other.steps {
                let compared = Compared::of(script_text(step));
                for (key, node) in step.node.entries() {
                    match key.text.as_str() {
                        "if" => read.results.extend(names_read(node, &prefix, on_failure)),
                        "env" => {
                            for (name, value) in node.entries() {
                                if compared.get(&name.text).is_some_and(|&(result, _)| result) {
                                    read.results.extend(names_read(value, &prefix, |_| true));
                                }
                            }
                        }
                        _ => read.results.extend(names_read(node, &prefix, on_result)),
                    }
                }
                if acts(step) {
                    read.failing
                        .extend(names_read(step.node, &prefix, |_| true));
                }
            }
        }
        read
    }
}

/// The names of the outputs (`<prefix><name>`) the scalars of `node`
/// read where `test` holds for the text after the name.
fn names_read<'n>(node: &'n Node, prefix: &str, test: fn(&str) -> bool) -> Vec<&'n str> {
    let mut scalars = Vec::new();
    node.scalars(&mut scalars);
    let mut names = Vec::new();
    for text in scalars.iter().map(|s| s.text.as_str()) {
        for (at, m) in text.match_indices(prefix) {
            let rest = text.get(at.saturating_add(m.len())..).unwrap_or("");
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(rest.len());
            let (name, after) = rest.split_at(end);
            if test(after) {
                names.push(name);
            }
        }
    }
    names
}
