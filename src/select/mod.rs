//! `select`: run only the benchmarks a change can affect. The files that
//! differ between exactly the two commits that get benchmarked (the
//! resolved base and the head or merge commit: not the pull request's own
//! diff, so main's own changes since the branch point count too) are mapped
//! to benchmark groups by the `[select]` table of the config compare reads,
//! failing safe to all.
//!
//! [`args`] and the environment become [`inputs`]; the config (the
//! `compare` model) and, optionally, resolve's answer are read; [`changes`]
//! diffs the two trees (git2); [`decide`] (pure) maps the paths, through
//! the patterns' [`index`]; [`render`]
//! shows the selection. A git failure is `all` with a warning, exit 0:
//! never a silent partial run.

pub mod args;
pub mod changes;
pub mod decide;
pub mod index;
pub mod inputs;
pub mod render;

use thiserror::Error;

use crate::compare::config::{ConfigError, load};
use crate::compare::report::{Provenance, ProvenanceError};
use crate::runner::file_command::EncodeError;
use crate::runner::log::LogSink as _;
use crate::runner::{self, Env, Format, InputError, WriteError};
use crate::validate::Sha;
use args::SelectArgs;
use decide::{Kind, Selection};
use inputs::Inputs;

/// The exit codes of `select`: the shared ones only (a selection, even
/// `all` after a git failure, is exit 0).
pub mod exit {
    pub use crate::runner::exit::*;
}

#[derive(Debug, Error)]
pub enum SelectError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(
        "config {0}: no [select] table (it maps changed paths to benchmark groups; see docs/select.md)"
    )]
    NoSelect(String),
    #[error(transparent)]
    Provenance(#[from] ProvenanceError),
    #[error("cannot encode the step outputs: {0}")]
    Encode(#[from] EncodeError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

impl SelectError {
    pub fn exit_code(&self) -> u8 {
        match self {
            SelectError::Input(_) => exit::USAGE,
            _ => exit::BAD_INPUT,
        }
    }
}

/// What a run decided and from which commits.
pub struct Outcome {
    pub base: Option<Sha>,
    pub head: Option<Sha>,
    pub selection: Selection,
    /// Why the selection is `all` without a decision (git failed).
    pub warnings: Vec<String>,
}

pub fn main(args: &SelectArgs, env: Env<'_>) -> u8 {
    match inputs::validate(args, env)
        .map_err(SelectError::from)
        .and_then(|inputs| run(&inputs))
    {
        Ok(code) => code,
        Err(err) => {
            runner::report_error("baseline-resolver select", &err.to_string(), env);
            err.exit_code()
        }
    }
}

pub fn run(inputs: &Inputs) -> Result<u8, SelectError> {
    let outcome = select(inputs)?;
    match inputs.format {
        Format::Json => runner::write::stdout(|log| log.json(&render::json(&outcome, None)))?,
        Format::Text => runner::write::stdout(|log| log.append(&render::text(&outcome)))?,
        Format::Github => {
            let mut rendered = render::actions(&outcome)?;
            let text = render::text(&outcome);
            rendered.stdout.append_text(&text);
            runner::write::for_runner(&inputs.files, &rendered)?;
        }
    }
    Ok(exit::OK)
}

/// The selection for the inputs, without writing anything.
pub fn select(inputs: &Inputs) -> Result<Outcome, SelectError> {
    let config = load::load(&inputs.config)?;
    let Some(table) = config.select.as_ref() else {
        return Err(SelectError::NoSelect(inputs.config.display().to_string()));
    };
    let provenance = inputs
        .resolution
        .as_deref()
        .map(Provenance::load)
        .transpose()?;
    let from_resolution = |field: Option<&String>| field.and_then(|v| Sha::parse(v).ok());
    let base = inputs
        .base
        .clone()
        .or_else(|| from_resolution(provenance.as_ref().and_then(|p| p.base_sha.as_ref())));
    let head = inputs
        .head
        .clone()
        .or_else(|| from_resolution(provenance.as_ref().and_then(|p| p.head_sha.as_ref())))
        .or_else(|| inputs.github_sha.clone());
    let mut warnings = Vec::new();
    let selection = match (&base, &head) {
        (None, _) => {
            let why = "the resolution names no base commit (there is no baseline): everything runs";
            warnings.push(why.to_owned());
            Selection::all(why.to_owned(), 0)
        }
        (_, None) => {
            let why = "no head commit (pass --head, a resolution with head_sha, or run where GITHUB_SHA is set): everything runs";
            warnings.push(why.to_owned());
            Selection::all(why.to_owned(), 0)
        }
        (Some(b), Some(h)) if b == h => Selection {
            kind: Kind::None,
            groups: Vec::new(),
            changed: 0,
            reason: format!(
                "the base and the head are the same commit ({b}): nothing to benchmark"
            ),
            files: Vec::new(),
        },
        (Some(b), Some(h)) => match changes::between(&inputs.repo, b, h) {
            Ok(changes) => decide::decide(changes, table),
            Err(err) => {
                let why =
                    format!("the files that differ could not be listed ({err}): everything runs");
                warnings.push(why.clone());
                Selection::all(why, 0)
            }
        },
    };
    Ok(Outcome {
        base,
        head,
        selection,
        warnings,
    })
}
