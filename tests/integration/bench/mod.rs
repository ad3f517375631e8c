//! Issue 32: `bench` end to end on real git repositories made in the test:
//! a shallow clone that lacks the base commit (fetched at depth 1 from the
//! origin), a harness that writes CSV rows, fails after some, sleeps past
//! the timeout or does not know a group; the worktree is gone afterwards
//! in every case; a downloaded result skips the baseline run; hostile
//! values stay data; the action's inputs and outputs honoured.

mod config_file;
mod container;
mod examples;
mod failure;
mod hostile;
mod manifest;
mod manifest_config;
mod print_log;
mod rounds;
mod snapshots;
mod trees;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::gitrepo::{commit_all, git};
use crate::support::harness::Bin;

/// The harness: `bench.sh OUT GROUPS` writes a header and one row per
/// group (the whole suite when none are given), each with the tree's
/// `value`; `mode` says what goes wrong: `fail` exits 3 after two rows,
/// `sleep` sleeps after one; `groups` is what `--list` prints.
const HARNESS: &str = r#"#!/usr/bin/env bash
set -u
out=$1; groups=${2:-}
[ "$groups" = --list ] && { cat groups; exit 0; }
[ -n "$groups" ] || groups=$(cat groups)
echo "op,shape,dtype,tflops" > "$out"
n=0
for g in ${groups//,/ }; do
  echo "$g,4096,bf16,$(cat value)" >> "$out"
  n=$((n+1))
  case "$(cat mode)" in
    fail) [ $n -ge 2 ] && { echo "benchmark $g crashed" >&2; exit 3; } ;;
    sleep) sleep 60 ;;
  esac
done
echo "::error::a line the harness printed"
"#;

/// The examples' harness, over the one above: `--only G` (repeated)
/// and `--out FILE`, `--list` prints the groups.
const EXAMPLE_HARNESS: &str = r#"#!/usr/bin/env bash
cd "$(dirname "$0")/.."
only=(); out=
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only+=("$2"); shift 2 ;;
    --out|--output_csv) out=$2; shift 2 ;;
    --list) exec bash bench.sh x --list ;;
    *) echo "unknown $1" >&2; exit 2 ;;
  esac
done
groups=$(IFS=,; echo "${only[*]}")
exec bash bench.sh "$out" $groups
"#;

/// One commit of the benchmarked project.
pub struct Tree<'a> {
    pub value: &'a str,
    pub mode: &'a str,
    pub groups: &'a str,
}

/// An origin with a base commit and a head commit on `main`, and a
/// checkout of the head at depth 1 (as actions/checkout makes it): the
/// base commit is not in it.
pub struct Project {
    pub root: tempfile::TempDir,
    pub checkout: PathBuf,
    pub base: String,
    pub head: String,
}

fn commit(work: &Path, tree: &Tree<'_>, message: &str) -> String {
    crate::support::harness::write_executable(&work.join("bench.sh"), HARNESS);
    std::fs::write(work.join("value"), tree.value).unwrap();
    std::fs::write(work.join("mode"), tree.mode).unwrap();
    std::fs::write(work.join("groups"), tree.groups).unwrap();
    // The examples' harness: `scripts/run_benchmark.sh [--only G]... --out FILE`.
    std::fs::create_dir_all(work.join("scripts")).unwrap();
    crate::support::harness::write_executable(
        &work.join("scripts/run_benchmark.sh"),
        EXAMPLE_HARNESS,
    );
    commit_all(work, message)
}

impl Project {
    pub fn new(base: &Tree<'_>, head: &Tree<'_>) -> Project {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir(&work).unwrap();
        git(&work, &["init", "-q", "-b", "main"]);
        let base_sha = commit(&work, base, "base");
        let head_sha = commit(&work, head, "head");
        let origin = crate::support::gitrepo::publish(root.path(), &work);
        let checkout = root.path().join("checkout");
        let url = format!("file://{}", origin.display());
        git(
            root.path(),
            &["clone", "-q", "--depth=1", &url, checkout.to_str().unwrap()],
        );
        Project {
            root,
            checkout,
            base: base_sha,
            head: head_sha,
        }
    }

    /// resolve's answer for a pull request on this project.
    pub fn resolution(&self, sha: &str) -> String {
        format!(
            r#"{{"label":"main","base_sha":"{sha}","base_available":true,"base_source":"payload","head_sha":"{}"}}"#,
            self.head
        )
    }

    /// `git worktree list`: one line per worktree (the checkout's own first).
    pub fn worktrees(&self) -> usize {
        git(&self.checkout, &["worktree", "list"]).lines().count()
    }

