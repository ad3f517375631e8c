//! Validated inputs of `trend`: flags merged with `INPUT_*` variables
//! through the runner's [`Reader`], each named by where it came from when
//! it is wrong.

use std::path::PathBuf;

use super::args::TrendArgs;
use crate::runner::Input;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader, shown};

const HISTORY: Input = Input::new("history", &["INPUT_HISTORY"]);
const CONFIG: Input = Input::new("config", &["INPUT_CONFIG"]);
const RESULTS_FORMAT: Input = Input::new("results-format", &["INPUT_RESULTS_FORMAT"]);
const MIN_CHANGE: Input = Input::new("min-change", &["INPUT_MIN_CHANGE"]);
const RECENT: Input = Input::new("recent", &["INPUT_RECENT"]);
const FAIL_ON: Input = Input::new("fail-on", &["INPUT_FAIL_ON"]);
const FORMAT: Input = Input::new("format", &[]);

/// The defaults, as the help, the action and docs/trend.md say them.
pub const MIN_CHANGE_PCT: f64 = 5.0;
pub const RECENT_RUNS: usize = 5;
/// The most runs `--recent` may name (as many as the history may hold).
pub const MAX_RECENT: usize = crate::table::files::MAX_FILES;

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

/// A percentage above 0 and below 100 (`5`, `5%`, `2.5`).
fn percent(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p),
        _ => Err(format!(
            "expected a percentage above 0 and below 100, got {:?}",
            shown(text)
        )),
    }
}

fn runs(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_RECENT).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of runs from 1 to {MAX_RECENT}, got {:?}",
            shown(text)
        )),
    }
}

fn fail_on(text: &str) -> Result<bool, String> {
    match text.trim() {
        "regression" => Ok(true),
        "never" => Ok(false),
        other => Err(format!(
            "expected regression or never, got {:?}",
            shown(other)
        )),
    }
}

pub fn validate(args: &TrendArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::new(env);
    let flags: Vec<String> = args
        .history
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let history: Vec<PathBuf> = r
        .values(&HISTORY, &flags)
        .into_iter()
        .map(|v| PathBuf::from(v.text))
        .collect();
    if history.is_empty() {
        return Err(InputError {
            origin: HISTORY.both(),
            message: "no history: pass --history 'history/*.csv' (main's past runs, one file each)"
                .to_owned(),
        });
    }
    let config = args.config.as_ref().map(|p| p.to_string_lossy());
    Ok(Inputs {
        history,
        config: r
            .value(&CONFIG, config.as_deref())
            .map(|v| PathBuf::from(v.text)),
        results_format: r.parse(
            &RESULTS_FORMAT,
            args.results_format.as_deref(),
            crate::table::formats::Format::parse_name,
        )?,
        min_change: r
            .parse(&MIN_CHANGE, args.min_change.as_deref(), percent)?
            .unwrap_or(MIN_CHANGE_PCT)
            / 100.0,
        recent: r
            .parse(&RECENT, args.recent.as_deref(), runs)?
            .unwrap_or(RECENT_RUNS),
        fail_on_regression: r
            .parse(&FAIL_ON, args.fail_on.as_deref(), fail_on)?
            .unwrap_or(false),
        format: Format::choose(
            r.value(&FORMAT, args.format.as_deref()),
            crate::runner::on_runner(env),
        )?,
        files: RunnerFiles::from_env(&r),
    })
}
