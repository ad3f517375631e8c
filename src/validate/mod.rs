//! Why `validate`: each type here can only be made by checking its input,
//! so holding one is proof the value was validated.
//!
//! Validated identifiers: commit SHAs, repository names, git ref names and
//! comparison labels; the job's token ([`secret`]) and the runner's URLs
//! ([`url`]).
//!
//! Every value that reaches an output passes through one of these types, so a
//! later step can trust its shape: a SHA is a full lowercase object id (never
//! short, never a branch name, never the all-zero id), a repository is
//! `owner/name`, a ref obeys `git check-ref-format`. Payload fields and command
//! line values are untrusted (a fork pull request is written by a stranger), and
//! these checks are what stops them from smuggling anything into a later `run:`.

pub mod secret;
pub mod url;

use std::fmt;

use serde::Serialize;
use thiserror::Error;

use crate::runner::shown;

/// Why a value was refused. The text is shown after the name of the field or
/// flag it came from, e.g. `pull_request.base.sha: not a full commit SHA ...`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InvalidValue {
    #[error("not a full commit SHA (40 or 64 hex digits): {0:?}")]
    Sha(String),
    #[error("is the all-zero SHA, which names no commit")]
    ZeroSha,
    #[error("not a repository name of the form owner/name: {0:?}")]
    Repo(String),
    #[error("not a valid git ref name ({reason}): {value:?}")]
    Ref { value: String, reason: &'static str },
    #[error("not a valid label (letters, digits, '_' first, then also '.', '~', '-'): {0:?}")]
    Label(String),
}

/// A full commit object id: 40 hex digits (SHA-1) or 64 (SHA-256), lowercase.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Sha(String);

impl Sha {
    /// Accepts either case (GitHub always sends lowercase, people paste
    /// uppercase) and stores lowercase so comparisons and outputs agree.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let full_length = value.len() == 40 || value.len() == 64;
        if !full_length || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(InvalidValue::Sha(shown(value)));
        }
        if value.bytes().all(|b| b == b'0') {
            return Err(InvalidValue::ZeroSha);
        }
        Ok(Sha(value.to_ascii_lowercase()))
    }

    /// The all-zero id GitHub puts in `before` of a created ref and `after` of
    /// a deleted one. It is a marker, not a commit, and must never be fetched.
    pub fn is_zero(value: &str) -> bool {
        (value.len() == 40 || value.len() == 64) && value.bytes().all(|b| b == b'0')
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 12 digits, for prose only; outputs always carry the full id.
    pub fn short(&self) -> &str {
        self.0.get(..12).unwrap_or(&self.0)
    }
}

