//! The bad-input corpus: every file of `tests/bad_inputs/` run as an event,
//! with the environment (`env`), exit code, message and outputs its entry in
//! `cases.json` names. A refused input writes nothing to `GITHUB_OUTPUT`;
//! the message names the file (or, for a usage error, `names`); nothing of
//! `forbidden` (a secret) appears on stdout, stderr, in the summary or the
//! outputs, and nothing of `summary_forbidden` (a live Markdown image) in
//! the job summary.

use serde_json::Value;

use crate::support::harness::{Bin, repo_root};

#[test]
fn every_bad_input_is_refused_or_answered_as_its_case_says() {
    let dir = repo_root().join("tests/bad_inputs");
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("cases.json")).unwrap()).unwrap();
    let cases = cases.as_array().unwrap();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let files = std::fs::read_dir(&dir).unwrap().count() - 1;
    assert_eq!(files, cases.len(), "every file has a case");
    for case in cases {
        let file = case["file"].as_str().unwrap();
        let mut resolver = Bin::new()
            .event(dir.join(file), case["event_name"].as_str().unwrap())
            .arg("--offline")
            .on_runner();
        for (name, value) in case["env"].as_object().into_iter().flatten() {
            resolver = resolver.env(name, value.as_str().unwrap());
        }
        let run = resolver.run();
        for forbidden in case["forbidden"].as_array().into_iter().flatten() {
            let forbidden = forbidden.as_str().unwrap();
            for (place, text) in [
                ("stdout", &run.stdout),
                ("stderr", &run.stderr),
                ("summary", &run.summary),
                ("GITHUB_OUTPUT", &run.output_file),
            ] {
                assert!(
                    !text.contains(forbidden),
                    "{file}: {forbidden:?} in {place}: {text}"
                );
            }
        }
        for live in case["summary_forbidden"].as_array().into_iter().flatten() {
            let live = live.as_str().unwrap();
            assert!(
                !run.summary.contains(live),
                "{file}: {live:?} in the summary: {}",
                run.summary
            );
        }
        let code = case["code"].as_i64().unwrap() as i32;
        assert_eq!(run.code, code, "{file}: exit code\nstderr: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{file}: {}", run.stderr);
        if code == 0 {
            let outputs = run.outputs();
            for (name, value) in case["outputs"].as_object().unwrap() {
                assert_eq!(
                    outputs.get(name).map(String::as_str),
                    value.as_str(),
                    "{file}: output {name}"
                );
            }
        } else {
            let message = case["message"].as_str().unwrap();
            assert!(
                run.stderr.contains(message),
                "{file}: stderr lacks {message:?}: {}",
                run.stderr
            );
            let names = case["names"].as_str().unwrap_or(file);
            assert!(
                run.stderr.contains(names),
                "{file}: the message names {names}: {}",
                run.stderr
            );
            assert_eq!(run.stderr.lines().count(), 1, "{file}: one line");
            assert!(
                run.stderr.len() < 600,
                "{file}: a long value is cut in the message"
            );
            assert!(run.output_file.is_empty(), "{file}: GITHUB_OUTPUT written");
        }
    }
}
