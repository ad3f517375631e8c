//! Issue 47, docs that run: every fenced shell and workflow YAML block of
//! README.md and docs/*.md, and every example workflow, run as a runner
//! would run it against a project shaped like the seed's
//! ([`crate::support::seed`]). A page's blocks share one workspace and run
//! in order, in one job's world or another's (`<!-- job: NAME -->`); a block that cannot run says why
//! (`<!-- not-run: ... -->`, in an example `# not-run: ...`), and any block
//! that neither runs nor says why fails the test. The examples run in
//! [`crate::examples_run`] on the same world.
//!
//! The cases: a pull request from a fork (every block), and a push to main
//! for the examples that run on one (first, so a pull request finds what
//! main uploaded). Shell blocks run with `bash -e -o pipefail`, the binary
//! on PATH as `baseline-resolver`; workflow fragments run through
//! [`crate::support::workflow`] with `needs.resolve` as resolve's action
//! answers for the case. resolve is offline (`INPUT_OFFLINE`): the answer
//! comes from the event, with no tag and no artifact lookup.

use std::path::PathBuf;

use serde_json::{Value, json};
use serde_yaml_ng::Value as Yaml;

use crate::support::blocks::{self, Block};
use crate::support::harness::repo_root;
use crate::support::seed::{Seed, executable};
use crate::support::workflow::{self, Job, Run};

/// One page's (or one example's) world: the seed project, its workspace,
/// this repository's actions, the artifact store and the job log so far.
pub struct World {
    pub seed: Seed,
    ws: PathBuf,
    actions: tempfile::TempDir,
    pub store: PathBuf,
    bin: PathBuf,
    pub log: String,
    /// Each job's steps so far, by the page's `job:` marker.
    jobs: std::collections::BTreeMap<String, serde_json::Map<String, Value>>,
}

