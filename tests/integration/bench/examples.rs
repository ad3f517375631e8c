//! Issue 32: the rewritten example workflows, run as the runner runs them
//! (the composite steps through bash and the launcher, the `with:` values
//! evaluated from the jobs before): resolve's answer into `bench`, bench's
//! outputs into `compare`, on a real git project whose checkout lacks the
//! base commit.

use std::collections::BTreeMap;

use serde_yaml_ng::Value;

use crate::action::{StepRun, action_dir, run_step_of};
use crate::bench::{Project, Tree};
use crate::support::gitrepo::commit_all;
use crate::support::harness::repo_root;

fn job_steps(example: &str, job: &str) -> Vec<Value> {
    let text =
        std::fs::read_to_string(repo_root().join("examples/workflows").join(example)).unwrap();
    let doc: Value = serde_yaml_ng::from_str(&text).unwrap();
    doc["jobs"][job]["steps"].as_sequence().unwrap().clone()
}

/// The step that uses baseline-resolver's `action` (`bench`, `compare`).
fn step<'a>(steps: &'a [Value], action: &str) -> &'a Value {
    steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with(&format!("OWNER/baseline-resolver/{action}@")))
        })
        .unwrap_or_else(|| panic!("no {action} step"))
}

/// The contexts `known` names (`needs.resolve.outputs.json` and the like),
/// for the runner's expressions ([`crate::support::expr`]); a context it
/// does not name fails the test (the example must stay this simple).
struct Known<'a>(&'a BTreeMap<&'a str, String>);

impl crate::support::expr::Host for Known<'_> {
    fn context(&self, name: &str) -> serde_json::Value {
        let mut root = serde_json::json!({});
        let mut any = false;
        for (key, value) in self.0 {
            let Some(rest) = key.strip_prefix(name).and_then(|r| r.strip_prefix('.')) else {
                continue;
            };
            any = true;
            let mut at = &mut root;
            let parts: Vec<&str> = rest.split('.').collect();
            for part in &parts[..parts.len() - 1] {
                at = at
                    .as_object_mut()
                    .unwrap()
                    .entry(part.to_string())
                    .or_insert_with(|| serde_json::json!({}));
            }
            at[parts[parts.len() - 1]] = serde_json::Value::String(value.clone());
        }
        assert!(
            any,
            "the example reads the context {name}, which the test does not set"
        );
        root
    }

    fn failed(&self) -> bool {
        false
    }

    fn hash_files(&self, _: &[String]) -> String {
        String::new()
    }
}

/// `with:` evaluated as the runner does, from `known`.
fn with(step: &Value, known: &BTreeMap<&str, String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (key, value) in step["with"].as_mapping().unwrap() {
        let text = value
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| serde_yaml_ng::to_string(value).unwrap().trim().to_owned());
        let text = crate::support::expr::interpolate(&text, &Known(known)).unwrap();
        out.push((key.as_str().unwrap().to_owned(), text));
    }
    out
}

fn run(action: &str, dir: &std::path::Path, p: &Project, inputs: &[(String, String)]) -> StepRun {
    let event = p.root.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let pairs: Vec<(&str, &str)> = inputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let workspace = p.checkout.display().to_string();
    run_step_of(
        &format!("{action}/action.yml"),
        dir,
        &event,
        "pull_request",
        &pairs,
        &[
            ("GITHUB_WORKSPACE", &workspace),
            ("RUNNER_TEMP", &p.root.path().display().to_string()),
        ],
    )
}

