//! The base SHA of a [`Lookup`], asked of the API once; for a branch tip or
//! a ref, of git when the API is out of reach.

use crate::github::{Api, ApiError, Pull, pulls_of_run};
use crate::resolve::answer::Finding;
use crate::resolve::rules::{Commitish, Lookup};
use crate::runner::shown;
use crate::validate::{RefName, RepoName, Sha};

use super::{Online, ls_remote};

/// A base SHA found online, with what else the answer learned.
struct BaseFound {
    sha: Sha,
    origin: String,
    base_ref: Option<String>,
    /// For a pull request fetched by API: its head side.
    head: Option<(Option<RepoName>, Sha)>,
    /// Worth a warning although a baseline was found (a choice among several).
    warning: Option<String>,
}

impl BaseFound {
    fn sha(sha: Sha, origin: String) -> BaseFound {
        BaseFound {
            sha,
            origin,
            base_ref: None,
            head: None,
            warning: None,
        }
    }

    fn from_pull(pull: Pull) -> Result<BaseFound, ApiError> {
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
        Ok(BaseFound {
            sha,
            origin: format!("pull request #{} base.sha", pull.number),
            base_ref: pull.base.git_ref,
            head: Some((head_repo, head_sha)),
            warning: None,
        })
    }

    fn findings(self, lookup: &Lookup) -> Vec<Finding> {
        let mut findings = vec![Finding::Trace(format!(
            "{}: {} ({})",
            lookup.describe(),
            self.sha,
            self.origin
        ))];
        if let Some(branch) = self.base_ref.and_then(|b| RefName::parse(&b).ok()) {
            findings.push(Finding::BaseRef(branch));
        }
        if let Some((repo, sha)) = self.head {
            findings.push(Finding::Head { repo, sha });
        }
        if let Some(warning) = self.warning {
            findings.push(Finding::Warning("Baseline chosen among several", warning));
        }
        findings.push(Finding::Base {
            sha: self.sha,
            origin: self.origin,
        });
        findings
    }
}

/// Settles `lookup` (the previous tag is the release listing's to settle).
pub(super) async fn settle(
    online: &Online,
    repo: &RepoName,
    lookup: Option<&Lookup>,
) -> Vec<Finding> {
    let Some(lookup) = lookup.filter(|l| !matches!(l, Lookup::PreviousTag { .. })) else {
        return Vec::new();
    };
    match by_api(&online.api, repo, lookup).await {
        Ok(found) => found.findings(lookup),
        // Branch tips and refs: git can answer when the API cannot.
        Err(err) if err.api_unavailable() && matches!(lookup, Lookup::Ref(_)) => {
            by_git(online, repo, lookup, &err).await
        }
        Err(err) => vec![Finding::BaseUnavailable(format!(
            "baseline unavailable for {repo}: {}: {err}",
            lookup.describe()
        ))],
    }
}

/// The base lookups other than the previous tag, by API.
async fn by_api(api: &Api, repo: &RepoName, lookup: &Lookup) -> Result<BaseFound, ApiError> {
    match lookup {
        Lookup::Ref(Some(name)) => {
            let sha = api.commit_sha(repo, name.short()).await?;
            Ok(BaseFound::sha(sha, format!("GET commits/{}", name.short())))
        }
        Lookup::Ref(None) => {
            let (branch, sha) =
                tokio::join!(api.default_branch(repo), api.commit_sha(repo, "HEAD"));
            let mut found =
                BaseFound::sha(sha?, "GET commits/HEAD (the default branch)".to_owned());
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
            Ok(BaseFound::sha(
                sha,
                format!("compare {base_name}...{head}: merge_base_commit"),
            ))
        }
        Lookup::PullRequestBase { number } => BaseFound::from_pull(api.pull(repo, *number).await?),
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
            let matching = pulls_of_run(api, repo, owner, branch, head_sha).await?;
            pull_for_run(api, repo, matching, default_branch.as_ref()).await
        }
        Lookup::FirstParent { commit } => match api.first_parent(repo, commit).await? {
            Some(sha) => Ok(BaseFound::sha(
                sha,
                format!("GET commits/{commit}: parents[0]"),
            )),
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
) -> Result<BaseFound, ApiError> {
    let open: Vec<Pull> = matching
        .iter()
        .filter(|p| p.state.as_deref() == Some("open"))
        .cloned()
        .collect();
    let mut candidates = if open.is_empty() { matching } else { open };
    if candidates.len() == 1
        && let Some(only) = candidates.pop()
    {
        return BaseFound::from_pull(only);
    }
    let default = match default_branch {
        Some(branch) => branch.to_string(),
        None => api.default_branch(repo).await?,
    };
    let names = candidates
        .iter()
        .map(|p| {
            let base = p.base.git_ref.as_deref().unwrap_or("?");
            format!("#{} into {}", p.number, shown(base))
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
            let mut found = BaseFound::from_pull(pull)?;
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

/// A branch tip or a ref by `git ls-remote`, after the API failed with `err`.
async fn by_git(online: &Online, repo: &RepoName, lookup: &Lookup, err: &ApiError) -> Vec<Finding> {
    let Lookup::Ref(name) = lookup else {
        return Vec::new();
    };
    let refs = match ls_remote(online, repo).await {
        Ok(refs) => refs,
        Err(git_err) => {
            return vec![Finding::BaseUnavailable(format!(
                "baseline unavailable for {repo}: {}: {err}; git fallback: {git_err}",
                lookup.describe()
            ))];
        }
    };
    let sha = match name {
        None => refs.branch_tip(None),
        Some(n) => refs
            .branch_tip(Some(n.short()))
            .or_else(|| refs.tag_commit(n.short())),
    };
    let Some(sha) = sha else {
        return vec![Finding::BaseUnavailable(format!(
            "baseline unavailable for {repo}: {}: the API failed ({err}) and git does not list it",
            lookup.describe()
        ))];
    };
    let mut findings = Vec::new();
    if name.is_none()
        && let Some(branch) = refs
            .head_branch
            .as_deref()
            .and_then(|b| RefName::parse(b).ok())
    {
        findings.push(Finding::BaseRef(branch));
    }
    findings.push(Finding::Warning(
        "GitHub API unavailable",
        format!(
            "the API failed ({err}); {} was answered by git ls-remote of {repo}",
            lookup.describe()
        ),
    ));
    findings.push(Finding::Base {
        sha,
        origin: "git ls-remote".to_owned(),
    });
    findings
}
