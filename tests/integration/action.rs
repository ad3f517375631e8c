//! The action as a runner runs it: `action.yml`'s composite step executed with
//! the environment a runner gives, its `env:` expressions evaluated from a
//! `with:` map and the input defaults, through `dist/launch.sh` and a freshly
//! built binary (or the shipped one), online against an HTTPS API; then
//! `GITHUB_OUTPUT` read with the runner's parser.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use baseline_resolver::runner::file_command;
use serde_yaml_ng::Value;
use wiremock::Mock;
use wiremock::matchers::{header, method, path};

use crate::support::harness::repo_root;
use crate::support::mock_github::{MockGitHub, ok_json};

pub fn action() -> Value {
    action_at("action.yml")
}

/// An action's metadata: `action.yml` (resolve) or `compare/action.yml`.
pub fn action_at(file: &str) -> Value {
    let text = std::fs::read_to_string(repo_root().join(file)).unwrap();
    serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{file} parses: {e}"))
}

pub fn map(value: &Value) -> Vec<(String, Value)> {
    value
        .as_mapping()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.as_str().unwrap().to_owned(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

pub fn input_names() -> Vec<String> {
    map(&action()["inputs"])
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

pub fn output_names() -> Vec<String> {
    map(&action()["outputs"])
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

/// Evaluates `${{ ... }}` the way the runner would for the few expressions
/// the action may use: `inputs.NAME`, `github.token` and
/// `github.event.repository.default_branch` and `github.repository`. Anything else fails
/// the test, which keeps the action's expressions simple and reviewable.
fn evaluate(
    text: &str,
    with: &BTreeMap<&str, &str>,
    defaults: &BTreeMap<String, String>,
    token: &str,
) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("closed expression") + start;
        let expr = rest[start + 3..end].trim();
        let value = if let Some(name) = expr.strip_prefix("inputs.") {
            match with.get(name) {
                Some(v) => v.to_string(),
                None => {
                    let default = defaults
                        .get(name)
                        .unwrap_or_else(|| panic!("input {name} is not declared"));
                    evaluate(default, with, defaults, token)
                }
            }
        } else if expr == "github.token" {
            token.to_owned()
        } else if expr == "github.repository" {
            // As the runner sets it for a run of this repository.
            "ROCm/FlyDSL".to_owned()
        } else if expr == "github.event.repository.default_branch" {
            // These runs have no event payload: as an event with no
            // repository, the expression is empty.
            String::new()
        } else {
            panic!("unsupported expression in action.yml: {expr}");
        };
        out.push_str(&value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A copy of the action as the runner checks it out: action.yml, the
/// launcher, and the test build of the binary with its checksum.
pub fn action_dir() -> tempfile::TempDir {
    action_dir_with(Path::new(env!("CARGO_BIN_EXE_baseline-resolver")))
}

/// The same with another build of the binary in `dist/`.
pub fn action_dir_with(binary: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "action.yml",
        "compare/action.yml",
        "select/action.yml",
        "lint/action.yml",
        "comment/action.yml",
        "trend/action.yml",
        "bench/action.yml",
        "gate/action.yml",
    ] {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo_root().join(file), to).unwrap();
    }
    let dist = dir.path().join("dist");
    std::fs::create_dir(&dist).unwrap();
    std::fs::copy(repo_root().join("dist/launch.sh"), dist.join("launch.sh")).unwrap();
    let name = "baseline-resolver-linux-x86_64";
    std::fs::copy(binary, dist.join(name)).unwrap();
    let sum = Command::new("sha256sum")
        .arg(name)
        .current_dir(&dist)
        .output()
        .unwrap();
    std::fs::write(dist.join("SHA256SUMS"), sum.stdout).unwrap();
    dir
}

/// What `file` declares, a run of its step honours: every output it
/// declares written (and nothing else), each from the step's outputs, and
/// every input passed to the binary as its `INPUT_*` variable.
pub fn assert_declared(file: &str, run: &StepRun) {
    let action = action_at(file);
    let mut declared: Vec<String> = map(&action["outputs"])
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    declared.sort();
    let written: Vec<String> = run.outputs.keys().cloned().collect();
    assert_eq!(
        written, declared,
        "{file}: outputs written against declared"
    );
    let step = &action["runs"]["steps"][0];
    let id = step["id"].as_str().unwrap_or_default();
    for (name, value) in map(&action["outputs"]) {
        assert_eq!(
            value["value"].as_str(),
            Some(format!("${{{{ steps.{id}.outputs.{name} }}}}").as_str()),
            "{file}: output {name}"
        );
    }
    for (input, _) in map(&action["inputs"]) {
        let var = format!("INPUT_{}", input.to_uppercase().replace('-', "_"));
        assert_eq!(
            step["env"][var.as_str()].as_str(),
            Some(format!("${{{{ inputs.{input} }}}}").as_str()),
            "{file}: input {input} reaches the binary as {var}"
        );
    }
}

pub struct StepRun {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub outputs: BTreeMap<String, String>,
}

/// Runs the composite step of `action.yml` found in `action_path`.
pub fn run_step(
    action_path: &Path,
    event: &Path,
    event_name: &str,
    with: &[(&str, &str)],
    extra_env: &[(&str, &str)],
) -> StepRun {
    run_step_of(
        "action.yml",
        action_path,
        event,
        event_name,
        with,
        extra_env,
    )
}

/// Runs the composite step of the action `file` (relative to the action's
/// checkout at `root`), as the runner would.
pub fn run_step_of(
    file: &str,
    root: &Path,
    event: &Path,
    event_name: &str,
    with: &[(&str, &str)],
    extra_env: &[(&str, &str)],
) -> StepRun {
    let action = action_at(file);
    let action_path = root.join(Path::new(file).parent().unwrap_or(Path::new("")));
    let steps = action["runs"]["steps"]
        .as_sequence()
        .expect("composite steps");
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    assert_eq!(steps.len(), 1, "one step");
    let step = &steps[0];
    let with: BTreeMap<&str, &str> = with.iter().copied().collect();
    let defaults: BTreeMap<String, String> = map(&action["inputs"])
        .into_iter()
        .map(|(k, v)| (k, v["default"].as_str().unwrap_or_default().to_owned()))
        .collect();
    let work = tempfile::tempdir().unwrap();
    let output = work.path().join("github_output");
    let summary = work.path().join("step_summary");
    let script = step["run"].as_str().expect("run script");
    assert!(
        !script.contains("${{"),
        "no expression is pasted into the script"
    );
    // bash is the one shell runners have on Linux, macOS and Windows (Git
    // Bash), so a Windows runner reaches the launcher's own message. The
    // runner's command line, with `-c` in place of a script file:
    let shell = step["shell"].as_str().expect("shell");
    assert_eq!(shell, "bash", "{file}: sh is missing on Windows runners");
    let mut cmd = Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
        .arg(script)
        .current_dir(work.path());
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", work.path())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_PATH", event)
        .env("GITHUB_EVENT_NAME", event_name)
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_ACTION_PATH", &action_path)
        .env("GITHUB_WORKSPACE", work.path())
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64");
    for (key, value) in map(&step["env"]) {
        let value = evaluate(
            value.as_str().unwrap_or_default(),
            &with,
            &defaults,
            "ghs_actiontesttoken",
        );
        cmd.env(key, value);
    }
    for (key, value) in extra_env {
        cmd.env(key, value);
        // The runner runs a step in the workspace.
        if *key == "GITHUB_WORKSPACE" {
            cmd.current_dir(value);
        }
    }
    let out = cmd.output().unwrap();
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    let pairs = file_command::read(&text).expect("GITHUB_OUTPUT parses");
    StepRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        outputs: pairs.into_iter().collect(),
    }
}

pub fn example_event() -> PathBuf {
    repo_root().join("examples/events/fork-pull-request.json")
}

#[test]
fn the_composite_step_writes_exactly_the_outputs_action_yml_declares() {
    let dir = action_dir();
    let run = run_step(
        dir.path(),
        &example_event(),
        "pull_request",
        &[("offline", "true"), ("label", "main-mi355")],
        &[],
    );
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    let written: Vec<&String> = run.outputs.keys().collect();
    let mut declared = output_names();
    declared.sort();
    assert_eq!(
        written,
        declared.iter().collect::<Vec<_>>(),
        "outputs written vs declared in action.yml"
    );
    // Each declared output maps to the step output of the same name.
    for (name, value) in map(&action()["outputs"]) {
        assert_eq!(
            value["value"].as_str(),
            Some(format!("${{{{ steps.resolve.outputs.{name} }}}}").as_str()),
            "{name}"
        );
        assert!(
            value["description"].as_str().is_some_and(|d| d.len() > 10),
            "{name} has a description"
        );
    }
    let o = &run.outputs;
    assert_eq!(o["base-repo"], "ROCm/FlyDSL");
    assert_eq!(o["base-sha"], "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16");
    assert_eq!(o["is-fork"], "true");
    assert_eq!(o["label"], "main-mi355", "with: label reached the binary");
    assert!(
        run.stdout
            .contains("baseline main-mi355 = ROCm/FlyDSL@fa4f8ae2"),
        "{}",
        run.stdout
    );
}

#[test]
fn every_input_reaches_the_binary_through_env() {
    let step = &action()["runs"]["steps"][0];
    let env: Vec<String> = map(&step["env"]).into_iter().map(|(k, _)| k).collect();
    for input in input_names() {
        let var = format!("INPUT_{}", input.to_uppercase().replace('-', "_"));
        assert!(env.contains(&var), "input {input} is not mapped to {var}");
        let value = map(&step["env"])
            .into_iter()
            .find(|(k, _)| *k == var)
            .unwrap()
            .1;
        assert_eq!(
            value.as_str(),
            Some(format!("${{{{ inputs.{input} }}}}").as_str())
        );
        let description = action()["inputs"][input.as_str()]["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            description.contains("Default"),
            "input {input} documents its default"
        );
    }
    assert_eq!(env.len(), input_names().len());
}

#[test]
fn defaults_and_strict_flow_through_the_action() {
    let dir = action_dir();
    let event = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        event.path(),
        r#"{"repository": {"full_name": "ROCm/FlyDSL", "default_branch": "main"}}"#,
    )
    .unwrap();
    let run = run_step(
        dir.path(),
        event.path(),
        "workflow_dispatch",
        &[("offline", "true"), ("strict", "true")],
        &[],
    );
    assert_eq!(run.code, 3, "strict fails the step: {}", run.stdout);
    assert_eq!(run.outputs["base-available"], "false");
    assert!(
        run.stdout
            .contains("::warning title=Benchmark baseline unavailable::")
    );
}

