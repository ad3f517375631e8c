//! Issue 48: `bench --rounds` end to end on real git repositories and real
//! harnesses that write rows, fail and sleep: each side once per round in
//! an order drawn from `--seed` (the same seed, the same order), each
//! round's file per side and the manifest compare reads, the worktree and
//! each tree's group list made once, only the groups of rows still in
//! doubt run again, the time budget held across rounds, and `--rounds 1`
//! exactly as before.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::gitrepo::{commit_all, git};
use crate::support::harness::{Bin, Run, write_executable};

/// `bench.sh OUT [GROUPS]`: one row per group (`groups` lists them when
/// none are given), each `op=<group>` with the value `value` says; a group
/// named `noisy*` gets a value drawn for each file (seeded by its name, so
/// a run is repeatable), from a half to twice it. `mode` `fail` exits 3 after the first row; `sleep` sleeps a second
/// before writing. Every run appends `side round tree` to `$RUNS_LOG`.
const HARNESS: &str = r#"#!/usr/bin/env bash
set -u
out=$1; groups=${2:-}
[ "$groups" = --list ] && { echo "listed $PWD" >> "$RUNS_LOG.list"; cat groups; exit 0; }
[ -n "$groups" ] || groups=$(cat groups)
[ "$(cat mode)" = sleep ] && sleep 1
echo "op,shape,dtype,tflops" > "$out"
for g in ${groups//,/ }; do
  v=$(cat value)
  RANDOM=$(basename "$out" | cksum | cut -d' ' -f1)
  case "$g" in noisy*) v=$(( v / 2 + RANDOM % (v * 3 / 2) )) ;; esac
  echo "$g,1,f,$v" >> "$out"
  [ "$(cat mode)" = fail ] && exit 3
done
exit 0
"#;

pub(super) struct BaseAndHead {
    pub(super) root: tempfile::TempDir,
    checkout: PathBuf,
    base: String,
}

impl BaseAndHead {
    /// A base commit and a head commit with `value`/`mode`/`groups` each.
    pub(super) fn new(base: (&str, &str), head: (&str, &str), groups: &str) -> BaseAndHead {
        let root = tempfile::tempdir().unwrap();
        let checkout = root.path().join("checkout");
        std::fs::create_dir(&checkout).unwrap();
        git(&checkout, &["init", "-q", "-b", "main"]);
        let commit = |(value, mode): (&str, &str), message: &str| {
            write_executable(&checkout.join("bench.sh"), HARNESS);
            std::fs::write(checkout.join("value"), value).unwrap();
            std::fs::write(checkout.join("mode"), mode).unwrap();
            std::fs::write(checkout.join("groups"), groups).unwrap();
            std::fs::write(checkout.join("README"), message).unwrap();
            commit_all(&checkout, message)
        };
        let base = commit(base, "base");
        commit(head, "head");
        BaseAndHead {
            root,
            checkout,
            base,
        }
    }

    fn log(&self) -> PathBuf {
        self.root.path().join("runs.log")
    }

    fn out_dir(&self) -> PathBuf {
        self.root.path().join("results")
    }

    /// `bench` with both sides, text or json as the caller adds.
    pub(super) fn bench(&self) -> Bin {
        let resolution = format!(
            r#"{{"label":"main","base_sha":"{}","base_available":true}}"#,
            self.base
        );
        Bin::new()
            .env("RUNS_LOG", self.log())
            .arg("bench")
            .arg("--repository")
            .arg(&self.checkout)
            .args(["--resolution", &resolution])
            .args(["--command", "bash bench.sh {out} {groups}; s=$?; echo \"{side} {round} {tree}\" >> \"$RUNS_LOG\"; exit $s"])
            .arg("--worktree-dir")
            .arg(self.root.path().join("tree"))
            .arg("--out-dir")
            .arg(self.out_dir())
    }

    /// The runs as the harness logged them: (side, round, tree).
    fn runs(&self) -> Vec<(String, String, String)> {
        std::fs::read_to_string(self.log())
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let mut w = l.split(' ').map(str::to_owned);
                (
                    w.next().unwrap_or_default(),
                    w.next().unwrap_or_default(),
                    w.next().unwrap_or_default(),
                )
            })
            .collect()
    }
}

pub(super) fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

