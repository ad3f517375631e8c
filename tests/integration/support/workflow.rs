//! A workflow's jobs run as a runner runs them, for the docs and examples:
//! jobs in `needs` order (the first entry of a matrix), a job's and a
//! step's `if:` evaluated ([`super::expr`]), `env:` and `with:` filled,
//! `run:` through `bash --noprofile --norc -eo pipefail`, this repository's
//! actions through their composite step and `dist/launch.sh`
//! ([`crate::action::run_step_of`], the emulation the action tests use),
//! `continue-on-error`, step and job outputs. Third-party actions are
//! small shims: checkout clones the fixture's origin, upload/download
//! artifact copy to and from a store that outlives the run (a push's
//! upload is a later pull request's download).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value, json};
use serde_yaml_ng::Value as Yaml;

use super::expr::{self, Host};

/// What every job of a run shares.
pub struct Run {
    pub workspace: PathBuf,
    /// This repository's actions as a runner checks them out.
    pub actions: PathBuf,
    pub event_path: PathBuf,
    pub event_name: String,
    pub github: Value,
    /// Added to every step's environment (PATH with the shims first).
    pub env: BTreeMap<String, String>,
    /// Where uploaded artifacts are kept, by name.
    pub store: PathBuf,
    /// The origin actions/checkout clones, and the commit it checks out.
    pub origin: String,
    pub checkout_sha: String,
    /// Every step's output, as the job's log shows it.
    pub log: String,
}

/// One job's state while it runs.
pub struct Job<'a> {
    pub run: &'a mut Run,
    pub matrix: Value,
    pub needs: Value,
    pub steps: Map<String, Value>,
    pub env: BTreeMap<String, String>,
    pub failed: bool,
}

