//! Issue 52: what each result was measured on. `bench` writes a
//! fingerprint beside every results file from the GPU tools it finds (fake
//! `nvidia-smi`/`rocm-smi` on PATH that print recorded output; none at all;
//! one that hangs, floods or prints bytes that are not UTF-8); `compare`
//! says first when the baseline came from another machine, is inconclusive
//! under `--fingerprint strict`, and leaves history runs from another
//! machine out of the bands.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::bench::{Project, quiet};
use crate::compare::{against_main, csv, line, suite, write};
use crate::support::harness::{Bin, repo_root, write_executable};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(repo_root().join("tests/fixtures/fingerprint").join(name)).unwrap()
}

/// A directory with fake tools, put first on PATH: `nvidia-smi` prints the
/// query's recorded CSV when asked a query, the recorded header else.
fn tools(dir: &Path, files: &[(&str, &str)]) -> String {
    let bin = dir.join("tools");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, script) in files {
        write_executable(&bin.join(name), script);
    }
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap())
}

fn nvidia_smi(query: &str) -> String {
    let (q, h) = (fixture(query), fixture("nvidia-smi-h100.txt"));
    format!(
        "#!/usr/bin/env bash\ncase \"$*\" in *--query-gpu*) cat <<'EOF'\n{q}EOF\n;; *) cat <<'EOF'\n{h}EOF\n;; esac\n"
    )
}

/// PATH with an `nvidia-smi` of one H100 (driver 550, CUDA 12.4, 700 W).
fn h100(dir: &Path) -> String {
    tools(dir, &[("nvidia-smi", &nvidia_smi("nvidia-h100.csv"))])
}

/// bench on a project, both sides, with PATH as given.
fn bench(path: &str, extra: &[&str]) -> (PathBuf, crate::support::harness::Run, Project) {
    let p = Project::new(&quiet("100", "gemm softmax"), &quiet("90", "gemm softmax"));
    let run = p
        .bench(&p.resolution(&p.base))
        .env("PATH", path)
        .env("RUNNER_NAME", "mi325-runner-3")
        .args(extra)
        .timeout(Duration::from_secs(120))
        .run();
    (p.root.path().join("results"), run, p)
}

fn fingerprint(results: &Path, side: &str) -> Value {
    let text = std::fs::read_to_string(results.join(format!("{side}-1.csv.fingerprint.json")))
        .unwrap_or_else(|e| {
            let listed: Vec<_> = std::fs::read_dir(results)
                .map(|d| d.flatten().map(|e| e.file_name()).collect())
                .unwrap_or_default();
            panic!("{side}'s fingerprint: {e}; {listed:?}")
        });
    serde_json::from_str(&text).unwrap()
}

#[test]
fn bench_writes_an_nvidia_fingerprint_beside_each_side() {
    let dir = tempfile::tempdir().unwrap();
    let path = h100(dir.path());
    let (results, run, _p) = bench(
        &path,
        &[
            "--fingerprint-command",
            r#"echo '{"image":"sha256:abc","numa":2}'"#,
        ],
    );
    run.assert_code(0);
    for side in ["current", "baseline"] {
        let fp = fingerprint(&results, side);
        assert_eq!(fp["gpus"][0]["model"], "NVIDIA H100 80GB HBM3");
        assert_eq!(fp["gpus"][0]["power_limit_w"], 700.0);
        assert_eq!(fp["gpus"][0]["clocks_locked"], false);
        assert_eq!(fp["driver"], "550.54.15");
        assert_eq!(fp["runtime"], "CUDA 12.4");
        assert_eq!(fp["runner"]["name"], "mi325-runner-3");
        assert_eq!(fp["extra"]["image"], "sha256:abc");
        assert_eq!(fp["extra"]["numa"], "2");
        assert!(fp["kernel"].is_string(), "{fp}");
    }
}

