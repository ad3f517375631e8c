//! The config's path patterns, indexed by the literal directories they
//! start with, so that a changed path is tried only against the patterns
//! that could match it: ten thousand paths against a hundred groups would
//! otherwise be millions of glob matches. Pure.

use std::collections::HashMap;

use crate::config::{PathPattern, Select};
use crate::glob::PathGlob;

/// Where a pattern comes from, in the order a path tries them: the
/// explicit claims first (`all`, then every group), `ignore` last, so a
/// path the config maps is never dropped by a broad ignore, whatever order
/// the globs are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    All(usize),
    /// A group, by position.
    Group(usize),
    Ignore(usize),
}

impl Source {
    /// Whether this pattern claims a path (`all` or a group).
    pub fn claims(self) -> bool {
        !matches!(self, Source::Ignore(_))
    }
}

/// A trie over leading directories; each node lists the patterns (by
/// position in `patterns`) whose literal directories end there.
#[derive(Default)]
struct Node<'c> {
    here: Vec<usize>,
    below: HashMap<&'c str, Node<'c>>,
}

pub struct Index<'c> {
    /// In the order a path tries them: all, the groups', then ignore.
    patterns: Vec<(Source, &'c PathPattern)>,
    root: Node<'c>,
}

impl<'c> Index<'c> {
    pub fn new(select: &'c Select) -> Index<'c> {
        let mut patterns: Vec<(Source, &PathPattern)> = Vec::new();
        patterns.extend(
            select
                .all
                .iter()
                .enumerate()
                .map(|(i, p)| (Source::All(i), p)),
        );
        for (g, group) in select.groups.iter().enumerate() {
            patterns.extend(group.paths.iter().map(|p| (Source::Group(g), p)));
        }
        patterns.extend(
            select
                .ignore
                .iter()
                .enumerate()
                .map(|(i, p)| (Source::Ignore(i), p)),
        );
        let mut root = Node::default();
        for (id, (_, pattern)) in patterns.iter().enumerate() {
            let mut node = &mut root;
            for dir in pattern.glob.literal_dirs() {
                node = node.below.entry(dir).or_default();
            }
            node.here.push(id);
        }
        Index { patterns, root }
    }

    /// The patterns `path` matches, in the order they are tried.
    pub fn matches(&self, path: &str) -> Vec<(Source, &'c PathPattern)> {
        let parts = PathGlob::split(path);
        let mut candidates: Vec<usize> = self.root.here.clone();
        let mut node = &self.root;
        for part in &parts {
            let Some(next) = node.below.get(part) else {
                break;
            };
            candidates.extend_from_slice(&next.here);
            node = next;
        }
        candidates.sort_unstable();
        candidates
            .into_iter()
            .filter_map(|id| self.patterns.get(id).copied())
            .filter(|(_, p)| p.glob.matches_split(&parts))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load::parse;

    /// The index finds exactly what trying every pattern finds.
    #[test]
    fn the_index_agrees_with_trying_every_pattern() {
        let config = parse(
            r#"
            [select]
            all = ["CMakeLists.txt", "scripts/**", "**/BUILD"]
            ignore = ["**/*.md", "docs/", "kernels/*/notes.txt"]
            [[select.groups]]
            name = "a"
            paths = ["kernels/a/**", "kernels/common/*.h", "k?rnels/x/**"]
            [[select.groups]]
            name = "b"
            paths = ["kernels/b/**", "kernels/common/**", "*.cfg"]
            "#,
        )
        .unwrap();
        let select = config.select.unwrap();
        let index = Index::new(&select);
        let every: Vec<(Source, &PathPattern)> =
            select
                .all
                .iter()
                .enumerate()
                .map(|(i, p)| (Source::All(i), p))
                .chain(
                    select.groups.iter().enumerate().flat_map(|(g, group)| {
                        group.paths.iter().map(move |p| (Source::Group(g), p))
                    }),
                )
                .chain(
                    select
                        .ignore
                        .iter()
                        .enumerate()
                        .map(|(i, p)| (Source::Ignore(i), p)),
                )
                .collect();
        for path in [
            "CMakeLists.txt",
            "kernels/a/x.cu",
            "kernels/common/u.h",
            "kernels/common/deep/u.h",
            "kernels/b/README.md",
            "kernels/b/notes.txt",
            "kernels/x/y.cu",
            "docs/a/b",
            "scripts",
            "deep/er/BUILD",
            "top.cfg",
            "sub/top.cfg",
            "unmapped/file",
        ] {
            let want: Vec<Source> = every
                .iter()
                .filter(|(_, p)| p.glob.matches(path))
                .map(|(s, _)| *s)
                .collect();
            let got: Vec<Source> = index.matches(path).into_iter().map(|(s, _)| s).collect();
            assert_eq!(got, want, "{path}");
        }
    }
}
