//! The data that passes between commands, one type per contract, so the
//! writer and its readers share it instead of each keeping a copy:
//!
//! | contract | written by | read by |
//! |---|---|---|
//! | [`resolution`]: the one baseline (`resolve --format json`) | resolve | compare, select, comment, bench |
//! | [`rounds`]: which results files were measured beside each other (`bench --rounds`' manifest, schema [`rounds::ROUNDS_SCHEMA`]) | bench | compare |
//! | [`selection`]: the groups that ran (`select --format json`, schema [`SELECTION_SCHEMA`]) | select | compare |
//! | [`comparison`]: compare's report (`compare --format json`, `--report FILE`, schema [`REPORT_SCHEMA`]), its [`class`]es and verdicts | compare | comment, gate |
//! | [`trend`]'s report (`trend --format json`, schema [`TREND_SCHEMA`]) | trend | comment |
//! | [`fingerprint`]: what a results file was measured on (`<file>.fingerprint.json`, schema [`fingerprint::FINGERPRINT_SCHEMA`]) | bench | compare, trend |
//! | [`run`]: how a side's run ended (`<csv>.run.json`, schema [`run::RUN_SCHEMA`]) | bench | compare |
//!
//! Every one of them crosses a job boundary as an artifact or an output,
//! and a fork's run may have written it: a reader bounds its size and shows
//! its strings as data. A field is only ever added; a change of meaning is
//! a new schema number, which the writer says and a reader can check.

pub mod class;
pub mod comparison;
pub mod coverage;
pub mod fingerprint;
pub mod resolution;
pub mod rounds;
pub mod run;
pub mod selection;
pub mod trend;

/// compare's JSON report: 2 since classes are spelled in kebab-case, each
/// row says which threshold applied, and `rerun` lists what a re-run could
/// change.
pub const REPORT_SCHEMA: u32 = 2;
/// select's JSON answer.
pub const SELECTION_SCHEMA: u32 = 1;
/// trend's JSON report.
pub const TREND_SCHEMA: u32 = 1;
