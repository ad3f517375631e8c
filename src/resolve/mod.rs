//! `resolve`: for one GitHub Actions event, exactly one benchmark baseline.
//!
//! The flow reads as the problem does: [`args`] (the command line) and the
//! environment become validated [`inputs`]; the [`event`] file is parsed; the
//! pure [`rules`] decide (no I/O); what the payload left open is settled
//! ([`settle`]: the GitHub [`api`], [`git`], release [`tags`], benchmark
//! [`artifacts`]) into findings that the [`answer`] takes in one place; the
//! answer is rendered ([`render`]) and the runner layer writes it.

pub mod answer;
pub mod args;
pub mod artifacts;
pub mod defaults;
pub mod git;
pub mod inputs;
pub mod render;
pub mod rules;
pub mod settle;
pub mod tags;

use std::path::PathBuf;

use thiserror::Error;

use crate::github::event::{self, LoadError};
use crate::runner::{self, CommandError, Env, Failure, Format};
use answer::Answer;
use args::ResolveArgs;
use inputs::Inputs;
use rules::PayloadError;
use settle::{Network, Plan, SettleError};

/// The exit codes of `resolve`: the shared ones (0, 1 bad input, 2 usage)
/// and its own.
pub mod exit {
    pub use crate::runner::exit::*;
    /// `--strict`, and there is something to benchmark but no baseline.
    pub const NO_BASELINE: u8 = 3;
}

/// What stops a resolution, besides what stops every command
/// ([`CommandError`]): an event file that cannot be read or does not hold
/// what its event needs, or a lookup that could not be settled.
#[derive(Debug, Error)]
pub enum ResolveError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("event file {path} ({event}): {source}")]
    Payload {
        path: PathBuf,
        event: String,
        source: PayloadError,
    },
    #[error(transparent)]
    Settle(#[from] SettleError),
}

impl Failure for ResolveError {}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &ResolveArgs, env: Env<'_>) -> Result<u8, CommandError<ResolveError>> {
    let inputs = inputs::validate(args, env)?;
    work(&inputs)
}

/// Resolves and writes the answer; returns the exit code.
pub fn work(inputs: &Inputs) -> Result<u8, CommandError<ResolveError>> {
    let answer = resolve(inputs)?;
    write(inputs, &answer)?;
    if inputs.strict && answer.missing_baseline() {
        return Ok(exit::NO_BASELINE);
    }
    Ok(exit::OK)
}

/// The answer for the inputs, without writing anything.
pub fn resolve(inputs: &Inputs) -> Result<Answer, ResolveError> {
    let payload = event::load(&inputs.event_path)?;
    let decision =
        rules::decide(&inputs.event_name, &payload, &inputs.settings).map_err(|source| {
            ResolveError::Payload {
                path: inputs.event_path.clone(),
                event: inputs.event_name.to_string(),
                source,
            }
        })?;
    let (mut answer, lookup) = Answer::new(decision, inputs.label.clone(), &inputs.server_url);
    let plan = Plan {
        lookup,
        tag: inputs.tag.clone(),
        previous_tag_policy: inputs.tag_policy.clone(),
        workdir: inputs.workdir.clone(),
        fetch: inputs.fetch.clone(),
        artifacts: inputs.artifacts.clone(),
    };
    let findings = if inputs.offline {
        settle::offline(&answer, plan)
    } else {
        let network = Network {
            api: crate::github::Config {
                api_url: inputs.api_url.clone(),
                token: inputs.token.clone(),
                timeout: inputs.timeout,
            },
            server_url: inputs.server_url.clone(),
        };
        settle::online(&answer, plan, &network)?
    };
    answer.apply(findings);
    answer.upload_name = upload_name(inputs, &answer);
    answer.finish();
    Ok(answer)
}

/// The first `artifact-name` template rendered for the commit this run
/// measures (`{sha}`, `{short_sha}` and `{tag_sha}` all become it): on a
/// push to main or a release, the name later runs look up. None without a
/// template or a head commit.
fn upload_name(inputs: &Inputs, answer: &Answer) -> Option<String> {
    let template = inputs.artifacts.as_ref()?.templates.first()?;
    let head = answer.head_sha.as_ref()?;
    Some(artifacts::name_for(template, head, &answer.label))
}

/// The answer in the form asked for; `RUNNER_DEBUG`'s lines only where a
/// runner shows them.
fn write(inputs: &Inputs, answer: &Answer) -> Result<(), CommandError<ResolveError>> {
    let debug = if inputs.debug && inputs.format == Format::Github {
        inputs.debug_lines()
    } else {
        Vec::new()
    };
    runner::emit(
        inputs.format,
        &inputs.files,
        &render::Shown { answer, debug },
    )?;
    Ok(())
}
