//! The network settings every online command takes, and their defaults:
//! where GitHub is (github.com, or Enterprise Server's `https://HOST` and
//! `https://HOST/api/v3`), how long all network work may take, and the
//! proxy variables the API client and git read. One place, so `resolve`,
//! `comment` and the commands after them accept the same values and say the
//! same thing of a wrong one.

use std::time::Duration;

use thiserror::Error;

use crate::runner::{InputError, Reader, shown};
use crate::validate::{RepoName, url};

/// github.com; Enterprise Server sets `GITHUB_SERVER_URL` to `https://HOST`.
pub const SERVER_URL: &str = "https://github.com";
/// The schemes `GITHUB_SERVER_URL` may have where git reads it: git://
/// and file:// serve local mirrors (and the tests' repositories).
const GIT_SCHEMES: [&str; 4] = ["https", "http", "git", "file"];

/// `GITHUB_SERVER_URL` as git reaches it ([`GIT_SCHEMES`]).
pub fn git_server(value: &str) -> Result<String, url::UrlProblem> {
    url::server(value, &GIT_SCHEMES)
}

/// `SERVER/owner/name.git`: where git finds a repository of the server.
pub fn git_url(server_url: &str, repo: &RepoName) -> String {
    format!("{server_url}/{repo}.git")
}

/// github.com's API; Enterprise Server's is `https://HOST/api/v3`.
pub const API_URL: &str = "https://api.github.com";
/// One deadline for all network work, in seconds.
pub const TIMEOUT_SECONDS: u64 = 60;
/// The longest `--timeout` accepted, in seconds.
pub const MAX_TIMEOUT_SECONDS: u64 = 3600;

/// `--timeout`, declared once for every online command (resolve, comment).
pub const TIMEOUT: crate::runner::Typed<Duration> = crate::runner::Typed {
    input: crate::runner::Input::one(
        "timeout",
        &["INPUT_TIMEOUT"],
        "SECONDS",
        "One deadline for all network work, in seconds.",
    )
    .default("60"),
    parse: |t| timeout(t).map_err(|e| e.to_string()),
};

/// A `--timeout` that is not whole seconds in range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("expected whole seconds from 1 to {max}, got {0:?}", max = MAX_TIMEOUT_SECONDS)]
pub struct BadTimeout(pub String);

/// `--timeout`: whole seconds (`60` or `60s`), 1 to [`MAX_TIMEOUT_SECONDS`].
pub fn timeout(value: &str) -> Result<Duration, BadTimeout> {
    match value.trim_end_matches('s').parse::<u64>() {
        Ok(seconds) if (1..=MAX_TIMEOUT_SECONDS).contains(&seconds) => {
            Ok(Duration::from_secs(seconds))
        }
        _ => Err(BadTimeout(shown(value))),
    }
}

/// The proxy variables the API client and git read: a value neither can
/// use would be ignored and the request would go direct, past the proxy
/// the user set. Checked only when the network is used.
const PROXIES: [&str; 6] = [
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
];

/// Every proxy variable set is a proxy URL the client can use.
pub fn check_proxies(r: &Reader<'_>) -> Result<(), InputError> {
    for var in PROXIES {
        if let Some(value) = r.var(var) {
            url::proxy(value.trim()).map_err(|e| InputError {
                origin: var.to_owned(),
                message: e.to_string(),
            })?;
        }
    }
    Ok(())
}
