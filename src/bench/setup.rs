//! A side's own commands around its harness. The setup, once, before it:
//! what one side needs first (the base commit's wheel on the baseline's
//! side, the release's package with `--tag`), which workflows wrote as
//! `if [ {side} = baseline ]` inside the harness command. A setup that
//! fails leaves nothing to measure: the side is failed, and its harness
//! never runs on a tree that is not ready. The stop command, after a
//! timeout or a cancellation: a harness started through `docker exec`
//! runs in the container, out of reach of the process group bench stops
//! (the `docker` client goes, the harness keeps the GPU), so the user
//! says how to end it there. The failure command, once a side whose
//! command failed or timed out: what shows why (a harness's own
//! per-benchmark logs, in the container it ran in), which workflows
//! copied out of the container in a step of their own.

use std::path::Path;
use std::time::Duration;

use super::outcome::{SideRun, ended_text};
use super::process::{self, Ended};

/// The longest a stop command may run: it ends a harness, it does not
/// measure anything, and the step is waiting on it (a cancelled job has
/// minutes at most before the runner kills everything).
pub const STOP_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest a failure command may run: it shows why a side failed
/// (a harness's logs), it measures nothing, and the step waits on it.
pub const FAILURE_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs the expanded failure `script` in `tree` (within
/// [`FAILURE_TIMEOUT`]; a cancellation stops it), its lines relayed after
/// `[current failure] ` through the same writer as the harness's, so none
/// becomes a workflow command; how it ended.
pub fn failure(script: &str, tree: &Path, side: &str) -> std::io::Result<Ended> {
    let prefix = format!("[{side} failure] ");
    process::run_logged(script, tree, FAILURE_TIMEOUT, &prefix, false, None).map(|done| done.ended)
}

/// `--failure-command`, once a side: its own failure is a warning, never
/// the side's status or bench's exit code.
pub fn show_failure(run: &mut SideRun, script: &str, tree: &Path) {
    let how = match failure(script, tree, run.side.name()) {
        Ok(Ended::Exit(0)) => return,
        Ok(ended) => ended_text(ended),
        Err(e) => format!("could not start: {e}"),
    };
    run.warn(format!(
        "the {} side's failure command {how}",
        run.side.name()
    ));
}

/// Runs the expanded setup `script` in `tree`, its lines relayed after
/// `[current setup] ` (or `[baseline setup] `); how it ended.
pub fn run(script: &str, tree: &Path, timeout: Duration, side: &str) -> std::io::Result<Ended> {
    let prefix = format!("[{side} setup] ");
    process::run_logged(script, tree, timeout, &prefix, false, None).map(|done| done.ended)
}

/// Runs the expanded stop `script` in `tree` (within [`STOP_TIMEOUT`],
/// even once bench was cancelled), its lines relayed after
/// `[current stop] `; how it ended.
pub fn stop(script: &str, tree: &Path, side: &str) -> std::io::Result<Ended> {
    let prefix = format!("[{side} stop] ");
    process::run_regardless(script, tree, STOP_TIMEOUT, &prefix)
}