impl Host for Job<'_> {
    fn context(&self, name: &str) -> Value {
        match name {
            "github" => self.run.github.clone(),
            "env" => json!(self.env),
            "matrix" => self.matrix.clone(),
            "needs" => self.needs.clone(),
            "steps" => Value::Object(self.steps.clone()),
            "runner" => {
                json!({"os": "Linux", "arch": "X64", "temp": self.run.env.get("RUNNER_TEMP")})
            }
            "job" => json!({"status": if self.failed { "failure" } else { "success" }}),
            _ => json!({}),
        }
    }

    fn failed(&self) -> bool {
        self.failed
    }

    fn hash_files(&self, patterns: &[String]) -> String {
        let script = format!(
            "shopt -s nullglob globstar; f=({}); [ ${{#f[@]}} -gt 0 ] && cat \"${{f[@]}}\" | sha256sum | cut -c1-64",
            patterns.join(" ")
        );
        let out = Command::new("bash")
            .args(["-c", &script])
            .current_dir(&self.run.workspace)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

fn text(value: &Yaml) -> String {
    match value {
        Yaml::String(s) => s.clone(),
        Yaml::Null => String::new(),
        other => serde_yaml_ng::to_string(other).unwrap().trim().to_owned(),
    }
}

fn mapping(value: &Yaml) -> Vec<(String, Yaml)> {
    value
        .as_mapping()
        .map(|m| m.iter().map(|(k, v)| (text(k), v.clone())).collect())
        .unwrap_or_default()
}

/// Runs a whole workflow for the run's event: each job once the jobs it
/// needs are done, in order; `given` stands for jobs outside it (a page's
/// fragment that reads `needs.resolve`). Returns each job's result and
/// outputs.
pub fn run_workflow_with(run: &mut Run, doc: &Yaml, given: Value) -> Result<Value, String> {
    let mut done = given.as_object().cloned().unwrap_or_default();
    let mut left: Vec<(String, Yaml)> = mapping(&doc["jobs"]);
    let wants = |job: &Yaml| -> Vec<String> {
        match &job["needs"] {
            Yaml::String(s) => vec![s.clone()],
            Yaml::Sequence(s) => s.iter().map(text).collect(),
            _ => vec![],
        }
    };
    let mut results = Map::new();
    while !left.is_empty() {
        let ready = left
            .iter()
            .position(|(_, job)| wants(job).iter().all(|w| done.contains_key(w)))
            .ok_or("a job needs one that never runs")?;
        let (name, job) = left.remove(ready);
        let mut needs: Map<String, Value> = wants(&job)
            .iter()
            .map(|w| (w.clone(), done[w].clone()))
            .collect();
        for (k, v) in given.as_object().into_iter().flatten() {
            needs.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let mut job = job.clone();
        for (key, value) in mapping(&doc["env"]) {
            if job["env"].get(key.as_str()).is_none() {
                if !job["env"].is_mapping() {
                    job["env"] = Yaml::Mapping(Default::default());
                }
                job["env"][key.as_str()] = value;
            }
        }
        let result = run_job(run, &name, &job, Value::Object(needs))?;
        done.insert(name.clone(), result.clone());
        results.insert(name, result);
    }
    Ok(Value::Object(results))
}

/// Every combination of a job's matrix (one empty one without a matrix).
fn combinations(job: &Yaml) -> Vec<Map<String, Value>> {
    let mut all = vec![Map::new()];
    for (key, values) in mapping(&job["strategy"]["matrix"]) {
        let Some(values) = values.as_sequence() else {
            continue;
        };
        let mut next = Vec::new();
        for combo in &all {
            for v in values {
                let mut combo = combo.clone();
                combo.insert(key.clone(), serde_json::to_value(v).unwrap());
                next.push(combo);
            }
        }
        all = next;
    }
    all
}

/// Runs one job with `needs`, each of its matrix's combinations in turn;
/// its `{result, outputs}` (a failure when any combination failed).
pub fn run_job(run: &mut Run, name: &str, job: &Yaml, needs: Value) -> Result<Value, String> {
    let mut last = json!({"result": "skipped", "outputs": {}});
    let mut failed = false;
    for matrix in combinations(job) {
        last = run_instance(run, name, job, needs.clone(), matrix)?;
        failed |= last["result"] == "failure";
    }
    if failed {
        last["result"] = json!("failure");
    }
    Ok(last)
}

fn run_instance(
    run: &mut Run,
    name: &str,
    job: &Yaml,
    needs: Value,
    matrix: Map<String, Value>,
) -> Result<Value, String> {
    let mut state = Job {
        run,
        matrix: Value::Object(matrix),
        needs,
        steps: Map::new(),
        env: BTreeMap::new(),
        failed: false,
    };
    // A job whose `needs` failed or was skipped is skipped unless its
    // condition says otherwise.
    let upstream_ok = state
        .needs
        .as_object()
        .is_none_or(|m| m.values().all(|n| n["result"] == "success"));
    state.failed = !upstream_ok;
    let go = expr::condition(&text(&job["if"]), &state).map_err(|e| format!("job {name}: {e}"))?;
    if !go {
        return Ok(json!({"result": "skipped", "outputs": {}}));
    }
    state.failed = false;
    for (key, value) in mapping(&job["env"]) {
        let value = expr::interpolate(&text(&value), &state).map_err(|e| format!("{name}: {e}"))?;
        state.env.insert(key, value);
    }
    let steps = job["steps"].as_sequence().cloned().unwrap_or_default();
    run_steps(&mut state, &steps).map_err(|e| format!("job {name}: {e}"))?;
    let mut outputs = Map::new();
    for (key, value) in mapping(&job["outputs"]) {
        let value = expr::interpolate(&text(&value), &state)?;
        outputs.insert(key, Value::String(value));
    }
    let result = if state.failed { "failure" } else { "success" };
    Ok(json!({"result": result, "outputs": outputs}))
}

/// Runs `steps` in the job, in order.
pub fn run_steps(job: &mut Job<'_>, steps: &[Yaml]) -> Result<(), String> {
    for (i, step) in steps.iter().enumerate() {
        let id = step["id"]
            .as_str()
            .map_or_else(|| format!("__{i}"), str::to_owned);
        let go = expr::condition(&text(&step["if"]), job).map_err(|e| format!("step {id}: {e}"))?;
        if !go {
            job.steps.insert(
                id,
                json!({"outcome": "skipped", "conclusion": "skipped", "outputs": {}}),
            );
            continue;
        }
        let mut env = job.env.clone();
        for (key, value) in mapping(&step["env"]) {
            env.insert(key, expr::interpolate(&text(&value), job)?);
        }
        let (code, outputs) = if let Some(script) = step["run"].as_str() {
            let script = expr::interpolate(script, job)?;
            run_script(job.run, &script, &env, &step["working-directory"])
        } else if let Some(uses) = step["uses"].as_str() {
            let mut with = BTreeMap::new();
            for (key, value) in mapping(&step["with"]) {
                with.insert(key, expr::interpolate(&text(&value), job)?);
            }
            uses_action(job.run, uses, &with, &env)?
        } else {
            return Err(format!("step {id}: neither run nor uses"));
        };
        let outcome = if code == 0 { "success" } else { "failure" };
        let keep_going = step["continue-on-error"].as_bool().unwrap_or(false);
        let conclusion = if keep_going { "success" } else { outcome };
        if conclusion == "failure" {
            job.failed = true;
        }
        job.steps.insert(
            id,
            json!({"outcome": outcome, "conclusion": conclusion, "outputs": outputs}),
        );
    }
    Ok(())
}

/// The environment every process of a step gets.
fn base_env(run: &Run, cmd: &mut Command, work: &Path) {
    cmd.env("GITHUB_ACTIONS", "true")
        .env("CI", "true")
        .env("GITHUB_EVENT_PATH", &run.event_path)
        .env("GITHUB_EVENT_NAME", &run.event_name)
        .env("GITHUB_WORKSPACE", &run.workspace)
        .env("GITHUB_OUTPUT", work.join("output"))
        .env("GITHUB_STEP_SUMMARY", work.join("summary"))
        .env("GITHUB_ENV", work.join("env"))
        .env("RUNNER_OS", "Linux");
    for key in ["sha", "ref", "repository", "run_id", "run_number"] {
        let name = format!("GITHUB_{}", key.to_uppercase());
        cmd.env(name, expr::as_text(&run.github[key]));
    }
    for (k, v) in &run.env {
        cmd.env(k, v);
    }
}

fn outputs_of(work: &Path) -> Value {
    let text = std::fs::read_to_string(work.join("output")).unwrap_or_default();
    let pairs = baseline_resolver::runner::file_command::read(&text).expect("GITHUB_OUTPUT parses");
    json!(pairs.into_iter().collect::<BTreeMap<_, _>>())
}

fn run_script(
    run: &mut Run,
    script: &str,
    env: &BTreeMap<String, String>,
    dir: &Yaml,
) -> (i32, Value) {
    let work = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(run.workspace.join(dir.as_str().unwrap_or(".")));
    base_env(run, &mut cmd, work.path());
    cmd.envs(env);
    let out = cmd.output().unwrap();
    run.log.push_str(&String::from_utf8_lossy(&out.stdout));
    run.log.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), outputs_of(work.path()))
}

