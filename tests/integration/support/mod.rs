//! What the tests stand on: the binary run as a runner would ([`harness`]),
//! and real servers on 127.0.0.1 that start and stop inside a test: the
//! HTTPS mock GitHub API ([`mock_github`] behind [`tls`]), git over smart
//! HTTP and TLS ([`git_https`]), bare repositories and `git daemon`
//! ([`gitrepo`]); and the runner's rules for what in a stream is a
//! workflow command ([`workflow_commands`]); a workflow's jobs run as a
//! runner runs them ([`workflow`], its expressions [`expr`]) on a project
//! shaped like the seed's ([`seed`]), for the docs' blocks ([`blocks`]).

pub mod blocks;
pub mod expr;
pub mod git_https;
pub mod gitrepo;
pub mod harness;
pub mod mock_github;
pub mod seed;
pub mod simulation;
pub mod tls;
pub mod workflow;
pub mod workflow_commands;
