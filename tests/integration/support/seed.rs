//! A project shaped like the seed's (ROCm/FlyDSL's benchmark workflow), for
//! the docs and examples to run against: the harness of
//! `tests/fixtures/flydsl` (`--list`, `--only`, a results table on stdout,
//! `--output_csv`), the script that turns its printed table into the CSV,
//! an allreduce test whose CSV has other keys (`rank,shape,dtype`), the
//! dashboard's parser that reads the table from a job's log, a config, and
//! a container played by a `docker` shim with `docker exec` semantics: the
//! command runs in a session of its own (stopping the client does not stop
//! it), the volume `/flydsl-test` is the checkout, and the container's own
//! `python3 -m pip` installs nothing (it says what it was asked).
//! Two commits, the base and the change, measure the same.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;

use super::gitrepo::{commit_all, git};
use super::harness::{repo_root, write_executable};

pub const BASE_REPO: &str = "ROCm/FlyDSL";
pub const OPS: &str = "softmax gemm layernorm";

const TO_CSV: &str = r#"import sys
# The table the harness printed (op shape dtype TB/s TFLOPS) as the CSV.
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 5 and l.split()[0] != "op"]
with open(sys.argv[2], "w") as f:
    f.write("op,shape,dtype,tbps,tflops\n")
    for r in rows:
        f.write(",".join(r) + "\n")
"#;

const ALLREDUCE: &str = r#"import argparse
# The seed's allreduce benchmark: one row per rank and an aggregate row per shape.
p = argparse.ArgumentParser()
for flag in ["--world_size", "--iters", "--warmup", "--allreduce_impl", "--mode", "--shapes", "--output_csv"]:
    p.add_argument(flag)
a = p.parse_args()
with open(a.output_csv, "w") as f:
    f.write("rank,shape,dtype,world_size,mode,avg_time_us\n")
    for s in a.shapes.split(";"):
        m, n, dtype = s.split(",")
        for rank in [str(r) for r in range(int(a.world_size))] + ["aggregate"]:
            f.write(f"{rank},{m}x{n},{dtype},{a.world_size},{a.mode},120.0\n")
print("allreduce done")
"#;

const CONFIG: &str = r#"keys = ["op", "shape", "dtype"]

[[metrics]]
column = "tflops"
unit = "TFLOPS"

[[metrics]]
column = "tbps"
unit = "TB/s"

[select]
all = ["scripts/run_benchmark.sh"]
ignore = ["**/*.md"]

[[select.groups]]
name = "softmax"
paths = ["kernels/softmax/**"]
rows = ["op=softmax*"]

[[select.groups]]
name = "gemm"
paths = ["kernels/gemm/**"]
rows = ["op=gemm*"]

[rerun]
key = "op"
join = "comma"
"#;

/// The base commit's wheel installer the setup commands call, as the seed
/// project would keep it: on the baseline's side only.
const INSTALLER: &str = "#!/usr/bin/env bash\nset -euo pipefail\n[ \"$1\" = baseline ] || exit 0\npython3 -m pip install --force-reinstall --no-deps flydsl-base.whl\n";

pub struct Seed {
    pub root: TempDir,
    /// `file://ROOT`: `GITHUB_SERVER_URL`, under which `ROCm/FlyDSL.git` is.
    pub server: String,
    pub origin: PathBuf,
    pub base: String,
    pub head: String,
    /// The `docker` shim's directory (first on PATH).
    pub shims: PathBuf,
}

/// `write_executable`, its directory made first.
pub fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    write_executable(path, text);
}

/// Writes the seed project's files into `work`.
fn write_tree(work: &Path, readme: &str) {
    std::fs::create_dir_all(work.join("scripts")).unwrap();
    std::fs::create_dir_all(work.join(".github/scripts")).unwrap();
    let flydsl = repo_root().join("tests/fixtures/flydsl");
    let harness = std::fs::read_to_string(flydsl.join("run_benchmark.sh")).unwrap();
    write_executable(&work.join("scripts/run_benchmark.sh"), &harness);
    write_executable(
        &work.join("scripts/run_tests.sh"),
        "#!/bin/bash\necho 'tests: 12 passed'\n",
    );
    std::fs::write(work.join("scripts/benchmark_output_to_csv.py"), TO_CSV).unwrap();
    std::fs::create_dir_all(work.join("tests/kernels")).unwrap();
    std::fs::write(work.join("tests/kernels/test_allreduce.py"), ALLREDUCE).unwrap();
    write_executable(
        &work.join(".github/scripts/install-base-wheel.sh"),
        INSTALLER,
    );
    std::fs::write(work.join("bench.toml"), CONFIG).unwrap();
    std::fs::write(work.join(".github/baseline-resolver.toml"), CONFIG).unwrap();
    std::fs::write(work.join("ops"), OPS).unwrap();
    std::fs::write(work.join("value"), "100").unwrap();
    std::fs::write(work.join("README.md"), readme).unwrap();
    std::fs::write(
        work.join(".gitignore"),
        "bench-results/\n.baseline-resolver-*\n",
    )
    .unwrap();
}

