//! Issue 47: the pipeline as the docs assemble it. Each numbered break a
//! maintainer hit migrating the seed's workflow, run here as the page or
//! the help wrote it.

use crate::bench::{Project, quiet};
use crate::support::harness::Bin;

/// A resolution that also names the release tag (at the base commit).
fn with_tag(p: &Project) -> String {
    format!(
        r#"{{"label":"main","base_sha":"{0}","base_available":true,"tag":"v0.3.1","tag_sha":"{0}"}}"#,
        p.base
    )
}

/// `bench` in the project's checkout on a runner, with its own out-dir
/// and command (what [`Project::bench`] fixes).
fn bench(p: &Project, resolution: &str, out_dir: &std::path::Path, command: &str) -> Bin {
    Bin::new()
        .on_runner()
        .env("GITHUB_WORKSPACE", &p.checkout)
        .env("RUNNER_TEMP", p.root.path())
        .args(["bench", "--resolution", resolution, "--command", command])
        // One run per side: the file layout the migration guide's steps use.
        .args(["--rounds", "1"])
        .arg("--out-dir")
        .arg(out_dir)
}

/// Break 1: docs/migrating.md's second bench step (`side: baseline`,
/// `tag: "true"`, the same out-dir) kept the current.csv the first wrote.
#[test]
fn a_baseline_only_step_keeps_the_current_csv_an_earlier_step_wrote() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let first = p.bench(&with_tag(&p)).args(["--rounds", "1"]).run();
    first.assert_code(0);
    let current = first.outputs()["current"].clone();
    assert!(std::path::Path::new(&current).is_file());
    let second = p
        .bench(&with_tag(&p))
        .args(["--side", "baseline", "--tag"])
        .run();
    second.assert_code(0);
    let out = second.outputs();
    assert_eq!(out["baseline-status"], "ok", "{}", second.stdout);
    assert_eq!(out["current"], current);
    assert_eq!(
        crate::bench::csv(&current),
        "op,shape,dtype,tflops\ngemm,4096,bf16,90\n",
        "the first step's current.csv is still there for compare"
    );
}

/// Break 9: on a self-hosted runner the workspace path alone is longer than
/// 80 characters; bench's `current`/`baseline` outputs, `current-files`
/// and `compare-baseline` (what the guide hands compare) and JSON paths
/// are whole, and compare reads them.
#[test]
fn a_long_out_dir_reaches_compare_whole() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("101", "gemm"));
    let long = p
        .root
        .path()
        .join("_work/FlyDSL/FlyDSL/flydsl-test/a-results-directory-deep-enough-to-pass-eighty/bench-results");
    let run = bench(&p, &p.resolution(&p.base), &long, "bash bench.sh {out}").run();
    run.assert_code(0);
    let out = run.outputs();
    let current = long.join("current.csv").display().to_string();
    assert!(current.len() > 100, "{current}");
    assert_eq!(out["current"], current);
    assert_eq!(
        out["baseline"],
        long.join("baseline.csv").display().to_string()
    );
    let json: serde_json::Value = serde_json::from_str(&out["json"]).unwrap();
    assert_eq!(json["current"]["path"], current.as_str());
    // The guide's compare reads these two (one run a side: not the rounds').
    assert_eq!(out["current-files"], current);
    assert_eq!(out["compare-baseline"], format!("main={}", out["baseline"]));
    let compare = Bin::new()
        .args(["compare", "--current", &out["current-files"]])
        .args(["--baseline", &out["compare-baseline"]])
        .run();
    assert_eq!(compare.code, 0, "{}\n{}", compare.stdout, compare.stderr);
}

/// Break 10: a harness that is not there writes no file; the warning says
/// so instead of "the 0 rows it wrote are kept".
#[test]
fn a_missing_harness_is_said_to_have_written_no_rows() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("101", "gemm"));
    let out = p.root.path().join("results");
    let run = bench(&p, &p.resolution(&p.base), &out, "./no-such-harness {out}")
        .args(["--side", "current"])
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["current-status"], "failed");
    assert!(
        run.stdout.contains("exited with status 127 after")
            && run
                .stdout
                .contains("it wrote no rows, so compare has nothing of this side to judge"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("0 rows it wrote"), "{}", run.stdout);
}

