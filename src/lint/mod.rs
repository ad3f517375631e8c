//! `lint`: the workflow patterns that waste a benchmark job's GPU hours
//! (a baseline from the fork, a walk over older commits, `always()` on GPU
//! jobs, comparisons that pass when their file is missing, ...), found in a
//! repository's own workflows, which general linters do not look for.
//!
//! [`inputs`] resolves the files; each is parsed by [`yaml`] (every node
//! with its position), read by [`workflow`] (jobs, steps, scripts split by
//! [`shell`]) and checked by [`rules`] (pure); [`suppress`] applies the
//! ignore comments; [`render`] and [`sarif`] write the [`finding`]s.

pub mod args;
pub mod callers;
pub mod calls;
pub mod candidates;
pub mod env;
pub mod evidence;
pub mod finding;
pub mod fix;
pub mod inputs;
mod kept;
pub mod names;
mod neighbours;
mod picks;
pub mod places;
pub mod programs;
mod relays;
pub mod render;
pub mod rules;
pub mod runners;
pub mod sarif;
pub mod scripts;
pub mod shell;
mod sides;
pub mod suppress;
pub mod workflow;
pub mod yaml;

use std::collections::BTreeMap;
use std::path::Path;

use thiserror::Error;

use crate::config::Lint;
use crate::runner::log::LogSink as _;
use crate::runner::read::{self, FileError};
use crate::runner::{self, CommandError, Env, Failure, WriteError};
use args::LintArgs;
use finding::{Finding, Severity, rule};
use inputs::{Inputs, LintFormat};

/// The exit codes of `lint`.
pub mod exit {
    pub use crate::runner::exit::*;
    /// Findings at or above `--fail-on`.
    pub const FOUND: u8 = 4;
}

/// A workflow file over this is not a workflow (the largest known are
/// about 100 KB).
pub const FILE_LIMIT: u64 = 4 * 1024 * 1024;

/// What stops a lint, besides what stops every command ([`CommandError`]):
/// a workflow or config that cannot be read, parsed or followed, or paths
/// that name no workflow file. One file's refusal is said and the others
/// are still linted ([`Refusal`]).
#[derive(Debug, Error)]
pub enum LintError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("{path}: {source}")]
    Yaml {
        path: String,
        source: yaml::YamlError,
    },
    #[error("{path} line {line}: {source}")]
    Script {
        path: String,
        line: usize,
        source: shell::TooDeep,
    },
    #[error("{0}")]
    NoFiles(String),
}

impl Failure for LintError {}

/// A file that could not be linted (unreadable, not YAML, past a limit):
/// said, while every other file is still linted.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub file: String,
    /// Where, when the reader could tell (line and column from 1).
    pub at: Option<yaml::Pos>,
    pub message: String,
}

impl Refusal {
    fn of(path: &Path, err: &LintError) -> Refusal {
        let (at, message) = match err {
            LintError::Yaml { source, .. } => match source {
                yaml::YamlError::Syntax {
                    line,
                    column,
                    message,
                } => (
                    Some(yaml::Pos {
                        line: *line,
                        column: *column,
                    }),
                    format!("not YAML: {message}"),
                ),
                other => (None, other.to_string()),
            },
            LintError::Script { line, source, .. } => (
                Some(yaml::Pos {
                    line: *line,
                    column: 1,
                }),
                source.to_string(),
            ),
            other => (None, other.to_string()),
        };
        Refusal {
            file: path.display().to_string(),
            at,
            message,
        }
    }

    /// The refusal as one line: `file: line L, column C: message`.
    pub fn line(&self) -> String {
        match self.at {
            Some(at) => format!(
                "{}: line {}, column {}: {}",
                self.file, at.line, at.column, self.message
            ),
            None => format!("{}: {}", self.file, self.message),
        }
    }
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Outcome {
    pub files: usize,
    pub findings: Vec<Finding>,
    pub suppressed: usize,
    /// Files that could not be linted.
    pub refused: Vec<Refusal>,
}

impl Outcome {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.rule.severity == severity)
            .count()
    }
}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &LintArgs, env: Env<'_>) -> Result<u8, CommandError<LintError>> {
    let inputs = inputs::validate(args, env)?;
    work(&inputs)
}