#[test]
fn bench_reads_rocm_smi_and_a_mig_machine() {
    let dir = tempfile::tempdir().unwrap();
    let json = fixture("rocm-smi-mi325x.json");
    let rocm = format!("#!/usr/bin/env bash\ncat <<'EOF'\n{json}EOF\n");
    let path = tools(dir.path(), &[("rocm-smi", &rocm)]);
    let (results, run, _p) = bench(&path, &[]);
    run.assert_code(0);
    let fp = fingerprint(&results, "current");
    assert_eq!(fp["gpus"].as_array().unwrap().len(), 2);
    assert_eq!(fp["gpus"][1]["model"], "AMD Instinct MI325X");
    assert_eq!(fp["gpus"][0]["vendor"], "amd");
    assert_eq!(fp["driver"], "6.8.5");

    let dir = tempfile::tempdir().unwrap();
    let path = tools(
        dir.path(),
        &[("nvidia-smi", &nvidia_smi("nvidia-a100-mig.csv"))],
    );
    let (results, run, _p) = bench(&path, &[]);
    run.assert_code(0);
    let fp = fingerprint(&results, "baseline");
    assert_eq!(fp["gpus"][0]["mig"], "Enabled");
    assert_eq!(fp["gpus"][1]["mig"], "Disabled");
}

#[test]
fn a_machine_without_gpu_tools_is_a_cpu_fingerprint_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // Only what bash and the harness need, no GPU tool.
    let path = tools(dir.path(), &[]);
    let (results, run, _p) = bench(&path, &[]);
    run.assert_code(0);
    let fp = fingerprint(&results, "current");
    assert_eq!(fp["gpus"], serde_json::json!([]));
    assert!(fp.get("driver").is_none(), "{fp}");
    assert!(fp.get("notes").is_none(), "a missing tool is no note: {fp}");
    assert!(fp["cpu"].is_string() || fp["cpus"].is_number(), "{fp}");
}

#[test]
fn hostile_tools_are_bounded_hanging_flooding_or_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let hang = "#!/usr/bin/env bash\nsleep 600\n";
    let path = tools(dir.path(), &[("nvidia-smi", hang)]);
    let start = Instant::now();
    let (results, run, _p) = bench(&path, &["--fingerprint-command", "sleep 600"]);
    run.assert_code(0);
    // Read once per run: 10 s for the tool, 10 s for the command.
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
    let notes = fingerprint(&results, "current")["notes"].to_string();
    assert!(
        notes.contains("nvidia-smi did not answer within 10 s"),
        "{notes}"
    );
    assert!(
        notes.contains("the fingerprint command did not end"),
        "{notes}"
    );

    let dir = tempfile::tempdir().unwrap();
    // 8 MiB of one line, then bytes that are not UTF-8 and a workflow command.
    let flood = "#!/usr/bin/env bash\nhead -c 8388608 /dev/zero | tr '\\0' x\nprintf '\\nH\\xff\\xfe100 ::error::x, GPU-1, 550.1, 1, 1, 1, 0x0, Active, Enabled, Enabled\\n'\n";
    let path = tools(dir.path(), &[("nvidia-smi", flood)]);
    let (results, run, _p) = bench(
        &path,
        &["--fingerprint-command", "printf '{\"a\":\"\\xff\"}'"],
    );
    run.assert_code(0);
    let fp = fingerprint(&results, "current");
    let text = serde_json::to_string(&fp).unwrap();
    assert!(text.len() < 16 * 1024, "{} bytes", text.len());
    for model in fp["gpus"].as_array().unwrap() {
        assert!(
            model["model"].as_str().unwrap().chars().count() <= 230,
            "{model}"
        );
    }
    assert!(
        !run.stdout.lines().any(|l| l.starts_with("::error::x")),
        "{}",
        run.stdout
    );
}

/// A fingerprint of an AMD machine for compare's tests.
pub fn amd(model: &str, rocm: &str, driver: &str) -> String {
    format!(
        r#"{{"schema":1,"gpus":[{{"vendor":"amd","model":"{model}","power_limit_w":1000.0,"clocks_locked":false}}],"driver":"{driver}","runtime":"ROCm {rocm}","cpu":"AMD EPYC 9575F","runner":{{"name":"r1"}}}}"#
    )
}

