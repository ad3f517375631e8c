//! The few fields of GitHub's answers the resolver reads, and nothing else:
//! small structs, so that a new field or an Enterprise Server difference
//! cannot break parsing. Every string in them is a stranger's: shown as
//! data, never trusted as a SHA until it parses as one.

use serde::Deserialize;

/// The object a git ref or tag object points at (`{"sha", "type"}`).
#[derive(Debug, Deserialize)]
pub struct GitObject {
    pub sha: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// The error body GitHub sends with 4xx/5xx: `{"message": ..., "documentation_url": ...}`.
#[derive(Debug, Deserialize)]
pub struct ErrorBody {
    pub message: Option<String>,
}

/// `GET /repos/{o}/{r}`.
#[derive(Debug, Deserialize)]
pub struct Repository {
    pub default_branch: String,
}

/// `GET /repos/{o}/{r}/compare/{base}...{head}`.
#[derive(Debug, Deserialize)]
pub struct Compare {
    pub merge_base_commit: Commit,
}

/// A commit as `compare` and `commits/{sha}` give it.
#[derive(Debug, Deserialize)]
pub struct Commit {
    pub sha: String,
}

/// `GET /repos/{o}/{r}/commits/{sha}`: its parents.
#[derive(Debug, Deserialize)]
pub struct CommitParents {
    pub parents: Vec<Commit>,
}

/// One entry of `GET /repos/{o}/{r}/git/matching-refs/tags/{prefix}`.
#[derive(Debug, Deserialize)]
pub struct Ref {
    #[serde(rename = "ref")]
    pub name: String,
    pub object: GitObject,
}

/// `GET /repos/{o}/{r}/git/tags/{sha}`.
#[derive(Debug, Deserialize)]
pub struct TagObject {
    pub object: GitObject,
}

/// A page of `GET /repos/{o}/{r}/actions/artifacts`.
#[derive(Debug, Deserialize)]
pub struct ArtifactPage {
    pub artifacts: Vec<Artifact>,
}

/// What an artifact answer holds that the resolver reads.
#[derive(Debug, Clone, Deserialize)]
pub struct Artifact {
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub expired: bool,
    pub created_at: Option<String>,
    pub workflow_run: Option<ArtifactRun>,
}

/// The run an artifact names. `repository_id` is the repository the run
/// belongs to; `head_repository_id` the one its code came from (a fork's,
/// for a fork's pull request).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ArtifactRun {
    pub id: Option<u64>,
    pub head_sha: Option<String>,
    #[serde(default)]
    pub repository_id: Option<u64>,
    #[serde(default)]
    pub head_repository_id: Option<u64>,
}

/// A page of `GET /repos/{o}/{r}/actions/runs` (or a workflow's runs).
#[derive(Debug, Deserialize)]
pub struct RunPage {
    pub workflow_runs: Vec<Run>,
}

/// A workflow run: what says whose code it ran and why.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Run {
    pub id: u64,
    #[serde(default)]
    pub conclusion: Option<String>,
    /// `push`, `pull_request`, `schedule`, ...
    #[serde(default)]
    pub event: Option<String>,
    #[serde(default)]
    pub head_sha: Option<String>,
    #[serde(default)]
    pub repository: Option<RunRepo>,
    #[serde(default)]
    pub head_repository: Option<RunRepo>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct RunRepo {
    pub id: Option<u64>,
}

/// What a pull request answer holds that the resolver reads.
#[derive(Debug, Clone, Deserialize)]
pub struct Pull {
    pub number: u64,
    /// `open` or `closed`.
    pub state: Option<String>,
    pub base: PullSide,
    pub head: PullSide,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullSide {
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    pub sha: String,
    pub repo: Option<PullRepo>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullRepo {
    pub id: Option<u64>,
    pub full_name: Option<String>,
}