    pub fn worktree_dir(&self) -> PathBuf {
        self.root.path().join("baseline-tree")
    }

    /// `bench` in the checkout, on a runner, with the worktree at
    /// [`Project::worktree_dir`].
    pub fn bench(&self, resolution: &str) -> Bin {
        self.bench_with(resolution, "bash bench.sh {out} {groups}")
    }

    /// [`Project::bench`] with another `--command`.
    pub fn bench_with(&self, resolution: &str, command: &str) -> Bin {
        let bin = Bin::new();
        let res = bin.dir().join("resolution.json");
        std::fs::write(&res, resolution).unwrap();
        bin.on_runner()
            .env("GITHUB_WORKSPACE", &self.checkout)
            .env("RUNNER_TEMP", self.root.path())
            .args(["bench", "--resolution"])
            .arg(res)
            .args(["--command", command])
            .arg("--worktree-dir")
            .arg(self.worktree_dir())
            .arg("--out-dir")
            .arg(self.root.path().join("results"))
    }
}

pub fn quiet<'a>(value: &'a str, groups: &'a str) -> Tree<'a> {
    Tree {
        value,
        mode: "ok",
        groups,
    }
}

/// Each side's status, as the step outputs say it.
pub fn statuses(run: &crate::support::harness::Run) -> (String, String) {
    let out = run.outputs();
    (
        out["current-status"].clone(),
        out["baseline-status"].clone(),
    )
}

pub fn csv(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn both_sides_run_once_the_base_commit_is_fetched_and_the_worktree_is_gone() {
    let p = Project::new(
        &quiet("100", "gemm softmax rmsnorm"),
        &quiet("90", "gemm softmax rmsnorm softmax_bwd"),
    );
    let bin = p.bench(&p.resolution(&p.base));
    let selection = bin.dir().join("selection.json");
    std::fs::write(
        &selection,
        r#"{"selection":"some","groups":["gemm","softmax_bwd"]}"#,
    )
    .unwrap();
    let run = bin
        .arg("--selection")
        .arg(&selection)
        .args(["--list-command", "bash bench.sh x --list"])
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["baseline-source"], "ran");
    assert_eq!(out["current-status"], "ok");
    assert_eq!(out["baseline-status"], "ok");
    assert_eq!(
        (out["current-rows"].as_str(), out["baseline-rows"].as_str()),
        ("2", "1")
    );
    assert_eq!(
        csv(&out["current"]),
        "op,shape,dtype,tflops\ngemm,4096,bf16,90\nsoftmax_bwd,4096,bf16,90\n"
    );
    assert_eq!(
        csv(&out["baseline"]),
        "op,shape,dtype,tflops\ngemm,4096,bf16,100\n"
    );
    assert!(
        run.stdout.contains(
            "::warning title=bench%3A the baseline::this tree's harness does not know softmax_bwd"
        ),
        "{}",
        run.stdout
    );
    let json: Value = serde_json::from_str(&out["json"]).unwrap();
    assert_eq!(json["baseline"]["sha"], p.base.as_str());
    assert_eq!(
        json["baseline"]["fetched"], true,
        "the shallow clone lacked it"
    );
    assert_eq!(json["baseline"]["dropped_groups"][0], "softmax_bwd");
    assert_eq!(p.worktrees(), 1, "the worktree is unregistered");
    assert!(!p.worktree_dir().exists(), "and its directory is gone");
    assert!(run.summary.contains("| baseline |"), "{}", run.summary);
    // The harness's own lines are relayed on stderr, never as commands.
    assert!(
        run.stderr
            .contains("[current] ::error::a line the harness printed")
    );
    assert!(!run.stdout.contains("a line the harness printed"));
    assert!(
        run.stderr
            .lines()
            .all(|l| !l.trim_start().starts_with("::"))
    );
}

#[test]
fn a_side_that_fails_keeps_its_rows_the_step_succeeds_and_strict_fails_it() {
    let broken = Tree {
        value: "100",
        mode: "fail",
        groups: "gemm softmax rmsnorm",
    };
    let p = Project::new(&broken, &quiet("90", "gemm softmax rmsnorm"));
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--rounds", "1"])
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["baseline-status"], "failed");
    assert_eq!(out["baseline-exit-code"], "3");
    assert_eq!(out["baseline-rows"], "2", "the partial CSV is kept");
    assert_eq!(out["current-rows"], "3");
    assert!(
        run.stdout.contains("command exited with status 3 after")
            && run.stdout.contains("the 2 rows it wrote are kept"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("[baseline] benchmark softmax crashed"));
    assert!(!p.worktree_dir().exists());
    let strict = p.bench(&p.resolution(&p.base)).arg("--strict").run();
    strict.assert_code(4);
    assert!(!p.worktree_dir().exists());
}

