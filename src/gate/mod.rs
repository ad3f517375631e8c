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

use crate::runner::{self, CommandError, Env, Failure};
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

/// What stops the gate, besides what stops every command
/// ([`CommandError`]): a `--reports` glob that cannot be expanded.
#[derive(Debug, Error)]
pub enum GateError {
    #[error(transparent)]
    Find(#[from] FindError),
}

impl Failure for GateError {
    /// A glob that cannot be expanded was given on the command line.
    fn usage(&self) -> bool {
        matches!(self, GateError::Find(_))
    }
}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &GateArgs, env: Env<'_>) -> Result<u8, CommandError<GateError>> {
    let inputs = inputs::validate(args, env)?;
    work(&inputs)
}

/// Finds, reads, judges and writes; returns the exit code.
pub fn work(inputs: &Inputs) -> Result<u8, CommandError<GateError>> {
    let (found, empty) = find::find(&inputs.reports).map_err(GateError::from)?;
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
    runner::emit(inputs.format, &inputs.files, &table)?;
    Ok(judge::exit_code(&table.judged(), missing, inputs.strict))
}
