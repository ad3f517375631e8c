//! The output forms: `github` for a runner (step outputs, summary,
//! annotations), `json` for scripts, `text` for a person.

use super::declare::Input;
use super::env::{InputError, Value};

/// `--format`, a flag only (a step's outputs are always `github`).
pub const FORMAT: Input = Input::one(
    "format",
    &[],
    "FORMAT",
    "Output form: github (step outputs, summary, annotations), json (one object on stdout) or \
     text.",
)
.said("github when GITHUB_ACTIONS=true, else text");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Github,
    Json,
    Text,
}

impl Format {
    pub fn parse(value: &str) -> Option<Format> {
        match value {
            "github" => Some(Format::Github),
            "json" => Some(Format::Json),
            "text" => Some(Format::Text),
            _ => None,
        }
    }

    /// The form asked for, else `github` on a runner and `text` elsewhere.
    pub fn choose(asked: Option<Value>, on_runner: bool) -> Result<Format, InputError> {
        match asked {
            Some(value) => Format::parse(&value.text).ok_or_else(|| {
                value.invalid(format!(
                    "expected github, json or text, got {:?}",
                    super::text::shown(&value.text)
                ))
            }),
            None if on_runner => Ok(Format::Github),
            None => Ok(Format::Text),
        }
    }
}
