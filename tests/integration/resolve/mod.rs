//! `resolve` end to end: the rules, online and offline resolution against
//! a mock of the GitHub API over HTTPS, the git fallback, artifacts, bad
//! input, secrets, memory and the fault soak.

pub mod artifacts;
pub mod artifacts_bounds;
pub mod bad_corpus;
pub mod bad_input;
pub mod failures;
pub mod fixtures;
pub mod git_fallback;
pub mod https;
pub mod memory;
pub mod online;
pub mod proxy;
pub mod request_wave;
pub mod resolve_hostile_tags;
pub mod rules;
pub mod secrets;
pub mod snapshots;
pub mod soak;
pub mod token_scope;
