//! baseline-resolver: for one GitHub Actions event, exactly one benchmark
//! baseline: the canonical base repository (never the fork), the exact base
//! commit, where that answer came from, and the head side.
//!
//! The pipeline reads as the problem does: raw flags and environment
//! ([`cli`]) become validated [`inputs`]; the event file is parsed
//! ([`event`]); the pure [`rules`] decide; what the payload left open is
//! settled [`online`] (the [`github`] API, [`git`], release [`tags`]); the
//! [`answer`] is written in one of the [`output`] forms. [`run`] ties the
//! steps together.

// Values from payloads, flags and servers reach most of this code: no
// unwrap, no unchecked arithmetic or indexing where they could panic (with
// `panic = "abort"`, a panic would lose every output of the run).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        clippy::string_slice
    )
)]

pub mod answer;
pub mod artifacts;
pub mod cli;
pub mod error;
pub mod event;
pub mod git;
pub mod github;
pub mod inputs;
pub mod online;
pub mod output;
pub mod rules;
pub mod run;
pub mod tags;
pub mod validate;

use std::process::ExitCode;

use output::workflow_command;

/// The whole program after argument parsing: validate, run, and turn any
/// error into one line on stderr (and an `::error::` annotation on a runner).
pub fn main_with(args: &cli::ResolveArgs, env: inputs::Env<'_>) -> ExitCode {
    let result = inputs::validate(args, env)
        .map_err(error::Error::from)
        .and_then(|inputs| run::run(&inputs));
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            let message = err.to_string();
            eprintln!("baseline-resolver: error: {message}");
            if env("GITHUB_ACTIONS").as_deref() == Some("true") {
                let mut out = String::new();
                workflow_command::command(
                    &mut out,
                    "error",
                    &[("title", "baseline-resolver")],
                    &message,
                );
                print!("{out}");
            }
            ExitCode::from(err.exit_code())
        }
    }
}
