//! One integration test binary (faster to link than one per file), with a
//! module per capability.

mod action;
mod architecture;
mod arm64;
mod artifacts;
mod bad_corpus;
mod bad_input;
mod cli;
mod commands;
mod comment;
mod comment_issue;
mod compare;
mod compare_safety;
mod config_docs;
mod defaults;
mod failures;
mod fixtures;
mod git_fallback;
mod https;
mod lint;
mod memory;
mod noise;
mod online;
mod outputs;
mod properties;
mod proxy;
mod rules;
mod secrets;
mod select;
mod select_precedence;
mod selection;
mod snapshots;
mod soak;
mod support;
mod token_scope;
mod trend;