pub fn work(inputs: &Inputs) -> Result<u8, CommandError<LintError>> {
    let config = inputs
        .config
        .as_deref()
        .map(crate::config::load::load)
        .transpose()
        .map_err(LintError::from)?;
    let lint = config.as_ref().and_then(|c| c.lint.as_ref());
    let paths = inputs::files(&inputs.paths)?;
    let known = Known {
        default_branch: inputs.default_branch.as_deref(),
        repository: inputs.repository.as_deref(),
    };
    let mut outcome = lint_files(&paths, lint, known)?;
    if inputs.fix {
        let said = fix_files(&paths, &outcome, inputs.dry_run)?;
        if !inputs.dry_run {
            outcome = lint_files(&paths, lint, known)?;
        }
        runner::write::stdout(|log| log.append(&said))?;
    }
    if let Some(path) = &inputs.sarif {
        let text = sarif::sarif(&outcome);
        std::fs::write(path, text).map_err(|source| WriteError::File {
            what: "the SARIF file",
            path: path.clone(),
            source,
        })?;
    }
    match inputs.form {
        LintFormat::Sarif => runner::write::stdout(|log| log.json(&sarif::sarif(&outcome)))?,
        LintFormat::Runner(format) => runner::emit(format, &inputs.files, &outcome)?,
    }
    for refusal in &outcome.refused {
        runner::write::stderr(&{
            let mut log = crate::runner::log::LogText::new();
            log.push_line(&format!(
                "baseline-resolver lint: error: {}",
                refusal.line()
            ));
            log
        });
    }
    let fails = outcome
        .findings
        .iter()
        .any(|f| f.rule.severity >= inputs.fail_on);
    Ok(if !outcome.refused.is_empty() {
        exit::BAD_INPUT
    } else if fails {
        exit::FOUND
    } else {
        exit::OK
    })
}

/// `--fix`: each file's mechanical findings mended (or, with `dry_run`,
/// shown as a diff); what was done, as lines for stdout. A file whose
/// fixed text does not lint without those findings is left as it was.
fn fix_files(
    paths: &[std::path::PathBuf],
    outcome: &Outcome,
    dry_run: bool,
) -> Result<crate::runner::log::LogText, CommandError<LintError>> {
    let mut said = crate::runner::log::LogText::new();
    let mut fixed = 0usize;
    for path in paths {
        let name = path.display().to_string();
        let findings: Vec<Finding> = outcome
            .findings
            .iter()
            .filter(|f| f.file == name)
            .cloned()
            .collect();
        if findings.is_empty() {
            continue;
        }
        if let Err(why) = writable(path) {
            said.push_line(&format!("{name}: not fixed: {why}"));
            continue;
        }
        let text = read::bounded_text("workflow", path, FILE_LIMIT).map_err(LintError::from)?;
        let Ok(root) = yaml::parse(&text) else {
            continue;
        };
        let edits = fix::edits(&text, &root, &findings);
        if edits.is_empty() {
            continue;
        }
        let mended = fix::apply(&text, &edits);
        let before = findings.len();
        let after = match lint_text(path, &mended, &Neighbours::default()) {
            Ok((left, _)) => left.len(),
            Err(err) => {
                said.push_line(&format!(
                    "{name}: not fixed: the mended file would not lint ({err})"
                ));
                continue;
            }
        };
        if after >= before {
            said.push_line(&format!("{name}: not fixed: the edits left the findings"));
            continue;
        }
        fixed = fixed.saturating_add(before.saturating_sub(after));
        if dry_run {
            let diff = similar::TextDiff::from_lines(&text, &mended);
            let unified = diff.unified_diff().header(&name, &name).to_string();
            for line in unified.lines() {
                said.push_line(line);
            }
        } else {
            crate::runner::place::replace(path, mended.as_bytes()).map_err(|source| {
                WriteError::File {
                    what: "the fixed workflow",
                    path: path.clone(),
                    source,
                }
            })?;
        }
    }
    let verb = if dry_run { "would fix" } else { "fixed" };
    said.push_line(&format!("lint --fix: {verb} {fixed} findings"));
    Ok(said)
}

