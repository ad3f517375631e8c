//! Issue 47, continued: what a partial baseline run and the harness's own
//! output become downstream (compare's coverage, the dashboard's table),
//! on the seed-shaped harness of `tests/fixtures/flydsl`.

use crate::pipeline::{bench_flydsl, flydsl_repo, flydsl_repo_with, marked_block, one_row};
use crate::support::harness::Bin;

/// Break 7: a baseline whose run died after 3 of 9 rows never reads as a
/// pass: the 6 rows it never reached are `absent` (not `new`), the gate
/// covered a third of the suite, under `--min-coverage` 50: inconclusive
/// with a warning, in the text, the outputs and the JSON; `--strict`
/// fails it.
#[test]
fn a_baseline_that_died_after_a_third_of_the_suite_is_not_a_pass() {
    let ops = "softmax softmax_bwd layernorm rmsnorm flash_attn mla gemm moe topk";
    let (repo, base) = flydsl_repo_with(
        &[("value", "100"), ("ops", ops), ("crash-after", "3")],
        &[("value", "100"), ("ops", ops), ("README", "x")],
    );
    let dir = repo.path();
    let bench = bench_flydsl(dir, &base, &[]);
    bench.assert_code(0);
    let out = bench.outputs();
    assert_eq!(
        (
            out["baseline-status"].as_str(),
            out["baseline-rows"].as_str()
        ),
        ("failed", "3")
    );
    let compare = |strict: bool| {
        let bin = Bin::new()
            .on_runner()
            .args(["compare", "--current", &out["current"]])
            .args(["--baseline", &format!("main={}", out["baseline"])]);
        if strict { bin.arg("--strict") } else { bin }.run()
    };
    let run = compare(false);
    run.assert_code(0);
    let outputs = run.outputs();
    assert_eq!(outputs["verdict"], "inconclusive", "{}", run.stdout);
    assert_eq!(
        outputs["new"], "0",
        "the rows the baseline never reached are not new"
    );
    assert_eq!(outputs["coverage"], "33.3");
    assert!(run.stdout.contains(
        "  coverage: 3 of 9 rows compared (33.3%); not compared: 6 absent from the baseline (its run failed with exit status 139)"
    ), "{}", run.stdout);
    assert!(run.stdout.contains("::warning"), "{}", run.stdout);
    assert!(
        run.stdout.contains("only 33.3% of the suite was compared against main (3 of 9 rows, under --min-coverage 50%)"),
        "{}",
        run.stdout
    );
    assert!(
        run.summary.contains("coverage: 3 of 9 rows compared"),
        "{}",
        run.summary
    );
    let json: serde_json::Value = serde_json::from_str(&outputs["json"]).unwrap();
    let coverage = &json["baselines"][0]["coverage"];
    assert_eq!(
        (
            coverage["compared"].as_u64(),
            coverage["suite"].as_u64(),
            coverage["absent"].as_u64()
        ),
        (Some(3), Some(9), Some(6)),
        "{json}"
    );
    assert_eq!(coverage["pct"], 33.3);
    assert_eq!(json["baselines"][0]["counts"]["absent"], 6);
    assert_eq!(compare(true).code, 3, "--strict fails an inconclusive gate");
    // The pull-request comment says it too (inert Markdown: `\(` shows as `(`).
    let report = dir.join("report.json");
    std::fs::write(&report, &outputs["json"]).unwrap();
    let comment = Bin::new()
        .args(["comment", "--dry-run", "--report"])
        .arg(&report)
        .run();
    assert_eq!(comment.code, 0, "{}", comment.stderr);
    assert!(
        comment.stdout.contains(
            r"Coverage: 3 of 9 rows compared \(33.3%\); not compared: 6 absent from the baseline \(its run failed with exit status 139\)"
        ),
        "{}",
        comment.stdout
    );
}

/// Break 2: the seed's dashboard parses the harness's own table from the
/// job log. bench relays it behind `[current] `, where the parser finds
/// nothing; docs/migrating.md's bench step has `print-log: current`, which
/// prints the output as the harness printed it once more, and the parser
/// finds every row of the change's side (and none of the baseline's).
#[test]
fn the_dashboard_reads_the_harnesss_table_the_guides_bench_step_prints() {
    let (repo, base) = flydsl_repo("100", "90");
    let dir = repo.path();
    let bench = bench_flydsl(dir, &base, &[]);
    bench.assert_code(0);
    let out = bench.outputs();
    assert_eq!(
        out["current-log"],
        // Three rounds by default: round 1's log, as the `current` output is round 1's file.
        dir.join("results/current-1.log").display().to_string()
    );
    assert_eq!(
        out["baseline-log"],
        dir.join("results/baseline-1.log").display().to_string()
    );
    let parser = crate::support::harness::repo_root().join("tests/fixtures/flydsl/parse_bench.sh");
    let parse = |log: &str| {
        let file = dir.join("job.log");
        std::fs::write(&file, log).unwrap();
        let out = std::process::Command::new("bash")
            .arg(&parser)
            .arg(&file)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(parse(&bench.stderr), "", "the relayed lines are prefixed");
    let (_, block) = marked_block("docs/migrating.md", "migrate:single");
    let steps: Vec<serde_yaml_ng::Value> = serde_yaml_ng::from_str(&block).unwrap();
    let asked = steps[0]["with"]["print-log"].as_str().unwrap();
    assert_eq!(asked, "current");
    let printed = bench_flydsl(dir, &base, &["--print-log", asked]);
    printed.assert_code(0);
    assert_eq!(
        parse(&printed.stderr),
        "softmax 4096x4096 bf16 - 90\ngemm 4096x4096 bf16 - 90\n",
        "{}",
        printed.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&out["baseline-log"])
            .unwrap()
            .lines()
            .nth(2)
            .unwrap(),
        "softmax                4096x4096                          bf16                -        100"
    );
}

/// `compare --report FILE` writes the JSON report `--format json` prints
/// (the examples upload it instead of `printf`-ing the `json` output),
/// alongside the runner's outputs; a failed run leaves no earlier report.
#[test]
fn compare_writes_its_report_to_a_file_and_never_leaves_a_stale_one() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let file = |name: &str, value: &str| one_row(dir, name, value);
    let (current, main) = (file("current.csv", "80"), file("main.csv", "100"));
    let report = dir.join("report.json");
    let run = Bin::new()
        .on_runner()
        .args([
            "compare",
            "--current",
            &current,
            "--baseline",
            &format!("main={main}"),
        ])
        .arg("--report")
        .arg(&report)
        .run();
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_eq!(run.outputs()["verdict"], "regression");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let (_, printed) = Bin::new()
        .args([
            "compare",
            "--current",
            &current,
            "--baseline",
            &format!("main={main}"),
        ])
        .json_code(4);
    assert_eq!(written, printed);
    let failed = Bin::new()
        .args([
            "compare",
            "--current",
            &dir.join("nothing.csv").display().to_string(),
        ])
        .args(["--baseline", &format!("main={main}")])
        .arg("--report")
        .arg(&report)
        .run();
    assert_eq!(failed.code, 1);
    assert!(!report.exists(), "the earlier report is gone");
}
