//! Which jobs run benchmarks, and which occupy expensive runners.
//!
//! The benchmark rules (`silent-baseline`, `discard-partial`,
//! `unpinned-clone`, `long-timeout`, `moving-fallback`, `tag-sort`, ...)
//! are about the cost of benchmarks and stay quiet elsewhere: measured on
//! 282 real workflows, most of their findings outside benchmark jobs
//! pointed at no cost (a docs repository cloned to push to). A job runs
//! benchmarks when one of its commands (not an `echo`) is a known harness
//! (`cargo bench`, `asv run|continuous`, `pytest --benchmark-*`, `go test
//! -bench`, `hyperfine`, `pyperf`, nvbench, a `--benchmark_*` flag, a
//! program or script whose file is named for benchmarking such as
//! `run_benchmark.sh` or `bench_serving.py`), it uses a benchmark action,
//! it uploads or compares benchmark results, the job or its workflow is
//! named for benchmarking or performance and runs a program (not only
//! `echo`, `git`, `pip install`), or the repository's config says so
//! (`[lint]`: `benchmark-jobs`, `benchmark-workflows`). A word such as
//! "bench" in an `echo` is not evidence.
//!
//! The rules about holding a runner (`job-always`, `cancel-main`,
//! `label-cancel`, `cache-discipline`) also apply to every job on an
//! expensive runner ([`Job::costly_runner`]), benchmark or not: a GPU
//! project's test jobs can cost as much as its benchmarks. Pure.

use std::path::Path;

use super::calls::{Callees, called, callee_labels, costly_call};
use super::names::named_for_benchmarks;
use super::names::{job_does_chores, prepares_benchmarks, warms_up};
use super::shell::{Command, file_name};
use super::workflow::{Job, Step, Workflow, provider_hosted, read};
use crate::config::Lint;
use crate::lint::yaml::Node;

/// Which jobs of a workflow run benchmarks, by position; `any` when one does;
/// `kept` when the results outlive the run (a later run or a dashboard
/// reads them), so a cancelled run of the default branch loses a baseline.
#[derive(Debug, Clone, Default)]
pub struct Benchmarks {
    pub jobs: Vec<bool>,
    pub any: bool,
    pub kept: bool,
    /// Which jobs are seen on an expensive runner ([`Job::costly_runner`]).
    pub costly: Vec<bool>,
    /// Which jobs call a workflow of the same repository that has a
    /// benchmark job whose runner is an expression ([`unknown_bench_call`]).
    pub calls_bench: Vec<bool>,
}

impl Benchmarks {
    pub fn job(&self, index: usize) -> bool {
        self.jobs.get(index).copied().unwrap_or(false)
    }

    /// Whether job `index` is seen on an expensive runner.
    pub fn costly(&self, index: usize) -> bool {
        self.costly.get(index).copied().unwrap_or(false)
    }

    /// Whether job `index` calls a benchmark job whose runner is unknown.
    pub fn calls_bench(&self, index: usize) -> bool {
        self.calls_bench.get(index).copied().unwrap_or(false)
    }

    /// Whether job `index` runs benchmarks or holds an expensive runner:
    /// the scope of the rules about holding runners.
    pub fn holds(&self, index: usize) -> bool {
        self.job(index) || self.costly(index)
    }
}

/// What lint knows of a workflow's repository: the config's `[lint]`
/// table, whether another workflow runs on this one's runs (`on:
/// workflow_run`, which keeps what they print), and the reusable
/// workflows its jobs call, read beside it.
#[derive(Debug, Clone, Copy)]
pub struct Context<'r> {
    pub lint: Option<&'r Lint>,
    pub consumed: bool,
    pub callees: &'r Callees,
}