#[test]
fn the_fork_safe_examples_bench_and_compare_steps_gate_a_real_regression() {
    // The change is 20% slower than the base commit, which the checkout lacks.
    let p = Project::new(
        &Tree {
            value: "100",
            mode: "ok",
            groups: "gemm softmax",
        },
        &Tree {
            value: "80",
            mode: "ok",
            groups: "gemm softmax",
        },
    );
    let dir = action_dir();
    let steps = job_steps("fork-safe-benchmark.yml", "benchmark");
    let mut known = BTreeMap::from([
        ("needs.resolve.outputs.json", p.resolution(&p.base)),
        ("needs.resolve.outputs.label", "main".to_owned()),
    ]);
    let bench = run(
        "bench",
        dir.path(),
        &p,
        &with(step(&steps, "bench"), &known),
    );
    assert_eq!(bench.code, 0, "{}\n{}", bench.stdout, bench.stderr);
    assert_eq!(bench.outputs["baseline-source"], "ran");
    assert_eq!(bench.outputs["baseline-rows"], "2");
    assert_eq!(p.worktrees(), 1, "the worktree is gone");
    for name in ["current-files", "compare-baseline"] {
        known.insert(
            if name == "current-files" {
                "steps.bench.outputs.current-files"
            } else {
                "steps.bench.outputs.compare-baseline"
            },
            bench.outputs[name].clone(),
        );
    }
    let compare = run(
        "compare",
        dir.path(),
        &p,
        &with(step(&steps, "compare"), &known),
    );
    assert_eq!(
        compare.code, 4,
        "a 20% regression fails: {}\n{}",
        compare.stdout, compare.stderr
    );
    assert_eq!(compare.outputs["verdict"], "regression");
    assert_eq!(compare.outputs["regressed"], "2");
}

#[test]
fn the_focused_examples_bench_step_runs_the_groups_each_tree_knows() {
    let p = Project::new(
        &Tree {
            value: "100",
            mode: "ok",
            groups: "gemm softmax",
        },
        &Tree {
            value: "100",
            mode: "ok",
            groups: "gemm softmax softmax_bwd",
        },
    );
    // The example's bench.toml: its [select] groups, which bench checks
    // the selection against and re-runs undecided rows by.
    let groups: String = ["gemm", "softmax", "softmax_bwd"]
        .iter()
        .map(|g| {
            format!(
                "[[select.groups]]\nname = \"{g}\"\npaths = [\"{g}/**\"]\nrows = [\"op={g}\"]\n\n"
            )
        })
        .collect();
    std::fs::write(
        p.checkout.join("bench.toml"),
        format!("keys = [\"op\", \"shape\", \"dtype\"]\n\n[[metrics]]\ncolumn = \"tflops\"\nunit = \"TFLOPS\"\n\n[select]\nall = [\"bench.sh\"]\n\n{groups}"),
    )
    .unwrap();
    let dir = action_dir();
    let steps = job_steps("focused-benchmarks.yml", "benchmark");
    let known = BTreeMap::from([
        ("needs.select.outputs.resolution", p.resolution(&p.base)),
        (
            "needs.select.outputs.selection-json",
            r#"{"selection":"some","groups":["gemm","softmax_bwd"]}"#.to_owned(),
        ),
    ]);
    let bench = run(
        "bench",
        dir.path(),
        &p,
        &with(step(&steps, "bench"), &known),
    );
    assert_eq!(bench.code, 0, "{}\n{}", bench.stdout, bench.stderr);
    assert_eq!(
        (
            bench.outputs["current-rows"].as_str(),
            bench.outputs["baseline-rows"].as_str()
        ),
        ("2", "1")
    );
    assert!(
        bench.stdout.contains("does not know softmax_bwd"),
        "{}",
        bench.stdout
    );
}

