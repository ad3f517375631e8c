//! Settling what the payload left open: the base SHA of a [`Lookup`], the
//! base repository's release tag, and the optional fetch of the baseline.
//!
//! Independent requests run concurrently, so the critical path is one round
//! trip wherever the rules allow (a tag listing and a compare run side by
//! side; peeling an annotated tag is the only second step). When the API is
//! out of reach (down, rate limited past the deadline), git answers what it
//! can (tags and branch tips) with a warning that says so. Whatever fails,
//! the answer degrades to "unavailable" with a warning: never a hang (one
//! deadline bounds everything), never a silent skip, and never an older
//! commit instead.

use std::path::{Path, PathBuf};

use crate::answer::Answer;
use crate::artifacts;
use crate::git::{self, RemoteRefs};
use crate::github::{Api, ApiError, Pull};
use crate::inputs::ArtifactQuery;
use crate::rules::{Commitish, Lookup};
use crate::tags::{Tag, TagPolicy, literal_prefix, tag_version};
use crate::validate::{RefName, RepoName, Sha};

/// Everything the online mode needs besides the answer.
pub struct Online {
    pub api: Api,
    /// `GITHUB_SERVER_URL`, for the git fallback and `--fetch`.
    pub server_url: String,
    /// The token for git, held to `server_url`'s host.
    pub git_auth: Option<git::Auth>,
    /// The base repository's refs by `ls-remote`, listed at most once: the
    /// tag listing and a branch tip may both fall back to git at once.
    pub remote_refs: tokio::sync::OnceCell<Result<RemoteRefs, String>>,
}

/// What to settle, as the user asked.
pub struct Plan {
    pub lookup: Option<Lookup>,
    /// `None` with `--no-tag`.
    pub tag: Option<TagPolicy>,
    /// The pattern for the previous-tag baseline (used even with `--no-tag`).
    pub previous_tag_policy: TagPolicy,
    /// Where a local clone may answer a merge-base.
    pub workdir: PathBuf,
    pub fetch: Option<PathBuf>,
    pub artifacts: Option<ArtifactQuery>,
}

/// Settles the answer offline: a local clone may still answer a merge-base;
/// anything else stays unavailable, with the warning.
pub fn settle_offline(answer: &mut Answer, plan: Plan) {
    if let Some(lookup) = plan.lookup
        && !local_answer(answer, &lookup, &plan.workdir)
    {
        let warning = crate::answer::offline_warning(answer, &lookup);
        answer.unavailable(warning);
    }
    if plan.tag.is_some() {
        answer
            .trace
            .push("release tag: not looked up (offline)".to_owned());
    }
    if plan.fetch.is_some() {
        answer.warn(
            "Baseline not fetched",
            "--fetch was not attempted: offline".to_owned(),
        );
    }
}

/// A merge-base or a first parent from the local clone, when the commits
/// are in it: no network at all.
fn local_answer(answer: &mut Answer, lookup: &Lookup, workdir: &Path) -> bool {
    let (sha, origin) = match lookup {
        Lookup::MergeBase {
            base: Commitish::Sha(base),
            head,
        } => (git::merge_base(workdir, base, head), "local git merge-base"),
        Lookup::FirstParent { commit } => (
            git::first_parent(workdir, commit),
            "local git: first parent",
        ),
        _ => return false,
    };
    match sha {
        Some(sha) => {
            answer
                .trace
                .push(format!("{} from the local clone: {sha}", lookup.describe()));
            answer.found(sha, origin.to_owned());
            true
        }
        None => false,
    }
}

