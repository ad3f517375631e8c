//! bench's text, JSON, job summary and step outputs of a one-round run
//! (`--rounds 1`; without it bench runs paired rounds, whose summary is in
//! `rounds.rs`) as their readers see them, kept as snapshots
//! (`snapshots/` beside this file): one whose baseline ran and one whose
//! baseline failed after two rows (the rows it wrote kept).

use crate::bench::{Project, Tree, quiet};
use crate::support::harness::Run;

/// The project whose baseline ran (`mode` `ok`) or failed (`fail`).
fn project(mode: &str) -> Project {
    let base = Tree {
        value: "100",
        mode,
        groups: "gemm softmax rmsnorm",
    };
    Project::new(&base, &quiet("90", "gemm softmax rmsnorm"))
}

/// Runs bench once with `format` (none: the runner's form, the only one
/// that writes the step outputs and the job summary) and replaces what
/// varies from run to run (the temp dirs, the commits, the seconds each
/// side took) by names.
fn bench(p: &Project, format: &[&str]) -> Run {
    let bin = p
        .bench(&p.resolution(&p.base))
        .args(["--rounds", "1"])
        .args(format);
    let dir = bin.dir().display().to_string();
    let root = p.root.path().display().to_string();
    let mut run = bin.run().redact(&[
        (&root, "<root>"),
        (&dir, "<dir>"),
        (&p.base, "<base>"),
        (&p.head, "<head>"),
    ]);
    run.stdout = without_seconds(&run.stdout);
    run.summary = super::rounds::without_commits_and_seconds(&without_seconds(&run.summary));
    run.output_file = without_seconds(&run.output_file);
    run
}

/// Each number of seconds (`0.3 s`, `0.3s`, `"duration_seconds":0.3`,
/// `current-duration: 0.3`) replaced by `[seconds]`: how long a side took
/// varies.
fn without_seconds(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let len = from
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(from.len());
        let (number, after) = from.split_at(len);
        let unit = after.strip_prefix(' ').unwrap_or(after).starts_with('s')
            && !after.trim_start().starts_with("s\"")
            && !after.trim_start()[1..].starts_with(|c: char| c.is_alphanumeric());
        let word = before.ends_with(|c: char| c.is_alphanumeric() || c == '-');
        let named = ["\"duration_seconds\":", "-duration: "];
        let seconds = named.iter().any(|n| before.ends_with(n)) || (unit && number.contains('.'));
        if seconds && !word {
            out.push_str("[seconds]");
        } else {
            out.push_str(number);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// bench's text, JSON, and the runner's form (the step outputs, the job
/// summary and what stdout says) for a baseline whose harness ran in
/// `mode`, each snapshot named `bench_<form>_<case>`.
fn snapshot_each_form(mode: &str, case: &str) {
    let p = project(mode);
    let text = bench(&p, &["--format", "text"]);
    text.assert_code(0);
    insta::assert_snapshot!(format!("bench_text_{case}"), text.stdout);
    let json = bench(&p, &["--format", "json"]);
    json.assert_code(0);
    insta::assert_snapshot!(format!("bench_json_{case}"), json.stdout);
    let github = bench(&p, &[]);
    github.assert_code(0);
    insta::assert_snapshot!(format!("bench_github_stdout_{case}"), github.stdout);
    insta::assert_snapshot!(format!("bench_summary_{case}"), github.summary);
    let outputs = without_seconds(&github.outputs_text());
    insta::assert_snapshot!(format!("bench_outputs_{case}"), outputs);
}

#[test]
fn bench_one_round_with_a_baseline_that_ran() {
    snapshot_each_form("ok", "one_round");
}

#[test]
fn bench_one_round_with_a_baseline_that_failed() {
    snapshot_each_form("fail", "baseline_failed");
}
