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
pub mod shadow;
pub mod tree;

use thiserror::Error;

use crate::config::{self, ConfigError, load};
use crate::contract::resolution::{Provenance, ProvenanceError};
use crate::runner::{self, CommandError, Env, Failure};
use crate::validate::Sha;
use args::SelectArgs;
use decide::{Kind, Selection};
use inputs::Inputs;
use shadow::{Shadow, Shadows};

/// The exit codes of `select`: the shared ones only (a selection, even
/// `all` after a git failure, is exit 0).
pub mod exit {
    pub use crate::runner::exit::*;
}

/// What stops a selection, besides what stops every command
/// ([`CommandError`]): a config without a `[select]` table, or a config or
/// resolution that cannot be read. A git failure is not one: everything
/// runs, with a warning.
#[derive(Debug, Error)]
pub enum SelectError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(
        "config {0}: no [select] table (it maps changed paths to benchmark groups; see docs/select.md)"
    )]
    NoSelect(String),
    #[error(transparent)]
    Provenance(#[from] ProvenanceError),
}

impl Failure for SelectError {}

/// What a run decided and from which commits.
pub struct Outcome {
    pub base: Option<Sha>,
    pub head: Option<Sha>,
    pub selection: Selection,
    /// Why the selection is `all` without a decision (git failed).
    pub warnings: Vec<String>,
    /// Where the config shadows itself in the head's tree.
    pub shadows: Vec<Shadow>,
    /// `--check`: only the config against the head's tree, no selection.
    pub check: bool,
}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &SelectArgs, env: Env<'_>) -> Result<u8, CommandError<SelectError>> {
    let inputs = inputs::validate(args, env)?;
    work(&inputs)
}

pub fn work(inputs: &Inputs) -> Result<u8, CommandError<SelectError>> {
    let outcome = select(inputs)?;
    runner::emit(inputs.format, &inputs.files, &outcome)?;
    Ok(exit::OK)
}

/// A revision from a flag made a commit; a revision the repository cannot
/// resolve is a warning, and no commit (so everything runs).
fn commit(inputs: &Inputs, rev: Option<&str>, warnings: &mut Vec<String>) -> Option<Sha> {
    let rev = rev?;
    if let Ok(sha) = Sha::parse(rev) {
        return Some(sha);
    }
    match tree::resolve(&inputs.work_tree, rev) {
        Ok(sha) => Some(sha),
        Err(err) => {
            warnings.push(format!("{err}: everything runs"));
            None
        }
    }
}

/// The config's self-shadowing in the tree of `head`, and a warning when
/// the tree could not be read or was too large to read whole.
fn shadows_in(
    inputs: &Inputs,
    table: &config::Select,
    head: &Sha,
) -> (Vec<Shadow>, Option<String>) {
    let mut shadows = Shadows::new(table);
    if table.ignore.is_empty() {
        return (Vec::new(), None);
    }
    let walked = tree::paths(&inputs.work_tree, head, |p| shadows.visit(p));
    let note = match walked {
        Err(err) => Some(format!(
            "the config check could not read the head's tree: {err}"
        )),
        Ok(w) if w.cut && shadows.found.len() < shadow::MAX_SHADOWS => Some(format!(
            "the config check read the first {} paths of the head's tree only",
            tree::MAX_PATHS
        )),
        Ok(_) => None,
    };
    (shadows.found, note)
}

/// The selection between `base` and `head`; a missing commit or a git
/// failure is `all`, with its warning in `warnings`.
fn decided(
    inputs: &Inputs,
    table: &config::Select,
    base: Option<&Sha>,
    head: Option<&Sha>,
    warnings: &mut Vec<String>,
) -> Selection {
    match (base, head) {
        // A revision that named no commit: its warning says why.
        (None, _) | (_, None) if !warnings.is_empty() => Selection::all(warnings.join("; "), 0),
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
        (Some(b), Some(h)) => match changes::between(&inputs.work_tree, b, h) {
            Ok(changes) => decide::decide(changes, table),
            Err(err) => {
                let why =
                    format!("the files that differ could not be listed ({err}): everything runs");
                warnings.push(why.clone());
                Selection::all(why, 0)
            }
        },
    }
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
    let mut warnings = Vec::new();
    let base = match inputs.base.as_deref() {
        Some(rev) => commit(inputs, Some(rev), &mut warnings),
        None => from_resolution(provenance.as_ref().and_then(|p| p.base_sha.as_ref())),
    };
    let head = match inputs.head.as_deref() {
        Some(rev) => commit(inputs, Some(rev), &mut warnings),
        None => from_resolution(provenance.as_ref().and_then(|p| p.head_sha.as_ref()))
            .or_else(|| inputs.github_sha.clone())
            .or_else(|| {
                inputs
                    .check
                    .then(|| commit(inputs, Some("HEAD"), &mut warnings))
                    .flatten()
            }),
    };
    if inputs.check {
        let (shadows, note) = match &head {
            Some(h) => shadows_in(inputs, table, h),
            None => (Vec::new(), None),
        };
        warnings.extend(note);
        return Ok(Outcome {
            base,
            head,
            selection: Selection::all(String::new(), 0),
            warnings,
            shadows,
            check: true,
        });
    }
    // The head's tree is walked for the config's shadowing on a second
    // thread while the diff runs (a thread the system refuses is the walk
    // done here, after).
    let walk = || match &head {
        Some(h) => shadows_in(inputs, table, h).0,
        None => Vec::new(),
    };
    let (shadows, selection) = std::thread::scope(|scope| {
        let walking = std::thread::Builder::new().spawn_scoped(scope, walk);
        let selection = decided(inputs, table, base.as_ref(), head.as_ref(), &mut warnings);
        let shadows = match walking {
            Ok(handle) => handle.join().unwrap_or_default(),
            Err(_) => walk(),
        };
        (shadows, selection)
    });
    Ok(Outcome {
        base,
        head,
        selection,
        warnings,
        shadows,
        check: false,
    })
}
