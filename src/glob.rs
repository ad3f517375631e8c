//! Globs. [`Glob`]: shell-style over names: `*` is any run of characters,
//! `?` one character, everything else literal (release tag patterns `v*`,
//! comparison rules `op=allreduce*`, history file names). [`PathGlob`]:
//! gitignore-style over repository paths (`select`): `*` and `?` stay
//! within one path segment, a `**` segment matches any number of
//! directories including none (`**/*.md` matches `README.md`), a trailing
//! `/**` (or a trailing `/`) matches everything below; a pattern is
//! matched against the whole path from the repository's root, as GitHub's
//! `on.push.paths` filters are (not at any depth, as a slash-less
//! `.gitignore` line is: write `**/*.md`).
//!
//! A [`Glob`] is compiled once and matched without allocating: a config may
//! hold thousands of rules, each tried against every row. The common shapes
//! (a literal, `prefix*`, `*suffix`, `*`) are compared directly; anything
//! else runs the backtracking matcher over chars.

/// A compiled glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    shape: Shape,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    Any,
    Literal(String),
    Prefix(String),
    Suffix(String),
    General(Vec<char>),
}

impl Glob {
    pub fn new(pattern: &str) -> Glob {
        let wild = |s: &str| s.contains(['*', '?']);
        let shape = if pattern.chars().all(|c| c == '*') && !pattern.is_empty() {
            Shape::Any
        } else if !wild(pattern) {
            Shape::Literal(pattern.to_owned())
        } else if let Some(prefix) = pattern.strip_suffix('*').filter(|p| !wild(p)) {
            Shape::Prefix(prefix.to_owned())
        } else if let Some(suffix) = pattern.strip_prefix('*').filter(|s| !wild(s)) {
            Shape::Suffix(suffix.to_owned())
        } else {
            Shape::General(pattern.chars().collect())
        };
        Glob { shape }
    }

    /// The one name it matches, when it has no wildcard.
    pub fn literal(&self) -> Option<&str> {
        match &self.shape {
            Shape::Literal(l) => Some(l),
            _ => None,
        }
    }

    /// Whether `name` matches as a whole.
    pub fn matches(&self, name: &str) -> bool {
        match &self.shape {
            Shape::Any => true,
            Shape::Literal(l) => name == l,
            Shape::Prefix(p) => name.starts_with(p.as_str()),
            Shape::Suffix(s) => name.ends_with(s.as_str()),
            Shape::General(p) => general(p, name),
        }
    }
}

/// A gitignore-style path pattern, compiled into segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathGlob {
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// `**`: any number of whole segments, none included.
    Any,
    One(Glob),
}

impl PathGlob {
    /// Compiles `pattern` (a leading `/` is the root, as in gitignore; a
    /// trailing `/` names a directory: everything below it).
    pub fn new(pattern: &str) -> PathGlob {
        let mut segments: Vec<Segment> = pattern
            .trim_start_matches('/')
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s == "**" {
                    Segment::Any
                } else {
                    Segment::One(Glob::new(s))
                }
            })
            .collect();
        if pattern.ends_with('/') && segments.last().is_some_and(|s| *s != Segment::Any) {
            segments.push(Segment::Any);
        }
        // `**/**` matches what `**` does: one is kept.
        segments.dedup_by(|a, b| *a == Segment::Any && *b == Segment::Any);
        PathGlob { segments }
    }

    /// Whether `path` (`a/b/c.rs`, no leading `/`) matches as a whole.
    pub fn matches(&self, path: &str) -> bool {
        self.matches_split(&PathGlob::split(path))
    }

    /// A path's segments, for [`PathGlob::matches_split`]: split once, try
    /// every pattern (ten thousand paths against hundreds of patterns).
    pub fn split(path: &str) -> Vec<&str> {
        path.split('/').filter(|s| !s.is_empty()).collect()
    }

    /// The directories every path it matches starts with: its leading
    /// segments without a wildcard (`kernels/moe` of `kernels/moe/**`),
    /// all of them but the last segment, which may be a file's name.
    pub fn literal_dirs(&self) -> Vec<&str> {
        let upto = self.segments.len().saturating_sub(1);
        self.segments
            .iter()
            .take(upto)
            .map_while(|s| match s {
                Segment::One(glob) => glob.literal(),
                Segment::Any => None,
            })
            .collect()
    }

    /// Whether the path split by [`PathGlob::split`] matches as a whole.
    pub fn matches_split(&self, parts: &[&str]) -> bool {
        segments_match(&self.segments, parts)
    }
}

