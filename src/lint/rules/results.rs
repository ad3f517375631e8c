//! Rules on what happens to benchmark results: `silent-baseline` (a step
//! that may fail unseen, or an `exit 0` when the results are missing) and
//! `discard-partial` (results used only when the suite exited 0: 64 good
//! rows thrown away because one benchmark of 65 failed). Only in
//! jobs that run benchmarks.

use std::cell::OnceCell;

use super::acted::{Later, says_loudly};
use super::{about_baseline, hit, measuring_steps};
use crate::lint::evidence::{Benchmarks, step_runs_a_program, step_runs_benchmarks};
use crate::lint::finding::Hit;
use crate::lint::names::{self, step_cleans_up};
use crate::lint::programs::{invoked, script_file};
use crate::lint::shell::{Command, Sep};
use crate::lint::workflow::{Job, Script, Step, Workflow};
use crate::lint::yaml::{Node, Pos};
use rustc_hash::FxHashSet;

pub fn check(w: &Workflow<'_>, bench: &Benchmarks, hits: &mut Vec<Hit>) {
    for (i, job) in w.jobs.iter().enumerate() {
        if bench.job(i) {
            silent_baseline(w, job, hits);
            discard_partial(job, hits);
        }
    }
}

/// A step that makes, reads or compares benchmark results: it runs
/// benchmarks, or its name or commands speak of a baseline or comparison.
fn about_results(step: &Step<'_>) -> bool {
    let title = step.title();
    // A comparison named for correctness compares outputs, not
    // measurements (rosetta-ruchy's "Compare outputs (correctness)" diffs
    // two implementations' test outputs).
    if names::words(&title).any(|w| w == "correctness") && !step_runs_benchmarks(step) {
        return false;
    }
    if step.text("name").is_some_and(step_cleans_up) && !about_baseline(&title) {
        return false;
    }
    if step.text("name").is_some_and(names::step_renders) && !step_runs_benchmarks(step) {
        return false;
    }
    step_runs_benchmarks(step)
        || about_baseline(&title)
        || checks_measurements(&title)
        || step.script.as_ref().is_some_and(|s| {
            s.commands.iter().any(|c| {
                c.name() != Some("echo")
                    && c.words.iter().enumerate().any(|(i, w)| {
                        let previous = i.checked_sub(1).and_then(|p| c.words.get(p));
                        about_baseline(&w.text.to_lowercase())
                            && !regression_test(previous.map(|p| p.text.as_str()), &w.text)
                    })
            })
        })
}

/// A step named for checking measurements against a bound: a check,
/// guard, gate, threshold or budget of performance or benchmarks
/// (gzippy's "Check performance guards", which runs its guard script on
/// the aggregated results).
fn checks_measurements(title: &str) -> bool {
    const BOUNDS: &[&str] = &[
        "check",
        "verify",
        "guard",
        "guards",
        "gate",
        "gates",
        "threshold",
        "thresholds",
        "budget",
        "budgets",
    ];
    let said: Vec<String> = names::words(title).collect();
    said.iter().any(|w| names::bench_or_perf_word(w))
        && said.iter().any(|w| BOUNDS.contains(&w.as_str()))
}

/// A test target named for regressions (`cargo test --test
/// regression_ml_scorer_features`): a regression test checks behaviour,
/// no baseline of measurements, unless named for benchmarks or
/// performance (`--test performance_regression`).
fn regression_test(previous: Option<&str>, word: &str) -> bool {
    let target = match word.strip_prefix("--test=") {
        Some(t) => t,
        None if previous == Some("--test") => word,
        None => return false,
    };
    !names::words(target).any(|w| names::bench_or_perf_word(&w))
}

/// Whether a step runs none of the project's programs, only set-up (`gh
/// run download`, `mkdir`, `ls`), and says a warning where it fails
/// (`|| echo "::warning::Failed to download baseline"`): noir-bench's
/// baseline download, continued on error, hides no failure.
fn fetches_loudly(step: &Step<'_>) -> bool {
    !step_runs_a_program(step)
        && step
            .script
            .as_ref()
            .is_some_and(|s| s.commands.iter().any(says_loudly))
}

