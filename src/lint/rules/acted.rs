//! Whether a later step acts on what a step hands on: its outcome
//! (`steps.<id>.outcome`), its outputs (`steps.<id>.outputs.x`) or a
//! variable it writes to `$GITHUB_ENV`. A step allowed to fail
//! (`continue-on-error`, `set +e`) hides nothing when a later step reads
//! its status and fails or says so; `silent-baseline` asks this of every
//! such step. The job's steps are read once, on the first question, into
//! an index of who reads what and where: asking again per step would read
//! every later step again, quadratic in the job's length.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::lint::shell::Command;
use crate::lint::workflow::{Job, Step};
use crate::lint::yaml::Node;

/// The questions `silent-baseline` asks of one job, answered from one
/// reading of its steps.
pub(super) struct Later<'a, 'j> {
    job: &'a Job<'j>,
    reads: OnceCell<Reads>,
}

impl<'a, 'j> Later<'a, 'j> {
    pub(super) fn of(job: &'a Job<'j>) -> Self {
        Later {
            job,
            reads: OnceCell::new(),
        }
    }

    fn reads(&self) -> &Reads {
        self.reads.get_or_init(|| Reads::of(self.job))
    }

    /// Whether a step after step `index` (or the job's `outputs:`) acts on
    /// its failure: reads its result (`steps.<id>.outcome`, `.conclusion`)
    /// so the failure is acted on (an issue opened, the job failed later),
    /// not swallowed. Read on argumentcomputer/ci-workflows' GPU
    /// benchmark, whose regression check continues on error and the next
    /// steps open an issue when it failed. In a later step's `if:` only a
    /// test for the failure (`== 'failure'`, `!= 'success'`) acts on it: a
    /// step that runs on success alone lets the failure pass green.
    /// Anywhere else (its `run:`, `env:`, `with:`, the job's `outputs:`) a
    /// comparison with `'success'` or `'failure'` either way is a value the
    /// step computes from the result: memgraph's last step sets `success=${{
    /// steps.a.outcome == 'success' && ... }}` and exits 1 unless it is
    /// true. A read that only asks whether it ran (`!= 'skipped'`, the
    /// seed's baseline step) handles nothing.
    pub(super) fn outcome(&self, index: usize) -> bool {
        let Some(id) = self.job.steps.get(index).and_then(|s| s.text("id")) else {
            return false;
        };
        let reads = self.reads();
        reads.outcome.get(id).is_some_and(|&at| at > index)
            || reads.job_outputs.contains(id)
            || self.outputs(index, id)
    }

    /// Whether a later script step reads step `index`'s outputs
    /// (`steps.<id>.outputs.pass`, in its `if:` or anywhere else) and says
    /// a warning or an error, or fails: the comparison's verdict is carried
    /// out of it and acted on. oneDNN's aarch64 performance check continues
    /// on error, and the next step, `if: steps.performance-test.outputs.pass
    /// != 'True'`, echoes its message as a `::warning`. A later step that
    /// only reads the outputs (a summary, an upload) acts on nothing.
    pub(super) fn outputs(&self, index: usize, id: &str) -> bool {
        self.reads().outputs.get(id).is_some_and(|&at| at > index)
    }

    /// Whether step `index` writes a variable to `$GITHUB_ENV` (`echo
    /// "exitStatus=2" >> $GITHUB_ENV`) that a later script step reads
    /// (`${{ env.exitStatus }}`, `$exitStatus`) and fails on or says: its
    /// status is handed on and acted on. package-benchmark's comparison
    /// continues on error, and the last step exits with the status it
    /// wrote.
    pub(super) fn env(&self, index: usize) -> bool {
        let Some(text) = self.job.steps.get(index).and_then(|s| s.text("run")) else {
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
            let env = &self.reads().env;
            names.any(|n| env.after(n, index))
        }
    }
}

/// Who reads what, each to the last step that does.
#[derive(Default)]
struct Reads {
    /// Step ids whose outcome a later step tests for failure (in its
    /// `if:`) or tells apart from success (anywhere else).
    outcome: FxHashMap<String, usize>,
    /// Step ids whose outcome the job's `outputs:` tell apart.
    job_outputs: FxHashSet<String>,
    /// Step ids whose outputs an acting step reads.
    outputs: FxHashMap<String, usize>,
    env: EnvReads,
}

