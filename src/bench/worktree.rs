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
}

/// `git -C repo args...`, its stdout; a failure names the action and
/// git's own first lines (cut: a hostile ref name stays data).
fn git(repo: &Path, action: &'static str, args: &[&str]) -> Result<String, WorktreeError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
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
pub fn head(repo: &Path) -> Result<String, WorktreeError> {
    git(
        repo,
        "rev-parse HEAD",
        &["rev-parse", "--verify", "HEAD^{commit}"],
    )
}

/// Whether the clone holds `sha`; if not, fetches exactly that commit at
/// depth 1 (no tags) from `from`: the base repository's URL (a checkout of
/// a fork's head has the fork as `origin`, whose copy of main may be
/// stale or gone), or `origin` when the resolution names no repository.
/// Returns whether it fetched.
pub fn ensure(repo: &Path, sha: &str, from: &str) -> Result<bool, WorktreeError> {
    let object = format!("{sha}^{{commit}}");
    if git(repo, "cat-file", &["cat-file", "-e", &object]).is_ok() {
        return Ok(false);
    }
    git(
        repo,
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
    git(repo, "cat-file", &["cat-file", "-e", &object])?;
    Ok(true)
}

/// A detached worktree, removed when dropped.
#[derive(Debug)]
pub struct Worktree {
    repo: PathBuf,
    pub path: PathBuf,
    removed: bool,
}

impl Worktree {
    /// `git worktree add --detach path sha`; `path` must not exist yet.
    pub fn add(repo: &Path, path: &Path, sha: &str) -> Result<Worktree, WorktreeError> {
        let dir = path.to_string_lossy();
        git(
            repo,
            "worktree add",
            &["worktree", "add", "--quiet", "--detach", &dir, sha],
        )?;
        Ok(Worktree {
            repo: repo.to_owned(),
            path: path.to_owned(),
            removed: false,
        })
    }

    /// Removes the worktree and its registration; what git cannot remove
    /// (files the harness made read-only, a mount) is removed by hand.
    pub fn remove(&mut self) -> Result<(), WorktreeError> {
        self.removed = true;
        let dir = self.path.to_string_lossy();
        let removed = git(
            &self.repo,
            "worktree remove",
            &["worktree", "remove", "--force", "--force", &dir],
        );
        if self.path.exists() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        let _ = git(&self.repo, "worktree prune", &["worktree", "prune"]);
        if self.path.exists() {
            return removed.and(Err(WorktreeError::Git {
                action: "worktree remove",
                message: format!("{} is still there", shown(&dir)),
            }));
        }
        Ok(())
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        if !self.removed {
            let _ = self.remove();
        }
    }
}
