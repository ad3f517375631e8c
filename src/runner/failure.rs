//! How a command ends without its answer. Every command can meet the same
//! few failures (a flag or `INPUT_*` value that is not valid, an answer
//! that cannot be encoded or written); those are said here once, in
//! [`CommandError`], and a command's own error type lists only what is its
//! own (a results file it could not read, a repository it could not
//! reach), wrapped as [`CommandError::Own`].

use thiserror::Error;

use super::env::{Env, InputError};
use super::file_command::EncodeError;
use super::write::WriteError;
use super::{exit, log, on_runner, write};

/// Why a command stopped: what every command can meet, or its own error
/// `E`. Each command's `run` returns it, and [`finish`] turns it into the
/// message and the exit code.
#[derive(Debug, Error)]
pub enum CommandError<E> {
    /// A flag or `INPUT_*`/`GITHUB_*` value that is not valid: exit 2.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The step outputs, the summary or the log could not be encoded or
    /// written: exit 1.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The command's own error: exit 2 when it says the command line was
    /// wrong ([`Failure::usage`]), else 1.
    #[error(transparent)]
    Own(E),
}

/// A command's own error type. Most of its errors are about what it read
/// (exit 1); `usage` picks those that say the command line itself was
/// wrong (exit 2), such as two flags that cannot go together.
pub trait Failure: std::error::Error {
    fn usage(&self) -> bool {
        false
    }
}

/// A command's own error becomes a `CommandError` through `?`.
impl<E: Failure> From<E> for CommandError<E> {
    fn from(own: E) -> CommandError<E> {
        CommandError::Own(own)
    }
}

/// Outputs that cannot be encoded are an answer that cannot be written.
impl<E> From<EncodeError> for CommandError<E> {
    fn from(err: EncodeError) -> CommandError<E> {
        CommandError::Write(WriteError::Encode(err))
    }
}

impl<E: Failure> CommandError<E> {
    /// Whether the command line was wrong (exit 2) rather than what the
    /// command read or wrote (exit 1).
    pub fn usage(&self) -> bool {
        match self {
            CommandError::Input(_) => true,
            CommandError::Write(_) => false,
            CommandError::Own(own) => own.usage(),
        }
    }
}

/// Ends a command: its exit code; or its error said once ([`report_error`])
/// and exit 2 or 1. Every command's `run` ends here (`cli::main`).
pub fn finish<E: Failure>(command: &str, env: Env<'_>, result: Result<u8, CommandError<E>>) -> u8 {
    match result {
        Ok(code) => code,
        Err(err) => {
            report_error(command, &err.to_string(), env);
            if err.usage() {
                exit::USAGE
            } else {
                exit::BAD_INPUT
            }
        }
    }
}

/// Ends a failed command visibly: one line on stderr and, on a runner, an
/// `::error::` annotation, both naming the command.
pub fn report_error(command: &str, message: &str, env: Env<'_>) {
    let mut line = log::LogText::new();
    line.push_line(&format!("{command}: error: {message}"));
    write::stderr(&line);
    if on_runner(env) {
        let _ = write::stdout(|log| {
            use log::LogSink as _;
            log.command("error", &[("title", command)], message)
        });
    }
}
