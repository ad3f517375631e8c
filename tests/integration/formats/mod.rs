//! Issue 51: the results harnesses already write, read as they are. For
//! each format, `compare` end to end on two small files that follow the
//! format's documented shape (the head is 30% slower on one benchmark):
//! the verdict, the row that regressed by its key, and its repetitions
//! counted; then `convert`, `trend` on a harness's history, and bad input.

mod asv_columns;
mod decided;
mod identity;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::harness::{Bin, repo_root};

fn fixture(format: &str, side: &str) -> PathBuf {
    let dir = repo_root().join("tests/fixtures/formats").join(format);
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_stem().is_some_and(|s| s == side))
        .unwrap_or_else(|| panic!("no {side} in {}", dir.display()))
}

/// compare's JSON on the format's two files, and its exit code.
fn compare(format: &str) -> (i32, Value) {
    let run = Bin::new()
        .arg("compare")
        .arg("--current")
        .arg(fixture(format, "head"))
        .arg("--baseline")
        .arg(format!("main={}", fixture(format, "base").display()))
        .args(["--format", "json"])
        .run();
    let json: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{format}: not JSON ({e}): {}\n{}", run.stdout, run.stderr));
    (run.code, json)
}

/// The verdict is a regression (exit 4), exactly the slowed row regressed
/// (by its benchmark and params), and every other row is unchanged.
fn regressed_only(format: &str, benchmark: &str, params: &str) {
    regressed_of(format, benchmark, params, 3);
}

fn regressed_of(format: &str, benchmark: &str, params: &str, count: usize) {
    let (code, json) = compare(format);
    assert_eq!(code, 4, "{format}: {json}");
    assert_eq!(json["verdict"], "regression", "{format}");
    let rows = json["baselines"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), count, "{format}: {rows:?}");
    let regressed: Vec<&Value> = rows.iter().filter(|r| r["class"] == "regressed").collect();
    assert_eq!(regressed.len(), 1, "{format}: {rows:?}");
    let key = regressed[0]["key"].to_string();
    assert!(
        key.contains(benchmark) && key.contains(params),
        "{format}: {key} is not {benchmark} {params}"
    );
    let change = regressed[0]["change_pct"].as_f64().unwrap_or(f64::NAN);
    assert!((change + 30.0).abs() < 0.1, "{format}: change {change}");
    for r in rows.iter().filter(|r| r["class"] != "regressed") {
        let failed = r["reason"]
            .as_str()
            .is_some_and(|w| w.contains("failed") || w.contains("skipped"));
        let class = if failed {
            "not-comparable"
        } else {
            "unchanged"
        };
        assert_eq!(r["class"], class, "{format}: {r}");
    }
}

#[test]
fn google_benchmark_repetitions_are_read_and_its_aggregates_left_out() {
    regressed_only("google-benchmark", "BM_Copy", "64");
}

#[test]
fn pytest_benchmark_rounds_are_read_by_fullname_and_param() {
    regressed_only(
        "pytest-benchmark",
        "tests/test_codec.py::test_encode",
        "small",
    );
}

#[test]
fn hyperfine_times_are_read_by_command_and_parameters() {
    regressed_only("hyperfine", "gzip -k data.txt", "");
}

#[test]
fn pyperf_values_of_every_run_are_read() {
    regressed_only("pyperf", "regex_compile", "");
}

#[test]
fn go_test_count_lines_are_samples_of_one_row() {
    regressed_only("go-test", "example.com/codec.BenchmarkEncode", "size=large");
}

#[test]
fn cargo_bench_lines_are_read() {
    regressed_only("cargo-bench", "codec::bench_encode", "");
}

#[test]
fn a_criterion_tree_is_read_by_group_function_and_value() {
    regressed_only("criterion", "fib", "recursive/20");
}