/// Settles the answer over the network: the base SHA and the release tag,
/// the benchmark artifacts of the base commit alongside them when that
/// commit is already known (right after, when it had to be looked up), and
/// last the optional fetch.
pub async fn settle(answer: &mut Answer, mut plan: Plan, online: &Online) {
    if let Some(l) = &plan.lookup
        && local_answer(answer, l, &plan.workdir)
    {
        plan.lookup = None;
    }
    let (repo, label, known) = (
        answer.base_repo.clone(),
        answer.label.clone(),
        answer.base_sha.clone(),
    );
    let early = async {
        match (&plan.artifacts, &known) {
            (Some(q), Some(sha)) => Some(artifacts::find(&online.api, &repo, sha, &label, q).await),
            _ => None,
        }
    };
    let ((), early) = tokio::join!(settle_base_and_tags(answer, &plan, online), early);
    let found = match (early, &plan.artifacts, answer.base_sha.clone()) {
        (Some(found), _, _) => Some(found),
        (None, Some(q), Some(sha)) => {
            Some(artifacts::find(&online.api, &repo, &sha, &label, q).await)
        }
        (None, Some(_), None) => {
            answer.notice(
                "benchmark artifacts not looked up: there is no baseline commit".to_owned(),
            );
            None
        }
        (None, None, _) => None,
    };
    if let Some(found) = found {
        apply_artifacts(answer, found);
    }
    finish_fetch(answer, plan.fetch.as_deref(), online).await;
}

fn apply_artifacts(answer: &mut Answer, found: artifacts::Lookup) {
    answer.trace.extend(found.trace);
    for warning in found.warnings {
        answer.warn("Benchmark artifact unavailable", warning);
    }
    for notice in found.notices {
        answer.notice(notice);
    }
    if let Some(first) = found.order.first()
        && let Some(f) = found.found.get(first)
    {
        answer.artifact_name = Some(first.clone());
        answer.artifact_available = f.available;
        answer.artifact_id = f.id;
        answer.artifact_run_id = f.run_id;
    }
    answer.artifacts = found.found;
}

async fn settle_base_and_tags(answer: &mut Answer, plan: &Plan, online: &Online) {
    let repo = answer.base_repo.clone();
    let lookup = plan.lookup.clone();
    let previous_tag = match &lookup {
        Some(Lookup::PreviousTag { current }) => Some(current.clone()),
        _ => None,
    };
    let tag_policy = plan.tag.clone().or_else(|| {
        previous_tag
            .as_ref()
            .map(|_| plan.previous_tag_policy.clone())
    });

    // Round trip 1, concurrently: the base lookup and the tag listing.
    let base_future = async {
        match &lookup {
            Some(l) if previous_tag.is_none() => {
                Some((l, base_lookup(&online.api, &repo, l).await))
            }
            _ => None,
        }
    };
    let tags_future = async {
        match &tag_policy {
            Some(policy) => Some(list_tags(online, &repo, policy).await),
            None => None,
        }
    };
    let (base, tags) = tokio::join!(base_future, tags_future);

    if let Some((lookup, result)) = base {
        apply_base(answer, lookup, result, online).await;
    }
    let Some(tags) = tags else {
        return;
    };
    let (tags, via) = match tags {
        Ok(found) => found,
        Err(err) => {
            if let Some(current) = &previous_tag {
                answer.unavailable(format!(
                    "baseline unavailable for {repo}: the release tag before {current} could not be listed: {err}"
                ));
            }
            if plan.tag.is_some() {
                answer.warn(
                    "Release tag unavailable",
                    format!("release tag of {repo} unavailable: {err}"),
                );
            }
            return;
        }
    };
    match via {
        None => answer.trace.push(format!(
            "{} tags of {repo} listed (GET git/matching-refs)",
            tags.len()
        )),
        Some(api_err) => {
            answer.trace.push(format!(
                "{} tags of {repo} listed (git ls-remote, because the API failed)",
                tags.len()
            ));
            answer.warn(
                "GitHub API unavailable",
                format!(
                    "the API failed ({api_err}); the release tags of {repo} were listed by git ls-remote instead"
                ),
            );
        }
    }

    // Round trip 2, only for annotated tags: peel the chosen tags together.
    let latest = plan.tag.as_ref().and_then(|p| p.latest(&tags));
    let previous = previous_tag
        .as_ref()
        .and_then(|current| plan.previous_tag_policy.previous(&tags, current));
    let (latest_sha, previous_sha) = tokio::join!(
        async {
            match latest {
                Some(t) => Some(online.api.peel(&repo, t).await),
                None => None,
            }
        },
        async {
            match previous {
                Some(t) => Some(online.api.peel(&repo, t).await),
                None => None,
            }
        }
    );

    if let Some(current) = &previous_tag {
        match (previous, previous_sha) {
            (Some(tag), Some(Ok(sha))) => {
                answer.trace.push(format!("previous release tag before {current}: {} = {sha}", tag.name));
                answer.found(sha, format!("tag {}", tag.name));
            }
            (Some(tag), Some(Err(err))) => answer.unavailable(format!(
                "baseline unavailable for {repo}: tag {} could not be peeled: {err}",
                tag.name
            )),
            _ => answer.unavailable(format!(
                "baseline unavailable for {repo}: no release tag matching {:?} comes before {current}",
                plan.previous_tag_policy.pattern
            )),
        }
    }
    if let Some(policy) = &plan.tag {
        match (latest, latest_sha) {
            (Some(tag), Some(Ok(sha))) => {
                answer.trace.push(format!("latest release tag: {} = {sha}", tag.name));
                answer.tag_version = Some(tag_version(&tag.name).to_owned());
                answer.tag = Some(tag.name.clone());
                answer.tag_sha = Some(sha);
                answer.tag_available = true;
            }
            (Some(tag), Some(Err(err))) => answer.warn(
                "Release tag unavailable",
                format!("release tag {} of {repo} could not be peeled: {err}", tag.name),
            ),
            _ => answer.warn(
                "Release tag unavailable",
                format!(
                    "no release tag of {repo} matches {:?}{} ({} tags listed): no release comparison",
                    policy.pattern,
                    if policy.prereleases { "" } else { " (pre-releases excluded)" },
                    tags.len()
                ),
            ),
        }
    }
}

