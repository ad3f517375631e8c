//! What can go wrong with a request, in words that say what to do about it
//! (which permission, which host, which limit), and whether the API as a
//! whole is out of reach so that git may answer instead.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApiError {
    #[error("{what}: not found (HTTP 404) in {repo}")]
    NotFound { what: String, repo: String },
    #[error(
        "{what}: HTTP {status} ({message}); the token cannot read this. Give the workflow `permissions: {permission}` (and a token for private repositories)"
    )]
    Forbidden {
        what: String,
        status: u16,
        message: String,
        permission: &'static str,
    },
    #[error(
        "{what}: the token was refused (HTTP 401: {message}): it is expired or wrong, or none was passed; pass the job's token (the action's default, `token: ${{{{ github.token }}}}`)"
    )]
    Unauthorized { what: String, message: String },
    /// `kind` is "rate limit" (the hourly quota is used up) or "secondary
    /// rate limit" (too many requests at once or too fast).
    #[error(
        "{what}: {kind} (HTTP {status}); it lifts in {wait_seconds}s, past the deadline or the retries"
    )]
    RateLimited {
        what: String,
        kind: &'static str,
        status: u16,
        wait_seconds: u64,
    },
    #[error("{what}: HTTP {status} ({message})")]
    Status {
        what: String,
        status: u16,
        message: String,
    },
    #[error("{what}: the server answered HTTP {status} {attempts} times")]
    ServerError {
        what: String,
        status: u16,
        attempts: u32,
    },
    /// The request did not get an answer: `cause` is the root cause alone
    /// (`connection refused`), not the chain of wrappers around it.
    #[error("{what}: {host}: {cause}")]
    Transport {
        what: String,
        host: String,
        cause: String,
    },
    /// The server's certificate was refused. Final: retrying cannot help,
    /// and nothing is ever retried without TLS.
    #[error(
        "{what}: {host}: certificate not trusted ({reason}); if a private CA signs it, add that CA to the system store or set SSL_CERT_FILE"
    )]
    Certificate {
        what: String,
        host: String,
        reason: String,
    },
    /// The TLS handshake failed for another reason (a protocol version
    /// below TLS 1.2, a plain-HTTP server at an https URL). Final too.
    #[error("{what}: {host}: TLS handshake failed: {reason}")]
    Tls {
        what: String,
        host: String,
        reason: String,
    },
    #[error("{what}: no answer within the {seconds}s deadline")]
    Deadline { what: String, seconds: u64 },
    #[error("{what}: unexpected answer: {message}")]
    Invalid { what: String, message: String },
    /// The API answered, and the answer does not decide: several candidates
    /// and no rule to pick one. Final: nothing is guessed.
    #[error("{what}")]
    Undecided { what: String },
}

impl ApiError {
    /// True when the API as a whole is out of reach (down, rate limited, no
    /// network), so git may answer instead; false when the API answered and
    /// the answer is final (404, 403 permission, 422).
    pub fn api_unavailable(&self) -> bool {
        matches!(
            self,
            ApiError::RateLimited { .. }
                | ApiError::ServerError { .. }
                | ApiError::Transport { .. }
                | ApiError::Deadline { .. }
                | ApiError::Invalid { .. }
        )
    }
}

/// Which permission an endpoint needs, for the message of a 401/403.
#[derive(Debug, Clone, Copy)]
pub enum Permission {
    Contents,
    PullRequests,
    /// Commenting on a pull request.
    PullRequestsWrite,
    /// An issue's comments (`comment --issue`).
    Issues,
    IssuesWrite,
    Actions,
}

impl Permission {
    pub fn text(self) -> &'static str {
        match self {
            Permission::Contents => "contents: read",
            Permission::PullRequests => "pull-requests: read",
            Permission::PullRequestsWrite => "pull-requests: write",
            Permission::Issues => "issues: read",
            Permission::IssuesWrite => "issues: write",
            Permission::Actions => "actions: read",
        }
    }
}
