//! A side's setup, once, before its harness: what one side needs first
//! (the base commit's wheel on the baseline's side, the release's package
//! with `--tag`), which workflows wrote as `if [ {side} = baseline ]`
//! inside the harness command. A setup that fails leaves nothing to
//! measure: the side is failed, and its harness never runs on a tree
//! that is not ready.

use std::path::Path;
use std::time::Duration;

use super::process::{self, Ended};

/// Runs the expanded setup `script` in `tree`, its lines relayed after
/// `[current setup] ` (or `[baseline setup] `); how it ended.
pub fn run(script: &str, tree: &Path, timeout: Duration, side: &str) -> std::io::Result<Ended> {
    let prefix = format!("[{side} setup] ");
    process::run(script, tree, timeout, &prefix, false).map(|done| done.ended)
}
