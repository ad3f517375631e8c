//! The selection, pure: changed paths and the `[select]` config in, which
//! benchmark groups to run out. Failing safe: a path `all` or a group
//! claims is never ignored, every other path that is not ignored must
//! match something, and a path nobody mapped selects everything, with the
//! reason naming it. No I/O.

use super::changes::{Change, Status};
use super::index::{Index, Source};
use crate::config::Select;

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The whole suite.
    All,
    /// Only some groups.
    Some,
    /// Nothing: no relevant change.
    None,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::All => "all",
            Kind::Some => "some",
            Kind::None => "none",
        }
    }
}

/// What one changed path matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Matched {
    /// An `ignore` pattern.
    Ignored(String),
    /// An `all` pattern.
    All(String),
    /// These groups.
    Groups(Vec<String>),
    /// Nothing: everything runs.
    Unmapped,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathReport {
    pub path: String,
    pub status: Status,
    pub matched: Matched,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub kind: Kind,
    /// The groups selected, in config order (empty unless `some`).
    pub groups: Vec<String>,
    /// Changed paths (a rename counts twice).
    pub changed: usize,
    /// One line: why.
    pub reason: String,
    pub files: Vec<PathReport>,
}

impl Selection {
    /// Everything, for `reason` (no config decision was possible).
    pub fn all(reason: String, changed: usize) -> Selection {
        Selection {
            kind: Kind::All,
            groups: Vec::new(),
            changed,
            reason,
            files: Vec::new(),
        }
    }
}

/// What the files that differ select.
pub fn decide(changes: Vec<Change>, select: &Select) -> Selection {
    let changed = changes.len();
    if changed > select.max_files {
        return Selection::all(
            format!(
                "{changed} changed files, more than max-files ({}): everything runs",
                select.max_files
            ),
            changed,
        );
    }
    let index = Index::new(select);
    let mut chosen = vec![false; select.groups.len()];
    let mut files = Vec::with_capacity(changed);
    for change in changes {
        let matched = matched(&change.path, select, &index, &mut chosen);
        files.push(PathReport {
            path: change.path,
            status: change.status,
            matched,
        });
    }
    let everything = files.iter().find_map(|f| match &f.matched {
        Matched::All(pattern) => Some(format!(
            "{} matches all ({pattern}): everything runs",
            f.path
        )),
        Matched::Unmapped => Some(format!(
            "{} matches no group and no all or ignore pattern: everything runs",
            f.path
        )),
        _ => None,
    });
    let relevant = files
        .iter()
        .filter(|f| !matches!(f.matched, Matched::Ignored(_)))
        .count();
    let mut selection = Selection {
        kind: Kind::All,
        groups: Vec::new(),
        changed,
        reason: String::new(),
        files,
    };
    if let Some(reason) = everything {
        selection.reason = reason;
        return selection;
    }
    if relevant == 0 {
        selection.kind = Kind::None;
        selection.reason = if changed == 0 {
            "no file differs between the two commits: nothing to benchmark".to_owned()
        } else {
            format!("all {changed} changed files are ignored: nothing to benchmark")
        };
        return selection;
    }
    let groups: Vec<String> = select
        .groups
        .iter()
        .zip(&chosen)
        .filter(|(_, chosen)| **chosen)
        .map(|(g, _)| g.name.clone())
        .collect();
    selection.kind = Kind::Some;
    selection.reason = format!(
        "{relevant} relevant changed files select {} of {} groups: {}",
        groups.len(),
        select.groups.len(),
        groups.join(",")
    );
    selection.groups = groups;
    selection
}

/// What `path` matches: `all` first, then every group that claims it
/// (each marked in `chosen`, by position), and `ignore` only when nothing
/// claims it: an explicit claim beats a broad ignore, so a benchmark the
/// change affects is never skipped because a housekeeping glob covers it.
fn matched(path: &str, select: &Select, index: &Index<'_>, chosen: &mut [bool]) -> Matched {
    let hits = index.matches(path);
    let Some((first, pattern)) = hits.first() else {
        return Matched::Unmapped;
    };
    match first {
        Source::Ignore(_) => Matched::Ignored(pattern.text.clone()),
        Source::All(_) => Matched::All(pattern.text.clone()),
        Source::Group(_) => {
            let mut groups: Vec<usize> = hits
                .iter()
                .filter_map(|(s, _)| match s {
                    Source::Group(g) => Some(*g),
                    _ => None,
                })
                .collect();
            groups.dedup();
            for g in &groups {
                if let Some(c) = chosen.get_mut(*g) {
                    *c = true;
                }
            }
            Matched::Groups(
                groups
                    .into_iter()
                    .filter_map(|g| select.groups.get(g).map(|g| g.name.clone()))
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load::parse;

    fn config() -> Select {
        parse(
            r#"
            [select]
            all = ["CMakeLists.txt", "scripts/run_benchmark.sh"]
            ignore = ["**/*.md", "docs/**"]
            max-files = 5
            [[select.groups]]
            name = "softmax"
            paths = ["kernels/softmax/**"]
            rows = ["op=softmax*"]
            [[select.groups]]
            name = "moe"
            paths = ["kernels/moe/**", "kernels/common/**"]
            [[select.groups]]
            name = "gemm"
            paths = ["kernels/gemm/**", "kernels/common/**"]
            "#,
        )
        .unwrap()
        .select
        .unwrap()
    }

    fn change(path: &str) -> Change {
        Change {
            path: path.to_owned(),
            status: Status::Modified,
        }
    }

    fn decide_paths(paths: &[&str]) -> Selection {
        decide(paths.iter().map(|p| change(p)).collect(), &config())
    }

    #[test]
    fn groups_all_ignore_and_unmapped() {
        let s = decide_paths(&["kernels/softmax/a.cu", "README.md"]);
        assert_eq!(
            (s.kind, s.groups.clone()),
            (Kind::Some, vec!["softmax".to_owned()])
        );
        let s = decide_paths(&["kernels/common/x.h"]);
        assert_eq!(s.groups, ["moe", "gemm"], "config order");
        let s = decide_paths(&["docs/a.txt", "x/README.md"]);
        assert_eq!(s.kind, Kind::None);
        let s = decide_paths(&["CMakeLists.txt", "kernels/moe/a"]);
        assert_eq!(s.kind, Kind::All);
        assert!(
            s.reason.contains("CMakeLists.txt matches all"),
            "{}",
            s.reason
        );
        let s = decide_paths(&["kernels/softmax/a.cu", "new_dir/thing.py"]);
        assert_eq!(s.kind, Kind::All);
        assert!(
            s.reason.starts_with("new_dir/thing.py matches no group"),
            "{}",
            s.reason
        );
        let s = decide_paths(&["a", "b", "c", "d", "e", "f"]);
        assert_eq!(s.kind, Kind::All);
        assert!(s.reason.contains("more than max-files (5)"), "{}", s.reason);
        assert_eq!(decide(Vec::new(), &config()).kind, Kind::None);
    }
}