/// Results files with one `op,shape,dtype,tflops` row each (`gemm`).
pub fn one_row(dir: &std::path::Path, name: &str, value: &str) -> String {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("op,shape,dtype,tflops\ngemm,4096,bf16,{value}\n"),
    )
    .unwrap();
    path.display().to_string()
}

/// Break 4: examples/workflows/release-baseline.yml compares against the
/// release only, labelled with the tag, beside the resolution (labelled
/// `main`, naming that tag): the verdict is the comparison's, never
/// "the resolution is for the label main, which no --baseline names".
#[test]
fn the_release_examples_compare_gives_the_releases_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let example = std::fs::read_to_string(
        crate::support::harness::repo_root().join("examples/workflows/release-baseline.yml"),
    )
    .unwrap();
    assert!(example.contains("baseline: ${{ steps.baseline.outputs.tag || 'release' }}="));
    let resolution = r#"{"label":"main","base_sha":"1111111111111111111111111111111111111111","base_available":true,"tag":"v0.3.1","tag_sha":"2222222222222222222222222222222222222222"}"#;
    let (run, json) = Bin::new()
        .args(["compare", "--no-gate"])
        .args(["--current", &one_row(dir.path(), "current.csv", "80")])
        .args([
            "--baseline",
            &format!("v0.3.1={}", one_row(dir.path(), "tag.csv", "100")),
        ])
        .args(["--resolution", resolution])
        .json();
    assert_eq!(json["verdict"], "regression", "{}", run.stdout);
    assert!(!run.stdout.contains("which no --baseline names"));
}

/// Break 8: docs/migrating.md's compare block names the release as
/// `${{ needs.resolve.outputs.tag || 'release' }}=${{ steps.bench-tag.outputs.baseline }}`;
/// when that step was skipped it reads `release=`. The main comparison
/// still gates; the release is unavailable with a warning.
#[test]
fn an_empty_release_baseline_leaves_the_main_comparison_standing() {
    let dir = tempfile::tempdir().unwrap();
    let (run, json) = Bin::new()
        .args([
            "compare",
            "--current",
            &one_row(dir.path(), "current.csv", "80"),
        ])
        .args([
            "--baseline",
            &format!("main={}", one_row(dir.path(), "main.csv", "100")),
        ])
        .args(["--baseline", "release="])
        .json_code(4);
    assert_eq!(json["verdict"], "regression", "{}", run.stderr);
    assert_eq!(json["baselines"][1]["label"], "release");
    assert_eq!(json["baselines"][1]["available"], false);
    assert!(
        json["warnings"][0]
            .as_str()
            .unwrap()
            .contains("baseline release unavailable: no file given"),
        "{json}"
    );
}

/// Break 11: the re-run hint names the rows to run again and nothing else:
/// no other project's harness or flag, also for an allreduce-shaped CSV
/// with other keys.
#[test]
fn the_rerun_hint_names_rows_not_a_harness() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("allreduce.toml");
    std::fs::write(
        &config,
        "keys = [\"rank\", \"shape\", \"dtype\"]\n[[metrics]]\ncolumn = \"avg_time_us\"\nunit = \"us\"\ndirection = \"lower\"\n",
    )
    .unwrap();
    let file = |name: &str, us: &str| {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            format!("rank,shape,dtype,avg_time_us\naggregate,\"(2, 7168)\",fp16,{us}\n"),
        )
        .unwrap();
        path.display().to_string()
    };
    let run = Bin::new()
        .args(["compare", "--format", "text", "--config"])
        .arg(&config)
        .args(["--current", &file("current.csv", "120")])
        .args(["--baseline", &format!("main={}", file("main.csv", "100"))])
        .run();
    assert_eq!(run.code, 4, "{}\n{}", run.stdout, run.stderr);
    let hint = run
        .stdout
        .lines()
        .find(|l| l.starts_with("rerun: "))
        .unwrap();
    assert_eq!(
        hint,
        "rerun: aggregate (a re-run could change the verdict of the rows with this rank)"
    );
    assert!(!run.stdout.contains("run_benchmark.sh"), "{}", run.stdout);
}

