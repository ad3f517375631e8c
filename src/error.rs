//! The top-level error and its exit code. Each subsystem has its own error
//! type; this wraps them and decides, in one place, how the process ends.

use std::path::PathBuf;

use thiserror::Error;

use crate::event::LoadError;
use crate::inputs::InputError;
use crate::output::file_command::EncodeError;
use crate::rules::PayloadError;

#[derive(Debug, Error)]
pub enum Error {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("event file {path} ({event}): {source}")]
    Payload {
        path: PathBuf,
        event: String,
        source: PayloadError,
    },
    #[error("cannot encode the step outputs: {0}")]
    Encode(#[from] EncodeError),
    #[error(
        "--format github writes step outputs to the file named by GITHUB_OUTPUT, which is not set (use --format text or json outside a runner)"
    )]
    NoOutputFile,
    #[error("cannot start the async runtime: {source}")]
    Runtime { source: std::io::Error },
    #[error("cannot write {what} {path}: {source}")]
    Write {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// How the process ends. Documented in `--help` and the README.
pub mod exit {
    pub const OK: u8 = 0;
    pub const BAD_INPUT: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const NO_BASELINE: u8 = 3;
}

impl Error {
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) => exit::USAGE,
            _ => exit::BAD_INPUT,
        }
    }
}
