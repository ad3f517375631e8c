//! `compare` where a fork's results are judged: what an adversarial review
//! once broke, each checked end to end. A metric that vanished is lost, not
//! passed; the resolution is evidence; keys never merge; limits on files,
//! bytes, threads, memory and outputs hold; a threshold that could never
//! fail is refused.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::compare::{HEADER, csv, line, suite};
use crate::support::harness::{Bin, Run};

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn compare_files(base: &str, cur: &str) -> Bin {
    let r = Bin::new();
    let (b, c) = (
        write(r.dir(), "base.csv", base),
        write(r.dir(), "cur.csv", cur),
    );
    r.args(["compare", "--current"])
        .arg(c)
        .arg("--baseline")
        .arg(format!("main={}", b.display()))
}

/// A GEMM that lost its TFLOPS and fell from 3.0 to 0.1 TB/s once passed
/// (exit 0, "not comparable").
#[test]
fn a_vanished_metric_fails_the_gate() {
    let base = format!("{HEADER}gemm,8192x8192,bf16,3.0,812.5,ok\nsoftmax,1x1,bf16,1.0,-,ok\n");
    let cur = format!("{HEADER}gemm,8192x8192,bf16,0.1,-,ok\nsoftmax,1x1,bf16,1.0,-,ok\n");
    let (run, j) = compare_files(&base, &cur).json_code(4);
    let row = &j["baselines"][0]["rows"][0];
    assert_eq!(row["class"], "lost", "{}", run.stdout);
    assert!(row["reason"].as_str().unwrap().contains("tflops"));
    assert_eq!(j["verdict"], "regression");
}

fn resolution(fields: serde_json::Value) -> String {
    let mut r = json!({"label": "main", "base_repo": "ROCm/FlyDSL", "base_sha": "a".repeat(40),
        "base_source": "pr-base", "base_available": true, "skip": false});
    for (k, v) in fields.as_object().unwrap() {
        r[k] = v.clone();
    }
    r.to_string()
}

/// A stale baseline file beside a resolution that says there is no
/// baseline (or is for another label) must not produce a pass.
// Issue 17, item 3: a stale baseline file beside such a resolution must not pass.
#[test]
fn a_resolution_without_a_baseline_makes_the_gate_inconclusive_never_a_pass() {
    let rows = suite();
    let text = csv(&rows, |_, b| Some(line(b, Some(b.value), "ok")));
    for (fields, says) in [
        (
            json!({"base_available": false, "base_sha": null}),
            "base_available: false",
        ),
        (
            json!({"skip": true, "skip_reason": "ref-deleted"}),
            "skip: true",
        ),
        (
            json!({"label": "main-mi355"}),
            "\\\"main-mi355\\\", which no --baseline names",
        ),
    ] {
        let run = compare_files(&text, &text)
            .arg("--resolution")
            .arg(resolution(fields.clone()))
            .on_runner()
            .run();
        run.assert_code(0);
        assert_eq!(run.outputs()["verdict"], "inconclusive", "{fields}");
        assert!(
            run.stdout
                .contains("::warning title=Benchmark baseline unavailable::"),
            "{}",
            run.stdout
        );
        assert!(
            run.outputs()["json"].contains(says),
            "{says}: {}",
            run.outputs()["json"]
        );
        let strict = compare_files(&text, &text)
            .arg("--resolution")
            .arg(resolution(fields.clone()))
            .arg("--strict")
            .run();
        strict.assert_code(3);
    }
    let run = compare_files(&text, &text)
        .arg("--resolution")
        .arg(resolution(json!({})))
        .on_runner()
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["verdict"], "pass", "a resolution that agrees");
}

/// Key cells that are not UTF-8 were read as empty, so two benchmarks
/// shared a key and were compared with each other.
#[test]
fn keys_that_are_not_utf8_are_refused_naming_file_and_line() {
    let mut bytes = HEADER.as_bytes().to_vec();
    bytes.extend_from_slice(b"gemm\xff,1x1,bf16,-,10,ok\ngemm\xfe,1x1,bf16,-,5,ok\n");
    let r = Bin::new();
    let c = write(r.dir(), "cur.csv", &bytes);
    let run = r
        .args(["compare", "--current"])
        .arg(&c)
        .arg("--baseline")
        .arg(format!("main={}", c.display()))
        .run();
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("cur.csv line 2: the key column op is not UTF-8 text"),
        "{}",
        run.stderr
    );
}