/// The benchmark jobs of `w` (its file at `file`) in `context`.
pub fn benchmarks(w: &Workflow<'_>, file: &str, context: Context<'_>) -> Benchmarks {
    let Context {
        lint,
        consumed,
        callees,
    } = context;
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let whole = lint.is_some_and(|l| l.benchmark_workflows.iter().any(|g| g.matches(name)));
    let workflow_named = named_for_benchmarks(name)
        || w.root
            .get("name")
            .and_then(Node::str)
            .is_some_and(named_for_benchmarks);
    let jobs: Vec<bool> = w
        .jobs
        .iter()
        .map(|job| {
            whole
                || lint.is_some_and(|l| l.benchmark_jobs.iter().any(|g| g.matches(&job.id.text)))
                || runs_benchmarks(job)
                || publishes_tables(job)
                || ((workflow_named || named_for_benchmarks(&job.title()) || runner_named(job))
                    && !job_does_chores(job)
                    && runs_a_program(job))
        })
        .collect();
    let costly = w
        .jobs
        .iter()
        .map(|j| j.costly_runner() || costly_call(j, Path::new(file), callees))
        .collect();
    let calls_bench = w
        .jobs
        .iter()
        .map(|j| unknown_bench_call(j, Path::new(file), callees))
        .collect();
    let any = jobs.iter().any(|b| *b);
    let kept = any
        && (consumed
            || w.jobs.iter().any(reads_earlier_runs)
            || w.jobs
                .iter()
                .zip(&jobs)
                .any(|(job, bench)| *bench && keeps_results(job)));
    Benchmarks {
        jobs,
        any,
        kept,
        costly,
        calls_bench,
    }
}

/// Whether `job` calls a workflow of its own repository (read beside it)
/// with a job that runs benchmarks on a runner that is an expression once
/// the call's inputs are read (`runner: ${{ matrix.test_config.os }}`):
/// the benchmark job the caller starts may hold an expensive machine, as
/// one written in the calling file would (read on vllm-ascend's nightly
/// NPU benchmarks, whose `always()` is on the call).
fn unknown_bench_call(job: &Job<'_>, caller: &Path, callees: &Callees) -> bool {
    let Some(root) = called(job, caller, callees) else {
        return false;
    };
    let Ok(flow) = read(root) else {
        return false;
    };
    // The called file's own evidence, without following its calls further.
    let none = Callees::new();
    let context = Context {
        lint: None,
        consumed: false,
        callees: &none,
    };
    let name = job.text("uses").unwrap_or_default();
    let inner = benchmarks(&flow, name, context);
    flow.jobs.iter().enumerate().any(|(i, called_job)| {
        inner.job(i)
            && callee_labels(job, root, called_job)
                .iter()
                .any(|l| l.contains("${{") && !provider_hosted(l))
    })
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
    // A step named for warming up or smoke-testing (`valkey-benchmark -n 1`
    // under "warm up", to fill a server before a test) runs a benchmark
    // program for something else: read on valkey's daily test jobs.
    if step.text("name").is_some_and(warms_up) {
        return false;
    }
    // A step named for benchmarking ("Run benchmark tests") that runs a
    // program is evidence, as a job so named is.
    step.text("name")
        .is_some_and(|n| named_for_benchmarks(n) && !prepares_benchmarks(n))
        && step_runs_a_program(step)
        || step
            .script
            .as_ref()
            .is_some_and(|s| s.commands.iter().any(benchmark_command))
}

/// Whether the job publishes the tables its program wrote: a command
/// (not a report or set-up) given `--csv FILE` and an upload holding CSV
/// files (`output_artifacts/*.csv`). A timing run writes a row per case
/// and keeps it; read on nod-ai/shark-ai's conv timings with and without
/// tuning specs, published daily, whose names say neither bench nor perf
/// (issue 49). A CSV upload alone is not evidence: test jobs upload
/// failure lists and pass rates as CSV (Intel's XPU test workflows).
fn publishes_tables(job: &Job<'_>) -> bool {
    let writes = job.steps.iter().any(|s| {
        s.script.as_ref().is_some_and(|script| {
            script.commands.iter().any(|c| {
                invoked(c).is_some_and(|(n, words)| {
                    !SAYS.contains(&n)
                        && !PLUMBING.contains(&n)
                        && words
                            .iter()
                            .any(|w| *w == "--csv" || w.starts_with("--csv="))
                })
            })
        })
    });
    let uploads = job.steps.iter().any(|s| {
        s.action().as_deref() == Some("actions/upload-artifact")
            && s.with_text("path").is_some_and(|p| {
                p.lines()
                    .any(|l| l.trim().to_ascii_lowercase().ends_with(".csv"))
            })
    });
    writes && uploads
}