fn two_sides(dir: &Path) -> (PathBuf, PathBuf) {
    let rows = suite();
    let base = write(
        dir,
        "base.csv",
        &csv(&rows, |_, b| Some(line(b, Some(b.value), "ok"))),
    );
    let cur = write(
        dir,
        "cur.csv",
        &csv(&rows, |_, b| Some(line(b, Some(b.value), "ok"))),
    );
    (cur, base)
}

/// The seed's case: main's baseline measured on an MI325X with ROCm 6.2,
/// this run on an MI355X with ROCm 6.4; every row the same.
fn mi325_against_mi355() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (cur, base) = two_sides(dir.path());
    let machine = |name: &str, model: &str, rocm: &str| {
        write(dir.path(), name, &amd(model, rocm, "6.8.5"));
    };
    machine("base.csv.fingerprint.json", "AMD Instinct MI325X", "6.2.1");
    machine("cur.csv.fingerprint.json", "AMD Instinct MI355X", "6.4.0");
    (dir, cur, base)
}

#[test]
fn a_baseline_from_another_gpu_is_said_first_and_inconclusive_under_strict() {
    let (dir, cur, base) = mi325_against_mi355();
    let run = against_main(Bin::new(), &cur, &base)
        .args(["--format", "text"])
        .run();
    run.assert_code(0);
    let first = run.stdout.lines().next().unwrap();
    assert_eq!(
        first,
        "machine: the baseline was measured on AMD Instinct MI325X / driver 6.8.5 / ROCm 6.2.1 / clocks free / 1000 W; \
         this run on AMD Instinct MI355X / driver 6.8.5 / ROCm 6.4.0 / clocks free / 1000 W \
         (GPU AMD Instinct MI325X → AMD Instinct MI355X, runtime ROCm 6.2 → ROCm 6.4): \
         a change between them may be the machine's, not the code's."
    );
    assert!(
        run.stdout.contains("compare: PASS against main"),
        "{}",
        run.stdout
    );

    let (run, json) = against_main(Bin::new(), &cur, &base)
        .args(["--fingerprint", "strict", "--strict"])
        .json_code(3);
    run.assert_code(3);
    assert_eq!(json["verdict"], "inconclusive");
    assert_eq!(
        json["baselines"][0]["verdict"], "pass",
        "the rows' verdict stands"
    );
    assert_eq!(
        json["machine"]["baseline"]["gpus"][0]["model"],
        "AMD Instinct MI325X"
    );
    assert_eq!(json["machine"]["current"]["runtime"], "ROCm 6.4.0");
    assert_eq!(json["machine"]["inconclusive"], true);
    let fields: Vec<&str> = json["machine"]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["GPU", "runtime"]);
    assert!(
        json["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with("the baseline was measured on")
    );

    // The same machine (another runner, a driver's minor version) says nothing.
    write(
        dir.path(),
        "cur.csv.fingerprint.json",
        &amd("AMD Instinct MI325X", "6.2.4", "6.8.9"),
    );
    let (_, json) = against_main(Bin::new(), &cur, &base)
        .args(["--fingerprint", "strict", "--strict"])
        .json_code(0);
    assert_eq!(json["verdict"], "pass");
    assert_eq!(json["machine"]["differences"], serde_json::json!([]));

    // --baseline-fingerprint names an artifact's fingerprint; one that is
    // not a fingerprint is bad input.
    let other = write(
        dir.path(),
        "main.fp.json",
        &amd("AMD Radeon RX 7900 XTX", "6.2.4", "6.8.9"),
    );
    let (_, json) = against_main(Bin::new(), &cur, &base)
        .arg("--baseline-fingerprint")
        .arg(&other)
        .json_code(0);
    assert_eq!(
        json["machine"]["differences"][0]["baseline"],
        "AMD Radeon RX 7900 XTX"
    );
    let bad = write(dir.path(), "bad.json", "{\"schema\":1,\"gpus\":7}");
    let run = against_main(Bin::new(), &cur, &base)
        .arg("--baseline-fingerprint")
        .arg(&bad)
        .run();
    run.assert_code(2);
    assert!(
        run.stderr.contains("--baseline-fingerprint"),
        "{}",
        run.stderr
    );
}