/// A byte-order mark (Excel writes one) is not part of the first column's
/// name, in either reader.
#[test]
fn a_byte_order_mark_is_dropped() {
    let rows = suite();
    let text = format!(
        "\u{feff}{}",
        csv(&rows, |_, b| Some(line(b, Some(b.value), "ok")))
    );
    let quoted = format!(
        "\u{feff}\"op\",shape,dtype,tbps,tflops,status\n{}",
        &text[HEADER.len() + 3..]
    );
    for t in [&text, &quoted] {
        let (_, j) = compare_files(t, t).json();
        assert_eq!(j["baselines"][0]["counts"]["compared"], 65);
    }
}

/// Runs `sh -c "ulimit -v KB; exec BINARY ARGS"` in `dir`: an address
/// space as small as a constrained runner's.
fn limited(dir: &Path, kb: u64, args: &[&str]) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_baseline-resolver"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap()
}

/// 64 MiB of blank lines once asked for 4.4 GB in one allocation and
/// aborted without a word; a thousand files once meant a thousand threads.
#[test]
fn blank_lines_and_many_files_fit_a_small_address_space() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = HEADER.as_bytes().to_vec();
    text.extend(std::iter::repeat_n(b'\n', 60 << 20));
    text.extend_from_slice(b"x,1,b,-,5,ok\n");
    write(dir.path(), "blank.csv", &text);
    let out = limited(
        dir.path(),
        1 << 20,
        &[
            "compare",
            "--current",
            "blank.csv",
            "--baseline",
            "main=blank.csv",
            "--format",
            "json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let small = format!("{HEADER}x,1,b,-,5,ok\n");
    let mut args = vec!["compare".to_owned()];
    for i in 0..900 {
        write(dir.path(), &format!("c{i}.csv"), &small);
        args.extend(["--current".to_owned(), format!("c{i}.csv")]);
    }
    args.extend([
        "--baseline".to_owned(),
        "main=c0.csv".to_owned(),
        "--format".to_owned(),
        "json".to_owned(),
    ]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = limited(dir.path(), 256 << 10, &refs);
    assert!(
        out.status.success(),
        "900 files in 256 MiB of address space: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["inputs"].as_array().unwrap().len(), 901);
}

#[test]
fn more_files_than_the_limit_are_a_usage_error() {
    let r = Bin::new();
    let f = write(r.dir(), "c.csv", format!("{HEADER}x,1,b,-,5,ok\n"));
    let list: String = (0..1001).map(|_| format!("{}\n", f.display())).collect();
    let run = r
        .arg("compare")
        .env("INPUT_CURRENT", list)
        .env("INPUT_BASELINE", format!("main={}", f.display()))
        .run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("1002 input files; one comparison reads at most 1000"),
        "{}",
        run.stderr
    );
}

/// A 30 MiB key once made a 63 MB `json` output and 94 MB of GITHUB_OUTPUT.
#[test]
fn every_output_stays_under_a_mebibyte_whatever_the_keys() {
    let huge = "k".repeat(30 << 20);
    let base = format!("{HEADER}{huge},1,b,-,100,ok\nsmall,1,b,-,100,ok\n");
    let cur = format!("{HEADER}{huge},1,b,-,50,ok\n");
    let run = compare_files(&base, &cur).on_runner().run();
    run.assert_code(4);
    for (name, value) in run.outputs() {
        assert!(
            value.len() <= 1 << 20,
            "output {name}: {} bytes",
            value.len()
        );
    }
    assert!(
        run.output_file.len() < 2 << 20,
        "GITHUB_OUTPUT: {} bytes",
        run.output_file.len()
    );
    assert!(
        run.summary.len() <= 1 << 20,
        "summary: {} bytes",
        run.summary.len()
    );
    let annotations: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert!(
        annotations.iter().all(|l| l.len() < 4096),
        "annotations are cut"
    );
    assert!(
        run.outputs()["worst-key"].contains("... ("),
        "cut with a marker"
    );
    assert!(
        run.stdout.lines().all(|l| l.len() < 4096),
        "log lines are cut"
    );
    let j: serde_json::Value = serde_json::from_str(&run.outputs()["json"]).unwrap();
    assert_eq!(j["verdict"], "regression");
}

#[test]
fn a_config_error_shows_a_short_visible_snippet() {
    let rows = suite();
    let text = csv(&rows, |_, b| Some(line(b, Some(b.value), "ok")));
    let r = compare_files(&text, &text);
    let config = write(
        r.dir(),
        "c.toml",
        format!(
            "keys = [\"{}\r::warning::x\", 1]\n",
            "k".repeat((1 << 20) - 100)
        ),
    );
    let run: Run = r.arg("--config").arg(config).run();
    run.assert_code(1);
    assert!(run.stderr.contains("c.toml line 1:"), "{}", run.stderr);
    assert!(run.stderr.len() < 1200, "{} bytes", run.stderr.len());
    assert!(!run.stderr.contains('\r'));
}

/// A higher-is-better metric falls at most 100%: such a threshold could
/// never fail, and used to be accepted silently.
#[test]
fn a_fail_threshold_that_can_never_fail_is_refused() {
    let text = format!("{HEADER}x,1,b,-,5,ok\n");
    for value in ["100", "250%"] {
        let run = compare_files(&text, &text)
            .args(["--fail-threshold", value])
            .run();
        run.assert_code(2);
        assert!(run.stderr.contains("--fail-threshold: "), "{}", run.stderr);
        assert!(run.stderr.contains("can never fail"), "{}", run.stderr);
    }
    let r = compare_files(&text, &text);
    let config = write(
        r.dir(),
        "lower.toml",
        "[[metrics]]\ncolumn = \"tflops\"\nunit = \"ms\"\ndirection = \"lower\"\n",
    );
    r.arg("--config")
        .arg(config)
        .args(["--fail-threshold", "150"])
        .run()
        .assert_code(0);
}

/// The verdict line names the thresholds the config's rules set, not only
/// the default: a reader of a failing log sees what judged the rows.
#[test]
fn the_verdict_line_names_the_thresholds_rules_set() {
    let r = Bin::new();
    let dir = r.dir().to_owned();
    let cur = write(
        &dir,
        "c.csv",
        "op,shape,dtype,tflops\nallreduce_8,1,bf16,88\ngemm,1,bf16,88\n",
    );
    let main = write(
        &dir,
        "m.csv",
        "op,shape,dtype,tflops\nallreduce_8,1,bf16,100\ngemm,1,bf16,100\n",
    );
    let config = write(
        &dir,
        "bench.toml",
        "[[rules]]\nmatch = [\"op=allreduce*\"]\nfail-threshold = 15\n\n[[rules]]\nmatch = [\"op=x*\"]\nignore = true\n",
    );
    let run = r
        .args(["compare", "--format", "text", "--current"])
        .arg(&cur)
        .arg("--baseline")
        .arg(format!("main={}", main.display()))
        .arg("--config")
        .arg(&config)
        .run();
    run.assert_code(4);
    let verdict = run
        .stdout
        .lines()
        .find(|l| l.starts_with("compare: REGRESSION"))
        .unwrap();
    assert!(
        verdict
            .ends_with("(fail: worse by more than 10% (rules: 15% for op=allreduce*), warn: 3%)"),
        "{verdict}"
    );
}

/// Found by the fuzzer (`compare_results`): values 1e600 times apart, both
/// positive finite numbers, made a change of `inf%`, `ratio= infx` on the
/// dashboard line, and `null` where the JSON states the change. Every
/// change is a number: at most 1e100, beyond which every threshold judges
/// it the same.
#[test]
fn values_far_apart_make_changes_every_output_can_state() {
    let (tiny, huge) = ("1e-300", "1e300");
    for (base, cur, class, code) in [(tiny, huge, "improved", 0), (huge, tiny, "regressed", 4)] {
        let b = format!("{HEADER}gemm,1x1,bf16,1.0,{base},ok\n");
        let c = format!("{HEADER}gemm,1x1,bf16,1.0,{cur},ok\n");
        let (_, j) = compare_files(&b, &c).json_code(code);
        let row = &j["baselines"][0]["rows"][0];
        assert_eq!(row["class"], class, "{row}");
        let change = row["change_pct"].as_f64();
        assert!(change.is_some_and(f64::is_finite), "{row}");
        let text = compare_files(&b, &c).args(["--format", "text"]).run();
        text.assert_code(code);
        assert!(!text.stdout.contains("inf"), "{}", text.stdout);
        assert!(text.stdout.contains("ratio="), "{}", text.stdout);
    }
}
