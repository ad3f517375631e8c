//! Section 11: reading a harness's results against reading the CSV, per
//! row, on 100,000 rows (issue 51's target: within 2x the CSV reader).
//! The same 100,000 benchmarks written as the CSV compare has always
//! read, as Google Benchmark's JSON (one entry each), as pytest-benchmark's
//! JSON, and as `go test -bench` text; each read by `table::read` (format
//! found from the content, as every command reads it), median of 7,
//! interleaved so that every reader sees the same machine.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use baseline_resolver::config::Config;
use baseline_resolver::table::{self, read::Budget};

use super::median;

const ROWS: usize = 100_000;

fn csv(dir: &Path) -> std::path::PathBuf {
    let mut text = String::from("op,shape,dtype,tflops\n");
    for i in 0..ROWS {
        let _ = writeln!(
            text,
            "op{},{i}x8192,bf16,{:.3}",
            i % 50,
            100.0 + (i % 97) as f64
        );
    }
    let path = dir.join("results.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn gbench(dir: &Path) -> std::path::PathBuf {
    let mut text =
        String::from("{\"context\": {\"library_build_type\": \"release\"}, \"benchmarks\": [\n");
    for i in 0..ROWS {
        let sep = if i + 1 == ROWS { "" } else { "," };
        let _ = writeln!(
            text,
            "{{\"name\": \"BM_Op{}/{i}/8192\", \"run_name\": \"BM_Op{}/{i}/8192\", \"run_type\": \"iteration\", \"repetitions\": 1, \"repetition_index\": 0, \"threads\": 1, \"iterations\": 1000, \"real_time\": {:.3}, \"cpu_time\": {:.3}, \"time_unit\": \"ns\"}}{sep}",
            i % 50,
            i % 50,
            100.0 + (i % 97) as f64,
            99.0 + (i % 97) as f64
        );
    }
    text.push_str("]}\n");
    let path = dir.join("gbench.json");
    std::fs::write(&path, text).unwrap();
    path
}

fn pytest(dir: &Path) -> std::path::PathBuf {
    let mut text = String::from("{\"machine_info\": {}, \"benchmarks\": [\n");
    for i in 0..ROWS {
        let sep = if i + 1 == ROWS { "" } else { "," };
        let t = 1e-5 * (1.0 + (i % 97) as f64 / 100.0);
        let _ = writeln!(
            text,
            "{{\"name\": \"test_op[{i}]\", \"fullname\": \"tests/test_ops.py::test_op[{i}]\", \"param\": \"{i}\", \"stats\": {{\"min\": {t}, \"max\": {t}, \"mean\": {t}, \"median\": {t}, \"rounds\": 5}}}}{sep}"
        );
    }
    text.push_str("]}\n");
    let path = dir.join("pytest.json");
    std::fs::write(&path, text).unwrap();
    path
}

fn gotest(dir: &Path) -> std::path::PathBuf {
    let mut text = String::from("goos: linux\ngoarch: amd64\npkg: example.com/ops\n");
    for i in 0..ROWS {
        let _ = writeln!(
            text,
            "BenchmarkOp{}/n={i}-8   \t 1000000\t {:.1} ns/op",
            i % 50,
            100.0 + (i % 97) as f64
        );
    }
    let path = dir.join("go.txt");
    std::fs::write(&path, text).unwrap();
    path
}

fn time_read(path: &Path, config: &Config) -> Duration {
    let budget = Budget::new(u64::MAX);
    let start = Instant::now();
    let t = table::read(path, &config.keys, &config.metrics, &budget).unwrap();
    let took = start.elapsed();
    assert_eq!(t.len(), ROWS, "{}", path.display());
    took
}

pub fn formats(report: &mut String) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::default();
    let files = [
        ("the CSV (today's reader)", csv(dir.path())),
        ("Google Benchmark JSON", gbench(dir.path())),
        ("pytest-benchmark JSON", pytest(dir.path())),
        ("go test -bench text", gotest(dir.path())),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); files.len()];
    for _ in 0..7 {
        for (i, (_, path)) in files.iter().enumerate() {
            times[i].push(time_read(path, &config));
        }
    }
    let medians: Vec<Duration> = times.into_iter().map(median).collect();
    let csv_time = medians[0].as_secs_f64();
    let _ = writeln!(
        report,
        "## 11. Reading harnesses' results\n\n`table::read` on {ROWS} rows, the format found from the content, median of 7 \
         (interleaved); per row, and against the CSV reader (issue 51's target: at most 2x).\n\n\
         | file | size | read | per row | against the CSV |\n|---|---|---|---|---|"
    );
    for ((name, path), took) in files.iter().zip(&medians) {
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        let _ = writeln!(
            report,
            "| {name} | {:.1} MB | {:.1} ms | {:.0} ns | {:.2}x |",
            size as f64 / 1e6,
            took.as_secs_f64() * 1e3,
            took.as_secs_f64() * 1e9 / ROWS as f64,
            took.as_secs_f64() / csv_time
        );
    }
    report.push('\n');
}
