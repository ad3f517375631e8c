//! `silent-baseline`'s in-script form: `set +e` before a comparison in a
//! script that never exits non-zero after it and says nothing, the
//! script's own `continue-on-error` (read on Genesis's regression alarm,
//! whose `set +e` turns every exit status but two, a crash among them,
//! into a green "No regressions detected"). Pure.

use std::collections::BTreeMap;

use super::{about_baseline, hit};
use crate::lint::evidence::{benchmark_command, step_runs_benchmarks};
use crate::lint::finding::Hit;
use crate::lint::programs::{invoked, own_program};
use crate::lint::scripts::script_path;
use crate::lint::shell::Command;
use crate::lint::workflow::{Job, Step};

/// The `set +e` of a step's script that swallows a comparison's status:
/// in the step's own script, else in a script file it runs (read as part
/// of the step: db-benchmark's steps run `./run.sh`, whose `set +e` before
/// the launcher is followed by a plain `echo` alone). One finding a step.
pub fn swallowed(job: &Job<'_>, index: usize, step: &Step<'_>, hits: &mut Vec<Hit>) {
    let Some(script) = &step.script else {
        return;
    };
    let all = &script.commands;
    // A step that measures by its name alone ("Run Execution Benchmark
    // Tests": a loop of `pytest` runs, no benchmark command seen) measures
    // with each program it runs (tt-torch's depth benchmarks, `set +e`
    // then `exit 0 # force successful exit`).
    let by_name = step_runs_benchmarks(step) && !all.iter().any(benchmark_command);
    let top: Vec<&Command> = all.iter().filter(|c| !c.nested).collect();
    // Whether a step's own command from each index on fails or says so:
    // what the step runs after a script file may still fail on it.
    let mut acts_from = vec![false; all.len().saturating_add(1)];
    for (i, c) in all.iter().enumerate().rev() {
        let here = !c.nested && (fails(c) || says(c));
        let later = acts_from.get(i.saturating_add(1)).copied().unwrap_or(false);
        if let Some(slot) = acts_from.get_mut(i) {
            *slot = here || later;
        }
    }
    let found = swallowed_in(&top, false, by_name).or_else(|| {
        run_files(all).into_iter().find_map(|(caller, unit)| {
            let rest = acts_from
                .get(caller.saturating_add(1))
                .copied()
                .unwrap_or(false);
            // A script file named for benchmarking (`run_benchmarks.sh`,
            // LoAT's: `set +e`, then `timeout ... solver`) measures with
            // each program it runs, as a step named so does.
            let measuring = by_name || all.get(caller).is_some_and(benchmark_command);
            swallowed_in(&unit, rest, measuring)
        })
    });
    if let Some(c) = found
        && !status_kept_in_file(job, index, all)
    {
        let mut h = hit("silent-baseline", script.pos(c), job, Some(step));
        h.detail = Some(
            "set +e before the comparison, and no non-zero exit after it: a failed comparison leaves the step green"
                .to_owned(),
        );
        hits.push(h);
    }
}

/// The script files a step's own commands run, spliced into its list:
/// for each, the index of the command that runs it and the file's own
/// top-level commands (those of one script number whose parent is that
/// command), in order.
fn run_files(all: &[Command]) -> Vec<(usize, Vec<&Command>)> {
    // Each file's script number, to the command that runs it, in one pass.
    let mut callers: BTreeMap<usize, usize> = BTreeMap::new();
    for c in all.iter().filter(|c| c.nested) {
        let Some(p) = c.parent else { continue };
        let runs_a_file = all
            .get(p)
            .is_some_and(|caller| !caller.nested && script_path(caller, None).is_some());
        if runs_a_file {
            callers.entry(c.script).or_insert(p);
        }
    }
    let mut files: BTreeMap<usize, (usize, Vec<&Command>)> = BTreeMap::new();
    for c in all {
        if let Some(&caller) = callers.get(&c.script) {
            files
                .entry(c.script)
                .or_insert((caller, Vec::new()))
                .1
                .push(c);
        }
    }
    let mut files: Vec<(usize, Vec<&Command>)> = files.into_values().collect();
    files.sort_by_key(|(caller, _)| *caller);
    files
}

