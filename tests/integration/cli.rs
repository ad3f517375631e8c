//! The command line: help that teaches, `resolve` as the default command.

use crate::support::harness::{Bin, repo_root};

#[test]
fn help_teaches_examples_and_exit_codes() {
    let run = Bin::new().arg("--help").run();
    run.assert_code(0);
    for needle in [
        "Examples:",
        "Exit codes:",
        "--event <PATH>",
        "GITHUB_EVENT_PATH",
        "INPUT_BASE_SHA",
        "--strict",
        "never the fork",
    ] {
        assert!(run.stdout.contains(needle), "--help lacks {needle:?}");
    }
    let run = Bin::new().args(["resolve", "--help"]).run();
    run.assert_code(0);
    assert!(run.stdout.contains("Exit codes:"));
}

#[test]
fn resolve_is_the_default_command() {
    let event = repo_root().join("examples/events/fork-pull-request.json");
    let (_, with) = Bin::new()
        .arg("resolve")
        .event(&event, "pull_request")
        .arg("--offline")
        .json();
    let (_, without) = Bin::new()
        .event(&event, "pull_request")
        .arg("--offline")
        .json();
    assert_eq!(with, without);
}

#[test]
fn event_comes_from_the_runner_environment() {
    let event = repo_root().join("examples/events/fork-pull-request.json");
    let run = Bin::new()
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("INPUT_OFFLINE", "true")
        .on_runner()
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["base-repo"], "ROCm/FlyDSL");
}
