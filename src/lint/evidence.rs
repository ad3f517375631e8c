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
//! it uploads or compares benchmark results (not only relays results
//! another job measured), the job or its workflow is
//! named for benchmarking or performance and runs a program (not only
//! `echo`, `git`, `pip install`), or the repository's config says so
//! (`[lint]`: `benchmark-jobs`, `benchmark-workflows`). A word such as
//! "bench" in an `echo` is not evidence.
//!
//! The rules about holding a runner (`job-always`, `cancel-main`,
//! `label-cancel`, `cache-discipline`) also apply to every job on an
//! expensive runner ([`Job::costly_runner`]), benchmark or not: a GPU
//! project's test jobs can cost as much as its benchmarks. Pure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::calls::{
    Callees, MAX_JOBS_JUDGED, called, costly_call, input_values, labels_given, local_file,
};
use super::names::named_for_benchmarks;
use super::names::{job_does_chores, prepares_benchmarks, remote_benchmark_folder, warms_up};
pub use super::programs::benchmark_command;
use super::programs::own_work;
use super::programs::{invoked, own_program};
use super::relays::relays_results;
pub use super::sides::{measures_both_sides, runs_each_side};
use super::workflow::{CallInputs, Job, Step, Workflow, input_in, read, unknown_runner};
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
    /// Whether a job calls a workflow of the same repository that has a
    /// benchmark job by its own evidence: the workflow runs benchmarks
    /// through it (the scope of `label-cancel`).
    pub calls_benchmarks: bool,
    /// Which jobs are benchmark calls (or calls named for benchmarking)
    /// whose called workflow allows a job that runs a program 120 minutes
    /// or more, written there or passed as an input ([`long_bench_call`]).
    pub long_calls: Vec<bool>,
}

impl Benchmarks {
    pub fn job(&self, index: usize) -> bool {
        self.jobs.get(index).copied().unwrap_or(false)
    }

    /// Whether job `index` is seen on an expensive runner.
    pub fn costly(&self, index: usize) -> bool {
        self.costly.get(index).copied().unwrap_or(false)
    }

    /// Whether job `index` is a benchmark call allowed long.
    pub fn long_call(&self, index: usize) -> bool {
        self.long_calls.get(index).copied().unwrap_or(false)
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
                || !relays_results(job, runs_a_program_or_benchmark_action)
                    && (shows_benchmarks(job, w.repository.as_deref())
                        || publishes_tables(job)
                        // A chore in the job's name undoes its name's and
                        // its workflow's evidence, not its runner's: a job
                        // on a machine kept for measuring holds it
                        // whatever it does (scala3-benchmarks'
                        // `publish-pr` builds the compiler on its
                        // `benchmarks` runner, with no timeout).
                        || (((workflow_named || named_for_benchmarks(&job.title()))
                            && !job_does_chores(job))
                            || runner_named(job))
                            && runs_a_program(job))
        })
        .collect();
    let starters = runner_starters(w);
    let costly = w
        .jobs
        .iter()
        .map(|j| {
            j.costly_runner()
                || started_runner(&starters, j)
                || costly_call(j, Path::new(file), callees)
        })
        .collect();
    let judged = judge_called(w, Path::new(file), callees);
    let calls_bench = w
        .jobs
        .iter()
        .map(|j| unknown_bench_call(j, &judged))
        .collect();
    let long_calls = w
        .jobs
        .iter()
        .zip(&jobs)
        .map(|(j, bench)| {
            let by_workflow = workflow_named && !job_does_chores(j);
            long_bench_call(j, *bench || by_workflow, &judged)
        })
        .collect();
    let any = jobs.iter().any(|b| *b);
    let calls_benchmarks = w
        .jobs
        .iter()
        .any(|j| called_file(j, &judged).is_some_and(|f| f.any_job(|_, bench| bench)));
    let kept = any && (consumed || super::kept::results_kept(w, &jobs));
    Benchmarks {
        jobs,
        any,
        kept,
        costly,
        calls_bench,
        calls_benchmarks,
        long_calls,
    }
}