#[test]
fn history_from_another_driver_is_left_out_of_the_bands() {
    let dir = tempfile::tempdir().unwrap();
    let (cur, base) = two_sides(dir.path());
    let fp_new = amd("AMD Instinct MI325X", "6.4.0", "6.8.5");
    write(dir.path(), "cur.csv.fingerprint.json", &fp_new);
    write(dir.path(), "base.csv.fingerprint.json", &fp_new);
    std::fs::create_dir(dir.path().join("history")).unwrap();
    let rows = suite();
    for k in 0..10 {
        let name = format!("history/{k:04}.csv");
        // The first half ran on ROCm 6.2 (8% slower), the second on 6.4.
        let scale = if k < 5 { 0.92 } else { 1.0 };
        write(
            dir.path(),
            &name,
            &csv(&rows, |_, b| Some(line(b, Some(b.value * scale), "ok"))),
        );
        let fp = if k < 5 {
            amd("AMD Instinct MI325X", "6.2.1", "6.8.5")
        } else {
            fp_new.clone()
        };
        write(dir.path(), &format!("{name}.fingerprint.json"), &fp);
    }
    let (_, json) = against_main(Bin::new(), &cur, &base)
        .arg("--history")
        .arg(dir.path().join("history/*.csv"))
        .json_code(0);
    assert_eq!(json["machine"]["history_left_out"], 5);
    let history: Vec<&str> = json["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "history")
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(history.len(), 5, "{history:?}");
    for old in ["0000", "0001", "0002", "0003", "0004"] {
        assert!(
            !history.iter().any(|p| p.ends_with(&format!("{old}.csv"))),
            "{history:?}"
        );
    }
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("5 history runs left out of the noise bands: measured on another machine (AMD Instinct MI325X / driver 6.8.5 / ROCm 6.2.1"),
        "{warnings}"
    );
}

const FAIL_ON_REGRESSION: [&str; 5] = [
    "trend",
    "--history",
    "history/*.csv",
    "--fail-on",
    "regression",
];

/// An NVIDIA machine's fingerprint with the given driver.
fn nvidia_driver(driver: &str) -> String {
    format!(
        r#"{{"schema":1,"gpus":[{{"vendor":"nvidia","model":"NVIDIA H100 80GB HBM3","power_limit_w":700.0}}],"driver":"{driver}","runtime":"CUDA 12.4"}}"#
    )
}

#[test]
fn trend_reports_a_driver_change_as_a_machine_change_not_a_regression() {
    let bin = || {
        let bin = Bin::new();
        crate::trend::history(bin.dir(), 30);
        bin
    };
    // Without fingerprints, gemm's 20% step at run 27 is a new regression.
    let (run, json) = bin().args(FAIL_ON_REGRESSION).json_code(4);
    run.assert_code(4);
    assert_eq!(json["counts"]["new_regressions"], 1);

    let with_fingerprints = || {
        let b = bin();
        for i in 0..30 {
            let driver = if i < 27 { "535.104.05" } else { "550.54.15" };
            let name = format!(
                "history/{i:04}-{}.csv.fingerprint.json",
                crate::trend::sha(i)
            );
            write(b.dir(), &name, &nvidia_driver(driver));
        }
        b
    };
    let (run, json) = with_fingerprints().args(FAIL_ON_REGRESSION).json_code(0);
    run.assert_code(0);
    assert_eq!(json["counts"]["regressions"], 0, "{json}");
    assert_eq!(json["counts"]["improvements"], 1, "softmax's is the code's");
    let change = &json["machine_changes"][0];
    assert_eq!(change["run"], format!("0027-{}", crate::trend::sha(27)));
    assert_eq!(change["differences"][0]["field"], "driver");
    assert_eq!(change["differences"][0]["baseline"], "535");
    assert_eq!(
        change["rows"][0]["key"],
        "op=gemm,shape=4096x4096,dtype=bf16"
    );
    assert!((change["rows"][0]["change_pct"].as_f64().unwrap() + 20.0).abs() < 1.0);

    let text = with_fingerprints()
        .args(["trend", "--history", "history/*.csv", "--format", "text"])
        .run();
    // The machine change said after the headline, the row that moved with
    // it under it.
    insta::assert_snapshot!("trend_text_machine_change", text.stdout);
}

