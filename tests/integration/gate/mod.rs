//! Issue 47: `gate` over a matrix's downloaded artifacts, each a report
//! `compare --report` wrote (the dashboard pattern: the benchmark jobs
//! compare with `--no-gate` and stay green, the gate job fails). Each
//! output as the user reads it (snapshots), the exit codes, and strangers'
//! artifacts: a report that does not parse, a hostile directory name, a
//! symbolic link, too many files, a file over the limit.

mod machine;

use std::path::Path;

use serde_json::Value;

use crate::support::harness::{Bin, Run};
use crate::support::workflow_commands::commands;

pub const OPS: [&str; 6] = ["gemm", "softmax", "rmsnorm", "layernorm", "moe", "mla"];

/// A results file of `ops`, each at `tflops(op)`.
pub fn csv(ops: &[&str], tflops: impl Fn(&str) -> f64) -> String {
    let mut text = String::from("op,shape,dtype,tflops\n");
    for op in ops {
        text.push_str(&format!("{op},4096x4096,bf16,{:.3}\n", tflops(op)));
    }
    text
}

/// Runs compare as a benchmark job of the dashboard example does
/// (`--no-gate`, `--report`) and leaves the report at `report` (the path
/// `actions/download-artifact` gives it in the gate job).
fn job(report: &Path, baseline: &str, current: &str, extra: &[&str]) {
    job_with(report, baseline, current, extra, &[]);
}

/// [`job`], with more files beside the results (bench's fingerprints,
/// `base.csv.fingerprint.json`) as `(name, text)`.
pub fn job_with(
    report: &Path,
    baseline: &str,
    current: &str,
    extra: &[&str],
    beside: &[(&str, &str)],
) {
    let bin = Bin::new();
    std::fs::write(bin.dir().join("base.csv"), baseline).unwrap();
    std::fs::write(bin.dir().join("cur.csv"), current).unwrap();
    for (name, text) in beside {
        std::fs::write(bin.dir().join(name), text).unwrap();
    }
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    let run = bin
        .args([
            "compare",
            "--current",
            "cur.csv",
            "--baseline",
            "main=base.csv",
            "--no-gate",
            "--format",
            "text",
            "--report",
        ])
        .arg(report)
        .args(extra)
        .run();
    run.assert_code(0);
}

fn passing(report: &Path) {
    let all = csv(&OPS, |_| 100.0);
    job(report, &all, &all, &[]);
}

/// gemm 20% slower, mla lost (in the baseline, not in the change).
fn regressed(report: &Path) {
    let base = csv(&OPS, |_| 100.0);
    let cur = csv(&OPS[..5], |op| if op == "gemm" { 80.0 } else { 100.0 });
    job(report, &base, &cur, &[]);
}

/// A baseline that has 2 of the 6 rows: a third of the suite compared,
/// under `--min-coverage 50`.
fn partial(report: &Path) {
    let base = csv(&OPS[..2], |_| 100.0);
    let cur = csv(&OPS, |_| 100.0);
    job(report, &base, &cur, &["--min-coverage", "50"]);
}

/// A runner of the matrix and what its benchmark job leaves.
type Runner<'a> = (&'a str, fn(&Path));

