//! The files that differ between the two benchmarked commits: a tree-to-tree
//! diff by libgit2, with rename detection (a rename counts its old and its
//! new path), deletions, mode changes and submodule pointer changes
//! included. It needs both commits' trees, not their history, so it works
//! on the depth-1 fetch of the base that `resolve --fetch` makes.

use std::path::Path;

use std::collections::HashMap;

use git2::{Delta, DiffFindOptions, DiffOptions, Oid, Repository};
use thiserror::Error;

use crate::validate::Sha;

/// More added or deleted files than this after the exact renames: no
/// search for similar content among them, they stay additions and
/// deletions (git's `diff.renameLimit`). Every path still counts; only the
/// status says less.
pub const RENAME_LIMIT: usize = 1000;

#[derive(Debug, Error)]
pub enum ChangesError {
    #[error("{0}")]
    Git(String),
}

/// How a path changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Added,
    Deleted,
    Modified,
    Renamed,
    Copied,
    /// File, symlink or submodule became another of these.
    TypeChanged,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Deleted => "deleted",
            Status::Modified => "modified",
            Status::Renamed => "renamed",
            Status::Copied => "copied",
            Status::TypeChanged => "type-changed",
        }
    }
}

/// One changed path (a rename gives two: its old path and its new one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub status: Status,
}

/// The changes from `base` to `head` in the repository at (or above) `dir`.
pub fn between(dir: &Path, base: &Sha, head: &Sha) -> Result<Vec<Change>, ChangesError> {
    let fail = |what: &str, e: git2::Error| ChangesError::Git(format!("{what}: {}", e.message()));
    // Read objects as git does, without hashing each one again: the two
    // trees of the runner's own checkout, checked when they were fetched.
    // (libgit2's check was a tenth of the time of 10,000 changed files.)
    git2::opts::strict_hash_verification(false);
    let git = Repository::discover(dir)
        .map_err(|e| fail(&format!("no git repository at {}", dir.display()), e))?;
    let tree = |sha: &Sha| {
        let oid = Oid::from_str(sha.as_str()).map_err(|e| fail("not an object id", e))?;
        let commit = git.find_commit(oid).map_err(|e| {
            fail(
                &format!(
                    "commit {sha} is not in {} (fetch it, e.g. with resolve's fetch input)",
                    dir.display()
                ),
                e,
            )
        })?;
        commit.tree().map_err(|e| {
            fail(
                &format!(
                    "the tree of {sha} is not in the repository (a shallow clone without it?)"
                ),
                e,
            )
        })
    };
    let (old, new) = (tree(base)?, tree(head)?);
    let mut options = DiffOptions::new();
    options.include_typechange(true).ignore_submodules(false);
    let diff = git
        .diff_tree_to_tree(Some(&old), Some(&new), Some(&mut options))
        .map_err(|e| fail("diff", e))?;
    let mut entries: Vec<Entry> = diff.deltas().map(|d| Entry::of(&d)).collect();
    pair_exact(&mut entries);
    pair_similar(&git, &old, &new, &mut entries).map_err(|e| fail("rename detection", e))?;
    let mut changes = Vec::with_capacity(entries.len());
    for entry in entries {
        let Entry {
            status,
            old_path,
            new_path,
            ..
        } = entry;
        match status {
            Some(Status::Renamed) => {
                changes.extend(old_path.map(|path| Change {
                    path,
                    status: Status::Renamed,
                }));
                changes.extend(new_path.map(|path| Change {
                    path,
                    status: Status::Renamed,
                }));
            }
            Some(Status::Deleted) => {
                changes.extend(old_path.map(|path| Change {
                    path,
                    status: Status::Deleted,
                }));
            }
            Some(status) => {
                changes.extend(new_path.or(old_path).map(|path| Change { path, status }));
            }
            None => {} // the deleted half of a rename, listed with it
        }
    }
    Ok(changes)
}

/// One delta of the diff; `status` `None` once it is the old half of a
/// rename.
struct Entry {
    status: Option<Status>,
    old_path: Option<String>,
    new_path: Option<String>,
    old_id: Oid,
    new_id: Oid,
}