impl World {
    /// The seed project checked out at `checkout` in a new workspace.
    pub fn new(checkout: &str) -> World {
        let seed = Seed::new();
        let ws = seed.root.path().join("ws");
        let store = seed.root.path().join("artifacts");
        let bin = seed.root.path().join("bin");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&store).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_baseline-resolver"),
            bin.join("baseline-resolver"),
        )
        .unwrap();
        let mut world = World {
            seed,
            ws,
            actions: crate::action::action_dir(),
            store,
            bin,
            log: String::new(),
            jobs: Default::default(),
        };
        {
            let with = [("path".to_owned(), checkout.to_owned())];
            let steps = vec![step("actions/checkout@v4", &with)];
            world
                .job("pull_request", json!({}), &steps, "checkout")
                .expect("the checkout");
        }
        world
    }

    fn path(&self) -> String {
        format!("{}:{}", self.bin.display(), self.seed.path())
    }

    /// A run of `event_name` (`pull_request` from a fork, or `push`).
    pub fn run(&mut self, event_name: &str) -> Run {
        let event = if event_name == "push" {
            self.seed.push_to_main()
        } else {
            self.seed.fork_pull_request()
        };
        let event_path = self.seed.root.path().join(format!("{event_name}.json"));
        std::fs::write(&event_path, event.to_string()).unwrap();
        let env = [
            ("PATH", self.path()),
            ("GITHUB_SERVER_URL", self.seed.server.clone()),
            ("RUNNER_TEMP", self.seed.root.path().display().to_string()),
            ("INPUT_OFFLINE", "true".to_owned()),
            ("HOME", self.seed.root.path().display().to_string()),
        ];
        Run {
            workspace: self.ws.clone(),
            actions: self.actions.path().to_owned(),
            github: self.seed.github(event_name, &event, &self.ws),
            event_path,
            event_name: event_name.to_owned(),
            env: env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            store: self.store.clone(),
            origin: format!("file://{}", self.seed.origin.display()),
            checkout_sha: self.seed.head.clone(),
            log: String::new(),
        }
    }

    /// `steps` as one job with `needs`; an error when the job failed.
    fn job(
        &mut self,
        event_name: &str,
        needs: Value,
        steps: &[Yaml],
        key: &str,
    ) -> Result<(), String> {
        let mut run = self.run(event_name);
        let mut job = Job {
            run: &mut run,
            matrix: json!({}),
            needs,
            steps: self.jobs.get(key).cloned().unwrap_or_default(),
            env: Default::default(),
            failed: false,
        };
        let done = workflow::run_steps(&mut job, steps);
        let (failed, states) = (job.failed, job.steps.clone());
        self.jobs.insert(key.to_owned(), states.clone());
        self.log.push_str(&run.log);
        done?;
        if failed {
            return Err(format!("a step failed: {states:#?}\n{}", tail(&run.log)));
        }
        no_error(&run.log)
    }

    /// What `needs.resolve` is for the case: resolve's action run here.
    fn resolved(&mut self, event_name: &str) -> Value {
        let steps = vec![step(
            "OWNER/baseline-resolver@v1",
            &[("label".into(), "main".into())],
        )];
        let mut run = self.run(event_name);
        let mut job = Job {
            run: &mut run,
            matrix: json!({}),
            needs: json!({}),
            steps: Default::default(),
            env: Default::default(),
            failed: false,
        };
        workflow::run_steps(&mut job, &steps).unwrap();
        assert!(!job.failed, "resolve: {}", run.log);
        let outputs = job.steps["__0"]["outputs"].clone();
        // As a job of its own, or as the first step (`baseline`) of the
        // job that builds the wheels, whose `json` output is its answer
        // (docs/migrating.md: FlyDSL's `prepare-mlir`).
        let build = json!({"json": outputs["json"]});
        json!({
            "resolve": {"result": "success", "outputs": outputs},
            "prepare-mlir": {"result": "success", "outputs": build},
        })
    }

    /// A workflow (`jobs:`), a map of jobs, a list of steps, or a job's
    /// `env:`, as the page shows it.
    fn yaml(&mut self, block: &Block, event_name: &str) -> Result<(), String> {
        let doc: Yaml =
            serde_yaml_ng::from_str(&block.text).map_err(|e| format!("not YAML: {e}"))?;
        let needs = self.resolved(event_name);
        if let Some(steps) = doc.as_sequence() {
            // Steps marked `<!-- job: NAME -->` go on where the page's
            // earlier steps of that job left off.
            let job = block.markers.iter().find_map(|m| m.strip_prefix("job:"));
            let key = job.map_or_else(|| block.at(), |j| j.trim().to_owned());
            return self.job(event_name, needs, steps, &key);
        }
        let map = doc.as_mapping().ok_or("neither steps nor a mapping")?;
        if map.contains_key("env") && map.len() == 1 {
            // A step's `env:` after the resolve step (`baseline`) reads it.
            let baseline = json!({"outputs": needs["resolve"]["outputs"].clone()});
            let mut run = self.run(event_name);
            let job = Job {
                run: &mut run,
                matrix: json!({}),
                needs,
                steps: [("baseline".to_owned(), baseline)].into_iter().collect(),
                env: Default::default(),
                failed: false,
            };
            for (key, value) in map["env"].as_mapping().ok_or("env: a mapping")? {
                let value = value.as_str().unwrap_or_default();
                let got = crate::support::expr::interpolate(value, &job)?;
                if got.is_empty() {
                    return Err(format!("env {key:?} is empty"));
                }
            }
            return Ok(());
        }
        let jobs = if map.contains_key("jobs") {
            doc["jobs"].clone()
        } else if map.values().all(|j| j.get("steps").is_some()) {
            doc.clone()
        } else {
            return Err("not a workflow, a job, steps or env".into());
        };
        let mut run = self.run(event_name);
        let mut all = serde_yaml_ng::Mapping::new();
        all.insert("jobs".into(), jobs);
        let got = workflow::run_workflow_with(&mut run, &Yaml::Mapping(all), needs);
        self.log.push_str(&run.log);
        check_jobs(got?, &run.log)
    }

    /// A shell block, in the workspace, the binary on PATH.
    fn shell(&mut self, text: &str) -> Result<(), String> {
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-e", "-o", "pipefail", "-c", text])
            .current_dir(&self.ws)
            .env("PATH", self.path())
            .env("BASE_SHA", &self.seed.base)
            .env("HEAD_SHA", &self.seed.head)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        self.log.push_str(&log);
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("exit {:?}\n{}", out.status.code(), tail(&log)))
        }
    }
}

fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

/// Every job that ran succeeded, and none said `::error`.
pub fn check_jobs(needs: Value, log: &str) -> Result<(), String> {
    for (name, job) in needs.as_object().unwrap() {
        if job["result"] == "failure" {
            return Err(format!("job {name} failed\n{}", tail(log)));
        }
    }
    no_error(log)
}

/// No `::error` annotation in a log: a block that "passes" with one is
/// not what its page promises.
fn no_error(log: &str) -> Result<(), String> {
    match log.lines().find(|l| l.starts_with("::error")) {
        Some(line) => Err(format!("{line}\n{}", tail(log))),
        None => Ok(()),
    }
}

fn step(uses: &str, with: &[(String, String)]) -> Yaml {
    let mut map = serde_yaml_ng::Mapping::new();
    map.insert("uses".into(), uses.into());
    let mut w = serde_yaml_ng::Mapping::new();
    for (k, v) in with {
        w.insert(k.as_str().into(), v.as_str().into());
    }
    map.insert("with".into(), Yaml::Mapping(w));
    Yaml::Mapping(map)
}

/// The files the shell blocks name, as a reader would have them: the
/// resolution, results of both sides (three paired rounds too), Google
/// Benchmark files, a history, a report, the workflows lint reads.
fn prepare(world: &mut World) {
    let ws = world.ws.clone();
    let row = |v: f64| {
        format!(
            "op,shape,dtype,tbps,tflops\nsoftmax,4096x4096,bf16,-,{v}\ngemm,4096x4096,bf16,-,{v}\nlayernorm,4096x4096,bf16,-,{v}\n"
        )
    };
    for (name, v) in [
        ("current.csv", 100.0),
        ("main.csv", 100.2),
        ("tag.csv", 99.9),
        ("baseline.csv", 100.1),
    ] {
        std::fs::write(ws.join(name), row(v)).unwrap();
    }
    for r in 1..=3 {
        let wobble = f64::from(r) * 0.3;
        std::fs::write(ws.join(format!("current-r{r}.csv")), row(100.0 + wobble)).unwrap();
        std::fs::write(ws.join(format!("baseline-r{r}.csv")), row(100.1 + wobble)).unwrap();
    }
    std::fs::create_dir_all(ws.join("history")).unwrap();
    for i in 1..=6 {
        let v = 100.0 + f64::from(i % 3) * 0.4;
        std::fs::write(ws.join(format!("history/{i:08}-main.csv")), row(v)).unwrap();
    }
    let gb = repo_root().join("tests/fixtures/formats/google-benchmark");
    std::fs::copy(gb.join("base.json"), ws.join("head.json")).unwrap();
    std::fs::copy(gb.join("base.json"), ws.join("main.json")).unwrap();
    // docs/formats.md's peer-action block: that action's custom JSON.
    let custom = repo_root().join("tests/fixtures/formats/custom");
    std::fs::copy(custom.join("base.json"), ws.join("head-bench.json")).unwrap();
    std::fs::copy(custom.join("base.json"), ws.join("main-bench.json")).unwrap();
    let resolve = format!(
        "GITHUB_SERVER_URL={} baseline-resolver resolve --offline --event {} --event-name pull_request --format json > resolution.json && cp resolution.json resolve.json && \
         baseline-resolver compare --current current.csv --baseline main=main.csv --format json > report.json",
        world.seed.server,
        world.seed.root.path().join("pr.json").display()
    );
    std::fs::write(
        world.seed.root.path().join("pr.json"),
        world.seed.fork_pull_request().to_string(),
    )
    .unwrap();
    world.shell(&resolve).expect("the fixture's files");
    let workflows = ws.join(".github/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    let example =
        std::fs::read_to_string(repo_root().join("examples/workflows/fork-safe-benchmark.yml"))
            .unwrap();
    executable(&workflows.join("benchmark.yml"), &example);
    executable(&ws.join("ci/bench.yml"), &example);
    world.log.clear();
}

/// What became of each block of a page.
fn run_page(page: &str) -> Vec<(String, Result<(), String>)> {
    let blocks = blocks::of_page(&repo_root(), page);
    // The seed's guide checks the project out at `flydsl-test`.
    let checkout = if page == "docs/migrating.md" {
        "flydsl-test"
    } else {
        "."
    };
    // One world for the page, and one per `<!-- job: NAME -->` (each job
    // its own runner and workspace, as on GitHub).
    let mut worlds: std::collections::BTreeMap<String, World> = Default::default();
    let mut out = Vec::new();
    for block in &blocks {
        if !blocks::runnable(&block.lang) {
            continue;
        }
        let key = block
            .markers
            .iter()
            .find_map(|m| m.strip_prefix("job:"))
            .map_or("", str::trim)
            .to_owned();
        let world = worlds.entry(key).or_insert_with(|| {
            let mut world = World::new(checkout);
            prepare(&mut world);
            world
        });
        let got = match block.not_run() {
            Some(_) => Ok(()),
            None if block.lang.starts_with('y') => world.yaml(block, "pull_request"),
            None => world.shell(&shell_of(block)),
        };
        out.push((block.at(), got));
    }
    if page == "docs/migrating.md" {
        let log: String = worlds.values().map(|w| w.log.as_str()).collect();
        out.push(("the dashboard's parser".into(), dashboard(&log)));
    }
    out
}

/// A `console` block's commands (`$ ` lines); other blocks as written.
fn shell_of(block: &Block) -> String {
    if block.lang != "console" {
        return block.text.clone();
    }
    block
        .text
        .lines()
        .filter_map(|l| l.strip_prefix("$ "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The seed's dashboard parser finds every benchmark of the suite in the
/// job's log, and the comparison's block is there as the old script
/// wrote it (the page's promise: the dashboard keeps parsing the log).
fn dashboard(text: &str) -> Result<(), String> {
    for line in [
        "=== Benchmark: current vs main ===",
        "compare: PASS against main",
    ] {
        if !text.contains(line) {
            return Err(format!("no {line:?} in the log:\n{}", tail(text)));
        }
    }
    let records = crate::support::seed::dashboard(text).len();
    let want = crate::support::seed::OPS.split(' ').count();
    if records >= want {
        Ok(())
    } else {
        Err(format!(
            "the dashboard found {records} records, not {want}, in:\n{}",
            tail(text)
        ))
    }
}

/// The pages whose blocks are run.
fn pages() -> Vec<String> {
    let mut pages = vec!["README.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(repo_root().join("docs"))
        .unwrap()
        .map(|e| format!("docs/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

pub fn assert_all_ran(results: &[(String, Result<(), String>)]) {
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(at, r)| r.as_ref().err().map(|e| format!("{at}: {e}")))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// Every block of every page runs, or its page says why not.
#[test]
fn every_docs_block_runs_or_says_why() {
    let mut results = Vec::new();
    for page in pages() {
        results.extend(run_page(&page));
    }
    assert!(results.len() >= 20, "{}", results.len());
    assert_all_ran(&results);
}