/// Whether `job` is a call of a workflow of its own repository (read
/// beside it) one of whose jobs runs a program and is allowed 120 minutes
/// or more, where only the call says it is a benchmark: the call is named
/// for benchmarking ("Run benchmarks E2E Tests") and the called job is no
/// benchmark job of its own file, or the call is a benchmark job
/// (`benchmark`) and the called job's `timeout-minutes` is an input. Its
/// allowance is then written only at the call. AutoMQ's nightly
/// `benchmarks_e2e` runs its benchmark suite through `e2e-run.yml`, whose
/// one job allows 2,880 minutes. A call in a workflow named for
/// benchmarking is a benchmark job by that name, as a job that runs its
/// programs itself is (arity-arrays' "Bench compare (main)" passes
/// `timeout-minutes: 330` to its comparison workflow). A called
/// job that benchmarks by its own evidence, with its minutes written out,
/// is found in its own file.
fn long_bench_call(job: &Job<'_>, benchmark: bool, judged: &CalledFiles<'_>) -> bool {
    let named = named_for_benchmarks(&job.title()) && !job_does_chores(job);
    if !named && !benchmark {
        return false;
    }
    let Some(file) = called_file(job, judged) else {
        return false;
    };
    let given = input_values(file.root, &[job.get("with")]);
    file.any_job(|called_job, bench| {
        let long = |m: f64| m >= 120.0 && runs_a_program(called_job);
        match input_minutes(called_job, &given) {
            Some(m) => long(m),
            None => {
                named
                    && !bench
                    && called_job.get("timeout-minutes").is_some()
                    && called_job.timeout().is_some_and(long)
            }
        }
    })
}

/// A workflow of the repository that the linted file calls, read and
/// judged once however many of its jobs call it (500 calls of one
/// 5,000-step file read and judged it 1,000 times): its tree, its jobs,
/// and which are benchmark jobs by its own evidence (its calls not
/// followed further).
struct CalledFile<'c> {
    root: &'c Node,
    flow: Workflow<'c>,
    bench: Benchmarks,
}

impl CalledFile<'_> {
    /// Whether one of its jobs meets `test`, given whether it is a
    /// benchmark job.
    fn any_job(&self, test: impl Fn(&Job<'_>, bool) -> bool) -> bool {
        self.flow
            .jobs
            .iter()
            .enumerate()
            .any(|(i, called_job)| test(called_job, self.bench.job(i)))
    }
}

/// The called files of one linted file, by their name in its `uses:`.
type CalledFiles<'c> = BTreeMap<&'c str, CalledFile<'c>>;

/// Reads and judges each workflow of its own repository a job of `w` (at
/// `caller`) calls, once each, until [`MAX_JOBS_JUDGED`] of their jobs
/// are read: a file past that is not judged (no evidence), as a call
/// nested past it is not in [`costly_call`].
fn judge_called<'c>(w: &Workflow<'c>, caller: &Path, callees: &'c Callees) -> CalledFiles<'c> {
    let mut files = CalledFiles::new();
    let mut budget = MAX_JOBS_JUDGED;
    let none = Callees::new();
    for job in &w.jobs {
        let Some(name) = job.text("uses").and_then(local_file) else {
            continue;
        };
        if files.contains_key(name) {
            continue;
        }
        let Some(root) = called(job, caller, callees) else {
            continue;
        };
        let Ok(flow) = read(root) else {
            continue;
        };
        let Some(left) = budget.checked_sub(flow.jobs.len()) else {
            continue;
        };
        budget = left;
        let context = Context {
            lint: None,
            consumed: false,
            callees: &none,
        };
        let bench = benchmarks(&flow, name, context);
        files.insert(name, CalledFile { root, flow, bench });
    }
    files
}

/// The file `job` calls, as [`judge_called`] read it.
fn called_file<'j, 'c>(job: &Job<'_>, judged: &'j CalledFiles<'c>) -> Option<&'j CalledFile<'c>> {
    judged.get(job.text("uses").and_then(local_file)?)
}

/// The minutes a called job is allowed when its `timeout-minutes` is
/// `${{ inputs.K }}`: what the call passes for K written out, or else
/// the input's default (`given`, [`input_values`]). BladeDISC's benchmark
/// calls pass 4,320 to 14,400 minutes to its reusable workflow, or get
/// its 360-minute default. `None` for
/// minutes written out, or a value passed by an expression.
fn input_minutes(called_job: &Job<'_>, given: &CallInputs) -> Option<f64> {
    // A job with no allowance of its own is bounded at the first step
    // that runs a program with one (mosaic's solver runs, `timeout-minutes:
    // ${{ inputs.timeout }}` on the step, 600 passed by its call).
    let text = match called_job.text("timeout-minutes") {
        Some(text) => text,
        None => called_job
            .steps
            .iter()
            .filter(|s| step_runs_a_program(s))
            .find_map(|s| s.text("timeout-minutes"))?,
    };
    let (key, false) = input_in(text)? else {
        return None;
    };
    given.get(key)?.first()?.trim().parse().ok()
}