fn lines(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn each_side_runs_once_a_round_in_the_order_the_seed_draws_each_round_its_own_file() {
    let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "gemm softmax");
    let run = project
        .bench()
        .args(["--rounds", "4", "--max-rounds", "4", "--seed", "7"])
        .args(["--format", "json"])
        .run();
    run.assert_code(0);
    let json = json_of(&run);
    let rounds = &json["rounds"];
    assert_eq!(rounds["seed"], 7);
    assert_eq!(rounds["ran"], 4);
    let order = lines(&rounds["order"]);
    // The harness saw the same order, side by side within each round.
    let runs = project.runs();
    assert_eq!(runs.len(), 8);
    for (i, first) in order.iter().enumerate() {
        let pair = &runs[2 * i..2 * i + 2];
        assert_eq!(&pair[0].0, first, "round {} ran {:?}", i + 1, pair);
        assert_ne!(pair[0].0, pair[1].0);
        assert!(pair.iter().all(|r| r.1 == (i + 1).to_string()), "{runs:?}");
    }
    assert!(
        order.iter().any(|s| s == "current") && order.iter().any(|s| s == "baseline"),
        "with seed 7 both sides lead some round: {order:?}"
    );
    // The seed is printed where a user looks for it.
    assert!(run.stderr.contains("seed 7 (--seed 7 repeats this order)"));
    let current = lines(&rounds["current_files"]);
    let baseline = lines(&rounds["baseline_files"]);
    let out = project.out_dir();
    for n in 1..=4 {
        assert_eq!(
            current[n - 1],
            out.join(format!("current-{n}.csv")).to_str().unwrap()
        );
        assert_eq!(
            baseline[n - 1],
            out.join(format!("baseline-{n}.csv")).to_str().unwrap()
        );
        assert_eq!(
            std::fs::read_to_string(&current[n - 1]).unwrap(),
            "op,shape,dtype,tflops\ngemm,1,f,100\nsoftmax,1,f,100\n"
        );
    }
    // The manifest compare reads: the label, the seed, the pairs in order.
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("rounds.json")).unwrap()).unwrap();
    assert_eq!(manifest["schema"], 1);
    assert_eq!(manifest["label"], "main");
    assert_eq!(manifest["seed"], 7);
    assert_eq!(manifest["rounds"][3]["round"], 4);
    assert_eq!(manifest["rounds"][3]["current"], current[3].as_str());
    assert_eq!(manifest["rounds"][3]["baseline"], baseline[3].as_str());
    // The same seed, the same order.
    std::fs::remove_file(project.log()).unwrap();
    let again = project
        .bench()
        .args([
            "--rounds",
            "4",
            "--max-rounds",
            "4",
            "--seed",
            "7",
            "--format",
            "json",
        ])
        .run();
    again.assert_code(0);
    assert_eq!(lines(&json_of(&again)["rounds"]["order"]), order);
    assert_eq!(
        project
            .runs()
            .iter()
            .map(|r| r.0.clone())
            .collect::<Vec<_>>(),
        runs.iter().map(|r| r.0.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn the_worktree_and_each_trees_group_list_are_made_once_for_all_rounds() {
    let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "gemm softmax");
    let selection = project.root.path().join("selection.json");
    std::fs::write(&selection, r#"{"selection":"some","groups":["gemm"]}"#).unwrap();
    let run = project
        .bench()
        .args(["--rounds", "3", "--max-rounds", "3", "--seed", "1"])
        .arg("--selection")
        .arg(&selection)
        .args([
            "--list-command",
            "bash bench.sh x --list",
            "--format",
            "json",
        ])
        .run();
    run.assert_code(0);
    let runs = project.runs();
    let trees: std::collections::BTreeSet<&str> = runs
        .iter()
        .filter(|r| r.0 == "baseline")
        .map(|r| r.2.as_str())
        .collect();
    assert_eq!(trees.len(), 1, "one worktree for every round: {runs:?}");
    let listed = std::fs::read_to_string(format!("{}.list", project.log().display())).unwrap();
    assert_eq!(listed.lines().count(), 2, "each tree asked once: {listed}");
    assert!(
        !project.root.path().join("tree").exists(),
        "and the worktree is gone"
    );
    let json = json_of(&run);
    assert_eq!(json["rounds"]["by_group"][0]["group"], "gemm");
    assert_eq!(json["rounds"]["by_group"][0]["rounds"], 3);
}

/// `[select]` groups `quiet` and `noisy`: which rows each owns.
pub(super) const GROUPS_CONFIG: &str = r#"
[select]
[[select.groups]]
name = "quiet"
paths = ["quiet/**"]
rows = ["op=quiet*"]

[[select.groups]]
name = "noisy"
paths = ["noisy/**"]
rows = ["op=noisy*"]
"#;

#[test]
fn only_the_groups_of_rows_still_in_doubt_run_again_up_to_the_cap() {
    let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "quiet noisy");
    let config = project.root.path().join("config.toml");
    std::fs::write(&config, GROUPS_CONFIG).unwrap();
    let run = project
        .bench()
        .args(["--rounds", "3", "--max-rounds", "12", "--seed", "5"])
        .arg("--config")
        .arg(&config)
        .arg("--groups-format")
        .arg("space")
        .on_runner()
        .run();
    run.assert_code(0);
    let out = run.outputs();
    let json: Value = serde_json::from_str(&out["json"]).unwrap();
    let rounds = &json["rounds"];
    assert_eq!(rounds["looks"], serde_json::json!([3, 6, 12]));
    assert_eq!(rounds["ran"], 12, "{rounds}");
    // Decided at the last look, or still in doubt at the cap: either way
    // the noisy row got every round and the quiet one only the first look.
    assert!(
        ["decided", "cap"].contains(&rounds["stop"].as_str().unwrap()),
        "{rounds}"
    );
    let by_group: Vec<(String, u64)> = rounds["by_group"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["group"].as_str().unwrap().to_owned(),
                g["rounds"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(by_group, [("quiet".into(), 3), ("noisy".into(), 12)]);
    // Rounds 4 to 12 ran the noisy group alone: its rows only in their files.
    let runs = project.runs();
    assert_eq!(runs.len(), 24);
    let current = out["current-files"]
        .lines()
        .map(Path::new)
        .collect::<Vec<_>>();
    assert_eq!(current.len(), 12);
    let late = std::fs::read_to_string(current[5]).unwrap();
    assert!(
        late.contains("noisy,1,f,") && !late.contains("quiet"),
        "{late}"
    );
    let early = std::fs::read_to_string(current[0]).unwrap();
    assert!(early.contains("quiet,1,f,100"), "{early}");
    assert_eq!(rounds["groups"][4], serde_json::json!(["noisy"]));
    // Each side's run, then the rounds: the seed, how many each group got.
    insta::assert_snapshot!(
        "bench_summary_rounds",
        without_commits_and_seconds(&run.summary)
    );
    assert_eq!(out["seed"], "5");
    assert_eq!(out["rounds"], "12");
}

#[test]
fn rows_no_group_owns_run_the_whole_suite_again() {
    let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "quiet noisy_x");
    let config = project.root.path().join("config.toml");
    // Only `quiet` is a group: the noisy row belongs to none.
    std::fs::write(
        &config,
        "[select]\n[[select.groups]]\nname = \"quiet\"\npaths = [\"q/**\"]\nrows = [\"op=quiet*\"]\n",
    )
    .unwrap();
    let run = project
        .bench()
        .args([
            "--rounds",
            "3",
            "--max-rounds",
            "6",
            "--seed",
            "5",
            "--format",
            "json",
        ])
        .arg("--config")
        .arg(&config)
        .run();
    run.assert_code(0);
    let json = json_of(&run);
    assert_eq!(json["rounds"]["ran"], 6, "{}", json["rounds"]);
    assert_eq!(json["rounds"]["groups"][4], Value::Null, "the whole suite");
    assert_eq!(json["rounds"]["by_group"][0]["rounds"], 6);
}

#[test]
fn a_sides_time_budget_holds_across_rounds() {
    let project = BaseAndHead::new(("100", "sleep"), ("100", "sleep"), "gemm");
    let start = std::time::Instant::now();
    // 0.05 minutes is 3 s: each run sleeps 1 s, so a side's budget is spent
    // after about three runs, well before the 20 rounds asked.
    let run = project
        .bench()
        .args(["--rounds", "20", "--max-rounds", "20", "--seed", "2"])
        .args(["--timeout-minutes", "0.05", "--format", "json"])
        .run();
    run.assert_code(0);
    let json = json_of(&run);
    let ran = json["rounds"]["ran"].as_u64().unwrap();
    assert!((1..=4).contains(&ran), "{}", json["rounds"]);
    assert_eq!(json["rounds"]["stop"], "time-budget");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "the budget is per side for all rounds, not per round"
    );
    assert!(
        json["current"]["notes"]
            .to_string()
            .contains("timeout-minutes spent"),
        "{}",
        json["current"]["notes"]
    );
}

#[test]
fn a_failing_round_keeps_its_rows_and_says_which_round() {
    let project = BaseAndHead::new(("100", "fail"), ("100", "ok"), "gemm softmax");
    let run = project
        .bench()
        .args([
            "--rounds",
            "2",
            "--max-rounds",
            "2",
            "--seed",
            "3",
            "--format",
            "json",
        ])
        .run();
    run.assert_code(0);
    let json = json_of(&run);
    assert_eq!(json["baseline"]["status"], "failed");
    assert_eq!(json["baseline"]["exit_code"], 3);
    let notes = json["baseline"]["notes"].to_string();
    assert!(notes.contains("(round 1) exited with status 3"), "{notes}");
    assert!(notes.contains("(round 2) exited with status 3"), "{notes}");
    let files = lines(&json["rounds"]["baseline_files"]);
    assert_eq!(
        std::fs::read_to_string(&files[1]).unwrap(),
        "op,shape,dtype,tflops\ngemm,1,f,100\n",
        "the partial file of round 2 is kept"
    );
    let strict = project
        .bench()
        .args([
            "--rounds",
            "2",
            "--max-rounds",
            "2",
            "--strict",
            "--format",
            "json",
        ])
        .run();
    strict.assert_code(4);
}

#[test]
fn rounds_1_is_one_run_per_side_with_the_files_and_outputs_of_before() {
    let project = BaseAndHead::new(("100", "ok"), ("90", "ok"), "gemm");
    let run = project.bench().args(["--rounds", "1"]).on_runner().run();
    run.assert_code(0);
    let out = run.outputs();
    let dir = project.out_dir();
    assert_eq!(out["current"], dir.join("current.csv").to_str().unwrap());
    assert_eq!(out["baseline"], dir.join("baseline.csv").to_str().unwrap());
    assert_eq!(out["current-files"], out["current"]);
    // The manifest names each side's one file (compare --manifest reads it).
    assert_eq!(out["manifest"], dir.join("rounds.json").to_str().unwrap());
    assert_eq!(out["rounds"], "1");
    assert!(!dir.join("current-1.csv").exists());
    let json: Value = serde_json::from_str(&out["json"]).unwrap();
    assert!(json.get("rounds").is_none(), "{json}");
    assert_eq!(project.runs().len(), 2);
    assert!(!run.summary.contains("Paired rounds"));
}

#[test]
fn rounds_that_make_no_sense_are_refused_before_anything_runs() {
    let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "gemm");
    for (args, says) in [
        (vec!["--rounds", "0"], "--rounds"),
        (
            vec!["--rounds", "5", "--max-rounds", "4"],
            "below --rounds 5",
        ),
        (vec!["--max-rounds", "161"], "--max-rounds"),
        (vec!["--seed", "x"], "--seed"),
    ] {
        let run = project.bench().args(&args).run();
        run.assert_code(2);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
    }
    assert!(project.runs().is_empty(), "nothing ran");
}