/// Whether the job's runner is named for benchmarking or performance (a
/// label such as `benchmarks` or `perf-regression-8-cores`, also quoted in
/// an expression): a machine kept for measuring.
fn runner_named(job: &Job<'_>) -> bool {
    job.runner_labels().iter().any(|l| named_for_benchmarks(l))
}

/// Commands that prepare or report, not the program a job is for.
const PLUMBING: &[&str] = &[
    "cd",
    "pushd",
    "popd",
    "export",
    "set",
    "unset",
    "source",
    ".",
    "mkdir",
    "ls",
    "rm",
    "cp",
    "mv",
    "ln",
    "pwd",
    "sleep",
    "exit",
    "env",
    "chmod",
    "chown",
    "touch",
    "git",
    "gh",
    "curl",
    "wget",
    "pip",
    "pip3",
    "apt",
    "apt-get",
    "yum",
    "dnf",
    "brew",
    "sudo",
    "nvidia-smi",
    "rocm-smi",
    "df",
    "du",
    "uname",
    "whoami",
    "date",
    "tar",
    "unzip",
    "sed",
    "grep",
    "awk",
    "jq",
    "head",
    "tail",
    "wc",
    "find",
    "which",
    "rustup",
    // A compiler cache's statistics ("Ccache performance": `ccache -s`).
    "ccache",
    "sccache",
    "conda",
    "uv",
    "return",
    "shift",
];

/// A word that sets a variable for the command (`CUDA_VISIBLE_DEVICES=0`),
/// not the program it runs.
fn assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether a job runs a program of its own: a script with a command that
/// neither says something (`echo`) nor only prepares (`git`, `pip`, `cd`).
fn runs_a_program(job: &Job<'_>) -> bool {
    job.steps.iter().any(step_runs_a_program)
}

fn step_runs_a_program(step: &Step<'_>) -> bool {
    local_program(step)
        || step.script.as_ref().is_some_and(|script| {
            script.commands.iter().any(|c| {
                invoked(c).is_some_and(|(n, _)| !SAYS.contains(&n) && !PLUMBING.contains(&n))
            })
        })
}

/// Whether a step runs the repository's own composite action
/// (`uses: ./.github/actions/run-python-test-set`): its scripts are the
/// project's programs, as a `run:` script is (read on neon, whose
/// benchmark jobs run their suites only through one), unless the action's
/// folder says it sets up, fetches or stores (`setup-environment`,
/// `download`, `upload-results`, `cache`).
fn local_program(step: &Step<'_>) -> bool {
    let Some(action) = step.action() else {
        return false;
    };
    let Some(path) = action.strip_prefix("./") else {
        return false;
    };
    let folder = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path);
    ![
        "setup",
        "set-up",
        "install",
        "download",
        "upload",
        "cache",
        "checkout",
        "configure",
        "prepare",
        "harden",
    ]
    .iter()
    .any(|p| folder.starts_with(p))
}

/// Commands that only say something: their words are a message.
const SAYS: &[&str] = &[
    "echo", "printf", ":", "cat", "tee", "true", "false", "test", "[", "[[",
];