#[test]
fn a_side_past_its_timeout_is_stopped_whole_and_keeps_its_rows() {
    let slow = Tree {
        value: "100",
        mode: "sleep",
        groups: "gemm softmax",
    };
    let p = Project::new(&slow, &quiet("90", "gemm softmax"));
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--timeout-minutes", "0.02"])
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["baseline-status"], "timed-out");
    assert_eq!(out["baseline-exit-code"], "");
    assert_eq!(out["baseline-rows"], "1");
    assert_eq!(out["current-status"], "ok");
    assert!(run.stdout.contains("outlived its timeout and was stopped"));
    assert!(!p.worktree_dir().exists(), "removed after the timeout too");
    // No process of the harness is left: none runs in the project's dirs.
    let mine: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            std::fs::read_link(e.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(p.root.path()))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(mine.is_empty(), "the harness's group is stopped: {mine:?}");
}

#[test]
fn a_downloaded_result_stands_for_the_baseline_and_an_empty_one_does_not() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let bin = p.bench(&p.resolution(&p.base));
    let artifact = bin.dir().join("main-results.csv");
    std::fs::write(&artifact, "op,shape,dtype,tflops\ngemm,4096,bf16,101\n").unwrap();
    let run = bin.arg("--baseline-result").arg(&artifact).run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["baseline-source"], "artifact");
    assert_eq!(out["baseline"], artifact.display().to_string());
    assert_eq!(out["baseline-rows"], "1");
    assert_eq!(out["baseline-duration"], "", "not run");
    assert_eq!(p.worktrees(), 1);

    let bin = p.bench(&p.resolution(&p.base));
    let empty = bin.dir().join("empty.csv");
    std::fs::write(&empty, "op,shape,dtype,tflops\n").unwrap();
    let run = bin.arg("--baseline-result").arg(&empty).run();
    run.assert_code(0);
    assert_eq!(run.outputs()["baseline-source"], "ran");
    assert!(run.stdout.contains("holds no rows: the baseline runs"));

    let bin = p.bench(&p.resolution(&p.base));
    let run = bin.args(["--baseline-result", "not-downloaded.csv"]).run();
    assert_eq!(run.outputs()["baseline-source"], "ran");
}

#[test]
fn a_baseline_that_cannot_be_checked_out_is_unavailable_never_another_commit() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let missing = "0123456789abcdef0123456789abcdef01234567";
    let run = p.bench(&p.resolution(missing)).run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["baseline-source"], "unavailable");
    assert!(
        out["baseline"].ends_with("results/baseline.csv"),
        "{}",
        out["baseline"]
    );
    assert!(
        !Path::new(&out["baseline"]).exists(),
        "compare says it is unavailable"
    );
    assert_eq!(out["current-status"], "ok");
    assert!(
        run.stdout.contains("::warning title=bench%3A the baseline::baseline unavailable: the commit 0123456789abcdef")
            && run.stdout.contains("no other commit is measured in its place"),
        "{}",
        run.stdout
    );
    p.bench(&p.resolution(missing))
        .arg("--strict")
        .run()
        .assert_code(4);
    // A resolution that says there is no baseline is not run at all.
    let gone = r#"{"label":"main","base_available":false}"#;
    let run = p.bench(gone).run();
    run.assert_code(0);
    assert_eq!(run.outputs()["baseline-source"], "unavailable");
}

#[test]
fn nothing_selected_runs_nothing_and_says_so() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let run = p
        .bench(&p.resolution(&p.base))
        .args([
            "--selection",
            r#"{"selection":"none","groups":[]}"#,
            "--strict",
        ])
        .run();
    run.assert_code(0);
    assert_eq!(statuses(&run), ("skipped".into(), "skipped".into()));
    assert!(run.stdout.contains("select chose no benchmark group"));
    assert!(!p.root.path().join("results").exists());
}

