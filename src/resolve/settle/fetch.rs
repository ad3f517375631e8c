//! `--fetch DIR`: one attempt at exactly the base commit, depth 1, after
//! everything else is settled. Nothing older is ever tried instead.

use std::path::Path;

use crate::resolve::answer::Finding;
use crate::resolve::git;
use crate::validate::{RepoName, Sha};

use super::{Online, blocking};
use crate::github::network::git_url;

/// `--fetch` offline: the base commit when the clone already holds it (the
/// ref set, no network); otherwise a warning, and nothing fetched.
pub(super) fn offline(baseline: Option<&Sha>, dir: &Path) -> Vec<Finding> {
    let Some(sha) = baseline else {
        return vec![Finding::Trace(
            "--fetch: nothing to fetch (no baseline)".to_owned(),
        )];
    };
    match git::point_at_local(dir, sha) {
        Ok(true) => vec![
            Finding::Fetched,
            Finding::Trace(format!(
                "{sha} is already in {}: pointed {} at it (offline, no network)",
                dir.display(),
                git::FETCH_REF
            )),
        ],
        Ok(false) => vec![Finding::Warning(
            "Baseline not fetched",
            format!(
                "--fetch offline: {sha} is not in {}, and fetching it needs the network (run without --offline)",
                dir.display()
            ),
        )],
        Err(err) => vec![Finding::Warning(
            "Baseline not fetched",
            format!("--fetch offline: {err}"),
        )],
    }
}

pub(super) async fn settle(
    online: &Online,
    repo: &RepoName,
    baseline: Option<&Sha>,
    dir: &Path,
) -> Vec<Finding> {
    let Some(sha) = baseline.cloned() else {
        return vec![Finding::Trace(
            "--fetch: nothing to fetch (no baseline)".to_owned(),
        )];
    };
    let url = git_url(&online.server_url, repo);
    let (dir_owned, url_owned, auth) = (dir.to_owned(), url.clone(), online.git_auth.clone());
    let sha_owned = sha.clone();
    let result = blocking(online.api.deadline(), move || {
        git::fetch_commit(&dir_owned, &url_owned, &sha_owned, auth.as_ref())
    })
    .await;
    match result {
        Ok(git::Fetched::Fetched) => vec![
            Finding::Fetched,
            Finding::Trace(format!(
                "fetched {sha} from {url} into {} as {} (depth 1, no tags)",
                dir.display(),
                git::FETCH_REF
            )),
        ],
        Ok(git::Fetched::AlreadyPresent) => vec![
            Finding::Fetched,
            Finding::Trace(format!(
                "{sha} is already in {}: pointed {} at it, no network",
                dir.display(),
                git::FETCH_REF
            )),
        ],
        Err(err) => vec![Finding::Warning(
            "Baseline not fetched",
            format!(
                "could not fetch {repo}@{sha} into {}: {err} (one attempt; nothing older is tried)",
                dir.display()
            ),
        )],
    }
}