/// `uses:`: this repository's actions (`OWNER/baseline-resolver[/x]@REF`,
/// `./`, `./x`) through their composite step; the shimmed third-party
/// ones; anything else is an error.
fn uses_action(
    run: &mut Run,
    uses: &str,
    with: &BTreeMap<String, String>,
    env: &BTreeMap<String, String>,
) -> Result<(i32, Value), String> {
    let name = uses.split('@').next().unwrap_or(uses);
    let ours = name
        .strip_prefix("OWNER/baseline-resolver")
        .or_else(|| name.strip_prefix("."))
        .map(|rest| rest.trim_start_matches('/'));
    if let Some(sub) = ours {
        return Ok(our_action(run, sub, with, env));
    }
    let work = tempfile::tempdir().unwrap();
    let code = match name {
        "actions/checkout" => checkout(run, with),
        "actions/upload-artifact" => upload(run, with),
        "actions/download-artifact" => download(run, with),
        other => return Err(format!("no shim for the action {other}")),
    };
    Ok((code, outputs_of(work.path())))
}

fn our_action(
    run: &mut Run,
    sub: &str,
    with: &BTreeMap<String, String>,
    env: &BTreeMap<String, String>,
) -> (i32, Value) {
    let file = if sub.is_empty() {
        "action.yml".to_owned()
    } else {
        format!("{sub}/action.yml")
    };
    let declared: Vec<String> = crate::action::map(&crate::action::action_at(&file)["inputs"])
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for key in with.keys() {
        assert!(declared.contains(key), "{file} has no input {key}");
    }
    let pairs: Vec<(&str, &str)> = with.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut extra: Vec<(String, String)> = run.env.clone().into_iter().collect();
    extra.extend(env.clone());
    extra.push((
        "GITHUB_WORKSPACE".into(),
        run.workspace.display().to_string(),
    ));
    for key in ["sha", "ref", "repository", "run_id"] {
        extra.push((
            format!("GITHUB_{}", key.to_uppercase()),
            expr::as_text(&run.github[key]),
        ));
    }
    let extra: Vec<(&str, &str)> = extra
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let step = crate::action::run_step_of(
        &file,
        &run.actions,
        &run.event_path,
        &run.event_name,
        &pairs,
        &extra,
    );
    run.log.push_str(&step.stdout);
    run.log.push_str(&step.stderr);
    (step.code, json!(step.outputs))
}

