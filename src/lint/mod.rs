//! `lint`: the workflow patterns that cost the seed report its GPU hours
//! (a baseline from the fork, a walk over older commits, `always()` on GPU
//! jobs, comparisons that pass when their file is missing, ...), found in a
//! repository's own workflows, which general linters do not look for.
//!
//! [`inputs`] resolves the files; each is parsed by [`yaml`] (every node
//! with its position), read by [`workflow`] (jobs, steps, scripts split by
//! [`shell`]) and checked by [`rules`] (pure); [`suppress`] applies the
//! ignore comments; [`render`] and [`sarif`] write the [`finding`]s.

pub mod args;
pub mod finding;
pub mod inputs;
pub mod render;
pub mod rules;
pub mod sarif;
pub mod shell;
pub mod suppress;
pub mod workflow;
pub mod yaml;

use std::path::Path;

use thiserror::Error;

use crate::runner::file_command::EncodeError;
use crate::runner::log::LogSink as _;
use crate::runner::read::{self, FileError};
use crate::runner::{self, Env, InputError, WriteError};
use args::LintArgs;
use finding::{Finding, Severity, rule};
use inputs::{Form, Inputs};

/// The exit codes of `lint`.
pub mod exit {
    pub use crate::runner::exit::*;
    /// Findings at or above `--fail-on`.
    pub const FOUND: u8 = 4;
}

/// A workflow file over this is not a workflow (the largest known are
/// about 100 KB).
pub const FILE_LIMIT: u64 = 4 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum LintError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    File(#[from] FileError),
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
    #[error("cannot encode the step outputs: {0}")]
    Encode(#[from] EncodeError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

impl LintError {
    pub fn exit_code(&self) -> u8 {
        match self {
            LintError::Input(_) => exit::USAGE,
            _ => exit::BAD_INPUT,
        }
    }
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Outcome {
    pub files: usize,
    pub findings: Vec<Finding>,
    pub suppressed: usize,
}

impl Outcome {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.rule.severity == severity)
            .count()
    }
}

pub fn main(args: &LintArgs, env: Env<'_>) -> u8 {
    match inputs::validate(args, env)
        .map_err(LintError::from)
        .and_then(|inputs| run(&inputs))
    {
        Ok(code) => code,
        Err(err) => {
            runner::report_error("baseline-resolver lint", &err.to_string(), env);
            err.exit_code()
        }
    }
}

pub fn run(inputs: &Inputs) -> Result<u8, LintError> {
    let outcome = lint_files(&inputs::files(&inputs.paths)?)?;
    if let Some(path) = &inputs.sarif {
        let text = sarif::sarif(&outcome);
        std::fs::write(path, text).map_err(|source| WriteError::File {
            what: "the SARIF file",
            path: path.clone(),
            source,
        })?;
    }
    match inputs.form {
        Form::Json => runner::write::stdout(|log| log.json(&render::json(&outcome)))?,
        Form::Sarif => runner::write::stdout(|log| log.json(&sarif::sarif(&outcome)))?,
        Form::Text => runner::write::stdout(|log| log.append(&render::text(&outcome)))?,
        Form::Github => {
            let mut rendered = render::actions(&outcome)?;
            rendered.stdout.append_text(&render::text(&outcome));
            runner::write::for_runner(&inputs.files, &rendered)?;
        }
    }
    let fails = outcome
        .findings
        .iter()
        .any(|f| f.rule.severity >= inputs.fail_on);
    Ok(if fails { exit::FOUND } else { exit::OK })
}

pub fn lint_files(paths: &[std::path::PathBuf]) -> Result<Outcome, LintError> {
    let mut outcome = Outcome::default();
    for path in paths {
        let text = read::bounded_text("workflow", path, FILE_LIMIT)?;
        let (findings, suppressed) = lint_text(path, &text)?;
        outcome.files = outcome.files.saturating_add(1);
        outcome.findings.extend(findings);
        outcome.suppressed = outcome.suppressed.saturating_add(suppressed);
    }
    Ok(outcome)
}

/// One file's findings (sorted by position) and how many were suppressed.
pub fn lint_text(path: &Path, text: &str) -> Result<(Vec<Finding>, usize), LintError> {
    let name = path.display().to_string();
    let root = yaml::parse(text).map_err(|source| LintError::Yaml {
        path: name.clone(),
        source,
    })?;
    let flow = workflow::read(&root).map_err(|e| LintError::Script {
        path: name.clone(),
        line: e.at.line,
        source: e.source,
    })?;
    let ignores = suppress::Ignores::read(text);
    let mut findings = Vec::new();
    let mut suppressed = 0usize;
    for hit in rules::check(&flow) {
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