impl Entry {
    fn of(delta: &git2::DiffDelta<'_>) -> Entry {
        let path = |f: git2::DiffFile<'_>| f.path().map(|p| p.to_string_lossy().into_owned());
        let status = match delta.status() {
            Delta::Added => Status::Added,
            Delta::Deleted => Status::Deleted,
            Delta::Renamed => Status::Renamed,
            Delta::Copied => Status::Copied,
            Delta::Typechange => Status::TypeChanged,
            _ => Status::Modified,
        };
        Entry {
            status: Some(status),
            old_path: path(delta.old_file()),
            new_path: path(delta.new_file()),
            old_id: delta.old_file().id(),
            new_id: delta.new_file().id(),
        }
    }

    /// Makes this added entry the rename of the deleted `from`.
    fn rename_from(&mut self, from: &mut Entry) {
        self.status = Some(Status::Renamed);
        self.old_path = from.old_path.take();
        from.status = None;
    }
}

/// Renames of identical content, by object id (what git finds first): a
/// hash lookup per added file, where libgit2 would weigh every added file
/// against every deleted one.
fn pair_exact(entries: &mut [Entry]) {
    let mut deleted: HashMap<Oid, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate().rev() {
        if e.status == Some(Status::Deleted) && !e.old_id.is_zero() {
            deleted.entry(e.old_id).or_default().push(i);
        }
    }
    for i in 0..entries.len() {
        if entries
            .get(i)
            .is_none_or(|e| e.status != Some(Status::Added))
        {
            continue;
        }
        let id = entries.get(i).map_or_else(Oid::zero, |e| e.new_id);
        if let Some(from) = deleted.get_mut(&id).and_then(Vec::pop) {
            rename(entries, i, from);
        }
    }
}

/// Renames of similar content among the added and deleted files left, by
/// libgit2 on a diff of only those paths, when there are at most
/// [`RENAME_LIMIT`] on either side (beyond, git too gives up on them).
fn pair_similar(
    git: &Repository,
    old: &git2::Tree<'_>,
    new: &git2::Tree<'_>,
    entries: &mut [Entry],
) -> Result<(), git2::Error> {
    let left = |status: Status| {
        entries
            .iter()
            .enumerate()
            .filter(move |(_, e)| e.status == Some(status))
            .map(|(i, _)| i)
    };
    let added: Vec<usize> = left(Status::Added).collect();
    let deleted: Vec<usize> = left(Status::Deleted).collect();
    if added.is_empty() || deleted.is_empty() || added.len().max(deleted.len()) > RENAME_LIMIT {
        return Ok(());
    }
    let mut options = DiffOptions::new();
    options.disable_pathspec_match(true);
    for &i in added.iter().chain(&deleted) {
        if let Some(path) = entries
            .get(i)
            .and_then(|e| e.new_path.as_ref().or(e.old_path.as_ref()))
        {
            options.pathspec(path);
        }
    }
    let mut diff = git.diff_tree_to_tree(Some(old), Some(new), Some(&mut options))?;
    let mut find = DiffFindOptions::new();
    find.renames(true);
    diff.find_similar(Some(&mut find))?;
    let index_of = |path: Option<&Path>, status: Status, ids: &[usize], entries: &[Entry]| {
        let path = path?.to_string_lossy();
        ids.iter().copied().find(|&i| {
            entries.get(i).is_some_and(|e| {
                let own = if status == Status::Added {
                    &e.new_path
                } else {
                    &e.old_path
                };
                e.status == Some(status) && own.as_deref() == Some(&*path)
            })
        })
    };
    for delta in diff.deltas().filter(|d| d.status() == Delta::Renamed) {
        let to = index_of(delta.new_file().path(), Status::Added, &added, entries);
        let from = index_of(delta.old_file().path(), Status::Deleted, &deleted, entries);
        if let (Some(to), Some(from)) = (to, from) {
            rename(entries, to, from);
        }
    }
    Ok(())
}

/// Entry `to` (added) becomes the rename of entry `from` (deleted).
fn rename(entries: &mut [Entry], to: usize, from: usize) {
    if to == from {
        return;
    }
    let (low, high) = (to.min(from), to.max(from));
    let (head, tail) = entries.split_at_mut(high);
    let (Some(a), Some(b)) = (head.get_mut(low), tail.first_mut()) else {
        return;
    };
    if to < from {
        a.rename_from(b)
    } else {
        b.rename_from(a)
    }
}
