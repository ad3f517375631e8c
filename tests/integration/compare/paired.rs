//! `compare --paired` end to end: rounds written as files (each round's
//! machine speed moving both sides alike, as on a shared runner), the
//! verdict, the rows in JSON with their rounds and interval, the rows still
//! in doubt (`rerun`, `--strict`), and the inputs that cannot pair.

use std::path::Path;

use serde_json::Value;

use crate::support::harness::{Bin, Run};

/// SplitMix64, so each test's rounds are the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Roughly normal (the sum of twelve uniforms), unit spread.
    fn normal(&mut self) -> f64 {
        (0..12).map(|_| self.next()).sum::<f64>() - 6.0
    }
}

/// A suite of 20 rows (`op,shape,dtype,tflops`) measured in `rounds`
/// rounds: each round's machine factor (spread `machine`) moves both sides,
/// each row's own noise is `noise`, and `slower(i)` is row i's true
/// slowdown (a fraction of throughput lost). Returns the flags.
pub fn rounds(
    dir: &Path,
    rounds: usize,
    machine: f64,
    noise: f64,
    seed: u64,
    slower: impl Fn(usize) -> f64,
) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut args = Vec::new();
    for round in 0..rounds {
        let factor = (machine * rng.normal()).exp();
        for side in ["baseline", "current"] {
            let mut text = String::from("op,shape,dtype,tflops\n");
            for i in 0..20 {
                let mut value = (100.0 + 10.0 * i as f64) * factor * (noise * rng.normal()).exp();
                if side == "current" {
                    value *= 1.0 - slower(i);
                }
                text.push_str(&format!("gemm,{}x4096,bf16,{value:.4}\n", 256 * (i + 1)));
            }
            let name = format!("{side}-r{round}.csv");
            std::fs::write(dir.join(&name), text).unwrap();
            args.push(match side {
                "baseline" => format!("--baseline=main={name}"),
                _ => format!("--current={name}"),
            });
        }
    }
    args
}

/// `n` rounds through a machine whose speed drifts 8% from round to round,
/// each run 4% apart, every fifth row 6% slower: rows whose medians and
/// paired change point opposite ways.
pub fn drifting(dir: &Path, n: usize) -> Vec<String> {
    rounds(
        dir,
        n,
        0.08,
        0.04,
        11,
        |i| if i % 5 == 0 { 0.06 } else { 0.0 },
    )
}

fn compare(setup: impl FnOnce(&Path) -> Vec<String>, extra: &[&str]) -> (Run, Value) {
    let bin = Bin::new();
    let args = setup(bin.dir());
    let bin = bin
        .arg("compare")
        .arg("--paired")
        .args(args)
        .args(extra)
        .args(["--format", "json"]);
    let run = bin.run();
    let json = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    (run, json)
}

fn rows_of<'a>(json: &'a Value, class: &str) -> Vec<&'a Value> {
    json["baselines"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["class"] == class)
        .collect()
}

#[test]
fn a_slowdown_is_caught_through_a_machine_that_moves_by_a_fifth() {
    // Each round's machine is up to ±20% faster or slower: judged apart,
    // no single run could tell 15% from noise; paired, both sides move
    // together and the ratio keeps only the change.
    let (run, json) = compare(
        |d| rounds(d, 3, 0.10, 0.01, 1, |i| if i == 4 { 0.15 } else { 0.0 }),
        &[],
    );
    assert_eq!(run.code, 4, "{}", run.stderr);
    let regressed = rows_of(&json, "regressed");
    assert_eq!(regressed.len(), 1, "{json:#}");
    let row = regressed[0];
    assert_eq!(row["key"]["shape"], "1280x4096");
    assert_eq!(row["rounds"], 3);
    let [low, high] =
        [&row["interval_pct"][0], &row["interval_pct"][1]].map(|v| v.as_f64().unwrap());
    assert!(low < -10.0 && high < 0.0 && low < high, "{row}");
    assert!(row["change_pct"].as_f64().unwrap() < -12.0, "{row}");
    assert_eq!(json["baselines"][0]["paired"]["rows"], 20);
    assert_eq!(json["baselines"][0]["paired"]["undecided"], 0);
}