impl fmt::Display for Sha {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `owner/name` as GitHub allows it: ASCII letters, digits, `-`, `_`, `.`;
/// neither part may be `.` or `..` (those would walk a URL path).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct RepoName(String);

impl RepoName {
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let bad = || InvalidValue::Repo(shown(value));
        let (owner, name) = value.split_once('/').ok_or_else(bad)?;
        let part_ok = |part: &str, max: usize| {
            !part.is_empty()
                && part.len() <= max
                && part != "."
                && part != ".."
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        };
        if part_ok(owner, 39 + 60) && part_ok(name, 100) {
            Ok(RepoName(value.to_owned()))
        } else {
            Err(bad())
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn owner(&self) -> &str {
        self.0.split_once('/').map_or("", |(owner, _)| owner)
    }

    pub fn name(&self) -> &str {
        self.0.split_once('/').map_or("", |(_, name)| name)
    }

    /// GitHub treats repository names case-insensitively, so `ROCm/FlyDSL` and
    /// `rocm/flydsl` are the same repository, not a fork.
    pub fn same_repo(&self, other: &RepoName) -> bool {
        self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl fmt::Display for RepoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A branch or tag name (short, like `main`, or full, like `refs/tags/v1`)
/// that `git check-ref-format --allow-onelevel` would accept, minus non-ASCII
/// bytes and anything over 255 bytes, which GitHub refuses too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct RefName(String);

impl RefName {
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match ref_problem(value) {
            None => Ok(RefName(value.to_owned())),
            Some(reason) => Err(InvalidValue::Ref {
                value: shown(value),
                reason,
            }),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `refs/heads/main` -> `main`; a ref outside `refs/heads/` stays whole.
    pub fn branch(&self) -> Option<&str> {
        self.0.strip_prefix("refs/heads/")
    }

    /// `refs/tags/v1.2` -> `v1.2`.
    pub fn tag(&self) -> Option<&str> {
        self.0.strip_prefix("refs/tags/")
    }

    /// The short name: branch or tag name without its `refs/...` prefix.
    pub fn short(&self) -> &str {
        self.branch().or_else(|| self.tag()).unwrap_or(&self.0)
    }
}

impl fmt::Display for RefName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The rules of `git check-ref-format` (see git-check-ref-format(1)), one
/// reason per rule so the error says which one was broken.
fn ref_problem(value: &str) -> Option<&'static str> {
    if value.is_empty() {
        return Some("empty");
    }
    if value.len() > 255 {
        return Some("longer than 255 bytes");
    }
    if value == "@" {
        return Some("'@' alone");
    }
    // git refuses it, and a later `git fetch URL -x` would read it as an option.
    if value.starts_with('-') {
        return Some("starts with '-'");
    }
    if !value.is_ascii() {
        return Some("non-ASCII character");
    }
    for b in value.bytes() {
        if b.is_ascii_control() {
            return Some("control character");
        }
        if matches!(b, b' ' | b'~' | b'^' | b':' | b'?' | b'*' | b'[' | b'\\') {
            return Some("forbidden character (space ~ ^ : ? * [ \\)");
        }
    }
    if value.contains("..") {
        return Some("contains '..'");
    }
    if value.contains("@{") {
        return Some("contains '@{'");
    }
    if value.starts_with('/') || value.ends_with('/') || value.contains("//") {
        return Some("empty path component");
    }
    if value.ends_with('.') {
        return Some("ends with '.'");
    }
    for component in value.split('/') {
        if component.starts_with('.') {
            return Some("a component starts with '.'");
        }
        if component.ends_with(".lock") {
            return Some("a component ends with '.lock'");
        }
    }
    None
}

/// The comparison label (`main` by default): dashboards parse it from the
/// report header, so it is kept to characters that survive any parser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Label(String);

impl Label {
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let mut bytes = value.bytes();
        let first_ok = bytes
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        let rest_ok =
            bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'~' | b'-'));
        if first_ok && rest_ok && value.len() <= 100 {
            Ok(Label(value.to_owned()))
        } else {
            Err(InvalidValue::Label(shown(value)))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Label {
    /// `main`: the dashboards that parse comparison labels look for it.
    pub const DEFAULT: &str = "main";
}

impl Default for Label {
    fn default() -> Self {
        Label(Label::DEFAULT.to_owned())
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha_accepts_full_ids_and_lowercases() {
        let upper = "F95F852BD8FCA8FCC58A9A2D6C842781E32A215E";
        assert_eq!(Sha::parse(upper).unwrap().as_str(), upper.to_lowercase());
        let sha256 = "a".repeat(64);
        assert_eq!(Sha::parse(&sha256).unwrap().as_str(), sha256);
    }

    #[test]
    fn sha_refuses_short_zero_and_non_hex() {
        assert!(matches!(Sha::parse("fa4f8ae2"), Err(InvalidValue::Sha(_))));
        assert_eq!(Sha::parse(&"0".repeat(40)), Err(InvalidValue::ZeroSha));
        assert_eq!(Sha::parse(&"0".repeat(64)), Err(InvalidValue::ZeroSha));
        assert!(Sha::parse(&"g".repeat(40)).is_err());
        assert!(Sha::parse("main").is_err());
        assert!(Sha::parse(&"a".repeat(41)).is_err());
        assert!(Sha::parse("").is_err());
        assert!(Sha::is_zero(&"0".repeat(40)));
        assert!(!Sha::is_zero(&"0".repeat(39)));
    }

    #[test]
    fn repo_names() {
        for ok in [
            "ROCm/FlyDSL",
            "octo-org/octo.repo",
            "a/b_c",
            "jhinpan/FlyDSL-lab",
        ] {
            assert!(RepoName::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/",
            "owner",
            "owner/",
            "/name",
            "a/b/c",
            "../x",
            "x/..",
            "a b/c",
            "a/b c",
            "оwner/name", // Cyrillic 'о'
            "a/b;id",
            "a/b\n",
        ] {
            assert!(RepoName::parse(bad).is_err(), "{bad:?}");
        }
        let a = RepoName::parse("ROCm/FlyDSL").unwrap();
        assert!(a.same_repo(&RepoName::parse("rocm/flydsl").unwrap()));
        assert_eq!((a.owner(), a.name()), ("ROCm", "FlyDSL"));
    }

    #[test]
    fn ref_names_follow_check_ref_format() {
        for ok in [
            "main",
            "refs/heads/feature/x",
            "refs/tags/v0.3.2.dev838",
            "v1$(id)",
            "v1;id",
            "a@b",
        ] {
            assert!(RefName::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "@",
            "a..b",
            "a b",
            "a~1",
            "a^",
            "a:b",
            "a?",
            "a*",
            "a[",
            "a\\b",
            "/a",
            "a/",
            "a//b",
            "a.",
            ".a",
            "a/.b",
            "a.lock",
            "a/b.lock/c",
            "a@{1}",
            "a\nb",
            "a\rb",
            "é",
            "-",
            "-a",
        ] {
            assert!(RefName::parse(bad).is_err(), "{bad:?}");
        }
        assert!(RefName::parse(&"a".repeat(256)).is_err());
        let r = RefName::parse("refs/heads/main").unwrap();
        assert_eq!((r.branch(), r.short()), (Some("main"), "main"));
        let t = RefName::parse("refs/tags/v1").unwrap();
        assert_eq!((t.tag(), t.short()), (Some("v1"), "v1"));
    }

    #[test]
    fn labels() {
        for ok in ["main", "main-mi355", "_x", "v1.2~3"] {
            assert!(Label::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-main", ".main", "main x", "main:1", "ma\nin", "mäin"] {
            assert!(Label::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let err = Sha::parse(&"z".repeat(10_000)).unwrap_err().to_string();
        assert!(err.len() < 200, "{err}");
        assert!(err.contains("(10000 bytes)"));
    }
}
