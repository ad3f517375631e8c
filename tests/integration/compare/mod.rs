//! `compare` end to end, on results shaped like a GPU kernel suite's
//! (`op,shape,dtype,tbps,tflops,status`, 65 rows, `-` for no value): the
//! dashboard lines on stdout (a snapshot), the step outputs, the summary,
//! the exit codes, and every way an input can be bad.

mod columns;
mod limits;
mod noise;
mod output;
pub mod paired;
mod safety;
mod same_values;
mod two_levels;
mod unpaired_level;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::harness::{Bin, Run};

pub const HEADER: &str = "op,shape,dtype,tbps,tflops,status\n";
const OPS: [&str; 13] = [
    "softmax",
    "layernorm",
    "rmsnorm",
    "gemm",
    "mla_decode",
    "flash_attn",
    "allreduce",
    "topk",
    "moe_gate",
    "rope",
    "quant",
    "dequant",
    "gelu",
];

/// One benchmark row of the 65: even rows are memory-bound (TB/s), odd
/// ones compute-bound (TFLOPS).
#[derive(Clone)]
pub struct Bench {
    pub op: String,
    pub shape: String,
    pub dtype: &'static str,
    pub memory: bool,
    pub value: f64,
}

pub fn suite() -> Vec<Bench> {
    (0..65)
        .map(|i| Bench {
            op: OPS[i % OPS.len()].to_owned(),
            shape: format!("{}x8192", (i + 1) * 256),
            dtype: ["bf16", "fp16", "fp8"][i % 3],
            memory: i % 2 == 0,
            value: if i % 2 == 0 {
                1.0 + (i as f64) * 0.05
            } else {
                100.0 + (i as f64) * 7.0
            },
        })
        .collect()
}

pub fn line(b: &Bench, value: Option<f64>, status: &str) -> String {
    let v = value.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
    let (tbps, tflops) = if b.memory {
        (v, "-".to_owned())
    } else {
        ("-".to_owned(), v)
    };
    format!(
        "{},{},{},{tbps},{tflops},{status}\n",
        b.op, b.shape, b.dtype
    )
}

pub fn csv(rows: &[Bench], each: impl Fn(usize, &Bench) -> Option<String>) -> String {
    let mut text = HEADER.to_owned();
    for (i, b) in rows.iter().enumerate() {
        if let Some(l) = each(i, b) {
            text.push_str(&l);
        }
    }
    text
}

/// A failed baseline row, a regression and a new benchmark: the
/// baseline's MLA row failed (`missing`), the change made row 10 20%
/// slower, and added a benchmark.
pub const MISSING: usize = 4;
pub const SLOWER: usize = 10;

pub fn seed_files(dir: &Path) -> (PathBuf, PathBuf) {
    let rows = suite();
    let base = csv(&rows, |i, b| {
        Some(if i == MISSING {
            line(b, None, "missing")
        } else {
            line(b, Some(b.value), "ok")
        })
    });
    let mut cur = csv(&rows, |i, b| {
        Some(line(
            b,
            Some(if i == SLOWER { b.value * 0.8 } else { b.value }),
            "ok",
        ))
    });
    cur.push_str("new_kernel,1x1,bf16,-,42.000,ok\n");
    let (b, c) = (dir.join("main.csv"), dir.join("current.csv"));
    std::fs::write(&b, base).unwrap();
    std::fs::write(&c, cur).unwrap();
    (b, c)
}

/// `compare` on those files: the current results against `main`.
pub fn compare_seed() -> Bin {
    let r = Bin::new();
    let (base, cur) = seed_files(r.dir());
    against_main(r, &cur, &base)
}

/// `bin` running `compare` of `cur` against `base`, labelled `main`.
pub fn against_main(bin: Bin, cur: &Path, base: &Path) -> Bin {
    bin.arg("compare")
        .arg("--current")
        .arg(cur)
        .arg("--baseline")
        .arg(format!("main={}", base.display()))
}

/// The text a maintainer reads in the log: the headline, the dashboard
/// block (64 rows: the MLA row whose baseline failed is not among them,
/// row 10 is the one 20% slower), the counts, the coverage, the rows not
/// compared and the re-run advice, as a snapshot.
#[test]
fn text_of_a_failed_baseline_row_a_regression_and_a_new_benchmark() {
    let run = compare_seed().args(["--format", "text"]).run();
    run.assert_code(4);
    insta::assert_snapshot!("compare_text_regression", run.stdout);
    let rowlike = run.stdout.lines().filter(|l| l.contains("ratio=")).count();
    assert_eq!(rowlike, 64, "no other line looks like a row");
}

