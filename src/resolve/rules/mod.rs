//! The baseline rules: payload in, decision out, no I/O.
//!
//! This is the rules table of `docs/resolve.md` ("The rules") as code. For every event it decides the
//! canonical base repository (never the fork), the head side, and either the
//! base SHA itself (when the payload holds it), a [`Lookup`] that only the
//! network or a local clone can answer, or a skip with a reason. It never walks
//! back through older commits: there is exactly one baseline or none.
//!
//! Every choice appends a line to the decision trace, so a person reading the
//! job log can see which field decided what.

mod pull_request;
mod push;
mod repository;
mod workflow_run;

use std::fmt;

use thiserror::Error;

use crate::github::event::{EventName, Payload, Repository};
use crate::validate::{InvalidValue, RefName, RepoName, Sha};

/// Where the base SHA came from; printed as `base-source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseSource {
    Input,
    PrBase,
    PrMergeBase,
    PushBefore,
    PushMergeBase,
    BranchPoint,
    PreviousTag,
    MergeGroupBase,
    DefaultBranch,
    WorkflowRunPr,
    WorkflowRunParent,
}

impl BaseSource {
    pub fn name(self) -> &'static str {
        match self {
            BaseSource::Input => "input",
            BaseSource::PrBase => "pr-base",
            BaseSource::PrMergeBase => "pr-merge-base",
            BaseSource::PushBefore => "push-before",
            BaseSource::PushMergeBase => "push-merge-base",
            BaseSource::BranchPoint => "branch-point",
            BaseSource::PreviousTag => "previous-tag",
            BaseSource::MergeGroupBase => "merge-group-base",
            BaseSource::DefaultBranch => "default-branch",
            BaseSource::WorkflowRunPr => "workflow-run-pr",
            BaseSource::WorkflowRunParent => "workflow-run-parent",
        }
    }
}

impl fmt::Display for BaseSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why there is nothing to benchmark; shown as a stable token for scripts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// A push that deleted its ref.
    RefDeleted,
    /// A push of a ref that is neither a branch nor a tag.
    UnsupportedRef,
    /// A comment on an issue that is not a pull request.
    IssueCommentNotOnPullRequest,
    /// An event without a rule.
    UnsupportedEvent(String),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::RefDeleted => f.write_str("ref-deleted"),
            SkipReason::UnsupportedRef => f.write_str("unsupported-ref"),
            SkipReason::IssueCommentNotOnPullRequest => {
                f.write_str("issue-comment-not-on-pull-request")
            }
            SkipReason::UnsupportedEvent(name) => write!(f, "unsupported-event:{name}"),
        }
    }
}

/// One side of a merge-base question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Commitish {
    Sha(Sha),
    /// The tip of a branch of the base repo; `None` is its default branch,
    /// whose name the payload did not say.
    BranchTip(Option<RefName>),
}

impl fmt::Display for Commitish {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Commitish::Sha(sha) => write!(f, "{sha}"),
            Commitish::BranchTip(Some(branch)) => write!(f, "the tip of {branch}"),
            Commitish::BranchTip(None) => f.write_str("the tip of the default branch"),
        }
    }
}

/// A question the payload cannot answer; the online resolver asks the API
/// (or git) exactly this, once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// Resolve a branch or tag of the base repo to the commit it names now.
    /// `None` is the default branch.
    Ref(Option<RefName>),
    MergeBase {
        base: Commitish,
        head: Sha,
    },
    /// The release tag before `current` (which is excluded), peeled.
    PreviousTag {
        current: String,
    },
    /// The base SHA of the base repo's pull request whose head is `head_sha`
    /// (a `workflow_run` of a fork pull request carries no `pull_requests[]`);
    /// the API finds it by the head's `owner:branch`.
    PullRequestForHead {
        head_sha: Sha,
        head_owner: Option<String>,
        head_branch: Option<String>,
        /// Decides between several open pull requests with this head.
        default_branch: Option<RefName>,
    },
    /// The first parent of `commit`: what the branch held before it (a
    /// `workflow_run` of a push, schedule or dispatch run).
    FirstParent {
        commit: Sha,
    },
    /// The base SHA of pull request `number` (an `issue_comment` carries only
    /// the number).
    PullRequestBase {
        number: u64,
    },
}

