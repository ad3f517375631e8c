//! The event payload: the JSON GitHub Actions writes to `GITHUB_EVENT_PATH`,
//! modelled only as far as the rules read it.
//!
//! Payloads differ between github.com, Enterprise Server versions and the docs
//! examples (extra fields, missing fields, integers where strings are usual),
//! so every struct here names only the fields the resolver uses, each an
//! `Option` where GitHub may omit or null it. A field we read that has the wrong
//! type is an error naming its JSON path; fields we do not read are never
//! looked at. See <https://docs.github.com/en/webhooks/webhook-events-and-payloads>.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::runner::read::{self, FileError};

/// Real payloads are kilobytes; the runner caps them far below this. Anything
/// larger is not an event file and is refused before it is parsed.
pub const MAX_PAYLOAD_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum LoadError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("event file {path} is empty")]
    Empty { path: PathBuf },
    #[error("event file {path} is not a JSON object (it starts with {found})")]
    NotObject { path: PathBuf, found: String },
    #[error("event file {path}: invalid JSON at line {line} column {column}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("event file {path}: field `{field}`: {message}")]
    Field {
        path: PathBuf,
        field: String,
        message: String,
    },
}

/// The name in `GITHUB_EVENT_NAME`. Unknown names are kept (and answered with
/// a skip that names them), never rejected: GitHub adds events over time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventName {
    PullRequest,
    PullRequestTarget,
    Push,
    MergeGroup,
    WorkflowDispatch,
    Schedule,
    RepositoryDispatch,
    WorkflowRun,
    Release,
    IssueComment,
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("event name {0:?} is not an event name (lowercase letters, digits and '_', at most 64)")]
pub struct InvalidEventName(String);

impl EventName {
    pub fn parse(name: &str) -> Result<Self, InvalidEventName> {
        let well_formed = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !well_formed {
            let shown: String = name.chars().take(64).collect();
            return Err(InvalidEventName(shown));
        }
        Ok(match name {
            "pull_request" => EventName::PullRequest,
            "pull_request_target" => EventName::PullRequestTarget,
            "push" => EventName::Push,
            "merge_group" => EventName::MergeGroup,
            "workflow_dispatch" => EventName::WorkflowDispatch,
            "schedule" => EventName::Schedule,
            "repository_dispatch" => EventName::RepositoryDispatch,
            "workflow_run" => EventName::WorkflowRun,
            "release" => EventName::Release,
            "issue_comment" => EventName::IssueComment,
            other => EventName::Other(other.to_owned()),
        })
    }

