//! Issue 47: compare given bench's manifest alone judges what bench
//! measured as bench judged it. The guide's compare steps repeated every
//! input the bench step was given (the files, the resolution, the release's
//! file, the columns, the thresholds); the manifest now carries them, and
//! the verdict is the one those inputs spelled out give.

use std::path::Path;

use serde_json::Value;

use crate::pipeline::{allreduce_csv, flydsl_repo_with};
use crate::support::harness::{Bin, Run};

/// resolve's answer for the base commit, naming the release at it too.
fn resolution(base: &str) -> String {
    format!(
        r#"{{"label":"main","base_sha":"{base}","base_available":true,"tag":"v0.3.1","tag_sha":"{base}"}}"#
    )
}

/// `bench` on a runner in `dir` with `command` and `extra`.
fn bench(dir: &Path, base: &str, command: &str, extra: &[&str]) -> Run {
    let run = Bin::new()
        .on_runner()
        .env("GITHUB_WORKSPACE", dir)
        .env("RUNNER_TEMP", dir)
        .args([
            "bench",
            "--resolution",
            &resolution(base),
            "--command",
            command,
        ])
        .args(["--seed", "5"])
        .arg("--out-dir")
        .arg(dir.join("results"))
        .args(extra)
        .run();
    run.assert_code(0);
    run
}

/// compare with these `INPUT_*` values, its JSON report and exit code.
fn compare(inputs: &[(&str, &str)], code: i32) -> Value {
    let mut bin = Bin::new();
    for (name, value) in inputs {
        bin = bin.env(name, value);
    }
    bin.args(["compare"]).json_code(code).1
}

/// The seed's harness on a change 30% slower than its base (100 TFLOPS
/// to 70), benched with `extra`: the checkout, the base commit, the run.
fn slower(extra: &[&str]) -> (tempfile::TempDir, String, Run) {
    let (root, base) = flydsl_repo_with(&[("value", "100")], &[("value", "70")]);
    let run = bench(
        root.path(),
        &base,
        "./scripts/run_benchmark.sh --output_csv {out}",
        extra,
    );
    (root, base, run)
}

