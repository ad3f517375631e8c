//! Validated inputs of `select`: the inputs [`super::args`] declares,
//! flags merged with `INPUT_*` variables through the runner's [`Reader`],
//! each named by where it came from when it is wrong.

use std::path::PathBuf;

use super::args::*;
use crate::runner::format::FORMAT;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader};
use crate::validate::Sha;

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
    /// `--repo`: the directory of the git repository holding both
    /// commits (its work tree's root; a subdirectory finds it too).
    pub work_tree: PathBuf,
    /// A path, or the JSON itself.
    pub resolution: Option<String>,
    pub format: Format,
    pub files: RunnerFiles,
}

pub fn validate(args: &SelectArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::given(env, &args.flags);
    let config = r.needed(
        &CONFIG,
        "no config: pass --config FILE (the TOML file with a [select] table)",
    )?;
    let base = r.typed(&BASE)?;
    let resolution = r.text(&RESOLUTION).map(|v| v.text);
    let check = r.on(&CHECK)?;
    if base.is_none() && resolution.is_none() && !check {
        return Err(InputError {
            origin: BASE.input.both(),
            message: "no base commit: pass --base SHA, or --resolution (resolve's JSON answer)"
                .to_owned(),
        });
    }
    Ok(Inputs {
        config: PathBuf::from(config.text),
        base,
        head: r.typed(&HEAD)?,
        check,
        github_sha: r.parsed(&GITHUB_SHA, Sha::parse)?,
        work_tree: r.typed_or_default(&REPO)?,
        resolution,
        format: Format::choose(r.text(&FORMAT), crate::runner::on_runner(env))?,
        files: RunnerFiles::from_env(&r),
    })
}
