//! Issue 31: `trend` on a rolling history written to disk as the example
//! workflow keeps it (`history/NNNN-<sha>.csv`): a regression that landed
//! anyway, an improvement, a creep, a one-run outlier, a row that appears
//! late; each output form as a user reads it, `--fail-on regression`, and
//! bad or hostile input.

use std::path::Path;

use serde_json::Value;

use crate::support::harness::{Bin, Run};
use crate::support::workflow_commands::commands;

/// The commit of run `i`, as the rolling history names its files.
pub fn sha(i: usize) -> String {
    format!("{:040x}", i + 1)
}

/// Deterministic noise of about 0.5%, so every run of the test is the same.
fn wobble(i: usize, row: usize) -> f64 {
    let x = ((i * 7919 + row * 104_729) % 1000) as f64 / 1000.0;
    1.0 + 0.01 * (x - 0.5)
}

/// 30 runs: gemm 20% slower from run 27 (new), softmax 30% faster from run
/// 10, rmsnorm creeping 2% per run over the last 10, layernorm flat with
/// one odd run, and a row that only the last 12 runs have.
pub fn history(dir: &Path, runs: usize) {
    let h = dir.join("history");
    std::fs::create_dir_all(&h).unwrap();
    for i in 0..runs {
        let mut csv = String::from("op,shape,dtype,tflops\n");
        let gemm = if i >= 27 { 80.0 } else { 100.0 };
        let softmax = if i >= 10 { 65.0 } else { 50.0 };
        let rms = 40.0 * 0.98f64.powi(i.saturating_sub(20) as i32);
        let layer = if i == 15 { 90.0 } else { 30.0 };
        for (row, (op, v)) in [
            ("gemm", gemm),
            ("softmax", softmax),
            ("rmsnorm", rms),
            ("layernorm", layer),
        ]
        .into_iter()
        .enumerate()
        {
            csv.push_str(&format!("{op},4096x4096,bf16,{:.4}\n", v * wobble(i, row)));
        }
        if i >= runs.saturating_sub(12) {
            csv.push_str(&format!("newop,1x1,fp8,{:.4}\n", 5.0 * wobble(i, 9)));
        }
        std::fs::write(h.join(format!("{i:04}-{}.csv", sha(i))), csv).unwrap();
    }
}

fn trend(runs: usize) -> Bin {
    let bin = Bin::new();
    history(bin.dir(), runs);
    bin.args(["trend", "--history", "history/*.csv"])
}

fn changes_of<'a>(v: &'a Value, op: &str) -> Vec<&'a Value> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["key"]["op"] == op)
        .flat_map(|r| r["changes"].as_array().unwrap())
        .collect()
}

#[test]
fn each_change_is_found_at_its_run_with_its_commit_and_kind() {
    let (_, v) = trend(30).json();
    assert_eq!(
        (v["schema"].as_u64(), v["runs"].as_u64()),
        (Some(1), Some(30))
    );
    let gemm = changes_of(&v, "gemm");
    assert_eq!(gemm.len(), 1, "{v}");
    assert_eq!(gemm[0]["index"], 27);
    assert_eq!(gemm[0]["run"], format!("0027-{}", sha(27)));
    assert_eq!(gemm[0]["sha"], sha(27));
    assert_eq!(gemm[0]["kind"], "persistent");
    assert_eq!(gemm[0]["new"], true);
    let pct = gemm[0]["change_pct"].as_f64().unwrap();
    assert!((pct + 20.0).abs() < 1.5, "{pct}");
    let softmax = changes_of(&v, "softmax");
    assert_eq!(
        (softmax[0]["index"].as_u64(), softmax[0]["new"].as_bool()),
        (Some(10), Some(false))
    );
    assert!(softmax[0]["change_pct"].as_f64().unwrap() > 25.0);
    let rms = changes_of(&v, "rmsnorm");
    assert_eq!(rms.len(), 1, "{v}");
    assert_eq!(
        (rms[0]["kind"].as_str(), rms[0]["index"].as_u64()),
        (Some("drift"), Some(20))
    );
    assert!(
        changes_of(&v, "layernorm").is_empty(),
        "one odd run is no change"
    );
    let layer = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"]["op"] == "layernorm");
    // A row with only an outlier lists no change, but names its odd run:
    // an outlier counted and never named could not be looked at.
    let layer = layer.expect("the row with an outlier is listed");
    assert_eq!(
        layer["changes"].as_array().map(Vec::len),
        Some(0),
        "{layer}"
    );
    let odd = layer["outliers"].as_array().unwrap();
    assert_eq!(odd.len(), 1, "{layer}");
    assert!(odd[0].as_str().unwrap().starts_with("0015-"), "{layer}");
    assert_eq!(v["counts"]["outliers"], 1);
    assert!(changes_of(&v, "newop").is_empty());
    assert_eq!(v["rows_judged"], 5);
    assert_eq!(v["counts"]["new_regressions"], 1);
}