/// The `set +e` of one script (`top`, its own commands in order) before a
/// comparison, with nothing after it, in it or in what runs after it
/// (`rest_acts`: whether that fails or says so), that fails or says so.
fn swallowed_in<'c>(top: &[&'c Command], rest_acts: bool, by_name: bool) -> Option<&'c Command> {
    let off = top.iter().position(|c| errexit(c) == Some(false))?;
    let after = top.get(off.saturating_add(1)..).unwrap_or_default();
    // The comparison runs before errexit is back on.
    let until = after
        .iter()
        .position(|c| errexit(c) == Some(true))
        .unwrap_or(after.len());
    let compares = after.get(..until).unwrap_or_default().iter().any(|c| {
        benchmark_command(c)
            || runs_a_program(c)
                && (by_name
                    || c.words
                        .iter()
                        .any(|w| about_baseline(&w.text.to_lowercase())))
    });
    // Anything that fails the step or says so afterwards handles it.
    let handled = rest_acts || after.iter().any(|c| fails(c) || says(c));
    (compares && !handled)
        .then(|| top.get(off).copied())
        .flatten()
}

/// Whether `c` runs a program of the job's own: not a variable set
/// (`base=/tmp/baseline-results`), a loop's or a `case`'s syntax
/// (`for label in baseline ...`, `baseline)`), a report or plumbing
/// (`echo`, `find`, `mkdir`): a step that only locates the baseline's
/// files compares nothing (llm-d-benchmark's "Find latest experiment
/// results dirs").
fn runs_a_program(c: &Command) -> bool {
    invoked(c).is_some_and(|(name, _)| own_program(name) && !name.ends_with(')'))
}

/// Whether the script keeps the status in a file (`echo $? >
/// /tmp/tak-gate-status`) that a later step of the job names: it is
/// handed on, as a status written to `$GITHUB_ENV` is (mise's perf gate
/// packages the file into its report, whose job fails on it).
fn status_kept_in_file(job: &Job<'_>, index: usize, all: &[Command]) -> bool {
    let files: Vec<&str> = all
        .iter()
        .filter(|c| c.words.iter().any(|w| w.text.contains("$?")))
        .filter_map(redirected_to)
        .filter(|f| f.len() > 1 && !f.contains("GITHUB_"))
        // The first few files a status is kept in: each later step's text
        // is searched once per file, so a stranger's thousands of
        // `echo $? > f` lines cost no more than these.
        .take(STATUS_FILES)
        .collect();
    job.steps.iter().skip(index.saturating_add(1)).any(|later| {
        later
            .text("run")
            .is_some_and(|run| files.iter().any(|f| run.contains(f)))
    })
}

/// How many files a status is kept in that are looked for in later steps.
const STATUS_FILES: usize = 8;

/// The file a command's output is written to (`> FILE`, `>>FILE`).
fn redirected_to(c: &Command) -> Option<&str> {
    let texts: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
    texts.iter().enumerate().find_map(|(i, t)| match *t {
        ">" | ">>" => texts.get(i.saturating_add(1)).copied(),
        t => t.strip_prefix(">>").or_else(|| t.strip_prefix('>')),
    })
}

/// `set -e` (`Some(true)`), `set +e` (`Some(false)`), also within other
/// flags (`set +eo pipefail`); else `None`.
fn errexit(c: &Command) -> Option<bool> {
    if c.name() != Some("set") {
        return None;
    }
    c.words.iter().skip(1).find_map(|w| {
        let flags = w.text.as_str();
        let on = flags
            .strip_prefix('-')
            .is_some_and(|f| !f.starts_with('-') && f.contains('e'));
        let off = flags.strip_prefix('+').is_some_and(|f| f.contains('e'));
        (on || off).then_some(on)
    })
}

/// `exit` with a status other than 0 (a number or a variable), `false`,
/// `return` with one.
pub(super) fn fails(c: &Command) -> bool {
    match c.name() {
        Some("false") => true,
        Some("exit" | "return") => c.words.get(1).is_some_and(|w| w.text.trim() != "0"),
        _ => false,
    }
}

/// An annotation that says the failure (`echo "::error ..."`).
fn says(c: &Command) -> bool {
    c.words
        .iter()
        .any(|w| w.text.contains("::error") || w.text.contains("::warning"))
}
