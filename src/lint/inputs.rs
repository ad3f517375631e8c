//! Validated inputs of `lint`: the inputs [`super::args`] declares, flags
//! merged with `INPUT_*` variables, and the workflow files the paths name.

use std::path::{Path, PathBuf};

use super::LintError;
use super::args::*;
use super::finding::Severity;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader};

/// `lint`'s output formats: the runner's three ([`Format`]), written as
/// every command writes them, and SARIF for code scanning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LintFormat {
    Runner(Format),
    Sarif,
}

#[derive(Debug, Clone)]
pub struct Inputs {
    pub paths: Vec<PathBuf>,
    pub form: LintFormat,
    pub fail_on: Severity,
    pub sarif: Option<PathBuf>,
    /// The benchmark config whose `[lint]` table is read.
    pub config: Option<PathBuf>,
    /// `--fix`: mend the mechanical findings; `--dry-run`: only say how.
    pub fix: bool,
    pub dry_run: bool,
    /// The repository's default branch when known (`--default-branch`).
    pub default_branch: Option<String>,
    /// The repository's own `owner/name` when known (`--repository`).
    pub repository: Option<String>,
    pub files: RunnerFiles,
}

pub fn validate(args: &LintArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::given(env, &args.flags);
    let asked = r.text(&FORMAT);
    let form = match asked {
        Some(v) if v.text == "sarif" => LintFormat::Sarif,
        asked => LintFormat::Runner(
            Format::choose(asked, crate::runner::on_runner(env)).map_err(|mut e| {
                e.message = e
                    .message
                    .replace("github, json or text", "text, github, json or sarif");
                e
            })?,
        ),
    };
    Ok(Inputs {
        fix: r.on(&FIX)?,
        dry_run: r.on(&DRY_RUN)?,
        config: r.path(&CONFIG),
        paths: r.paths(&PATHS),
        form,
        fail_on: r.typed_or_default(&FAIL_ON)?,
        sarif: r.path(&SARIF),
        default_branch: r.typed(&DEFAULT_BRANCH)?.flatten(),
        repository: r.typed(&REPOSITORY)?.flatten(),
        files: RunnerFiles::from_env(&r),
    })
}

fn workflow_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yml" || e == "yaml") && path.is_file()
}

/// The files to lint: each file as given, each directory's `.yml` and
/// `.yaml` files (sorted), `.github/workflows` when nothing is given.
pub fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LintError> {
    let default = [PathBuf::from(DEFAULT_DIR)];
    let given = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut out = Vec::new();
    for path in given {
        if !path.is_dir() {
            if paths.is_empty() {
                return Err(LintError::NoFiles(format!(
                    "no {DEFAULT_DIR} directory here: run in a repository's root, or name workflow files or directories"
                )));
            }
            out.push(path.clone());
            continue;
        }
        let listing = std::fs::read_dir(path).map_err(|source| {
            LintError::File(crate::runner::read::FileError::Read {
                what: "workflow directory",
                path: path.clone(),
                source,
            })
        })?;
        let mut found: Vec<PathBuf> = listing
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| workflow_file(p))
            .collect();
        if found.is_empty() {
            return Err(LintError::NoFiles(format!(
                "no workflow (.yml or .yaml file) in the directory {}",
                path.display()
            )));
        }
        found.sort();
        out.append(&mut found);
    }
    Ok(out)
}
