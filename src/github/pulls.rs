//! The pull requests of a workflow run: GitHub lists pull requests by head
//! `owner:branch`, and a branch moves, so the run's head commit and the base
//! repository are checked here rather than by each caller (`resolve` for a
//! fork's `workflow_run`, `comment` for the pull request to post on).

use super::client::Api;
use super::error::ApiError;
use super::wire::Pull;
use crate::validate::{RepoName, Sha};

/// The pull requests into `repo` whose head is `owner:branch` at `head_sha`
/// (also `comment`'s, for a fork's `workflow_run`).
pub async fn pulls_of_run(
    api: &Api,
    repo: &RepoName,
    owner: &str,
    branch: &str,
    head_sha: &Sha,
) -> Result<Vec<Pull>, ApiError> {
    let pulls = api.pulls_with_head(repo, owner, branch).await?;
    let count = pulls.len();
    let matching: Vec<Pull> = pulls
        .into_iter()
        .filter(|p| p.head.sha.eq_ignore_ascii_case(head_sha.as_str()))
        .filter(|p| {
            let base = p.base.repo.as_ref();
            base.and_then(|r| r.full_name.as_deref())
                .and_then(|n| RepoName::parse(n).ok())
                .is_some_and(|n| n.same_repo(repo))
        })
        .collect();
    if matching.is_empty() {
        return Err(ApiError::NotFound {
            what: format!(
                "pull request with head {owner}:{branch} at {head_sha} (of {count} with that head)"
            ),
            repo: repo.to_string(),
        });
    }
    Ok(matching)
}
