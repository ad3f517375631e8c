//! `workflow_run`: the run of another workflow finished. A pull request run
//! is compared with its pull request's base (found in
//! `workflow_run.pull_requests[]`, or by API for a fork, whose list is
//! empty); any other run (push, schedule, dispatch, merge queue) with the
//! first parent of its head, so main's own runs are compared too, never
//! silently skipped.

use super::{
    BaseSource, Baseline, Head, Lookup, Notes, Outcome, PayloadError, default_branch_of, ref_field,
    repo_field, required, sha_field,
};
use crate::github::event::{Payload, Repository, WorkflowRun};
use crate::runner::shown;
use crate::validate::{RefName, RepoName, Sha};

/// An entry of `workflow_run.pull_requests[]` that is this run's.
struct RunEntry {
    index: usize,
    number: u64,
    sha: Sha,
    base_ref: Option<RefName>,
}

pub(super) fn workflow_run(payload: &Payload, b: &mut Notes) -> Result<Outcome, PayloadError> {
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
    let (head, head_sha) = run_head(run, run_repo, &repo)?;
    // The run's repository object is a short one; the event's own
    // `repository` usually carries the default branch.
    let default_branch =
        match default_branch_of(Some(run_repo), "workflow_run.repository.default_branch")? {
            Some(branch) => Some(branch),
            None => default_branch_of(payload.repository.as_ref(), "repository.default_branch")?,
        };
    // A pull request run whose entry is not in the payload (a fork's list
    // is empty) is found by API; the other cases replace this below.
    let by_api = Baseline::Lookup {
        source: BaseSource::WorkflowRunPr,
        lookup: Lookup::PullRequestForHead {
            head_owner: head.repo.as_ref().map(|r| r.owner().to_owned()),
            head_branch: run.head_branch.clone(),
            head_sha: head_sha.clone(),
            default_branch: default_branch.clone(),
        },
    };
    let mut outcome = Outcome {
        base_repo: repo,
        base_ref: default_branch,
        head,
        baseline: by_api,
    };
    let triggered_by = run.event.as_deref().unwrap_or("pull_request");
    if !triggered_by.starts_with("pull_request") {
        return first_parent(run, triggered_by, head_sha, outcome, b);
    }
    let matching = entries_of_this_run(run, run_repo, &outcome.base_repo, &head_sha, b)?;
    if !matching.is_empty() {
        choose_entry(&mut outcome, matching, b);
        return Ok(outcome);
    }
    b.note(format!(
        "workflow_run.pull_requests[] holds no pull request into {} with head {head_sha} (it is empty for fork pull requests)",
        outcome.base_repo
    ));
    Ok(outcome)
}

/// The head side of a run: its repository (a fork when its id differs from
/// the run's repository) and commit.
fn run_head(
    run: &WorkflowRun,
    run_repo: &Repository,
    repo: &RepoName,
) -> Result<(Head, Sha), PayloadError> {
    let sha = sha_field(
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
        (_, Some(name)) => !name.same_repo(repo),
        _ => true,
    };
    let head = Head {
        repo: head_repo,
        sha: Some(sha.clone()),
        is_fork,
    };
    Ok((head, sha))
}

/// A run that is no pull request's: the first parent of its head, on the
/// run's branch.
fn first_parent(
    run: &WorkflowRun,
    triggered_by: &str,
    head_sha: Sha,
    mut outcome: Outcome,
    b: &mut Notes,
) -> Result<Outcome, PayloadError> {
    if let Some(name) = run.head_branch.as_deref() {
        outcome.base_ref = Some(ref_field(name, "workflow_run.head_branch")?);
    }
    b.note(format!(
        "workflow_run of a `{}` run: no pull request; the baseline is the first parent of workflow_run.head_sha {head_sha}",
        shown(triggered_by)
    ));
    outcome.baseline = Baseline::Lookup {
        source: BaseSource::WorkflowRunParent,
        lookup: Lookup::FirstParent { commit: head_sha },
    };
    Ok(outcome)
}