/// Segment matching: `**` is a star over whole segments, each other
/// segment one segment's glob, matched by [`star_match`] in time at most
/// (pattern segments + 1) x (path segments + 1) segment tests, whatever
/// the pattern (a recursive matcher took exponential time on
/// `**/**/**/.../*.md` against a deep path).
fn segments_match(pattern: &[Segment], path: &[&str]) -> bool {
    star_match(
        pattern.len(),
        path.len(),
        |p| matches!(pattern.get(p), Some(Segment::Any)),
        |p, s| match (pattern.get(p), path.get(s)) {
            (Some(Segment::One(glob)), Some(part)) => glob.matches(part),
            _ => false,
        },
    )
}

/// Wildcard matching over items: `star(p)` says pattern item `p` matches
/// any run of items (none included), `one(p, s)` whether pattern item `p`
/// matches item `s`. Greedy, remembering only the last star: when the rest
/// fails, that star takes one more item. This is exact for patterns whose
/// other items match exactly one item each, and each (pattern, item) pair
/// is tried at most once per position of the last star, so `one` is called
/// at most (patterns + 1) x (items + 1) times.
pub fn star_match(
    patterns: usize,
    items: usize,
    star: impl Fn(usize) -> bool,
    mut one: impl FnMut(usize, usize) -> bool,
) -> bool {
    let (mut p, mut s) = (0usize, 0usize);
    // (pattern item after the star, items the star has taken up to)
    let mut last: Option<(usize, usize)> = None;
    while s < items {
        if p < patterns && star(p) {
            p = p.saturating_add(1);
            last = Some((p, s));
        } else if p < patterns && one(p, s) {
            p = p.saturating_add(1);
            s = s.saturating_add(1);
        } else if let Some((after, taken)) = last {
            let taken = taken.saturating_add(1);
            last = Some((after, taken));
            p = after;
            s = taken;
        } else {
            return false;
        }
    }
    (p..patterns).all(star)
}

/// Whether `name` matches `pattern` as a whole (compiled each call: for a
/// pattern used once).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    Glob::new(pattern).matches(name)
}