#[test]
fn a_change_that_changes_nothing_passes_with_every_row_decided() {
    let (run, json) = compare(|d| rounds(d, 3, 0.10, 0.01, 2, |_| 0.0), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json["verdict"], "pass");
    assert_eq!(rows_of(&json, "unchanged").len(), 20, "{json:#}");
    assert!(
        rows_of(&json, "unchanged")
            .iter()
            .all(|r| r["rerun"] == false)
    );
}

#[test]
fn rows_in_doubt_are_noisy_listed_for_a_rerun_and_fail_only_under_strict() {
    // 12% noise per run on every row: three rounds cannot rule out 10%.
    let setup = |d: &Path| rounds(d, 3, 0.0, 0.12, 3, |_| 0.0);
    let (run, json) = compare(setup, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let noisy = rows_of(&json, "noisy");
    assert!(!noisy.is_empty(), "{json:#}");
    assert!(noisy.iter().all(|r| r["rerun"] == true), "{json:#}");
    assert!(
        json["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("still undecided")),
        "{json:#}"
    );
    assert_eq!(json["rerun"]["keys"].as_array().unwrap().len(), noisy.len());
    let (run, _) = compare(setup, &["--strict"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
}

#[test]
fn at_the_most_rounds_a_row_in_doubt_is_no_longer_listed_for_a_rerun() {
    let setup = |d: &Path| rounds(d, 3, 0.0, 0.12, 3, |_| 0.0);
    let (_, json) = compare(setup, &["--rounds", "3", "--max-rounds", "3"]);
    let noisy = rows_of(&json, "noisy");
    assert!(!noisy.is_empty(), "{json:#}");
    assert!(noisy.iter().all(|r| r["rerun"] == false), "{json:#}");
}

#[test]
fn more_rounds_decide_what_three_could_not() {
    // 6% noise a run: three rounds leave rows in doubt; the same rounds
    // and seventeen more decide every one.
    let (_, json) = compare(|d| rounds(d, 3, 0.0, 0.06, 4, |_| 0.0), &[]);
    let undecided = json["baselines"][0]["paired"]["undecided"]
        .as_u64()
        .unwrap();
    assert!(undecided > 0, "{json:#}");
    let (run, json) = compare(|d| rounds(d, 20, 0.0, 0.06, 4, |_| 0.0), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json["baselines"][0]["paired"]["undecided"], 0, "{json:#}");
    let mean = json["baselines"][0]["paired"]["rounds_mean"]
        .as_f64()
        .unwrap();
    assert!(mean > 3.0 && mean < 20.0, "{mean}");
}

#[test]
fn files_that_cannot_pair_are_a_usage_error_naming_the_counts() {
    let bin = Bin::new();
    for name in ["c1.csv", "c2.csv", "b1.csv"] {
        std::fs::write(bin.dir().join(name), "op,shape,dtype,tflops\na,b,c,1\n").unwrap();
    }
    let run = bin
        .args([
            "compare",
            "--paired",
            "--current",
            "c1.csv",
            "--current",
            "c2.csv",
        ])
        .args(["--baseline", "main=b1.csv"])
        .run();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("2 current files, 1 of main"),
        "{}",
        run.stderr
    );
    let run = Bin::new()
        .args(["compare", "--paired", "--rounds", "0"])
        .args(["--current", "c.csv", "--baseline", "main=b.csv"])
        .run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--rounds"), "{}", run.stderr);
}

#[test]
fn a_time_ten_percent_longer_reads_as_ten_percent_worse() {
    let bin = Bin::new();
    let mut args = Vec::new();
    for round in 0..3 {
        let jitter = [1.0, 1.01, 0.99][round];
        for (side, factor) in [("b", 1.0), ("c", 1.3)] {
            let name = format!("{side}{round}.csv");
            std::fs::write(
                bin.dir().join(&name),
                format!("name,seconds\nparse,{}\n", 2.0 * factor * jitter),
            )
            .unwrap();
            args.push(if side == "b" {
                format!("--baseline=main={name}")
            } else {
                format!("--current={name}")
            });
        }
    }
    std::fs::write(
        bin.dir().join("bench.toml"),
        "keys = [\"name\"]\n[[metrics]]\ncolumn = \"seconds\"\nunit = \"s\"\ndirection = \"lower\"\n",
    )
    .unwrap();
    let (run, json) = bin
        .args(["compare", "--paired", "--config", "bench.toml"])
        .args(args)
        .json_code(4);
    let row = &json["baselines"][0]["rows"][0];
    assert_eq!(row["class"], "regressed", "{}", run.stdout);
    let change = row["change_pct"].as_f64().unwrap();
    assert!((change + 30.0).abs() < 0.5, "{change}");
}

/// docs/compare.md's paired block runs as written, on three rounds a side
/// (the binary on PATH, as a user's shell finds it).
#[test]
fn the_pages_paired_block_runs_as_written() {
    let page =
        std::fs::read_to_string(crate::support::harness::repo_root().join("docs/compare.md"))
            .unwrap();
    let block = page
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .find(|b| b.contains("compare --paired"))
        .expect("docs/compare.md has a paired sh block")
        .to_owned();
    let dir = tempfile::tempdir().unwrap();
    rounds(
        dir.path(),
        3,
        0.05,
        0.01,
        8,
        |i| if i == 2 { 0.3 } else { 0.0 },
    );
    // The page numbers rounds from 1: the last file moves first.
    for round in (0..3).rev() {
        for side in ["current", "baseline"] {
            std::fs::rename(
                dir.path().join(format!("{side}-r{round}.csv")),
                dir.path().join(format!("{side}-r{}.csv", round + 1)),
            )
            .unwrap();
        }
    }
    let bin = assert_cmd::cargo::cargo_bin("baseline-resolver");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &block])
        .current_dir(dir.path())
        .env("PATH", path)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{block}\n{stdout}\n{stderr}");
    assert!(stdout.contains("1 regressed"), "{stdout}");
}

/// A paired row's change is the rounds' paired estimate; its two medians
/// are each side's own over the same rounds. Through a machine that drifts
/// 8% from round to round the two point opposite ways on some rows: each
/// such row says what its medians alone give, first, and the summary's
/// tables are headed as what they are, with the annotations naming the
/// medians as medians.
#[test]
fn a_row_whose_medians_point_the_other_way_from_its_paired_change_says_so() {
    let drift = |dir: &Path| drifting(dir, 5);
    let (_, report) = compare(drift, &[]);
    let bin = Bin::new().on_runner();
    let args = drift(bin.dir());
    let run = bin.arg("compare").arg("--paired").args(args).run();
    let mut other_way = 0;
    for row in report["baselines"][0]["rows"].as_array().unwrap() {
        let (base, current) = (
            row["baseline"]["median"].as_f64().unwrap(),
            row["current"]["median"].as_f64().unwrap(),
        );
        let medians = (current / base - 1.0) * 100.0;
        let change = row["change_pct"].as_f64().unwrap();
        let reason = row["reason"].as_str().unwrap();
        let shown = |x: f64| (x * 10.0).round() != 0.0;
        if medians * change < 0.0 && shown(medians) && shown(change) {
            other_way += 1;
            assert!(
                reason.starts_with(&format!("the medians alone: {medians:+.1}%")),
                "{row}"
            );
        } else {
            assert!(!reason.contains("medians alone"), "{row}");
        }
    }
    assert!(other_way > 0, "{report}");
    assert!(
        run.summary
            .contains("| key | baseline (median) | current (median) | change (paired) |")
            && run
                .summary
                .contains("*change (paired): the verdict's estimate"),
        "{}",
        run.summary
    );
    // A regressed row's annotation names its change paired and its two
    // values medians.
    let bin = Bin::new().on_runner();
    let args = rounds(
        bin.dir(),
        3,
        0.0,
        0.01,
        5,
        |i| if i == 0 { 0.3 } else { 0.0 },
    );
    let failed = bin.arg("compare").arg("--paired").args(args).run();
    let line = failed
        .stdout
        .lines()
        .find(|l| l.starts_with("::error title=Benchmark regression::"))
        .unwrap_or_else(|| panic!("{}", failed.stdout));
    assert!(
        line.contains("%25 paired against main (medians 100.0") && line.contains(" -> 69."),
        "{line}"
    );
    assert!(
        !run.summary
            .contains("| key | baseline | current | change |"),
        "{}",
        run.summary
    );
}

/// The medians beside a paired change are made from the rounds the change
/// was: a row decided at the first look (3 rounds) while the files hold 6
/// (its group ran again for another row) showed medians over all 6, which
/// pointed the other way from its change twice as often on real rounds.
#[test]
fn a_paired_rows_medians_are_over_the_rounds_its_change_used() {
    let (_, report) = compare(
        |dir| drifting(dir, 6),
        &["--rounds", "3", "--max-rounds", "6"],
    );
    let rows = report["baselines"][0]["rows"].as_array().unwrap();
    let mut first_look = 0;
    for row in rows {
        let used = row["rounds"].as_u64().unwrap() as usize;
        first_look += usize::from(used == 3);
        for side in ["baseline", "current"] {
            assert_eq!(
                row[side]["samples"].as_array().unwrap().len(),
                used,
                "{side}: {row}"
            );
        }
    }
    assert!(first_look > 0 && first_look < rows.len(), "{report}");
}

/// The dashboard line (`main=... current=...`) of a paired row shows the
/// medians its row does, over the rounds its change used: it took every
/// round in the files, so one row read two medians in one log.
#[test]
fn the_dashboard_shows_a_paired_rows_medians_over_the_rounds_its_change_used() {
    let files = Bin::new();
    let args = drifting(files.dir(), 6);
    let run = |format: &str| {
        Bin::new()
            .in_dir(files.dir())
            .args(["compare", "--paired", "--rounds", "3", "--max-rounds", "6"])
            .args(&args)
            .args(["--format", format])
            .run()
    };
    let report: Value = serde_json::from_str(&run("json").stdout).unwrap();
    let log = run("text").stdout;
    let rows = report["baselines"][0]["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["rounds"] == 3), "{report}");
    for row in rows {
        let shape = row["key"]["shape"].as_str().unwrap();
        let line = log
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(shape))
            .unwrap_or_else(|| panic!("no dashboard line for {shape}: {log}"));
        let shown = |side: &str| {
            let median = row[side]["median"].as_f64().unwrap();
            format!("{median:.3}")
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let after = |tag: &str| {
            let at = words.iter().position(|w| *w == tag).unwrap();
            words[at + 1].to_owned()
        };
        assert_eq!(after("main="), shown("baseline"), "{line}\n{row}");
        assert_eq!(after("current="), shown("current"), "{line}\n{row}");
    }
}

/// scripts/paired-medians reads each metric's direction from the config:
/// a `[[rules]]` table's `direction` (here a rule that matches no row)
/// was taken for the last metric's, so every row of a uniform 3%
/// slowdown counted as its medians pointing the other way.
#[test]
fn the_paired_medians_harness_reads_a_metrics_direction_past_a_rule() {
    let files = Bin::new();
    let dir = files.dir();
    rounds(dir, 6, 0.0, 0.0, 5, |_| 0.03);
    let listed: Vec<Value> = (0..6)
        .map(|r| {
            serde_json::json!({
                "round": r + 1,
                "current": dir.join(format!("current-r{r}.csv")),
                "baseline": dir.join(format!("baseline-r{r}.csv")),
            })
        })
        .collect();
    let manifest = serde_json::json!({ "rounds": listed });
    std::fs::write(dir.join("rounds.json"), manifest.to_string()).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "[[metrics]]\ncolumn = \"tflops\"\nunit = \"TFLOPS\"\ndirection = \"higher\"\n\
         [[rules]]\nmatch = [\"op=none\"]\ndirection = \"lower\"\n",
    )
    .unwrap();
    let script = crate::support::harness::repo_root().join("scripts/paired-medians");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg("--bin")
        .arg(assert_cmd::cargo::cargo_bin("baseline-resolver"))
        .arg("--rounds-dir")
        .arg(dir)
        .arg("--config")
        .arg(dir.join("config.toml"))
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        printed.contains("2 pull requests, 40 rows, 0 (0.0%) medians the other way"),
        "{printed}"
    );
}
