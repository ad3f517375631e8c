//! Rules on what happens to benchmark results: `silent-baseline` (a step
//! that may fail unseen, or an `exit 0` when the results are missing) and
//! `discard-partial` (results used only when the suite exited 0: 64 good
//! rows thrown away because one benchmark of 65 failed). Only in
//! jobs that run benchmarks.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::{about_baseline, hit};
use crate::lint::evidence::{Benchmarks, step_runs_benchmarks};
use crate::lint::finding::Hit;
use crate::lint::names::step_cleans_up;
use crate::lint::shell::{Command, Sep};
use crate::lint::workflow::{Job, Script, Step, Workflow};
use crate::lint::yaml::{Node, Pos};

pub fn check(w: &Workflow<'_>, bench: &Benchmarks, hits: &mut Vec<Hit>) {
    for (i, job) in w.jobs.iter().enumerate() {
        if bench.job(i) {
            silent_baseline(job, hits);
            discard_partial(job, hits);
        }
    }
}

/// A step that makes, reads or compares benchmark results: it runs
/// benchmarks, or its name or commands speak of a baseline or comparison.
fn about_results(step: &Step<'_>) -> bool {
    let title = step.title();
    if step.text("name").is_some_and(step_cleans_up) && !about_baseline(&title) {
        return false;
    }
    step_runs_benchmarks(step)
        || about_baseline(&title)
        || step.script.as_ref().is_some_and(|s| {
            s.commands.iter().any(|c| {
                c.name() != Some("echo")
                    && c.words
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
    if let Some(c) = continues(job.node) {
        hits.push(hit("silent-baseline", c.at, job, None));
    }
    let env_reads = OnceCell::new();
    for (index, step) in job.steps.iter().enumerate() {
        if !about_results(step) {
            continue;
        }
        // On a script that runs or compares benchmarks; a `uses:` step's
        // (an artifact's download or upload) is the action's own policy,
        // usually said in its inputs (`if_no_artifact_found: warn`). A
        // failure a later step reads is handled, not hidden.
        if step.script.is_some()
            && let Some(c) = continues(step.node)
            && !outcome_read(job, index)
            && !env_said(job, index, &env_reads)
        {
            hits.push(hit("silent-baseline", c.at, job, Some(step)));
        }
        // A `set +e` whose step hands its outcome on through its outputs
        // (`failed=error` written by the script it runs) to a later step
        // that fails or says so is acted on: qdrant's benchmarks, then
        // `if: steps.benches.outputs.failed == 'error'` and `exit 1`.
        // Asked only of a `set +e` that would be found: reading the later
        // steps for every step would read them again per step.
        let mut swallowed = Vec::new();
        super::status::swallowed(job, step, &mut swallowed);
        let handed_on = || {
            step.text("id")
                .is_some_and(|id| outputs_said(job, index, id))
                || env_said(job, index, &env_reads)
        };
        if !swallowed.is_empty() && !handed_on() {
            hits.append(&mut swallowed);
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

/// Whether a step after step `index` (or the job's `outputs:`) acts on its
/// failure: reads its result (`steps.<id>.outcome`, `.conclusion`) so the
/// failure is acted on (an issue opened, the job failed later), not
/// swallowed. Read on argumentcomputer/ci-workflows' GPU benchmark, whose
/// regression check continues on error and the next steps open an issue
/// when it failed. In a later step's `if:`
/// only a test for the failure (`== 'failure'`, `!= 'success'`) acts on
/// it: a step that runs on success alone lets the failure pass green.
/// Anywhere else (its `run:`, `env:`, `with:`, the job's `outputs:`) a
/// comparison with `'success'` or `'failure'` either way is a value the
/// step computes from the result: memgraph's last step sets `success=${{
/// steps.a.outcome == 'success' && ... }}` and exits 1 unless it is true.
/// A read that only asks whether it ran
/// (`!= 'skipped'`, the seed's baseline step) handles nothing.
fn outcome_read(job: &Job<'_>, index: usize) -> bool {
    let Some(id) = job.steps.get(index).and_then(|s| s.text("id")) else {
        return false;
    };
    let wanted = [
        format!("steps.{id}.outcome"),
        format!("steps.{id}.conclusion"),
    ];
    let reads = |node: &Node, test: fn(&str) -> bool| {
        let mut scalars = Vec::new();
        node.scalars(&mut scalars);
        scalars.iter().any(|s| {
            wanted.iter().any(|w| {
                s.text
                    .match_indices(w.as_str())
                    .any(|(at, _)| test(s.text.get(at.saturating_add(w.len())..).unwrap_or("")))
            })
        })
    };
    let later_step = |step: &Step<'_>| {
        step.node.entries().iter().any(|(key, node)| {
            let test = if key.text == "if" {
                on_failure
            } else {
                on_result
            };
            reads(node, test)
        })
    };
    job.steps
        .iter()
        .skip(index.saturating_add(1))
        .any(later_step)
        || job.get("outputs").is_some_and(|o| reads(o, on_result))
        || outputs_said(job, index, id)
}

/// Whether a later script step reads step `index`'s outputs
/// (`steps.<id>.outputs.pass`, in its `if:` or anywhere else) and says a
/// warning or an error, or fails: the comparison's verdict is carried out
/// of it and acted on. oneDNN's aarch64 performance check continues on
/// error, and the next step, `if: steps.performance-test.outputs.pass !=
/// 'True'`, echoes its message as a `::warning`. A later step that only reads
/// the outputs (a summary, an upload)
/// acts on nothing.
fn outputs_said(job: &Job<'_>, index: usize, id: &str) -> bool {
    let wanted = format!("steps.{id}.outputs.");
    later_acts_on(job, index, |text| text.contains(wanted.as_str()))
}

/// Whether a script step after step `index` reads what `reads` looks for
/// (in its `if:`, `run:`, `env:`, anywhere) and says a warning or an
/// error, or fails.
fn later_acts_on(job: &Job<'_>, index: usize, reads: impl Fn(&str) -> bool) -> bool {
    job.steps.iter().skip(index.saturating_add(1)).any(|step| {
        let acts = step.script.as_ref().is_some_and(|s| {
            s.commands
                .iter()
                .any(|c| says_loudly(c) || super::status::fails(c))
        });
        let mut scalars = Vec::new();
        step.node.scalars(&mut scalars);
        acts && scalars.iter().any(|s| reads(&s.text))
    })
}

/// Whether step `index` writes a variable to `$GITHUB_ENV` (`echo
/// "exitStatus=2" >> $GITHUB_ENV`) that a later script step reads (`${{
/// env.exitStatus }}`, `$exitStatus`) and fails on or says: its status is
/// handed on and acted on. package-benchmark's comparison continues on
/// error, and the last step exits with the status it wrote.
fn env_said(job: &Job<'_>, index: usize, read: &OnceCell<EnvReads>) -> bool {
    let Some(text) = job.steps.get(index).and_then(|s| s.text("run")) else {
        return false;
    };
    let mut names = text
        .lines()
        .filter(|l| l.contains("GITHUB_ENV") && l.contains(">>"))
        .filter_map(|l| {
            let (head, _) = l.split_once('=')?;
            let name = head
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()?;
            (!name.is_empty()).then_some(name)
        })
        .peekable();
    names.peek().is_some() && {
        let read = read.get_or_init(|| EnvReads::of(job));
        names.any(|n| read.after(n, index))
    }
}

/// The variables the job's acting script steps (those that fail or say a
/// warning or an error) read, each to the last such step that does: read
/// once per job, so that "does a later step act on it?" is a lookup.
/// `env.NAME` and `$NAME` match a name a read begins with, `${NAME}` only
/// the whole name, as a search of each step's text for them would.
#[derive(Default)]
struct EnvReads {
    dotted: BTreeMap<String, usize>,
    bare: BTreeMap<String, usize>,
    braced: FxHashMap<String, usize>,
}

impl EnvReads {
    fn of(job: &Job<'_>) -> EnvReads {
        let mut read = EnvReads::default();
        let ident = |t: &str| -> String {
            t.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        for (position, step) in job.steps.iter().enumerate() {
            let acts = step.script.as_ref().is_some_and(|s| {
                s.commands
                    .iter()
                    .any(|c| says_loudly(c) || super::status::fails(c))
            });
            if !acts {
                continue;
            }
            let mut scalars = Vec::new();
            step.node.scalars(&mut scalars);
            for text in scalars.iter().map(|s| s.text.as_str()) {
                for rest in text.split("env.").skip(1) {
                    read.dotted.insert(ident(rest), position);
                }
                for rest in text.split('$').skip(1) {
                    match rest.strip_prefix('{') {
                        Some(inner) => {
                            let name = ident(inner);
                            if inner.get(name.len()..).is_some_and(|t| t.starts_with('}')) {
                                read.braced.insert(name, position);
                            }
                        }
                        None => {
                            read.bare.insert(ident(rest), position);
                        }
                    }
                }
            }
        }
        read
    }

    /// Whether a step after `index` acts on a read of `name`.
    fn after(&self, name: &str, index: usize) -> bool {
        let begins = |map: &BTreeMap<String, usize>| {
            map.range(name.to_owned()..)
                .take_while(|(k, _)| k.starts_with(name))
                .any(|(_, &at)| at > index)
        };
        begins(&self.dotted)
            || begins(&self.bare)
            || self.braced.get(name).is_some_and(|&at| at > index)
    }
}

/// The comparison after a step's result: `Some((equal, value))` for `==
/// 'x'`, `}}" = "x"`, `!= 'x'`, the value lowercased.
fn compared(after: &str) -> Option<(bool, String)> {
    let skip = |t: &str| t.trim_start_matches([' ', '}', '"', '\'', ')']).to_owned();
    let rest = skip(after);
    let (equal, rest) = if let Some(r) = rest.strip_prefix("==") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix("!=") {
        (false, r)
    } else if let Some(r) = rest.strip_prefix('=') {
        (true, r)
    } else {
        return None;
    };
    Some((equal, skip(rest).to_ascii_lowercase()))
}

/// Whether the text after a step's result tests for its failure
/// (`== 'failure'`, `}}" = "failure"`, `!= 'success'`).
fn on_failure(after: &str) -> bool {
    compared(after).is_some_and(|(equal, value)| {
        if equal {
            value.starts_with("failure")
        } else {
            value.starts_with("success")
        }
    })
}

/// Whether the text after a step's result compares it with `success` or
/// `failure`, either way: a value that tells the two apart.
fn on_result(after: &str) -> bool {
    compared(after)
        .is_some_and(|(_, value)| value.starts_with("success") || value.starts_with("failure"))
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

/// A command that makes the runner show a warning or an error
/// (`echo "::warning title=...::..."`): a skip said so is not silent.
fn says_loudly(c: &Command) -> bool {
    matches!(c.name(), Some("echo" | "printf"))
        && c.words
            .iter()
            .any(|w| w.text.contains("::warning") || w.text.contains("::error"))
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