#[test]
fn asv_results_are_read_per_combination_of_params_with_their_samples() {
    regressed_of("asv", "bench_array.Reduce.time_sum", "'float64', 10000", 7);
    let csv = convert(&fixture("asv", "base"));
    assert!(
        csv.contains("bench_array.Reduce.time_sum,\"'int32', 100\",8000,,ok,5\n"),
        "{csv}"
    );
    assert!(
        csv.contains("bench_io.peakmem_read_csv,,,52428800,ok,1\n"),
        "{csv}"
    );
    assert!(csv.contains("bench_io.time_broken,,,,failed,0\n"), "{csv}");
}

#[test]
fn nvbench_states_are_rows_by_axis_values_and_a_skipped_state_is_failed() {
    regressed_of("nvbench", "copy_sweep", "Duration=0.002", 4);
    let csv = convert(&fixture("nvbench", "base"));
    assert!(
        csv.starts_with("benchmark,params,gpu_time,cpu_time,batch_gpu_time,item_rate,bytes_per_second,status,samples\n"),
        "{csv}"
    );
    assert!(csv.contains("copy_sweep,Duration=0.004,4050000,"), "{csv}");
    assert!(
        csv.contains("copy_sweep,Duration=0.008,,,,,,failed,0\n"),
        "{csv}"
    );
}

#[test]
fn catch2_xml_benchmarks_are_rows_by_test_case_and_name() {
    regressed_of("catch2", "Fibonacci", "fib 25", 4);
    let csv = convert(&fixture("catch2", "base"));
    assert!(
        csv.contains("Parse & print,small <doc>,1500,ok,1\n"),
        "{csv}"
    );
    assert!(csv.contains("Parse & print,huge,,failed,0\n"), "{csv}");
}

#[test]
fn jmh_raw_data_are_samples_and_the_mode_gives_unit_and_direction() {
    regressed_only("jmh", "org.example.Codec.encode", "size=1024");
    let csv = convert(&fixture("jmh", "base"));
    // us/op made ns/op, ops/ms made ops/s; two forks of three iterations.
    assert!(
        csv.contains("org.example.Codec.encode,size=64,1500,,ok,6\n"),
        "{csv}"
    );
    assert!(
        csv.contains("org.example.Codec.decode,,,850000,ok,6\n"),
        "{csv}"
    );
}

#[test]
fn benchmarkdotnet_result_measurements_are_samples_per_parameters() {
    regressed_of("benchmarkdotnet", "Sample.Benchmarks.Fib", "N=20", 4);
    let csv = convert(&fixture("benchmarkdotnet", "base"));
    assert!(
        csv.contains("Sample.Benchmarks.Fib,N=10,24.4,24,ok,6\n"),
        "{csv}"
    );
    assert!(
        csv.contains("Sample.Benchmarks.Crash,,,,failed,0\n"),
        "{csv}"
    );
}

#[test]
fn bencher_metric_format_measures_are_metrics() {
    regressed_only("bmf", "codec::decode", "");
}

#[test]
fn custom_json_direction_comes_from_the_unit_unless_the_format_is_named() {
    // req/s fell 30%: a rate, higher is better, so a regression.
    regressed_only("custom", "Throughput", "");
    let bin = Bin::new();
    for (name, value) in [("base", 150), ("head", 100)] {
        let text =
            format!("[{{\"name\": \"Free Memory\", \"unit\": \"Megabytes\", \"value\": {value}}}]");
        std::fs::write(bin.dir().join(format!("{name}.json")), text).unwrap();
    }
    // Megabytes fell by a third: better by the unit (lower), worse when
    // the file is named customBiggerIsBetter.
    let verdict = |format: Option<&str>| {
        let mut cmd = Bin::new().in_dir(bin.dir());
        cmd = cmd.args([
            "compare",
            "--current",
            "head.json",
            "--baseline",
            "main=base.json",
        ]);
        if let Some(f) = format {
            cmd = cmd.args(["--results-format", f]);
        }
        let run = cmd.args(["--format", "json"]).run();
        let json: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{e}: {} {}", run.stdout, run.stderr));
        let class = json["baselines"][0]["rows"][0]["class"]
            .as_str()
            .unwrap_or("");
        (run.code, class.to_owned())
    };
    assert_eq!(verdict(None), (0, "improved".to_owned()));
    assert_eq!(
        verdict(Some("customBiggerIsBetter")),
        (4, "regressed".to_owned())
    );
    assert_eq!(
        verdict(Some("customSmallerIsBetter")),
        (0, "improved".to_owned())
    );
}

