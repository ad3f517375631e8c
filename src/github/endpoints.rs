//! The ten questions the resolver asks GitHub, one method each, over the
//! client's GET with its retry policy. Refs, names and prefixes go into
//! paths and queries percent-encoded (a ref may hold `$`, `(`, `#`).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::client::Api;
use super::error::{ApiError, Permission};
use super::wire::{
    Artifact, ArtifactPage, CommitParents, Compare, Pull, Ref, Repository, Run, RunPage, TagObject,
};
use crate::validate::{RepoName, Sha};

/// A tag as listed by the API or git: its name and the object it points at.
/// `commit` is `None` for an annotated tag whose tag object has not been
/// peeled yet (`object` is then the tag object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub name: String,
    pub object: Sha,
    pub commit: Option<Sha>,
}

/// Kept in a path segment: unreserved characters, and `/` (refs hold it).
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');
/// Kept in a query value: unreserved characters only.
const QUERY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn encode_path(value: &str) -> String {
    utf8_percent_encode(value, PATH).to_string()
}

fn encode_query(value: &str) -> String {
    utf8_percent_encode(value, QUERY).to_string()
}

fn sha(value: &str, what: &str) -> Result<Sha, ApiError> {
    Sha::parse(value.trim()).map_err(|e| ApiError::Invalid {
        what: what.to_owned(),
        message: e.to_string(),
    })
}

impl Api {
    /// The commit a branch, tag or SHA names now: `GET /repos/{o}/{r}/commits/{ref}`
    /// with the `sha` media type, whose body is the 40 hex digits alone.
    pub async fn commit_sha(&self, repo: &RepoName, reference: &str) -> Result<Sha, ApiError> {
        let what = format!("commit of {reference}");
        let path = format!("/repos/{repo}/commits/{}", encode_path(reference));
        let answer = self
            .get(
                &path,
                "application/vnd.github.sha",
                &what,
                Permission::Contents,
                repo,
            )
            .await?;
        sha(&String::from_utf8_lossy(&answer.body), &what)
    }

    /// The repository's default branch: `GET /repos/{o}/{r}`.
    pub async fn default_branch(&self, repo: &RepoName) -> Result<String, ApiError> {
        let what = format!("repository {repo}");
        let (r, _): (Repository, _) = self
            .get_json(&format!("/repos/{repo}"), &what, Permission::Contents, repo)
            .await?;
        Ok(r.default_branch)
    }

    /// `merge_base_commit.sha` of `GET /repos/{o}/{r}/compare/{base}...{head}`.
    /// `base` may be a branch name. `per_page=1` keeps the commit list short.
    pub async fn merge_base(
        &self,
        repo: &RepoName,
        base: &str,
        head: &Sha,
    ) -> Result<Sha, ApiError> {
        let what = format!("merge-base of {base} and {head}");
        let path = format!(
            "/repos/{repo}/compare/{}...{head}?per_page=1",
            encode_path(base)
        );
        let (c, _): (Compare, _) = self
            .get_json(&path, &what, Permission::Contents, repo)
            .await?;
        sha(&c.merge_base_commit.sha, &what)
    }

    /// The first parent of `commit`, `None` for a root commit:
    /// `GET /repos/{o}/{r}/commits/{sha}` (`per_page=1` keeps its file list short).
    pub async fn first_parent(
        &self,
        repo: &RepoName,
        commit: &Sha,
    ) -> Result<Option<Sha>, ApiError> {
        let what = format!("parents of {commit}");
        let path = format!("/repos/{repo}/commits/{commit}?per_page=1");
        let (c, _): (CommitParents, _) = self
            .get_json(&path, &what, Permission::Contents, repo)
            .await?;
        match c.parents.first() {
            Some(parent) => Ok(Some(sha(&parent.sha, &what)?)),
            None => Ok(None),
        }
    }

    /// `GET /repos/{o}/{r}/pulls/{number}`.
    pub async fn pull(&self, repo: &RepoName, number: u64) -> Result<Pull, ApiError> {
        let what = format!("pull request #{number}");
        let path = format!("/repos/{repo}/pulls/{number}");
        let (p, _): (Pull, _) = self
            .get_json(&path, &what, Permission::PullRequests, repo)
            .await?;
        Ok(p)
    }

    /// Pull requests of `repo` whose head is `owner:branch`:
    /// `GET /repos/{o}/{r}/pulls?state=all&head=owner:branch`, every page.
    pub async fn pulls_with_head(
        &self,
        repo: &RepoName,
        head_owner: &str,
        branch: &str,
    ) -> Result<Vec<Pull>, ApiError> {
        let what = format!("pull requests with head {head_owner}:{branch}");
        let head = encode_query(&format!("{head_owner}:{branch}"));
        let first = format!("/repos/{repo}/pulls?state=all&per_page=100&head={head}");
        let pages: Vec<Vec<Pull>> = self
            .get_pages(first, &what, Permission::PullRequests, repo, 10)
            .await?;
        Ok(pages.into_iter().flatten().collect())
    }