#[test]
fn fail_on_regression_goes_red_only_for_a_new_one() {
    trend(30)
        .args(["--fail-on", "regression"])
        .run()
        .assert_code(4);
    // Run 27 of 30 is not within the last 2 runs.
    trend(30)
        .args(["--fail-on", "regression", "--recent", "2"])
        .run()
        .assert_code(0);
    trend(30)
        .env("INPUT_FAIL_ON", "regression")
        .run()
        .assert_code(4);
    trend(30).run().assert_code(0);
}

#[test]
fn on_a_runner_outputs_summary_and_a_warning_naming_the_commit() {
    let run = trend(30).on_runner().run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["regressions"], "1");
    assert_eq!(out["new-regressions"], "1");
    assert_eq!(out["improvements"], "1");
    assert_eq!(out["drifts"], "1");
    assert_eq!(out["runs"], "30");
    let json: Value = serde_json::from_str(&out["json"]).unwrap();
    assert_eq!(json["counts"]["regressions"], 1);
    let warning = run
        .stdout
        .lines()
        .find(|l| l.starts_with("::warning title=Benchmark regression on main::"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        warning.contains(&sha(27)[..12]) && warning.contains("op=gemm"),
        "{warning}"
    );
    // The regressions, then the improvements, then the drifts; one chart
    // per regressed row.
    insta::assert_snapshot!("trend_summary", run.summary);
}

/// The report in the log: each change with its run, commit and kind.
#[test]
fn text_of_a_history_with_every_kind_of_change() {
    let run = trend(30).args(["--format", "text"]).run();
    run.assert_code(0);
    insta::assert_snapshot!("trend_text", run.stdout);
}

/// The report a later step parses: each change with its run, commit, kind
/// and size, as a snapshot.
#[test]
fn json_of_a_history_with_every_kind_of_change() {
    let run = trend(30).args(["--format", "json"]).run();
    run.assert_code(0);
    insta::assert_snapshot!("trend_json", run.stdout);
}

#[test]
fn a_malformed_file_is_a_warning_and_is_left_out() {
    let bin = trend(30);
    std::fs::write(bin.dir().join("history/0030-broken.csv"), "op,shape\n1,2\n").unwrap();
    let (_, v) = bin.json();
    assert_eq!(v["runs"], 30);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("0030-broken.csv") && warnings.contains("left out"),
        "{warnings}"
    );
}