/// Whether a step is named for sending on what was measured and checked
/// before it ("Ingest Benchmark Results to Supabase", js2il's), or for
/// committing it to the repository (bielu's "Commit baseline to
/// repository", which copies the results and pushes them): it hides no
/// comparison when its send fails. One named for a report may still
/// compare.
fn hands_on(step: &Step<'_>) -> bool {
    let first = step.text("name").and_then(|n| names::words(n).next());
    first.is_some_and(|w| names::sends_word(&w) && !w.starts_with("report"))
}

fn continues(n: &Node) -> Option<&Node> {
    n.get("continue-on-error")
        .filter(|c| c.str() == Some("true"))
}

fn silent_baseline(w: &Workflow<'_>, job: &Job<'_>, hits: &mut Vec<Hit>) {
    if let Some(c) = continues(job.node) {
        hits.push(hit("silent-baseline", c.at, job, None));
    }
    let later = Later::of(job);
    let shells = super::pwsh::Shells::of(w, job);
    // In a benchmark job none of whose steps is seen to run benchmarks
    // (by its name, its workflow's or its runner's), the steps that run a
    // program and are named for no chore measure: bpf-benchmark's "Run
    // pure JIT characterization" runs `micro/driver.py suite --output
    // micro/results/...json` in its "x86 Benchmark" workflow.
    let measures = measuring_steps(job);
    // Read only when a step neither measures nor is about results.
    let measured = OnceCell::new();
    // Read only when a step continues on error.
    let acted_later = OnceCell::new();
    for (index, step) in job.steps.iter().enumerate() {
        // A step that cleans up, or only draws what was measured, hides
        // no comparison however it runs its program.
        let cleans_up = step
            .text("name")
            .is_some_and(|n| step_cleans_up(n) || names::step_renders(n));
        let reruns = || {
            let measured = measured.get_or_init(|| measured_programs(job, measures));
            scripts_run(step).any(|p| measured.contains(&p))
        };
        if !about_results(step) && (cleans_up || !measures(step) && !reruns()) {
            continue;
        }
        if hands_on(step) {
            continue;
        }
        // On a script that runs or compares benchmarks; a `uses:` step's
        // (an artifact's download or upload) is the action's own policy,
        // usually said in its inputs (`if_no_artifact_found: warn`). A
        // failure a later step reads is handled, not hidden.
        if step.script.is_some()
            && let Some(c) = continues(step.node)
            && !fetches_loudly(step)
            && !later.outcome(index)
            && !later.env(index)
            && !step.text("id").is_some_and(|id| {
                acted_later
                    .get_or_init(|| super::handed::acted_on_later(w, job))
                    .contains(id)
            })
        {
            hits.push(hit("silent-baseline", c.at, job, Some(step)));
        }
        // A `set +e` whose step hands its outcome on through its outputs
        // (`failed=error` written by the script it runs) to a later step
        // that fails or says so is acted on: qdrant's benchmarks, then
        // `if: steps.benches.outputs.failed == 'error'` and `exit 1`.
        // Asked only of a `set +e` that would be found, so a job with none
        // never has its later steps indexed.
        let mut swallowed = Vec::new();
        super::status::swallowed(job, index, step, &mut swallowed);
        let handed_on =
            || step.text("id").is_some_and(|id| later.outputs(index, id)) || later.env(index);
        if !swallowed.is_empty() && !handed_on() {
            hits.append(&mut swallowed);
        }
        for at in exits_on_missing(&shells, step) {
            let mut h = hit("silent-baseline", at, job, Some(step));
            h.detail = Some(
                "the comparison exits 0 when its results file is missing: the job goes green with no comparison"
                    .to_owned(),
            );
            hits.push(h);
        }
    }
}

