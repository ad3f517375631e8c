//! Bad input: a one-line error naming the file and the field, exit 1 (2 for
//! usage), and nothing written to `GITHUB_OUTPUT`.

use serde_json::json;

use crate::support::harness::{Bin, Run};

fn refused(run: &Run, code: i32, message: &str) {
    run.assert_code(code);
    assert!(
        run.stderr.contains(message),
        "stderr lacks {message:?}: {}",
        run.stderr
    );
    assert!(
        run.stderr.starts_with("baseline-resolver: error: ") || code == 2,
        "{}",
        run.stderr
    );
    assert!(
        run.output_file.is_empty(),
        "GITHUB_OUTPUT was written: {}",
        run.output_file
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

fn payload_run(text: &str, event: &str) -> Run {
    Bin::new()
        .payload(text, event)
        .arg("--offline")
        .on_runner()
        .run()
}

// Issue 2, item 7: bad input is one line naming the file, exit 1, and nothing in GITHUB_OUTPUT.
#[test]
fn an_event_file_that_cannot_be_read_is_refused_and_writes_no_output() {
    let run = Bin::new()
        .event("/nonexistent/event.json", "push")
        .on_runner()
        .run();
    refused(&run, 1, "cannot read event file /nonexistent/event.json");
    let r = Bin::new();
    let dir = r.dir().to_owned();
    let run = r.event(&dir, "push").on_runner().run();
    refused(&run, 1, "cannot read event file");
}

// Issue 2, item 7: bad input is one line naming the file, exit 1, and nothing in GITHUB_OUTPUT.
#[test]
fn a_payload_that_is_not_one_json_object_is_refused_and_writes_no_output() {
    refused(&payload_run("", "push"), 1, "is empty");
    refused(
        &payload_run("{\"ref\": ", "push"),
        1,
        "invalid JSON at line 1",
    );
    refused(&payload_run("{\"ref\": \"x\",}", "push"), 1, "invalid JSON");
    refused(&payload_run("[1, 2]", "push"), 1, "is not a JSON object");
    refused(&payload_run("\"push\"", "push"), 1, "is not a JSON object");
    refused(
        &payload_run("\u{feff}{}", "push"),
        1,
        "is not a JSON object",
    );
}

#[test]
fn wrong_types_name_the_field() {
    let run = payload_run(
        &json!({"pull_request": {"base": {"sha": 42}}}).to_string(),
        "pull_request",
    );
    refused(
        &run,
        1,
        "field `pull_request.base.sha`: invalid type: integer `42`, expected a string",
    );
    let run = payload_run(
        &json!({"ref": "refs/heads/main", "before": "x", "after": "y", "forced": "yes"})
            .to_string(),
        "push",
    );
    refused(&run, 1, "field `forced`");
    let run = payload_run(
        &json!({"repository": {"full_name": ["a", "b"]}}).to_string(),
        "workflow_dispatch",
    );
    refused(&run, 1, "field `repository.full_name`");
}

/// A wrong-typed field holding 5 MB is named with its value cut short, in
/// a message of a few hundred bytes, not echoed whole (twice: stderr and
/// the annotation).
#[test]
fn a_huge_wrong_typed_value_is_cut_short_in_the_message() {
    let huge = "y".repeat(5 * 1024 * 1024);
    let run = payload_run(
        &json!({"ref": "refs/heads/main", "before": "x", "after": "y", "forced": huge}).to_string(),
        "push",
    );
    refused(&run, 1, "field `forced`: invalid type: string \"yyyy");
    assert!(run.stderr.contains("expected a boolean"), "{}", run.stderr);
    assert!(
        run.stderr.len() < 600,
        "{} bytes on stderr",
        run.stderr.len()
    );
    assert!(
        run.stdout.len() < 600,
        "{} bytes on stdout",
        run.stdout.len()
    );
}

#[test]
fn missing_fields_and_bad_values_name_the_field() {
    let run = payload_run(
        &json!({"pull_request": {"base": {"sha": "abc"}}}).to_string(),
        "pull_request",
    );
    refused(&run, 1, "field `pull_request.base.repo` is missing");
    let pr = json!({"pull_request": {"base": {"sha": "fa4f8ae2", "ref": "main", "repo": {"full_name": "a/b"}},
        "head": {"sha": "fa4f8ae2", "repo": null}}});
    let run = payload_run(&pr.to_string(), "pull_request");
    refused(
        &run,
        1,
        "field `pull_request.base.sha` not a full commit SHA",
    );
    assert!(
        run.stderr.contains("event.json (pull_request)"),
        "names the file: {}",
        run.stderr
    );
}

// Issue 2, item 7: bad input is one line naming the file, exit 1, and nothing in GITHUB_OUTPUT.
#[test]
fn an_event_payload_over_64_mib_is_refused_naming_the_limit() {
    let r = Bin::new();
    let path = r.dir().join("huge.json");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(64 * 1024 * 1024 + 1).unwrap(); // sparse: no 64 MiB written
    let run = r.event(&path, "push").on_runner().run();
    refused(&run, 1, "over the 67108864-byte limit");
}

// Issue 2, item 7: bad input is one line naming the file, exit 1, and nothing in GITHUB_OUTPUT.
#[test]
fn an_event_name_the_payload_contradicts_is_refused_not_guessed() {
    let push = json!({"ref": "refs/heads/main", "before": "a".repeat(40), "after": "b".repeat(40)});
    refused(
        &payload_run(&push.to_string(), "pull_request"),
        1,
        "does not match the payload",
    );
    let pr = json!({"pull_request": {}});
    refused(
        &payload_run(&pr.to_string(), "push"),
        1,
        "does not match the payload",
    );
}

#[test]
fn usage_errors_exit_2() {
    let push = json!({"ref": "refs/heads/main", "before": "a".repeat(40), "after": "b".repeat(40)})
        .to_string();
    let run = Bin::new()
        .payload(&push, "push")
        .args(["--base-sha", "fa4f8ae2"])
        .on_runner()
        .run();
    refused(&run, 2, "--base-sha: not a full commit SHA");
    let run = Bin::new().payload(&push, "Push Event").on_runner().run();
    refused(&run, 2, "--event-name");
    let run = Bin::new()
        .payload(&push, "push")
        .args(["--format", "yaml"])
        .on_runner()
        .run();
    refused(&run, 2, "expected github, json or text");
    let run = Bin::new()
        .payload(&push, "push")
        .arg("--no-such-flag")
        .on_runner()
        .run();
    refused(&run, 2, "unexpected argument '--no-such-flag'");
    let run = Bin::new().on_runner().run();
    refused(&run, 2, "no event file");
    let run = Bin::new()
        .payload(&push, "push")
        .env("INPUT_LABEL", "main;rm")
        .on_runner()
        .run();
    refused(&run, 2, "INPUT_LABEL: not a valid label");
}

#[test]
fn errors_are_annotations_on_a_runner() {
    let run = payload_run("[]", "push");
    assert!(
        run.stdout.starts_with("::error title=baseline-resolver::"),
        "{}",
        run.stdout
    );
}

#[test]
fn github_format_without_github_output_is_an_error() {
    let push = json!({"ref": "refs/heads/main", "before": "a".repeat(40), "after": "b".repeat(40)})
        .to_string();
    let run = Bin::new()
        .payload(&push, "push")
        .args(["--format", "github", "--offline", "--repository", "a/b"])
        .run();
    refused(&run, 1, "GITHUB_OUTPUT");
}
