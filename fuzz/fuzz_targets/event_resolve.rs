//! Any bytes as an event payload, under every event name: parsing and the
//! rules either refuse with an error or answer; the answer never holds the
//! zero SHA and its step outputs read back exactly as written.
#![no_main]

use std::path::Path;

use baseline_resolver::resolve::answer::Answer;
use baseline_resolver::github::event::{self, EventName};
use baseline_resolver::resolve::render;
use baseline_resolver::resolve::rules::{Settings, decide};
use baseline_resolver::resolve::settle::{self, Plan};
use baseline_resolver::resolve::tags::TagPolicy;
use baseline_resolver::runner::file_command;
use baseline_resolver::validate::{Label, RepoName};
use libfuzzer_sys::fuzz_target;

const EVENTS: [&str; 14] = [
    "pull_request", "pull_request_target", "push", "merge_group", "workflow_dispatch", "schedule",
    "repository_dispatch", "workflow_run", "release", "issue_comment", "create", "delete",
    "check_suite", "pull_request_review",
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, payload)) = data.split_first() else { return };
    let name = EventName::parse(EVENTS[usize::from(selector) % EVENTS.len()]).unwrap();
    let Ok(payload) = event::parse(Path::new("fuzz.json"), payload) else { return };
    let settings = Settings {
        merge_base: selector & 0x80 != 0,
        repository: Some(RepoName::parse("fuzz/repo").unwrap()),
        ..Settings::default()
    };
    let Ok(decision) = decide(&name, &payload, &settings) else { return };
    let (mut answer, lookup) = Answer::new(decision, Label::default(), "https://github.com");
    let plan = Plan {
        lookup,
        tag: Some(TagPolicy::default()),
        previous_tag_policy: TagPolicy::default(),
        workdir: "/nonexistent".into(),
        fetch: None,
        artifacts: None,
    };
    let findings = settle::offline(&answer, plan);
    answer.apply(findings);
    answer.finish();
    // No SHA field ever holds the zero SHA (a branch name may contain zeros:
    // the first version of this check looked at the whole JSON and the fuzzer
    // found a valid ref `...ss000...0ss...`).
    let tag_sha = answer.tag.as_ref().map(|t| &t.sha);
    for sha in [answer.base_sha(), answer.head_sha.as_ref(), tag_sha].into_iter().flatten() {
        assert!(!sha.as_str().bytes().all(|b| b == b'0'), "zero SHA {sha}");
    }
    let mut written = String::new();
    let outputs = render::step_outputs(&answer);
    for (name, value) in &outputs {
        file_command::encode(&mut written, name, value).unwrap();
    }
    let read = file_command::read(&written).unwrap();
    let expected: Vec<(String, String)> =
        outputs.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
    assert_eq!(read, expected);
});
