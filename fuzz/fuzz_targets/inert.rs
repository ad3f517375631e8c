//! What a fuzz target checks of every line a command would print: the
//! runner's rules, in the integration tests' `workflow_commands` (each
//! target includes it by path), written apart from `runner::log`, so that a
//! line that reaches the log without passing through it is caught.

use crate::workflow_commands::commands;

/// The workflow commands the commands emit on purpose.
const OURS: [&str; 6] = ["error", "warning", "notice", "group", "endgroup", "add-mask"];

/// Panics on a line of `log` the runner would read as a command, other
/// than our own annotations when `ours_allowed`.
pub fn check(log: &str, ours_allowed: bool) {
    for found in commands(log) {
        assert!(
            ours_allowed && OURS.contains(&found.as_str()),
            "a workflow command {found:?} in {log:?}"
        );
    }
}
