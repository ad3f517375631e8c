//! Release tags: version ordering, the tag pattern, and which tag is "latest"
//! or "previous".
//!
//! Tags are ordered as versions, never as strings: `v1.10.0` > `v1.9.3`, and
//! PEP 440 development releases such as `v0.3.2.dev838` sit between
//! `v0.3.1` and `v0.3.2`. One ordering covers both PEP 440
//! (<https://peps.python.org/pep-0440/>) and semver (<https://semver.org>): a
//! version is reduced to the comparison key that `packaging` uses
//! (epoch, release with trailing zeros dropped, pre-release, post-release,
//! development release), with pre-release labels normalised (`a` -> `alpha`,
//! `b` -> `beta`, `c`/`pre`/`preview` -> `rc`) and compared like semver
//! identifiers, so `alpha < beta < rc` holds in both schemes and any other
//! semver label sorts as semver says. Build metadata and local versions
//! (`+...`) do not order; ties are broken by the tag name, so the choice is
//! deterministic.
//!
//! The text is read by the `pep440_rs` and `semver` crates (a PEP 440
//! version first, semver for the labels PEP 440 has no word for); only the
//! shared key is ours. Where the crates are more lenient than the
//! specifications (a second `v`, spaces, a separator with no number after
//! it) the text is refused before they see it; semver's numbers with
//! leading zeros (`1.0.07-x`, `1.0.0-nightly.01`) are not versions, as semver
//! 2.0.0 says.

use std::cmp::Ordering;

use crate::glob::glob_match;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ident {
    Num(u64),
    Text(String),
}

/// A parsed version. Equality and order follow the comparison key, so
/// `1.0 == 1.0.0` and `1.0c1 == 1.0rc1`.
#[derive(Debug, Clone)]
pub struct Version {
    pub epoch: u64,
    pub release: Vec<u64>,
    pub pre: Option<Vec<Ident>>,
    pub post: Option<u64>,
    pub dev: Option<u64>,
}

/// packaging's `_cmpkey` bounds: a missing part sorts below or above every
/// present one, depending on the part.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Bound<T> {
    Low,
    Is(T),
    High,
}

/// (epoch, release, pre, post, dev), compared in that order.
type Key<'a> = (
    u64,
    &'a [u64],
    Bound<&'a Vec<Ident>>,
    Bound<u64>,
    Bound<u64>,
);

impl Version {
    /// Parses a tag name such as `v1.2.3`, `1.2.3-rc.1+build.5`,
    /// `v0.3.2.dev838`, `2!1.0.post2`. `None` for anything else.
    pub fn parse(tag: &str) -> Option<Version> {
        let text = tag.strip_prefix(['v', 'V']).unwrap_or(tag);
        // Both schemes start with a digit. The PEP 440 reader would also
        // take a second `v` and surrounding spaces, which no tag name is.
        if !text.starts_with(|c: char| c.is_ascii_digit())
            || text.contains(|c: char| !c.is_ascii_graphic())
        {
            return None;
        }
        // Build metadata / local version: ignored for ordering, but must be
        // well formed.
        let text = match text.split_once('+') {
            Some((main, meta)) => {
                let ok = !meta.is_empty()
                    && meta
                        .split(['.', '-', '_'])
                        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric()));
                if !ok {
                    return None;
                }
                main
            }
            None => text,
        };
        pep440(text).or_else(|| semver(text))
    }

    pub fn is_prerelease(&self) -> bool {
        self.pre.is_some() || self.dev.is_some()
    }

    #[allow(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "end stays within 1..=len"
    )]
    fn key(&self) -> Key<'_> {
        let release = {
            let mut end = self.release.len();
            while end > 1 && self.release[end - 1] == 0 {
                end -= 1;
            }
            &self.release[..end]
        };
        let pre = match (&self.pre, self.post, self.dev) {
            (None, None, Some(_)) => Bound::Low,
            (None, _, _) => Bound::High,
            (Some(pre), _, _) => Bound::Is(pre),
        };
        let post = self.post.map_or(Bound::Low, Bound::Is);
        let dev = self.dev.map_or(Bound::High, Bound::Is);
        (self.epoch, release, pre, post, dev)
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// PEP 440, as `pep440_rs` reads it (its normalisation: `1.0-alpha-1` is
/// `1.0a1`, `1.0c1` is `1.0rc1`, `1.0-1` is `1.0.post1`), the labels
/// spelled as the semver identifiers they are compared with.
fn pep440(text: &str) -> Option<Version> {
    // The reader also takes a separator with no number after it (`1.0rc.`,
    // `1.0rc--2`), which PEP 440's grammar (and `packaging`) refuses.
    let separator = |b: &u8| matches!(b, b'.' | b'-' | b'_');
    let bytes = text.as_bytes();
    if bytes.last().is_some_and(separator) || bytes.windows(2).any(|w| w.iter().all(separator)) {
        return None;
    }
    let parsed: pep440_rs::Version = text.parse().ok()?;
    let pre = parsed.pre().map(|pre| {
        let label = match pre.kind {
            pep440_rs::PrereleaseKind::Alpha => "alpha",
            pep440_rs::PrereleaseKind::Beta => "beta",
            pep440_rs::PrereleaseKind::Rc => "rc",
        };
        vec![Ident::Text(label.to_owned()), Ident::Num(pre.number)]
    });
    Some(Version {
        epoch: parsed.epoch(),
        release: parsed.release().to_vec(),
        pre,
        post: parsed.post(),
        dev: parsed.dev(),
    })
}

