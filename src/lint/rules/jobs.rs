//! Rules on job and step settings: `job-always`, `long-timeout`,
//! `cancel-main`, `label-cancel` (`cache-discipline` is [`super::cache`]).

use super::group::{Event, Sharing, cancels, sharing};
use super::{hit, hit_at, measuring_steps};
use crate::lint::evidence::Benchmarks;
use crate::lint::finding::Hit;
use crate::lint::names;
use crate::lint::picks::picked_unseen;
use crate::lint::programs::invoked;
use crate::lint::workflow::{Job, Step, Workflow, minutes};
use crate::lint::yaml::Node;

pub fn check(w: &Workflow<'_>, bench: &Benchmarks, hits: &mut Vec<Hit>) {
    // A workflow that holds expensive runners or keeps benchmark results:
    // a cancelled run of its default branch loses what it cost.
    let holds = (0..w.jobs.len()).any(|i| bench.costly(i));
    let unseen = picked_unseen(w);
    for (i, job) in w.jobs.iter().enumerate() {
        let costly = bench.costly(i) || bench.calls_bench(i);
        // A runner that may be expensive: seen so (also one another job
        // starts), or an expression lint cannot read, unless other jobs
        // pick it and are seen to write no expensive label.
        let expensive =
            bench.costly(i) || job.expensive_runner() && !unseen.get(i).copied().unwrap_or(false);
        job_always(job, bench.job(i), costly, expensive, hits);
        // A key hashing the workflow file throws away the cache of every
        // job of a benchmark workflow at each edit, the jobs that build
        // for the benchmarks among them (the seed's MLIR cache).
        if bench.holds(i) || bench.any {
            super::cache::check(w, job, bench.holds(i), hits);
        }
        if bench.holds(i)
            && let Some(c) = job.get("concurrency")
        {
            let keeps = bench.costly(i) || (bench.job(i) && bench.kept);
            concurrency(w, keeps, c, Some(job), hits);
        }
        if bench.job(i) {
            long_timeout(job, expensive || job.own_machine(), hits);
        }
        if bench.long_call(i) {
            let mut h = hit("long-timeout", job.id.at, job, None);
            h.detail = Some(
                "a benchmark call whose called job is allowed 120 minutes or more (by the call's input or its default, or written out)"
                    .to_owned(),
            );
            hits.push(h);
        }
    }
    // Benchmarks run through a call of a workflow of the repository are
    // this workflow's when its own events start them; a reusable
    // workflow's calls run for its callers, judged in their files.
    let runs = bench.any || holds || bench.calls_benchmarks && !w.on("workflow_call");
    if let (Some(c), true) = (w.root.get("concurrency"), runs) {
        concurrency(w, holds || bench.kept, c, None, hits);
    }
}

/// An expression without its spaces, in lower case: GitHub's function
/// names are case-insensitive (`Always()` is `always()`).
pub fn squeezed(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Commands that only report: a job of nothing else is a status shim.
const REPORTS: &[&str] = &[
    "echo", "printf", "exit", "test", "[", "[[", "true", "false", ":", "cat",
];

/// A job whose every step only reports (a required status check
/// re-stating other jobs' results: a script of `echo`/`exit`, its
/// variables set along the way, `BUILD_OK=false` then `exit 1` unless
/// each is `true`, as openobserve's regression summary does; or
/// `re-actors/alls-green` over its `needs`), after at most a checkout and
/// set-up (intel's `check-jobs` on its self-hosted `runner-0.0.22` label
/// checks out and sets Python up before alls-green; a local action whose
/// folder is also named for benchmarking, `setup-and-run-bench`, is no
/// set-up: it may run them): it holds a runner
/// for seconds, whatever its condition. Not a call of a reusable
/// workflow: its steps are the called jobs', and what it passes them to
/// run is not all they do.
fn reports_only(job: &Job<'_>) -> bool {
    let reports = |s: &Step<'_>| {
        s.action().as_deref() == Some("re-actors/alls-green")
            || s.script.as_ref().is_some_and(|script| {
                script
                    .commands
                    .iter()
                    .all(|c| invoked(c).is_none_or(|(n, _)| REPORTS.contains(&n)))
            })
    };
    let sets_up = |s: &Step<'_>| {
        s.action().is_some_and(|a| {
            let folder = a.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            a == "actions/checkout"
                || a.starts_with("actions/setup-")
                || (a.starts_with("./")
                    && folder.starts_with("setup")
                    && !names::named_for_benchmarks(folder))
        })
    };
    job.text("uses").is_none()
        && job.steps.iter().any(reports)
        // An upload of what the job wrote is part of its report
        // (ColdVox's `ci_success` uploads its `report.md`).
        && job.steps.iter().all(|s| {
            reports(s) || sets_up(s) || s.action().as_deref() == Some("actions/upload-artifact")
        })
}

