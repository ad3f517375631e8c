//! Validated inputs of `select`: flags merged with `INPUT_*` variables
//! through the runner's [`Reader`], each named by where it came from when
//! it is wrong.

use std::path::PathBuf;

use super::args::SelectArgs;
use crate::runner::Input;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader};
use crate::validate::Sha;

const CONFIG: Input = Input::new("config", &["INPUT_CONFIG"]);
const BASE: Input = Input::new("base", &["INPUT_BASE"]);
const HEAD: Input = Input::new("head", &["INPUT_HEAD"]);
const REPO: Input = Input::new("repo", &["INPUT_REPO"]);
const RESOLUTION: Input = Input::new("resolution", &["INPUT_RESOLUTION"]);
const GITHUB_SHA: Input = Input::new("", &["GITHUB_SHA"]);
const FORMAT: Input = Input::new("format", &[]);

#[derive(Debug, Clone)]
pub struct Inputs {
    pub config: PathBuf,
    /// A revision as given (a full SHA, `HEAD`, a branch, `main~1`),
    /// resolved in the repository when the selection is made.
    pub base: Option<String>,
    pub head: Option<String>,
    /// Only check the config against the head's tree.
    pub check: bool,
    /// `GITHUB_SHA`: the head when neither `--head` nor the resolution says.
    pub github_sha: Option<Sha>,
    pub repo: PathBuf,
    /// A path, or the JSON itself.
    pub resolution: Option<String>,
    pub format: Format,
    pub files: RunnerFiles,
}

/// A revision git can be asked to resolve: printable, not an option (a
/// leading `-`), at most 256 bytes.
fn revision(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() || t.len() > 256 || t.starts_with('-') || t.chars().any(char::is_control) {
        return Err(format!(
            "{:?} is not a revision (a full SHA, HEAD, a branch or tag; at most 256 characters, not starting with -)",
            crate::runner::shown(t)
        ));
    }
    Ok(t.to_owned())
}

pub fn validate(args: &SelectArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::new(env);
    let config = args.config.as_ref().map(|p| p.to_string_lossy());
    let config = r.required(
        &CONFIG,
        config.as_deref(),
        "no config: pass --config FILE (the TOML file with a [select] table)",
    )?;
    let base = r.parse(&BASE, args.base.as_deref(), revision)?;
    let resolution = r
        .value(&RESOLUTION, args.resolution.as_deref())
        .map(|v| v.text);
    if base.is_none() && resolution.is_none() && !args.check {
        return Err(InputError {
            origin: BASE.both(),
            message: "no base commit: pass --base SHA, or --resolution (resolve's JSON answer)"
                .to_owned(),
        });
    }
    let repo = args.repo.as_ref().map(|p| p.to_string_lossy());
    Ok(Inputs {
        config: PathBuf::from(config.text),
        base,
        head: r.parse(&HEAD, args.head.as_deref(), revision)?,
        check: args.check,
        github_sha: r.parse(&GITHUB_SHA, None, Sha::parse)?,
        repo: r
            .value(&REPO, repo.as_deref())
            .map_or_else(|| PathBuf::from("."), |v| PathBuf::from(v.text)),
        resolution,
        format: Format::choose(
            r.value(&FORMAT, args.format.as_deref()),
            crate::runner::on_runner(env),
        )?,
        files: RunnerFiles::from_env(&r),
    })
}