/// A repository shaped like the seed's: the harness of
/// `tests/fixtures/flydsl` at `scripts/run_benchmark.sh`, a base commit
/// and a head commit whose benchmarks measure `base` and `head` TFLOPS.
/// Returns it and the base commit.
pub fn flydsl_repo(base: &str, head: &str) -> (tempfile::TempDir, String) {
    flydsl_repo_with(&[("value", base)], &[("value", head)])
}

/// The same with more files in each commit (`ops`: the suite, one op a
/// word; `crash-after`; `fail`).
pub fn flydsl_repo_with(
    base: &[(&str, &str)],
    head: &[(&str, &str)],
) -> (tempfile::TempDir, String) {
    use crate::support::gitrepo::{commit_all, git};
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    std::fs::create_dir(work.join("scripts")).unwrap();
    let harness =
        crate::support::harness::repo_root().join("tests/fixtures/flydsl/run_benchmark.sh");
    crate::support::harness::write_executable(
        &work.join("scripts/run_benchmark.sh"),
        &std::fs::read_to_string(harness).unwrap(),
    );
    git(work, &["init", "-q", "-b", "main"]);
    let write = |files: &[(&str, &str)]| {
        for name in ["crash-after", "fail"] {
            let _ = std::fs::remove_file(work.join(name));
        }
        for (name, text) in files {
            std::fs::write(work.join(name), text).unwrap();
        }
    };
    write(base);
    let base_sha = commit_all(work, "base");
    write(head);
    commit_all(work, "head");
    (dir, base_sha)
}

/// `bench` on a runner in a [`flydsl_repo`] checkout `dir` (the base
/// commit `base`), results in `dir/results`, the harness with
/// `--output_csv {out}`; `extra` flags after.
pub fn bench_flydsl(
    dir: &std::path::Path,
    base: &str,
    extra: &[&str],
) -> crate::support::harness::Run {
    let resolution = format!(r#"{{"label":"main","base_sha":"{base}","base_available":true}}"#);
    Bin::new()
        .on_runner()
        .env("GITHUB_WORKSPACE", dir)
        .env("RUNNER_TEMP", dir)
        .args(["bench", "--resolution", &resolution])
        .args(["--command", "./scripts/run_benchmark.sh --output_csv {out}"])
        .arg("--out-dir")
        .arg(dir.join("results"))
        .args(extra)
        .run()
}

/// A shell block run as written in `dir`, with this build of
/// `baseline-resolver` first on PATH.
pub fn shell(dir: &std::path::Path, script: &str) -> std::process::Output {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_baseline-resolver"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap()
    );
    std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_OUTPUT")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_WORKSPACE")
        .output()
        .unwrap()
}