/// `job-always`: a job-level `always()` on a job seen on an expensive
/// runner (`costly`; for a call, also one that starts a benchmark job
/// whose runner is an expression), or on a benchmark job that may hold one
/// (`expensive`: a runner expression, not one other jobs pick among
/// hosted labels) or is allowed long (an explicit `timeout-minutes` over 30:
/// a GitHub-hosted job with none is not a 360-minute job), unless it only
/// reports.
fn job_always(job: &Job<'_>, benchmarks: bool, costly: bool, expensive: bool, hits: &mut Vec<Hit>) {
    let Some(cond) = job.get("if").and_then(Node::scalar) else {
        return;
    };
    let flat = squeezed(&cond.text);
    // A call of a reusable workflow counts when its runner is seen
    // (`costly`: the called file's jobs, or what the call passes).
    let call = job.get("uses").is_some();
    if !flat.contains("always()") || flat.contains("!cancelled()") || (call && !costly) {
        return;
    }
    let long = job.get("timeout-minutes").is_some() && job.timeout().is_some_and(|t| t > 30.0);
    if !(costly || (benchmarks && (expensive || long))) || reports_only(job) {
        return;
    }
    let at = cond.text.to_ascii_lowercase().find("always").unwrap_or(0);
    hits.push(hit("job-always", cond.pos_of(at), job, None));
}

/// `long-timeout`: the job's allowance, and each benchmark step's. A job
/// with no `timeout-minutes` whose benchmark is bounded at its step (120
/// minutes or more: [`bounded_at_step`]) is one cost, reported once, at
/// the step that says it (read on RediSearch's micro-benchmarks); a benchmark
/// step left unbounded before it (the seed's "Run
/// benchmarks" before its 180-minute baselines) keeps the job's 360
/// minutes a cost of its own. `expensive`: the job's runner may be
/// expensive (see [`check`]).
fn long_timeout(job: &Job<'_>, expensive: bool, hits: &mut Vec<Hit>) {
    if job.get("uses").is_some() {
        return;
    }
    let measures = measuring_steps(job);
    let long_step = |step: &&Step<'_>| {
        step.node
            .get("timeout-minutes")
            .is_some_and(|t| minutes(Some(t)).is_some_and(|m| m >= 120.0))
            && measures(step)
    };
    // The job's allowance when it is found: a benchmark step allowed as
    // long or longer inside it is that same cost, found once (hidet's
    // regression job and its step, 2,880 minutes each); a shorter one is
    // an allowance of its own (aiter's 120-minute sweep in a 180-minute
    // job).
    let mut found_job = f64::INFINITY;
    match job.get("timeout-minutes") {
        Some(t) if minutes(Some(t)).is_some_and(|m| m >= 120.0) => {
            found_job = minutes(Some(t)).unwrap_or(f64::INFINITY);
            hits.push(hit("long-timeout", t.at, job, None));
        }
        None if expensive && !bounded_at_step(job, measures) => {
            let mut h = hit("long-timeout", job.id.at, job, None);
            h.detail = Some(
                "a benchmark job on a self-hosted or larger runner with no timeout-minutes: GitHub's default is 360 minutes"
                    .to_owned(),
            );
            hits.push(h);
        }
        _ => {}
    }
    for step in job.steps.iter().filter(long_step) {
        if let Some(t) = step.node.get("timeout-minutes")
            && minutes(Some(t)).is_some_and(|m| m < found_job)
        {
            hits.push(hit("long-timeout", t.at, job, Some(step)));
        }
    }
}

/// Whether the first of `job`'s benchmark steps (`measures`) that is not
/// bounded short is bounded long: its own `timeout-minutes` of 120 or
/// more, with no benchmark step before it left to the job's default. What
/// runs after it (its results' export or comparison) handles what it
/// measured.
fn bounded_at_step(job: &Job<'_>, measures: fn(&Step<'_>) -> bool) -> bool {
    for step in job.steps.iter().filter(|s| measures(s)) {
        // None: no timeout of its own; Some(None): an expression, a
        // bound the file cannot read (an input's is read at its call,
        // [`crate::lint::evidence`]), not the job's 360 minutes.
        match step.node.get("timeout-minutes").map(|t| minutes(Some(t))) {
            Some(Some(m)) if m < 120.0 => {}
            Some(_) => return true,
            None => return false,
        }
    }
    false
}

