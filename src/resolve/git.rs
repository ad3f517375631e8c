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
    AutotagOption, Direction, FetchOptions, ProxyOptions, RemoteCallbacks, RemoteRedirect,
    Repository,
};
use thiserror::Error;

use crate::resolve::tags::Tag;
use crate::validate::Sha;
use crate::validate::secret::Secret;
use crate::validate::url::Origin;

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

/// The job's token and the one server it may go to: the scheme, host and
/// port of `GITHUB_SERVER_URL`. A redirect, an `insteadOf` rewrite or a
/// proxy never makes it travel anywhere else.
#[derive(Clone)]
pub struct Auth {
    token: Secret,
    origin: Origin,
}

impl Auth {
    /// `None` when `server_url` has no origin to hold the token to.
    pub fn new(token: Secret, server_url: &str) -> Option<Auth> {
        Some(Auth {
            token,
            origin: Origin::of(server_url)?,
        })
    }
}

/// The URLs the server asked credentials for and was refused them, shared
/// with the libgit2 callback.
type Refused = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

fn callbacks<'a>(auth: Option<&Auth>, refused: &Refused) -> RemoteCallbacks<'a> {
    let mut callbacks = RemoteCallbacks::new();
    let (auth, refused) = (auth.cloned(), refused.clone());
    // The token goes to the git server as HTTP basic auth, as actions/checkout
    // does; it is never logged, and only to the origin of GITHUB_SERVER_URL.
    callbacks.credentials(move |url, _, _| {
        let asked = Origin::of(url);
        match &auth {
            Some(auth) if asked.as_ref() == Some(&auth.origin) => {
                // The one place git's token leaves its Secret.
                git2::Cred::userpass_plaintext("x-access-token", auth.token.expose())
            }
            _ => {
                if let Ok(mut list) = refused.lock() {
                    list.push(
                        asked.map_or_else(|| "an unknown host".to_owned(), |o| o.to_string()),
                    );
                }
                Err(git2::Error::from_str("no credentials for this host"))
            }
        }
    });
    callbacks
}

/// A libgit2 error in words: where the conversation was, with whom, and,
/// when a redirect or a request for credentials left the server, that the
/// token was kept back.
fn remote_error(action: &'static str, url: &str, refused: &Refused, e: &git2::Error) -> GitError {
    let mut message = e.message().to_owned();
    if message.contains("redirect") {
        message.push_str(
            " (a redirect away from the server's host is not followed: the baseline comes from GITHUB_SERVER_URL or not at all)",
        );
    }
    if let Some(host) = refused.lock().ok().and_then(|l| l.first().cloned()) {
        message.push_str(&format!(
            "; {host} asked for credentials and the token was not sent there (it goes only to GITHUB_SERVER_URL's host)"
        ));
    }
    GitError::Git {
        action,
        target: url.to_owned(),
        message,
    }
}

fn fetch_options<'a>(auth: Option<&Auth>, refused: &Refused) -> FetchOptions<'a> {
    let mut options = FetchOptions::new();
    options
        .remote_callbacks(callbacks(auth, refused))
        .proxy_options(proxy())
        .follow_redirects(RemoteRedirect::None)
        .download_tags(AutotagOption::None);
    options
}

/// An empty bare repository in the temporary directory, removed on drop.
struct Scratch {
    path: std::path::PathBuf,
}