/// The program a command runs, by its file name, and its words from that
/// program on: `python -m asv continuous` runs `asv` as `asv continuous`
/// does.
fn invoked(c: &Command) -> Option<(&str, Vec<&str>)> {
    let mut words: Vec<&str> = c
        .words
        .iter()
        .map(|w| w.text.as_str())
        .skip_while(|w| assignment(w))
        .collect();
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

/// A regression or comparison script given both sides
/// (`regression_runner.py --old=old/runner --new=build/runner`, or two
/// result files: `compare.py base.json head.json`), or any program given
/// a baseline and the build compared with it (`smp job submit
/// --baseline-image A --comparison-image B`: vector's regression
/// experiment, issue 49): a performance comparison of two builds.
fn compares_two_builds(words: &[&str]) -> bool {
    // The script stands within the launcher's first words (`uv run
    // --no-project python scripts/query-regression-run.py`).
    let named = words.iter().skip(1).take(5).any(|w| {
        let f = file_name(w).to_lowercase();
        !w.starts_with('-') && (f.contains("regress") || f.contains("compar"))
    });
    let sides = |prefixes: &[&str]| {
        words
            .iter()
            .any(|w| prefixes.iter().any(|p| w.to_lowercase().starts_with(p)))
    };
    let results = words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-') && [".json", ".csv"].iter().any(|e| w.ends_with(e)))
        .count();
    named
        && (sides(&["--old", "--base"]) && sides(&["--new", "--head", "--current", "--candidate"])
            || results >= 2)
}

/// Any program given a baseline and what is compared with it, by flags
/// that say so (`--baseline-image`, `--comparison-image`; `--candidate`,
/// `--contender`): not `--base`/`--head`, which name branches (`gh pr
/// create --base main --head x`).
fn baseline_and_comparison(words: &[&str]) -> bool {
    let sides = |prefixes: &[&str]| {
        words
            .iter()
            .any(|w| prefixes.iter().any(|p| w.to_lowercase().starts_with(p)))
    };
    sides(&["--baseline"]) && sides(&["--comparison", "--candidate", "--contender"])
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
    // A program or script (`python benchmarks/bench_serving.py`, `python
    // -m sglang.bench_serving`, `./build/bench_gemm`, `nvbench_compare.py`)
    // named for benchmarking; a word of a flag or a message is not.
    let file_like = |w: &str| {
        let f = file_name(w).to_lowercase();
        // `test_cuda_bench.sh` tests a benchmark library: a test.
        !w.starts_with('-')
            && !f.starts_with("test")
            && (f.starts_with("run_benchmark")
                || f.starts_with("run-benchmark")
                || f.starts_with("bench")
                || f.contains("_bench")
                || f.contains(".bench")
                || f.contains("-bench")
                || f.contains("benchmark"))
    };
    let program = |w: &str| {
        let f = file_name(w).to_lowercase();
        f.contains("python")
            || ["bash", "sh", "julia", "node", "torchrun", "uv", "./"].contains(&f.as_str())
    };
    // Scripts named for benchmarking, wherever they stand (`timeout 3600
    // bash scripts/run_benchmark.sh`).
    let seed_like = |w: &str| {
        let f = file_name(w).to_lowercase();
        f.starts_with("run_benchmark")
            || f.starts_with("run-benchmark")
            || ((f.contains("compare") || f.contains("cmp")) && f.contains("bench"))
    };
    let runs_file = program(base) || words.first().is_some_and(|w| w.contains('/'));
    let harness = ["pyperf", "pyperformance", "nvbench", "criterion"]
        .iter()
        .any(|h| base.starts_with(h));
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
        || harness
        || (base == "vllm" && words.get(1) == Some(&"bench"))
        || (runs_file && compares_two_builds(&words))
        || (!PLUMBING.contains(&base) && baseline_and_comparison(&words))
        || has("--codspeed")
        || words.iter().any(|w| seed_like(w))
        || file_like(base)
        || (runs_file && words.iter().skip(1).take(3).any(|w| file_like(w)))
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
            "uv run --no-project python s/query-regression-run.py --base-src a --candidate-src b",
            "docker exec box bash -c 'cd /w && bash scripts/run_benchmark.sh'",
            "${{ runner.temp }}/bin/smp job submit --baseline-image a:1 --comparison-image a:2",
            "python scripts/compare_results.py base.json head.json",
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
            "gh pr create --base main --head fix",
            "echo --baseline-image a --comparison-image b",
            "python scripts/compare_results.py base.json",
        ] {
            assert!(!runs(no), "{no}");
        }
    }
}
