//! The results files a command is pointed at, before they are read: a
//! pattern's files in run order, their limits, and the run a history
//! file's name stands for. Shared by `compare` (the current runs, the
//! baselines, the history) and `trend` (main's history), so both accept
//! the same names and refuse the same sizes.

use std::path::{Path, PathBuf};

use super::read::{MAX_FILE_BYTES, TableError};
use crate::glob::Glob;
use crate::validate::Sha;

/// The most files one command reads, so that thousands of files cannot
/// exhaust threads or descriptors.
pub const MAX_FILES: usize = 1000;
/// The most bytes all of one command's files may hold together (each at
/// most 64 MiB).
pub const MAX_TOTAL_BYTES: u64 = 512 * 1024 * 1024;

/// A pattern's files: itself, or with `*`/`?` in its last part, the files
/// of that directory whose names match, in name order (name history files
/// so that they sort by run: `history/0042-<sha>.csv`).
pub fn expand(pattern: &Path) -> Vec<PathBuf> {
    let name = pattern
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !name.contains(['*', '?']) {
        return if pattern.exists() {
            vec![pattern.to_owned()]
        } else {
            Vec::new()
        };
    }
    let dir = match pattern.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let glob = Glob::new(&name);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| glob.matches(&e.file_name().to_string_lossy()))
        .map(|e| dir.join(e.file_name()))
        .collect();
    paths.sort();
    paths
}

/// Refuses, before reading anything, files that together are over
/// `limit` by the sizes they report (the reader checks again as it reads).
pub fn check_total<'p>(
    paths: impl IntoIterator<Item = &'p Path>,
    limit: u64,
) -> Result<(), TableError> {
    let mut total: u64 = 0;
    for path in paths {
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        total = total.saturating_add(size.min(MAX_FILE_BYTES.saturating_add(1)));
        if total > limit {
            return Err(TableError::OverBudget {
                path: path.to_owned(),
                limit,
            });
        }
    }
    Ok(())
}

/// The run a history file stands for: its name without the extension
/// (`0042-<sha>`), and the commit when the name ends in `-<sha>` (40 hex
/// or 64 hex digits, as the rolling-history example names them).
pub fn run_of(path: &Path) -> (String, Option<Sha>) {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sha = stem
        .rsplit_once('-')
        .map_or(stem.as_str(), |(_, tail)| tail);
    let sha = Sha::parse(sha).ok();
    (stem, sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_name_gives_its_run_and_commit() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let (run, found) = run_of(Path::new(&format!("h/0042-{sha}.csv")));
        assert_eq!(run, format!("0042-{sha}"));
        assert_eq!(found.map(|s| s.to_string()), Some(sha.to_owned()));
        assert_eq!(run_of(Path::new("h/0042.csv")), ("0042".to_owned(), None));
        assert_eq!(run_of(Path::new("h/0042-main.csv")).1, None);
        assert!(run_of(Path::new(&format!("h/{sha}.csv"))).1.is_some());
    }
}