/// Whether `--fix` may write `path`: a regular file (not a symlink: the
/// link's target could be anywhere) that lies inside the repository's root
/// (the working directory) once every directory symlink on its way is
/// followed. The tree may be a stranger's pull request.
fn writable(path: &std::path::Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| e.to_string())?;
    if meta.file_type().is_symlink() {
        return Err("it is a symbolic link, and --fix does not write through one".to_owned());
    }
    if !meta.file_type().is_file() {
        return Err("it is not a regular file".to_owned());
    }
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    crate::runner::place::inside(&root.join(path), &[&root])
        .map(|_| ())
        .map_err(|e| {
            format!("{e} (the repository's root, where lint --fix runs): --fix writes only there")
        })
}

/// What a workflow file never says and the caller may know: the
/// repository's default branch (`--default-branch`) and its own name
/// (`--repository`, `owner/name`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Known<'a> {
    pub default_branch: Option<&'a str>,
    pub repository: Option<&'a str>,
}

/// What the rules know of the repository beyond one file: the config's
/// `[lint]` table, and the workflows whose runs another workflow reads
/// (`on: workflow_run: workflows: [...]`, by name).
#[derive(Debug, Default)]
pub struct Neighbours<'a> {
    pub lint: Option<&'a Lint>,
    /// What the caller knows of the repository the files belong to.
    pub known: Known<'a>,
    pub consumed: Vec<String>,
    /// The reusable workflows of the repository the files call.
    pub callees: calls::Callees,
    /// The repository's shell scripts the files' steps run.
    pub scripts: scripts::Scripts,
    /// Who among the files calls each reusable workflow (its triggers).
    pub callers: callers::Callers,
    /// For each reusable workflow the files call, the `with:` of each
    /// calling job (`None` when it passes none).
    pub calls_with: neighbours::CallsWith,
    /// The repository's own actions the files use, by folder: the inputs
    /// each runs.
    pub actions: BTreeMap<std::path::PathBuf, neighbours::Action>,
}

/// The reusable workflows of their own repository the files' jobs call
/// (`uses: ./.github/workflows/x.yml`), read beside them, and the ones
/// those call in turn, down to [`calls::MAX_CALL_DEPTH`] calls: at most
/// [`calls::MAX_CALLEES`] files, each a regular file (not a FIFO, which
/// would never end) of at most [`FILE_LIMIT`]. One that is missing or not
/// YAML is no evidence (it is refused when it is linted itself).
fn callees(first: Vec<(std::path::PathBuf, Vec<String>)>) -> calls::Callees {
    let mut out = calls::Callees::new();
    let mut level = first;
    for _ in 0..calls::MAX_CALL_DEPTH {
        let mut next = Vec::new();
        for (path, names) in &level {
            let dir = calls::workflows_dir(path);
            for name in names {
                let called = dir.join(name);
                if out.len() >= calls::MAX_CALLEES || out.contains_key(&called) {
                    continue;
                }
                let regular = std::fs::metadata(&called).is_ok_and(|m| m.is_file());
                let parsed = regular
                    .then(|| read::bounded_text("workflow", &called, FILE_LIMIT).ok())
                    .flatten()
                    .and_then(|t| yaml::parse(&t).ok());
                if let Some(node) = parsed {
                    next.push((called.clone(), local_calls(&node)));
                    out.insert(called, node);
                }
            }
        }
        level = next;
    }
    out
}

/// The files of its own repository's `.github/workflows` that the jobs of
/// the workflow `root` call.
fn local_calls(root: &yaml::Node) -> Vec<String> {
    root.get("jobs")
        .map(yaml::Node::entries)
        .unwrap_or_default()
        .iter()
        .filter_map(|(_, job)| job.get("uses").and_then(yaml::Node::str))
        .filter_map(calls::local_file)
        .map(str::to_owned)
        .collect()
}

