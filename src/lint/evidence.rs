//! Which jobs run benchmarks, on strong evidence only: the baseline rules
//! (`cancel-main`, `cache-discipline`, `unpinned-clone`, `long-timeout`,
//! `silent-baseline`, `discard-partial`, `label-cancel`) are about the
//! cost of benchmarks and stay quiet elsewhere. Measured on 282 real
//! workflows, most findings of those rules outside benchmark jobs pointed
//! at no cost (an ordinary CI workflow's `cancel-in-progress`, a docs
//! repository cloned to push to).
//!
//! A job runs benchmarks when one of its commands (not an `echo`) is a
//! known benchmark command (`cargo bench`, `asv run|continuous`, `pytest
//! --benchmark-*`, `go test -bench`, `hyperfine`, a `run_benchmark*`
//! script, a `--benchmark_*` flag), it uses a benchmark action, it uploads
//! benchmark results or compares them, or the repository's config says so
//! (`[lint]`: `benchmark-jobs` globs of job ids, `benchmark-workflows` globs
//! of file names). A word such as "bench" in a name or a message is not
//! evidence. Pure.

use super::shell::{Command, file_name};
use super::workflow::{Job, Step, Workflow};
use crate::config::Lint;

/// Which jobs of a workflow run benchmarks, by position; `any` when one does;
/// `kept` when the results outlive the run (a later run or a dashboard
/// reads them), so a cancelled run of the default branch loses a baseline.
#[derive(Debug, Clone, Default)]
pub struct Benchmarks {
    pub jobs: Vec<bool>,
    pub any: bool,
    pub kept: bool,
}

impl Benchmarks {
    pub fn job(&self, index: usize) -> bool {
        self.jobs.get(index).copied().unwrap_or(false)
    }
}

/// The benchmark jobs of `w` (its file name `file`), with `lint`'s globs;
/// `consumed` when another workflow of the repository runs on this one's
/// runs (`on: workflow_run`), which keeps what they print.
pub fn benchmarks(w: &Workflow<'_>, file: &str, lint: Option<&Lint>, consumed: bool) -> Benchmarks {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let whole = lint.is_some_and(|l| l.benchmark_workflows.iter().any(|g| g.matches(name)));
    let jobs: Vec<bool> = w
        .jobs
        .iter()
        .map(|job| {
            whole
                || lint.is_some_and(|l| l.benchmark_jobs.iter().any(|g| g.matches(&job.id.text)))
                || runs_benchmarks(job)
        })
        .collect();
    let any = jobs.iter().any(|b| *b);
    let kept = any
        && (consumed
            || w.jobs.iter().any(reads_earlier_runs)
            || w.jobs
                .iter()
                .zip(&jobs)
                .any(|(job, bench)| *bench && keeps_results(job)));
    Benchmarks { jobs, any, kept }
}

/// Actions that keep a history of results (a dashboard, a baseline store).
const HISTORIES: &[&str] = &[
    "benchmark-action/github-action-benchmark",
    "rhysd/github-action-benchmark",
    "codspeedhq/action",
    "bencherdev/bencher",
];