#[test]
fn hostile_values_in_the_resolution_and_selection_stay_data() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let marker = p.root.path().join("pwned");
    let smuggled = format!(
        r#"{{"base_sha":"--upload-pack=touch {}","base_available":true}}"#,
        marker.display()
    );
    let run = p.bench(&smuggled).run();
    run.assert_code(0);
    assert_eq!(run.outputs()["baseline-source"], "unavailable");
    assert!(
        run.stdout.contains("not a full commit SHA"),
        "{}",
        run.stdout
    );
    let group = format!(
        r#"{{"selection":"some","groups":["gemm;touch {}"]}}"#,
        marker.display()
    );
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--selection", &group])
        .run();
    run.assert_code(1);
    assert!(run.stderr.contains("not a plain word"), "{}", run.stderr);
    assert!(!marker.exists(), "nothing smuggled ran");
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--out-dir", "my results"])
        .run();
    run.assert_code(2);
    assert!(run.stderr.contains("--out-dir"), "{}", run.stderr);
    let run = Bin::new().args(["bench", "--command", "./run.sh"]).run();
    run.assert_code(2);
    assert!(run.stderr.contains("has no {out}"), "{}", run.stderr);
    let run = Bin::new().args(["bench", "--command", "x {out}"]).run();
    run.assert_code(2);
    assert!(run.stderr.contains("--resolution"), "{}", run.stderr);
}

/// The composite step of `bench/action.yml`, through the launcher: every
/// output it declares, from the inputs it declares.
#[test]
fn the_bench_action_writes_the_outputs_it_declares() {
    use crate::action::{action_dir, assert_declared, run_step_of};
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let dir = action_dir();
    let event = p.root.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let resolution = p.resolution(&p.base);
    let checkout = p.checkout.display().to_string();
    let run = run_step_of(
        "bench/action.yml",
        dir.path(),
        &event,
        "pull_request",
        &[
            ("command", "bash bench.sh {out} {groups}"),
            ("resolution", &resolution),
            ("repository", &checkout),
            ("timeout-minutes", "5"),
        ],
        &[],
    );
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_declared("bench/action.yml", &run);
    assert_eq!(run.outputs["baseline-source"], "ran");
    assert_eq!(run.outputs["current-rows"], "1");
    assert_eq!(p.worktrees(), 1);
}

/// `bench`'s inputs, outputs, defaults and exit codes say the same in
/// `--help`, `bench/action.yml` and docs/bench.md; the README's row.
#[test]
fn bench_states_its_inputs_outputs_and_exits_alike_everywhere() {
    let help = crate::defaults::help(&["bench"]);
    let action = crate::action::action_at("bench/action.yml");
    let root = crate::support::harness::repo_root();
    let page = std::fs::read_to_string(root.join("docs/bench.md")).unwrap();
    let front = std::fs::read_to_string(root.join("README.md")).unwrap();
    let inputs = action["inputs"].as_mapping().unwrap();
    for (name, spec) in inputs {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` | `--{name}")),
            "docs/bench.md: {name}"
        );
        assert!(help.contains(&format!("--{name}")), "--help: --{name}");
        assert!(
            help.contains(&format!("INPUT_{}", name.to_uppercase().replace('-', "_"))),
            "{name}"
        );
        if let Some(default) = spec["default"]
            .as_str()
            .filter(|d| !d.is_empty() && *d != "false")
        {
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
    for (name, _) in action["outputs"].as_mapping().unwrap() {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` |")),
            "docs/bench.md lacks output {name}"
        );
    }
    for code in [0, 1, 2, 4] {
        assert!(
            help.contains(&format!("{code} ")) && page.contains(&format!("| {code} |")),
            "{code}"
        );
    }
    assert!(front.contains("`OWNER/baseline-resolver/bench`") && front.contains("(docs/bench.md)"));
}

/// Google Benchmark's JSON with its `context` left out (a script that
/// keeps only `benchmarks`): the content names no format, so only
/// `--results-format` says how bench reads the downloaded result.
#[test]
fn results_format_names_how_a_downloaded_result_is_read() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let bin = p.bench(&p.resolution(&p.base));
    let artifact = bin.dir().join("main-results.json");
    let json = r#"{"benchmarks": [{"name": "BM_gemm/4096", "run_type": "iteration",
        "iterations": 10, "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns"}]}"#;
    std::fs::write(&artifact, json).unwrap();
    let run = bin.arg("--baseline-result").arg(&artifact).run();
    run.assert_code(0);
    assert_eq!(run.outputs()["baseline-source"], "ran", "no format found");
    assert!(run.stdout.contains("holds no rows: the baseline runs"));

    let bin = p.bench(&p.resolution(&p.base));
    let artifact = bin.dir().join("main-results.json");
    std::fs::write(&artifact, json).unwrap();
    let run = bin
        .arg("--baseline-result")
        .arg(&artifact)
        .args(["--results-format", "google-benchmark"])
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["baseline-source"], "artifact", "{}", run.stdout);
    assert_eq!(out["baseline-rows"], "1");

    let bin = p.bench(&p.resolution(&p.base));
    let run = bin.env("INPUT_RESULTS_FORMAT", "nope").run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("INPUT_RESULTS_FORMAT"),
        "{}",
        run.stderr
    );
}
