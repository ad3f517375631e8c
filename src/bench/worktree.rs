//! The baseline's tree: a detached `git worktree` of the checkout at the
//! one resolved commit, fetched at depth 1 when the clone lacks it, removed
//! when dropped (after a failure or a timeout too). Through the git the
//! runner has: the credentials actions/checkout left for the server are
//! the ones it uses, so no token passes through this command.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use thiserror::Error;

use crate::runner::shown;

#[derive(Debug, Error)]
pub enum WorktreeError {
    #[error("cannot run git {action}: {source}")]
    Spawn {
        action: &'static str,
        source: std::io::Error,
    },
    #[error("git {action} failed: {message}")]
    Git {
        action: &'static str,
        message: String,
    },
    #[error(
        "{dir} is left with {count} entries that could not be deleted (written by another user, such as root inside a container?): {names}"
    )]
    Left {
        dir: String,
        count: usize,
        names: String,
    },
}

/// How many leftover paths a warning names; the rest are counted.
const NAMED: usize = 5;
/// How deep and how many entries the removal by hand walks: a tree a
/// stranger's harness wrote may be as deep and as wide as it likes.
const MAX_DEPTH: usize = 64;
const MAX_ENTRIES: usize = 200_000;

/// What the removal by hand could not delete.
#[derive(Default)]
struct Leftovers {
    seen: usize,
    count: usize,
    names: Vec<String>,
}

impl Leftovers {
    fn note(&mut self, path: &Path, root: &Path) {
        self.count = self.count.saturating_add(1);
        if self.names.len() < NAMED {
            let name = path.strip_prefix(root).unwrap_or(path);
            self.names.push(shown(&name.to_string_lossy()));
        }
    }
}

/// Deletes what it can under `dir` (a directory made writable first, so
/// read-only directories a harness left do not stop it) and notes what
/// it cannot; never follows a symlink. Bounded by [`MAX_DEPTH`] and
/// [`MAX_ENTRIES`]: past them, what is left is noted, not walked.
fn clear(dir: &Path, root: &Path, depth: usize, left: &mut Leftovers) {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        left.seen = left.seen.saturating_add(1);
        let path = entry.path();
        if left.seen > MAX_ENTRIES || depth >= MAX_DEPTH {
            left.note(&path, root);
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700));
            let before = left.count;
            clear(&path, root, depth.saturating_add(1), left);
            // A directory left because of what is in it is not named again.
            if std::fs::remove_dir(&path).is_err() && left.count == before {
                left.note(&path, root);
            }
        } else if std::fs::remove_file(&path).is_err() {
            left.note(&path, root);
        }
    }
}

/// `git -C checkout args...`, its stdout; a failure names the action and
/// git's own first lines (cut: a hostile ref name stays data).
fn git(checkout: &Path, action: &'static str, args: &[&str]) -> Result<String, WorktreeError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(checkout)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|source| WorktreeError::Spawn { action, source })?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let message: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    Err(WorktreeError::Git {
        action,
        message: shown(&message.join(" / ")),
    })
}

/// The commit the checkout is at (`{sha}` of the current side).
pub fn head(checkout: &Path) -> Result<String, WorktreeError> {
    git(
        checkout,
        "rev-parse HEAD",
        &["rev-parse", "--verify", "HEAD^{commit}"],
    )
}

/// Whether the clone holds `sha`; if not, fetches exactly that commit at
/// depth 1 (no tags) from `from`: the base repository's URL (a checkout of
/// a fork's head has the fork as `origin`, whose copy of main may be
/// stale or gone), or `origin` when the resolution names no repository.
/// Returns whether it fetched.
pub fn ensure(checkout: &Path, sha: &str, from: &str) -> Result<bool, WorktreeError> {
    let object = format!("{sha}^{{commit}}");
    if git(checkout, "cat-file", &["cat-file", "-e", &object]).is_ok() {
        return Ok(false);
    }
    git(
        checkout,
        "fetch of the base commit",
        &[
            "fetch",
            "--quiet",
            "--no-tags",
            "--depth=1",
            "--",
            from,
            sha,
        ],
    )?;
    git(checkout, "cat-file", &["cat-file", "-e", &object])?;
    Ok(true)
}

/// A detached worktree, removed when dropped.
#[derive(Debug)]
pub struct Worktree {
    checkout: PathBuf,
    pub path: PathBuf,
    removed: bool,
}

impl Worktree {
    /// `git worktree add --detach path sha`; `path` must not exist yet.
    pub fn add(checkout: &Path, path: &Path, sha: &str) -> Result<Worktree, WorktreeError> {
        let dir = path.to_string_lossy();
        git(
            checkout,
            "worktree add",
            &["worktree", "add", "--quiet", "--detach", &dir, sha],
        )?;
        Ok(Worktree {
            checkout: checkout.to_owned(),
            path: path.to_owned(),
            removed: false,
        })
    }

    /// Removes the worktree and its registration; what git cannot remove
    /// (files the harness made read-only, a mount) is removed by hand, and
    /// what nobody here may delete (files a container wrote as root) is
    /// named in the error, which the caller turns into a warning.
    pub fn remove(&mut self) -> Result<(), WorktreeError> {
        self.removed = true;
        let dir = self.path.to_string_lossy();
        let removed = git(
            &self.checkout,
            "worktree remove",
            &["worktree", "remove", "--force", "--force", &dir],
        );
        let mut left = Leftovers::default();
        if self.path.exists() {
            clear(&self.path, &self.path, 0, &mut left);
            let _ = std::fs::remove_dir(&self.path);
        }
        let _ = git(&self.checkout, "worktree prune", &["worktree", "prune"]);
        if !self.path.exists() {
            return Ok(());
        }
        if left.count > 0 {
            let more = left.count.saturating_sub(left.names.len());
            let mut names = left.names.join(", ");
            if more > 0 {
                names.push_str(&format!(" and {more} more"));
            }
            return Err(WorktreeError::Left {
                dir: shown(&dir),
                count: left.count,
                names,
            });
        }
        removed.and(Err(WorktreeError::Git {
            action: "worktree remove",
            message: format!("{} is still there", shown(&dir)),
        }))
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        if !self.removed {
            let _ = self.remove();
        }
    }
}