/// The step online, as on a runner: `GITHUB_API_URL` is an https URL, the
/// job's token comes from `inputs.token`, the API's CA is trusted through
/// `SSL_CERT_FILE`. Returns the run and the requests the API saw.
/// The action's step against the HTTPS mock API, on a runner of `arch`
/// (`RUNNER_ARCH`).
pub async fn run_step_online(action_path: PathBuf, arch: &'static str) -> (StepRun, Vec<String>) {
    let mock = MockGitHub::start().await;
    Mock::given(method("GET"))
        .and(path(
            "/repos/ROCm/FlyDSL/git/matching-refs/tags/v".to_owned(),
        ))
        .and(header("authorization", "Bearer ghs_actiontesttoken"))
        .respond_with(ok_json(serde_json::json!([{"ref": "refs/tags/v0.3.1",
            "object": {"sha": "89abcdef0123456789abcdef0123456789abcdef", "type": "commit"}}])))
        .mount(&mock.server)
        .await;
    let (api, ca) = (mock.url(), crate::support::tls::ca_file().to_owned());
    let run = tokio::task::spawn_blocking(move || {
        let ca = ca.display().to_string();
        run_step(
            &action_path,
            &example_event(),
            "pull_request",
            &[],
            &[
                ("GITHUB_API_URL", api.as_str()),
                ("GITHUB_SERVER_URL", "git://127.0.0.1:1"),
                ("SSL_CERT_FILE", ca.as_str()),
                ("RUNNER_ARCH", arch),
            ],
        )
    })
    .await
    .unwrap();
    let requests = mock.requests().await;
    (run, requests)
}