/// examples/workflows/release-baseline.yml's bench step, the release's
/// results not downloaded: the release's tree gets the released package
/// from its setup command, once, before its harness; the change's side
/// installs nothing; the harness command installs nothing either.
#[test]
fn the_release_examples_setup_installs_the_released_package_once() {
    let p = Project::new(
        &crate::bench::quiet("100", "gemm"),
        &crate::bench::quiet("90", "gemm"),
    );
    let steps = job_steps("release-baseline.yml", "benchmark-vs-release");
    let bench_step = step(&steps, "bench");
    let command = bench_step["with"]["command"].as_str().unwrap();
    assert!(
        !command.contains("pip") && !command.contains("{side}"),
        "{command}"
    );
    // pip as the runner's python3 -m pip: it notes what it was asked.
    let bin = p.root.path().join("pip-bin");
    let asked = p.root.path().join("pip-asked");
    crate::support::seed::executable(
        &bin.join("python3"),
        &format!(
            "#!/bin/bash\n[ \"$1 $2\" = '-m pip' ] && echo \"$PWD ${{*:3}}\" >> {}\n",
            asked.display()
        ),
    );
    let resolution = format!(
        r#"{{"label":"main","base_sha":"{0}","base_available":true,"tag":"v0.3.1","tag_sha":"{0}","tag_available":true}}"#,
        p.base
    );
    let known = BTreeMap::from([
        ("steps.baseline.outputs.json", resolution),
        ("github.event_name", "pull_request".to_owned()),
    ]);
    let inputs = with(bench_step, &known);
    let pairs: Vec<(&str, &str)> = inputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let event = p.root.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let run = run_step_of(
        "bench/action.yml",
        action_dir().path(),
        &event,
        "pull_request",
        &pairs,
        &[
            ("GITHUB_WORKSPACE", &p.checkout.display().to_string()),
            ("RUNNER_TEMP", &p.root.path().display().to_string()),
            ("PATH", &path),
        ],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.outputs["baseline-status"], "ok", "{}", run.stdout);
    let asked = std::fs::read_to_string(&asked).unwrap_or_default();
    let lines: Vec<&str> = asked.lines().collect();
    assert_eq!(lines.len(), 1, "once, on the release's side: {asked}");
    assert!(
        lines[0].ends_with("install --quiet yourpkg==v0.3.1")
            && !lines[0].starts_with(&p.checkout.display().to_string()),
        "in the release's tree, not the checkout: {asked}"
    );
}