    pub fn as_str(&self) -> &str {
        match self {
            EventName::PullRequest => "pull_request",
            EventName::PullRequestTarget => "pull_request_target",
            EventName::Push => "push",
            EventName::MergeGroup => "merge_group",
            EventName::WorkflowDispatch => "workflow_dispatch",
            EventName::Schedule => "schedule",
            EventName::RepositoryDispatch => "repository_dispatch",
            EventName::WorkflowRun => "workflow_run",
            EventName::Release => "release",
            EventName::IssueComment => "issue_comment",
            EventName::Other(name) => name,
        }
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The union of the top-level fields the rules read, over every event.
#[derive(Debug, Default, Deserialize)]
pub struct Payload {
    pub repository: Option<Repository>,
    pub pull_request: Option<PullRequest>,
    // push
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub created: Option<bool>,
    pub deleted: Option<bool>,
    pub forced: Option<bool>,
    pub merge_group: Option<MergeGroup>,
    pub workflow_run: Option<WorkflowRun>,
    pub release: Option<Release>,
    pub issue: Option<Issue>,
    /// Present in `schedule` payloads: its presence tells the shape apart.
    pub schedule: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Repository {
    pub id: Option<u64>,
    pub full_name: Option<String>,
    pub default_branch: Option<String>,
    /// Older push payloads carry the default branch under this name too.
    pub master_branch: Option<String>,
}

impl Repository {
    pub fn default_branch(&self) -> Option<&str> {
        self.default_branch
            .as_deref()
            .or(self.master_branch.as_deref())
    }
}

#[derive(Debug, Deserialize)]
pub struct PullRequest {
    pub number: Option<u64>,
    pub base: Option<Side>,
    pub head: Option<Side>,
}

/// `pull_request.base` / `.head`. `repo` is null on the head side when the
/// fork was deleted after the pull request was opened.
#[derive(Debug, Deserialize)]
pub struct Side {
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    pub sha: Option<String>,
    pub repo: Option<Repository>,
}

#[derive(Debug, Deserialize)]
pub struct MergeGroup {
    pub base_sha: Option<String>,
    pub base_ref: Option<String>,
    pub head_sha: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct WorkflowRun {
    /// The run's id: `comment` links the run that wrote the report.
    pub id: Option<u64>,
    pub head_sha: Option<String>,
    pub head_branch: Option<String>,
    pub event: Option<String>,
    pub repository: Option<Repository>,
    pub head_repository: Option<Repository>,
    #[serde(default)]
    pub pull_requests: Vec<RunPullRequest>,
}

/// An entry of `workflow_run.pull_requests[]`. Its repos carry `id`, `url` and
/// `name` only (no `full_name`), so matching is by id.
#[derive(Debug, Deserialize)]
pub struct RunPullRequest {
    pub number: Option<u64>,
    pub base: Option<RunSide>,
    pub head: Option<RunSide>,
}

#[derive(Debug, Deserialize)]
pub struct RunSide {
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    pub sha: Option<String>,
    pub repo: Option<RunRepo>,
}

#[derive(Debug, Deserialize)]
pub struct RunRepo {
    pub id: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub struct Release {
    pub tag_name: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Issue {
    pub number: Option<u64>,
    /// Present (an object with URLs) only when the issue is a pull request.
    pub pull_request: Option<serde::de::IgnoredAny>,
}

/// Reads and parses the event file, refusing what is not an event payload
/// before any rule looks at it.
pub fn load(path: &Path) -> Result<Payload, LoadError> {
    let text = read::bounded("event file", path, MAX_PAYLOAD_BYTES)?;
    parse(path, &text)
}

/// Parses payload bytes; `path` only names the source in errors.
pub fn parse(path: &Path, text: &[u8]) -> Result<Payload, LoadError> {
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    match first {
        None => {
            return Err(LoadError::Empty {
                path: path.to_owned(),
            });
        }
        Some(b'{') => {}
        Some(&b) => {
            let found = match b {
                b'[' => "'[', an array".to_owned(),
                b'"' => "'\"', a string".to_owned(),
                b if b.is_ascii_graphic() => format!("{:?}", b as char),
                b => format!("byte 0x{b:02x}"),
            };
            return Err(LoadError::NotObject {
                path: path.to_owned(),
                found,
            });
        }
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    let payload: Payload = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let field = err.path().to_string();
        let inner = err.into_inner();
        classify(path, field, inner)
    })?;
    de.end()
        .map_err(|err| classify(path, ".".to_owned(), err))?;
    Ok(payload)
}

fn classify(path: &Path, field: String, err: serde_json::Error) -> LoadError {
    use serde_json::error::Category;
    match err.classify() {
        Category::Data => LoadError::Field {
            path: path.to_owned(),
            field,
            message: cut_quoted_value(&strip_position(&err.to_string())),
        },
        Category::Io | Category::Syntax | Category::Eof => LoadError::Syntax {
            path: path.to_owned(),
            line: err.line(),
            column: err.column(),
            message: strip_position(&err.to_string()),
        },
    }
}

/// serde_json quotes the offending value whole (`invalid type: string
/// "...", expected u64`); a 5 MB string would become a 5 MB message, twice
/// (stderr and the annotation). The quoted part is cut like any shown value.
fn cut_quoted_value(message: &str) -> String {
    let (Some(open), Some(close)) = (message.find('"'), message.rfind('"')) else {
        return message.to_owned();
    };
    match (
        message.get(..open),
        message.get(open.saturating_add(1)..close),
        message.get(close..),
    ) {
        (Some(before), Some(value), Some(after)) if close > open => {
            format!("{before}\"{}{after}", crate::runner::shown(value))
        }
        _ => message.to_owned(),
    }
}

/// serde_json appends " at line L column C"; the position is reported
/// separately (or is meaningless next to a field path).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message.get(..at).unwrap_or(message).to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Payload, LoadError> {
        parse(Path::new("event.json"), text.as_bytes())
    }

    #[test]
    fn wrong_type_names_the_field_path() {
        let err = parse_str(r#"{"pull_request": {"base": {"sha": 5}}}"#).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("`pull_request.base.sha`"), "{text}");
        assert!(text.contains("invalid type: integer `5`"), "{text}");
    }

    #[test]
    fn refuses_non_objects_and_truncation() {
        assert!(matches!(parse_str("[]"), Err(LoadError::NotObject { .. })));
        assert!(matches!(
            parse_str("\"x\""),
            Err(LoadError::NotObject { .. })
        ));
        assert!(matches!(parse_str("  \n"), Err(LoadError::Empty { .. })));
        let err = parse_str(r#"{"ref": "refs/heads/main""#).unwrap_err();
        assert!(matches!(err, LoadError::Syntax { line: 1, .. }), "{err}");
        assert!(matches!(parse_str("{} x"), Err(LoadError::Syntax { .. })));
    }

    #[test]
    fn deep_nesting_neither_overflows_nor_passes_as_a_field() {
        // An unread field is skipped iteratively by serde_json: no recursion.
        let deep = format!(r#"{{"x": {}{}}}"#, "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_str(&deep).is_ok());
        // In a field the resolver reads, it is a type error naming the field.
        let deep = format!(
            r#"{{"pull_request": {}{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let err = parse_str(&deep).unwrap_err().to_string();
        assert!(err.contains("field `pull_request"), "{err}");
    }

    #[test]
    fn unknown_and_oddly_typed_unread_fields_are_ignored() {
        let payload = parse_str(
            r#"{"repository": {"full_name": "a/b", "created_at": 1700000000, "topics": null},
                "pull_request": {"body": null, "auto_merge": {"x": 1}}, "new_field": [1, {}]}"#,
        )
        .unwrap();
        assert_eq!(
            payload.repository.unwrap().full_name.as_deref(),
            Some("a/b")
        );
    }

    #[test]
    fn event_names() {
        assert_eq!(EventName::parse("push").unwrap(), EventName::Push);
        assert_eq!(
            EventName::parse("check_suite").unwrap(),
            EventName::Other("check_suite".into())
        );
        for bad in ["", "Push", "push\n", "a b", &"a".repeat(65)] {
            assert!(EventName::parse(bad).is_err(), "{bad:?}");
        }
    }
}