/// Where a step's script says `exit 0` when a results file is missing:
/// read as PowerShell where the step runs in it, else as a POSIX shell.
fn exits_on_missing(shells: &super::pwsh::Shells<'_, '_>, step: &Step<'_>) -> Vec<Pos> {
    if shells.powershell(step) {
        super::pwsh::exits_when_missing(step)
    } else {
        step.script
            .as_ref()
            .map(exits_when_missing)
            .unwrap_or_default()
    }
}

/// The scripts a step's commands run, each with the words that follow it
/// up to its first option (`python3 micro/driver.py suite`: the script
/// and its subcommand): a program by its file, not a bare tool name.
fn scripts_run<'s>(step: &'s Step<'_>) -> impl Iterator<Item = String> + 's {
    step.script
        .iter()
        .flat_map(|s| &s.commands)
        .filter_map(|c| {
            let (base, words) = invoked(c)?;
            // A script sourced into the shell (`. .venv/bin/activate`, in
            // scpn-control's every step) sets it up; it measures nothing.
            if base == "." || base == "source" {
                return None;
            }
            let at = words
                .iter()
                .take(2)
                .position(|w| !w.starts_with('-') && w.contains('/') && !w.contains('$'))?;
            let key: Vec<&str> = words
                .iter()
                .skip(at)
                .take(2)
                .take_while(|w| !w.starts_with('-') && !w.contains('$'))
                .copied()
                .collect();
            Some(key.join(" "))
        })
}

/// The scripts the job's measuring steps (or steps about results) run: a
/// step that runs one of them again measures too, whatever its name
/// (bpf-benchmark's "Fallback micro llvmbpf-only run" reruns the
/// `micro/driver.py suite` of "Run micro pure-JIT baseline", continuing
/// on error).
fn measured_programs(job: &Job<'_>, measures: fn(&Step<'_>) -> bool) -> FxHashSet<String> {
    // A set: each step's scripts are looked up once each, however many
    // steps and commands a stranger's workflow holds.
    job.steps
        .iter()
        .filter(|s| measures(s) || about_results(s))
        .flat_map(|s| scripts_run(s).collect::<Vec<_>>())
        .collect()
}

/// Files that build a project, not results: a test of one asks whether
/// the code is there (starcoin's base branch without its bench crate's
/// `Cargo.toml`), not whether a measurement was made.
const MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "go.mod",
    "CMakeLists.txt",
    "Makefile",
    "pom.xml",
    "build.gradle",
];

/// A file test (`[ -f x ]`, `test -e x`, `[[ -s x ]]`) of a file that is
/// no build manifest, no script and no device: `Some(negated)`. A test of
/// a script asks whether the harness is there on that branch (kosha's
/// `scripts/commit_bench_section.sh`, a merge-base older than IronCache's
/// `perf_measure.sh`), one of a device whether the machine has a GPU
/// (`/dev/kfd`), not whether a measurement was made.
fn file_test(c: &Command) -> Option<bool> {
    let name = c.name()?;
    if !["[", "[[", "test"].contains(&name) {
        return None;
    }
    let no_results = c
        .words
        .iter()
        .any(|w| names_no_results(w.text.trim_matches(['"', '\''])));
    let tests_file = !no_results
        && c.words
            .iter()
            .any(|w| ["-f", "-e", "-s", "-r"].contains(&w.text.as_str()));
    tests_file.then(|| c.has("!") ^ c.keywords.iter().any(|k| k == "!"))
}

/// Whether a tested path is no results file: a build manifest, a script
/// or a device (a manifest's name in any case: PowerShell's are read
/// lower-cased).
pub(super) fn names_no_results(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    MANIFESTS.iter().any(|m| file.eq_ignore_ascii_case(m))
        || script_file(path)
        || path.starts_with("/dev/")
}