/// Lists tags by API; when the API is out of reach, by git. The second
/// value is the API's failure when git answered instead (for the warning).
async fn list_tags(
    online: &Online,
    repo: &RepoName,
    policy: &TagPolicy,
) -> Result<(Vec<Tag>, Option<String>), String> {
    let prefix = literal_prefix(&policy.pattern);
    match online.api.tags(repo, prefix).await {
        Ok(tags) => Ok((tags, None)),
        Err(err) if err.api_unavailable() => {
            let refs = ls_remote(online, repo)
                .await
                .map_err(|git_err| format!("{err}; git fallback: {git_err}"))?;
            Ok((refs.tags(prefix), Some(err.to_string())))
        }
        Err(err) => Err(err.to_string()),
    }
}

fn git_url(server_url: &str, repo: &RepoName) -> String {
    format!("{server_url}/{repo}.git")
}

async fn blocking<T: Send + 'static>(
    deadline: tokio::time::Instant,
    work: impl FnOnce() -> Result<T, git::GitError> + Send + 'static,
) -> Result<T, String> {
    let task = tokio::task::spawn_blocking(work);
    match tokio::time::timeout_at(deadline, task).await {
        Ok(Ok(result)) => result.map_err(|e| e.to_string()),
        Ok(Err(join)) => Err(format!("git task failed: {join}")),
        Err(_) => Err("no answer within the deadline".to_owned()),
    }
}