/// Whether `job` runs on a runner another job of the workflow starts: its
/// `runs-on` reads `needs.<id>.outputs.` of a job (ids compare without
/// case, as GitHub's do) that starts a self-hosted runner with an action
/// made for it (`machulav/ec2-github-runner` and its kin, not in `mode:
/// stop`). Such a runner is self-hosted by construction, a machine the
/// project pays for while the job holds it (marqo's EC2 GPU runners). An output
/// of any other job (a label
/// picked in a script) is not seen.
fn started_runner(starters: &BTreeSet<String>, job: &Job<'_>) -> bool {
    let mut labels = Vec::new();
    if let Some(runs_on) = job.get("runs-on") {
        runs_on.scalars(&mut labels);
    }
    labels.iter().any(|label| {
        label.text.match_indices("needs.").any(|(at, n)| {
            let rest = label.text.get(at.saturating_add(n.len())..).unwrap_or("");
            let id_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
                .unwrap_or(rest.len());
            let (id, after) = rest.split_at(id_len);
            after.starts_with(".outputs.") && starters.contains(&id.to_ascii_lowercase())
        })
    })
}

/// The ids, lower-cased, of the jobs of `w` that start a self-hosted
/// runner (see [`started_runner`]): found once per workflow, not once per
/// `needs.` a label reads, so a stranger's workflow of many jobs and
/// labels costs its size, not its size squared.
fn runner_starters(w: &Workflow<'_>) -> BTreeSet<String> {
    w.jobs
        .iter()
        .filter(|j| {
            j.steps.iter().any(|s| {
                s.action().is_some_and(|a| a.ends_with("-github-runner"))
                    && s.with_text("mode").as_deref() != Some("stop")
            })
        })
        .map(|j| j.id.text.to_ascii_lowercase())
        .collect()
}

/// Whether `job` calls a workflow of its own repository (read beside it)
/// with a job that runs benchmarks on a runner that is an expression once
/// the call's inputs are read (`runner: ${{ matrix.test_config.os }}`):
/// the benchmark job the caller starts may hold an expensive machine, as
/// one written in the calling file would (read on vllm-ascend's nightly
/// NPU benchmarks, whose `always()` is on the call).
fn unknown_bench_call(job: &Job<'_>, judged: &CalledFiles<'_>) -> bool {
    let Some(file) = called_file(job, judged) else {
        return false;
    };
    let given = input_values(file.root, &[job.get("with")]);
    file.any_job(|called_job, bench| bench && unknown_runner(&labels_given(&given, called_job)))
}

/// A step that runs a program, or uses a benchmark action: a relaying
/// job's steps that must each send (commonware's "Publish benchmark
/// result", `github-action-benchmark` on a downloaded result, after a
/// step that only checks the file is there).
fn runs_a_program_or_benchmark_action(step: &Step<'_>) -> bool {
    step_runs_a_program(step) || step.action().is_some_and(|a| benchmark_action(&a))
}

/// Whether an action runs or publishes benchmarks ([`ACTIONS`], or this
/// project's own comparison).
fn benchmark_action(action: &str) -> bool {
    ACTIONS.contains(&action) || action.ends_with("/baseline-resolver/compare")
}

/// Actions that run or publish benchmarks. Not `bencherdev/bencher`,
/// which installs Bencher's command line: `bencher run` measures (a
/// program), `bencher archive` files a closed pull request's branch away
/// (zq2's "Archive closed PR branch", continued on error).
const ACTIONS: &[&str] = &[
    "benchmark-action/github-action-benchmark",
    "rhysd/github-action-benchmark",
    "codspeedhq/action",
    "boa-dev/criterion-compare-action",
    "pytorch/test-infra/.github/actions/upload-benchmark-results",
];

/// Whether the job's steps show it runs benchmarks.
pub fn runs_benchmarks(job: &Job<'_>) -> bool {
    job.steps.iter().any(step_runs_benchmarks)
}

/// [`runs_benchmarks`], as evidence that the job is a benchmark job of
/// the repository `own` (`owner/name`, when known): an upload named for
/// benchmarking only by the repository's name is not (a benchmarking
/// tool's repository uploads its binary, `inference-benchmarker_x86_64`,
/// from the job that builds its image): the name says what the project
/// is, not what the artifact holds.
fn shows_benchmarks(job: &Job<'_>, own: Option<&str>) -> bool {
    let project = own
        .and_then(|r| r.rsplit('/').next())
        .map(str::to_ascii_lowercase)
        .filter(|n| n.contains("bench"));
    let by_name_only = |s: &Step<'_>| {
        project.as_deref().is_some_and(|p| {
            s.action().as_deref() == Some("actions/upload-artifact")
                && ["name", "path"].iter().all(|k| {
                    s.with_text(k)
                        .is_none_or(|v| !v.to_ascii_lowercase().replace(p, "").contains("bench"))
                })
        })
    };
    job.steps
        .iter()
        .any(|s| step_runs_benchmarks(s) && !by_name_only(s))
}