/// `exit 0` on the branch where a results file is missing, with nothing
/// said loudly (a `::warning`) on that branch before it.
fn exits_when_missing(script: &Script<'_>) -> Vec<Pos> {
    let mut found = Vec::new();
    // Per open `if`: whether the branch being read runs when a file is
    // missing, `None` when its test is of no file: its `else` is not the
    // missing file's branch either (llm-d-benchmark's `else` of `[[ $? -ne
    // 0 ]]` after listing the baseline runs when it was found).
    let mut branches: Vec<Option<bool>> = Vec::new();
    let mut previous: Option<&Command> = None;
    let mut group = false;
    // Reading an `if`'s condition, before its `then`.
    let mut condition = false;
    // A warning or error shown since the branch (or group) opened.
    let mut warned = false;
    for c in &script.commands {
        if c.keywords
            .iter()
            .any(|k| matches!(k.as_str(), "if" | "else" | "elif" | "{"))
        {
            warned = false;
        }
        if says_loudly(c) {
            warned = true;
        }
        for k in &c.keywords {
            match k.as_str() {
                "if" => branches.push(None),
                "else" => {
                    if let Some(b) = branches.last_mut() {
                        *b = b.map(|missing| !missing);
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
            *b = file_test(c);
        }
        // A condition of several tests (`[ -z "$B" ] || [ ! -f "$B" ]`)
        // tells the file's branch by the test of a file among them.
        if c.keywords.iter().any(|k| k == "then") {
            condition = false;
        } else if opens {
            condition = true;
        } else if condition
            && matches!(c.before, Sep::Or | Sep::And)
            && let Some(b @ None) = branches.last_mut()
        {
            *b = file_test(c);
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
        if exit0 && !warned && (chained || group || branches.last() == Some(&Some(true))) {
            found.push(script.pos(c));
        }
        if c.keywords.iter().any(|k| k == "}") {
            group = false;
        }
        previous = Some(c);
    }
    found
}

/// Variable names that hold an exit status.
fn status_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "status",
        "rc",
        "ret",
        "retval",
        "exit_code",
        "exitcode",
        "code",
        "result",
    ]
    .iter()
    .any(|s| n == *s || n.ends_with(&format!("_{s}")))
}

/// A test that the exit status is 0 (`[ "$status" -eq 0 ]`, `[[ $? == 0 ]]`),
/// with `assigned` the variables set from `$?` so far.
fn tests_success(c: &Command, assigned: &[String]) -> bool {
    if !c.name().is_some_and(|n| ["[", "[[", "test"].contains(&n)) {
        return false;
    }
    let words: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
    words.windows(3).any(|w| match w {
        [operand, op, zero] => {
            let var = operand.trim_start_matches('$').trim_matches(['{', '}']);
            ["-eq", "=", "=="].contains(op)
                && *zero == "0"
                && (*operand == "$?" || status_name(var) || assigned.iter().any(|a| a == var))
        }
        _ => false,
    })
}

/// `discard-partial`: an `if` that uses the results only when the suite's
/// exit status is 0 and a results file exists (`if [ "$status" -eq 0 ] &&
/// [ -s "$csv" ]`): one failed benchmark throws the good rows away.
fn discard_partial(job: &Job<'_>, hits: &mut Vec<Hit>) {
    for step in &job.steps {
        let Some(script) = &step.script else {
            continue;
        };
        let mut assigned: Vec<String> = Vec::new();
        let commands = &script.commands;
        for (i, c) in commands.iter().enumerate() {
            for w in &c.words {
                if let Some(name) = w.text.strip_suffix("=$?") {
                    assigned.push(name.to_owned());
                }
            }
            let opens = c.keywords.iter().any(|k| k == "if" || k == "elif");
            if !opens || !tests_success(c, &assigned) {
                continue;
            }
            let with_file = commands
                .get(i.saturating_add(1))
                .is_some_and(|n| n.before == Sep::And && file_test(n) == Some(false));
            if with_file {
                let at = script.scalar.pos_of(c.start);
                hits.push(hit("discard-partial", at, job, Some(step)));
            }
        }
    }
}
