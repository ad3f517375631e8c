//! Issue 52, the gate's part: each job's line says what both its sides
//! were measured on (from its compare report's `machine`, which compare
//! fills from bench's fingerprints), and a job whose baseline was measured
//! on another machine is marked in the table, the headline, an annotation
//! and the JSON; under compare's `--fingerprint strict` the job is
//! inconclusive and says why. A report's machine lines are a stranger's:
//! shown as data, cut.

use std::path::Path;

use serde_json::Value;

use crate::fingerprint::amd;
use crate::gate::{OPS, csv, gate, job_with};
use crate::support::harness::{Bin, repo_root};
use crate::support::workflow_commands::commands;

const MI325: &str = "AMD Instinct MI325X";
const MI355: &str = "AMD Instinct MI355X";

/// A benchmark job whose two sides were measured on `(model, ROCm)` each,
/// every row the same; `extra` goes to compare.
fn measured(report: &Path, baseline: (&str, &str), current: (&str, &str), extra: &[&str]) {
    let all = csv(&OPS, |_| 100.0);
    let base = amd(baseline.0, baseline.1, "6.8.5");
    let cur = amd(current.0, current.1, "6.8.5");
    job_with(
        report,
        &all,
        &all,
        extra,
        &[
            ("base.csv.fingerprint.json", &base),
            ("cur.csv.fingerprint.json", &cur),
        ],
    );
}

/// The seed's matrix: the mi355 runner's baseline came from an MI325X
/// with ROCm 6.2 (main's artifact of another runner); the mi325 runner
/// measured both sides itself.
fn seed_matrix(extra: &[&str]) -> Bin {
    let bin = Bin::new();
    let at = |gpu: &str| {
        bin.dir()
            .join(format!("reports/benchmark-report-{gpu}/report.json"))
    };
    measured(&at("mi355"), (MI325, "6.2.1"), (MI355, "6.4.0"), extra);
    measured(&at("mi325"), (MI325, "6.2.1"), (MI325, "6.2.1"), extra);
    bin
}

#[test]
fn each_job_says_what_both_sides_were_measured_on_and_marks_another_machine() {
    let run = gate(seed_matrix(&[])).args(["--format", "text"]).run();
    run.assert_code(0);
    insta::assert_snapshot!("gate_text_measured_on", run.stdout);
    let page = std::fs::read_to_string(repo_root().join("docs/gate.md")).unwrap();
    assert!(
        page.contains(&format!("```\n{}```", run.stdout)),
        "docs/gate.md shows the table as gate writes it"
    );
}

