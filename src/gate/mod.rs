//! `gate`: one verdict over every benchmark job of a workflow. A matrix
//! of runners (one job per GPU) each compares and uploads compare's report;
//! a dashboard that ingests only successful runs needs those jobs green
//! (`compare --no-gate`), so the pull request's required check is a small
//! job after them that reads every report and fails when any job regressed,
//! lost rows or left a report that cannot be read.
//!
//! The flow: [`args`] and the environment become validated [`inputs`];
//! [`find`] expands the globs (bounded); [`jobs`] reads each report through
//! the shared contract (`contract::comparison`); [`judge`] (pure) gives each
//! job and the gate a verdict; [`machine`] says what each job's sides were
//! measured on (and marks a baseline from another machine); [`render`]
//! shows the table and the runner layer writes it.

pub mod args;
pub mod find;
pub mod inputs;
pub mod jobs;
pub mod judge;
pub mod machine;
pub mod render;

use thiserror::Error;

use crate::runner::file_command::EncodeError;
use crate::runner::log::LogSink as _;
use crate::runner::{self, Env, Failure, Format, InputError, WriteError};
use args::GateArgs;
use find::FindError;
use inputs::Inputs;
use render::Line;

/// The exit codes of `gate`: the shared ones (0, 1 bad input, 2 usage)
/// and its own, as compare's.
pub mod exit {
    pub use crate::runner::exit::*;
    /// `--strict`, and a job is inconclusive.
    pub const INCONCLUSIVE: u8 = 3;
    /// A job regressed or lost rows against its gate baseline.
    pub const REGRESSION: u8 = 4;
}

#[derive(Debug, Error)]
pub enum GateError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Find(#[from] FindError),
    #[error("cannot encode the step outputs: {0}")]
    Encode(#[from] EncodeError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

impl Failure for GateError {
    fn usage(&self) -> bool {
        matches!(self, GateError::Input(_) | GateError::Find(_))
    }
}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &GateArgs, env: Env<'_>) -> Result<u8, GateError> {
    let inputs = inputs::validate(args, env)?;
    work(&inputs)
}

/// Finds, reads, judges and writes; returns the exit code.
pub fn work(inputs: &Inputs) -> Result<u8, GateError> {
    let (found, empty) = find::find(&inputs.reports)?;
    let read: Vec<jobs::Job> = found
        .iter()
        .map(|f| jobs::read(f, inputs.name_from))
        .collect();
    let missing = inputs.expect_jobs.saturating_sub(read.len());
    let lines: Vec<Line<'_>> = read
        .iter()
        .map(|job| Line {
            judged: judge::job(job),
            job,
        })
        .collect();
    let table = render::Table {
        lines,
        unmatched: empty,
        missing,
        expected: inputs.expect_jobs,
    };
    match inputs.format {
        Format::Json => runner::write::stdout(|log| log.json(&render::json(&table)))?,
        Format::Text => runner::write::stdout(|log| log.append(&render::text(&table)))?,
        Format::Github => {
            let mut rendered = render::actions(&table)?;
            rendered.stdout.append_text(&render::text(&table));
            runner::write::for_runner(&inputs.files, &rendered)?;
        }
    }
    Ok(judge::exit_code(&table.judged(), missing, inputs.strict))
}