/// A concurrency group keyed by the ref, that cancels: `cancel-main` when
/// the default branch's runs share it and what they cost is lost with
/// them (`keeps`: expensive runners, or benchmark results a later run or
/// a dashboard reads), `label-cancel` when a pull request's `labeled`
/// event starts a run in it.
fn concurrency(
    w: &Workflow<'_>,
    keeps: bool,
    c: &Node,
    job: Option<&Job<'_>>,
    hits: &mut Vec<Hit>,
) {
    let Some(cancel) = c.get("cancel-in-progress") else {
        return;
    };
    let cancel_text = squeezed(cancel.str().unwrap_or(""));
    let always_cancels = cancel_text == "true";
    let group = c.get("group").and_then(Node::str).unwrap_or("");
    // Who shares the group, read for each kind of run (group.rs): main's
    // runs (pushes to the default branch, a schedule that meets itself, a
    // comment) meet when their group has no per-run part and no per-pull
    // part; a pull request's runs meet in its own group.
    // A reusable workflow's runs are its callers' too (XNNPACK's build.yml,
    // called on every push to master): its group is met by their events.
    let any = |on: fn(&Workflow<'_>) -> bool| w.runs().any(on);
    let pull = Event {
        name: if any(|r| r.on("pull_request")) {
            "pull_request"
        } else {
            "pull_request_target"
        },
        action: "labeled",
        default: w.default_branch.as_deref(),
    };
    let main_events = [
        ("push", any(|r| r.pushes_to_default())),
        ("schedule", any(|r| r.frequent_schedule())),
        ("issue_comment", any(|r| r.on("issue_comment"))),
    ];
    // Main's runs that share the group and that its `cancel-in-progress`
    // cancels (`true`, or an expression true for that kind of run).
    let main_cancelled = main_events.iter().any(|&(name, runs)| {
        let default = match name {
            "push" => w.pushed_default(),
            _ => pull.default,
        };
        let event = Event {
            name,
            action: "",
            default,
        };
        runs && matches!(sharing(group, event), Sharing::Branch | Sharing::All)
            && cancels(cancel.str().unwrap_or(""), event)
    });
    let pull_shared = matches!(sharing(group, pull), Sharing::Branch | Sharing::Pull);
    let push = |rule: &'static str, hits: &mut Vec<Hit>| {
        let mut h = hit_at(rule, cancel.at);
        if let Some(j) = job {
            h.parents.push(j.id.at.line);
        }
        hits.push(h);
    };
    // A manual dispatch alone is not main's stream of runs: a second
    // dispatch superseding the first is what its author asked for.
    // A schedule is a stream of runs that cancel each other only when it
    // fires again before a run can end (a nightly never meets itself).
    if main_cancelled && keeps {
        push("cancel-main", hits);
    }
    // Or an expression true for every pull request's run: `startsWith(github.ref, 'refs/pull/')`.
    let labels_cancel = always_cancels
        || (cancel_text.contains("pull_request") && !cancel_text.contains("labeled"))
        || cancels_but_on_a_branch(&cancel_text)
        || cancels(cancel.str().unwrap_or(""), pull);
    let by_action = group.contains("event.action") || group.contains("event.label");
    // A `labeled` trigger two calls up is found where it stands, at the
    // caller whose own group it cancels (kata's ci-on-push.yaml), not
    // again in every file it reaches.
    let labeled = w
        .direct_runs()
        .any(|r| r.pull_request_types().contains(&"labeled"));
    if pull_shared && labeled && labels_cancel && !by_action {
        push("label-cancel", hits);
    }
}

/// Whether a (squeezed) `cancel-in-progress` is true for every ref but
/// one branch's: `${{ github.ref != 'refs/heads/master' }}` (or
/// `github.ref_name != 'master'`) keeps the branch's runs and cancels a
/// pull request's, a labelled one's among them (ceno's GPU integration).
fn cancels_but_on_a_branch(cancel: &str) -> bool {
    let Some(inner) = cancel
        .strip_prefix("${{")
        .and_then(|r| r.strip_suffix("}}"))
    else {
        return false;
    };
    let branch = |v: &str| {
        v.len() > 2
            && v.starts_with('\'')
            && v.ends_with('\'')
            && !v
                .get(1..v.len().saturating_sub(1))
                .unwrap_or("")
                .contains(['\'', '|', '&'])
    };
    match inner.split_once("!=") {
        Some(("github.ref", v)) => branch(v) && v.starts_with("'refs/heads/"),
        Some(("github.ref_name", v)) => branch(v),
        _ => false,
    }
}