/// Whether the job keeps what it measured for later runs: a history
/// action, a `git push` (a results branch), or an artifact named for its
/// commit (`bench-${{ github.sha }}`: what a later run looks up).
fn keeps_results(job: &Job<'_>) -> bool {
    job.steps.iter().any(|s| {
        let action = s.action();
        action.as_deref().is_some_and(|a| HISTORIES.contains(&a))
            || (action.as_deref() == Some("actions/upload-artifact")
                && s.with_text("name")
                    .is_some_and(|n| n.contains("sha") || n.contains("commit")))
            || s.script
                .as_ref()
                .is_some_and(|script| script.commands.iter().any(|c| c.git("push")))
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

/// Actions that run or publish benchmarks.
const ACTIONS: &[&str] = &[
    "benchmark-action/github-action-benchmark",
    "rhysd/github-action-benchmark",
    "codspeedhq/action",
    "bencherdev/bencher",
    "boa-dev/criterion-compare-action",
    "pytorch/test-infra/.github/actions/upload-benchmark-results",
];

/// Whether the job's steps show it runs benchmarks.
pub fn runs_benchmarks(job: &Job<'_>) -> bool {
    job.steps.iter().any(step_runs_benchmarks)
}

/// Whether one step runs, publishes or compares benchmarks.
pub fn step_runs_benchmarks(step: &Step<'_>) -> bool {
    if let Some(action) = step.action() {
        if ACTIONS.iter().any(|a| action == *a) || action.ends_with("/baseline-resolver/compare") {
            return true;
        }
        if action == "actions/upload-artifact" {
            let named = |k: &str| {
                step.with_text(k)
                    .is_some_and(|v| v.to_lowercase().contains("bench"))
            };
            return named("name") || named("path");
        }
    }
    step.script
        .as_ref()
        .is_some_and(|s| s.commands.iter().any(benchmark_command))
}

/// Commands that only say something: their words are a message.
const SAYS: &[&str] = &[
    "echo", "printf", ":", "cat", "tee", "true", "false", "test", "[", "[[",
];

/// The program a command runs, by its file name, and its words from that
/// program on: `python -m asv continuous` runs `asv` as `asv continuous`
/// does.
fn invoked(c: &Command) -> Option<(&str, Vec<&str>)> {
    let mut words: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
    let python = words
        .first()
        .is_some_and(|w| file_name(w).starts_with("python"));
    if python && words.get(1) == Some(&"-m") && words.len() > 2 {
        words.drain(..2);
    }
    let name = *words.first()?;
    Some((file_name(name), words))
}

/// Whether `c` measures the baseline and the change in one run with one
/// checkout of the suite (`asv continuous BASE HEAD`): a suite cloned at a
/// moving ref then measures both sides alike.
pub fn measures_both_sides(c: &Command) -> bool {
    invoked(c).is_some_and(|(base, words)| base == "asv" && words.get(1) == Some(&"continuous"))
}

/// Whether `c` runs a benchmark, or compares benchmark results.
pub fn benchmark_command(c: &Command) -> bool {
    let Some((base, words)) = invoked(c) else {
        return false;
    };
    if SAYS.contains(&base) {
        return false;
    }
    let has = |w: &str| words.contains(&w);
    let file_like = |w: &str| {
        let f = file_name(w).to_lowercase();
        f.starts_with("run_benchmark")
            || f.starts_with("run-benchmark")
            || ((f.contains("compare") || f.contains("cmp")) && f.contains("bench"))
    };
    (base == "cargo" && (words.get(1) == Some(&"bench") || words.get(1) == Some(&"criterion")))
        || (base == "asv" && matches!(words.get(1), Some(&("run" | "continuous" | "compare"))))
        || (base == "go"
            && has("test")
            && words
                .iter()
                .any(|w| *w == "-bench" || w.starts_with("-bench=")))
        || base == "hyperfine"
        || base == "critcmp"
        || base == "benchstat"
        || words
            .iter()
            .any(|w| w.starts_with("--benchmark-") || w.starts_with("--benchmark_"))
        || words.iter().any(|w| file_like(w))
        || (base.starts_with("baseline-resolver") && has("compare"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::shell::commands;

    fn runs(script: &str) -> bool {
        commands(script).unwrap().iter().any(benchmark_command)
    }

    #[test]
    fn known_commands_are_evidence_and_words_are_not() {
        for yes in [
            "cargo bench --bench resolver",
            "asv continuous origin/main HEAD",
            "python -m asv continuous $ASV_OPTIONS ${BASE_SHA} ${GITHUB_SHA}",
            "/usr/bin/python3 -m asv run --quick",
            "python -m pytest tests --benchmark-json out.json",
            "go test ./... -bench=. -run=^$",
            "hyperfine 'rg x'",
            "bash scripts/run_benchmark.sh --only softmax",
            "./build/bench --benchmark_format=json",
            "python3 scripts/compare_benchmark.py a.csv b.csv",
            "docker exec box bash -c 'cd /w && bash scripts/run_benchmark.sh'",
        ] {
            assert!(runs(yes), "{yes}");
        }
        for no in [
            "cargo check --benches",
            "echo 'run the benchmarks: cargo bench'",
            "cargo test --all-targets",
            "make bench-docs",
            "pytest tests -k bench",
            "echo Testbench",
            "python -m asv machine --yes",
            "python -m",
        ] {
            assert!(!runs(no), "{no}");
        }
    }
}
