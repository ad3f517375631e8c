//! Every default of `resolve`, in one place. The help text, `action.yml` and
//! docs/resolve.md repeat them for their readers; a test checks they agree.

/// The comparison label: dashboards parse it, so it stays `main`.
pub const LABEL: &str = crate::validate::Label::DEFAULT;
/// Release tags: a glob over tag names.
pub const TAG_PATTERN: &str = "v*";
/// `base` (the pull request's base.sha) or `merge-base`.
pub const MODE: &str = "base";
/// The network defaults every online command shares.
pub use crate::github::network::{API_URL, MAX_TIMEOUT_SECONDS, SERVER_URL, TIMEOUT_SECONDS};
