//! The report files the globs name, found by walking the directories
//! below each glob's literal start (`reports` of `reports/**/report.json`)
//! and matching every path with the gitignore-style [`PathGlob`] `select`
//! uses: `*` and `?` within one directory, `**` any number of them.
//!
//! The directories are a stranger's (artifacts a fork's run uploaded), so
//! the walk is bounded: at most [`MAX_ENTRIES`] entries looked at and
//! [`MAX_DEPTH`] directories deep, at most [`MAX_REPORTS`] files matched;
//! a symbolic link is never followed (one that matches is handed on as a
//! report that cannot be read, so it fails its job instead of vanishing).

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::glob::PathGlob;
use crate::runner::shown;

/// Reports one gate reads: a matrix of a few dozen jobs is common; more
/// than this is a glob that matched what it should not.
pub const MAX_REPORTS: usize = 256;
/// Directory entries looked at over all globs.
pub const MAX_ENTRIES: usize = 100_000;
/// Directories below a glob's start a `**` descends.
pub const MAX_DEPTH: usize = 32;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum FindError {
    #[error(
        "no report matches {globs}: no job left a report (a gate with nothing to judge never passes; check the artifacts' download path)"
    )]
    Nothing { globs: String },
    #[error("over {MAX_REPORTS} reports match {glob}: narrow the glob")]
    TooMany { glob: String },
    #[error(
        "over {MAX_ENTRIES} directory entries walked for {glob}: start the glob in the artifacts' directory"
    )]
    TooBig { glob: String },
}

/// A file a glob matched.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    pub path: PathBuf,
    /// A symbolic link: not followed, not read.
    pub link: bool,
}

/// Every file the globs match, in path order, each once; a glob that
/// matches nothing is returned apart (a warning), none matching at all
/// is an error.
pub fn find(globs: &[String]) -> Result<(Vec<Found>, Vec<String>), FindError> {
    let mut walk = Walk {
        found: Vec::new(),
        entries: 0,
    };
    let mut empty = Vec::new();
    for glob in globs {
        let before = walk.found.len();
        walk.glob(glob)?;
        if walk.found.len() == before {
            empty.push(glob.clone());
        }
    }
    let mut found = walk.found;
    found.sort();
    found.dedup_by(|a, b| a.path == b.path);
    if found.is_empty() {
        let named: Vec<String> = globs.iter().map(|g| format!("{:?}", shown(g))).collect();
        return Err(FindError::Nothing {
            globs: named.join(", "),
        });
    }
    Ok((found, empty))
}

struct Walk {
    found: Vec<Found>,
    entries: usize,
}

impl Walk {
    fn glob(&mut self, glob: &str) -> Result<(), FindError> {
        let absolute = glob.starts_with('/');
        let trimmed = glob.trim_start_matches("./");
        let pattern = PathGlob::new(trimmed);
        let start: PathBuf = pattern.literal_dirs().iter().collect();
        let root = if absolute {
            Path::new("/").join(&start)
        } else {
            start.clone()
        };
        let segments = PathGlob::split(trimmed).len();
        let depth = if trimmed.contains("**") {
            MAX_DEPTH
        } else {
            segments.saturating_sub(pattern.literal_dirs().len())
        };
        let dir = if root.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            root.clone()
        };
        let mut stack = vec![(dir, start, 1usize)];
        while let Some((dir, relative, level)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<_> = entries.filter_map(Result::ok).collect();
            self.entries = self.entries.saturating_add(names.len());
            if self.entries > MAX_ENTRIES {
                return Err(FindError::TooBig { glob: shown(glob) });
            }
            names.sort_by_key(std::fs::DirEntry::file_name);
            for entry in names {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                let rel = relative.join(entry.file_name());
                let text = rel.to_string_lossy();
                if kind.is_dir() {
                    if level < depth {
                        stack.push((path, rel.clone(), level.saturating_add(1)));
                    }
                } else if pattern.matches(&text) {
                    if self.found.len() >= MAX_REPORTS {
                        return Err(FindError::TooMany { glob: shown(glob) });
                    }
                    let path = if root.as_os_str().is_empty() {
                        rel
                    } else {
                        path
                    };
                    self.found.push(Found {
                        path,
                        link: kind.is_symlink(),
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_without_a_double_star_is_what_the_glob_names() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(dir.path().join("a/r.json"), "{}").unwrap();
        std::fs::write(deep.join("r.json"), "{}").unwrap();
        let base = dir.path().display().to_string();
        let (one, _) = find(&[format!("{base}/*/r.json")]).unwrap();
        assert_eq!(one.len(), 1);
        let (all, _) = find(&[format!("{base}/**/r.json")]).unwrap();
        assert_eq!(all.len(), 2);
    }
}