/// actions/checkout: the fixture's origin at the run's commit, depth 1,
/// into the workspace (or `path`); a checkout already there stays.
fn checkout(run: &mut Run, with: &BTreeMap<String, String>) -> i32 {
    let to = run
        .workspace
        .join(with.get("path").map_or(".", String::as_str));
    if to.join(".git").exists() {
        return 0;
    }
    std::fs::create_dir_all(&to).unwrap();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(&to)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let ok = git(&["init", "-q"])
        && git(&["fetch", "-q", "--depth=1", &run.origin, &run.checkout_sha])
        && git(&["checkout", "-q", "--detach", "FETCH_HEAD"]);
    if ok { 0 } else { 1 }
}

/// actions/upload-artifact: the files of `path` (lines, globs) under
/// `name`; no file is a warning (`if-no-files-found` is `warn`); a name
/// already uploaded fails, as v4 does.
fn upload(run: &mut Run, with: &BTreeMap<String, String>) -> i32 {
    let Some(name) = with.get("name").filter(|n| !n.is_empty()) else {
        run.log.push_str("upload-artifact: no name\n");
        return 1;
    };
    let to = run.store.join(name);
    if to.exists() {
        run.log
            .push_str(&format!("upload-artifact: {name} exists\n"));
        return 1;
    }
    std::fs::create_dir_all(&to).unwrap();
    let paths = with.get("path").cloned().unwrap_or_default();
    let script = format!(
        "shopt -s nullglob; for p in {}; do cp -r \"$p\" \"$0\"/; done",
        paths.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let ok = Command::new("bash")
        .args(["-c", &script])
        .arg(&to)
        .current_dir(&run.workspace)
        .status()
        .is_ok_and(|s| s.success());
    if ok { 0 } else { 1 }
}

/// actions/download-artifact: the artifact `name` into `path` (the
/// workspace by default); one that was never uploaded fails the step.
fn download(run: &mut Run, with: &BTreeMap<String, String>) -> i32 {
    if let Some(pattern) = with.get("pattern") {
        return download_pattern(run, pattern, with);
    }
    let name = with.get("name").cloned().unwrap_or_default();
    let from = run.store.join(&name);
    if name.is_empty() || !from.is_dir() {
        run.log
            .push_str(&format!("download-artifact: no artifact {name:?}\n"));
        return 1;
    }
    let to = run
        .workspace
        .join(with.get("path").map_or(".", String::as_str));
    std::fs::create_dir_all(&to).unwrap();
    let ok = Command::new("cp")
        .arg("-r")
        .arg(format!("{}/.", from.display()))
        .arg(&to)
        .status()
        .is_ok_and(|s| s.success());
    if ok { 0 } else { 1 }
}

/// actions/download-artifact with `pattern`: every artifact whose name
/// matches, each into `path/NAME/` (none is no failure, as v4 has it).
fn download_pattern(run: &mut Run, pattern: &str, with: &BTreeMap<String, String>) -> i32 {
    let to = run
        .workspace
        .join(with.get("path").map_or(".", String::as_str));
    let mut names: Vec<String> = std::fs::read_dir(&run.store)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| matches(pattern, n))
        .collect();
    names.sort();
    for name in names {
        let dest = to.join(&name);
        std::fs::create_dir_all(&dest).unwrap();
        let ok = Command::new("cp")
            .arg("-r")
            .arg(format!("{}/.", run.store.join(&name).display()))
            .arg(&dest)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return 1;
        }
    }
    0
}

/// A glob with `*` (any run of characters) and `?` (one).
fn matches(pattern: &str, name: &str) -> bool {
    match (pattern.chars().next(), name.chars().next()) {
        (None, None) => true,
        (Some('*'), _) => {
            matches(&pattern[1..], name)
                || name
                    .chars()
                    .next()
                    .is_some_and(|c| matches(pattern, &name[c.len_utf8()..]))
        }
        (Some('?'), Some(c)) => matches(&pattern[1..], &name[c.len_utf8()..]),
        (Some(p), Some(c)) if p == c => matches(&pattern[p.len_utf8()..], &name[c.len_utf8()..]),
        _ => false,
    }
}