/// Break 6: `bench --help`'s examples that run `./run_benchmark.sh`, run as
/// written against the seed-shaped harness (whose `--only` takes the next
/// word, whatever it is), for a whole-suite run and for a selection: every
/// side runs its benchmarks.
#[test]
fn the_bench_help_examples_run_the_seeds_harness_on_the_whole_suite_and_a_selection() {
    let help = Bin::new().args(["bench", "--help"]).run();
    let examples = help
        .stdout
        .split("Examples:\n")
        .nth(1)
        .unwrap()
        .split("\nHow it runs:")
        .next()
        .unwrap()
        .to_owned();
    let blocks: Vec<String> = examples
        .split("\n\n")
        .map(|b| {
            b.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|b| b.contains("./run_benchmark.sh"))
        .collect();
    assert_eq!(blocks.len(), 3, "{examples}");
    for (selection, rows) in [
        (r#"{"selection":"all","groups":[]}"#, 2),
        (r#"{"selection":"some","groups":["gemm"]}"#, 1),
    ] {
        for block in &blocks {
            let (repo, base) = flydsl_repo("100", "90");
            let dir = repo.path();
            std::fs::write(
                dir.join("resolution.json"),
                format!(r#"{{"label":"main","base_sha":"{base}","base_available":true}}"#),
            )
            .unwrap();
            std::fs::write(dir.join("selection.json"), selection).unwrap();
            // The paired example's config: the defaults (the seed's keys and metrics).
            std::fs::write(dir.join("baseline-resolver.toml"), "").unwrap();
            let script = format!(
                "cd scripts && cd .. && {} --format json",
                block.replace("./run_benchmark.sh", "./scripts/run_benchmark.sh")
            );
            let run = shell(dir, &script);
            let stdout = String::from_utf8_lossy(&run.stdout);
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(run.status.success(), "{block}\n{stdout}\n{stderr}");
            let json: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
            for side in ["current", "baseline"] {
                assert_eq!(
                    (json[side]["status"].as_str(), json[side]["rows"].as_u64()),
                    (
                        Some("ok"),
                        Some(if block.contains("--selection") {
                            rows
                        } else {
                            2
                        })
                    ),
                    "{side} of {block} with {selection}:\n{stderr}"
                );
            }
        }
    }
}

/// The block after `<!-- marker -->` in a docs page: its language and text.
pub fn marked_block(page: &str, marker: &str) -> (String, String) {
    let root = crate::support::harness::repo_root();
    let block = crate::support::blocks::of_page(&root, page)
        .into_iter()
        .find(|b| b.markers.iter().any(|m| m == marker))
        .unwrap_or_else(|| panic!("{page} has no block marked {marker}"));
    (block.lang, block.text.trim_end_matches('\n').to_owned())
}

/// test_allreduce.py's CSV: a row per rank and the aggregate, per shape.
pub fn allreduce_csv(aggregate_us: f64) -> String {
    let mut text = "rank,shape,dtype,world_size,mode,max_error,avg_time_us,min_avg_time_us,max_avg_time_us,device_time_sum_us,kernel_name,num_iters,num_warmup,acc_res\n".to_owned();
    for (shape, dtype) in [("(2, 7168)", "fp16"), ("(4096, 8192)", "bf16")] {
        text.push_str(&format!(
            "aggregate,\"{shape}\",{dtype},8,cudagraph,0.0,{aggregate_us},{aggregate_us},{aggregate_us},1.0,ar,51,5,pass\n"
        ));
        for rank in 0..8 {
            text.push_str(&format!(
                "{rank},\"{shape}\",{dtype},8,cudagraph,0.0,{aggregate_us},{aggregate_us},{aggregate_us},1.0,ar,51,5,\n"
            ));
        }
    }
    text
}

/// Break 3: docs/migrating.md's `migrate:multi` job reads the allreduce
/// CSV with the inputs the page gives its bench step (its keys, metric,
/// ignored rows, threshold and floor; no config file); its compare step,
/// given bench's manifest alone, judges every round by them and gates the
/// aggregate rows as compare_allreduce_benchmark.py did.
#[test]
fn the_migration_guides_allreduce_compare_reads_its_csv() {
    let (_, block) = marked_block("docs/migrating.md", "migrate:multi");
    let steps: Vec<serde_yaml_ng::Value> = serde_yaml_ng::from_str(&block).unwrap();
    let judge = |current: f64, main: f64, code: i32| {
        let (repo, base) = flydsl_repo_with(
            &[("ar.csv", &allreduce_csv(main))],
            &[("ar.csv", &allreduce_csv(current))],
        );
        let dir = repo.path();
        let mut bench = Bin::new()
            .on_runner()
            .env("GITHUB_WORKSPACE", dir)
            .env("RUNNER_TEMP", dir);
        // The bench step's column inputs, as the runner passes `with:`.
        for key in ["keys", "metric", "ignore", "fail-threshold", "floor"] {
            let v = match &steps[0]["with"][key] {
                serde_yaml_ng::Value::Number(n) => n.to_string(),
                v => v.as_str().unwrap().to_owned(),
            };
            bench = bench.env(
                &format!("INPUT_{}", key.to_uppercase().replace('-', "_")),
                &v,
            );
        }
        let resolution = format!(r#"{{"label":"main","base_sha":"{base}","base_available":true}}"#);
        let run = bench
            .args([
                "bench",
                "--resolution",
                &resolution,
                "--command",
                "cp ar.csv {out}",
            ])
            .arg("--out-dir")
            .arg(dir.join("results"))
            .run();
        run.assert_code(0);
        let with = steps[1]["with"].as_mapping().unwrap();
        assert_eq!(
            with.len(),
            1,
            "compare is given the manifest alone: {with:?}"
        );
        assert_eq!(
            with["manifest"].as_str(),
            Some("${{ steps.bench.outputs.manifest }}")
        );
        Bin::new()
            .env("INPUT_MANIFEST", &run.outputs()["manifest"])
            .args(["compare"])
            .json_code(code)
            .1
    };
    let json = judge(130.0, 100.0, 4);
    let counts = &json["baselines"][0]["counts"];
    assert_eq!(json["verdict"], "regression", "{json}");
    assert_eq!(
        (counts["regressed"].as_u64(), counts["ignored"].as_u64()),
        (Some(2), Some(16))
    );
    assert_eq!(
        json["baselines"][0]["rows"][0]["rounds"], 3,
        "every round read: {json}"
    );
    // 100 to 105 us is 5%: no change.
    assert_eq!(judge(105.0, 100.0, 0)["verdict"], "pass");
    // 20 to 28 us is 40% but 8 us: under the floor, no change.
    assert_eq!(judge(28.0, 20.0, 0)["verdict"], "pass");
}

/// `--setup-command` runs once per side in its tree, before the harness,
/// with `{side}`, `{tree}`, `{sha}` and `{label}`; a setup that fails
/// fails its side with a warning and its harness never runs.
#[test]
fn the_setup_command_runs_once_per_side_before_its_harness() {
    let (repo, base) = flydsl_repo("100", "90");
    let dir = repo.path();
    let resolution = format!(r#"{{"label":"main","base_sha":"{base}","base_available":true}}"#);
    let setup = "echo {side} {label} {sha} >> setup.txt; echo set up {side} in {tree}; [ {side} = current ]";
    let run = Bin::new()
        .on_runner()
        .env("GITHUB_WORKSPACE", dir)
        .env("RUNNER_TEMP", dir)
        .args(["bench", "--resolution", &resolution])
        .args([
            "--command",
            "cat setup.txt > {out}.setup; ./scripts/run_benchmark.sh --output_csv {out}",
        ])
        .args(["--setup-command", setup])
        .arg("--out-dir")
        .arg(dir.join("results"))
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(
        (out["current-status"].as_str(), out["current-rows"].as_str()),
        ("ok", "2")
    );
    let head = crate::support::gitrepo::git(dir, &["rev-parse", "HEAD"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("results/current.csv.setup")).unwrap(),
        format!("current current {}\n", head.trim()),
        "the setup ran once, before the harness, in the checkout"
    );
    assert!(run.stderr.contains(&format!(
        "[current setup] set up current in {}",
        dir.display()
    )));
    assert!(run.stderr.contains("[baseline setup] set up baseline in"));
    assert_eq!(out["baseline-status"], "failed");
    assert_eq!(out["baseline-rows"], "");
    assert!(
        run.stdout.contains(
            "the baseline side's setup command exited with status 1: its harness was not run"
        ),
        "{}",
        run.stdout
    );
    assert!(!dir.join("results/baseline.csv").exists());
}