impl Seed {
    pub fn new() -> Seed {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(work.join("scripts")).unwrap();
        git(&work, &["init", "-q", "-b", "main"]);
        write_tree(&work, "FlyDSL\n");
        let base = commit_all(&work, "base");
        write_tree(&work, "FlyDSL, faster MLA decode\n");
        let head = commit_all(&work, "head");
        let origin = super::gitrepo::publish(root.path(), &work);
        let shims = root.path().join("shims");
        let container = root.path().join("container-bin");
        std::fs::create_dir_all(&container).unwrap();
        let python = which("python3");
        executable(
            &container.join("python3"),
            &format!(
                "#!/bin/bash\nif [ \"$1 $2\" = '-m pip' ]; then echo \"pip (the container's, a stand-in): ${{*:3}}\"; exit 0; fi\nexec {python} \"$@\"\n"
            ),
        );
        executable(&shims.join("docker"), &docker_shim(&container));
        Seed {
            server: format!("file://{}", root.path().display()),
            root,
            origin,
            base,
            head,
            shims,
        }
    }

    /// PATH with the shims first.
    pub fn path(&self) -> String {
        format!(
            "{}:{}",
            self.shims.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// A pull request from a fork: the head is the fork's, the base the
    /// base repository's, at this project's commits.
    pub fn fork_pull_request(&self) -> Value {
        let text =
            std::fs::read_to_string(repo_root().join("examples/events/fork-pull-request.json"))
                .unwrap();
        let mut event: Value = serde_json::from_str(&text).unwrap();
        event["pull_request"]["head"]["sha"] = json!(self.head);
        event["pull_request"]["base"]["sha"] = json!(self.base);
        event["pull_request"]["merge_commit_sha"] = json!(self.head);
        event
    }

    /// A push to main: `before` is the base, `after` the change.
    pub fn push_to_main(&self) -> Value {
        json!({"ref": "refs/heads/main", "before": self.base, "after": self.head,
            "repository": {"id": 700001, "full_name": BASE_REPO, "default_branch": "main",
                "owner": {"login": "ROCm"}, "name": "FlyDSL"},
            "head_commit": {"id": self.head}})
    }

    /// The `github` context of `event_name` with `event`.
    pub fn github(&self, event_name: &str, event: &Value, workspace: &Path) -> Value {
        let r#ref = if event_name == "pull_request" {
            "refs/pull/801/merge"
        } else {
            "refs/heads/main"
        };
        json!({"event_name": event_name, "event": event, "sha": self.head, "ref": r#ref,
            "repository": BASE_REPO, "repository_owner": "ROCm", "run_id": "29387022374",
            "run_number": "42", "token": "ghs_docstesttoken", "workspace": workspace.display().to_string(),
            "server_url": self.server, "head_ref": "mla-kernel", "base_ref": "main"})
    }
}

fn which(name: &str) -> String {
    let out = std::process::Command::new("bash")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// `docker exec [-i] [-e VAR]... [-w DIR] NAME CMD...`: CMD in a new
/// session (the daemon starts it; the client only waits, and signals to
/// the client do not reach it), `/flydsl-test` in its arguments and in
/// `-w` the volume (`$DOCKER_SHIM_VOLUME`, else the workspace's
/// `flydsl-test`: `-v "$GITHUB_WORKSPACE/flydsl-test:/flydsl-test"`), in
/// `-w`'s directory, with the container's environment (PATH, HOME) and
/// only the variables `-e` names, the container's tools first on PATH.
pub fn docker_shim(container: &Path) -> String {
    format!(
        r#"#!/bin/bash
[ "$1" = exec ] || {{ echo "docker (a stand-in): only exec" >&2; exit 99; }}
shift
volume="${{DOCKER_SHIM_VOLUME:-${{GITHUB_WORKSPACE:-$PWD}}/flydsl-test}}"
env=(PATH={container}:$PATH HOME=$HOME)
dir=$PWD
while [[ $1 == -* ]]; do
  case $1 in
    -e) env+=("$2=${{!2}}"); shift ;;
    -w) dir=${{2//\/flydsl-test/$volume}}; shift ;;
    -u) shift ;;
  esac
  shift
done
shift
args=()
for a in "$@"; do args+=("${{a//\/flydsl-test/$volume}}"); done
cd "$dir" || exit 126
env -i "${{env[@]}}" setsid "${{args[@]}}" &
wait $!
"#,
        container = container.display()
    )
}

/// The records the seed's dashboard parser finds in `log`.
pub fn dashboard(log: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.log");
    std::fs::write(&path, log).unwrap();
    let out = std::process::Command::new("bash")
        .arg(repo_root().join("tests/fixtures/flydsl/parse_bench.sh"))
        .arg(&path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}