#[test]
fn comment_says_what_each_side_was_measured_on() {
    let (dir, cur, base) = mi325_against_mi355();
    let report = dir.path().join("report.json");
    against_main(Bin::new(), &cur, &base)
        .arg("--report")
        .arg(&report)
        .args(["--format", "text"])
        .run()
        .assert_code(0);
    let run = Bin::new()
        .env("GITHUB_REPOSITORY", "ROCm/FlyDSL")
        .env("GITHUB_RUN_ID", "7")
        .args(["comment", "--dry-run", "--format", "json", "--report"])
        .arg(&report)
        .run();
    run.assert_code(0);
    let out: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let body = out["body"].as_str().unwrap_or_else(|| panic!("{out}"));
    assert!(
        body.contains("measured on AMD Instinct MI355X / driver 6.8.5 / ROCm 6.4.0 / clocks free / 1000 W; the baseline on AMD Instinct MI325X / driver 6.8.5 / ROCm 6.2.1 / clocks free / 1000 W"),
        "{body}"
    );
}

#[test]
fn a_downloaded_baseline_from_another_machine_is_not_reused_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let path = h100(dir.path());
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    // Downloaded into RUNNER_TEMP, where bench may read.
    let artifact = p.root.path().join("main-results.csv");
    std::fs::write(&artifact, "op,shape,dtype,tflops\ngemm,4096,bf16,101\n").unwrap();
    let fp = p.root.path().join("main-results.csv.fingerprint.json");
    let run_with = |extra: &[&str]| {
        p.bench(&p.resolution(&p.base))
            .env("PATH", &path)
            .arg("--baseline-result")
            .arg(&artifact)
            .args(extra)
            .run()
    };
    // Main's artifact from an A100 on another driver; this runner is an H100.
    std::fs::write(
        &fp,
        nvidia_driver("535.104.05").replace("H100 80GB HBM3", "A100-SXM4-40GB"),
    )
    .unwrap();
    let run = run_with(&[]);
    run.assert_code(0);
    assert_eq!(run.outputs()["baseline-source"], "ran", "{}", run.stdout);
    assert!(
        run.stdout.contains("the baseline was measured on NVIDIA A100-SXM4-40GB / driver 535.104.05 / CUDA 12.4 / 700 W; this run on NVIDIA H100 80GB HBM3 / driver 550.54.15 / CUDA 12.4 / clocks free / 700 W (GPU NVIDIA A100-SXM4-40GB → NVIDIA H100 80GB HBM3, driver 535 → 550)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("it is not reused: the baseline runs in this job"),
        "{}",
        run.stdout
    );

    let run = run_with(&["--reuse-other-machine"]);
    assert_eq!(run.outputs()["baseline-source"], "artifact");
    assert!(
        run.stdout
            .contains("it is reused as --reuse-other-machine asks"),
        "{}",
        run.stdout
    );

    // The same machine (a driver's minor version apart) is reused silently.
    std::fs::write(&fp, nvidia_driver("550.90.07")).unwrap();
    let run = run_with(&[]);
    assert_eq!(run.outputs()["baseline-source"], "artifact");
    assert!(!run.stdout.contains("measured on"), "{}", run.stdout);
}