/// Issue 49: what a maintainer reads of two steps the labelled histories
/// showed `trend` missing or misnaming: attention 25% slower for six
/// nightly runs and then fixed is a persistent regression (it landed) and
/// a persistent improvement at the fix, where both were one `transient`
/// change; a 13% speedup of rope two runs from the start, followed by a
/// slow move back of 4% then 3%, is found at its run, where nothing was.
#[test]
fn a_step_that_held_then_was_undone_and_an_early_step_are_found_as_they_were() {
    let bin = Bin::new();
    let h = bin.dir().join("history");
    std::fs::create_dir_all(&h).unwrap();
    for i in 0..40usize {
        let attn = if (10..16).contains(&i) { 75.0 } else { 100.0 };
        let rope = match i {
            0..2 => 88.5,
            2..8 => 100.0,
            8..18 => 96.2,
            _ => 93.5,
        };
        let csv = format!(
            "op,shape,dtype,tflops\nattn,1x1,bf16,{:.4}\nrope,1x1,bf16,{:.4}\n",
            attn * wobble(i, 0),
            rope * wobble(i, 1)
        );
        std::fs::write(h.join(format!("{i:04}-{}.csv", sha(i))), csv).unwrap();
    }
    let (_, v) = bin.args(["trend", "--history", "history/*.csv"]).json();
    let seen = |op: &str| -> Vec<(u64, String, bool)> {
        changes_of(&v, op)
            .iter()
            .map(|c| {
                let negative = c["change_pct"].as_f64().unwrap() < 0.0;
                (
                    c["index"].as_u64().unwrap(),
                    c["kind"].as_str().unwrap().to_owned(),
                    negative,
                )
            })
            .collect()
    };
    let persistent = || "persistent".to_owned();
    assert_eq!(
        seen("attn"),
        [(10, persistent(), true), (16, persistent(), false)],
        "{v}"
    );
    assert_eq!(seen("rope").first(), Some(&(2, persistent(), false)), "{v}");
}

/// `trend` on `runs` history files named `NNNN{suffix}.csv` that all hold
/// `csv`, on a runner when asked.
fn trend_on_copies(runs: usize, suffix: &str, csv: &str, on_runner: bool) -> Run {
    let bin = Bin::new();
    let h = bin.dir().join("history");
    std::fs::create_dir(&h).unwrap();
    for i in 0..runs {
        std::fs::write(h.join(format!("{i:04}{suffix}.csv")), csv).unwrap();
    }
    let bin = bin.args(["trend", "--history", "history/*.csv"]);
    if on_runner { bin.on_runner() } else { bin }.run()
}

/// A history that leaves nothing to judge is bad input naming its first
/// file, line and reason, never "0 runs" and exit 0: asv's results read
/// without a config naming their key columns left every pvlib file out.
#[test]
fn a_history_with_nothing_to_judge_names_its_first_file_and_fails() {
    let run = trend_on_copies(3, "", "benchmark,params,seconds\ntime_aoi,,0.5\n", false);
    run.assert_code(1);
    assert!(
        run.stderr.contains("names 3 files, and none can be read")
            && run.stderr.contains("0000.csv line 1: no key column"),
        "{}",
        run.stderr
    );
    let invalid = "op,shape,dtype,tflops\ngemm,1x1,bf16,0\ngemm,2x2,bf16,-1\n";
    let run = trend_on_copies(2, "", invalid, false);
    run.assert_code(1);
    let first = "0000.csv line 2: tflops is 0, not a positive";
    assert!(
        run.stderr.contains("no row in the 2 runs read has a value") && run.stderr.contains(first),
        "{}",
        run.stderr
    );
    // A stranger's file names and statuses, in the error on a runner: the
    // one command is the error annotation.
    let status = "op,shape,dtype,tflops,status\ng,s,d,1,\"x\r::error::owned%0A\"\n";
    let run = trend_on_copies(2, "-::warning::x", status, true);
    run.assert_code(1);
    assert!(run.stderr.contains("status is"), "{}", run.stderr);
    let said = format!("{}\n{}", run.stdout, run.stderr);
    assert_eq!(commands(&said), ["error"], "{said}");
}

