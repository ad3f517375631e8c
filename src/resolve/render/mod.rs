//! The answer in each output form: step outputs, summary and annotations for
//! a runner ([`actions`]), one JSON object for scripts ([`json`]), or prose
//! for a person ([`text`]). Rendering only: the runner layer writes.

pub mod actions;
pub mod text;

use std::io;

use crate::resolve::answer::Answer;
use crate::runner::file_command::EncodeError;
use crate::runner::log::{LogSink, LogText};
use crate::runner::{Forms, Rendered};

/// The whole answer as one JSON object (the `json` output and `--format json`).
pub fn json(answer: &Answer) -> String {
    // Serializing plain strings, bools and options cannot fail.
    serde_json::to_string(answer).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}

fn text_or_empty<T: ToString>(value: &Option<T>) -> String {
    value.as_ref().map(ToString::to_string).unwrap_or_default()
}

/// The step outputs, in order: the JSON fields in kebab-case (null is an empty
/// string, booleans `true`/`false`), then `json` with the whole object.
/// `action.yml` declares exactly these.
pub fn step_outputs(answer: &Answer) -> Vec<(&'static str, String)> {
    let f = answer.flat();
    vec![
        ("event-name", f.event_name.to_owned()),
        ("base-repo", f.base_repo.to_string()),
        ("base-repo-url", f.base_repo_url.to_owned()),
        ("base-sha", text_or_empty(&f.base_sha)),
        ("base-ref", text_or_empty(&f.base_ref)),
        ("base-source", f.base_source.unwrap_or_default().to_owned()),
        ("base-available", f.base_available.to_string()),
        ("head-repo", text_or_empty(&f.head_repo)),
        ("head-sha", text_or_empty(&f.head_sha)),
        ("is-fork", f.is_fork.to_string()),
        ("label", f.label.to_string()),
        ("skip", f.skip.to_string()),
        ("skip-reason", text_or_empty(&f.skip_reason)),
        ("tag", text_or_empty(&f.tag)),
        ("tag-sha", text_or_empty(&f.tag_sha)),
        ("tag-version", text_or_empty(&f.tag_version)),
        ("tag-available", f.tag_available.to_string()),
        ("base-fetched", f.base_fetched.to_string()),
        ("artifact-available", f.artifact_available.to_string()),
        ("artifact-id", text_or_empty(&f.artifact_id)),
        ("artifact-run-id", text_or_empty(&f.artifact_run_id)),
        ("artifact-event", text_or_empty(&f.artifact_event)),
        ("artifact-name", text_or_empty(&f.artifact_name)),
        (
            "artifacts",
            serde_json::to_string(&f.artifacts).unwrap_or_else(|_| "{}".to_owned()),
        ),
        ("upload-name", text_or_empty(&f.upload_name)),
        ("json", json(answer)),
    ]
}

/// The answer as `--format` shows it, with the debug lines a runner's
/// log shows under `RUNNER_DEBUG` (empty otherwise).
pub struct Shown<'a> {
    pub answer: &'a Answer,
    pub debug: Vec<String>,
}

impl Forms for Shown<'_> {
    fn json(&self) -> String {
        json(self.answer)
    }

    fn text(&self) -> LogText {
        text::render(self.answer)
    }

    fn actions(&self) -> Result<Rendered, EncodeError> {
        actions::render(self.answer, &self.debug)
    }

    /// The annotations and the summary say the answer: the log repeats
    /// nothing after them.
    fn log(&self, _log: &mut dyn LogSink) -> io::Result<()> {
        Ok(())
    }
}
