//! A runner another job picks: `runs-on: ${{ needs.list.outputs.os }}`,
//! or `${{ matrix.os }}` over `matrix: ${{ fromJSON(needs.list.outputs.matrix)
//! }}`. The file shows only what that job's steps write: a label list in
//! its `env:` or its script (`LABELS: '["self-hosted", "llm", "perf"]'`,
//! Python's `'os': ['ubuntu-latest', 'macos-latest']`). Read on
//! go-sql-driver/mysql's tests and tract's lint job, whose `list` and
//! `prepare-matrix` jobs write only GitHub's images, and on ipex-llm's
//! evaluation jobs, whose `set-matrix` writes `self-hosted`. Pure.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::runners::{github_hosted, provider_hosted};
use super::workflow::{Job, Workflow};
use crate::lint::yaml::Node;

/// What the jobs that pick a runner are seen to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// `self-hosted`, or a label naming a GPU: an expensive machine may
    /// be picked.
    Costly,
    /// Only GitHub's or a provider's hosted labels.
    Hosted,
    /// No runner label at all: a program the job runs writes it, and
    /// the runner stays an expression lint cannot read.
    Nothing,
}

/// For each job of `w`, whether its runner is picked by other jobs
/// (every expression among its labels reads a job's outputs) that are
/// seen to write hosted images only. Such a runner is not taken as expensive: the benchmark rules'
/// "a runner lint cannot read" is not one the file shows being picked.
/// A runner a job starts with a runner action is seen elsewhere
/// ([`super::evidence`]), whatever this says. Each picking job is read
/// once, however many jobs read its outputs.
pub fn picked_unseen(w: &Workflow<'_>) -> Vec<bool> {
    let pickers: Vec<Option<BTreeSet<String>>> = w.jobs.iter().map(pickers).collect();
    let wanted: BTreeSet<&String> = pickers.iter().flatten().flatten().collect();
    let seen: BTreeMap<String, Seen> = w
        .jobs
        .iter()
        .filter_map(|j| {
            let id = j.id.text.to_ascii_lowercase();
            wanted.contains(&id).then(|| (id, writes(j)))
        })
        .collect();
    pickers
        .iter()
        .map(|ids| {
            ids.as_ref().is_some_and(|ids| {
                ids.iter()
                    .all(|id| seen.get(id).is_some_and(|s| *s == Seen::Hosted))
            })
        })
        .collect()
}

/// The ids (lower-cased) of the jobs whose outputs `job`'s runner reads,
/// when every expression among its labels reads one (directly, or
/// `matrix.` of a matrix that is itself such an expression); `None` when
/// its runner is written out or read from anything else.
fn pickers(job: &Job<'_>) -> Option<BTreeSet<String>> {
    let matrix = job.get("strategy").and_then(|s| s.get("matrix"));
    let mut ids = BTreeSet::new();
    let mut any = false;
    for label in job.runner_labels().iter().filter(|l| l.contains("${{")) {
        any = true;
        let mut read = outputs_read(label);
        if read.is_empty()
            && let Some((_, rest)) = label.split_once("matrix.")
        {
            // The whole matrix an expression (`matrix: ${{ fromJSON(...) }}`),
            // or the key the label reads (neqo's `matrix.bench.runner` over
            // `bench: ${{ fromJson(needs.bench-matrix.outputs.benches) }}`).
            let key: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
                .collect();
            let text = matrix.and_then(|m| m.str().or_else(|| m.get(&key).and_then(Node::str)));
            read = text.map(outputs_read).unwrap_or_default();
        }
        if read.is_empty() {
            return None;
        }
        ids.extend(read);
    }
    any.then_some(ids)
}

/// The job ids (lower-cased) whose outputs an expression reads
/// (`needs.<id>.outputs.`).
fn outputs_read(text: &str) -> Vec<String> {
    text.match_indices("needs.")
        .filter_map(|(at, n)| {
            let rest = text.get(at.saturating_add(n.len())..)?;
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
                .unwrap_or(rest.len());
            let (id, after) = rest.split_at(len);
            after
                .starts_with(".outputs.")
                .then(|| id.to_ascii_lowercase())
        })
        .collect()
}

/// What runner labels a picking job writes anywhere in it (its scripts,
/// its and its steps' `env:`, its outputs, the repository's own actions
/// its steps use): `self-hosted` or a word
/// naming a GPU is costly; else any hosted label is hosted. Its own
/// `runs-on` is where it runs, not what it writes: a job on
/// `ubuntu-latest` that runs a program to write the matrix
/// (pytorch-integration-testing's `generate_vllm_benchmark_matrix.py`,
/// choosing ROCm, Gaudi and B200 machines) is seen to write nothing.
fn writes(job: &Job<'_>) -> Seen {
    let mut scalars = Vec::new();
    for (key, value) in job.node.entries() {
        if key.text != "runs-on" {
            value.scalars(&mut scalars);
        }
    }
    // And the repository's own actions its steps use (neqo's
    // `bench-matrix`, whose `jq` adds `runner: "ubuntu-24.04"`).
    // Each action once, however many steps use it.
    let mut actions: Vec<&Rc<[String]>> = Vec::new();
    for step in &job.steps {
        if !actions.iter().any(|a| Rc::ptr_eq(a, &step.action_text)) {
            actions.push(&step.action_text);
        }
    }
    let texts = scalars
        .iter()
        .map(|s| s.text.as_str())
        .chain(actions.iter().flat_map(|a| a.iter().map(String::as_str)));
    let mut hosted = false;
    for text in texts {
        for word in text
            .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
            .filter(|w| !w.is_empty())
        {
            let lower = word.to_ascii_lowercase();
            if lower == "self-hosted" || lower.contains("gpu") {
                return Seen::Costly;
            }
            hosted |= github_hosted(&lower) || provider_hosted(&lower);
        }
    }
    if hosted { Seen::Hosted } else { Seen::Nothing }
}
