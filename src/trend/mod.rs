//! `trend`: the change points of main's own benchmark history, inside the
//! main job, with no server. A pull-request gate compares one change with
//! one baseline and cannot see what lands on main in steps it let through
//! (2% per merge for ten merges), or a regression merged with the gate off:
//! this reads the rolling history the main job keeps anyway.
//!
//! The flow: [`args`] and the environment become validated [`inputs`]; the
//! config is the shared one; [`history`] reads the files into each row's
//! series; [`changes`] (pure) judges each series; [`report`] orders what
//! was found; [`render`] shows it and the runner layer writes it.

pub mod args;
pub mod changes;
pub mod history;
pub mod inputs;
pub mod machine;
pub mod render;
pub mod report;

use thiserror::Error;

use crate::config::{self, Config, ConfigError};
use crate::parallel;
use crate::runner::{self, CommandError, Env, Failure};
use args::TrendArgs;
use history::HistoryError;
use inputs::Inputs;
use report::{Report, RowTrend};

/// The exit codes of `trend`: the shared ones (0, 1 bad input, 2 usage)
/// and its own.
pub mod exit {
    pub use crate::runner::exit::*;
    /// `--fail-on regression`, and a new persistent regression was found.
    pub const REGRESSION: u8 = 4;
}

/// What stops a trend, besides what stops every command
/// ([`CommandError`]): a history or config that cannot be read.
#[derive(Debug, Error)]
pub enum TrendError {
    #[error(transparent)]
    History(#[from] HistoryError),
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl Failure for TrendError {
    /// More history files than one run reads: `--history` asked too much.
    fn usage(&self) -> bool {
        matches!(self, TrendError::History(HistoryError::TooMany { .. }))
    }
}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &TrendArgs, env: Env<'_>) -> Result<u8, CommandError<TrendError>> {
    let inputs = inputs::validate(args, env)?;
    work(&inputs)
}

/// Every series judged, on the pool; rows with nothing to say left out.
pub fn judge<'h>(
    history: &'h history::History,
    config: &Config,
    min_change: f64,
) -> Vec<RowTrend<'h>> {
    let sign = |metric: usize| {
        config
            .metrics
            .get(metric)
            .map_or(1.0, |m| m.direction.sign())
    };
    parallel::ranges(history.series.len(), |range| {
        history
            .series
            .get(range)
            .unwrap_or_default()
            .iter()
            .map(|series| RowTrend {
                series,
                judged: changes::judge(&series.values, sign(series.metric), min_change),
            })
            .filter(|r| !r.judged.changes.is_empty() || !r.judged.outliers.is_empty())
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Reads, judges and writes; returns the exit code.
pub fn work(inputs: &Inputs) -> Result<u8, CommandError<TrendError>> {
    let mut config = match &inputs.config {
        Some(path) => config::load::load(path).map_err(TrendError::from)?,
        None => Config::default(),
    };
    let history = history::read(&inputs.history, &mut config, inputs.results_format)
        .map_err(TrendError::from)?;
    let mut rows = judge(&history, &config, inputs.min_change);
    // A step where the machine changed is the machine's, not the code's.
    let mut machines = machine::changes(&history.machines);
    machine::attribute(&mut rows, &mut machines, |r| {
        r.series.key().describe(&config.keys)
    });
    let report = Report {
        rows,
        machines,
        judged: history.series.len(),
        history: &history,
        config: &config,
        min_change: inputs.min_change,
        recent: inputs.recent,
    };
    runner::emit(inputs.format, &inputs.files, &report)?;
    let failing = inputs.fail_on_regression && !report.new_regressions().is_empty();
    Ok(if failing { exit::REGRESSION } else { exit::OK })
}
