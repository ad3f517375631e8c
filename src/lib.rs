//! baseline-resolver: benchmark CI that compares every change against exactly
//! one baseline, resolved right and compared honestly.
//!
//! Commands over one library (see `ARCHITECTURE.md` for the map):
//! [`resolve`] reads a GitHub Actions event and answers the one baseline (the
//! canonical base repository, never the fork; the exact base commit; where
//! that answer came from; the latest release tag); [`select`] maps the files
//! that differ between the two benchmarked commits to the benchmark groups
//! worth running; [`compare`] turns benchmark results of the change and that
//! baseline into a verdict; [`comment`] posts that verdict on the pull
//! request; [`lint`] finds the workflow patterns that waste
//! or silence a baseline; [`trend`] finds the change points in main's own
//! history; [`bench`] runs the suite on the change and on that one
//! baseline, each once. The commands never import each other; they stand
//! on a ground floor: the [`runner`] layer (values, outputs, annotations,
//! summaries), the validated identifiers of [`validate`], the GitHub client
//! and event payload of [`github`], the data one command hands another in
//! [`contract`], the benchmark description of [`config`] and the statistics
//! of [`series`]; [`cli`] parses the command line and dispatches.

// Values from payloads, flags and servers reach most of this code: no
// unwrap, no unchecked arithmetic or indexing where they could panic. The
// release build unwinds only so that a third-party parser's panic on a
// stranger's file can be contained (`runner::panic::contain`); anywhere
// else a panic ends the run before its outputs are written.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        clippy::string_slice
    )
)]
#![warn(clippy::too_many_lines)]

pub mod bench;
pub mod cli;
pub mod comment;
pub mod compare;
pub mod config;
pub mod contract;
pub mod convert;
pub mod gate;
pub mod github;
pub mod glob;
pub mod lint;
pub mod paired;
pub mod parallel;
pub mod resolve;
pub mod runner;
pub mod select;
pub mod series;
pub mod table;
pub mod trend;
pub mod validate;