/// `MAJOR.MINOR.PATCH-pre.ids` as the `semver` crate reads it, for
/// pre-release labels PEP 440 has no word for (`-beta.2.x`,
/// `-nightly.20240101`); a version without one is PEP 440's already.
fn semver(text: &str) -> Option<Version> {
    let parsed = semver::Version::parse(text).ok()?;
    if parsed.pre.is_empty() {
        return None;
    }
    let pre = parsed
        .pre
        .as_str()
        .split('.')
        .map(|id| {
            if id.bytes().all(|b| b.is_ascii_digit()) {
                id.parse().ok().map(Ident::Num)
            } else {
                Some(Ident::Text(id.to_owned()))
            }
        })
        .collect::<Option<_>>()?;
    Some(Version {
        epoch: 0,
        release: vec![parsed.major, parsed.minor, parsed.patch],
        pre: Some(pre),
        post: None,
        dev: None,
    })
}

/// The literal start of a pattern (`v*` -> `v`): the prefix the API's
/// `matching-refs` endpoint filters on, so only candidate tags travel.
pub fn literal_prefix(pattern: &str) -> &str {
    let end = pattern.find(['*', '?']).unwrap_or(pattern.len());
    pattern.get(..end).unwrap_or(pattern)
}

/// A tag as listed by the API or git (the client's type: both list it).
pub use crate::github::Tag;

/// Which tags count, as the user asked.
#[derive(Debug, Clone)]
pub struct TagPolicy {
    pub pattern: String,
    pub prereleases: bool,
}

impl Default for TagPolicy {
    fn default() -> Self {
        TagPolicy {
            pattern: "v*".to_owned(),
            prereleases: false,
        }
    }
}

impl TagPolicy {
    /// Tags that match the pattern, parse as versions and are allowed as
    /// releases, highest first.
    fn candidates<'a>(&self, tags: &'a [Tag]) -> Vec<(Version, &'a Tag)> {
        let mut found: Vec<(Version, &Tag)> = tags
            .iter()
            .filter(|t| glob_match(&self.pattern, &t.name))
            .filter_map(|t| Version::parse(&t.name).map(|v| (v, t)))
            .filter(|(v, _)| self.prereleases || !v.is_prerelease())
            .collect();
        found.sort_by(|(va, ta), (vb, tb)| vb.cmp(va).then_with(|| tb.name.cmp(&ta.name)));
        found
    }

    /// The highest version.
    pub fn latest<'a>(&self, tags: &'a [Tag]) -> Option<&'a Tag> {
        self.candidates(tags).first().map(|(_, t)| *t)
    }

    /// The highest version below `current` (the tag being released), which
    /// is itself excluded. When `current` is not a version, the highest tag
    /// that is not `current`.
    pub fn previous<'a>(&self, tags: &'a [Tag], current: &str) -> Option<&'a Tag> {
        let current_version = Version::parse(current);
        self.candidates(tags)
            .into_iter()
            .filter(|(_, t)| t.name != current)
            .find(|(v, _)| current_version.as_ref().is_none_or(|cv| v < cv))
            .map(|(_, t)| t)
    }
}