/// The repository's shell scripts the steps of the workflow at `path`
/// run, added to `out`, read beside it within `lint::scripts`' bounds: a plain relative
/// `.sh` path, a regular file of at most [`scripts::SCRIPT_LIMIT`] bytes
/// inside the repository once links are followed, at most
/// [`scripts::MAX_SCRIPTS`]. A workflow that cannot be read here is
/// refused when it is linted; a script that cannot be read is no evidence.
fn scripts_in(path: &Path, root: &yaml::Node, out: &mut scripts::Scripts) {
    let Ok(flow) = workflow::read(root) else {
        return;
    };
    let checkout = scripts::checkout_root(path);
    let own_dirs = scripts::own_checkout_dirs(root);
    let mut runs: Vec<(Option<&str>, &[shell::Command])> = Vec::new();
    for step in flow.jobs.iter().flat_map(|j| &j.steps) {
        if let Some(script) = &step.script {
            runs.push((step.text("working-directory"), &script.commands));
        }
    }
    // What a call of a reusable workflow of the repository passes, which
    // the called job may run as a command (`neighbours::join` says which).
    let given: Vec<Vec<shell::Command>> = flow
        .jobs
        .iter()
        .filter(|j| j.text("uses").and_then(calls::local_file).is_some())
        .flat_map(|j| j.get("with").map(yaml::Node::entries).unwrap_or_default())
        .filter_map(|(_, v)| v.str().and_then(|t| shell::commands(t).ok()))
        .collect();
    runs.extend(given.iter().map(|c| (None, c.as_slice())));
    for (wd, commands) in runs {
        for c in commands {
            let Some(rel) = scripts::script_path(c, wd) else {
                continue;
            };
            // The first of its places that is a file of the repository.
            let read = scripts::in_repository(&rel, &own_dirs)
                .map(|place| checkout.join(place))
                .take_while(|file| !out.has(file))
                .find_map(|file| read_inside(&file, &checkout).map(|text| (file, text)));
            if let Some((file, text)) = read {
                out.insert(file, text);
            }
        }
    }
}

/// The text of the script at `file` when it is a regular file of at most
/// [`scripts::SCRIPT_LIMIT`] bytes lying inside `checkout` once links are
/// followed.
fn read_inside(file: &Path, checkout: &Path) -> Option<String> {
    crate::runner::place::inside(file, &[checkout]).ok()?;
    std::fs::metadata(file).ok().filter(|m| m.is_file())?;
    read::bounded_text("script", file, scripts::SCRIPT_LIMIT).ok()
}

/// What the files tell of each other (the workflows `workflow_run`
/// names, the calls, the callers, the scripts and actions they run),
/// gathered in one reading of each file; one that cannot be read or is
/// not YAML tells nothing here and is refused when it is linted.
fn survey<'a>(
    paths: &[std::path::PathBuf],
    lint: Option<&'a Lint>,
    known: Known<'a>,
) -> Neighbours<'a> {
    let mut consumed = Vec::new();
    let mut scripts = scripts::Scripts::default();
    let mut callers = callers::Callers::new();
    let mut calls_with = neighbours::CallsWith::new();
    let mut actions = BTreeMap::new();
    let mut first = Vec::new();
    for path in paths {
        let Some(root) = neighbours::parsed(path) else {
            continue;
        };
        neighbours::consumed_in(&root, &mut consumed);
        scripts_in(path, &root, &mut scripts);
        callers::add(path, &root, &mut callers);
        neighbours::calls_with_in(path, &root, &mut calls_with);
        neighbours::actions_in(path, &root, &mut actions);
        first.push((path.clone(), local_calls(&root)));
    }
    callers::deepen(&mut callers);
    Neighbours {
        lint,
        known,
        consumed,
        callees: callees(first),
        scripts,
        callers,
        calls_with,
        actions,
    }
}