impl Lookup {
    /// What is missing, in the words of the warning shown when it stays
    /// unanswered.
    pub fn describe(&self) -> String {
        match self {
            Lookup::Ref(Some(name)) => format!("the commit that {name} points at"),
            Lookup::Ref(None) => "the commit at the tip of the default branch".to_owned(),
            Lookup::MergeBase { base, head } => format!("the merge-base of {base} and {head}"),
            Lookup::PreviousTag { current } => {
                format!("the release tag before {current}, peeled to its commit")
            }
            Lookup::PullRequestForHead { head_sha, .. } => {
                format!("the base SHA of the pull request whose head is {head_sha}")
            }
            Lookup::PullRequestBase { number } => {
                format!("the base SHA of pull request #{number}")
            }
            Lookup::FirstParent { commit } => format!("the first parent of {commit}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// The payload (or an input) names the commit.
    Known {
        sha: Sha,
        source: BaseSource,
        /// The field or flag it was read from, e.g. `pull_request.base.sha`.
        origin: String,
    },
    /// Only the network or a local clone can name the commit.
    Lookup { source: BaseSource, lookup: Lookup },
    /// Nothing to benchmark.
    Skip { reason: SkipReason },
    /// Something to benchmark, but the payload itself rules out a baseline
    /// (an ambiguous choice that is not guessed): unavailable, with `reason`
    /// as the warning.
    Unavailable { source: BaseSource, reason: String },
}

/// The head side: what is being compared against the baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// `None` when the fork was deleted (`pull_request.head.repo` is null) or
    /// the payload does not say.
    pub repo: Option<RepoName>,
    pub sha: Option<Sha>,
    pub is_fork: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub event_name: EventName,
    pub base_repo: RepoName,
    /// Short branch name the baseline belongs to; `None` only when neither the
    /// payload nor an input names one (the API then knows the default branch).
    pub base_ref: Option<RefName>,
    pub head: Head,
    pub baseline: Baseline,
    pub trace: Vec<String>,
    /// What the payload alone makes worth a warning (an ambiguous choice).
    pub warnings: Vec<String>,
}

/// What the workflow asked for, besides the payload.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub base_sha: Option<Sha>,
    pub base_ref: Option<RefName>,
    /// `mode: merge-base` for pull requests.
    pub merge_base: bool,
    /// `GITHUB_REPOSITORY`, for payloads without a `repository` (schedule).
    pub repository: Option<RepoName>,
    /// `GITHUB_SHA`, the head for events whose payload names no head commit.
    pub github_sha: Option<Sha>,
}

/// A payload that does not hold what its event promises.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PayloadError {
    #[error("field `{0}` is missing or null")]
    Missing(&'static str),
    #[error("field `{field}` {problem}")]
    Invalid {
        field: String,
        problem: InvalidValue,
    },
    #[error("event name `{event}` does not match the payload: {why}")]
    Mismatch { event: String, why: String },
    #[error(
        "no repository: the payload has no `repository.full_name` and GITHUB_REPOSITORY is not set"
    )]
    NoRepository,
}

fn required<'a, T>(value: Option<&'a T>, field: &'static str) -> Result<&'a T, PayloadError> {
    value.ok_or(PayloadError::Missing(field))
}

fn sha_field(value: &str, field: &str) -> Result<Sha, PayloadError> {
    Sha::parse(value).map_err(|problem| PayloadError::Invalid {
        field: field.to_owned(),
        problem,
    })
}

fn repo_field(value: &str, field: &str) -> Result<RepoName, PayloadError> {
    RepoName::parse(value).map_err(|problem| PayloadError::Invalid {
        field: field.to_owned(),
        problem,
    })
}

fn ref_field(value: &str, field: &str) -> Result<RefName, PayloadError> {
    RefName::parse(value).map_err(|problem| PayloadError::Invalid {
        field: field.to_owned(),
        problem,
    })
}

/// The decision trace and the warnings, collected as the rules read.
struct Notes {
    trace: Vec<String>,
    warnings: Vec<String>,
}

impl Notes {
    fn note(&mut self, line: impl Into<String>) {
        self.trace.push(line.into());
    }

    fn warn(&mut self, line: String) {
        self.warnings.push(line);
    }
}

/// Decides the baseline for one event. Pure: the same payload and settings
/// always give the same decision.
pub fn decide(
    event_name: &EventName,
    payload: &Payload,
    settings: &Settings,
) -> Result<Decision, PayloadError> {
    check_shape(event_name, payload)?;
    let mut b = Notes {
        trace: Vec::new(),
        warnings: Vec::new(),
    };
    b.note(format!("event: {event_name}"));
    let outcome = match event_name {
        EventName::PullRequest | EventName::PullRequestTarget => {
            pull_request::pull_request(event_name, payload, settings, &mut b)?
        }
        EventName::Push => push::push(payload, settings, &mut b)?,
        EventName::MergeGroup => repository::merge_group(payload, settings, &mut b)?,
        EventName::WorkflowDispatch | EventName::Schedule | EventName::RepositoryDispatch => {
            repository::default_branch(payload, settings, &mut b)?
        }
        EventName::WorkflowRun => workflow_run::workflow_run(payload, &mut b)?,
        EventName::Release => repository::release(payload, settings, &mut b)?,
        EventName::IssueComment => pull_request::issue_comment(payload, settings, &mut b)?,
        EventName::Other(name) => repository::unsupported(name, payload, settings, &mut b)?,
    };
    let mut decision = Decision {
        event_name: event_name.clone(),
        base_repo: outcome.base_repo,
        base_ref: outcome.base_ref,
        head: outcome.head,
        baseline: outcome.baseline,
        trace: b.trace,
        warnings: b.warnings,
    };
    apply_overrides(&mut decision, settings);
    Ok(decision)
}

