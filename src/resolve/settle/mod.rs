//! Settling what the payload left open: the base SHA of a [`Lookup`], the
//! base repository's release tag, the benchmark artifacts of the base commit,
//! and the optional fetch of the baseline.
//!
//! Every step returns [`Finding`]s, values that [`Answer::apply`] writes
//! into the answer in one place; nothing here mutates the answer.
//!
//! Independent requests run concurrently, so the critical path is one round
//! trip wherever the rules allow (a tag listing and a compare run side by
//! side; peeling an annotated tag is the only second step). When the API is
//! out of reach (down, rate limited past the deadline), git answers what it
//! can (tags and branch tips) with a warning that says so. Whatever fails,
//! the answer degrades to "unavailable" with a warning: never a hang (one
//! deadline bounds everything), never a silent skip, and never an older
//! commit instead.

mod artifacts;
pub(crate) mod base;
mod fetch;
mod release;

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::github::network::git_url;
use crate::github::{self, Api};
use crate::resolve::answer::{Answer, Finding};
use crate::resolve::artifacts::ArtifactQuery;
use crate::resolve::git::{self, GitError, RemoteRefs};
use crate::resolve::rules::{Commitish, Lookup};
use crate::resolve::tags::TagPolicy;
use crate::validate::{RepoName, Sha};

/// Everything the network side needs besides the answer.
pub struct Online {
    pub api: Api,
    /// `GITHUB_SERVER_URL`, for the git fallback and `--fetch`.
    pub server_url: String,
    /// The token for git, held to `server_url`'s host.
    pub git_auth: Option<git::Auth>,
    /// The base repository's refs by `ls-remote`, listed at most once: the
    /// tag listing and a branch tip may both fall back to git at once.
    remote_refs: tokio::sync::OnceCell<Result<RemoteRefs, GitFailure>>,
}

/// What to settle, as the user asked.
pub struct Plan {
    pub lookup: Option<Lookup>,
    /// `None` with `--no-tag`.
    pub tag: Option<TagPolicy>,
    /// The pattern for the previous-tag baseline (used even with `--no-tag`).
    pub previous_tag_policy: TagPolicy,
    /// Where a local clone may answer a merge-base or a first parent.
    pub workdir: PathBuf,
    pub fetch: Option<PathBuf>,
    pub artifacts: Option<ArtifactQuery>,
}

/// How to reach the API and git (which takes the API's token).
pub struct Network {
    pub api: github::Config,
    pub server_url: String,
}

#[derive(Debug, Error)]
pub enum SettleError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// Why git could not answer (a git error, or the deadline).
#[derive(Debug, Clone, Error)]
pub enum GitFailure {
    #[error("{0}")]
    Git(String),
    #[error("git task failed: {0}")]
    Task(String),
    #[error("no answer within the deadline")]
    Deadline,
}

impl From<GitError> for GitFailure {
    fn from(err: GitError) -> GitFailure {
        GitFailure::Git(err.to_string())
    }
}

/// Settles offline: a local clone may still answer a merge-base or a first
/// parent; anything else stays unavailable, with the warning.
pub fn offline(answer: &Answer, plan: Plan) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(lookup) = &plan.lookup {
        match local_answer(lookup, &plan.workdir) {
            Some(found) => findings.extend(found),
            None => findings.push(Finding::BaseUnavailable(offline_warning(
                &answer.base_repo,
                lookup,
            ))),
        }
    }
    if plan.tag.is_some() {
        findings.push(Finding::Trace(
            "release tag: not looked up (offline)".to_owned(),
        ));
    }
    if let Some(dir) = plan.fetch.as_deref() {
        let known = answer.base_sha().cloned().or_else(|| base_of(&findings));
        findings.extend(fetch::offline(known.as_ref(), dir));
    }
    findings
}

/// Settles over the network, on a runtime of its own that is shut down
/// without waiting for git work past the deadline.
pub fn online(answer: &Answer, plan: Plan, network: &Network) -> Result<Vec<Finding>, SettleError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(SettleError::Runtime)?;
    // The API client's connections run on the runtime it is entered in.
    let entered = runtime.enter();
    let api = Api::new(network.api.clone());
    let findings = match api {
        Ok(api) => {
            let online = Online {
                api,
                server_url: network.server_url.clone(),
                git_auth: network
                    .api
                    .token
                    .clone()
                    .and_then(|t| git::Auth::new(t, &network.server_url)),
                remote_refs: tokio::sync::OnceCell::new(),
            };
            let mut findings = runtime.block_on(settle(answer, plan, &online));
            findings.push(Finding::Trace(format!(
                "{} API request(s) to {}",
                online.api.requests(),
                network.api.api_url
            )));
            findings
        }
        Err(err) => {
            let mut findings = vec![Finding::Warning("GitHub API unavailable", err.to_string())];
            findings.extend(offline(answer, plan));
            findings
        }
    };
    drop(entered);
    // Blocking git work past the deadline is abandoned, not awaited.
    runtime.shutdown_background();
    Ok(findings)
}

