//! Every default of `resolve`, in one place. The help text, `action.yml` and
//! the README repeat them for their readers; a test checks they agree.

/// The comparison label: dashboards parse it, so it stays `main`.
pub const LABEL: &str = crate::validate::Label::DEFAULT;
/// Release tags: a glob over tag names.
pub const TAG_PATTERN: &str = "v*";
/// One deadline for all network work, in seconds.
pub const TIMEOUT_SECONDS: u64 = 60;
/// The longest `--timeout` accepted, in seconds.
pub const MAX_TIMEOUT_SECONDS: u64 = 3600;
/// `base` (the pull request's base.sha) or `merge-base`.
pub const MODE: &str = "base";
/// github.com; Enterprise Server sets `GITHUB_SERVER_URL` to `https://HOST`.
pub const SERVER_URL: &str = "https://github.com";
/// github.com's API; Enterprise Server's is `https://HOST/api/v3`.
pub const API_URL: &str = "https://api.github.com";
