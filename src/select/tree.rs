//! One commit's tree, for the config's own check: a revision as the user
//! wrote it (`HEAD`, a branch, a SHA) made a commit, and every path of its
//! tree walked once, bounded. A tree is a stranger's (a fork's commit): at
//! most [`MAX_PATHS`] paths are looked at, and the walk says when it
//! stopped short.

use std::path::Path;

use git2::{ObjectType, Repository, TreeWalkMode, TreeWalkResult};

use super::changes::ChangesError;
use crate::validate::Sha;

/// Paths of one tree looked at: ten times a very large monorepo's.
pub const MAX_PATHS: usize = 1_000_000;

fn fail(what: &str, e: &git2::Error) -> ChangesError {
    ChangesError::Git(format!("{what}: {}", e.message()))
}

/// The repository at or above `dir`. Objects are read as git reads them,
/// without hashing each one again (as `changes::between` does): the walk
/// of a tree of 10,000 files took twice as long with libgit2's check.
pub fn open(dir: &Path) -> Result<Repository, ChangesError> {
    git2::opts::strict_hash_verification(false);
    Repository::discover(dir)
        .map_err(|e| fail(&format!("no git repository at {}", dir.display()), &e))
}

/// The commit `rev` names in the repository at `dir` (any revision git
/// resolves: a full SHA, `HEAD`, a branch, `main~1`).
pub fn resolve(dir: &Path, rev: &str) -> Result<Sha, ChangesError> {
    let git = open(dir)?;
    let commit = git
        .revparse_single(rev)
        .and_then(|o| o.peel_to_commit())
        .map_err(|e| fail(&format!("{rev:?} names no commit in {}", dir.display()), &e))?;
    Sha::parse(&commit.id().to_string()).map_err(|e| ChangesError::Git(format!("{rev:?}: {e}")))
}

/// How a walk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Walked {
    pub paths: usize,
    /// Stopped at [`MAX_PATHS`] (or because `visit` said so).
    pub cut: bool,
}

/// Calls `visit` with every file (and submodule) path of `sha`'s tree,
/// until it returns false or [`MAX_PATHS`] were visited.
pub fn paths(
    dir: &Path,
    sha: &Sha,
    mut visit: impl FnMut(&str) -> bool,
) -> Result<Walked, ChangesError> {
    let git = open(dir)?;
    let tree = git2::Oid::from_str(sha.as_str())
        .and_then(|oid| git.find_commit(oid))
        .and_then(|c| c.tree())
        .map_err(|e| {
            fail(
                &format!("the tree of {sha} is not in {}", dir.display()),
                &e,
            )
        })?;
    let mut walked = Walked {
        paths: 0,
        cut: false,
    };
    let mut path = String::new();
    tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(ObjectType::Tree) {
            return TreeWalkResult::Ok;
        }
        if walked.paths >= MAX_PATHS {
            walked.cut = true;
            return TreeWalkResult::Abort;
        }
        let Some(name) = entry.name() else {
            return TreeWalkResult::Ok;
        };
        path.clear();
        path.push_str(root);
        path.push_str(name);
        walked.paths = walked.paths.saturating_add(1);
        if visit(&path) {
            TreeWalkResult::Ok
        } else {
            walked.cut = true;
            TreeWalkResult::Abort
        }
    })
    .or_else(|e| {
        // An abort is how the walk stops early, not a failure.
        if walked.cut {
            Ok(())
        } else {
            Err(fail("walking the tree", &e))
        }
    })?;
    Ok(walked)
}