/// The single-GPU job's shape: paired rounds of the harness's CSV and the
/// release measured once after them (`with-tag`), compared on main with
/// the release beside, resolve's answer read.
#[test]
fn compare_given_only_benchs_manifest_gives_the_verdict_of_its_inputs_spelled_out() {
    let (_repo, base, run) = slower(&["--with-tag"]);
    let out = run.outputs();
    let spelled = compare(
        &[
            ("INPUT_PAIRED", "true"),
            ("INPUT_CURRENT", &out["current-files"]),
            ("INPUT_BASELINE", &out["compare-baseline"]),
            ("INPUT_RESOLUTION", &resolution(&base)),
        ],
        4,
    );
    let manifest = compare(&[("INPUT_MANIFEST", &out["manifest"])], 4);
    assert_eq!(manifest, spelled);
    assert_eq!(manifest["gate"], "main");
    let labels: Vec<&str> = manifest["baselines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["main", "v0.3.1"], "{manifest}");
}

/// The allreduce job's shape: its own columns (keys, metric, ignored
/// per-rank rows, a floor) and threshold, given to bench only; compare
/// reads them from the manifest. An input given to compare wins.
#[test]
fn the_manifest_carries_the_columns_and_thresholds_bench_judged_by() {
    let (root, base) = flydsl_repo_with(
        &[("ar.csv", &allreduce_csv(100.0))],
        &[("ar.csv", &allreduce_csv(130.0))],
    );
    let dir = root.path();
    let columns = [
        "--keys",
        "rank,shape,dtype",
        "--metric",
        "avg_time_us:lower",
        "--ignore",
        "rank=?",
        "--fail-threshold",
        "15",
        "--floor",
        "10",
    ];
    let run = bench(dir, &base, "cp ar.csv {out}", &columns);
    let out = run.outputs();
    let mut spelled: Vec<(&str, &str)> = vec![
        ("INPUT_PAIRED", "true"),
        ("INPUT_CURRENT", &out["current-files"]),
        ("INPUT_BASELINE", &out["compare-baseline"]),
        ("INPUT_RESOLUTION", ""),
    ];
    let resolution = resolution(&base);
    spelled[3].1 = &resolution;
    for pair in columns.chunks(2) {
        spelled.push((
            match pair[0] {
                "--keys" => "INPUT_KEYS",
                "--metric" => "INPUT_METRIC",
                "--ignore" => "INPUT_IGNORE",
                "--fail-threshold" => "INPUT_FAIL_THRESHOLD",
                _ => "INPUT_FLOOR",
            },
            pair[1],
        ));
    }
    let spelled = compare(&spelled, 4);
    let manifest = compare(&[("INPUT_MANIFEST", &out["manifest"])], 4);
    assert_eq!(manifest, spelled);
    let counts = &manifest["baselines"][0]["counts"];
    assert_eq!(
        (counts["regressed"].as_u64(), counts["ignored"].as_u64()),
        (Some(2), Some(16)),
        "{manifest}"
    );
    // compare's own threshold wins over the one bench was given.
    let wider = compare(
        &[
            ("INPUT_MANIFEST", &out["manifest"]),
            ("INPUT_FAIL_THRESHOLD", "50"),
        ],
        0,
    );
    assert_eq!(wider["verdict"], "pass", "{wider}");
}

/// Without rounds (`--rounds 1`) the manifest names each side's one file;
/// with the baseline unavailable it names none for it, and compare says
/// so: inconclusive with a warning, never a pass.
#[test]
fn a_run_without_rounds_or_without_a_baseline_is_judged_from_the_manifest_too() {
    let (root, _, once) = slower(&["--rounds", "1"]);
    let dir = root.path();
    let command = "./scripts/run_benchmark.sh --output_csv {out}";
    let out = once.outputs();
    assert_eq!(
        out["manifest"],
        dir.join("results/rounds.json").to_str().unwrap()
    );
    let judged = compare(&[("INPUT_MANIFEST", &out["manifest"])], 4);
    assert_eq!(judged["verdict"], "regression", "{judged}");
    let gone = r#"{"label":"main","base_available":false}"#;
    let run = Bin::new()
        .on_runner()
        .env("GITHUB_WORKSPACE", dir)
        .env("RUNNER_TEMP", dir)
        .args(["bench", "--resolution", gone, "--command", command])
        .arg("--out-dir")
        .arg(dir.join("results"))
        .run();
    run.assert_code(0);
    let unavailable = compare(&[("INPUT_MANIFEST", &run.outputs()["manifest"])], 0);
    assert_eq!(unavailable["verdict"], "inconclusive", "{unavailable}");
}

/// A focused run against main's downloaded whole-suite result: bench ran
/// the groups select chose, with the config that says which rows each
/// group makes; the manifest carries both, so main's rows of the groups
/// not run are not-selected (not lost), as with them spelled out.
#[test]
fn the_manifest_carries_the_selection_and_the_config_it_was_checked_by() {
    let (root, base) = flydsl_repo_with(&[("value", "100")], &[("value", "70")]);
    let dir = root.path();
    std::fs::write(
        dir.join("bench.toml"),
        "keys = [\"op\", \"shape\", \"dtype\"]\n\n[select]\n\n[[select.groups]]\nname = \"softmax\"\npaths = [\"softmax/**\"]\nrows = [\"op=softmax*\"]\n\n[[select.groups]]\nname = \"gemm\"\npaths = [\"gemm/**\"]\nrows = [\"op=gemm*\"]\n",
    )
    .unwrap();
    let selection = r#"{"selection":"some","groups":["gemm"]}"#;
    let config = dir.join("bench.toml");
    let main = dir.join("main.csv");
    std::fs::write(
        &main,
        "op,shape,dtype,tbps,tflops,status\nsoftmax,4096x4096,bf16,-,100,ok\ngemm,4096x4096,bf16,-,100,ok\n",
    )
    .unwrap();
    let run = bench(
        dir,
        &base,
        "./scripts/run_benchmark.sh --output_csv {out} {groups}",
        &[
            "--config",
            config.to_str().unwrap(),
            "--selection",
            selection,
            "--groups-format",
            "flag:--only",
            "--baseline-result",
            main.to_str().unwrap(),
        ],
    );
    let out = run.outputs();
    let spelled = compare(
        &[
            ("INPUT_CURRENT", &out["current-files"]),
            ("INPUT_BASELINE", &out["compare-baseline"]),
            ("INPUT_RESOLUTION", &resolution(&base)),
            ("INPUT_CONFIG", config.to_str().unwrap()),
            ("INPUT_SELECTION", selection),
        ],
        4,
    );
    let manifest = compare(&[("INPUT_MANIFEST", &out["manifest"])], 4);
    assert_eq!(manifest, spelled);
    let counts = &manifest["baselines"][0]["counts"];
    assert_eq!(
        (
            counts["regressed"].as_u64(),
            counts["not-selected"].as_u64()
        ),
        (Some(1), Some(1)),
        "{manifest}"
    );
}

/// The manifest lies where the harness could rewrite it: a threshold, a
/// metric, an ignore list or a config out of what the inputs take is bad
/// input that names the manifest, never a verdict judged by it.
#[test]
fn a_rewritten_manifests_settings_are_checked_as_the_inputs_are() {
    let (_repo, _, run) = slower(&["--rounds", "1"]);
    let path = run.outputs()["manifest"].clone();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let patterns: Vec<String> = (0..101).map(|i| format!("op=x{i}")).collect();
    for (field, value, says) in [
        (
            "fail",
            serde_json::json!(50.0),
            "its fail threshold: expected a percentage from 0 to 1000, got \"5000\"",
        ),
        ("metric", serde_json::json!("tflops:faster"), "its metric"),
        ("ignore", serde_json::json!(patterns), "101 ignore patterns"),
        (
            "config_text",
            serde_json::json!("keys = 3"),
            "its copy of the config bench read: line 1",
        ),
        (
            "config_text",
            serde_json::json!("#".repeat(1024 * 1024 + 1)),
            "its copy of the config is 1048577 bytes, over the 1048576-byte limit",
        ),
    ] {
        let mut hostile = written.clone();
        hostile["judged"][field] = value;
        std::fs::write(&path, hostile.to_string()).unwrap();
        let refused = Bin::new().args(["compare", "--manifest", &path]).run();
        assert_eq!(refused.code, 1, "{field}: {}", refused.stderr);
        assert!(
            refused.stderr.contains("is not bench's") && refused.stderr.contains(says),
            "{field}: {}",
            refused.stderr
        );
    }
}