/// The base SHA and the release tag, the benchmark artifacts of the base
/// commit alongside them when that commit is already known (right after,
/// when it had to be looked up), and last the optional fetch.
async fn settle(answer: &Answer, mut plan: Plan, online: &Online) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(found) = plan
        .lookup
        .as_ref()
        .and_then(|l| local_answer(l, &plan.workdir))
    {
        findings.extend(found);
        plan.lookup = None;
    }
    let repo = &answer.base_repo;
    let (base_query, tag_query) = plan
        .artifacts
        .as_ref()
        .map_or((None, None), ArtifactQuery::split);
    let known = answer.base_sha().cloned().or_else(|| base_of(&findings));
    let early = async {
        match (&base_query, &known) {
            (Some(q), Some(sha)) => {
                Some(artifacts::find(&online.api, repo, sha, &answer.label, q).await)
            }
            _ => None,
        }
    };
    let base = base::settle(online, repo, plan.lookup.as_ref());
    let release = release::settle(online, repo, &plan);
    let (base, release, early) = tokio::join!(base, release, early);
    findings.extend(base);
    findings.extend(release);
    let baseline = known.or_else(|| base_of(&findings));
    let mut artifacts = match (early, &base_query, &baseline) {
        (Some(report), _, _) => Some(report),
        (None, Some(q), Some(sha)) => {
            Some(artifacts::find(&online.api, repo, sha, &answer.label, q).await)
        }
        (None, Some(_), None) => {
            findings.push(Finding::Notice(
                "benchmark artifacts not looked up: there is no baseline commit".to_owned(),
            ));
            None
        }
        (None, None, _) => None,
    };
    if let Some(q) = &tag_query {
        match tag_of(&findings) {
            Some(sha) => {
                let report = artifacts::find(&online.api, repo, &sha, &answer.label, q).await;
                artifacts = Some(match artifacts {
                    Some(first) => first.then(report),
                    None => report,
                });
            }
            None => findings.push(Finding::Notice(
                "release artifacts ({tag_sha}) not looked up: there is no release tag".to_owned(),
            )),
        }
    }
    findings.extend(artifacts.map(Finding::Artifacts));
    if let Some(dir) = plan.fetch.as_deref() {
        findings.extend(fetch::settle(online, repo, baseline.as_ref(), dir).await);
    }
    findings
}

/// The release tag's commit the findings name, if any.
fn tag_of(findings: &[Finding]) -> Option<Sha> {
    findings.iter().rev().find_map(|f| match f {
        Finding::Tag { sha, .. } => Some(sha.clone()),
        _ => None,
    })
}

/// The last baseline the findings name, if any.
fn base_of(findings: &[Finding]) -> Option<Sha> {
    findings.iter().rev().find_map(|f| match f {
        Finding::Base { sha, .. } => Some(sha.clone()),
        _ => None,
    })
}

/// A merge-base or a first parent from the local clone, when the commits
/// are in it: no network at all.
fn local_answer(lookup: &Lookup, workdir: &Path) -> Option<Vec<Finding>> {
    let (sha, origin) = match lookup {
        Lookup::MergeBase {
            base: Commitish::Sha(base),
            head,
        } => (
            git::merge_base(workdir, base, head)?,
            "local git merge-base",
        ),
        Lookup::FirstParent { commit } => (
            git::first_parent(workdir, commit)?,
            "local git: first parent",
        ),
        _ => return None,
    };
    Some(vec![
        Finding::Trace(format!("{} from the local clone: {sha}", lookup.describe())),
        Finding::Base {
            sha,
            origin: origin.to_owned(),
        },
    ])
}

/// The warning for a lookup that may not use the network.
fn offline_warning(repo: &RepoName, lookup: &Lookup) -> String {
    let fallback = match lookup {
        Lookup::MergeBase { .. } => {
            "run online (without --offline) so the GitHub API's compare endpoint answers it, or from a clone that holds both commits"
        }
        Lookup::PreviousTag { .. } => {
            "run online (without --offline) so the base repository's tags answer it"
        }
        Lookup::FirstParent { .. } => {
            "run online (without --offline) so the GitHub API answers it, or from a clone that holds the commit"
        }
        _ => "run online (without --offline) so the GitHub API answers it",
    };
    format!(
        "baseline unavailable for {repo}: the event payload does not hold {}; {fallback}, or pass base-sha",
        lookup.describe()
    )
}

/// Runs blocking git work on its own thread, abandoned at the deadline.
async fn blocking<T: Send + 'static>(
    deadline: tokio::time::Instant,
    work: impl FnOnce() -> Result<T, GitError> + Send + 'static,
) -> Result<T, GitFailure> {
    let task = tokio::task::spawn_blocking(work);
    match tokio::time::timeout_at(deadline, task).await {
        Ok(Ok(result)) => result.map_err(GitFailure::from),
        Ok(Err(join)) => Err(GitFailure::Task(join.to_string())),
        Err(_) => Err(GitFailure::Deadline),
    }
}

/// The base repository's refs, from one ls-remote conversation however many
/// questions fall back to git.
async fn ls_remote(online: &Online, repo: &RepoName) -> Result<RemoteRefs, GitFailure> {
    let list = || async {
        let url = git_url(&online.server_url, repo);
        let auth = online.git_auth.clone();
        blocking(online.api.deadline(), move || {
            git::list_refs(&url, auth.as_ref())
        })
        .await
    };
    online.remote_refs.get_or_init(list).await.clone()
}