/// docs/migrating.md's `bench` command for the seed's containerised
/// harness, run with `docker` played by a shim that runs the script on the
/// host with `/flydsl-test` at the volume's host path and the container's
/// `/tmp` a directory of the test's: the harness fails after writing two
/// rows, the rows it wrote are kept on both sides, the baseline side
/// installs the base wheel first, the guide's `failure-command` prints
/// each failing side's per-benchmark log from the container's `/tmp` into
/// the job's log, and no pid file is left in the container.
#[test]
fn the_migration_guides_container_command_keeps_a_failing_harnesss_rows() {
    let root = tempfile::tempdir().unwrap();
    let (checkout, base) = flydsl_checkout(root.path());
    let bin_dir = docker_shim(root.path(), &checkout);
    let tmp = root.path().join("container-tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // The container's /tmp: every `/tmp/` docker exec is handed, here.
    let seed_shim = bin_dir.join("docker-seed");
    std::fs::rename(bin_dir.join("docker"), &seed_shim).unwrap();
    crate::support::seed::executable(
        &bin_dir.join("docker"),
        &format!(
            "#!/bin/bash\nargs=()\nfor a in \"$@\"; do args+=(\"${{a//\\/tmp\\//{}/}}\"); done\nexec {} \"${{args[@]}}\"\n",
            tmp.display(),
            seed_shim.display()
        ),
    );

    let guide = std::fs::read_to_string(repo_root().join("docs/migrating.md")).unwrap();
    let block = guide
        .split("<!-- migrate:single -->\n```yaml\n")
        .nth(1)
        .unwrap();
    let steps: Vec<Value> = serde_yaml_ng::from_str(block.split("\n```").next().unwrap()).unwrap();
    let with = &steps[0]["with"];
    let arg = |k: &str| with[k].as_str().unwrap().to_owned();
    let resolution = format!(r#"{{"label":"main","base_sha":"{base}","base_available":true}}"#);
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let run = crate::support::harness::Bin::new()
        .env("PATH", path)
        .env("GITHUB_WORKSPACE", root.path())
        .env("ROCM_PATH", "/opt/rocm")
        .in_dir(root.path())
        .args(["bench", "--resolution", &resolution, "--format", "json"])
        .args(["--volume", &arg("volume")])
        .args(["--container", &arg("container")])
        .args(["--container-env", &arg("container-env")])
        .args(["--command", &arg("command")])
        .args(["--setup-command", &arg("setup-command")])
        .args(["--failure-command", &arg("failure-command")])
        .run();
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    for (side, label) in [("current", "current"), ("baseline", "main")] {
        assert!(
            run.stderr.contains(&format!(
                "[{side} failure] ImportError: cannot import name 'hk_mla_decode_fwd' ({label})"
            )),
            "the failing side's log from the container's /tmp: {}",
            run.stderr
        );
    }
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pid"))
        .collect();
    assert!(left.is_empty(), "pid files left in the container: {left:?}");
    let j: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    for side in ["current", "baseline"] {
        assert_eq!(j[side]["status"], "failed", "{j}");
        assert_eq!(j[side]["exit_code"], 1);
        assert_eq!(
            j[side]["rows"], 2,
            "the rows before the failure are kept: {j}"
        );
    }
    assert!(
        run.stderr
            .contains("[baseline setup] installed the base wheel in"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("[current setup] installed"),
        "only the baseline installs the base wheel"
    );
}

/// A checkout of the migration guide's harness (`flydsl-test`): a benchmark
/// script that writes two rows to its `--output_csv` (it needs `ROCM_PATH`
/// passed into the container) and exits 1, and the base wheel's
/// installer; two commits. Returns it and the base commit.
fn flydsl_checkout(root: &std::path::Path) -> (std::path::PathBuf, String) {
    let checkout = root.join("flydsl-test");
    std::fs::create_dir_all(checkout.join("scripts")).unwrap();
    std::fs::create_dir_all(checkout.join(".github/scripts")).unwrap();
    let files = [(
        "scripts/run_benchmark.sh",
        "[ \"$1\" = --output_csv ] || exit 2\n[ -n \"$ROCM_PATH\" ] || exit 3\n[ -z \"$BENCH_LOG_DIR\" ] || { mkdir -p \"$BENCH_LOG_DIR\"; echo \"ImportError: cannot import name 'hk_mla_decode_fwd' (${BENCH_LOG_DIR##*_})\" > \"$BENCH_LOG_DIR/mla_decode_B1_C4096.log\"; }\necho op,shape,dtype,tflops > \"$2\"\nfor r in 'softmax 32768x8192 bf16 3.9' 'gemm 4096x4096 bf16 100.0'; do\n  echo \"$r\"; set -- \"$1\" \"$2\" $r; echo \"$3,$4,$5,$6\" >> \"$2\"\ndone\nexit 1\n",
    )];
    crate::support::harness::write_executable(
        &checkout.join(".github/scripts/install-base-wheel.sh"),
        "#!/bin/bash\n[ \"$1\" = baseline ] || exit 0\necho installed the base wheel in \"$PWD\"\n",
    );
    for (path, text) in files {
        std::fs::write(checkout.join(path), text).unwrap();
    }
    crate::support::gitrepo::git(&checkout, &["init", "-q", "-b", "main"]);
    let base = commit_all(&checkout, "base");
    std::fs::write(checkout.join("README"), "x").unwrap();
    commit_all(&checkout, "head");
    (checkout, base)
}

/// The seed fixture's `docker` ([`crate::support::seed::docker_shim`]) on
/// PATH (in `root/bin`): `docker exec ... NAME bash -c SCRIPT` with
/// `/flydsl-test` the workspace's `flydsl-test`, which is `checkout`.
fn docker_shim(root: &std::path::Path, checkout: &std::path::Path) -> std::path::PathBuf {
    assert_eq!(checkout, root.join("flydsl-test"));
    let bin_dir = root.join("bin");
    let container = root.join("container-bin");
    std::fs::create_dir_all(&container).unwrap();
    crate::support::seed::executable(
        &bin_dir.join("docker"),
        &crate::support::seed::docker_shim(&container),
    );
    bin_dir
}

/// The guide's base-wheel installer (docs/migrating.md, `migrate:script`)
/// in paired rounds: the sides alternate on one machine, so the base wheel
/// must go into the baseline's tree (where the harness looks first), never
/// into the Python both sides import from, or the change's side measures
/// the base wheel from its second round on. A stand-in `pip` installs into
/// `--target`, else into a shared "site-packages"; the harness reports the
/// wheel it imports.
#[test]
fn the_guides_base_wheel_stays_in_the_baselines_tree_through_paired_rounds() {
    let root = tempfile::tempdir().unwrap();
    let (_, base) = flydsl_checkout(root.path());
    let (site, wheels, bin) = (
        root.path().join("site"),
        root.path().join("wheels"),
        root.path().join("bin"),
    );
    std::fs::create_dir_all(site.join("flydsl")).unwrap();
    std::fs::write(site.join("flydsl/VERSION"), "pr").unwrap();
    base_wheels(&wheels);
    let python = "#!/bin/bash\n[ \"$1 $2\" = '-m pip' ] || exit 99\n\
        dest=$SITE; for a in \"$@\"; do [ \"$prev\" = --target ] && dest=$a; prev=$a; done\n\
        mkdir -p \"$dest/flydsl\" && cat \"${@: -1}\" > \"$dest/flydsl/VERSION\"\n";
    crate::support::seed::executable(&bin.join("python3"), python);
    let guide = std::fs::read_to_string(repo_root().join("docs/migrating.md")).unwrap();
    let script = guide
        .split("<!-- migrate:script -->\n```bash\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .unwrap()
        .replace("/flydsl-ci-wheels", &wheels.display().to_string());
    let installer = root.path().join("install-base-wheel.sh");
    crate::support::seed::executable(&installer, &script);
    let harness = "v=$(cat build-fly/python_packages/flydsl/VERSION 2>/dev/null || cat \"$SITE/flydsl/VERSION\"); \
        printf 'op,shape,dtype,tflops\\nsoftmax,1x1,bf16,%s\\n' \"$([ \"$v\" = pr ] && echo 90 || echo 100)\" > {out}";
    let resolution = format!(r#"{{"label":"main","base_sha":"{base}","base_available":true}}"#);
    let run = crate::support::harness::Bin::new()
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("SITE", &site)
        .env("GITHUB_WORKSPACE", root.path())
        .in_dir(root.path())
        .args(["bench", "--resolution", &resolution, "--format", "json"])
        .args(["--repository", "flydsl-test", "--out-dir", "results"])
        .args(["--rounds", "3", "--max-rounds", "3", "--seed", "7"])
        .args(["--command", harness])
        .args([
            "--setup-command",
            &format!("{} {{side}}", installer.display()),
        ])
        .run();
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    for round in 1..=3 {
        for (side, value) in [("current", "90"), ("baseline", "100")] {
            let file = root.path().join(format!("results/{side}-{round}.csv"));
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(
                text.ends_with(&format!(",{value}\n")),
                "round {round}, {side}: {text}"
            );
        }
    }
}

/// The guide's allreduce step (docs/migrating.md, `migrate:multi`) through
/// the container: the test script is newer than the base commit and
/// imports the kernels of the tree it lies in, so the installer copies the
/// change's copy into the baseline's tree and each side runs its own
/// tree's kernels (the base's measure 100, the change's 90). Running the
/// change's copy where it lies measured the change's kernels on both sides.
#[test]
fn the_guides_allreduce_step_measures_each_sides_own_kernels() {
    let root = tempfile::tempdir().unwrap();
    let checkout = root.path().join("flydsl-test");
    let git = |args: &[&str]| crate::support::gitrepo::git(&checkout, args);
    std::fs::create_dir_all(checkout.join("kernels")).unwrap();
    std::fs::write(checkout.join("kernels/value"), "100").unwrap();
    git(&["init", "-q", "-b", "main"]);
    let base = commit_all(&checkout, "base: no allreduce test yet");
    let wheels = root.path().join("wheels");
    base_wheels(&wheels);
    let guide = std::fs::read_to_string(repo_root().join("docs/migrating.md")).unwrap();
    let block = |name: &str| {
        guide
            .split(&format!("<!-- migrate:{name} -->\n"))
            .nth(1)
            .and_then(|b| b.split_once('\n'))
            .and_then(|(_, b)| b.split("\n```").next())
            .unwrap()
            .to_owned()
    };
    let installer = block("script")
        .replace("/flydsl-ci-wheels", &wheels.display().to_string())
        .replace("/flydsl-test", &checkout.display().to_string());
    crate::support::seed::executable(
        &checkout.join(".github/scripts/install-base-wheel.sh"),
        &installer,
    );
    std::fs::create_dir_all(checkout.join("tests/kernels")).unwrap();
    std::fs::write(
        checkout.join("tests/kernels/test_allreduce.py"),
        "import argparse, pathlib\np = argparse.ArgumentParser()\np.add_argument('--output_csv')\n\
         a, _ = p.parse_known_args()\nv = (pathlib.Path(__file__).resolve().parents[2] / 'kernels/value').read_text().strip()\n\
         open(a.output_csv, 'w').write(f'rank,shape,dtype,avg_time_us\\naggregate,2x7168,fp16,{v}\\n')\n",
    )
    .unwrap();
    std::fs::write(checkout.join("kernels/value"), "90").unwrap();
    commit_all(&checkout, "head: the allreduce test, faster kernels");
    let bin_dir = docker_shim(root.path(), &checkout);
    let python = String::from_utf8(
        std::process::Command::new("bash")
            .args(["-c", "command -v python3"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    crate::support::seed::executable(
        &root.path().join("container-bin/python3"),
        &format!(
            "#!/bin/bash\n[ \"$1 $2\" = '-m pip' ] && {{ echo \"pip (a stand-in): ${{*:3}}\"; exit 0; }}\nexec {} \"$@\"\n",
            python.trim()
        ),
    );
    let steps: Vec<Value> = serde_yaml_ng::from_str(&block("multi")).unwrap();
    let with = &steps[0]["with"];
    let arg = |k: &str| with[k].as_str().unwrap().to_owned();
    let resolution = format!(r#"{{"label":"main","base_sha":"{base}","base_available":true}}"#);
    let run = crate::support::harness::Bin::new()
        .env(
            "PATH",
            format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap()),
        )
        .env("GITHUB_WORKSPACE", root.path())
        .env("ROCM_PATH", "/opt/rocm")
        .in_dir(root.path())
        .args(["bench", "--resolution", &resolution, "--format", "json"])
        .args(["--rounds", "2", "--max-rounds", "2", "--seed", "3"])
        .args(["--volume", &arg("volume"), "--container", &arg("container")])
        .args(["--container-env", &arg("container-env")])
        .args(["--command", &arg("command")])
        .args(["--setup-command", &arg("setup-command")])
        .run();
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    for round in 1..=2 {
        for (side, value) in [("current", "90"), ("baseline", "100")] {
            let file = checkout.join(format!("bench-results/{side}-{round}.csv"));
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{side}-{round}: {e}\n{}", run.stderr));
            assert!(
                text.ends_with(&format!(",{value}\n")),
                "round {round}, {side}: {text}"
            );
        }
    }
}

/// The build job's `base/` wheel directory as the guide's installer reads
/// it: a wheel whose content is `base`, fly-opt, and their SHA256SUMS.
fn base_wheels(wheels: &std::path::Path) {
    let base = wheels.join("base");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::write(base.join("flydsl-0.1-base.whl"), "base").unwrap();
    std::fs::write(base.join("fly-opt"), "#!/bin/sh\n").unwrap();
    let sums = std::process::Command::new("sha256sum")
        .args(["flydsl-0.1-base.whl", "fly-opt"])
        .current_dir(&base)
        .output()
        .unwrap();
    std::fs::write(base.join("SHA256SUMS"), sums.stdout).unwrap();
}
