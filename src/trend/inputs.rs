//! Validated inputs of `trend`: the inputs [`super::args`] declares, flags
//! merged with `INPUT_*` variables through the runner's [`Reader`], each
//! named by where it came from when it is wrong.

use std::path::PathBuf;

use super::args::*;
use crate::runner::format::FORMAT;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader};

#[derive(Debug, Clone)]
pub struct Inputs {
    /// Paths or globs, in the order given.
    pub history: Vec<PathBuf>,
    pub config: Option<PathBuf>,
    /// `--results-format`: every history file read as this format; `None`
    /// finds each file's from its content.
    pub results_format: Option<crate::table::formats::Format>,
    /// A fraction (0.05).
    pub min_change: f64,
    pub recent: usize,
    pub fail_on_regression: bool,
    pub format: Format,
    pub files: RunnerFiles,
}

pub fn validate(args: &TrendArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::given(env, &args.flags);
    let history = r.paths(&HISTORY);
    if history.is_empty() {
        return Err(InputError {
            origin: HISTORY.both(),
            message: "no history: pass --history 'history/*.csv' (main's past runs, one file each)"
                .to_owned(),
        });
    }
    Ok(Inputs {
        history,
        config: r.path(&CONFIG),
        results_format: r.typed(&RESULTS_FORMAT)?,
        min_change: r.typed_or_default(&MIN_CHANGE)?,
        recent: r.typed_or_default(&RECENT)?,
        fail_on_regression: r.typed_or_default(&FAIL_ON)?,
        format: Format::choose(r.text(&FORMAT), crate::runner::on_runner(env))?,
        files: RunnerFiles::from_env(&r),
    })
}
