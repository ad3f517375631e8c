//! `comment`: compare's verdict on the pull request, where reviewers look:
//! one comment per pull request and marker, updated in place on each run.
//!
//! [`inputs`] validates; [`report`] reads compare's JSON report (a
//! stranger's: a fork's code wrote the results it came from); [`body`]
//! (pure) renders the Markdown, inert and under GitHub's limit; [`post`]
//! finds the pull request and its comment and writes once, through the
//! resolver's GitHub client. A comment that cannot be posted is a warning
//! naming the permission (exit 0; `--strict`: 1): the gate is compare's.

pub mod args;
pub mod body;
pub mod cells;
pub mod inputs;
pub mod post;
pub mod report;
pub mod trend;

use serde::Serialize;
use thiserror::Error;

use crate::contract::trend::MAX_TREND_BYTES;
use crate::github::Thread;
use crate::github::event::{self, LoadError, Payload};
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::LogText;
use crate::runner::{self, CommandError, Env, Failure, Forms, Rendered};
use args::CommentArgs;
use inputs::Inputs;
use post::{Posted, Request, Which};
use report::{Excerpt, ReportError};

/// The exit codes of `comment`: the shared ones (a failed post is exit 0
/// with a warning, or `BAD_INPUT` under `--strict`).
pub mod exit {
    pub use crate::runner::exit::*;
}

/// What stops a comment, besides what stops every command
/// ([`CommandError`]): the report or the event that cannot be read, or no
/// repository or pull request to post on. A post GitHub refuses is not an
/// error: it is a warning in the outcome.
#[derive(Debug, Error)]
pub enum CommentError {
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error(transparent)]
    Event(#[from] LoadError),
    /// Nothing names where to post: exit 2.
    #[error("{0}")]
    Usage(String),
}

impl Failure for CommentError {
    fn usage(&self) -> bool {
        matches!(self, CommentError::Usage(_))
    }
}

/// The command's one entry point: its inputs validated, then its work;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &CommentArgs, env: Env<'_>) -> Result<u8, CommandError<CommentError>> {
    let inputs = inputs::validate(args, env)?;
    work(&inputs)
}

/// What a run did, for the outputs.
#[derive(Debug, Serialize)]
pub struct Outcome {
    /// `created`, `updated`, `unchanged`, `failed` or `dry-run`.
    pub action: &'static str,
    pub pr: Option<u64>,
    /// With `--issue`: the issue commented on.
    pub issue: Option<u64>,
    pub comment_id: Option<u64>,
    pub url: Option<String>,
    pub chars: usize,
    pub rows_left_out: usize,
    pub requests: usize,
    pub warning: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

fn run_url(inputs: &Inputs, payload: Option<&Payload>, repo: &str) -> Option<String> {
    let from_event = payload
        .and_then(|p| p.workflow_run.as_ref())
        .filter(|_| inputs.event_name.as_deref() == Some("workflow_run"))
        .and_then(|r| r.id);
    let id = from_event.or(inputs.run_id)?;
    Some(format!(
        "{}/{repo}/actions/runs/{id}",
        inputs.server_url.trim_end_matches('/')
    ))
}

/// compare's report, or trend's.
pub enum Loaded {
    Verdict(Excerpt),
    Trend(crate::contract::trend::TrendReport<'static>),
}

impl Loaded {
    /// The report, read once: the JSON itself or a file small enough to be
    /// trend's (at most [`MAX_TREND_BYTES`]) is read whole and told by its
    /// keys; a larger file can only be compare's, and is streamed.
    fn load(value: &str) -> Result<Loaded, CommentError> {
        let (text, origin) = if value.trim_start().starts_with('{') {
            (value.to_owned(), "(inline JSON)".to_owned())
        } else {
            let path = std::path::Path::new(value);
            if !std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_TREND_BYTES) {
                return Ok(Loaded::Verdict(Excerpt::load(value)?));
            }
            let text = runner::read::bounded_text("the report", path, MAX_TREND_BYTES)
                .map_err(ReportError::from)?;
            (text, path.display().to_string())
        };
        Ok(Loaded::from_text(&text, origin)?)
    }

    /// A report's whole text, told by its keys; `origin` names it in errors.
    pub fn from_text(text: &str, origin: String) -> Result<Loaded, ReportError> {
        Ok(if trend::is_trend(text) {
            Loaded::Trend(trend::parse(text, origin)?)
        } else {
            Loaded::Verdict(Excerpt::from_text(text, origin)?)
        })
    }