/// The gate job's working directory: `reports/benchmark-report-<gpu>/report.json`.
fn reports_in(dir: &Path, jobs: &[Runner<'_>]) {
    for (gpu, make) in jobs {
        make(&dir.join(format!("reports/benchmark-report-{gpu}/report.json")));
    }
}

fn matrix(jobs: &[Runner<'_>]) -> Bin {
    let bin = Bin::new();
    reports_in(bin.dir(), jobs);
    bin
}

pub fn gate(bin: Bin) -> Bin {
    bin.args(["gate", "--reports", "reports/**/report.json"])
}

#[test]
fn one_regressed_job_fails_the_gate_and_the_table_names_it() {
    let bin = matrix(&[("mi355", regressed), ("mi325", passing), ("navi", partial)]);
    let run = gate(bin).args(["--format", "text"]).run();
    run.assert_code(4);
    insta::assert_snapshot!("gate_text_one_regressed", run.stdout);
    let page =
        std::fs::read_to_string(crate::support::harness::repo_root().join("docs/gate.md")).unwrap();
    assert!(
        page.contains(&format!("```\n{}```", run.stdout)),
        "docs/gate.md shows the table as gate writes it"
    );
}

#[test]
fn on_a_runner_the_summary_outputs_and_annotations_say_which_jobs() {
    let bin = matrix(&[("mi355", regressed), ("mi325", passing), ("navi", partial)]);
    let run = gate(bin).on_runner().run();
    run.assert_code(4);
    insta::assert_snapshot!("gate_summary_one_regressed", run.summary);
    let out = run.outputs();
    assert_eq!(out["verdict"], "regression");
    assert_eq!(out["jobs"], "3");
    assert_eq!(out["failed-jobs"], r#"["benchmark-report-mi355"]"#);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines.contains(&"::error title=Benchmark job failed::benchmark-report-mi355: regression"),
        "{}",
        run.stdout
    );
    assert!(
        lines.iter().any(|l| l.starts_with(
            "::warning title=Benchmark job inconclusive::benchmark-report-navi: inconclusive: coverage 33.3%"
        )),
        "{}",
        run.stdout
    );
    assert_eq!(commands(&run.stdout), ["error", "warning"]);
}

#[test]
fn every_job_passing_passes_and_an_inconclusive_one_fails_only_under_strict() {
    let run = gate(matrix(&[("mi355", passing), ("mi325", passing)])).run();
    run.assert_code(0);
    assert!(
        run.stdout.starts_with("gate: pass: 0 of 2 jobs failed\n"),
        "{}",
        run.stdout
    );
    let dir = tempfile::tempdir().unwrap();
    reports_in(dir.path(), &[("mi355", passing), ("navi", partial)]);
    gate(Bin::new().in_dir(dir.path())).run().assert_code(0);
    let strict = gate(Bin::new().in_dir(dir.path())).arg("--strict").run();
    strict.assert_code(3);
    assert!(
        strict
            .stdout
            .starts_with("gate: inconclusive: 0 of 2 jobs failed, 1 inconclusive\n"),
        "{}",
        strict.stdout
    );
}

#[test]
fn the_json_of_a_matrix_with_one_regressed_job_keeps_its_shape() {
    let bin = matrix(&[("mi355", regressed), ("mi325", passing)]);
    let (_, value) = gate(bin).json_code(4);
    insta::assert_snapshot!(
        "gate_json_one_regressed",
        serde_json::to_string_pretty(&value).unwrap()
    );
}

#[test]
fn no_report_found_is_an_error_naming_the_glob_never_a_pass() {
    let bin = Bin::new();
    std::fs::create_dir_all(bin.dir().join("reports/benchmark-report-mi355")).unwrap();
    let run = gate(bin).on_runner().run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains(r#"no report matches "reports/**/report.json""#),
        "{}",
        run.stderr
    );
    assert_eq!(run.output_file, "", "no verdict output on an error");
    let run = Bin::new().arg("gate").run();
    run.assert_code(2);
    assert!(
        run.stderr.contains("--reports / INPUT_REPORTS"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_report_that_does_not_parse_fails_its_job_with_its_path() {
    let bin = matrix(&[("mi325", passing)]);
    let bad = bin.dir().join("reports/benchmark-report-mi355");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("report.json"),
        "{\"verdict\": \"pass\", \"baselines\": [",
    )
    .unwrap();
    let run = gate(bin).args(["--format", "text"]).run();
    run.assert_code(1);
    assert!(
        run.stdout
            .starts_with("gate: unreadable: 1 of 2 jobs failed (benchmark-report-mi355)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "unreadable: the report reports/benchmark-report-mi355/report.json is not compare's JSON report"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_verdict_the_gate_does_not_know_a_newer_schema_or_no_gate_baseline_is_never_a_pass() {
    let bin = Bin::new();
    for (name, text) in [
        ("odd", r#"{"schema":2,"verdict":"fine","baselines":[]}"#),
        ("bare", r#"{"verdict":"pass"}"#),
        ("newer", r#"{"schema":99,"verdict":"pass","baselines":[]}"#),
    ] {
        std::fs::write(bin.dir().join(format!("{name}.json")), text).unwrap();
    }
    let (_, value) = bin
        .args(["gate", "--reports", "*.json", "--job-name-from", "file"])
        .json_code(1);
    let jobs: Vec<(&str, &str)> = value["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["job"].as_str().unwrap(), j["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        jobs,
        [
            ("bare", "unreadable"),
            ("newer", "unreadable"),
            ("odd", "unreadable")
        ]
    );
}

#[test]
fn paired_rows_still_undecided_are_inconclusive() {
    let bin = Bin::new();
    let report = r#"{"schema":2,"verdict":"pass","gate":"main","baselines":[{"label":"main","gate":true,"available":true,"verdict":"pass","counts":{"compared":4,"noisy":1},"paired":{"rows":4,"undecided":1,"rounds_mean":7.5,"rounds_max":12},"rows":[]}]}"#;
    std::fs::write(bin.dir().join("mi355.json"), report).unwrap();
    let bin = bin.args(["gate", "--reports", "mi355.json", "--job-name-from", "file"]);
    let run = bin.args(["--format", "text"]).run();
    run.assert_code(0);
    insta::assert_snapshot!("gate_text_paired_undecided", run.stdout);
}

#[test]
fn a_hostile_directory_name_is_data_never_a_workflow_command() {
    let bin = Bin::new();
    let hostile = bin
        .dir()
        .join("reports/x\n::error::pwned\n::set-output name=verdict::pass");
    std::fs::create_dir_all(&hostile).unwrap();
    std::fs::write(hostile.join("report.json"), "not json").unwrap();
    let run = gate(bin).on_runner().run();
    run.assert_code(1);
    let names = commands(&run.stdout);
    assert!(
        names.iter().all(|n| n == "error"),
        "only the gate's own annotation: {names:?}"
    );
    assert_eq!(names.len(), 1, "{}", run.stdout);
    assert_eq!(run.outputs()["verdict"], "unreadable");
}

#[test]
fn a_symbolic_link_is_not_followed_and_its_job_fails() {
    let bin = matrix(&[("mi325", passing)]);
    let link = bin.dir().join("reports/benchmark-report-mi355");
    std::fs::create_dir_all(&link).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", link.join("report.json")).unwrap();
    let run = gate(bin).args(["--format", "text"]).run();
    run.assert_code(1);
    assert!(
        run.stdout.contains("is a symbolic link: not followed"),
        "{}",
        run.stdout
    );
}

#[test]
fn bounds_too_many_reports_and_a_report_over_the_limit() {
    let bin = Bin::new();
    let dir = bin.dir().join("many");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..257 {
        std::fs::write(dir.join(format!("{i:03}.json")), "{}").unwrap();
    }
    let run = bin.args(["gate", "--reports", "many/*.json"]).run();
    run.assert_code(2);
    assert!(
        run.stderr.contains("over 256 reports match"),
        "{}",
        run.stderr
    );

    let bin = Bin::new();
    let big = std::fs::File::create(bin.dir().join("big.json")).unwrap();
    big.set_len(64 * 1024 * 1024 + 1).unwrap();
    let run = bin
        .args(["gate", "--reports", "big.json", "--format", "text"])
        .run();
    run.assert_code(1);
    assert!(
        run.stdout
            .contains("the report big.json is 67108865 bytes, over the 67108864-byte limit"),
        "{}",
        run.stdout
    );
}

#[test]
fn job_names_from_file_names_and_inputs_from_the_action() {
    let bin = Bin::new();
    regressed(&bin.dir().join("reports/mi355.json"));
    passing(&bin.dir().join("reports/mi325.json"));
    let run: Run = bin
        .arg("gate")
        .env("INPUT_REPORTS", "reports/mi3*.json\nnothing/*.json\n")
        .env("INPUT_JOB_NAME_FROM", "file")
        .env("INPUT_STRICT", "false")
        .on_runner()
        .run();
    run.assert_code(4);
    assert_eq!(run.outputs()["failed-jobs"], r#"["mi355"]"#);
    assert!(
        run.stdout.contains("no report matches \"nothing/*.json\""),
        "{}",
        run.stdout
    );
    let bad = Bin::new()
        .args(["gate", "--reports", "x", "--job-name-from", "artifact"])
        .run();
    bad.assert_code(2);
    assert!(
        bad.stderr
            .contains("--job-name-from: expected dir or file, got \"artifact\""),
        "{}",
        bad.stderr
    );
}

#[test]
fn the_worst_rows_are_the_lost_ones_then_the_largest_fall() {
    let bin = Bin::new();
    regressed(&bin.dir().join("report.json"));
    let (_, value) = Bin::new()
        .in_dir(bin.dir())
        .args(["gate", "--reports", "report.json"])
        .json_code(4);
    let jobs: &Vec<Value> = value["jobs"].as_array().unwrap();
    assert_eq!(
        jobs[0]["worst"],
        serde_json::json!([
            "op=mla,shape=4096x4096,dtype=bf16 (lost)",
            "op=gemm,shape=4096x4096,dtype=bf16 -20.0%"
        ])
    );
}

#[test]
fn a_runner_that_left_no_report_fails_the_gate_when_the_jobs_are_expected() {
    let dir = tempfile::tempdir().unwrap();
    reports_in(dir.path(), &[("mi325", passing)]);
    gate(Bin::new().in_dir(dir.path())).run().assert_code(0);
    let run = gate(Bin::new().in_dir(dir.path()))
        .args(["--expect-jobs", "2"])
        .on_runner()
        .run();
    run.assert_code(1);
    assert_eq!(run.outputs()["verdict"], "missing");
    assert!(
        run.stdout.contains(
            "::error title=Benchmark report missing::2 jobs expected, 1 report found: 1 job left no report"
        ),
        "{}",
        run.stdout
    );
}

/// gate/action.yml, `gate --help` and docs/gate.md name the same inputs,
/// defaults and outputs, and the action passes every input to the binary.
#[test]
fn the_action_the_help_and_the_page_agree() {
    use crate::action::{action_at, map};
    use crate::support::harness::repo_root;
    let action = action_at("gate/action.yml");
    let help = crate::defaults::help(&["gate"]);
    let page = std::fs::read_to_string(repo_root().join("docs/gate.md")).unwrap();
    let text = std::fs::read_to_string(repo_root().join("gate/action.yml")).unwrap();
    for (name, input) in map(&action["inputs"]) {
        let var = format!("INPUT_{}", name.to_uppercase().replace('-', "_"));
        assert!(help.contains(&format!("--{name}")), "--help lacks --{name}");
        assert!(help.contains(&format!("[env: {var}")), "--help lacks {var}");
        assert!(
            text.contains(&format!("{var}: ${{{{ inputs.{name} }}}}")),
            "the action does not pass {name}"
        );
        assert!(
            page.contains(&format!("| `{name}`")),
            "docs/gate.md lacks {name}"
        );
        // A switch (`strict`) is off unless given: its help names no default.
        if let Some(default) = input["default"].as_str().filter(|d| *d != "false") {
            assert!(
                help.contains(&format!("[default: {default}")),
                "--help's default of {name} is not {default:?}"
            );
        }
    }
    let bin = matrix(&[("mi325", passing)]);
    let run = gate(bin).on_runner().run();
    let written: Vec<String> = run.outputs().into_keys().collect();
    let mut declared: Vec<String> = map(&action["outputs"])
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    declared.sort();
    assert_eq!(written, declared);
}

/// examples/workflows/dashboard-gate.yml's gate job as a runner runs it:
/// the artifacts where its download step puts them (`path: reports`, a
/// directory per artifact named by the benchmark job's `name:` template),
/// the gate step's `with:` as `INPUT_*` variables.
#[test]
fn the_dashboard_examples_gate_job_fails_on_the_regressed_runner() {
    use crate::support::harness::repo_root;
    let text =
        std::fs::read_to_string(repo_root().join("examples/workflows/dashboard-gate.yml")).unwrap();
    let workflow: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    let steps = workflow["jobs"]["gate"]["steps"].as_sequence().unwrap();
    let download = &steps[0]["with"];
    assert_eq!(download["pattern"].as_str(), Some("benchmark-report-*"));
    let upload = workflow["jobs"]["benchmark"]["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact"))
        })
        .unwrap();
    let name = upload["with"]["name"].as_str().unwrap();
    let file = upload["with"]["path"].as_str().unwrap();
    let gate_step = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.contains("baseline-resolver/gate@"))
        })
        .expect("the gate job uses the gate action");
    let root = download["path"].as_str().unwrap();
    let bin = Bin::new();
    for (gpu, make) in [("mi355", regressed as fn(&Path)), ("mi325", passing)] {
        let dir = name.replace("${{ matrix.gpu }}", gpu);
        make(&bin.dir().join(root).join(dir).join(file));
    }
    let mut bin = bin.arg("gate").on_runner();
    for (key, value) in crate::action::map(&gate_step["with"]) {
        let var = format!("INPUT_{}", key.to_uppercase().replace('-', "_"));
        let value = match value {
            serde_yaml_ng::Value::String(s) => s,
            other => serde_yaml_ng::to_string(&other).unwrap().trim().to_owned(),
        };
        bin = bin.env(&var, value);
    }
    let run = bin.run();
    run.assert_code(4);
    assert_eq!(
        run.outputs()["failed-jobs"],
        r#"["benchmark-report-mi355"]"#
    );
    assert_eq!(run.outputs()["jobs"], "2");
}

/// Issue 50: compare's report is one type. What compare writes reads back
/// through `contract::comparison` and writes again the same, field for
/// field: no field of the report is unknown to its readers.
#[test]
fn the_report_compare_writes_reads_back_whole_through_the_contract() {
    use baseline_resolver::contract::comparison::{self, Row};
    let run = crate::compare::compare_seed()
        .args(["--format", "json"])
        .run();
    run.assert_code(4);
    let written: Value = serde_json::from_str(&run.stdout).unwrap();
    let read =
        comparison::from_text::<Vec<Row<'static>>>(&run.stdout, "stdout".to_owned()).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), written);
}
