//! Posting the body: which pull request (the event's, or for a fork's
//! `workflow_run` the open pull request with the run's head commit), every
//! page of its comments, then one write: the comment that starts with the
//! marker and was written by the token's identity is updated (or left as
//! it is when its body is already this one), otherwise one is created.
//! Requests: the pages of comments plus at most one write (plus the pull
//! request lookup of a fork's run).

use std::time::Duration;

use crate::github::event::{EventName, Payload};
use crate::github::pulls_of_run;
use crate::github::{Api, ApiError, Config, IssueComment, Thread};
use crate::validate::secret::Secret;
use crate::validate::{RepoName, Sha};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Created,
    Updated,
    /// The comment already says this: nothing written.
    Unchanged,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Updated => "updated",
            Action::Unchanged => "unchanged",
        }
    }
}

#[derive(Debug)]
pub struct Posted {
    pub action: Action,
    pub pr: u64,
    pub id: u64,
    pub requests: usize,
}

/// Which pull request (or issue), when the event says without asking the API.
#[derive(Debug, Clone)]
pub enum Which {
    Number(u64),
    /// `--issue N`: an issue, not a pull request.
    Issue(u64),
    /// A fork's `workflow_run`: the open pull request into `repo` whose
    /// head is `owner:branch` at `sha`.
    Head {
        owner: String,
        branch: String,
        sha: Sha,
    },
}

impl Which {
    pub fn thread(&self) -> Thread {
        match self {
            Which::Issue(_) => Thread::Issue,
            Which::Number(_) | Which::Head { .. } => Thread::PullRequest,
        }
    }
}

/// The pull request an event is about, as far as the payload says.
pub fn from_event(name: Option<&str>, payload: &Payload) -> Option<Which> {
    let name = EventName::parse(name?).ok()?;
    match name {
        EventName::PullRequest | EventName::PullRequestTarget => {
            payload.pull_request.as_ref()?.number.map(Which::Number)
        }
        EventName::IssueComment => {
            let issue = payload.issue.as_ref()?;
            issue.pull_request.as_ref()?;
            issue.number.map(Which::Number)
        }
        EventName::WorkflowRun => {
            let run = payload.workflow_run.as_ref()?;
            let repo_id = payload.repository.as_ref().and_then(|r| r.id);
            let own = run.pull_requests.iter().find(|p| {
                let base = p
                    .base
                    .as_ref()
                    .and_then(|b| b.repo.as_ref())
                    .and_then(|r| r.id);
                base.is_some() && base == repo_id
            });
            if let Some(number) = own.and_then(|p| p.number) {
                return Some(Which::Number(number));
            }
            let head = run.head_repository.as_ref()?.full_name.as_deref()?;
            let owner = RepoName::parse(head).ok()?.owner().to_owned();
            Some(Which::Head {
                owner,
                branch: run.head_branch.clone()?,
                sha: Sha::parse(run.head_sha.as_deref()?).ok()?,
            })
        }
        _ => None,
    }
}

pub struct Request<'a> {
    pub api_url: &'a str,
    pub token: Option<Secret>,
    pub timeout: Duration,
    pub repo: &'a RepoName,
    pub which: Which,
    pub marker_line: &'a str,
    pub author: &'a str,
    pub body: &'a str,
}

/// Posts on a runtime of its own, shut down before returning.
pub fn post(request: Request<'_>) -> Result<Posted, ApiError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ApiError::Invalid {
            what: "the async runtime".to_owned(),
            message: e.to_string(),
        })?;
    let entered = runtime.enter();
    let result = Api::new(Config {
        api_url: request.api_url.to_owned(),
        token: request.token.clone(),
        timeout: request.timeout,
    })
    .and_then(|api| {
        runtime.block_on(async {
            let posted = exchange(&api, &request).await;
            posted.map(|mut p| {
                p.requests = api.requests();
                p
            })
        })
    });
    drop(entered);
    runtime.shutdown_background();
    result
}

async fn pull_number(api: &Api, r: &Request<'_>) -> Result<u64, ApiError> {
    match &r.which {
        Which::Number(n) | Which::Issue(n) => Ok(*n),
        Which::Head { owner, branch, sha } => {
            let matching = pulls_of_run(api, r.repo, owner, branch, sha).await?;
            let open: Vec<u64> = matching
                .iter()
                .filter(|p| p.state.as_deref() == Some("open"))
                .map(|p| p.number)
                .collect();
            match open.as_slice() {
                [one] => Ok(*one),
                [] => Err(ApiError::NotFound {
                    what: format!("an open pull request with head {owner}:{branch} at {sha}"),
                    repo: r.repo.to_string(),
                }),
                several => Err(ApiError::Undecided {
                    what: format!(
                        "{} open pull requests have head {owner}:{branch} at {sha}: pass --pr",
                        several.len()
                    ),
                }),
            }
        }
    }
}

/// The comment this run owns: it starts with the marker and its author is
/// the token's identity (a stranger's comment holding the marker is not).
pub fn ours<'a>(
    comments: &'a [IssueComment],
    marker_line: &str,
    author: &str,
) -> Option<&'a IssueComment> {
    comments.iter().find(|c| {
        c.author().is_some_and(|a| a.eq_ignore_ascii_case(author))
            && c.body
                .as_deref()
                .is_some_and(|b| b.trim_start().starts_with(marker_line))
    })
}

async fn exchange(api: &Api, r: &Request<'_>) -> Result<Posted, ApiError> {
    let pr = pull_number(api, r).await?;
    let thread = r.which.thread();
    let comments = api.issue_comments(r.repo, thread, pr).await?;
    let posted = |action, id| Posted {
        action,
        pr,
        id,
        requests: 0,
    };
    match ours(&comments, r.marker_line, r.author) {
        Some(c) if c.body.as_deref() == Some(r.body) => Ok(posted(Action::Unchanged, c.id)),
        Some(c) => {
            let updated = api.update_comment(r.repo, thread, c.id, r.body).await?;
            Ok(posted(Action::Updated, updated.id))
        }
        None => {
            let created = api.create_comment(r.repo, thread, pr, r.body).await?;
            Ok(posted(Action::Created, created.id))
        }
    }
}
