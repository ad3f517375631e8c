//! Section 7: `compare`, whole process. Speed on 100,000 rows per file
//! against a script written the way ROCm/FlyDSL's is
//! (`benches/compare_reference.py`: csv module, dict of rows, one print
//! per row), both timed in the same run, interleaved; peak memory against
//! the size of the input; and 10,000 config rules against 5,000 rows.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use super::{BIN, command, median, ms, peak_rss_kb, root};

/// Two files of `rows` rows in ROCm/FlyDSL's format: half TB/s, half
/// TFLOPS, current worse by up to 15%. `short` keys are `k{i},1,b` (the
/// worst case for memory against input), others `op{i%50},{i}x8192,bf16`.
pub fn results(dir: &Path, rows: usize, short: bool) -> (PathBuf, PathBuf) {
    let tag = if short { "short" } else { "long" };
    let (base, cur) = (
        dir.join(format!("baseline-{tag}-{rows}.csv")),
        dir.join(format!("current-{tag}-{rows}.csv")),
    );
    let mut b = String::from("op,shape,dtype,tbps,tflops,status\n");
    let mut c = b.clone();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for i in 0..rows {
        let key = if short {
            format!("k{i},1,b")
        } else {
            format!("op{},{}x8192,{}", i % 50, i, ["bf16", "fp16", "fp8"][i % 3])
        };
        let v = 1.0 + next() * 899.0;
        let w = v * (0.85 + next() * 0.25);
        if i % 2 == 1 {
            let _ = writeln!(b, "{key},-,{v:.3},ok");
            let _ = writeln!(c, "{key},-,{w:.3},ok");
        } else {
            let _ = writeln!(b, "{key},{v:.3},-,ok");
            let _ = writeln!(c, "{key},{w:.3},-,ok");
        }
    }
    std::fs::write(&base, b).unwrap();
    std::fs::write(&cur, c).unwrap();
    (base, cur)
}

fn args<'a>(cur: &'a str, baseline: &'a str) -> [&'a str; 7] {
    [
        "compare",
        "--current",
        cur,
        "--baseline",
        baseline,
        "--format",
        "text",
    ]
}

fn quiet(program: &str, args: &[&str]) -> Duration {
    let started = Instant::now();
    command(program, args, &[])
        .stdout(Stdio::null())
        .status()
        .expect("runs");
    started.elapsed()
}

fn dashboard_rows(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.contains("ratio="))
        .map(str::to_owned)
        .collect()
}

pub fn comparing(report: &mut String) {
    let dir = tempfile::tempdir().unwrap();
    let (base, cur) = results(dir.path(), 100_000, false);
    let baseline = format!("main={}", base.display());
    let ours_args = args(cur.to_str().unwrap(), &baseline);
    let script = root().join("benches/compare_reference.py");
    let py_args = [
        script.to_str().unwrap(),
        cur.to_str().unwrap(),
        base.to_str().unwrap(),
    ];
    // Interleaved, so both see the same machine.
    let (mut ours, mut reference) = (Vec::new(), Vec::new());
    for round in 0..15 {
        ours.push(quiet(BIN, &ours_args));
        if round % 3 == 0 {
            reference.push(quiet("python3", &py_args));
        }
    }
    let rss = peak_rss_kb(&ours_args, &[]);
    let out = command(BIN, &ours_args, &[]).output().unwrap();
    let reference_out = command("python3", &py_args, &[]).output().unwrap();
    let (a, b) = (dashboard_rows(&out), dashboard_rows(&reference_out));
    let same = a == b && a.len() == 100_000;
    let (o, r) = (median(ours), median(reference));
    let _ = writeln!(
        report,
        "## 7. Comparing\n\n### 100,000 rows per file\n\n\
         `baseline-resolver compare --format text` on two files of 100,000 rows each (3.3 MB each, half TB/s, half \
         TFLOPS; current worse by up to 15%), whole process to `/dev/null`, median of 15; against \
         `benches/compare_reference.py`, the same report written the way ROCm/FlyDSL's \
         `compare_benchmark.py` is (csv module, a dict of rows, one `print` per row), median of 5, the runs of \
         both interleaved. Goal: at least 20x the script.\n\n\
         | implementation | median wall | |\n|---|---|---|\n\
         | baseline-resolver compare | **{}** | peak RSS {:.1} MB |\n\
         | Python, as ROCm/FlyDSL's script | {} | |\n\n\
         **{:.1}x** the script; the 100,000 dashboard lines of both are {}.\n",
        ms(o),
        rss as f64 / 1024.0,
        ms(r),
        r.as_secs_f64() / o.as_secs_f64(),
        if same {
            "byte for byte the same"
        } else {
            "NOT the same"
        }
    );
    memory(report, dir.path());
    rules(report, dir.path());
}