fn on_runner_seed() -> Run {
    compare_seed().on_runner().run()
}

#[test]
fn a_regression_is_an_output_one_error_annotation_and_the_summarys_first_section() {
    let run = on_runner_seed();
    run.assert_code(4);
    let o = run.outputs();
    for (name, value) in [
        ("verdict", "regression"),
        ("report-only", "false"),
        ("compared", "64"),
        ("regressed", "1"),
        ("warned", "0"),
        ("improved", "0"),
        ("lost", "0"),
        ("new", "1"),
        ("noisy", "0"),
        ("worst-key", "op=quant,shape=2816x8192,dtype=fp16"),
        ("worst-change-pct", "-20.0"),
    ] {
        assert_eq!(o[name], value, "{name}");
    }
    let json: Value = serde_json::from_str(&o["json"]).unwrap();
    assert_eq!(json["schema"], 2);
    assert_eq!(json["baselines"][0]["counts"]["not-comparable"], 1);
    assert_eq!(json["inputs"][0]["rows"], 66);
    assert_eq!(json["inputs"][1]["valid_rows"], 64);
    assert_eq!(json["inputs"][1]["sha256"].as_str().unwrap().len(), 64);
    let errors: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    assert!(errors[0].contains("op=quant,shape=2816x8192,dtype=fp16: -20.0%25 against main"));
    let s = &run.summary;
    let order = [
        "### Benchmark comparison: REGRESSION",
        "**Regressed and lost** (1)",
        "**New** (1)",
        "**Not comparable** (1)",
        "<details><summary>All 66 rows against main</summary>",
    ];
    let mut at = 0;
    for part in order {
        let found = s[at..]
            .find(part)
            .unwrap_or_else(|| panic!("{part} after byte {at}: {s}"));
        at += found;
    }
    let b = &suite()[SLOWER];
    let row = format!(
        "| op=quant,shape=2816x8192,dtype=fp16 | {:.3} TB/s | {:.3} TB/s | -20.0% | regressed |",
        b.value,
        b.value * 0.8
    );
    assert!(s.contains(&row), "{row} in {s}");
}

#[test]
fn json_format_has_every_row_with_samples_and_thresholds() {
    let (_, j) = compare_seed().args(["--fail-threshold", "25"]).json();
    assert_eq!(j["verdict"], "pass", "20% is within 25%");
    let rows = j["baselines"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 66);
    let slower = &rows[SLOWER];
    assert_eq!(slower["class"], "warned");
    assert_eq!(slower["thresholds"]["fail_pct"], 25.0);
    assert_eq!(slower["current"]["samples"].as_array().unwrap().len(), 1);
    assert_eq!(slower["unit"], "TB/s");
    assert!((slower["change_pct"].as_f64().unwrap() + 20.0).abs() < 1e-9);
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

pub fn refused(run: &Run, code: i32, parts: &[&str]) {
    run.assert_code(code);
    for part in parts {
        assert!(run.stderr.contains(part), "{part:?} in {}", run.stderr);
    }
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.output_file.is_empty(),
        "nothing written: {}",
        run.output_file
    );
    assert!(run.summary.is_empty());
}

#[test]
fn bad_input_names_the_file_and_the_line_and_writes_nothing() {
    let good = "op,shape,dtype,tflops\nx,1,bf16,1\n";
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "no-such.csv",
            String::new(),
            vec!["cannot read", "no-such.csv"],
        ),
        (
            "nokey.csv",
            "op,shape,tflops\nx,1,1\n".into(),
            vec!["nokey.csv line 1: no key column dtype"],
        ),
        (
            "nometric.csv",
            "op,shape,dtype,ms\nx,1,b,1\n".into(),
            vec!["nometric.csv line 1: no metric column tflops or tbps"],
        ),
        (
            "twice.csv",
            format!("{good}y,1,bf16,2\nx,1,bf16,3\n"),
            vec!["twice.csv line 4: the key op=x,shape=1,dtype=bf16 is already on line 2"],
        ),
    ];
    for (name, text, parts) in cases {
        let r = Bin::new();
        let dir = r.dir().to_owned();
        if !text.is_empty() {
            write(&dir, name, &text);
        }
        let base = write(&dir, "main.csv", good);
        let run = r
            .args(["compare", "--current"])
            .arg(dir.join(name))
            .arg("--baseline")
            .arg(format!("main={}", base.display()))
            .on_runner()
            .run();
        refused(&run, 1, &parts);
        // A malformed baseline is bad input too (an absent one is not).
        if name != "no-such.csv" {
            let r = Bin::new();
            let cur = write(r.dir(), "current.csv", good);
            let base = write(r.dir(), name, &text);
            let run = r
                .args(["compare", "--current"])
                .arg(&cur)
                .arg("--baseline")
                .arg(format!("main={}", base.display()))
                .on_runner()
                .run();
            refused(&run, 1, &parts);
        }
    }
}

