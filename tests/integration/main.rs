//! One integration test binary (faster to link than one per file), with a
//! module per capability.

// The tests print to the test harness's output, never to a runner's log
// (clippy.toml keeps the macros out of src/).
#![allow(clippy::disallowed_macros)]

mod action;
mod architecture;
mod architecture_doc;
mod architecture_habits;
mod arm64;
mod bench;
mod cli;
mod command_actions;
mod commands;
mod comment;
mod compare;
mod config_docs;
mod declarations;
mod defaults;
mod docs_blocks;
mod examples_run;
mod fingerprint;
mod formats;
mod front_door;
mod gate;
mod launcher;
mod lint;
mod outputs;
mod pipeline;
mod pipeline_runs;
mod properties;
mod resolve;
mod select;
mod support;
mod trend;