/// Every file linted; one that cannot be (unreadable, not YAML, past a
/// limit) is a [`Refusal`] and the others are still linted.
pub fn lint_files(
    paths: &[std::path::PathBuf],
    lint: Option<&Lint>,
    known: Known<'_>,
) -> Result<Outcome, LintError> {
    let mut outcome = Outcome::default();
    let neighbours = survey(paths, lint, known);
    for path in paths {
        let linted = read::bounded_text("workflow", path, FILE_LIMIT)
            .map_err(LintError::from)
            .and_then(|text| lint_text(path, &text, &neighbours));
        outcome.files = outcome.files.saturating_add(1);
        match linted {
            Ok((findings, suppressed)) => {
                outcome.findings.extend(findings);
                outcome.suppressed = outcome.suppressed.saturating_add(suppressed);
            }
            Err(err) => outcome.refused.push(Refusal::of(path, &err)),
        }
    }
    Ok(outcome)
}

/// One file's findings (sorted by position) and how many were suppressed.
pub fn lint_text(
    path: &Path,
    text: &str,
    neighbours: &Neighbours<'_>,
) -> Result<(Vec<Finding>, usize), LintError> {
    let name = path.display().to_string();
    let root = match yaml::parse(text) {
        Ok(root) => root,
        // Only comments (a workflow disabled by commenting it out, as
        // DeepSpeed's retired V100 job is): GitHub runs nothing, so there
        // is nothing to find, and nothing is wrong with the file.
        Err(yaml::YamlError::Empty) => return Ok((Vec::new(), 0)),
        Err(source) => {
            return Err(LintError::Yaml {
                path: name.clone(),
                source,
            });
        }
    };
    let here = scripts::checkout_root(path);
    let beside = scripts::Beside::new(&neighbours.scripts, here.clone())
        .with_own_dirs(scripts::own_checkout_dirs(&root));
    let mut flow = workflow::read_beside(&root, Some(&beside)).map_err(|e| LintError::Script {
        path: name.clone(),
        line: e.at.line,
        source: e.source,
    })?;
    neighbours::join(&mut flow, &root, path, &beside, neighbours);
    let ignores = suppress::Ignores::read(text);
    let mut findings = Vec::new();
    let mut suppressed = 0usize;
    let title = root.get("name").and_then(yaml::Node::str).unwrap_or(&name);
    let read_later = neighbours.consumed.iter().any(|c| c == title);
    let context = evidence::Context {
        lint: neighbours.lint,
        consumed: read_later,
        callees: &neighbours.callees,
    };
    let bench = evidence::benchmarks(&flow, &name, context);
    for hit in rules::check(&flow, &bench) {
        let Some(rule) = rule(hit.rule) else {
            continue;
        };
        if ignores.covers(rule.id, hit.at.line, &hit.parents) {
            suppressed = suppressed.saturating_add(1);
            continue;
        }
        findings.push(Finding {
            rule,
            file: name.clone(),
            at: hit.at,
            message: hit.detail.unwrap_or_else(|| rule.message.to_owned()),
        });
    }
    findings.sort_by_key(|f| (f.at, f.rule.id));
    findings.dedup_by(|a, b| a.at == b.at && a.rule.id == b.rule.id);
    Ok((findings, suppressed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_small_regular_file_inside_the_repository_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let checkout = dir.path().join("repo");
        let flows = checkout.join(".github/workflows");
        std::fs::create_dir_all(&flows).unwrap();
        std::fs::write(dir.path().join("outside.sh"), "git clone x\n").unwrap();
        std::fs::write(checkout.join("ok.sh"), "git clone x\n").unwrap();
        std::fs::write(checkout.join("big.sh"), "#".repeat(300 * 1024)).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.sh"), checkout.join("link.sh"))
            .unwrap();
        std::fs::create_dir(checkout.join("dir.sh")).unwrap();
        let flow = flows.join("b.yml");
        let names = ["ok.sh", "big.sh", "link.sh", "dir.sh"];
        let steps = names.map(|s| format!("      - run: bash {s}\n")).concat();
        let text = format!("on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n{steps}");
        std::fs::write(&flow, text).unwrap();
        let mut read = scripts::Scripts::default();
        let root = neighbours::parsed(&flow).unwrap();
        scripts_in(&flow, &root, &mut read);
        let kept = names.map(|s| read.has(&checkout.join(s)));
        assert_eq!(kept, [true, false, false, false]);
    }
}
