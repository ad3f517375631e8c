//! Rules on job and step settings: `job-always`, `long-timeout`,
//! `silent-baseline`, `cancel-main`, `cache-discipline`.

use super::{about_baseline, about_benchmarks, hit};
use crate::lint::finding::Hit;
use crate::lint::shell::{Command, Sep};
use crate::lint::workflow::{Job, Script, Step, Workflow, minutes};
use crate::lint::yaml::Node;

pub fn check(w: &Workflow<'_>, hits: &mut Vec<Hit>) {
    for job in &w.jobs {
        job_always(job, hits);
        long_timeout(job, hits);
        silent_baseline(job, hits);
        cache_discipline(w, job, hits);
        if let Some(c) = job.get("concurrency") {
            cancel_main(w, c, Some(job), hits);
        }
    }
    if let Some(c) = w.root.get("concurrency") {
        cancel_main(w, c, None, hits);
    }
}

/// An expression without its spaces, in lower case: GitHub's function
/// names are case-insensitive (`Always()` is `always()`).
fn squeezed(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn job_always(job: &Job<'_>, hits: &mut Vec<Hit>) {
    let Some(cond) = job.get("if").and_then(Node::scalar) else {
        return;
    };
    let flat = squeezed(&cond.text);
    if !flat.contains("always()") || flat.contains("!cancelled()") || job.get("uses").is_some() {
        return;
    }
    let long = job.timeout().is_some_and(|t| t > 30.0);
    if !(job.expensive_runner() || long) {
        return;
    }
    let at = cond.text.to_ascii_lowercase().find("always").unwrap_or(0);
    hits.push(hit("job-always", cond.pos_of(at), job, None));
}

fn job_runs_benchmarks(job: &Job<'_>) -> bool {
    about_benchmarks(&job.title()) || job.steps.iter().any(step_runs_benchmarks)
}

fn step_runs_benchmarks(step: &Step<'_>) -> bool {
    about_benchmarks(&step.title())
        || step.script.as_ref().is_some_and(|s| {
            s.commands.iter().any(|c| {
                c.words
                    .iter()
                    .any(|w| about_benchmarks(&w.text.to_lowercase()))
            })
        })
}

fn long_timeout(job: &Job<'_>, hits: &mut Vec<Hit>) {
    if job.get("uses").is_some() || !job_runs_benchmarks(job) {
        return;
    }
    match job.get("timeout-minutes") {
        Some(t) if minutes(Some(t)).is_some_and(|m| m >= 120.0) => {
            hits.push(hit("long-timeout", t.at, job, None));
        }
        None if job.expensive_runner() => {
            let mut h = hit("long-timeout", job.id.at, job, None);
            h.detail = Some(
                "a self-hosted benchmark job with no timeout-minutes: GitHub's default is 360 minutes"
                    .to_owned(),
            );
            hits.push(h);
        }
        _ => {}
    }
    for step in &job.steps {
        if let Some(t) = step.node.get("timeout-minutes")
            && minutes(Some(t)).is_some_and(|m| m >= 120.0)
            && step_runs_benchmarks(step)
        {
            hits.push(hit("long-timeout", t.at, job, Some(step)));
        }
    }
}

fn step_about_baseline(step: &Step<'_>) -> bool {
    about_baseline(&step.title())
        || step.script.as_ref().is_some_and(|s| {
            s.commands.iter().any(|c| {
                c.words
                    .iter()
                    .any(|w| about_baseline(&w.text.to_lowercase()))
            })
        })
}

fn continues(n: &Node) -> Option<&Node> {
    n.get("continue-on-error")
        .filter(|c| c.str() == Some("true"))
}

fn silent_baseline(job: &Job<'_>, hits: &mut Vec<Hit>) {
    if let Some(c) = continues(job.node)
        && (about_baseline(&job.title()) || job.steps.iter().any(step_about_baseline))
    {
        hits.push(hit("silent-baseline", c.at, job, None));
    }
    for step in &job.steps {
        if !step_about_baseline(step) {
            continue;
        }
        if let Some(c) = continues(step.node) {
            hits.push(hit("silent-baseline", c.at, job, Some(step)));
        }
        if let Some(script) = &step.script {
            for at in exits_when_missing(script) {
                let mut h = hit("silent-baseline", at, job, Some(step));
                h.detail = Some(
                    "the comparison exits 0 when its results file is missing: the job goes green with no comparison"
                        .to_owned(),
                );
                hits.push(h);
            }
        }
    }
}

/// A file test (`[ -f x ]`, `test -e x`, `[[ -s x ]]`): `Some(negated)`.
fn file_test(c: &Command) -> Option<bool> {
    let name = c.name()?;
    if !["[", "[[", "test"].contains(&name) {
        return None;
    }
    let tests_file = c
        .words
        .iter()
        .any(|w| ["-f", "-e", "-s", "-r"].contains(&w.text.as_str()));
    tests_file.then(|| c.has("!") ^ c.keywords.iter().any(|k| k == "!"))
}

/// `exit 0` on the branch where a results file is missing.
fn exits_when_missing(script: &Script<'_>) -> Vec<crate::lint::yaml::Pos> {
    let mut found = Vec::new();
    // Per open `if`: whether the branch being read runs when a file is missing.
    let mut branches: Vec<bool> = Vec::new();
    let mut previous: Option<&Command> = None;
    let mut group = false;
    for c in &script.commands {
        for k in &c.keywords {
            match k.as_str() {
                "if" => branches.push(false),
                "else" => {
                    if let Some(b) = branches.last_mut() {
                        *b = !*b;
                    }
                }
                "fi" => {
                    branches.pop();
                }
                _ => {}
            }
        }
        let opens = c.keywords.iter().any(|k| k == "if" || k == "elif");
        if opens && let Some(b) = branches.last_mut() {
            *b = file_test(c) == Some(true);
        }
        // `[ -f x ] || cmd`, `[ ! -f x ] && cmd`: cmd runs when x is missing;
        // so does a `{ ...; }` group in its place.
        let chained = previous
            .and_then(file_test)
            .is_some_and(|negated| match c.before {
                Sep::Or => !negated,
                Sep::And => negated,
                _ => false,
            });
        if chained && c.keywords.iter().any(|k| k == "{") {
            group = true;
        }
        let exit0 = c.name() == Some("exit") && c.words.get(1).is_some_and(|w| w.text == "0");
        if exit0 && (chained || group || branches.last() == Some(&true)) {
            found.push(script.pos(c));
        }
        if c.keywords.iter().any(|k| k == "}") {
            group = false;
        }
        previous = Some(c);
    }
    found
}

fn cancel_main(w: &Workflow<'_>, c: &Node, job: Option<&Job<'_>>, hits: &mut Vec<Hit>) {
    let Some(cancel) = c
        .get("cancel-in-progress")
        .filter(|n| n.str() == Some("true"))
    else {
        return;
    };
    let group = c.get("group").and_then(Node::str).unwrap_or("");
    let by_ref = group.contains("github.ref") || group.contains("github.head_ref");
    let unique = ["github.sha", "run_id", "run_number", "run_attempt"]
        .iter()
        .any(|u| group.contains(u));
    let main_runs = w.pushes_to_default()
        || ["schedule", "workflow_dispatch", "issue_comment"]
            .iter()
            .any(|e| w.on(e));
    if !by_ref || unique || !main_runs {
        return;
    }
    let parents = job.map(|j| vec![j.id.at.line]).unwrap_or_default();
    hits.push(Hit {
        rule: "cancel-main",
        at: cancel.at,
        detail: None,
        parents,
    });
}

fn cache_discipline(w: &Workflow<'_>, job: &Job<'_>, hits: &mut Vec<Hit>) {
    for step in &job.steps {
        let Some(action) = step.action() else {
            continue;
        };
        if !action.starts_with("actions/cache") {
            continue;
        }
        if let Some(key) = step.with("key").and_then(Node::scalar)
            && key.text.contains("hashFiles(")
            && let Some(at) = key.text.find(".github/workflows")
        {
            let mut h = hit("cache-discipline", key.pos_of(at), job, Some(step));
            h.detail = Some(
                "the cache key hashes the workflow file: every workflow edit throws the cache away"
                    .to_owned(),
            );
            hits.push(h);
        }
        let saves = action == "actions/cache" || action == "actions/cache/save";
        let guarded = [step.text("if"), job.text("if")]
            .iter()
            .flatten()
            .any(|c| c.contains("event_name") || c.contains("github.ref"));
        if saves
            && w.on_pull_request()
            && !guarded
            && let Some(uses) = step.node.get("uses").and_then(Node::scalar)
        {
            let mut h = hit("cache-discipline", uses.at, job, Some(step));
            h.detail = Some(
                "pull requests save this cache: restore only on pull requests (actions/cache/restore), save on the default branch"
                    .to_owned(),
            );
            hits.push(h);
        }
    }
}
