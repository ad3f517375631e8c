//! Every payload of a fixture folder resolves offline to what its entry in
//! `expected.json` says. The folders are iterated, so a new fixture is tested
//! without new code: the project's own (always) and `../shared` (when present).

use std::path::Path;

use serde_json::Value;

use crate::support::harness::{Bin, own_fixtures, shared_fixtures};

const ZERO: &str = "0000000000000000000000000000000000000000";

/// Checks one folder; returns how many payloads were checked.
fn check_folder(dir: &Path) -> usize {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let expected = expected.as_object().expect("expected.json is an object");
    let mut payloads: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") && n != "expected.json")
        .collect();
    payloads.sort();
    for name in &payloads {
        let want = expected
            .get(name)
            .unwrap_or_else(|| panic!("{name} has no entry in {}/expected.json", dir.display()));
        check_one(&dir.join(name), want);
    }
    assert_eq!(
        payloads.len(),
        expected.len(),
        "expected.json names a file that is not there"
    );
    payloads.len()
}

fn check_one(path: &Path, want: &Value) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let event = want["event_name"].as_str().unwrap();
    let mut resolver = Bin::new().event(path, event).arg("--offline");
    if let Some(env) = want.get("env").and_then(Value::as_object) {
        for (k, v) in env {
            resolver = resolver.env(k, v.as_str().unwrap());
        }
    }
    let (run, got) = resolver.json();
    for key in ["base_repo", "base_sha", "base_ref", "head_repo", "is_fork"] {
        assert_eq!(got[key], want[key], "{name}: {key}\n{}", run.stdout);
    }
    assert!(
        !run.stdout.contains(ZERO),
        "{name}: the zero SHA reached the output"
    );
    let notes = want["notes"].as_str().unwrap_or_default();
    if want["base_sha"].is_null() {
        if notes.starts_with("NOTHING TO BENCHMARK") {
            assert_eq!(got["skip"], true, "{name}: skip");
            let reason = got["skip_reason"].as_str().unwrap_or_default();
            assert!(!reason.is_empty(), "{name}: a skip names its reason");
        } else {
            assert!(notes.starts_with("FALLBACK NEEDED"), "{name}: notes tag");
            assert_eq!(got["skip"], false, "{name}: not a skip");
            assert_eq!(got["base_available"], false, "{name}: unavailable");
            let warnings = got["warnings"].as_array().unwrap();
            assert!(
                warnings
                    .iter()
                    .any(|w| w.as_str().unwrap().contains("baseline unavailable")),
                "{name}: a missing baseline is a warning: {warnings:?}"
            );
        }
    } else {
        assert_eq!(got["base_available"], true, "{name}");
        assert_eq!(got["skip"], false, "{name}");
        let source = got["base_source"].as_str().unwrap();
        assert!(!source.is_empty(), "{name}: base_source");
    }
    assert_eq!(got["label"], "main");
    assert_eq!(got["event_name"], event);
}

#[test]
fn every_payload_of_tests_fixtures_resolves_to_its_expected_baseline() {
    let n = check_folder(&own_fixtures());
    assert!(n >= 15, "only {n} fixtures");
}

/// The shared corpus lies beside the checkout, not in it: a fresh clone
/// reports this test ignored; `.ci/run` runs it, and it fails there when
/// the corpus is missing.
#[test]
#[ignore = "needs ../shared/fixtures/events beside the checkout (.ci/run)"]
fn every_shared_payload_resolves_to_its_expected_baseline() {
    let dir = shared_fixtures().expect("needs ../shared/fixtures/events beside the checkout");
    let n = check_folder(&dir);
    assert!(n >= 17, "only {n} shared payloads in {}", dir.display());
}

/// The same answer in both forms: every JSON field equals its step output.
#[test]
fn github_outputs_match_json_for_every_own_fixture() {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(own_fixtures().join("expected.json")).unwrap(),
    )
    .unwrap();
    for (name, want) in expected.as_object().unwrap() {
        let event = want["event_name"].as_str().unwrap();
        let path = own_fixtures().join(name);
        let env = want
            .get("env")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut r = Bin::new().event(&path, event).arg("--offline").on_runner();
        for (k, v) in &env {
            r = r.env(k, v.as_str().unwrap());
        }
        let run = r.run();
        run.assert_code(0);
        let outputs = run.outputs();
        let json: Value = serde_json::from_str(&outputs["json"]).unwrap();
        for (key, value) in json.as_object().unwrap() {
            if matches!(key.as_str(), "warnings" | "notices" | "trace") {
                continue;
            }
            let output = outputs
                .get(&key.replace('_', "-"))
                .unwrap_or_else(|| panic!("{name}: no output for {key}"));
            let as_text = match value {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(output, &as_text, "{name}: {key}");
        }
    }
}