#[test]
fn bad_input_is_named_and_refused() {
    let run = Bin::new().arg("trend").run();
    run.assert_code(2);
    assert!(run.stderr.contains("--history"), "{}", run.stderr);
    for (flag, value, says) in [
        ("--min-change", "0", "percentage"),
        ("--min-change", "100", "percentage"),
        ("--recent", "0", "number of runs"),
        ("--recent", "many", "number of runs"),
        ("--fail-on", "always", "regression or never"),
    ] {
        let run = trend(5).args([flag, value]).run();
        run.assert_code(2);
        assert!(
            run.stderr.contains(flag) && run.stderr.contains(says),
            "{flag}: {}",
            run.stderr
        );
    }
    let run = Bin::new()
        .args(["trend", "--history", "nowhere/*.csv", "--format", "json"])
        .run();
    run.assert_code(1);
    assert!(
        run.stderr.contains("names no file (nowhere/*.csv)"),
        "{}",
        run.stderr
    );
    let bin = Bin::new();
    let h = bin.dir().join("h");
    std::fs::create_dir(&h).unwrap();
    for i in 0..1001 {
        std::fs::write(h.join(format!("{i:04}.csv")), "op,shape,dtype,tflops\n").unwrap();
    }
    let run = bin.args(["trend", "--history", "h/*.csv"]).run();
    run.assert_code(2);
    assert!(run.stderr.contains("1001 files"), "{}", run.stderr);
}

#[test]
fn a_strangers_keys_and_file_names_never_make_a_workflow_command() {
    let bin = Bin::new();
    let h = bin.dir().join("history");
    std::fs::create_dir(&h).unwrap();
    let key = "\"x\r::error::owned\u{2028}%0A::set-output name=a::b\"";
    for i in 0..12 {
        let v = if i >= 8 { 50.0 } else { 100.0 } * wobble(i, 0);
        let csv = format!("op,shape,dtype,tflops\n{key},s,d,{v}\n");
        std::fs::write(h.join(format!("{i:04}-::warning::x.csv")), csv).unwrap();
    }
    let run = bin
        .args(["trend", "--history", "history/*.csv"])
        .on_runner()
        .run();
    run.assert_code(0);
    for line in run.stdout.lines().chain(run.stderr.lines()) {
        let trimmed = line.trim_start();
        assert!(
            !trimmed.starts_with("::") || trimmed.starts_with("::warning title=Benchmark"),
            "{line}"
        );
    }
    assert!(
        run.stdout
            .contains("::warning title=Benchmark regression on main::")
    );
}

/// The composite step of `trend/action.yml`, through the launcher: the
/// outputs written are exactly those declared, every input reaches the
/// binary, and `fail-on: regression` fails the step on a new regression.
#[test]
fn the_trend_action_writes_the_outputs_it_declares() {
    use crate::action::{action_dir, assert_declared, run_step_of};
    let dir = action_dir();
    let work = tempfile::tempdir().unwrap();
    history(work.path(), 30);
    let event = work.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let pattern = work.path().join("history/*.csv").display().to_string();
    let run = run_step_of(
        "trend/action.yml",
        dir.path(),
        &event,
        "push",
        &[
            ("history", &pattern),
            ("fail-on", "regression"),
            ("recent", "3"),
        ],
        &[],
    );
    assert_eq!(
        run.code, 4,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_declared("trend/action.yml", &run);
    assert_eq!(run.outputs["new-regressions"], "1");
    assert_eq!(run.outputs["runs"], "30");
}

/// `trend`'s inputs, outputs, defaults and exit codes say the same in
/// `--help`, `trend/action.yml` and docs/trend.md; the README's row.
#[test]
fn trend_states_its_inputs_outputs_and_exits_alike_everywhere() {
    let help = crate::defaults::help(&["trend"]);
    let action = crate::action::action_at("trend/action.yml");
    let root = crate::support::harness::repo_root();
    let page = std::fs::read_to_string(root.join("docs/trend.md")).unwrap();
    let front = std::fs::read_to_string(root.join("README.md")).unwrap();
    let inputs = action["inputs"].as_mapping().unwrap();
    assert_eq!(inputs.len(), 6);
    for (name, spec) in inputs {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` | `--{name}` |")),
            "docs/trend.md: {name}"
        );
        assert!(help.contains(&format!("--{name} <")), "--help: --{name}");
        assert!(
            help.contains(&format!("INPUT_{}", name.to_uppercase().replace('-', "_"))),
            "{name}"
        );
        if let Some(default) = spec["default"].as_str().filter(|d| !d.is_empty()) {
            assert!(
                help.contains(&format!("[default: {default}]")),
                "--help default of {name}"
            );
            assert!(
                page.contains(&format!("| `{default}` |")),
                "docs default of {name}"
            );
        }
    }
    let outputs = action["outputs"].as_mapping().unwrap();
    assert_eq!(outputs.len(), 7);
    for (name, _) in outputs {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` |")),
            "docs/trend.md lacks output {name}"
        );
    }
    for code in [0, 1, 2, 4] {
        assert!(
            help.contains(&format!("{code} ")) && page.contains(&format!("| {code} |")),
            "{code}"
        );
    }
    assert!(front.contains("[docs/trend.md](docs/trend.md)"));
}