/// Refuses an event name that contradicts the payload, e.g. `push` with a
/// `pull_request` object, or `pull_request` without one: answering either would
/// be answering a question nobody asked.
fn check_shape(event: &EventName, payload: &Payload) -> Result<(), PayloadError> {
    let mismatch = |why: &str| {
        Err(PayloadError::Mismatch {
            event: event.to_string(),
            why: why.to_owned(),
        })
    };
    let is_pr = matches!(event, EventName::PullRequest | EventName::PullRequestTarget);
    if is_pr && payload.pull_request.is_none() {
        return mismatch("it has no `pull_request` object");
    }
    let known = !matches!(event, EventName::Other(_));
    if known && !is_pr && payload.pull_request.is_some() {
        return mismatch("it has a `pull_request` object, as a pull_request event would");
    }
    match event {
        EventName::Push if payload.git_ref.is_none() || payload.after.is_none() => {
            mismatch("a push payload has `ref`, `before` and `after`")
        }
        EventName::MergeGroup if payload.merge_group.is_none() => {
            mismatch("it has no `merge_group` object")
        }
        EventName::WorkflowRun if payload.workflow_run.is_none() => {
            mismatch("it has no `workflow_run` object")
        }
        EventName::Release if payload.release.is_none() => mismatch("it has no `release` object"),
        EventName::IssueComment if payload.issue.is_none() => mismatch("it has no `issue` object"),
        _ => Ok(()),
    }
}

/// What one event's rule decided, before the overrides.
struct Outcome {
    base_repo: RepoName,
    base_ref: Option<RefName>,
    head: Head,
    baseline: Baseline,
}

/// The repository of the event itself, for events that are not pull requests.
fn own_repo(
    repository: Option<&Repository>,
    field: &'static str,
    settings: &Settings,
) -> Result<RepoName, PayloadError> {
    match repository.and_then(|r| r.full_name.as_deref()) {
        Some(name) => repo_field(name, field),
        None => settings
            .repository
            .clone()
            .ok_or(PayloadError::NoRepository),
    }
}

fn default_branch_of(
    repository: Option<&Repository>,
    field: &'static str,
) -> Result<Option<RefName>, PayloadError> {
    match repository.and_then(Repository::default_branch) {
        Some(name) => Ok(Some(ref_field(name, field)?)),
        None => Ok(None),
    }
}

/// The repository an event is about, its default branch, and the head.
struct RepositorySide {
    repo: RepoName,
    base_ref: Option<RefName>,
    head: Head,
}

impl RepositorySide {
    fn decided(self, baseline: Baseline) -> Outcome {
        Outcome {
            base_repo: self.repo,
            base_ref: self.base_ref,
            head: self.head,
            baseline,
        }
    }
}

/// Base repo, default branch and head for events about the repository itself.
fn repository_side(
    payload: &Payload,
    settings: &Settings,
    b: &mut Notes,
) -> Result<RepositorySide, PayloadError> {
    let repository = payload.repository.as_ref();
    let repo = own_repo(repository, "repository.full_name", settings)?;
    if repository.is_some_and(|r| r.full_name.is_some()) {
        b.note(format!("base repo: {repo} (repository.full_name)"));
    } else {
        b.note(format!(
            "base repo: {repo} (GITHUB_REPOSITORY; the payload names none)"
        ));
    }
    let base_ref = default_branch_of(repository, "repository.default_branch")?;
    let head = Head {
        repo: Some(repo.clone()),
        sha: settings.github_sha.clone(),
        is_fork: false,
    };
    Ok(RepositorySide {
        repo,
        base_ref,
        head,
    })
}

/// `base-sha` and `base-ref` inputs win over every rule.
fn apply_overrides(decision: &mut Decision, settings: &Settings) {
    let previous = match &decision.baseline {
        Baseline::Known { source, .. }
        | Baseline::Lookup { source, .. }
        | Baseline::Unavailable { source, .. } => source.to_string(),
        Baseline::Skip { reason } => reason.to_string(),
    };
    if let Some(sha) = &settings.base_sha {
        decision.trace.push(format!(
            "input base-sha {sha} overrides the `{previous}` rule"
        ));
        decision.baseline = Baseline::Known {
            sha: sha.clone(),
            source: BaseSource::Input,
            origin: "base-sha input".to_owned(),
        };
    } else if let Some(name) = &settings.base_ref {
        decision.trace.push(format!(
            "input base-ref {name} overrides the `{previous}` rule"
        ));
        decision.base_ref = RefName::parse(name.short()).ok();
        decision.baseline = Baseline::Lookup {
            source: BaseSource::Input,
            lookup: Lookup::Ref(Some(name.clone())),
        };
    }
}
