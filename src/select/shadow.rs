//! A config that shadows itself: an `ignore` glob that also covers a path
//! an `all` pattern or a group claims. The claim wins (a mapped path is
//! never dropped), so that part of the ignore is dead, and a maintainer
//! who wrote it probably meant something else: say so, naming both
//! patterns and a path. Pure: paths in, pairs out.

use std::collections::HashSet;

use super::index::{Index, Source};
use crate::config::Select;

/// Pairs of patterns reported at most.
pub const MAX_SHADOWS: usize = 20;

/// An `ignore` pattern and a claim that both match `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shadow {
    pub ignore: String,
    pub claim: String,
    /// `all`, or the group's name.
    pub by: String,
    /// One path both match.
    pub path: String,
}

impl Shadow {
    pub fn message(&self) -> String {
        let by = if self.by == "all" {
            "all claims".to_owned()
        } else {
            format!("group {} claims", self.by)
        };
        format!(
            "ignore pattern {:?} also matches {}, which {by} ({:?}): the claim wins, so that ignore is partly dead",
            self.ignore, self.path, self.claim
        )
    }
}

/// The (ignore, claim) pairs that both match some path of `paths`, one
/// per pair, in the order found, at most [`MAX_SHADOWS`]. `done` says
/// whether the list is full (the caller may stop walking).
pub struct Shadows<'c> {
    select: &'c Select,
    index: Index<'c>,
    seen: HashSet<(Source, Source, usize)>,
    pub found: Vec<Shadow>,
}

impl<'c> Shadows<'c> {
    pub fn new(select: &'c Select) -> Shadows<'c> {
        Shadows {
            select,
            index: Index::new(select),
            seen: HashSet::new(),
            found: Vec::new(),
        }
    }

    /// Looks at one path; false once [`MAX_SHADOWS`] pairs are found.
    /// Most paths of a tree match no ignore pattern: those are tried
    /// against the ignore patterns alone, split once.
    pub fn visit(&mut self, path: &str) -> bool {
        if self.select.ignore.is_empty() {
            return false;
        }
        let parts = crate::glob::PathGlob::split(path);
        if !self
            .select
            .ignore
            .iter()
            .any(|p| p.glob.matches_split(&parts))
        {
            return true;
        }
        let hits = self.index.matches(path);
        let ignores = hits.iter().filter(|(s, _)| !s.claims());
        for (ignore, ip) in ignores {
            for (claim, cp) in hits.iter().filter(|(s, _)| s.claims()) {
                if self.found.len() >= MAX_SHADOWS {
                    return false;
                }
                // Patterns of one group are told apart by their address.
                let key = (*ignore, *claim, std::ptr::from_ref(*cp) as usize);
                if !self.seen.insert(key) {
                    continue;
                }
                let by = match claim {
                    Source::Group(g) => self
                        .select
                        .groups
                        .get(*g)
                        .map_or_else(String::new, |g| g.name.clone()),
                    _ => "all".to_owned(),
                };
                self.found.push(Shadow {
                    ignore: ip.text.clone(),
                    claim: cp.text.clone(),
                    by,
                    path: path.to_owned(),
                });
            }
        }
        self.found.len() < MAX_SHADOWS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load::parse;

    #[test]
    fn each_pair_once_naming_both_patterns() {
        let select = parse(
            r#"
            [select]
            all = ["scripts/run_benchmark.sh"]
            ignore = ["scripts/*.sh", "tests/kernels/test_*.py", "**/*.md"]
            [[select.groups]]
            name = "norm"
            paths = ["tests/kernels/test_rmsnorm.py", "kernels/norm/**"]
            "#,
        )
        .unwrap()
        .select
        .unwrap();
        let mut s = Shadows::new(&select);
        for p in [
            "scripts/run_benchmark.sh",
            "scripts/other.sh",
            "tests/kernels/test_rmsnorm.py",
            "kernels/norm/README.md",
            "kernels/norm/NOTES.md",
            "README.md",
        ] {
            assert!(s.visit(p));
        }
        let pairs: Vec<(&str, &str, &str)> = s
            .found
            .iter()
            .map(|f| (f.ignore.as_str(), f.claim.as_str(), f.by.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("scripts/*.sh", "scripts/run_benchmark.sh", "all"),
                (
                    "tests/kernels/test_*.py",
                    "tests/kernels/test_rmsnorm.py",
                    "norm"
                ),
                ("**/*.md", "kernels/norm/**", "norm"),
            ]
        );
        assert!(
            s.found[0].message().contains("which all claims"),
            "{}",
            s.found[0].message()
        );
    }

    #[test]
    fn at_most_twenty_pairs() {
        let groups: String = (0..30)
            .map(|i| format!("[[select.groups]]\nname = \"g{i}\"\npaths = [\"k/{i}/**\"]\n"))
            .collect();
        let select = parse(&format!("[select]\nignore = [\"**/*.md\"]\n{groups}"))
            .unwrap()
            .select
            .unwrap();
        let mut s = Shadows::new(&select);
        let mut more = true;
        for i in 0..30 {
            more = s.visit(&format!("k/{i}/a.md"));
            if !more {
                break;
            }
        }
        assert!(!more);
        assert_eq!(s.found.len(), MAX_SHADOWS);
    }
}