    pub fn render(&self, ctx: &body::Context<'_>) -> body::Body {
        match self {
            Loaded::Verdict(report) => body::render(report, ctx),
            Loaded::Trend(report) => trend::render(report, ctx.marker, ctx.run_url),
        }
    }
}

pub fn work(inputs: &Inputs) -> Result<u8, CommandError<CommentError>> {
    let report = Loaded::load(&inputs.report)?;
    let numbered = inputs.pr.is_some() || inputs.issue.is_some();
    let payload = match &inputs.event {
        Some(path) if !numbered || inputs.event_name.as_deref() == Some("workflow_run") => {
            Some(event::load(path).map_err(CommentError::from)?)
        }
        _ => None,
    };
    let repo = inputs.repo.clone();
    let repo_text = repo.as_ref().map(ToString::to_string).unwrap_or_default();
    let url = repo
        .as_ref()
        .and_then(|r| run_url(inputs, payload.as_ref(), &r.to_string()));
    let marker_line = body::marker(&inputs.marker);
    let rendered = report.render(&body::Context {
        marker: &inputs.marker,
        run_url: url.as_deref(),
        repo: Some(repo_text.as_str()).filter(|r| !r.is_empty()),
    });
    let mut outcome = Outcome {
        action: "dry-run",
        pr: inputs.pr,
        issue: inputs.issue,
        comment_id: None,
        url: None,
        chars: rendered.text.chars().count(),
        rows_left_out: rendered.left_out,
        requests: 0,
        warning: None,
        body: None,
    };
    if inputs.dry_run {
        outcome.body = Some(rendered.text);
        runner::emit(inputs.format, &inputs.files, &outcome)?;
        return Ok(exit::OK);
    }
    let repo = repo.ok_or_else(|| {
        CommentError::Usage(
            "no repository: pass --repo OWNER/NAME or run where GITHUB_REPOSITORY is set"
                .to_owned(),
        )
    })?;
    let which = which_pull(inputs, payload.as_ref())?;
    let result = send(inputs, &repo, which, &marker_line, &rendered.text);
    match result {
        Ok(Posted {
            action,
            pr,
            id,
            requests,
        }) => {
            outcome.action = action.name();
            let kind = if inputs.issue.is_some() {
                "issues"
            } else {
                outcome.pr = Some(pr);
                "pull"
            };
            outcome.comment_id = Some(id);
            outcome.requests = requests;
            outcome.url = Some(format!(
                "{}/{repo_text}/{kind}/{pr}#issuecomment-{id}",
                inputs.server_url.trim_end_matches('/')
            ));
        }
        Err(why) => {
            outcome.action = "failed";
            outcome.warning = Some(why);
        }
    }
    runner::emit(inputs.format, &inputs.files, &outcome)?;
    Ok(if outcome.warning.is_some() && inputs.strict {
        exit::BAD_INPUT
    } else {
        exit::OK
    })
}

/// The pull request: `--pr`, else the event's; or the issue, `--issue`.
fn which_pull(inputs: &Inputs, payload: Option<&Payload>) -> Result<Which, CommentError> {
    if let Some(n) = inputs.issue {
        return Ok(Which::Issue(n));
    }
    if let Some(n) = inputs.pr {
        return Ok(Which::Number(n));
    }
    payload
        .and_then(|p| post::from_event(inputs.event_name.as_deref(), p))
        .ok_or_else(|| {
            CommentError::Usage(
                "no pull request: pass --pr N, or run on a pull_request, issue_comment (on a pull request) or workflow_run event".to_owned(),
            )
        })
}

/// Posts, or says why not.
fn send(
    inputs: &Inputs,
    repo: &crate::validate::RepoName,
    which: Which,
    marker_line: &str,
    body: &str,
) -> Result<Posted, String> {
    let thread = which.thread();
    let Some(token) = &inputs.token else {
        return Err(format!(
            "no token: pass --token or set GITHUB_TOKEN (the action passes the job's token; it needs `permissions: {}`)",
            thread.write().text()
        ));
    };
    post::post(Request {
        api_url: &inputs.api_url,
        token: Some(token.clone()),
        timeout: inputs.timeout,
        repo,
        which,
        marker_line,
        author: &inputs.author,
        body,
    })
    .map_err(|e| why_not(&e, thread))
}

/// A failed post in words that say what to do.
fn why_not(err: &crate::github::ApiError, thread: Thread) -> String {
    use crate::github::ApiError;
    let hint = match err {
        ApiError::Forbidden { .. } if thread == Thread::Issue => "",
        ApiError::Forbidden { .. } => {
            " A pull request from a fork gets a read-only token in `pull_request` runs: comment from a `workflow_run` workflow (examples/workflows/benchmark-comment.yml)."
        }
        ApiError::NotFound { .. } if thread == Thread::Issue => {
            " The token may not see the repository or the issue."
        }
        ApiError::NotFound { .. } => " The token may not see the repository or the pull request.",
        _ => "",
    };
    let what = match thread {
        Thread::PullRequest => "verdict",
        Thread::Issue => "report",
    };
    format!(
        "the {what} was not posted on the {}: {err}.{hint}",
        thread.name()
    )
}

impl Forms for Outcome {
    fn json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    fn text(&self) -> LogText {
        let mut out = LogText::new();
        if let Some(body) = &self.body {
            for line in body.lines() {
                out.push_line(line);
            }
            return out;
        }
        match (&self.url, &self.warning) {
            (Some(url), _) => out.push_line(&format!(
                "comment {}: {url} ({} characters, {} rows left out, {} requests)",
                self.action, self.chars, self.rows_left_out, self.requests
            )),
            (None, Some(w)) => out.push_line(&format!("comment failed: {w}")),
            (None, None) => {}
        }
        out
    }

    fn actions(&self) -> Result<Rendered, EncodeError> {
        let some = |v: Option<u64>| v.map(|n| n.to_string()).unwrap_or_default();
        let outputs = file_command::encode_all([
            ("action", self.action.to_owned()),
            ("pr", some(self.pr)),
            ("issue", some(self.issue)),
            ("comment-id", some(self.comment_id)),
            ("comment-url", self.url.clone().unwrap_or_default()),
            ("rows-left-out", self.rows_left_out.to_string()),
        ])?;
        let mut stdout = LogText::new();
        if let Some(w) = &self.warning {
            stdout.push_command("warning", &[("title", "Benchmark comment not posted")], w);
        }
        let summary = match (&self.url, &self.warning) {
            (Some(url), _) => format!("Benchmark comment {}: {url}\n", self.action),
            (None, Some(w)) => format!(
                "Benchmark comment not posted: {}\n",
                runner::markdown::escape(w)
            ),
            (None, None) => String::new(),
        };
        Ok(Rendered {
            outputs,
            summary,
            stdout,
        })
    }
}