/// The base repository's refs, from one ls-remote conversation however many
/// questions fall back to git.
async fn ls_remote(online: &Online, repo: &RepoName) -> Result<RemoteRefs, String> {
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

/// The base lookups other than the previous tag, by API.
async fn base_lookup(api: &Api, repo: &RepoName, lookup: &Lookup) -> Result<Found, ApiError> {
    match lookup {
        Lookup::Ref(Some(name)) => {
            let sha = api.commit_sha(repo, name.short()).await?;
            Ok(Found::sha(sha, format!("GET commits/{}", name.short())))
        }
        Lookup::Ref(None) => {
            let (branch, sha) =
                tokio::join!(api.default_branch(repo), api.commit_sha(repo, "HEAD"));
            let mut found = Found::sha(sha?, "GET commits/HEAD (the default branch)".to_owned());
            found.base_ref = branch.ok();
            Ok(found)
        }
        Lookup::MergeBase { base, head } => {
            let base_name = match base {
                Commitish::Sha(sha) => sha.to_string(),
                Commitish::BranchTip(Some(branch)) => branch.to_string(),
                Commitish::BranchTip(None) => api.default_branch(repo).await?,
            };
            let sha = api.merge_base(repo, &base_name, head).await?;
            Ok(Found::sha(
                sha,
                format!("compare {base_name}...{head}: merge_base_commit"),
            ))
        }
        Lookup::PullRequestBase { number } => {
            let pull = api.pull(repo, *number).await?;
            Found::from_pull(pull)
        }
        Lookup::PullRequestForHead {
            head_sha,
            head_owner,
            head_branch,
            default_branch,
        } => {
            let (Some(owner), Some(branch)) = (head_owner, head_branch) else {
                return Err(ApiError::Invalid {
                    what: "pull request lookup".to_owned(),
                    message: "the payload names no head repository owner and branch".to_owned(),
                });
            };
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
            pull_for_run(api, repo, matching, default_branch.as_ref()).await
        }
        Lookup::FirstParent { commit } => match api.first_parent(repo, commit).await? {
            Some(sha) => Ok(Found::sha(sha, format!("GET commits/{commit}: parents[0]"))),
            None => Err(ApiError::Undecided {
                what: format!("{commit} is a root commit: it has no parent"),
            }),
        },
        Lookup::PreviousTag { current } => Err(ApiError::Invalid {
            what: format!("the tag before {current}"),
            message: "is settled from the tag listing, not here".to_owned(),
        }),
    }
}

/// The pull request of a fork's `workflow_run`, among those into the base
/// repository with the run's head (open ones first): the only one, or the
/// one into the default branch, said with a warning that names them all.
/// Several and none into the default branch: nothing is guessed.
async fn pull_for_run(
    api: &Api,
    repo: &RepoName,
    matching: Vec<Pull>,
    default_branch: Option<&RefName>,
) -> Result<Found, ApiError> {
    let open: Vec<Pull> = matching
        .iter()
        .filter(|p| p.state.as_deref() == Some("open"))
        .cloned()
        .collect();
    let mut candidates = if open.is_empty() { matching } else { open };
    if candidates.len() == 1
        && let Some(only) = candidates.pop()
    {
        return Found::from_pull(only);
    }
    let default = match default_branch {
        Some(branch) => branch.to_string(),
        None => api.default_branch(repo).await?,
    };
    let names = candidates
        .iter()
        .map(|p| {
            let base = p.base.git_ref.as_deref().unwrap_or("?");
            format!("#{} into {}", p.number, crate::validate::shown(base))
        })
        .collect::<Vec<_>>()
        .join(", ");
    let count = candidates.len();
    let chosen = candidates
        .into_iter()
        .find(|p| p.base.git_ref.as_deref() == Some(default.as_str()));
    match chosen {
        Some(pull) => {
            let number = pull.number;
            let mut found = Found::from_pull(pull)?;
            found.warning = Some(format!(
                "this run's head is in {count} pull requests of {repo} ({names}); #{number}, into the default branch {default}, is the baseline"
            ));
            Ok(found)
        }
        None => Err(ApiError::Undecided {
            what: format!(
                "this run's head is in {count} pull requests of {repo} ({names}) and none is into the default branch {default}; no baseline is guessed"
            ),
        }),
    }
}

/// A base SHA found online, with what else the answer learned.
struct Found {
    sha: Sha,
    origin: String,
    base_ref: Option<String>,
    /// For a pull request fetched by API: its head side.
    head: Option<(Option<RepoName>, Sha)>,
    /// Worth a warning although a baseline was found (a choice among several).
    warning: Option<String>,
}

impl Found {
    fn sha(sha: Sha, origin: String) -> Found {
        Found {
            sha,
            origin,
            base_ref: None,
            head: None,
            warning: None,
        }
    }

    fn from_pull(pull: Pull) -> Result<Found, ApiError> {
        let what = format!("pull request #{}", pull.number);
        let invalid = |message: String| ApiError::Invalid {
            what: what.clone(),
            message,
        };
        let sha = Sha::parse(&pull.base.sha).map_err(|e| invalid(format!("base.sha {e}")))?;
        let head_sha = Sha::parse(&pull.head.sha).map_err(|e| invalid(format!("head.sha {e}")))?;
        let head_repo = pull
            .head
            .repo
            .as_ref()
            .and_then(|r| r.full_name.as_deref())
            .and_then(|n| RepoName::parse(n).ok());
        Ok(Found {
            sha,
            origin: format!("pull request #{} base.sha", pull.number),
            base_ref: pull.base.git_ref,
            head: Some((head_repo, head_sha)),
            warning: None,
        })
    }
}

async fn apply_base(
    answer: &mut Answer,
    lookup: &Lookup,
    result: Result<Found, ApiError>,
    online: &Online,
) {
    let repo = answer.base_repo.clone();
    let err = match result {
        Ok(found) => {
            answer.trace.push(format!(
                "{}: {} ({})",
                lookup.describe(),
                found.sha,
                found.origin
            ));
            if let Some(branch) = found.base_ref.and_then(|b| RefName::parse(&b).ok()) {
                answer.base_ref = Some(branch);
            }
            if let Some((head_repo, head_sha)) = found.head {
                answer.is_fork = head_repo.as_ref().is_none_or(|h| !h.same_repo(&repo));
                answer.head_repo = head_repo;
                answer.head_sha = Some(head_sha);
            }
            if let Some(warning) = found.warning {
                answer.warn("Baseline chosen among several", warning);
            }
            answer.found(found.sha, found.origin);
            return;
        }
        Err(err) => err,
    };
    // Branch tips and refs: git can answer when the API cannot.
    if let (true, Lookup::Ref(name)) = (err.api_unavailable(), lookup) {
        match ls_remote(online, &repo).await {
            Ok(refs) => {
                let sha = match name {
                    None => refs.branch_tip(None),
                    Some(n) => refs
                        .branch_tip(Some(n.short()))
                        .or_else(|| refs.tag_commit(n.short())),
                };
                if let Some(sha) = sha {
                    if name.is_none()
                        && let Some(branch) = refs
                            .head_branch
                            .as_deref()
                            .and_then(|b| RefName::parse(b).ok())
                    {
                        answer.base_ref = Some(branch);
                    }
                    answer.warn(
                        "GitHub API unavailable",
                        format!(
                            "the API failed ({err}); {} was answered by git ls-remote of {repo}",
                            lookup.describe()
                        ),
                    );
                    answer.found(sha, "git ls-remote".to_owned());
                    return;
                }
                answer.unavailable(format!(
                    "baseline unavailable for {repo}: {}: the API failed ({err}) and git does not list it",
                    lookup.describe()
                ));
            }
            Err(git_err) => answer.unavailable(format!(
                "baseline unavailable for {repo}: {}: {err}; git fallback: {git_err}",
                lookup.describe()
            )),
        }
        return;
    }
    answer.unavailable(format!(
        "baseline unavailable for {repo}: {}: {err}",
        lookup.describe()
    ));
}

/// `--fetch DIR`: one attempt at exactly the base SHA, depth 1.
async fn finish_fetch(answer: &mut Answer, dir: Option<&Path>, online: &Online) {
    let Some(dir) = dir else { return };
    let Some(sha) = answer.base_sha.clone() else {
        answer
            .trace
            .push("--fetch: nothing to fetch (no baseline)".to_owned());
        return;
    };
    let url = git_url(&online.server_url, &answer.base_repo);
    let (dir_owned, url_owned, auth) = (dir.to_owned(), url.clone(), online.git_auth.clone());
    let sha_owned = sha.clone();
    let result = blocking(online.api.deadline(), move || {
        git::fetch_commit(&dir_owned, &url_owned, &sha_owned, auth.as_ref())
    })
    .await;
    match result {
        Ok(git::Fetched::Fetched) => {
            answer.base_fetched = true;
            answer.trace.push(format!(
                "fetched {sha} from {url} into {} as {} (depth 1, no tags)",
                dir.display(),
                git::FETCH_REF
            ));
        }
        Ok(git::Fetched::AlreadyPresent) => {
            answer.base_fetched = true;
            answer.trace.push(format!(
                "{sha} is already in {}: pointed {} at it, no network",
                dir.display(),
                git::FETCH_REF
            ));
        }
        Err(err) => answer.warn(
            "Baseline not fetched",
            format!(
                "could not fetch {}@{sha} into {}: {err} (one attempt; nothing older is tried)",
                answer.base_repo,
                dir.display()
            ),
        ),
    }
}
