//! Detection stops where the fields before a file's results decide its
//! format (issue 51: the results, nearly all of a file, are read once, by
//! their reader). A mistake inside the results is then the reader's to
//! name, with the JSON path where it is, rather than "no known format"
//! and the list of every format tried.

use crate::support::harness::Bin;

/// `convert` on a file of `text`: its exit code and stderr.
fn refused(name: &str, text: &str) -> (i32, String) {
    let bin = Bin::new();
    std::fs::write(bin.dir().join(name), text).unwrap();
    let run = bin.args(["convert", name]).run();
    (run.code, run.stderr)
}

/// Each file: its name, its text (a trailing comma in its second result),
/// the format that must name it, and the path it must name.
const BROKEN: [(&str, &str, &str, &str); 7] = [
    (
        "jmh.json",
        r#"[{"benchmark": "a.B.c", "mode": "avgt", "primaryMetric": {"score": 1, "scoreUnit": "us/op"}},
            {"benchmark": "a.B.d", "mode": "avgt", "primaryMetric": {"score": 1,}}]"#,
        "jmh",
        "[1].primaryMetric",
    ),
    (
        "hyperfine.json",
        r#"{"results": [{"command": "a", "times": [1.0]}, {"command": "b", "times": [1.0,]}]}"#,
        "hyperfine",
        "results[1].times",
    ),
    (
        "nvbench.json",
        r#"{"meta": {}, "devices": [], "benchmarks": [{"name": "a", "states": []}, {"name": "b", "states": [1,]}]}"#,
        "nvbench",
        "benchmarks[1].states",
    ),
    (
        "dotnet.json",
        r#"{"HostEnvironmentInfo": {}, "Benchmarks": [{"Type": "T", "Method": "M"}, {"Type": "T", "Method": "N",}]}"#,
        "benchmarkdotnet",
        "Benchmarks[1]",
    ),
    (
        "asv.json",
        r#"{"commit_hash": "abc", "results": {"a.time_x": {"result": [1.0]}, "a.time_y": {"result": [1.0,]}}}"#,
        "asv",
        "results.a.time_y",
    ),
    (
        "pyperf.json",
        r#"{"benchmarks": [{"metadata": {"name": "a"}, "runs": [{"values": [1.0]}]}, {"metadata": {"name": "b"}, "runs": [{"values": [1.0,]}]}], "metadata": {}, "version": "1.0"}"#,
        "pyperf",
        "benchmarks[1].runs[0].values",
    ),
    (
        "bmf.json",
        r#"{"a::x": {"latency": {"value": 1.0}}, "a::y": {"latency": {"value": 1.0,}}}"#,
        "bmf",
        "a::y.latency",
    ),
];

/// The Bencher Metric Format's rows come in name order, and of a name
/// given twice the later is read (as a JSON map keeps it); a name's
/// measures likewise.
#[test]
fn bencher_metric_format_rows_in_name_order_the_later_of_a_name_kept() {
    let bin = Bin::new();
    let text = r#"{"b": {"latency": {"value": 3.0}}, "a": {"throughput": {"value": 9.0}, "latency": {"value": 1.0}, "latency": {"value": 2.0}}, "b": {"latency": {"value": 4.0}}}"#;
    std::fs::write(bin.dir().join("bmf.json"), text).unwrap();
    let run = bin.args(["convert", "bmf.json"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "benchmark,params,latency,throughput,status,samples\na,,2,9,ok,1\nb,,4,,ok,1\n"
    );
}

#[test]
fn a_mistake_in_results_whose_format_is_decided_is_named_by_that_reader() {
    for (name, text, format, path) in BROKEN {
        let (code, err) = refused(name, text);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(
            err.contains(name) && err.contains(format) && err.contains(path),
            "{name}: {err}"
        );
        assert!(!err.contains("any known format"), "{name}: {err}");
    }
}

/// Names with escapes are copied where borrowing cannot keep them: the
/// reader gives the same rows whichever way a name is written.
#[test]
fn names_written_with_escapes_read_as_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let plain = r#"{"context": {}, "benchmarks": [{"name": "BM_é/8", "run_name": "BM_é/8", "run_type": "iteration", "real_time": 2, "time_unit": "ns"}]}"#;
    let escaped = r#"{"context": {}, "benchmarks": [{"name": "BM_\u00e9/8", "run_name": "BM_\u00e9/8", "run_type": "iteration", "real_time": 2, "time_unit": "ns"}]}"#;
    std::fs::write(dir.path().join("plain.json"), plain).unwrap();
    std::fs::write(dir.path().join("escaped.json"), escaped).unwrap();
    let a = Bin::new()
        .arg("convert")
        .arg(dir.path().join("plain.json"))
        .run();
    let b = Bin::new()
        .arg("convert")
        .arg(dir.path().join("escaped.json"))
        .run();
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert_eq!(a.stdout, b.stdout);
    assert!(a.stdout.contains("BM_é,8,"), "{}", a.stdout);
}
