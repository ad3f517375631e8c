//! `lint` never panics: on any shell-like text and any workflow-like YAML,
//! it answers findings or a refusal.

use proptest::prelude::*;

use baseline_resolver::lint::{Neighbours, lint_text, shell};

fn shellish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("git "),
            Just("fetch "),
            Just("origin "),
            Just("for "),
            Just("do "),
            Just("done"),
            Just("while "),
            Just("$("),
            Just(")"),
            Just("`"),
            Just("'"),
            Just("\""),
            Just("\\"),
            Just("\n"),
            Just(";"),
            Just("|"),
            Just("||"),
            Just("&&"),
            Just("&"),
            Just("<<EOF\n"),
            Just("EOF\n"),
            Just("<<-'X'\n"),
            Just("${{ "),
            Just(" }}"),
            Just("${"),
            Just("}"),
            Just("#"),
            Just("~$i"),
            Just("bash -c "),
            Just("é"),
            Just("("),
            Just("<("),
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any script is read to its end: no panic, no endless loop, and
    /// every command starts inside the script.
    // Issue 26, item 7: 20,000 nested `$(` overflowed the stack (SIGABRT).
    #[test]
    fn any_script_is_read_to_its_end_without_a_panic(script in shellish()) {
        match shell::commands(&script) {
            Ok(commands) => for c in commands {
                prop_assert!(c.at() <= script.len());
            },
            Err(deep) => prop_assert!(deep.at <= script.len()),
        }
    }

    /// A workflow with any script, and any cut of the real-world one,
    /// is linted or refused as not YAML; never a panic.
    #[test]
    fn any_workflow_is_linted_or_refused(script in shellish(), cut in 0usize..9000) {
        let body: String = script.lines().map(|l| format!("          {l}\n")).collect();
        let text = format!("on: [pull_request]\njobs:\n  a:\n    runs-on: [self-hosted]\n    steps:\n      - run: |\n{body}");
        let _ = lint_text(std::path::Path::new("w.yml"), &text, &Neighbours::default());
        let fixture = std::fs::read_to_string(crate::lint::fixture("real-world/gpu-benchmarks.yml")).unwrap();
        let end = fixture.char_indices().map(|(i, _)| i).take_while(|&i| i <= cut).last().unwrap_or(0);
        let _ = lint_text(std::path::Path::new("w.yml"), &fixture[..end], &Neighbours::default());
    }
}

/// A concurrency group and a runner nested 200,000 parentheses deep (a
/// stranger's file, 800 KB) overflowed the stack of the expression readers
/// and aborted lint; nesting past 64 is now not read, and the file is
/// linted as a user runs it, with an answer and no signal.
#[test]
fn expressions_nested_past_any_stack_are_linted() {
    let dir = tempfile::tempdir().unwrap();
    let workflows = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    let deep = format!(
        "${{{{ {}'gpu-x'{} }}}}",
        "(".repeat(200_000),
        ")".repeat(200_000)
    );
    let text = format!(
        "on: push\nconcurrency:\n  group: {deep}\n  cancel-in-progress: true\njobs:\n  a:\n    runs-on: {deep}\n    steps:\n      - run: make\n"
    );
    std::fs::write(workflows.join("deep.yml"), text).unwrap();
    let run = crate::support::harness::Bin::new()
        .in_dir(dir.path())
        .args(["lint", "--format", "json"])
        .run();
    assert!(matches!(run.code, 0 | 4), "{}: {}", run.code, run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["files"], 1, "{}", run.stdout);
}