impl Reads {
    fn of(job: &Job<'_>) -> Reads {
        let mut reads = Reads::default();
        for (position, step) in job.steps.iter().enumerate() {
            let run = script_text(step);
            let compared = OnceCell::new();
            // In an `if:` only a test for the failure acts on it.
            let compared_as = |name: &str, in_if: bool| {
                compared
                    .get_or_init(|| Compared::of(run))
                    .get(name)
                    .is_some_and(|&(result, failure)| if in_if { failure } else { result })
            };
            for (key, node) in step.node.entries() {
                let test = if key.text == "if" {
                    on_failure
                } else {
                    on_result
                };
                if key.text == "env" {
                    for (name, value) in node.entries() {
                        if compared_as(&name.text, false) {
                            for_each_result(value, |id, _, _, _| {
                                reads.outcome.insert(id.to_owned(), position);
                            });
                        }
                    }
                }
                for_each_result(node, |id, text, at, after| {
                    // Or kept in a variable first, in the script or the
                    // step's `env:`, then compared in the script.
                    let name = assigned_name(text.get(..at).unwrap_or(""));
                    let through = name.is_some_and(|n| compared_as(n, key.text == "if"));
                    if test(after) || through {
                        reads.outcome.insert(id.to_owned(), position);
                    }
                });
            }
            // An acting step acts on whatever it reads; one that notes a
            // failure in the summary, on what its `if:` tests.
            let mut scalars = Vec::new();
            if acts(step) {
                step.node.scalars(&mut scalars);
            } else if let Some(cond) = step.node.get("if").filter(|_| notes_the_failure(step)) {
                cond.scalars(&mut scalars);
            } else {
                continue;
            }
            for text in scalars.iter().map(|s| s.text.as_str()) {
                for (_, id, kind, _) in step_reads(text) {
                    if kind == "outputs" {
                        reads.outputs.insert(id.to_owned(), position);
                    }
                }
                reads.env.read(text, position);
            }
        }
        if let Some(outputs) = job.get("outputs") {
            for_each_result(outputs, |id, _, _, after| {
                if on_result(after) {
                    reads.job_outputs.insert(id.to_owned());
                }
            });
        }
        reads
    }
}

/// A step's script, whose comparisons are read: its `run:`, or an
/// actions/github-script step's `script:`.
pub(super) fn script_text<'s>(step: &Step<'s>) -> &'s str {
    step.text("run")
        .or_else(|| step.with("script").and_then(Node::str))
        .unwrap_or("")
}

/// Every `steps.<id>.outcome` and `.conclusion` in a node's scalars: the
/// id, the scalar's text, where the read starts in it and the text after.
fn for_each_result(node: &Node, mut found: impl FnMut(&str, &str, usize, &str)) {
    let mut scalars = Vec::new();
    node.scalars(&mut scalars);
    for s in &scalars {
        for (at, id, kind, after) in step_reads(&s.text) {
            if kind == "outcome" || kind == "conclusion" {
                found(id, &s.text, at, after);
            }
        }
    }
}

/// The variable a read is assigned to, from the text before it:
/// `BENCH_OUTCOME="${{ ` (ATOM's benchmark diagnostics), or an `env:`
/// entry's whole value, whose name is not in this text (`None` then).
fn assigned_name(before: &str) -> Option<&str> {
    let head = before.trim_end().strip_suffix("${{")?;
    let head = head.trim_end_matches(['"', '\'']).strip_suffix('=')?;
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i.saturating_add(1));
    head.get(start..).filter(|n| !n.is_empty())
}

/// The variables a script compares (`[[ "${BENCH_OUTCOME}" == "success"
/// ... ]]`), read in one pass over its `$`s: for each name, whether a
/// comparison tells success from failure, and whether one tests for the
/// failure.
pub(super) struct Compared(BTreeMap<String, (bool, bool)>);

impl Compared {
    pub(super) fn of(script: &str) -> Compared {
        let mut found: BTreeMap<String, (bool, bool)> = BTreeMap::new();
        let mut note = |name: &str, after: &str| {
            if !name.is_empty() {
                let entry = found.entry(name.to_owned()).or_default();
                entry.0 |= on_result(after);
                entry.1 |= on_failure(after);
            }
        };
        for (at, _) in script.match_indices('$') {
            let rest = script.get(at.saturating_add(1)..).unwrap_or("");
            let (inner, braced) = match rest.strip_prefix('{') {
                Some(inner) => (inner, true),
                None => (rest, false),
            };
            let (name, after) = identifier(inner);
            match (braced, after.strip_prefix('}')) {
                (false, _) => note(name, after),
                (true, Some(after)) => note(name, after),
                (true, None) => {}
            }
        }
        // A script of JavaScript reads its environment as `process.env.X`
        // (whitenoise-rs' hotspot issue: `process.env.BENCHMARK_OUTCOME ===
        // 'success'`).
        for (at, m) in script.match_indices("process.env.") {
            let (name, after) = identifier(script.get(at.saturating_add(m.len())..).unwrap_or(""));
            note(name, after);
        }
        Compared(found)
    }

    pub(super) fn get(&self, name: &str) -> Option<&(bool, bool)> {
        self.0.get(name)
    }
}

/// A variable's name at the start of `text` (letters, digits, `_`), and
/// the text after it.
fn identifier(text: &str) -> (&str, &str) {
    let len = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    text.split_at(len)
}