#[test]
fn on_a_runner_the_summary_has_the_machine_and_an_annotation_warns() {
    let run = gate(seed_matrix(&[])).on_runner().run();
    run.assert_code(0);
    insta::assert_snapshot!("gate_summary_measured_on", run.summary);
    assert_eq!(commands(&run.stdout), ["warning"], "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "::warning title=Benchmark baseline from another machine::benchmark-report-mi355: baseline from another machine (GPU AMD Instinct MI325X → AMD Instinct MI355X, runtime ROCm 6.2 → ROCm 6.4)"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn the_json_carries_each_sides_machine_and_whether_it_differs() {
    let (_, value) = gate(seed_matrix(&[])).json_code(0);
    let jobs = value["jobs"].as_array().unwrap();
    let machine = |i: usize| &jobs[i]["machine"];
    assert_eq!(jobs[1]["job"], "benchmark-report-mi355");
    assert_eq!(machine(1)["another_machine"], true);
    assert_eq!(
        machine(1)["baseline"],
        "AMD Instinct MI325X / driver 6.8.5 / ROCm 6.2.1 / clocks free / 1000 W"
    );
    assert_eq!(
        machine(1)["current"],
        "AMD Instinct MI355X / driver 6.8.5 / ROCm 6.4.0 / clocks free / 1000 W"
    );
    assert_eq!(
        machine(1)["differences"],
        serde_json::json!([
            "GPU AMD Instinct MI325X → AMD Instinct MI355X",
            "runtime ROCm 6.2 → ROCm 6.4"
        ])
    );
    assert_eq!(machine(0)["another_machine"], false);
    assert_eq!(
        machine(0)["line"],
        "both sides measured on AMD Instinct MI325X / driver 6.8.5 / ROCm 6.2.1 / clocks free / 1000 W"
    );
}

#[test]
fn under_fingerprint_strict_the_job_is_inconclusive_and_says_why() {
    let bin = seed_matrix(&["--fingerprint", "strict"]);
    let run = gate(bin).args(["--format", "text", "--strict"]).run();
    run.assert_code(3);
    assert!(
        run.stdout.starts_with(
            "gate: inconclusive: 0 of 2 jobs failed, 1 inconclusive; 1 baseline from another machine (benchmark-report-mi355)\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "inconclusive: the baseline was measured on another machine (compare --fingerprint strict)"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_report_without_fingerprints_has_no_machine_column() {
    let dir = tempfile::tempdir().unwrap();
    let all = csv(&OPS, |_| 100.0);
    job_with(
        &dir.path().join("reports/a/report.json"),
        &all,
        &all,
        &[],
        &[],
    );
    let run = gate(Bin::new().in_dir(dir.path()))
        .args(["--format", "text"])
        .run();
    run.assert_code(0);
    assert!(!run.stdout.contains("machine"), "{}", run.stdout);
    let (_, value) = gate(Bin::new().in_dir(dir.path())).json_code(0);
    assert_eq!(value["jobs"][0]["machine"], Value::Null);
}

/// A fork's run wrote the report: its machine lines try to become workflow
/// commands and to flood the table.
#[test]
fn a_hostile_machine_line_is_data_and_cut() {
    let bin = Bin::new();
    let long = "x".repeat(10_000);
    let report = serde_json::json!({
        "schema": 2, "verdict": "pass", "gate": "main",
        "baselines": [{"label": "main", "gate": true, "available": true, "verdict": "pass",
            "counts": {"compared": 1}, "rows": []}],
        "machine": {
            "current_measured_on": "H100\n::error::pwned\n::set-output name=verdict::regression",
            "baseline_measured_on": long,
            "differences": (0..9).map(|i| serde_json::json!({"field": format!("f{i}"), "baseline": "a", "current": "b"})).collect::<Vec<_>>()
        }
    });
    std::fs::create_dir_all(bin.dir().join("reports/x")).unwrap();
    std::fs::write(bin.dir().join("reports/x/report.json"), report.to_string()).unwrap();
    let run = gate(bin).on_runner().run();
    run.assert_code(0);
    assert_eq!(commands(&run.stdout), ["warning"], "{}", run.stdout);
    assert_eq!(run.outputs()["verdict"], "pass");
    assert!(
        run.stdout.contains("H100\\u{a}::error::pwned"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("f3 a → b, and 5 more)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("... (10000 bytes)") && !run.stdout.contains(&"x".repeat(301)),
        "cut: {}",
        run.stdout
    );
}

/// The headline names five jobs with a baseline from another machine and
/// counts the rest; the table marks every one.
#[test]
fn the_headline_names_five_jobs_from_another_machine_and_counts_the_rest() {
    let bin = Bin::new();
    for i in 1..=7 {
        let at = bin.dir().join(format!("reports/r{i}/report.json"));
        measured(&at, (MI325, "6.2.1"), (MI355, "6.4.0"), &[]);
    }
    let run = gate(bin).args(["--format", "text"]).run();
    run.assert_code(0);
    assert!(
        run.stdout.starts_with(
            "gate: pass: 0 of 7 jobs failed; 7 baselines from another machine (r1, r2, r3, r4, r5, and 2 more)\n"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout
            .matches("  baseline from another machine (")
            .count(),
        7
    );
}
