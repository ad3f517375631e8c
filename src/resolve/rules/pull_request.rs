//! Pull requests: the baseline is the base branch's commit the pull request
//! was opened against (or its merge-base with the head), in the base
//! repository, never the fork; a comment on a pull request asks the API.

use super::{
    BaseSource, Baseline, Commitish, Head, Lookup, Notes, Outcome, PayloadError, Settings,
    SkipReason, ref_field, repo_field, repository_side, required, sha_field,
};
use crate::github::event::{EventName, Payload, PullRequest};
use crate::validate::{RefName, RepoName, Sha};

pub(super) fn pull_request(
    event: &EventName,
    payload: &Payload,
    settings: &Settings,
    b: &mut Notes,
) -> Result<Outcome, PayloadError> {
    let pr = required(payload.pull_request.as_ref(), "pull_request")?;
    let (base_repo, base_sha, base_ref) = base_side(pr)?;
    b.note(format!(
        "base repo: {base_repo} (pull_request.base.repo.full_name)"
    ));
    let (head, head_sha) = head_side(pr, &base_repo, b)?;
    if *event == EventName::PullRequestTarget {
        b.note(
            "pull_request_target: GITHUB_SHA is the default branch, so the payload is read instead",
        );
    }
    let baseline = if settings.merge_base {
        b.note(format!(
            "mode merge-base: the merge-base of pull_request.base.sha {base_sha} and pull_request.head.sha {head_sha}"
        ));
        Baseline::Lookup {
            source: BaseSource::PrMergeBase,
            lookup: Lookup::MergeBase {
                base: Commitish::Sha(base_sha),
                head: head_sha,
            },
        }
    } else {
        Baseline::Known {
            sha: base_sha,
            source: BaseSource::PrBase,
            origin: "pull_request.base.sha".to_owned(),
        }
    };
    Ok(Outcome {
        base_repo,
        base_ref,
        head,
        baseline,
    })
}

/// The base repository, commit and branch of a pull request.
fn base_side(pr: &PullRequest) -> Result<(RepoName, Sha, Option<RefName>), PayloadError> {
    let base = required(pr.base.as_ref(), "pull_request.base")?;
    let repo = required(base.repo.as_ref(), "pull_request.base.repo")?;
    let repo = repo_field(
        required(repo.full_name.as_ref(), "pull_request.base.repo.full_name")?,
        "pull_request.base.repo.full_name",
    )?;
    let sha = sha_field(
        required(base.sha.as_ref(), "pull_request.base.sha")?,
        "pull_request.base.sha",
    )?;
    let base_ref = match base.git_ref.as_deref() {
        Some(name) => Some(ref_field(name, "pull_request.base.ref")?),
        None => None,
    };
    Ok((repo, sha, base_ref))
}

/// The head: the fork (or none when it was deleted) and its commit.
fn head_side(
    pr: &PullRequest,
    base_repo: &RepoName,
    b: &mut Notes,
) -> Result<(Head, Sha), PayloadError> {
    let head = required(pr.head.as_ref(), "pull_request.head")?;
    let sha = sha_field(
        required(head.sha.as_ref(), "pull_request.head.sha")?,
        "pull_request.head.sha",
    )?;
    let repo = match &head.repo {
        Some(repo) => Some(repo_field(
            required(repo.full_name.as_ref(), "pull_request.head.repo.full_name")?,
            "pull_request.head.repo.full_name",
        )?),
        None => None,
    };
    match &repo {
        Some(repo) if !repo.same_repo(base_repo) => b.note(format!(
            "head repo: {repo} is a fork; the baseline comes from {base_repo}, never the fork"
        )),
        Some(repo) => b.note(format!("head repo: {repo} (same repository)")),
        None => b.note(
            "head repo: none (pull_request.head.repo is null: the fork was deleted); treated as a fork",
        ),
    }
    let is_fork = repo.as_ref().is_none_or(|r| !r.same_repo(base_repo));
    let head = Head {
        repo,
        sha: Some(sha.clone()),
        is_fork,
    };
    Ok((head, sha))
}

pub(super) fn issue_comment(
    payload: &Payload,
    settings: &Settings,
    b: &mut Notes,
) -> Result<Outcome, PayloadError> {
    let mut side = repository_side(payload, settings, b)?;
    let issue = required(payload.issue.as_ref(), "issue")?;
    if issue.pull_request.is_none() {
        b.note("comment on an issue that is not a pull request (issue.pull_request is absent)");
        let reason = SkipReason::IssueCommentNotOnPullRequest;
        return Ok(side.decided(Baseline::Skip { reason }));
    }
    let number = *required(issue.number.as_ref(), "issue.number")?;
    // GITHUB_SHA is the default branch for issue_comment; the head is the
    // pull request's, which only the API knows.
    side.head.repo = None;
    side.head.sha = None;
    b.note(format!(
        "comment on pull request #{number}: its base SHA is not in the payload"
    ));
    let lookup = Lookup::PullRequestBase { number };
    let source = BaseSource::PrBase;
    Ok(side.decided(Baseline::Lookup { source, lookup }))
}