/// Whether one step runs, publishes or compares benchmarks.
pub fn step_runs_benchmarks(step: &Step<'_>) -> bool {
    if let Some(action) = step.action() {
        if benchmark_action(&action) {
            return true;
        }
        if action == "actions/upload-artifact" {
            let named = |k: &str| {
                step.with_text(k)
                    .is_some_and(|v| v.to_lowercase().contains("bench"))
            };
            return (named("name") || named("path")) && !built(step);
        }
    }
    // A step named for warming up or smoke-testing (`valkey-benchmark -n 1`
    // under "warm up", to fill a server before a test) runs a benchmark
    // program for something else: read on valkey's daily test jobs.
    if step.text("name").is_some_and(warms_up) {
        return false;
    }
    // The repository's own action whose folder is named for benchmarking
    // (`uses: ./.github/workflows/test-benchmark`, valkey-glide's, which
    // runs its benchmark suite on each language's test job) runs
    // them, as a script so named does; not one named for a chore around
    // them (`setup-benchmarks`, `upload-benchmark-results`).
    if step.action().is_some_and(|a| {
        local_folder(&a).is_some_and(benchmark_folder) || remote_benchmark_folder(&a)
    }) {
        return true;
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
        || step.given.iter().any(benchmark_command)
}

/// Whether an upload holds what a build made, not results: its name or
/// path says a wheel, a package or a build (`benchmarks-wheel`, `*.whl`,
/// `dist/`; read on Intel's "Build benchmarks wheel" job, which measures
/// nothing), or a program or library built (`benchmarks-baseline.jar`,
/// a step "Upload the binaries", "Upload benchmarks CLI" of
/// `target/release/hydradx`: a build job hands the benchmark job what it
/// will run).
fn built(step: &Step<'_>) -> bool {
    const BUILT: &[&str] = &[
        "wheel", "wheels", "dist", "build", "package", "binary", "binaries", "cli", "release",
    ];
    const EXTENSIONS: &[&str] = &[
        ".whl", ".jar", ".war", ".deb", ".rpm", ".apk", ".exe", ".dll", ".so", ".dylib", ".nupkg",
    ];
    let says_built = |v: &str| {
        let v = v.to_lowercase();
        super::names::words(&v).any(|w| BUILT.contains(&w.as_str()))
            || v.split_whitespace()
                .any(|p| EXTENSIONS.iter().any(|e| p.ends_with(e)))
    };
    ["name", "path"]
        .iter()
        .any(|k| step.with_text(k).is_some_and(|v| says_built(&v)))
        || step.text("name").is_some_and(says_built)
}

/// Whether the job publishes the tables its program wrote: a command
/// (not a report or set-up) given `--csv FILE` and an upload holding CSV
/// files (`output_artifacts/*.csv`). A timing run writes a row per case
/// and keeps it; read on nod-ai/shark-ai's conv timings with and without
/// tuning specs, published daily, whose names say neither bench nor perf.
/// A CSV upload alone is not evidence: test jobs upload
/// failure lists and pass rates as CSV (Intel's XPU test workflows).
fn publishes_tables(job: &Job<'_>) -> bool {
    let writes = job.steps.iter().any(|s| {
        s.script.as_ref().is_some_and(|script| {
            script.commands.iter().any(|c| {
                invoked(c).is_some_and(|(n, words)| {
                    own_program(n)
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

/// Whether a job runs a program of its own: a script with a command that
/// neither says something (`echo`) nor only prepares (`git`, `pip`, `cd`).
fn runs_a_program(job: &Job<'_>) -> bool {
    job.steps.iter().any(step_runs_a_program)
}

/// Whether one step runs a program of the job's own (see
/// [`runs_a_program`]): in a benchmark job known by its name, the steps
/// that measure.
pub fn step_runs_a_program(step: &Step<'_>) -> bool {
    local_program(step)
        || step
            .script
            .as_ref()
            .is_some_and(|script| script.commands.iter().any(own_work))
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
    let Some(folder) = local_folder(&action) else {
        return false;
    };
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

/// The folder of the repository's own action (`./.github/actions/run-bench`:
/// `run-bench`); `None` for another repository's.
fn local_folder(action: &str) -> Option<&str> {
    let path = action.strip_prefix("./")?;
    let path = path.trim_end_matches('/');
    Some(path.rsplit('/').next().unwrap_or(path))
}

/// Whether a local action's folder is named for benchmarking and for no
/// chore around them.
fn benchmark_folder(folder: &str) -> bool {
    named_for_benchmarks(folder) && !prepares_benchmarks(folder) && !warms_up(folder)
}
