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

/// The front door introduces the whole tool (issue 50): every command in
/// the order a pull request's job runs them, the others after, and resolve
/// as what runs without a command.
#[test]
fn help_introduces_every_command_in_the_order_a_workflow_runs_them() {
    let run = Bin::new().arg("--help").run();
    run.assert_code(0);
    let intro = run.stdout.split("Usage:").next().unwrap_or_default();
    insta::assert_snapshot!("help_front_door", intro);
    let at = |command: &str| {
        intro
            .find(&format!("\n  {command} "))
            .unwrap_or_else(|| panic!("--help does not introduce {command}: {intro}"))
    };
    let order = ["resolve", "select", "bench", "compare", "comment", "gate"].map(at);
    assert!(order.is_sorted(), "{intro}");
    let flat = intro.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "On pushes to main, trend finds",
        "lint checks the workflows",
        "convert writes",
        "Without a command, resolve runs",
    ] {
        assert!(flat.contains(said), "{said:?}: {intro}");
    }
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

/// Every command's `--help` as a newcomer copies from it: no line wider
/// than clap wraps at (a wrapped line breaks an example or a sentence
/// mid-way), and every example a whole command: its lines after the first
/// each continue one that ends in `\`, and it starts with the binary (or a
/// variable assignment before it).
#[test]
fn every_help_example_is_a_whole_command_a_shell_can_run() {
    for command in [
        "", "resolve", "select", "bench", "compare", "comment", "gate", "trend", "lint", "convert",
    ] {
        let mut bin = Bin::new();
        if !command.is_empty() {
            bin = bin.arg(command);
        }
        let run = bin.arg("--help").run();
        run.assert_code(0);
        let help = &run.stdout;
        for line in help.lines() {
            assert!(
                line.chars().count() <= 100,
                "{command} --help: a line clap would wrap: {line}"
            );
        }
        let examples = help
            .split("\nExamples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{command} --help has examples"));
        let examples = examples
            .split("\n\n")
            .take_while(|b| b.starts_with("  "))
            .collect::<Vec<_>>();
        assert!(!examples.is_empty(), "{command}");
        for block in examples {
            let lines: Vec<&str> = block
                .lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .collect();
            let Some(first) = lines.first() else { continue };
            let first = first.trim_start();
            let starts = first.starts_with("baseline-resolver ")
                || first
                    .split_once(' ')
                    .is_some_and(|(a, b)| a.contains('=') && b.starts_with("baseline-resolver "));
            assert!(starts, "{command} --help: an example starts {first:?}");
            for pair in lines.windows(2) {
                assert!(
                    pair[0].ends_with(" \\"),
                    "{command} --help: an example's line {:?} goes on without a \\",
                    pair[1]
                );
            }
        }
    }
}
