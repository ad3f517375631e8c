//! Git, through libgit2 (git2): what git can answer when the API cannot.
//!
//! - [`list_refs`]: one ls-remote conversation with the base repository
//!   (`GITHUB_SERVER_URL/owner/name.git`), the fallback for tags and branch
//!   tips when the API is down or rate limited. libgit2 speaks the original
//!   protocol, so the server advertises every ref it has (GitHub's
//!   `refs/pull/*` included); that is why it is the fallback, not the first
//!   choice.
//! - [`merge_base`]: a merge-base from a local clone, when both commits are
//!   in it: no network at all.
//! - [`fetch_commit`]: `--fetch DIR`, exactly one commit at depth 1, no tags,
//!   no other refs.
//!
//! libgit2 blocks; callers run these on a blocking thread under the deadline.

use std::path::Path;

use git2::{
    AutotagOption, Direction, FetchOptions, ProxyOptions, Remote, RemoteCallbacks, Repository,
};
use thiserror::Error;

use crate::tags::Tag;
use crate::validate::Sha;

#[derive(Debug, Error)]
pub enum GitError {
    #[error("git {action} {target}: {message}")]
    Git {
        action: &'static str,
        target: String,
        message: String,
    },
}

fn git_err<'a>(action: &'static str, target: &'a str) -> impl Fn(git2::Error) -> GitError + 'a {
    move |e| GitError::Git {
        action,
        target: target.to_owned(),
        message: e.message().to_owned(),
    }
}

/// The refs a remote advertises, as `(name, object)`; annotated tags also
/// appear as `refs/tags/NAME^{}` with the commit they peel to.
#[derive(Debug, Clone, Default)]
pub struct RemoteRefs {
    pub refs: Vec<(String, Sha)>,
    /// The branch `HEAD` points at, when the server says.
    pub head_branch: Option<String>,
    /// Bytes the listing received, as libgit2 counted them.
    pub received_bytes: usize,
}

impl RemoteRefs {
    /// Tags whose name starts with `prefix`, with annotated tags already
    /// peeled (the `^{}` entries), so no further round trip is needed.
    pub fn tags(&self, prefix: &str) -> Vec<Tag> {
        let mut tags: Vec<Tag> = Vec::new();
        let mut peeled: std::collections::HashMap<&str, &Sha> = std::collections::HashMap::new();
        for (name, sha) in &self.refs {
            let Some(tag) = name.strip_prefix("refs/tags/") else {
                continue;
            };
            match tag.strip_suffix("^{}") {
                Some(base) => {
                    peeled.insert(base, sha);
                }
                None if tag.starts_with(prefix) => tags.push(Tag {
                    name: tag.to_owned(),
                    object: sha.clone(),
                    commit: None,
                }),
                None => {}
            }
        }
        for tag in &mut tags {
            // A tag without a `^{}` entry is lightweight: it names the commit.
            let commit = peeled
                .get(tag.name.as_str())
                .copied()
                .unwrap_or(&tag.object);
            tag.commit = Some(commit.clone());
        }
        tags
    }

    /// The commit a branch (or `HEAD` for `None`) points at.
    pub fn branch_tip(&self, branch: Option<&str>) -> Option<Sha> {
        let wanted = match branch {
            Some(b) => format!("refs/heads/{b}"),
            None => "HEAD".to_owned(),
        };
        self.refs
            .iter()
            .find(|(n, _)| *n == wanted)
            .map(|(_, s)| s.clone())
    }

    /// A tag's commit: the peeled entry for an annotated tag.
    pub fn tag_commit(&self, tag: &str) -> Option<Sha> {
        let peeled = format!("refs/tags/{tag}^{{}}");
        let plain = format!("refs/tags/{tag}");
        let find = |want: &str| {
            self.refs
                .iter()
                .find(|(n, _)| n == want)
                .map(|(_, s)| s.clone())
        };
        find(&peeled).or_else(|| find(&plain))
    }
}

fn proxy() -> ProxyOptions<'static> {
    let mut proxy = ProxyOptions::new();
    proxy.auto();
    proxy
}