impl Scratch {
    fn new() -> Result<(Scratch, Repository), git2::Error> {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(|e| git2::Error::from_str(&e.to_string()))?;
        let name: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let path = std::env::temp_dir().join(format!("baseline-resolver-ls-remote-{name}"));
        let git = Repository::init_bare(&path)?;
        Ok((Scratch { path }, git))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// `git ls-remote URL`: one connection, every advertised ref, no redirect
/// to another host followed.
///
/// libgit2's `connect` takes no redirect policy but reads
/// `http.followRedirects` from the repository it belongs to, so the remote
/// belongs to an empty scratch repository configured never to follow one.
pub fn list_refs(url: &str, auth: Option<&Auth>) -> Result<RemoteRefs, GitError> {
    let refused = Refused::default();
    let fail = |e: git2::Error| remote_error("ls-remote", url, &refused, &e);
    let (_scratch, git) = Scratch::new().map_err(fail)?;
    git.config()
        .and_then(|mut c| c.set_bool("http.followRedirects", false))
        .map_err(fail)?;
    let mut remote = git.remote_anonymous(url).map_err(fail)?;
    let target = remote.url().unwrap_or(url).to_owned();
    let fail = |e: git2::Error| remote_error("ls-remote", &target, &refused, &e);
    let connection = remote
        .connect_auth(
            Direction::Fetch,
            Some(callbacks(auth, &refused)),
            Some(proxy()),
        )
        .map_err(fail)?;
    let heads = connection.list().map_err(fail)?;
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
    // The advertisement is not a pack, so libgit2 counts no bytes for it;
    // estimate from the pkt-lines: 4 + 41 + name + 1 bytes per ref.
    refs.received_bytes = refs.refs.iter().fold(0usize, |sum, (n, _)| {
        sum.saturating_add(n.len()).saturating_add(46)
    });
    Ok(refs)
}

/// The merge-base of two commits from the git repository at (or above)
/// `dir`, when both are present there. `None` when they are not, or there
/// is no repository: the caller then asks the network.
pub fn merge_base(dir: &Path, a: &Sha, b: &Sha) -> Option<Sha> {
    let git = Repository::discover(dir).ok()?;
    let a = git
        .find_commit(git2::Oid::from_str(a.as_str()).ok()?)
        .ok()?
        .id();
    let b = git
        .find_commit(git2::Oid::from_str(b.as_str()).ok()?)
        .ok()?
        .id();
    let base = git.merge_base(a, b).ok()?;
    Sha::parse(&base.to_string()).ok()
}

/// The first parent of `commit` in the git repository at (or above) `dir`,
/// when the commit is there and has a parent.
pub fn first_parent(dir: &Path, commit: &Sha) -> Option<Sha> {
    let git = Repository::discover(dir).ok()?;
    let commit = git
        .find_commit(git2::Oid::from_str(commit.as_str()).ok()?)
        .ok()?;
    let parent = commit.parent_id(0).ok()?;
    Sha::parse(&parent.to_string()).ok()
}

/// The ref `--fetch` writes, so the commit is kept and easy to check out.
pub const FETCH_REF: &str = "refs/baseline-resolver/base";

/// What `--fetch` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetched {
    /// The clone already had the commit: only the ref was set, no network,
    /// and the clone's history (and depth) untouched.
    AlreadyPresent,
    /// Fetched at depth 1.
    Fetched,
}

/// Points [`FETCH_REF`] at `sha` when the repository at `dir` already holds
/// the commit (no network; `--fetch` offline, and a fetch that has nothing
/// to fetch); `false` when it does not.
pub fn point_at_local(dir: &Path, sha: &Sha) -> Result<bool, GitError> {
    let target = dir.display().to_string();
    let git = Repository::open(dir).map_err(git_err("open", &target))?;
    let oid = git2::Oid::from_str(sha.as_str()).map_err(git_err("open", &target))?;
    if git.find_commit(oid).is_err() {
        return Ok(false);
    }
    git.reference(FETCH_REF, oid, true, "baseline-resolver: base commit")
        .map_err(git_err("set the base ref in", &target))?;
    Ok(true)
}

/// Fetches exactly `sha` at depth 1 from `url` into the repository at `dir`
/// (no tags, no other refs) and points [`FETCH_REF`] at it. One attempt.
/// A clone that already holds the commit is not touched beyond the ref:
/// a depth-1 fetch into a full clone would make it shallow.
///
/// The user's repository is never left worse than it was found: what a
/// fetch needs and a copied checkout may lack (`objects/pack`, empty
/// directories a copy drops) is created first, and on any failure
/// `.git/shallow`, `FETCH_HEAD` and the ref are put back as they were (a
/// failed depth-1 fetch once left `shallow` naming a commit that was not
/// there, which broke every later git command in the checkout).
pub fn fetch_commit(
    dir: &Path,
    url: &str,
    sha: &Sha,
    auth: Option<&Auth>,
) -> Result<Fetched, GitError> {
    if point_at_local(dir, sha)? {
        return Ok(Fetched::AlreadyPresent);
    }
    let target = dir.display().to_string();
    let git = Repository::open(dir).map_err(git_err("open", &target))?;
    let oid = git2::Oid::from_str(sha.as_str()).map_err(git_err("open", &target))?;
    let saved = Saved::take(&git);
    // libgit2 finds the pack directory when it opens a repository: open it
    // again once the directories are there.
    let result = prepare(&git, &target)
        .and_then(|()| Repository::open(dir).map_err(git_err("open", &target)))
        .and_then(|fresh| fetch(&fresh, url, sha, oid, auth, &target));
    if result.is_err() {
        saved.put_back(&git);
    }
    result.map(|()| Fetched::Fetched)
}

fn fetch(
    git: &Repository,
    url: &str,
    sha: &Sha,
    oid: git2::Oid,
    auth: Option<&Auth>,
    target: &str,
) -> Result<(), GitError> {
    let refused = Refused::default();
    let mut remote = git
        .remote_anonymous(url)
        .map_err(|e| remote_error("fetch from", url, &refused, &e))?;
    // An `insteadOf` in the clone's config may have rewritten the URL: name
    // the one actually asked.
    let asked = remote.url().unwrap_or(url).to_owned();
    let mut options = fetch_options(auth, &refused);
    options.depth(1);
    let refspec = format!("+{sha}:{FETCH_REF}");
    remote
        .fetch(&[refspec.as_str()], Some(&mut options), None)
        .map_err(|e| remote_error("fetch from", &asked, &refused, &e))?;
    git.find_commit(oid)
        .map_err(git_err("find fetched commit in", target))?;
    Ok(())
}

/// The directories a fetch writes into, which a checkout copied without
/// its empty directories lacks.
fn prepare(git: &Repository, target: &str) -> Result<(), GitError> {
    let git_dir = git.commondir();
    for sub in ["objects/pack", "objects/info", "refs/heads", "refs/tags"] {
        std::fs::create_dir_all(git_dir.join(sub)).map_err(|e| GitError::Git {
            action: "prepare",
            target: target.to_owned(),
            message: format!("cannot create {sub}: {e}"),
        })?;
    }
    Ok(())
}

/// What a fetch may change that a failed one must not leave changed.
struct Saved {
    files: Vec<(std::path::PathBuf, Option<Vec<u8>>)>,
    reference: Option<git2::Oid>,
}

impl Saved {
    fn take(git: &Repository) -> Saved {
        let files = [
            git.commondir().join("shallow"),
            git.path().join("FETCH_HEAD"),
        ]
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).ok();
            (path, bytes)
        })
        .collect();
        let reference = git.refname_to_id(FETCH_REF).ok();
        Saved { files, reference }
    }

    /// Best effort: each piece is put back on its own.
    fn put_back(self, git: &Repository) {
        for (path, bytes) in self.files {
            let _ = match bytes {
                Some(bytes) => std::fs::write(&path, bytes),
                None => std::fs::remove_file(&path).or_else(|e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        Ok(())
                    } else {
                        Err(e)
                    }
                }),
            };
        }
        match self.reference {
            Some(oid) => {
                let _ = git.reference(FETCH_REF, oid, true, "baseline-resolver: restored");
            }
            None => {
                if let Ok(mut r) = git.find_reference(FETCH_REF) {
                    let _ = r.delete();
                }
            }
        }
    }
}
