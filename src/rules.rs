//! The baseline rules: payload in, decision out, no I/O.
//!
//! This is `baseline-rules.md` as code. For every event it decides the
//! canonical base repository (never the fork), the head side, and either the
//! base SHA itself (when the payload holds it), a [`Lookup`] that only the
//! network or a local clone can answer, or a skip with a reason. It never walks
//! back through older commits: there is exactly one baseline or none.
//!
//! Every choice appends a line to the decision trace, so a person reading the
//! job log can see which field decided what.

use std::fmt;

use thiserror::Error;

use crate::event::{EventName, Payload, Repository};
use crate::validate::{InvalidValue, RefName, RepoName, Sha};

/// Where the base SHA came from; printed as `base-source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
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

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Input => "input",
            Source::PrBase => "pr-base",
            Source::PrMergeBase => "pr-merge-base",
            Source::PushBefore => "push-before",
            Source::PushMergeBase => "push-merge-base",
            Source::BranchPoint => "branch-point",
            Source::PreviousTag => "previous-tag",
            Source::MergeGroupBase => "merge-group-base",
            Source::DefaultBranch => "default-branch",
            Source::WorkflowRunPr => "workflow-run-pr",
            Source::WorkflowRunParent => "workflow-run-parent",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
        source: Source,
        /// The field or flag it was read from, e.g. `pull_request.base.sha`.
        origin: String,
    },
    /// Only the network or a local clone can name the commit.
    Lookup { source: Source, lookup: Lookup },
    /// Nothing to benchmark. `reason` is a stable token for scripts.
    Skip { reason: String },
    /// Something to benchmark, but the payload itself rules out a baseline
    /// (an ambiguous choice that is not guessed): unavailable, with `reason`
    /// as the warning.
    Unavailable { source: Source, reason: String },
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

/// Collects the decision trace and the warnings.
struct Builder {
    trace: Vec<String>,
    warnings: Vec<String>,
}