fn with_token(callbacks: &mut RemoteCallbacks<'_>, token: Option<&str>) {
    if let Some(token) = token {
        let token = token.to_owned();
        // The token goes to the git server as HTTP basic auth, as
        // actions/checkout does; it is never logged.
        callbacks
            .credentials(move |_, _, _| git2::Cred::userpass_plaintext("x-access-token", &token));
    }
}

/// `git ls-remote URL`: one connection, every advertised ref.
pub fn list_refs(url: &str, token: Option<&str>) -> Result<RemoteRefs, GitError> {
    let mut remote = Remote::create_detached(url).map_err(git_err("ls-remote", url))?;
    let received = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut callbacks = RemoteCallbacks::new();
    with_token(&mut callbacks, token);
    {
        let received = received.clone();
        callbacks.transfer_progress(move |p| {
            received.store(p.received_bytes(), std::sync::atomic::Ordering::Relaxed);
            true
        });
    }
    let connection = remote
        .connect_auth(Direction::Fetch, Some(callbacks), Some(proxy()))
        .map_err(git_err("ls-remote", url))?;
    let heads = connection.list().map_err(git_err("ls-remote", url))?;
    let mut refs = RemoteRefs::default();
    for head in heads {
        let Ok(sha) = Sha::parse(&head.oid().to_string()) else {
            continue;
        };
        if head.name() == "HEAD" {
            refs.head_branch = head
                .symref_target()
                .and_then(|t| t.strip_prefix("refs/heads/"))
                .map(str::to_owned);
        }
        refs.refs.push((head.name().to_owned(), sha));
    }
    // The advertisement is not a pack, so transfer_progress may not fire;
    // estimate from the pkt-lines: 4 + 41 + name + 1 bytes per ref.
    let estimate: usize = refs.refs.iter().map(|(n, _)| 46 + n.len()).sum();
    refs.received_bytes = received
        .load(std::sync::atomic::Ordering::Relaxed)
        .max(estimate);
    Ok(refs)
}

/// The merge-base of two commits from the git repository at (or above)
/// `dir`, when both are present there. `None` when they are not, or there
/// is no repository: the caller then asks the network.
pub fn merge_base(dir: &Path, a: &Sha, b: &Sha) -> Option<Sha> {
    let repo = Repository::discover(dir).ok()?;
    let a = repo
        .find_commit(git2::Oid::from_str(a.as_str()).ok()?)
        .ok()?
        .id();
    let b = repo
        .find_commit(git2::Oid::from_str(b.as_str()).ok()?)
        .ok()?
        .id();
    let base = repo.merge_base(a, b).ok()?;
    Sha::parse(&base.to_string()).ok()
}

/// The ref `--fetch` writes, so the commit is kept and easy to check out.
pub const FETCH_REF: &str = "refs/baseline-resolver/base";

/// Fetches exactly `sha` at depth 1 from `url` into the repository at `dir`
/// (no tags, no other refs) and points [`FETCH_REF`] at it. One attempt.
pub fn fetch_commit(dir: &Path, url: &str, sha: &Sha, token: Option<&str>) -> Result<(), GitError> {
    let target = dir.display().to_string();
    let repo = Repository::open(dir).map_err(git_err("open", &target))?;
    let mut remote = repo
        .remote_anonymous(url)
        .map_err(git_err("fetch from", url))?;
    let mut callbacks = RemoteCallbacks::new();
    with_token(&mut callbacks, token);
    let mut options = FetchOptions::new();
    options
        .remote_callbacks(callbacks)
        .proxy_options(proxy())
        .download_tags(AutotagOption::None)
        .depth(1);
    let refspec = format!("+{sha}:{FETCH_REF}");
    remote
        .fetch(&[refspec.as_str()], Some(&mut options), None)
        .map_err(git_err("fetch from", url))?;
    let oid = git2::Oid::from_str(sha.as_str()).map_err(git_err("fetch from", url))?;
    repo.find_commit(oid)
        .map_err(git_err("find fetched commit in", &target))?;
    Ok(())
}
