//! Validated inputs of `lint`: flags merged with `INPUT_*` variables, and
//! the workflow files the paths name.

use std::path::{Path, PathBuf};

use super::LintError;
use super::args::LintArgs;
use super::finding::Severity;
use crate::runner::Input;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader, shown};

const PATHS: Input = Input::new("paths", &["INPUT_PATHS"]);
const FAIL_ON: Input = Input::new("fail-on", &["INPUT_FAIL_ON"]);
const SARIF: Input = Input::new("sarif", &["INPUT_SARIF"]);
const CONFIG: Input = Input::new("config", &["INPUT_CONFIG"]);
const FORMAT: Input = Input::new("format", &[]);

/// Where the workflows are when no path is given.
pub const DEFAULT_DIR: &str = ".github/workflows";

/// `lint`'s output forms: the runner's three and SARIF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Github,
    Json,
    Text,
    Sarif,
}

#[derive(Debug, Clone)]
pub struct Inputs {
    pub paths: Vec<PathBuf>,
    pub form: Form,
    pub fail_on: Severity,
    pub sarif: Option<PathBuf>,
    /// The benchmark config whose `[lint]` table is read.
    pub config: Option<PathBuf>,
    /// `--fix`: mend the mechanical findings; `--dry-run`: only say how.
    pub fix: bool,
    pub dry_run: bool,
    pub files: RunnerFiles,
}

pub fn validate(args: &LintArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::new(env);
    let paths = if args.paths.is_empty() {
        r.value(&PATHS, None)
            .map(|v| {
                v.text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default()
    } else {
        args.paths.clone()
    };
    let fail_on = r
        .parse(&FAIL_ON, args.fail_on.as_deref(), |t| {
            Severity::parse(t)
                .ok_or_else(|| format!("expected error, warning or note, got {:?}", shown(t)))
        })?
        .unwrap_or(Severity::Warning);
    let asked = r.value(&FORMAT, args.format.as_deref());
    let form = match asked {
        Some(v) if v.text == "sarif" => Form::Sarif,
        asked => match Format::choose(asked, crate::runner::on_runner(env)).map_err(|mut e| {
            e.message = e
                .message
                .replace("github, json or text", "text, github, json or sarif");
            e
        })? {
            Format::Github => Form::Github,
            Format::Json => Form::Json,
            Format::Text => Form::Text,
        },
    };
    let sarif = args.sarif.as_ref().map(|p| p.to_string_lossy());
    let config = args.config.as_ref().map(|p| p.to_string_lossy());
    Ok(Inputs {
        fix: args.fix,
        dry_run: args.dry_run,
        config: r
            .value(&CONFIG, config.as_deref())
            .map(|v| PathBuf::from(v.text)),
        paths,
        form,
        fail_on,
        sarif: r
            .value(&SARIF, sarif.as_deref())
            .map(|v| PathBuf::from(v.text)),
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