#[test]
fn usage_errors_exit_2_and_name_the_input() {
    let r = Bin::new();
    let cur = write(r.dir(), "c.csv", "op,shape,dtype,tflops\nx,1,bf16,1\n");
    let run = r
        .args(["compare", "--current"])
        .arg(&cur)
        .args(["--baseline", "main@abc=x.csv"])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr.contains("--baseline: not a valid label"),
        "{}",
        run.stderr
    );
    let run = Bin::new()
        .args(["compare", "--baseline", "main=x.csv"])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("--current / INPUT_CURRENT: no current results"),
        "{}",
        run.stderr
    );
    let run = Bin::new()
        .args([
            "compare",
            "--current",
            "c.csv",
            "--baseline",
            "main=m.csv",
            "--gate",
            "tag",
        ])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("--gate: \"tag\" is not one of the baseline labels (main)"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unavailable_gate_is_inconclusive_and_strict_fails_it() {
    let r = Bin::new();
    let cur = write(r.dir(), "c.csv", "op,shape,dtype,tflops\nx,1,bf16,1\n");
    let empty = write(r.dir(), "empty.csv", "");
    let failed = write(
        r.dir(),
        "failed.csv",
        "op,shape,dtype,tflops,status\nx,1,bf16,-,missing\n",
    );
    for (baseline, why) in [
        ("main=absent.csv".to_owned(), "No such file"),
        (format!("main={}", empty.display()), "is empty"),
        (
            format!("main={}", failed.display()),
            "the baseline has no valid row (",
        ),
        (
            format!("main={}", failed.display()),
            "failed.csv line 2: status is \"missing\")",
        ),
    ] {
        for (strict, code) in [(false, 0), (true, 3)] {
            let mut run = Bin::new()
                .args(["compare", "--current"])
                .arg(&cur)
                .args(["--baseline", &baseline])
                .on_runner();
            if strict {
                run = run.arg("--strict");
            }
            let run = run.run();
            run.assert_code(code);
            assert_eq!(run.outputs()["verdict"], "inconclusive");
            assert!(
                run.stdout.contains(
                    "::warning title=Benchmark baseline unavailable::baseline main unavailable"
                ),
                "{}",
                run.stdout
            );
            assert!(run.stdout.contains(why), "{why}: {}", run.stdout);
        }
    }
}

#[test]
fn report_only_passes_and_says_so_everywhere() {
    let run = compare_seed().arg("--no-gate").on_runner().run();
    run.assert_code(0);
    assert_eq!(run.outputs()["verdict"], "regression");
    assert_eq!(run.outputs()["report-only"], "true");
    assert!(run.stdout.contains("REPORT-ONLY"));
    assert!(run.summary.contains("REPORT-ONLY"));
    assert!(
        !run.stdout.contains("::error"),
        "a warning, not an error: {}",
        run.stdout
    );
    let json: Value = serde_json::from_str(&run.outputs()["json"]).unwrap();
    assert_eq!(json["report_only"], true);
    let text = compare_seed().args(["--no-gate", "--format", "text"]).run();
    text.assert_code(0);
    assert!(
        text.stdout
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("REPORT-ONLY")
    );
}

#[test]
fn repeated_runs_compare_medians_and_overlap_is_noise() {
    let r = Bin::new();
    let dir = r.dir().to_owned();
    let file = |name: &str, a: f64, b: f64| {
        write(
            &dir,
            name,
            &format!("op,shape,dtype,tflops\nsteady,1,bf16,{a}\njittery,1,bf16,{b}\n"),
        )
    };
    let cur = [
        file("c1", 80.0, 80.0),
        file("c2", 82.0, 82.0),
        file("c3", 84.0, 84.0),
    ];
    let base = [
        file("b1", 100.0, 100.0),
        file("b2", 101.0, 70.0),
        file("b3", 99.0, 101.0),
    ];
    let mut cmd = r.arg("compare");
    for c in &cur {
        cmd = cmd.arg("--current").arg(c);
    }
    for b in &base {
        cmd = cmd.arg("--baseline").arg(format!("main={}", b.display()));
    }
    let (_, j) = cmd.json_code(4);
    let rows = j["baselines"][0]["rows"].as_array().unwrap();
    assert_eq!(
        rows[0]["class"], "regressed",
        "every current run below every baseline run"
    );
    assert_eq!(
        rows[1]["class"], "noisy",
        "a baseline run of 70 overlaps: {}",
        rows[1]
    );
    assert_eq!(rows[1]["baseline"]["median"], 100.0);
    assert_eq!(j["verdict"], "regression");
}

#[test]
fn the_release_tag_is_reported_not_gated_and_provenance_is_its_own_line() {
    let r = Bin::new();
    let dir = r.dir().to_owned();
    let cur = write(&dir, "c.csv", "op,shape,dtype,tflops\nx,1,bf16,100\n");
    let main = write(&dir, "m.csv", "op,shape,dtype,tflops\nx,1,bf16,100\n");
    let tag = write(&dir, "t.csv", "op,shape,dtype,tflops\nx,1,bf16,200\n");
    let resolution = r#"{"label": "main", "base_repo": "ROCm/FlyDSL", "base_sha": "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16", "base_source": "pr-base", "tag": "v0.3.1", "tag_sha": "89abcdef0123456789abcdef0123456789abcdef"}"#;
    let run = r
        .args(["compare", "--current"])
        .arg(&cur)
        .arg("--baseline")
        .arg(format!("main={}", main.display()))
        .arg("--baseline")
        .arg(format!("v0.3.1={}", tag.display()))
        .args(["--resolution", resolution, "--format", "text"])
        .run();
    run.assert_code(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines.contains(
            &"baseline main = ROCm/FlyDSL@fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16 (pr-base)"
        ),
        "{}",
        run.stdout
    );
    assert!(lines.contains(
        &"baseline v0.3.1 = ROCm/FlyDSL@89abcdef0123456789abcdef0123456789abcdef (release tag)"
    ));
    assert!(lines.contains(&"=== Benchmark: current vs v0.3.1 ==="));
    assert!(
        run.stdout.contains("v0.3.1: 1 compared (1 regressed"),
        "reported: {}",
        run.stdout
    );
}

#[test]
fn a_config_gives_rows_their_own_thresholds_and_unknown_keys_are_bad_input() {
    let r = Bin::new();
    let files = tempfile::tempdir().unwrap();
    let dir = files.path();
    let cur = write(
        dir,
        "c.csv",
        "op,shape,dtype,tflops\nallreduce_8,1,bf16,88\ngemm,1,bf16,88\n",
    );
    let main = write(
        dir,
        "m.csv",
        "op,shape,dtype,tflops\nallreduce_8,1,bf16,100\ngemm,1,bf16,100\n",
    );
    let config = write(
        dir,
        "bench.toml",
        "[[rules]]\nmatch = [\"op=allreduce*\"]\nfail-threshold = 15\n",
    );
    let (_, j) = r
        .args(["compare", "--current"])
        .arg(&cur)
        .arg("--baseline")
        .arg(format!("main={}", main.display()))
        .arg("--config")
        .arg(&config)
        .json_code(4);
    let rows = j["baselines"][0]["rows"].as_array().unwrap();
    assert_eq!(
        rows[0]["class"], "warned",
        "12% worse, within allreduce's 15%"
    );
    assert_eq!(rows[0]["thresholds"]["rule"], 0);
    assert_eq!(rows[1]["class"], "regressed");
    let bad = write(
        dir,
        "bad.toml",
        "[[rules]]\nmatch = [\"op=x\"]\nfail_treshold = 5\n",
    );
    let run = Bin::new()
        .args(["compare", "--current"])
        .arg(&cur)
        .arg("--baseline")
        .arg(format!("main={}", main.display()))
        .arg("--config")
        .arg(&bad)
        .run();
    run.assert_code(1);
    assert!(
        run.stderr.contains("bad.toml") && run.stderr.contains("fail_treshold"),
        "{}",
        run.stderr
    );
}
