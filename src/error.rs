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

/// Makes even a bug visible on a runner: with `panic = "abort"` a panic
/// ends the process before any output is written, so the hook says so in
/// one `::error` annotation (and on stderr) instead of a bare exit 134.
pub fn install_panic_hook(on_runner: bool) {
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let location = info.location().map(ToString::to_string);
        let (stdout, stderr) = panic_report(&message, location.as_deref(), on_runner);
        print!("{stdout}");
        eprint!("{stderr}");
    }));
}

/// The lines a panic prints: `(stdout, stderr)`.
fn panic_report(message: &str, location: Option<&str>, on_runner: bool) -> (String, String) {
    let text = format!(
        "internal error, please report it with this line and the event file: {} (at {})",
        crate::validate::shown(message),
        location.unwrap_or("unknown place")
    );
    let mut stdout = String::new();
    if on_runner {
        crate::output::workflow_command::command(
            &mut stdout,
            "error",
            &[("title", "baseline-resolver")],
            &text,
        );
    }
    (stdout, format!("baseline-resolver: {text}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_one_error_annotation() {
        let (stdout, stderr) = panic_report("boom\n::set-output x", Some("src/x.rs:1:2"), true);
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(
            stdout.starts_with("::error title=baseline-resolver::internal error, please report")
        );
        assert!(
            stdout.contains("boom%0A::set-output x"),
            "escaped: {stdout}"
        );
        assert!(stderr.contains("src/x.rs:1:2"));
        let (stdout, _) = panic_report(&"x".repeat(10_000), None, false);
        assert!(stdout.is_empty());
        let (_, stderr) = panic_report(&"x".repeat(10_000), None, false);
        assert!(stderr.len() < 400, "cut short: {}", stderr.len());
    }
}
