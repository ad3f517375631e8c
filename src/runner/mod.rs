//! Why `runner`: the GitHub Actions runner, the program that runs a job's
//! steps and reads what a step writes; what runs the benchmarks is `bench`.
//!
//! The GitHub Actions runner, as every command meets it: values from flags
//! and the environment (named by where they came from when they are wrong),
//! the output formats, the file commands (`GITHUB_OUTPUT`), workflow commands
//! (`::warning::`), Markdown for the job summary, writing all of it once
//! everything is rendered, and what happens when a command fails or panics.
//!
//! Nothing here knows what a baseline or a benchmark is: a command renders
//! its answer in each form ([`Forms`]) and [`emit`] writes the one asked
//! for.
//! See <https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions>.

pub mod declare;
pub mod env;
pub mod exit;
pub mod failure;
pub mod file_command;
pub mod format;
pub mod log;
pub mod markdown;
pub mod panic;
pub mod place;
pub mod read;
pub mod text;
pub mod workflow_command;
pub mod write;

pub use declare::{Declared, Given, Input, Typed};
pub use env::{Env, InputError, Reader, Value};
pub use failure::{CommandError, Failure, finish};
pub use format::Format;
pub use text::shown;
pub use write::{Forms, Rendered, WriteError, emit};

/// `GITHUB_ACTIONS=true`: running as a step, so errors are annotations too.
pub fn on_runner(env: Env<'_>) -> bool {
    env("GITHUB_ACTIONS").as_deref() == Some("true")
}

/// `RUNNER_DEBUG=1` (the "Enable debug logging" re-run): print `::debug::` lines.
pub fn debug(env: Env<'_>) -> bool {
    env("RUNNER_DEBUG").as_deref() == Some("1")
}