/// Peak RSS against the bytes of input, for the largest files a
/// comparison takes (64 MiB each).
fn memory(report: &mut String, dir: &Path) {
    let _ = writeln!(
        report,
        "### Memory against input\n\nTwo files near the 64 MiB per-file limit, whole process (GNU time). Goal: peak RSS \
         at most 4x the total input.\n\n| rows per file | key | input | peak RSS | ratio | wall |\n|---|---|---|---|---|---|"
    );
    for (rows, short) in [(1_800_000, false), (2_600_000, true)] {
        let (base, cur) = results(dir, rows, short);
        let input =
            std::fs::metadata(&base).unwrap().len() + std::fs::metadata(&cur).unwrap().len();
        let baseline = format!("main={}", base.display());
        let a = args(cur.to_str().unwrap(), &baseline);
        let wall = quiet(BIN, &a);
        let rss = peak_rss_kb(&a, &[]) * 1024;
        let _ = writeln!(
            report,
            "| {rows} | `{}` | {:.1} MB | {:.1} MB | **{:.2}x** | {:.2} s |",
            if short {
                "k{i},1,b"
            } else {
                "op{n},{i}x8192,bf16"
            },
            input as f64 / 1e6,
            rss as f64 / 1e6,
            rss as f64 / input as f64,
            wall.as_secs_f64()
        );
        let _ = std::fs::remove_file(base);
        let _ = std::fs::remove_file(cur);
    }
    report.push('\n');
}

/// 10,000 rules, each a literal `op=` pattern, against 5,000 rows: rule
/// patterns are compiled once and matched without allocating.
fn rules(report: &mut String, dir: &Path) {
    let mut config = String::new();
    for i in 0..10_000 {
        let _ = writeln!(
            config,
            "[[rules]]\nmatch = [\"op=op{}\", \"shape=*x8192\"]\nfail-threshold = 15\n",
            10_000 - i
        );
    }
    let config_path = dir.join("rules.toml");
    std::fs::write(&config_path, config).unwrap();
    let (base, cur) = (dir.join("r-base.csv"), dir.join("r-cur.csv"));
    let mut text = String::from("op,shape,dtype,tbps,tflops,status\n");
    for i in 0..5_000 {
        let _ = writeln!(text, "op{i},{i}x8192,bf16,-,100,ok");
    }
    std::fs::write(&base, &text).unwrap();
    std::fs::write(&cur, &text).unwrap();
    let baseline = format!("main={}", base.display());
    let a = [
        "compare",
        "--current",
        cur.to_str().unwrap(),
        "--baseline",
        &baseline,
        "--config",
        config_path.to_str().unwrap(),
        "--format",
        "json",
    ];
    let runs: Vec<Duration> = (0..5).map(|_| quiet(BIN, &a)).collect();
    let _ = writeln!(
        report,
        "### 10,000 rules against 5,000 rows\n\nA config of 10,000 `[[rules]]` (two patterns each; row i matches rule \
         number 10,000 - i, so 5,000 to 10,000 rules are tried per row) against two files of 5,000 rows, whole \
         process, median of 5: **{}** (goal: under 1 s; it took 11 to 21 s before patterns were compiled once).\n",
        ms(median(runs))
    );
}
