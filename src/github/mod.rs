//! The GitHub REST API, as a runner reaches it (for `resolve`, and for
//! `comment`'s pull-request comment): `GITHUB_API_URL` (github.com
//! or Enterprise Server's `https://HOST/api/v3`), the job's token, the
//! machine's proxy settings.
//!
//! What is done by hand, and why: each request goes over a reqwest client
//! built here ([`client`]: the API URL's path with Enterprise Server's
//! prefix, `Authorization` from the token, the API version header), so the
//! transport is chosen on purpose (native-tls on the OpenSSL libgit2
//! links, TLS 1.2+, HTTP/2, proxies). No GitHub client crate: octocrab
//! carried these requests before, its typed models and its retry, timeout
//! and pagination layers unused, at 40 crates of build time. The resolver
//! reads a few fields of ten endpoints
//! ([`wire`], small structs a new field cannot break), follows `Link`
//! pages as paths on its own base URL (the token never follows a link to
//! another host), reads bodies under a size budget while they stream, and
//! decides retries and rate-limit waits itself under one deadline
//! ([`policy`], a pure function with unit tests), because GitHub's rules
//! (primary and secondary limits, `Retry-After`, `x-ratelimit-reset`) and
//! this tool's (never wait past the deadline, clamp every number) are no
//! client crate's defaults. Failures are named by [`error`] and diagnosed in a
//! few words by [`diagnose`].
//! See <https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api>.

mod client;
mod comments;
mod diagnose;
mod endpoints;
mod error;
pub mod event;
pub mod network;
mod policy;
mod pulls;
pub mod wire;

pub use client::{Api, Config};
pub use comments::{IssueComment, Thread};
pub use endpoints::Tag;
pub use error::{ApiError, Permission};
pub use pulls::pulls_of_run;
pub use wire::{Artifact, ArtifactRun, Pull, Run, RunRepo};