impl Builder {
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
    let mut b = Builder {
        trace: Vec::new(),
        warnings: Vec::new(),
    };
    b.note(format!("event: {event_name}"));
    let (base_repo, base_ref, head, baseline) = match event_name {
        EventName::PullRequest | EventName::PullRequestTarget => {
            pull_request(event_name, payload, settings, &mut b)?
        }
        EventName::Push => push(payload, settings, &mut b)?,
        EventName::MergeGroup => merge_group(payload, settings, &mut b)?,
        EventName::WorkflowDispatch | EventName::Schedule | EventName::RepositoryDispatch => {
            default_branch(payload, settings, &mut b)?
        }
        EventName::WorkflowRun => workflow_run(payload, &mut b)?,
        EventName::Release => release(payload, settings, &mut b)?,
        EventName::IssueComment => issue_comment(payload, settings, &mut b)?,
        EventName::Other(name) => {
            let (repo, base_ref, head) = repository_side(payload, settings, &mut b)?;
            b.note(format!("no baseline rule for the `{name}` event"));
            let reason = format!("unsupported-event:{name}");
            (repo, base_ref, head, Baseline::Skip { reason })
        }
    };
    let mut decision = Decision {
        event_name: event_name.clone(),
        base_repo,
        base_ref,
        head,
        baseline,
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

type Parts = (RepoName, Option<RefName>, Head, Baseline);

fn pull_request(
    event: &EventName,
    payload: &Payload,
    settings: &Settings,
    b: &mut Builder,
) -> Result<Parts, PayloadError> {
    let pr = required(payload.pull_request.as_ref(), "pull_request")?;
    let base = required(pr.base.as_ref(), "pull_request.base")?;
    let base_repo = required(base.repo.as_ref(), "pull_request.base.repo")?;
    let base_repo = repo_field(
        required(
            base_repo.full_name.as_ref(),
            "pull_request.base.repo.full_name",
        )?,
        "pull_request.base.repo.full_name",
    )?;
    let base_sha = sha_field(
        required(base.sha.as_ref(), "pull_request.base.sha")?,
        "pull_request.base.sha",
    )?;
    let base_ref = match base.git_ref.as_deref() {
        Some(name) => Some(ref_field(name, "pull_request.base.ref")?),
        None => None,
    };
    let head = required(pr.head.as_ref(), "pull_request.head")?;
    let head_sha = sha_field(
        required(head.sha.as_ref(), "pull_request.head.sha")?,
        "pull_request.head.sha",
    )?;
    let head_repo = match &head.repo {
        Some(repo) => Some(repo_field(
            required(repo.full_name.as_ref(), "pull_request.head.repo.full_name")?,
            "pull_request.head.repo.full_name",
        )?),
        None => None,
    };
    b.note(format!(
        "base repo: {base_repo} (pull_request.base.repo.full_name)"
    ));
    match &head_repo {
        Some(repo) if !repo.same_repo(&base_repo) => b.note(format!(
            "head repo: {repo} is a fork; the baseline comes from {base_repo}, never the fork"
        )),
        Some(repo) => b.note(format!("head repo: {repo} (same repository)")),
        None => b.note(
            "head repo: none (pull_request.head.repo is null: the fork was deleted); treated as a fork",
        ),
    }
    if *event == EventName::PullRequestTarget {
        b.note(
            "pull_request_target: GITHUB_SHA is the default branch, so the payload is read instead",
        );
    }
    let is_fork = head_repo
        .as_ref()
        .is_none_or(|repo| !repo.same_repo(&base_repo));
    let head = Head {
        repo: head_repo,
        sha: Some(head_sha.clone()),
        is_fork,
    };
    let baseline = if settings.merge_base {
        b.note(format!(
            "mode merge-base: the merge-base of pull_request.base.sha {base_sha} and pull_request.head.sha {head_sha}"
        ));
        Baseline::Lookup {
            source: Source::PrMergeBase,
            lookup: Lookup::MergeBase {
                base: Commitish::Sha(base_sha),
                head: head_sha,
            },
        }
    } else {
        Baseline::Known {
            sha: base_sha,
            source: Source::PrBase,
            origin: "pull_request.base.sha".to_owned(),
        }
    };
    Ok((base_repo, base_ref, head, baseline))
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

/// Base repo, default branch and head for events about the repository itself.
fn repository_side(
    payload: &Payload,
    settings: &Settings,
    b: &mut Builder,
) -> Result<(RepoName, Option<RefName>, Head), PayloadError> {
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
    Ok((repo, base_ref, head))
}

fn push(payload: &Payload, settings: &Settings, b: &mut Builder) -> Result<Parts, PayloadError> {
    let repository = payload.repository.as_ref();
    let repo = own_repo(repository, "repository.full_name", settings)?;
    b.note(format!("base repo: {repo} (repository.full_name)"));
    let git_ref = ref_field(required(payload.git_ref.as_ref(), "ref")?, "ref")?;
    let before = required(payload.before.as_ref(), "before")?;
    let after = required(payload.after.as_ref(), "after")?;
    let default_branch = default_branch_of(repository, "repository.default_branch")?;
    let branch = match git_ref.branch() {
        Some(name) => Some(ref_field(name, "ref")?),
        None => None,
    };
    let base_ref = branch.clone().or_else(|| default_branch.clone());
    let mut head = Head {
        repo: Some(repo.clone()),
        sha: None,
        is_fork: false,
    };

    if payload.deleted == Some(true) || (Sha::is_zero(after) && !Sha::is_zero(before)) {
        b.note(format!("push deleted {git_ref}: nothing to benchmark"));
        let reason = "ref-deleted".to_owned();
        return Ok((repo, base_ref, head, Baseline::Skip { reason }));
    }
    let after = sha_field(after, "after")?;
    head.sha = Some(after.clone());

    if let Some(tag) = git_ref.tag() {
        b.note(format!(
            "push of tag {tag}: the baseline is the previous release tag of {repo}"
        ));
        let lookup = Lookup::PreviousTag {
            current: tag.to_owned(),
        };
        let source = Source::PreviousTag;
        return Ok((
            repo,
            default_branch,
            head,
            Baseline::Lookup { source, lookup },
        ));
    }
    if branch.is_none() {
        b.note(format!(
            "push of {git_ref}, which is neither a branch nor a tag"
        ));
        let reason = "unsupported-ref".to_owned();
        return Ok((repo, base_ref, head, Baseline::Skip { reason }));
    }

    if Sha::is_zero(before) || payload.created == Some(true) {
        b.note(format!(
            "push created {git_ref} (before is the zero SHA): the baseline is where it branched from the default branch; the zero SHA is never fetched"
        ));
        let lookup = Lookup::MergeBase {
            base: Commitish::BranchTip(default_branch.clone()),
            head: after,
        };
        let source = Source::BranchPoint;
        return Ok((repo, base_ref, head, Baseline::Lookup { source, lookup }));
    }
    let before = sha_field(before, "before")?;
    if payload.forced == Some(true) {
        b.note(format!(
            "forced push to {git_ref}: `before` {before} may not be an ancestor of `after`, so the baseline is their merge-base"
        ));
        let lookup = Lookup::MergeBase {
            base: Commitish::Sha(before),
            head: after,
        };
        let source = Source::PushMergeBase;
        return Ok((repo, base_ref, head, Baseline::Lookup { source, lookup }));
    }
    b.note(format!(
        "fast-forward push to {git_ref}: the baseline is the previous tip"
    ));
    let baseline = Baseline::Known {
        sha: before,
        source: Source::PushBefore,
        origin: "before".to_owned(),
    };
    Ok((repo, base_ref, head, baseline))
}

fn merge_group(
    payload: &Payload,
    settings: &Settings,
    b: &mut Builder,
) -> Result<Parts, PayloadError> {
    let (repo, default_branch, mut head) = repository_side(payload, settings, b)?;
    let group = required(payload.merge_group.as_ref(), "merge_group")?;
    let sha = sha_field(
        required(group.base_sha.as_ref(), "merge_group.base_sha")?,
        "merge_group.base_sha",
    )?;
    if let Some(head_sha) = &group.head_sha {
        head.sha = Some(sha_field(head_sha, "merge_group.head_sha")?);
    }
    let base_ref = match group.base_ref.as_deref() {
        Some(name) => {
            let full = ref_field(name, "merge_group.base_ref")?;
            Some(ref_field(full.short(), "merge_group.base_ref")?)
        }
        None => default_branch,
    };
    b.note("merge queue: the baseline is the queue's base commit");
    let baseline = Baseline::Known {
        sha,
        source: Source::MergeGroupBase,
        origin: "merge_group.base_sha".to_owned(),
    };
    Ok((repo, base_ref, head, baseline))
}

fn default_branch(
    payload: &Payload,
    settings: &Settings,
    b: &mut Builder,
) -> Result<Parts, PayloadError> {
    let (repo, base_ref, head) = repository_side(payload, settings, b)?;
    match &base_ref {
        Some(branch) => b.note(format!(
            "no base commit in the payload: the baseline is the tip of the default branch {branch}, resolved once"
        )),
        None => b.note(
            "no base commit in the payload: the baseline is the tip of the default branch, resolved once",
        ),
    }
    let lookup = Lookup::Ref(base_ref.clone());
    let source = Source::DefaultBranch;
    Ok((repo, base_ref, head, Baseline::Lookup { source, lookup }))
}

fn workflow_run(payload: &Payload, b: &mut Builder) -> Result<Parts, PayloadError> {
    let run = required(payload.workflow_run.as_ref(), "workflow_run")?;
    let run_repo = required(run.repository.as_ref(), "workflow_run.repository")?;
    let repo = repo_field(
        required(
            run_repo.full_name.as_ref(),
            "workflow_run.repository.full_name",
        )?,
        "workflow_run.repository.full_name",
    )?;
    b.note(format!(
        "base repo: {repo} (workflow_run.repository.full_name)"
    ));
    let head_sha = sha_field(
        required(run.head_sha.as_ref(), "workflow_run.head_sha")?,
        "workflow_run.head_sha",
    )?;
    let head_repo = match run
        .head_repository
        .as_ref()
        .and_then(|r| r.full_name.as_deref())
    {
        Some(name) => Some(repo_field(name, "workflow_run.head_repository.full_name")?),
        None => None,
    };
    let is_fork = match (&run.head_repository, &head_repo) {
        (Some(h), _) if h.id.is_some() && run_repo.id.is_some() => h.id != run_repo.id,
        (_, Some(name)) => !name.same_repo(&repo),
        _ => true,
    };
    // The run's repository object is a short one; the event's own
    // `repository` usually carries the default branch.
    let default_branch =
        match default_branch_of(Some(run_repo), "workflow_run.repository.default_branch")? {
            Some(branch) => Some(branch),
            None => default_branch_of(payload.repository.as_ref(), "repository.default_branch")?,
        };
    let head = Head {
        repo: head_repo,
        sha: Some(head_sha.clone()),
        is_fork,
    };

    let triggered_by = run.event.as_deref().unwrap_or("pull_request");
    if !triggered_by.starts_with("pull_request") {
        // A push, schedule, dispatch or merge-queue run: no pull request, so
        // the baseline is what the branch held before this commit. Skipping
        // it would leave main's own runs (whose artifacts pull requests
        // reuse) silently uncompared.
        let base_ref = match run.head_branch.as_deref() {
            Some(name) => Some(ref_field(name, "workflow_run.head_branch")?),
            None => default_branch,
        };
        b.note(format!(
            "workflow_run of a `{}` run: no pull request; the baseline is the first parent of workflow_run.head_sha {head_sha}",
            crate::validate::shown(triggered_by)
        ));
        let lookup = Lookup::FirstParent { commit: head_sha };
        let source = Source::WorkflowRunParent;
        return Ok((repo, base_ref, head, Baseline::Lookup { source, lookup }));
    }

    // Only an entry whose base is this repository and whose head is this run's
    // commit describes this run: the list can hold pull requests of other
    // repositories that happen to share the branch.
    let mut matching = Vec::new();
    for (i, entry) in run.pull_requests.iter().enumerate() {
        let base = entry.base.as_ref();
        let base_id = base.and_then(|s| s.repo.as_ref()).and_then(|r| r.id);
        let entry_head = entry.head.as_ref().and_then(|s| s.sha.as_deref());
        let head_matches =
            entry_head.is_some_and(|sha| sha.eq_ignore_ascii_case(head_sha.as_str()));
        let number = entry.number.unwrap_or_default();
        if base_id.is_none() || base_id != run_repo.id || !head_matches {
            b.note(format!(
                "workflow_run.pull_requests[{i}] (#{number}) is not this run's pull request into {repo}"
            ));
            continue;
        }
        let base = base.ok_or(PayloadError::Missing("workflow_run.pull_requests[].base"))?;
        let field = format!("workflow_run.pull_requests[{i}].base.sha");
        let sha = sha_field(
            base.sha.as_deref().ok_or(PayloadError::Missing(
                "workflow_run.pull_requests[].base.sha",
            ))?,
            &field,
        )?;
        let base_ref = match base.git_ref.as_deref() {
            Some(name) => Some(ref_field(name, "workflow_run.pull_requests[].base.ref")?),
            None => None,
        };
        matching.push((i, number, sha, base_ref, field));
    }
    if !matching.is_empty() {
        return Ok(choose_run_pull_request(
            repo,
            default_branch,
            head,
            matching,
            b,
        ));
    }
    b.note(format!(
        "workflow_run.pull_requests[] holds no pull request into {repo} with head {head_sha} (it is empty for fork pull requests)"
    ));
    let lookup = Lookup::PullRequestForHead {
        head_owner: head.repo.as_ref().map(|r| r.owner().to_owned()),
        head_branch: run.head_branch.clone(),
        head_sha,
        default_branch: default_branch.clone(),
    };
    let source = Source::WorkflowRunPr;
    Ok((
        repo,
        default_branch,
        head,
        Baseline::Lookup { source, lookup },
    ))
}

/// An entry of `workflow_run.pull_requests[]` that is this run's: its
/// index, number, base SHA, base branch and field path.
type RunEntry = (usize, u64, Sha, Option<RefName>, String);

/// The baseline from this run's entries of `workflow_run.pull_requests[]`:
/// the only one, or, when the same head is in several pull requests, the
/// one into the default branch (with a warning that names them all). When
/// none of several is into the default branch, no baseline is guessed.
fn choose_run_pull_request(
    repo: RepoName,
    default_branch: Option<RefName>,
    head: Head,
    matching: Vec<RunEntry>,
    b: &mut Builder,
) -> Parts {
    let count = matching.len();
    let names = matching
        .iter()
        .map(|(_, n, _, r, _)| format!("#{n} into {}", r.as_ref().map_or("?", RefName::as_str)))
        .collect::<Vec<_>>()
        .join(", ");
    let into_default = |entry: &RunEntry| {
        entry.3.is_some()
            && entry.3.as_ref().map(RefName::as_str) == default_branch.as_ref().map(RefName::as_str)
    };
    let chosen = if count == 1 {
        matching.into_iter().next()
    } else {
        matching.into_iter().find(into_default)
    };
    let Some((i, number, sha, base_ref, field)) = chosen else {
        let default = default_branch
            .as_ref()
            .map_or_else(String::new, |d| format!(" ({d})"));
        let reason = format!(
            "baseline unavailable for {repo}: this run's head is in {count} pull requests ({names}) and none is into the default branch{default}; no baseline is guessed"
        );
        b.note(reason.clone());
        let source = Source::WorkflowRunPr;
        return (
            repo,
            default_branch,
            head,
            Baseline::Unavailable { source, reason },
        );
    };
    if count > 1 {
        b.warn(format!(
            "this run's head is in {count} pull requests of {repo} ({names}); #{number}, into the default branch, is the baseline"
        ));
    }
    b.note(format!(
        "workflow_run.pull_requests[{i}] (#{number}) is this run's pull request"
    ));
    let baseline = Baseline::Known {
        sha,
        source: Source::WorkflowRunPr,
        origin: field,
    };
    (repo, base_ref.or(default_branch), head, baseline)
}

fn release(payload: &Payload, settings: &Settings, b: &mut Builder) -> Result<Parts, PayloadError> {
    let (repo, base_ref, head) = repository_side(payload, settings, b)?;
    let release = required(payload.release.as_ref(), "release")?;
    let tag = required(release.tag_name.as_ref(), "release.tag_name")?;
    let tag = ref_field(tag, "release.tag_name")?;
    b.note(format!(
        "release {tag}: the baseline is the previous release tag of {repo}"
    ));
    let lookup = Lookup::PreviousTag {
        current: tag.as_str().to_owned(),
    };
    let source = Source::PreviousTag;
    Ok((repo, base_ref, head, Baseline::Lookup { source, lookup }))
}

fn issue_comment(
    payload: &Payload,
    settings: &Settings,
    b: &mut Builder,
) -> Result<Parts, PayloadError> {
    let (repo, base_ref, mut head) = repository_side(payload, settings, b)?;
    let issue = required(payload.issue.as_ref(), "issue")?;
    if issue.pull_request.is_none() {
        b.note("comment on an issue that is not a pull request (issue.pull_request is absent)");
        let reason = "issue-comment-not-on-pull-request".to_owned();
        return Ok((repo, base_ref, head, Baseline::Skip { reason }));
    }
    let number = *required(issue.number.as_ref(), "issue.number")?;
    // GITHUB_SHA is the default branch for issue_comment; the head is the
    // pull request's, which only the API knows.
    head.repo = None;
    head.sha = None;
    b.note(format!(
        "comment on pull request #{number}: its base SHA is not in the payload"
    ));
    let lookup = Lookup::PullRequestBase { number };
    let source = Source::PrBase;
    Ok((repo, base_ref, head, Baseline::Lookup { source, lookup }))
}

/// `base-sha` and `base-ref` inputs win over every rule.
fn apply_overrides(decision: &mut Decision, settings: &Settings) {
    let previous = match &decision.baseline {
        Baseline::Known { source, .. }
        | Baseline::Lookup { source, .. }
        | Baseline::Unavailable { source, .. } => source.as_str(),
        Baseline::Skip { reason } => reason.as_str(),
    }
    .to_owned();
    if let Some(sha) = &settings.base_sha {
        decision.trace.push(format!(
            "input base-sha {sha} overrides the `{previous}` rule"
        ));
        decision.baseline = Baseline::Known {
            sha: sha.clone(),
            source: Source::Input,
            origin: "base-sha input".to_owned(),
        };
    } else if let Some(name) = &settings.base_ref {
        decision.trace.push(format!(
            "input base-ref {name} overrides the `{previous}` rule"
        ));
        decision.base_ref = RefName::parse(name.short()).ok();
        decision.baseline = Baseline::Lookup {
            source: Source::Input,
            lookup: Lookup::Ref(Some(name.clone())),
        };
    }
}