/// Every `steps.<id>.<kind>` in `text`: where it starts, the id, the
/// kind and the text after the kind.
pub(super) fn step_reads(text: &str) -> impl Iterator<Item = (usize, &str, &str, &str)> {
    text.match_indices("steps.").filter_map(move |(at, m)| {
        let rest = text.get(at.saturating_add(m.len())..)?;
        let (id, rest) = rest.split_once('.')?;
        if id.is_empty() || id.contains(char::is_whitespace) {
            return None;
        }
        let kind_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let (kind, after) = rest.split_at(kind_len);
        match kind {
            "outcome" | "conclusion" => Some((at, id, kind, after)),
            "outputs" if after.starts_with('.') => Some((at, id, kind, after)),
            _ => None,
        }
    })
}

/// Whether a step is a script that fails or says a warning or an error.
pub(super) fn acts(step: &Step<'_>) -> bool {
    step.script.as_ref().is_some_and(|s| {
        s.commands
            .iter()
            .any(|c| says_loudly(c) || super::status::fails(c))
    })
}

/// Whether a step runs only on the failure side of an `if:` (`env.X !=
/// 'true'`, `== 'false'`, `!steps.a.outputs.found`: what it reads there
/// is acted on) and writes to the run's summary (`>>
/// "$GITHUB_STEP_SUMMARY"`): the missing baseline is said on the run's
/// page, where its reader looks. z42's "Note when baseline absent", `if:
/// env.BASELINE_AVAILABLE != 'true'`, writes "No baseline available"
/// there after its fetch continued on error. A summary written on the
/// success side (`== 'true'`: the comparison's table) says nothing when
/// the step before it failed.
fn notes_the_failure(step: &Step<'_>) -> bool {
    let on_failure_side = step.text("if").is_some_and(|cond| {
        let cond = cond.replace(' ', "").to_ascii_lowercase();
        cond.contains("!=")
            || cond.contains("=='false'")
            || cond.contains("==''")
            || cond.starts_with('!')
    });
    on_failure_side && script_text(step).contains("GITHUB_STEP_SUMMARY")
}

/// The variables the job's acting script steps (those that fail or say a
/// warning or an error) read, each to the last such step that does.
/// `env.NAME` and `$NAME` match a name a read begins with, `${NAME}` only
/// the whole name, as a search of each step's text for them would.
#[derive(Default)]
struct EnvReads {
    dotted: BTreeMap<String, usize>,
    bare: BTreeMap<String, usize>,
    braced: FxHashMap<String, usize>,
}

impl EnvReads {
    /// Notes the variables `text`, of the acting step at `position`, reads.
    fn read(&mut self, text: &str, position: usize) {
        let ident = |t: &str| -> String {
            t.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        for rest in text.split("env.").skip(1) {
            self.dotted.insert(ident(rest), position);
        }
        for rest in text.split('$').skip(1) {
            match rest.strip_prefix('{') {
                Some(inner) => {
                    let name = ident(inner);
                    if inner.get(name.len()..).is_some_and(|t| t.starts_with('}')) {
                        self.braced.insert(name, position);
                    }
                }
                None => {
                    self.bare.insert(ident(rest), position);
                }
            }
        }
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

/// How many characters after a read a comparison with it is looked for.
const COMPARED_WITHIN: usize = 256;

/// The comparison after a step's result: `Some((equal, value))` for `==
/// 'x'`, `}}" = "x"`, `!= 'x'`, the value lowercased.
fn compared(after: &str) -> Option<(bool, String)> {
    // What follows a read is looked at only so far: a comparison sits
    // right after it, and a stranger's script after it may be megabytes.
    let end = after
        .char_indices()
        .nth(COMPARED_WITHIN)
        .map_or(after.len(), |(i, _)| i);
    let after = after.get(..end).unwrap_or(after);
    let skip = |t: &str| t.trim_start_matches([' ', '}', '"', '\'', ')']).to_owned();
    let rest = skip(after);
    // JavaScript's strict comparisons too (`=== 'success'`, an
    // actions/github-script step's).
    let (equal, rest) = if let Some(r) = rest.strip_prefix("===") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix("!==") {
        (false, r)
    } else if let Some(r) = rest.strip_prefix("==") {
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
pub(super) fn on_failure(after: &str) -> bool {
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
pub(super) fn on_result(after: &str) -> bool {
    compared(after)
        .is_some_and(|(_, value)| value.starts_with("success") || value.starts_with("failure"))
}

/// A command that makes the runner show a warning or an error
/// (`echo "::warning title=...::..."`): a skip said so is not silent.
pub(super) fn says_loudly(c: &Command) -> bool {
    matches!(c.name(), Some("echo" | "printf"))
        && c.words
            .iter()
            .any(|w| w.text.contains("::warning") || w.text.contains("::error"))
}
