//! The base repository's release tags, listed once: the latest release
//! (`tag` outputs) and, for a tag push or a release, the baseline itself
//! (the release before it). Annotated tags are peeled, the two together.

use thiserror::Error;

use crate::github::ApiError;
use crate::resolve::answer::Finding;
use crate::resolve::rules::Lookup;
use crate::resolve::tags::{Tag, TagPolicy, literal_prefix};
use crate::validate::{RepoName, Sha};

use super::{GitFailure, Online, Plan, ls_remote};

/// Why the tags could not be listed.
#[derive(Debug, Error)]
enum ListingError {
    #[error("{0}")]
    Api(ApiError),
    #[error("{api}; git fallback: {git}")]
    ApiThenGit { api: ApiError, git: GitFailure },
}

/// The tags, and the API's failure when git listed them instead.
struct Listing {
    tags: Vec<Tag>,
    api_failed: Option<ApiError>,
}

/// The previous-tag baseline (when the lookup asks for it) and the latest
/// release tag (unless `--no-tag`), from one listing.
pub(super) async fn settle(online: &Online, repo: &RepoName, plan: &Plan) -> Vec<Finding> {
    let current = match &plan.lookup {
        Some(Lookup::PreviousTag { current }) => Some(current.as_str()),
        _ => None,
    };
    let Some(policy) = plan
        .tag
        .as_ref()
        .or(current.map(|_| &plan.previous_tag_policy))
    else {
        return Vec::new();
    };
    let listing = match list(online, repo, policy).await {
        Ok(listing) => listing,
        Err(err) => return unlisted(repo, plan, current, &err),
    };
    let mut findings = listed(repo, &listing);
    let tags = &listing.tags;
    // Round trip 2, only for annotated tags: peel the chosen tags together.
    let latest = plan.tag.as_ref().and_then(|p| p.latest(tags));
    let previous = current.and_then(|c| plan.previous_tag_policy.previous(tags, c));
    let (latest_sha, previous_sha) =
        tokio::join!(peel(online, repo, latest), peel(online, repo, previous));
    if let Some(current) = current {
        findings.extend(previous_findings(
            repo,
            plan,
            current,
            previous,
            previous_sha,
        ));
    }
    if let Some(policy) = &plan.tag {
        findings.extend(latest_findings(
            repo,
            policy,
            tags.len(),
            latest,
            latest_sha,
        ));
    }
    findings
}

async fn peel(
    online: &Online,
    repo: &RepoName,
    tag: Option<&Tag>,
) -> Option<Result<Sha, ApiError>> {
    match tag {
        Some(t) => Some(online.api.peel(repo, t).await),
        None => None,
    }
}

/// Lists tags by API; when the API is out of reach, by git.
async fn list(
    online: &Online,
    repo: &RepoName,
    policy: &TagPolicy,
) -> Result<Listing, ListingError> {
    let prefix = literal_prefix(&policy.pattern);
    match online.api.tags(repo, prefix).await {
        Ok(tags) => Ok(Listing {
            tags,
            api_failed: None,
        }),
        Err(api) if api.api_unavailable() => match ls_remote(online, repo).await {
            Ok(refs) => Ok(Listing {
                tags: refs.tags(prefix),
                api_failed: Some(api),
            }),
            Err(git) => Err(ListingError::ApiThenGit { api, git }),
        },
        Err(api) => Err(ListingError::Api(api)),
    }
}

fn unlisted(
    repo: &RepoName,
    plan: &Plan,
    current: Option<&str>,
    err: &ListingError,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(current) = current {
        findings.push(Finding::BaseUnavailable(format!(
            "baseline unavailable for {repo}: the release tag before {current} could not be listed: {err}"
        )));
    }
    if plan.tag.is_some() {
        findings.push(Finding::Warning(
            "Release tag unavailable",
            format!("release tag of {repo} unavailable: {err}"),
        ));
    }
    findings
}

fn listed(repo: &RepoName, listing: &Listing) -> Vec<Finding> {
    let count = listing.tags.len();
    match &listing.api_failed {
        None => vec![Finding::Trace(format!(
            "{count} tags of {repo} listed (GET git/matching-refs)"
        ))],
        Some(api_err) => vec![
            Finding::Trace(format!(
                "{count} tags of {repo} listed (git ls-remote, because the API failed)"
            )),
            Finding::Warning(
                "GitHub API unavailable",
                format!(
                    "the API failed ({api_err}); the release tags of {repo} were listed by git ls-remote instead"
                ),
            ),
        ],
    }
}

fn previous_findings(
    repo: &RepoName,
    plan: &Plan,
    current: &str,
    previous: Option<&Tag>,
    peeled: Option<Result<Sha, ApiError>>,
) -> Vec<Finding> {
    match (previous, peeled) {
        (Some(tag), Some(Ok(sha))) => vec![
            Finding::Trace(format!(
                "previous release tag before {current}: {} = {sha}",
                tag.name
            )),
            Finding::Base {
                sha,
                origin: format!("tag {}", tag.name),
            },
        ],
        (Some(tag), Some(Err(err))) => vec![Finding::BaseUnavailable(format!(
            "baseline unavailable for {repo}: tag {} could not be peeled: {err}",
            tag.name
        ))],
        _ => vec![Finding::BaseUnavailable(format!(
            "baseline unavailable for {repo}: no release tag matching {:?} comes before {current}",
            plan.previous_tag_policy.pattern
        ))],
    }
}

fn latest_findings(
    repo: &RepoName,
    policy: &TagPolicy,
    listed: usize,
    latest: Option<&Tag>,
    peeled: Option<Result<Sha, ApiError>>,
) -> Vec<Finding> {
    match (latest, peeled) {
        (Some(tag), Some(Ok(sha))) => vec![
            Finding::Trace(format!("latest release tag: {} = {sha}", tag.name)),
            Finding::Tag {
                name: tag.name.clone(),
                sha,
            },
        ],
        (Some(tag), Some(Err(err))) => vec![Finding::Warning(
            "Release tag unavailable",
            format!(
                "release tag {} of {repo} could not be peeled: {err}",
                tag.name
            ),
        )],
        _ => vec![Finding::Warning(
            "Release tag unavailable",
            format!(
                "no release tag of {repo} matches {:?}{} ({listed} tags listed): no release comparison",
                policy.pattern,
                if policy.prereleases {
                    ""
                } else {
                    " (pre-releases excluded)"
                },
            ),
        )],
    }
}