    /// Every tag whose name starts with `prefix`, in one request:
    /// `GET /repos/{o}/{r}/git/matching-refs/tags/{prefix}` answers all
    /// matching refs in one array, however many there are. A `Link` header
    /// (should a server ever paginate it) is followed.
    pub async fn tags(&self, repo: &RepoName, prefix: &str) -> Result<Vec<Tag>, ApiError> {
        let what = format!("tags of {repo}");
        let first = format!(
            "/repos/{repo}/git/matching-refs/tags/{}",
            encode_path(prefix)
        );
        let pages: Vec<Vec<Ref>> = self
            .get_pages(first, &what, Permission::Contents, repo, 100)
            .await?;
        let mut tags = Vec::new();
        for r in pages.into_iter().flatten() {
            let Some(name) = r.name.strip_prefix("refs/tags/") else {
                continue;
            };
            let Ok(object) = Sha::parse(&r.object.sha) else {
                continue;
            };
            let commit = (r.object.kind == "commit").then(|| object.clone());
            tags.push(Tag {
                name: name.to_owned(),
                object,
                commit,
            });
        }
        Ok(tags)
    }

    /// Artifacts of `repo` named exactly `name`, every page (at most 10):
    /// `GET /repos/{o}/{r}/actions/artifacts?name=NAME&per_page=100`.
    pub async fn artifacts(&self, repo: &RepoName, name: &str) -> Result<Vec<Artifact>, ApiError> {
        let what = format!("artifacts named {name}");
        let first = format!(
            "/repos/{repo}/actions/artifacts?per_page=100&name={}",
            encode_query(name)
        );
        let pages: Vec<ArtifactPage> = self
            .get_pages(first, &what, Permission::Actions, repo, 10)
            .await?;
        Ok(pages
            .into_iter()
            .flat_map(|p| p.artifacts)
            .filter(|a| a.name == name)
            .collect())
    }

    /// The runs of commit `sha` in `repo`, every page (at most 10): each
    /// says its event and whose code it ran, which an artifact does not.
    /// With `workflow` (a file name such as `benchmark.yml`) only that
    /// workflow's successful runs:
    /// `GET /repos/{o}/{r}/actions/runs?head_sha=SHA`, or
    /// `GET /repos/{o}/{r}/actions/workflows/{workflow}/runs?head_sha=SHA&status=success`.
    pub async fn runs_of(
        &self,
        repo: &RepoName,
        workflow: Option<&str>,
        sha: &Sha,
    ) -> Result<Vec<Run>, ApiError> {
        let (what, first) = match workflow {
            Some(workflow) => (
                format!("successful runs of {workflow} for {sha}"),
                format!(
                    "/repos/{repo}/actions/workflows/{}/runs?head_sha={sha}&status=success&per_page=100",
                    encode_path(workflow)
                ),
            ),
            None => (
                format!("workflow runs of {sha}"),
                format!("/repos/{repo}/actions/runs?head_sha={sha}&per_page=100"),
            ),
        };
        let pages: Vec<RunPage> = self
            .get_pages(first, &what, Permission::Actions, repo, 10)
            .await?;
        Ok(pages.into_iter().flat_map(|p| p.workflow_runs).collect())
    }

    /// Peels an annotated tag object to the commit it points at:
    /// `GET /repos/{o}/{r}/git/tags/{sha}`, repeated for a tag of a tag.
    pub async fn peel(&self, repo: &RepoName, tag: &Tag) -> Result<Sha, ApiError> {
        if let Some(commit) = &tag.commit {
            return Ok(commit.clone());
        }
        let what = format!("tag object of {}", tag.name);
        let mut object = tag.object.clone();
        for _ in 0..4 {
            let path = format!("/repos/{repo}/git/tags/{object}");
            let (t, _): (TagObject, _) = self
                .get_json(&path, &what, Permission::Contents, repo)
                .await?;
            object = sha(&t.object.sha, &what)?;
            if t.object.kind == "commit" {
                return Ok(object);
            }
        }
        Err(ApiError::Invalid {
            what,
            message: "a chain of more than 4 tag objects".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_and_names_are_percent_encoded() {
        assert_eq!(encode_path("release/v1$(id)"), "release/v1%24%28id%29");
        assert_eq!(encode_query("a:b/c"), "a%3Ab%2Fc");
        assert_eq!(encode_path("v1.0~rc_2-x"), "v1.0~rc_2-x");
        assert_eq!(encode_query("é #"), "%C3%A9%20%23");
    }
}