/// What `convert` writes for `path`.
fn convert(path: &Path) -> String {
    let run = Bin::new().arg("convert").arg(path).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn convert_writes_one_row_per_benchmark_with_its_repetitions_counted() {
    let gb = convert(&fixture("google-benchmark", "base"));
    let mut lines = gb.lines();
    assert_eq!(
        lines.next(),
        Some(
            "benchmark,params,real_time,cpu_time,items_per_second,bytes_per_second,status,samples"
        )
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 3, "{gb}");
    assert!(rows[0].starts_with("BM_Copy,8,120,"), "{gb}");
    assert!(
        rows[0].ends_with(",ok,3"),
        "three repetitions, no aggregate: {gb}"
    );
    let go = convert(&fixture("go-test", "base"));
    assert!(
        go.starts_with("benchmark,params,time,B/op,allocs/op,status,samples\n"),
        "{go}"
    );
    assert!(
        go.contains("example.com/codec.BenchmarkDecode,,900,128,2,ok,3\n"),
        "{go}"
    );
}

#[test]
fn converted_csv_reads_back_with_the_documented_config_and_gives_the_same_verdict() {
    let bin = Bin::new();
    let dir = bin.dir().to_owned();
    for side in ["base", "head"] {
        let csv = convert(&fixture("pyperf", side));
        std::fs::write(dir.join(format!("{side}.csv")), csv).unwrap();
    }
    std::fs::write(
        dir.join("bench.toml"),
        "keys = [\"benchmark\", \"params\"]\n[[metrics]]\ncolumn = \"time\"\nunit = \"ns\"\ndirection = \"lower\"\n",
    )
    .unwrap();
    let run = bin
        .args([
            "compare",
            "--current",
            "head.csv",
            "--baseline",
            "main=base.csv",
        ])
        .args(["--config", "bench.toml", "--format", "json"])
        .run();
    assert_eq!(run.code, 4, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["baselines"][0]["counts"]["regressed"], 1, "{json}");
}

#[test]
fn a_named_format_is_read_as_that_format_and_an_unknown_name_is_usage() {
    let path = fixture("cargo-bench", "base");
    let run = Bin::new()
        .arg("convert")
        .arg(&path)
        .args(["--results-format", "cargo-bench"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("codec::bench_decode,,135,ok,1"),
        "{}",
        run.stdout
    );
    let run = Bin::new()
        .arg("convert")
        .arg(&path)
        .args(["--results-format", "nope"])
        .run();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("the formats are google-benchmark, pytest-benchmark")
            && run
                .stderr
                .contains("nvbench, catch2, jmh, benchmarkdotnet, bmf")
            && run.stderr.contains("customSmallerIsBetter, csv"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_json_file_of_no_known_format_names_the_formats_tried() {
    let bin = Bin::new();
    std::fs::write(bin.dir().join("x.json"), "{\"entries\": []}").unwrap();
    let run = bin.args(["convert", "x.json"]).run();
    assert_eq!(run.code, 1);
    for tried in [
        "google-benchmark",
        "pytest-benchmark",
        "pyperf",
        "hyperfine",
    ] {
        assert!(run.stderr.contains(tried), "{}", run.stderr);
    }
    assert!(run.stderr.contains("x.json"), "{}", run.stderr);
}

/// `convert` on `text` written as `name`: its exit code and stderr.
fn refused(name: &str, text: &str) -> (i32, String) {
    let bin = Bin::new();
    std::fs::write(bin.dir().join(name), text).unwrap();
    let run = bin.args(["convert", name]).run();
    (run.code, run.stderr)
}

#[test]
fn bad_harness_files_are_refused_naming_the_file_and_where() {
    let (code, err) = refused(
        "big.json",
        "{\"context\": {}, \"benchmarks\": [{\"name\": \"a\", \"run_type\": \"iteration\", \"real_time\": 1e999, \"time_unit\": \"ns\"}]}",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("big.json") && err.contains("benchmarks[0].real_time"),
        "{err}"
    );
    // Nesting the reader keeps (hyperfine's parameters) is bounded; what
    // it skips is skipped without recursion.
    let deep = format!(
        "{{\"results\": [{{\"command\": \"x\", \"parameters\": {{\"p\": {}1{}}}}}]}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    let (code, err) = refused("deep.json", &deep);
    assert_eq!(code, 1);
    assert!(
        err.contains("deep.json") && err.contains("recursion limit"),
        "{err}"
    );
    let (code, err) = refused(
        "unit.json",
        "{\"context\": {}, \"benchmarks\": [{\"name\": \"a\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"parsecs\"}]}",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("benchmarks[0].time_unit") && err.contains("parsecs"),
        "{err}"
    );
    let (code, err) = refused(
        "hf.json",
        "{\"results\": [{\"command\": \"x\", \"times\": [0.1, \"fast\"]}]}",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("hyperfine") && err.contains("results[0].times[1]"),
        "{err}"
    );
}

#[test]
fn a_failed_benchmark_is_a_failed_row_and_python_nan_is_no_value() {
    let bin = Bin::new();
    std::fs::write(
        bin.dir().join("gb.json"),
        r#"{"context": {}, "benchmarks": [
            {"name": "BM_ok", "run_type": "iteration", "real_time": 10, "cpu_time": 10, "time_unit": "us"},
            {"name": "BM_bad", "run_type": "iteration", "error_occurred": true, "error_message": "out of memory"},
            {"name": "BM_nan", "run_type": "iteration", "real_time": NaN, "cpu_time": NaN, "time_unit": "ns"}]}"#,
    )
    .unwrap();
    let run = bin.args(["convert", "gb.json"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    // BM_ok in ns; BM_bad and BM_nan failed rows with no value.
    insta::assert_snapshot!("convert_google_benchmark_failed_and_nan", run.stdout);
}

#[test]
fn trend_finds_the_row_that_moved_in_a_history_of_pyperf_files() {
    let bin = Bin::new();
    let h = bin.dir().join("history");
    std::fs::create_dir_all(&h).unwrap();
    let base = std::fs::read_to_string(fixture("pyperf", "base")).unwrap();
    let head = std::fs::read_to_string(fixture("pyperf", "head")).unwrap();
    for i in 0..12 {
        let text = if i < 6 { &base } else { &head };
        std::fs::write(h.join(format!("{i:04}.json")), text).unwrap();
    }
    let run = bin
        .args(["trend", "--history", "history/*.json", "--format", "json"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let text = json.to_string();
    assert!(text.contains("regex_compile"), "{text}");
    assert!(
        !text.contains("json_dumps"),
        "only the row that moved: {text}"
    );
}

#[test]
fn a_csv_and_a_harness_file_under_default_keys_are_refused_together() {
    let bin = Bin::new();
    std::fs::write(
        bin.dir().join("main.csv"),
        "op,shape,dtype,tflops\ngemm,1x1,bf16,10\n",
    )
    .unwrap();
    let run = bin
        .arg("compare")
        .arg("--current")
        .arg(fixture("pyperf", "head"))
        .args(["--baseline", "main=main.csv"])
        .run();
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("keys = [\"benchmark\", \"params\"]"),
        "{}",
        run.stderr
    );
}

/// bench counts a harness's `{out}` by its rows, as compare will read it,
/// not by its lines: a pretty-printed Google Benchmark file of two
/// benchmarks (three repetitions and an aggregate each) spans 58 lines.
#[test]
fn bench_counts_a_json_result_by_its_rows_not_its_lines() {
    use crate::bench::{Project, quiet};
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let bin = p.bench(&p.resolution(&p.base));
    let artifact = bin.dir().join("main-results.json");
    let mut entries = Vec::new();
    for name in ["BM_Copy/8", "BM_Copy/64"] {
        for (kind, t) in [
            ("iteration", 10.0),
            ("iteration", 11.0),
            ("iteration", 12.0),
            ("aggregate", 11.0),
        ] {
            entries.push(format!(
                "    {{\n      \"name\": \"{name}\",\n      \"run_name\": \"{name}\",\n      \"run_type\": \"{kind}\",\n      \"real_time\": {t},\n      \"time_unit\": \"ns\"\n    }}"
            ));
        }
    }
    let text = format!(
        "{{\n  \"context\": {{}},\n  \"benchmarks\": [\n{}\n  ]\n}}\n",
        entries.join(",\n")
    );
    assert!(text.lines().count() > 30, "{text}");
    std::fs::write(&artifact, text).unwrap();
    let run = bin.arg("--baseline-result").arg(&artifact).run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["baseline-source"], "artifact");
    assert_eq!(out["baseline-rows"], "2");
}

#[test]
fn bad_files_of_the_new_formats_are_refused_naming_the_file_and_where() {
    let (code, err) = refused(
        "c2.xml",
        "<?xml version=\"1.0\"?>\n<Catch2TestRun name=\"x\"><TestCase name=\"t\"><BenchmarkResults name=\"b\"><mean value=\"fast\"/></BenchmarkResults></TestCase></Catch2TestRun>",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("c2.xml") && err.contains("the mean's value") && err.contains("fast"),
        "{err}"
    );
    let (code, err) = refused(
        "broken.xml",
        "<Catch2TestRun name=\"x\"><TestCase name=\"t\"></Group></Catch2TestRun>",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("broken.xml") && err.contains("catch2") && err.contains("byte"),
        "{err}"
    );
    let (code, err) = refused(
        "jmh.json",
        "[{\"benchmark\": \"a.B.c\", \"mode\": \"avgt\", \"primaryMetric\": {\"score\": 1, \"scoreUnit\": \"us/op\", \"rawData\": [[1.0, 1e999]]}}]",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("jmh.json") && err.contains("[0].primaryMetric.rawData[0][1]"),
        "{err}"
    );
    let (code, err) = refused(
        "nv.json",
        "{\"meta\": {}, \"devices\": [], \"benchmarks\": [{\"name\": \"b\", \"states\": [{\"summaries\": [{\"tag\": \"nv/cold/time/gpu/mean\", \"data\": [{\"name\": \"value\", \"value\": \"soon\"}]}]}]}]}",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("nv.json") && err.contains("states[0]") && err.contains("soon"),
        "{err}"
    );
    // A name that is no format is usage, on compare as on convert.
    let bin = Bin::new();
    let run = bin
        .arg("compare")
        .arg("--current")
        .arg(fixture("custom", "head"))
        .arg("--baseline")
        .arg(format!("main={}", fixture("custom", "base").display()))
        .args(["--results-format", "customBiggerIsBest"])
        .run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("customBiggerIsBest") && run.stderr.contains("customBiggerIsBetter"),
        "{}",
        run.stderr
    );
}

/// Google Benchmark's `context` before its `benchmarks` decides the
/// format: a mistake inside the list is the reader's to name, where it
/// is, not a "no known format" that lists every format tried.
#[test]
fn a_broken_entry_after_the_context_is_named_by_the_google_benchmark_reader() {
    let (code, err) = refused(
        "broken.json",
        "{\"context\": {}, \"benchmarks\": [{\"name\": \"a\", \"real_time\": 1,}]}",
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("google-benchmark") && err.contains("benchmarks[0]"),
        "{err}"
    );
    assert!(!err.contains("pytest-benchmark"), "{err}");
}
