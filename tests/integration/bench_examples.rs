//! Issue 32: the rewritten example workflows, run as the runner runs them
//! (the composite steps through bash and the launcher, the `with:` values
//! evaluated from the jobs before): resolve's answer into `bench`, bench's
//! outputs into `compare`, on a real git project whose checkout lacks the
//! base commit.

use std::collections::BTreeMap;

use serde_yaml_ng::Value;

use crate::action::{StepRun, action_dir, run_step_of};
use crate::bench::{Project, Tree};
use crate::support::harness::repo_root;

fn job_steps(example: &str, job: &str) -> Vec<Value> {
    let text =
        std::fs::read_to_string(repo_root().join("examples/workflows").join(example)).unwrap();
    let doc: Value = serde_yaml_ng::from_str(&text).unwrap();
    doc["jobs"][job]["steps"].as_sequence().unwrap().clone()
}

/// The step that uses baseline-resolver's `action` (`bench`, `compare`).
fn step<'a>(steps: &'a [Value], action: &str) -> &'a Value {
    steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with(&format!("OWNER/baseline-resolver/{action}@")))
        })
        .unwrap_or_else(|| panic!("no {action} step"))
}

/// `with:` evaluated: `${{ name }}` from `known`; any other expression
/// fails the test (the example must stay this simple).
fn with(step: &Value, known: &BTreeMap<&str, String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (key, value) in step["with"].as_mapping().unwrap() {
        let mut text = value
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| serde_yaml_ng::to_string(value).unwrap().trim().to_owned());
        while let Some(start) = text.find("${{") {
            let end = text[start..].find("}}").unwrap() + start;
            let expr = text[start + 3..end].trim().to_owned();
            let value = known
                .get(expr.as_str())
                .unwrap_or_else(|| panic!("unknown expression {expr}"));
            text.replace_range(start..end + 2, value);
        }
        out.push((key.as_str().unwrap().to_owned(), text));
    }
    out
}

fn run(action: &str, dir: &std::path::Path, p: &Project, inputs: &[(String, String)]) -> StepRun {
    let event = p.root.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let pairs: Vec<(&str, &str)> = inputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let workspace = p.checkout.display().to_string();
    run_step_of(
        &format!("{action}/action.yml"),
        dir,
        &event,
        "pull_request",
        &pairs,
        &[
            ("GITHUB_WORKSPACE", &workspace),
            ("RUNNER_TEMP", &p.root.path().display().to_string()),
        ],
    )
}

#[test]
fn the_fork_safe_examples_bench_and_compare_steps_gate_a_real_regression() {
    // The change is 20% slower than the base commit, which the checkout lacks.
    let p = Project::new(
        &Tree {
            value: "100",
            mode: "ok",
            groups: "gemm softmax",
        },
        &Tree {
            value: "80",
            mode: "ok",
            groups: "gemm softmax",
        },
    );
    let dir = action_dir();
    let steps = job_steps("fork-safe-benchmark.yml", "benchmark");
    let mut known = BTreeMap::from([
        ("needs.resolve.outputs.json", p.resolution(&p.base)),
        ("needs.resolve.outputs.label", "main".to_owned()),
    ]);
    let bench = run(
        "bench",
        dir.path(),
        &p,
        &with(step(&steps, "bench"), &known),
    );
    assert_eq!(bench.code, 0, "{}\n{}", bench.stdout, bench.stderr);
    assert_eq!(bench.outputs["baseline-source"], "ran");
    assert_eq!(bench.outputs["baseline-rows"], "2");
    assert_eq!(p.worktrees(), 1, "the worktree is gone");
    for name in ["current", "baseline"] {
        known.insert(
            if name == "current" {
                "steps.bench.outputs.current"
            } else {
                "steps.bench.outputs.baseline"
            },
            bench.outputs[name].clone(),
        );
    }
    let compare = run(
        "compare",
        dir.path(),
        &p,
        &with(step(&steps, "compare"), &known),
    );
    assert_eq!(
        compare.code, 4,
        "a 20% regression fails: {}\n{}",
        compare.stdout, compare.stderr
    );
    assert_eq!(compare.outputs["verdict"], "regression");
    assert_eq!(compare.outputs["regressed"], "2");
}

#[test]
fn the_focused_examples_bench_step_runs_the_groups_each_tree_knows() {
    let p = Project::new(
        &Tree {
            value: "100",
            mode: "ok",
            groups: "gemm softmax",
        },
        &Tree {
            value: "100",
            mode: "ok",
            groups: "gemm softmax softmax_bwd",
        },
    );
    let dir = action_dir();
    let steps = job_steps("focused-benchmarks.yml", "benchmark");
    let known = BTreeMap::from([
        ("needs.select.outputs.resolution", p.resolution(&p.base)),
        (
            "needs.select.outputs.selection-json",
            r#"{"selection":"some","groups":["gemm","softmax_bwd"]}"#.to_owned(),
        ),
    ]);
    let bench = run(
        "bench",
        dir.path(),
        &p,
        &with(step(&steps, "bench"), &known),
    );
    assert_eq!(bench.code, 0, "{}\n{}", bench.stdout, bench.stderr);
    assert_eq!(
        (
            bench.outputs["current-rows"].as_str(),
            bench.outputs["baseline-rows"].as_str()
        ),
        ("2", "1")
    );
    assert!(
        bench.stdout.contains("does not know softmax_bwd"),
        "{}",
        bench.stdout
    );
}