/// The entries of `workflow_run.pull_requests[]` that describe this run:
/// base in this repository, head at this run's commit. The list can hold
/// pull requests of other repositories that happen to share the branch.
fn entries_of_this_run(
    run: &WorkflowRun,
    run_repo: &Repository,
    repo: &RepoName,
    head_sha: &Sha,
    b: &mut Notes,
) -> Result<Vec<RunEntry>, PayloadError> {
    let mut matching = Vec::new();
    for (index, entry) in run.pull_requests.iter().enumerate() {
        let base = entry.base.as_ref();
        let base_id = base.and_then(|s| s.repo.as_ref()).and_then(|r| r.id);
        let entry_head = entry.head.as_ref().and_then(|s| s.sha.as_deref());
        let head_matches =
            entry_head.is_some_and(|sha| sha.eq_ignore_ascii_case(head_sha.as_str()));
        let number = entry.number.unwrap_or_default();
        if base_id.is_none() || base_id != run_repo.id || !head_matches {
            b.note(format!(
                "workflow_run.pull_requests[{index}] (#{number}) is not this run's pull request into {repo}"
            ));
            continue;
        }
        let base = base.ok_or(PayloadError::Missing("workflow_run.pull_requests[].base"))?;
        let sha = sha_field(
            base.sha.as_deref().ok_or(PayloadError::Missing(
                "workflow_run.pull_requests[].base.sha",
            ))?,
            &format!("workflow_run.pull_requests[{index}].base.sha"),
        )?;
        let base_ref = match base.git_ref.as_deref() {
            Some(name) => Some(ref_field(name, "workflow_run.pull_requests[].base.ref")?),
            None => None,
        };
        matching.push(RunEntry {
            index,
            number,
            sha,
            base_ref,
        });
    }
    Ok(matching)
}

/// The baseline from this run's entries: the only one, or, when the same
/// head is in several pull requests, the one into the default branch (with
/// a warning that names them all). When none of several is into the
/// default branch, no baseline is guessed.
fn choose_entry(outcome: &mut Outcome, matching: Vec<RunEntry>, b: &mut Notes) {
    let repo = &outcome.base_repo;
    let count = matching.len();
    let names = matching
        .iter()
        .map(|e| {
            let into = e.base_ref.as_ref().map_or("?", RefName::as_str);
            format!("#{} into {into}", e.number)
        })
        .collect::<Vec<_>>()
        .join(", ");
    let default = outcome.base_ref.as_ref().map(RefName::as_str);
    let chosen = if count == 1 {
        matching.into_iter().next()
    } else {
        matching
            .into_iter()
            .find(|e| e.base_ref.is_some() && e.base_ref.as_ref().map(RefName::as_str) == default)
    };
    let Some(entry) = chosen else {
        let default = default.map_or_else(String::new, |d| format!(" ({d})"));
        let reason = format!(
            "baseline unavailable for {repo}: this run's head is in {count} pull requests ({names}) and none is into the default branch{default}; no baseline is guessed"
        );
        b.note(reason.clone());
        let source = BaseSource::WorkflowRunPr;
        outcome.baseline = Baseline::Unavailable { source, reason };
        return;
    };
    if count > 1 {
        b.warn(format!(
            "this run's head is in {count} pull requests of {repo} ({names}); #{}, into the default branch, is the baseline",
            entry.number
        ));
    }
    b.note(format!(
        "workflow_run.pull_requests[{}] (#{}) is this run's pull request",
        entry.index, entry.number
    ));
    if entry.base_ref.is_some() {
        outcome.base_ref = entry.base_ref;
    }
    outcome.baseline = Baseline::Known {
        sha: entry.sha,
        source: BaseSource::WorkflowRunPr,
        origin: format!("workflow_run.pull_requests[{}].base.sha", entry.index),
    };
}