/// A stranger's history made to change level every four runs in every row,
/// under long keys: the `json` output still fits the runner's 1 MiB (fewer
/// rows listed), and the step succeeds.
#[test]
fn a_history_of_changes_everywhere_keeps_the_json_output_under_1_mib() {
    let bin = Bin::new();
    let h = bin.dir().join("history");
    std::fs::create_dir(&h).unwrap();
    let long = "k".repeat(400);
    for i in 0..160 {
        // A staircase: a step of 25% every four runs, in every row.
        let level = 100.0 * 1.25f64.powi((i / 4) as i32);
        let mut csv = String::from("op,shape,dtype,tflops\n");
        for row in 0..250 {
            csv.push_str(&format!("{long}{row},s,d,{:.4}\n", level * wobble(i, row)));
        }
        std::fs::write(h.join(format!("{i:04}.csv")), csv).unwrap();
    }
    let run = bin
        .args(["trend", "--history", "history/*.csv"])
        .on_runner()
        .run();
    run.assert_code(0);
    let json = &run.outputs()["json"];
    assert!(json.len() <= 1024 * 1024, "{} bytes", json.len());
    let v: Value = serde_json::from_str(json).unwrap();
    assert!(
        v["counts"]["improvements"].as_u64().unwrap() > 1000,
        "{}",
        v["counts"]
    );
    assert!(
        v["rows_listed"].as_u64().unwrap() < 200,
        "fewer rows than the cap of 200"
    );
}

/// Found by the fuzzer (`trend_judge`): a row whose level moved from 1e-300
/// to 1e300 had a change of `+inf%` in the text and `null` in the JSON.
/// The change is a number (at most 1e100, 1e102%).
#[test]
fn a_step_of_600_orders_of_magnitude_is_a_number() {
    let far_apart = || {
        let bin = Bin::new();
        let h = bin.dir().join("history");
        std::fs::create_dir(&h).unwrap();
        for i in 0..8 {
            let v = if i < 4 { "1e-300" } else { "1e300" };
            let csv = format!("op,shape,dtype,tflops\ngemm,1x1,bf16,{v}\n");
            std::fs::write(h.join(format!("{i:04}.csv")), csv).unwrap();
        }
        bin.args(["trend", "--history", "history/*.csv"])
    };
    let (_, v) = far_apart().json();
    let changes = changes_of(&v, "gemm");
    assert_eq!(changes.len(), 1, "{v}");
    let pct = changes[0]["change_pct"].as_f64();
    assert!(pct.is_some_and(|p| p.is_finite() && p > 1e90), "{v}");
    let run = far_apart().args(["--format", "text"]).run();
    assert!(
        run.stdout.contains("gemm") && !run.stdout.contains("inf"),
        "{}",
        run.stdout
    );
}