/// `tag-version`: the tag without its leading `v`.
pub fn tag_version(tag: &str) -> &str {
    tag.strip_prefix(['v', 'V']).unwrap_or(tag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::Sha;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap_or_else(|| panic!("{s} parses"))
    }

    #[test]
    fn ordering_examples_from_the_contract() {
        assert!(v("v1.10.0") > v("v1.9.3"));
        assert!(v("v0.3.2.dev838") < v("v0.3.2"));
        assert!(v("v0.3.2.dev838") > v("v0.3.1"));
        assert!(v("v0.3.2.dev838") > v("v0.3.2.dev9"));
    }

    #[test]
    fn pep440_ordering() {
        let ordered = [
            "1.0.dev456",
            "1.0a1",
            "1.0a2.dev456",
            "1.0a12.dev456",
            "1.0a12",
            "1.0b1.dev456",
            "1.0b2",
            "1.0b2.post345.dev456",
            "1.0b2.post345",
            "1.0rc1.dev456",
            "1.0rc1",
            "1.0",
            "1.0.post456.dev34",
            "1.0.post456",
            "1.1.dev1",
            "1!0.1",
        ];
        for pair in ordered.windows(2) {
            assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
        }
        assert_eq!(v("1.0"), v("1.0.0"));
        assert_eq!(v("1.0c1"), v("1.0rc1"));
        assert_eq!(v("1.0-alpha-1"), v("1.0a1"));
        assert_eq!(v("1.0.post0"), v("1.0-0"));
    }

    #[test]
    fn semver_ordering() {
        let ordered = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.1.0",
            "2.0.0",
        ];
        for pair in ordered.windows(2) {
            assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
        }
        assert_eq!(v("1.0.0+build.1").cmp(&v("1.0.0")), Ordering::Equal);
        assert!(v("1.0.0-rc.1").is_prerelease());
    }

    #[test]
    fn not_versions() {
        for s in [
            "",
            "v",
            "latest",
            "v1.",
            "1..2",
            "v1.2.3-",
            "1.2.3+",
            "release-1",
            "v1$(id)",
            "1.0.0-beta..1",
            "vv1.0",
            " 1.0",
            "1.0 ",
            "1.0rc.",
            "1.0rc--2",
            "1.2.3-nightly.01",
            "1.2.07-nightly",
            "1.2.3-18446744073709551616",
            "1.2.*",
        ] {
            assert!(Version::parse(s).is_none(), "{s:?}");
        }
    }

    fn tag(name: &str) -> Tag {
        Tag {
            name: name.to_owned(),
            object: Sha::parse(&"a".repeat(40)).unwrap(),
            commit: None,
        }
    }

    #[test]
    fn literal_prefixes() {
        assert_eq!(literal_prefix("v*"), "v");
        assert_eq!(literal_prefix("release/v?*"), "release/v");
        assert_eq!(literal_prefix("*"), "");
    }

    #[test]
    fn latest_and_previous() {
        let tags: Vec<Tag> = [
            "v0.3.0",
            "v0.3.1",
            "v0.3.2.dev838",
            "v1.9.3",
            "v1.10.0-rc.1",
            "nightly",
            "x1.0",
        ]
        .into_iter()
        .map(tag)
        .collect();
        let stable = TagPolicy::default();
        assert_eq!(stable.latest(&tags).unwrap().name, "v1.9.3");
        let pre = TagPolicy {
            prereleases: true,
            ..Default::default()
        };
        assert_eq!(pre.latest(&tags).unwrap().name, "v1.10.0-rc.1");
        assert_eq!(stable.previous(&tags, "v1.9.3").unwrap().name, "v0.3.1");
        assert_eq!(pre.previous(&tags, "v1.9.3").unwrap().name, "v0.3.2.dev838");
        assert_eq!(stable.previous(&tags, "v0.3.0"), None);
        assert_eq!(stable.previous(&tags, "nightly").unwrap().name, "v1.9.3");
        let none = TagPolicy {
            pattern: "release-*".into(),
            prereleases: false,
        };
        assert_eq!(none.latest(&tags), None);
        assert_eq!(tag_version("v0.3.2.dev838"), "0.3.2.dev838");
    }
}