/// The backtracking matcher: the last star is remembered and takes one
/// more character each time the rest fails, so it is linear in practice.
fn general(p: &[char], name: &str) -> bool {
    let next_char = |at: usize| name.get(at..).and_then(|r| r.chars().next());
    let (mut pi, mut at) = (0usize, 0usize);
    // (pattern index after the star, name offset the star has reached)
    let mut star: Option<(usize, usize)> = None;
    while let Some(c) = next_char(at) {
        match p.get(pi) {
            Some('*') => {
                pi = pi.saturating_add(1);
                star = Some((pi, at));
            }
            Some(&pc) if pc == '?' || pc == c => {
                pi = pi.saturating_add(1);
                at = at.saturating_add(c.len_utf8());
            }
            _ => match star {
                Some((sp, sn)) => {
                    let taken = sn.saturating_add(next_char(sn).map_or(1, char::len_utf8));
                    star = Some((sp, taken));
                    pi = sp;
                    at = taken;
                }
                None => return false,
            },
        }
    }
    p.get(pi..).unwrap_or_default().iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("v*", "v1.2"));
        assert!(!glob_match("v*", "1.2"));
        assert!(glob_match("v?.*", "v1.2"));
        assert!(glob_match("*-stable", "v1-stable"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("v1", "v12"));
        assert!(glob_match("a*b*c", "axxbyyc"));
        assert!(!glob_match("a*b*c", "axxbyy"));
        assert!(glob_match("*x8192", "1x8192"));
        assert!(glob_match("é?*", "éàb"));
        assert!(glob_match("**a", "a"));
        assert!(!glob_match("", "a"));
        assert!(glob_match("", ""));
    }

    #[test]
    fn path_globs_are_gitignore_style() {
        let m = |p: &str, path: &str| PathGlob::new(p).matches(path);
        assert!(m("**/*.md", "README.md"));
        assert!(m("**/*.md", "docs/a/b.md"));
        assert!(!m("*.md", "docs/b.md"), "* stays within a segment");
        assert!(m("*.md", "b.md"));
        assert!(m("kernels/softmax/**", "kernels/softmax/a/b.cu"));
        assert!(!m("kernels/softmax/**", "kernels/softmaxx/a.cu"));
        assert!(m("kernels/*/common.h", "kernels/moe/common.h"));
        assert!(!m("kernels/*/common.h", "kernels/moe/x/common.h"));
        assert!(m("a/**/b", "a/b"));
        assert!(m("a/**/b", "a/x/y/b"));
        assert!(!m("a/**/b", "a/x/y/c"));
        assert!(m("/CMakeLists.txt", "CMakeLists.txt"));
        assert!(
            !m("CMakeLists.txt", "sub/CMakeLists.txt"),
            "anchored at the root"
        );
        assert!(m("k?.py", "k1.py"));
        assert!(!m("k?.py", "k/.py"));
        assert!(m("docs/", "docs/a/b.txt"), "a trailing / is the directory");
        assert!(!m("docs/", "docsx/a.txt"));
    }

    /// Every shape agrees with a plain recursive matcher.
    #[test]
    fn the_fast_shapes_agree_with_the_definition() {
        fn reference(p: &[char], n: &[char]) -> bool {
            match (p.first(), n.first()) {
                (None, None) => true,
                (Some('*'), _) => reference(&p[1..], n) || (!n.is_empty() && reference(p, &n[1..])),
                (Some('?'), Some(_)) => reference(&p[1..], &n[1..]),
                (Some(a), Some(b)) if a == b => reference(&p[1..], &n[1..]),
                _ => false,
            }
        }
        let alphabet = ['a', 'b', '*', '?'];
        let mut patterns = vec![String::new()];
        for _ in 0..4 {
            let more: Vec<String> = patterns
                .iter()
                .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
                .collect();
            patterns.extend(more);
        }
        patterns.sort();
        patterns.dedup();
        let names = ["", "a", "b", "ab", "ba", "aab", "abb", "abab", "bbba"];
        for p in &patterns {
            let glob = Glob::new(p);
            let pc: Vec<char> = p.chars().collect();
            for n in names {
                let nc: Vec<char> = n.chars().collect();
                assert_eq!(glob.matches(n), reference(&pc, &nc), "{p:?} {n:?}");
            }
        }
    }

    /// Issue 26: `**/**/**/**/**/**/**/**/*.md` against a path 100
    /// directories deep gave no answer in 30 s. Runs of `**` are one, and
    /// matching tests each (pattern segment, path segment) pair a bounded
    /// number of times.
    #[test]
    fn stars_over_segments_are_linear() {
        let deep = format!("{}x.txt", "d/".repeat(100));
        let stars = format!("{}*.md", "**/".repeat(8));
        assert!(!PathGlob::new(&stars).matches(&deep));
        assert_eq!(PathGlob::new("a/**/**/b").segments.len(), 3);
        let mixed = format!("{}*.md", "**/d/".repeat(40));
        let (p, n) = (81usize, 101usize);
        let mut calls = 0usize;
        let glob = PathGlob::new(&mixed);
        let parts = PathGlob::split(&deep);
        star_match(
            glob.segments.len(),
            parts.len(),
            |i| matches!(glob.segments.get(i), Some(Segment::Any)),
            |i, j| {
                calls += 1;
                match (glob.segments.get(i), parts.get(j)) {
                    (Some(Segment::One(g)), Some(part)) => g.matches(part),
                    _ => false,
                }
            },
        );
        assert!(calls <= (p + 1) * (n + 1), "{calls}");
    }
}