pub fn assert_tag_answered_over_https(run: &StepRun, requests: &[String]) {
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(!run.stdout.contains("::warning"), "{}", run.stdout);
    assert_eq!(run.outputs["tag"], "v0.3.1", "{}", run.stdout);
    assert_eq!(run.outputs["tag-version"], "0.3.1");
    assert_eq!(run.outputs["tag-available"], "true");
    assert_eq!(run.outputs["base-available"], "true");
    assert_eq!(requests.len(), 1, "{requests:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_composite_step_resolves_online_over_https() {
    let dir = action_dir();
    let (run, requests) = run_step_online(dir.path().to_owned(), "X64").await;
    assert_tag_answered_over_https(&run, &requests);
}

/// The canary: the shipped binary is built without dev-dependencies, so a
/// TLS feature that only a test dependency switched on would pass every
/// other test and fail every real run. This one runs exactly that binary
/// through the launcher against the HTTPS API. `.ci/run` builds it first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs scripts/build-dist (.ci/run)"]
async fn the_shipped_binary_speaks_https() {
    let bin = repo_root().join("dist/baseline-resolver-linux-x86_64");
    assert!(bin.exists(), "needs {} (scripts/build-dist)", bin.display());
    let dir = action_dir_with(&bin);
    let (run, requests) = run_step_online(dir.path().to_owned(), "X64").await;
    assert_tag_answered_over_https(&run, &requests);
}

/// The reference's inputs and outputs tables (docs/resolve.md) list exactly
/// what action.yml declares.
#[test]
fn docs_tables_match_action_yml() {
    let readme = std::fs::read_to_string(repo_root().join("docs/resolve.md")).unwrap();
    let section = |title: &str| -> Vec<String> {
        let start = readme
            .find(title)
            .unwrap_or_else(|| panic!("docs/resolve.md has {title}"));
        readme[start..]
            .lines()
            .skip(1)
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .skip(2)
            .filter_map(|l| l.split('|').nth(1))
            .map(|cell| cell.trim().trim_matches('`').to_owned())
            .collect()
    };
    assert_eq!(section("### Action inputs"), input_names());
    assert_eq!(section("### Action outputs"), output_names());
}

/// Outputs reach scripts through `env:`, never as `${{ }}` pasted into a
/// `run:` script, where a hostile value would become shell code.
#[test]
fn no_workflow_pastes_an_expression_into_a_run_script() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["examples/workflows", ".github/workflows"] {
        for entry in std::fs::read_dir(repo_root().join(dir)).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    assert!(files.len() >= 4);
    for file in files {
        let doc: Value = serde_yaml_ng::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for (job, body) in map(&doc["jobs"]) {
            for step in body["steps"].as_sequence().into_iter().flatten() {
                if let Some(script) = step["run"].as_str() {
                    assert!(
                        !script.contains("${{"),
                        "{}: job {job} pastes an expression into run:\n{script}",
                        file.display()
                    );
                }
            }
        }
    }
}