/// What bench measured is what compare judges: `compare --manifest` reads
/// bench's rounds (the files in round order, the gate's label, bench's
/// look schedule), and a head 30% slower regresses while bench stopped
/// once every row was decided.
#[test]
fn compare_reads_benchs_manifest_and_judges_the_same_rounds() {
    let project = BaseAndHead::new(("100", "ok"), ("70", "ok"), "gemm attention");
    let run = project
        .bench()
        .args(["--rounds", "3", "--max-rounds", "6", "--seed", "9"])
        .on_runner()
        .run();
    run.assert_code(0);
    let out = run.outputs();
    let json: Value = serde_json::from_str(&out["json"]).unwrap();
    assert_eq!(json["rounds"]["stop"], "decided", "{json}");
    let manifest = PathBuf::from(&out["manifest"]);
    let (compared, report) = Bin::new()
        .args(["compare", "--manifest"])
        .arg(&manifest)
        .json_code(4);
    assert_eq!(report["gate"], "main", "{}", compared.stdout);
    let rows = report["baselines"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter()
            .all(|r| r["class"] == "regressed" && r["rounds"] == 3)
    );
    // The manifest cannot be given beside the files it names.
    let both = Bin::new()
        .args(["compare", "--current", "c.csv", "--manifest"])
        .arg(&manifest)
        .run();
    assert_eq!(both.code, 2);
    assert!(both.stderr.contains("not both"), "{}", both.stderr);
    // A manifest that is not bench's is bad input, named.
    std::fs::write(&manifest, "{\"schema\": 9}").unwrap();
    let bad = Bin::new()
        .args(["compare", "--manifest"])
        .arg(&manifest)
        .run();
    assert_eq!(bad.code, 1);
    assert!(bad.stderr.contains("is not bench's"), "{}", bad.stderr);
}

#[test]
fn compare_paired_on_benchs_outputs_fails_a_real_slowdown_and_passes_no_change() {
    // The change's harness writes 70 where the base wrote 100 (tflops:
    // higher is better, so 30% worse), the same in every round.
    let slower = BaseAndHead::new(("100", "ok"), ("70", "ok"), "gemm softmax");
    let same = BaseAndHead::new(("100", "ok"), ("100", "ok"), "gemm softmax");
    for (project, code, class) in [(&slower, 4, "regressed"), (&same, 0, "unchanged")] {
        let run = project
            .bench()
            .args(["--rounds", "3", "--seed", "4"])
            .on_runner()
            .run();
        run.assert_code(0);
        let out = run.outputs();
        let mut compare = Bin::new().args(["compare", "--paired", "--format", "json"]);
        for file in out["current-files"].lines() {
            compare = compare.args(["--current", file]);
        }
        for labelled in out["compare-baseline"].lines() {
            compare = compare.args(["--baseline", labelled]);
        }
        let verdict = compare.run();
        verdict.assert_code(code);
        let json = json_of(&verdict);
        let rows = &json["baselines"][0]["rows"];
        assert_eq!(rows[0]["class"], class, "{rows}");
        assert_eq!(rows[0]["rounds"], 3, "{rows}");
    }
}

/// The summary with each side's commit and seconds (which change from run
/// to run) replaced by `[commit]` and `[seconds]`, and why the rounds
/// stopped (decided at the last look or at the cap, as the test allows)
/// left out.
pub(super) fn without_commits_and_seconds(summary: &str) -> String {
    summary
        .lines()
        .filter(|line| !line.starts_with("> **Note:** paired rounds"))
        .map(|line| {
            let seed = "seed `5`";
            line.find(seed).map_or(line, |at| &line[..at + seed.len()])
        })
        .map(|line| {
            let mut cells: Vec<&str> = line.split(" | ").collect();
            if (line.starts_with("| current |") || line.starts_with("| baseline |"))
                && cells.len() == 7
            {
                cells[1] = "[commit]";
                cells[4] = "[seconds]";
            }
            cells.join(" | ") + "\n"
        })
        .collect()
}

/// `--keys`, `--metric` and `--ignore` (the columns a CSV of its own needs
/// without a config file) are what bench judges its rounds by between
/// looks, as compare does: the noisy row ignored, nothing is in doubt
/// after the first look; judged, it runs again.
#[test]
fn the_rounds_are_judged_on_the_columns_given_as_inputs() {
    let ran = |ignore: bool| {
        let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "quiet noisy");
        let mut bench = project
            .bench()
            .args(["--rounds", "3", "--max-rounds", "6", "--seed", "5"])
            .args(["--keys", "op,shape,dtype", "--metric", "tflops:higher"])
            .args(["--format", "json"]);
        if ignore {
            bench = bench.env("INPUT_IGNORE", "op=noisy*");
        }
        let run = bench.run();
        run.assert_code(0);
        json_of(&run)["rounds"]["ran"].as_u64()
    };
    assert_eq!(ran(true), Some(3));
    assert_eq!(ran(false), Some(6));
}
