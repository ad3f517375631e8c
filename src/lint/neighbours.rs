//! What lint reads of the repository beyond the file it lints: the
//! workflows another one's `workflow_run` reads, and the `with:` of the
//! calls into each reusable workflow. Reads the files (bounded as the
//! linted ones are), and joins what was read to a linted workflow
//! ([`join`]); the judgements on them are in [`super::calls`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::scripts::{self, Beside};
use super::workflow::{self, Job, Script, Step, Workflow};
use super::{FILE_LIMIT, Neighbours, callers, calls, shell, yaml};
use crate::runner::read;

/// Gives `flow`, the workflow read from `root` at `path` in the
/// repository whose scripts are `beside` (with the file's one budget of
/// spliced script, so a called job's commands spend what its steps left),
/// what the repository tells of it beyond
/// the file: what the caller knows (`--default-branch`, `--repository`),
/// the triggers of the workflows that call it, the values its callers give
/// its inputs, and the commands and caches of the repository's own actions
/// its steps use. The rules then read one workflow, whatever came from
/// where.
pub fn join<'a>(
    flow: &mut Workflow<'a>,
    root: &yaml::Node,
    path: &Path,
    beside: &Beside<'_>,
    neighbours: &'a Neighbours<'_>,
) {
    flow.default_branch = neighbours.known.default_branch.map(str::to_owned);
    flow.repository = neighbours.known.repository.map(str::to_owned);
    flow.direct_callers = callers::of(&neighbours.callers, path)
        .filter(|(_, direct)| *direct)
        .count();
    flow.callers = callers::of(&neighbours.callers, path)
        .map(|(on, _)| workflow::triggers_only(on))
        .map(|mut c| {
            c.default_branch.clone_from(&flow.default_branch);
            c
        })
        .collect();
    let with: Vec<Option<&yaml::Node>> = neighbours
        .calls_with
        .get(path)
        .map(|v| v.iter().map(Option::as_ref).collect())
        .unwrap_or_default();
    let inputs = calls::input_values(root, &with);
    for job in &mut flow.jobs {
        job.inputs = inputs.clone();
        let called = job
            .text("uses")
            .and_then(calls::local_file)
            .and_then(|name| {
                neighbours
                    .callees
                    .get(&calls::workflows_dir(path).join(name))
            });
        if let Some(callee) = called {
            let steps = given_steps(job, &calls::workflow_run_inputs(callee), beside);
            job.steps.extend(steps);
        } else if let Some(input) = job.text("uses").and_then(remote_script_input) {
            let steps = given_steps(job, &[input.to_owned()], beside);
            job.steps.extend(steps);
        }
        for step in &mut job.steps {
            let dir = step.text("uses").and_then(|u| u.trim().strip_prefix("./"));
            if let Some(action) = dir.and_then(|d| neighbours.actions.get(&beside.root.join(d))) {
                step.given = calls::given_commands(step, &action.runs);
                step.cache_saves.clone_from(&action.saves);
                step.action_text = Rc::clone(&action.text);
            }
        }
    }
}

/// Reusable workflows of another repository, well known to run one of
/// their inputs as the job's script on the runner the call names
/// (`runner:`): pytorch/test-infra's `linux_job*.yml`, `macos_job.yml`
/// and `windows_job.yml` run `script:` (multipy's build, test and
/// benchmark). Their files are not at hand; what they run is.
const REMOTE_JOBS: &[&str] = &[
    "pytorch/test-infra/.github/workflows/linux_job.yml",
    "pytorch/test-infra/.github/workflows/linux_job_v2.yml",
    "pytorch/test-infra/.github/workflows/linux_job_v3.yml",
    "pytorch/test-infra/.github/workflows/macos_job.yml",
    "pytorch/test-infra/.github/workflows/windows_job.yml",
];

/// The input a well-known remote job workflow runs as its script
/// ([`REMOTE_JOBS`]), for a call's `uses:` at any ref.
fn remote_script_input(uses: &str) -> Option<&'static str> {
    let path = uses.split('@').next().unwrap_or(uses).trim();
    REMOTE_JOBS
        .iter()
        .any(|known| known.eq_ignore_ascii_case(path))
        .then_some("script")
}

/// The commands a job that calls a reusable workflow of its repository
/// gives it through the inputs `names` its jobs run (BladeDISC's
/// `exec_command: bash ./pytorch_blade/benchmark/TorchBench/torch_bench_gpu.sh
/// cuda partial`, run by `reusable.yml` inside `docker run`), each read as
/// a step of the calling job whose script is that value, at its line,
/// with the repository scripts it runs read `beside` it: the called job
/// runs them for this caller.
fn given_steps<'a>(job: &Job<'a>, names: &[String], beside: &Beside<'_>) -> Vec<Step<'a>> {
    let with = job.get("with").map(yaml::Node::entries).unwrap_or_default();
    let mut out = Vec::new();
    for (key, value) in with {
        let runs = names.iter().any(|n| n.eq_ignore_ascii_case(&key.text));
        let Some(scalar) = value.scalar().filter(|_| runs) else {
            continue;
        };
        let Ok(commands) = shell::commands_with(&scalar.text, job.env.vars()) else {
            continue;
        };
        out.push(Step {
            node: value,
            script: Some(Script {
                scalar,
                commands: scripts::splice(commands, beside, None, job.env.vars()),
            }),
            env: job.env.clone(),
            given: Vec::new(),
            cache_saves: Vec::new(),
            action_text: Rc::from(Vec::new()),
        });
    }
    out
}

/// The workflow names a file's `workflow_run` triggers name, added to
/// `names`, when the file reads what the triggering run left: its
/// artifacts (`actions/download-artifact` with its run, `gh run
/// download`, the run's `artifacts_url`) or the run itself by its id
/// (`github.event.workflow_run.id`). A file that reads only the run's
/// conclusion (flist-walker's dependabot auto-merge, after its CI) keeps
/// none of its results.
pub fn consumed_in(root: &yaml::Node, names: &mut Vec<String>) {
    if !reads_runs_results(root) {
        return;
    }
    let runs = root.get("on").and_then(|on| on.get("workflow_run"));
    if let Some(list) = runs.and_then(|r| r.get("workflows")) {
        match list.str() {
            Some(one) => names.push(one.to_owned()),
            None => names.extend(
                list.items()
                    .iter()
                    .filter_map(|n| n.str().map(str::to_owned)),
            ),
        }
    }
}

/// Whether any value of the file's jobs names an artifact or a download
/// of a run's, or the triggering run's id (not the file's concurrency
/// group, which flist-walker keys by that id).
fn reads_runs_results(root: &yaml::Node) -> bool {
    let mut scalars = Vec::new();
    if let Some(jobs) = root.get("jobs") {
        jobs.scalars(&mut scalars);
    }
    scalars.iter().any(|s| {
        let t = s.text.to_ascii_lowercase();
        t.contains("artifact") || t.contains("gh run download") || t.contains("workflow_run.id")
    })
}

/// The calls by the file at `path` into reusable workflows of its own
/// repository, added to `out` by called file: each calling job's `with:`.
pub fn calls_with_in(path: &Path, root: &yaml::Node, out: &mut CallsWith) {
    let jobs = root
        .get("jobs")
        .map(yaml::Node::entries)
        .unwrap_or_default();
    for (_, job) in jobs {
        let Some(name) = job
            .get("uses")
            .and_then(yaml::Node::str)
            .and_then(calls::local_file)
        else {
            continue;
        };
        let called = calls::workflows_dir(path).join(name);
        out.entry(called).or_default().extend(with_by_matrix(job));
    }
}

/// At most this many `with:` are read of one calling job's matrix.
pub const MAX_MATRIX_CALLS: usize = 64;

/// A calling job's `with:`, once for each value its matrix gives an input
/// passed as `${{ matrix.K }}` (ada's `runner: ${{ matrix.runner }}` over
/// `[macos-14, macos-15, macos-26]`): each call the matrix makes passes
/// one of them, so the called workflow's input is each in turn, as
/// written. Inputs passed otherwise stay as they are; at most
/// [`MAX_MATRIX_CALLS`] of one job.
fn with_by_matrix(job: &yaml::Node) -> Vec<Option<yaml::Node>> {
    let with = job.get("with");
    let matrix = job.get("strategy").and_then(|s| s.get("matrix"));
    let (Some(with), Some(matrix)) = (with, matrix) else {
        return vec![with.cloned()];
    };
    let yaml::Value::Map(entries) = &with.value else {
        return vec![Some(with.clone())];
    };
    let written: Vec<Vec<String>> = entries
        .iter()
        .map(|(_, v)| {
            v.str()
                .map(|t| workflow::matrix_written(matrix, t))
                .unwrap_or_default()
        })
        .collect();
    let rows = written.iter().map(Vec::len).max().unwrap_or(0);
    if rows == 0 {
        return vec![Some(with.clone())];
    }
    (0..rows.min(MAX_MATRIX_CALLS))
        .map(|row| {
            let mut one = with.clone();
            if let yaml::Value::Map(entries) = &mut one.value {
                for ((_, node), values) in entries.iter_mut().zip(&written) {
                    let Some(v) = row.checked_rem(values.len()).and_then(|r| values.get(r)) else {
                        continue;
                    };
                    if let yaml::Value::Scalar(s) = &node.value {
                        let scalar = yaml::Scalar::new(v.clone(), s.style, s.at);
                        node.value = yaml::Value::Scalar(scalar);
                    }
                }
            }
            Some(one)
        })
        .collect()
}

/// Each called workflow's calling jobs' `with:`.
pub type CallsWith = BTreeMap<PathBuf, Vec<Option<yaml::Node>>>;

/// At most this many of the repository's own actions are read.
pub const MAX_ACTIONS: usize = 64;

/// What lint keeps of one of the repository's own actions.
#[derive(Debug, Default)]
pub struct Action {
    /// The inputs its `run:` lines run ([`calls::run_inputs`]).
    pub runs: Vec<String>,
    /// The keys of the caches its steps save ([`cache_saves`]).
    pub saves: Vec<String>,
    /// The text of its steps and outputs, each scalar once.
    pub text: Rc<[String]>,
}

/// The keys of the caches an action's steps save explicitly
/// (`actions/cache/save`, with no `if:` of their own): a composite action
/// that saves a cache saves it for every step that uses it (knowhere's
/// `cache-save` action on its self-hosted runner). Not `actions/cache`,
/// which restores first and saves only on a miss: setup actions shared by
/// every job use it for tools keyed by their install scripts (vector's
/// `setup`), and each of its users would be a finding.
fn cache_saves(action: &yaml::Node) -> Vec<String> {
    let steps = action
        .get("runs")
        .and_then(|r| r.get("steps"))
        .map(yaml::Node::items)
        .unwrap_or_default();
    steps
        .iter()
        .filter(|s| s.get("if").is_none())
        .filter(|s| {
            let uses = s.get("uses").and_then(yaml::Node::str).unwrap_or("");
            let action = uses.split('@').next().unwrap_or("").trim();
            action == "actions/cache/save"
        })
        .filter_map(|s| s.get("with")?.get("key")?.str().map(str::to_owned))
        .collect()
}

/// The text of an action's steps and outputs: neqo's `bench-matrix`
/// writes the matrix its benchmark jobs run on (`runner: "ubuntu-24.04"`)
/// in a `jq` program of its `run:`.
fn action_text(action: &yaml::Node) -> Rc<[String]> {
    let mut scalars = Vec::new();
    for key in ["runs", "outputs"] {
        if let Some(n) = action.get(key) {
            n.scalars(&mut scalars);
        }
    }
    scalars.into_iter().map(|s| s.text.clone()).collect()
}

/// The repository's own actions the files' steps use (`uses:
/// ./.github/actions/eks-jobset`), by their folder under the repository
/// root: the inputs each one's `run:` lines use, the caches it saves.
/// Each `action.yml` (or `.yaml`) is read when it is a regular file of at
/// most [`FILE_LIMIT`] inside the repository once links are followed; a
/// folder named with `..` is not.
pub fn actions_in(path: &Path, root: &yaml::Node, out: &mut BTreeMap<PathBuf, Action>) {
    let checkout = scripts::checkout_root(path);
    for dir in local_actions(root) {
        let at = checkout.join(dir);
        if out.len() >= MAX_ACTIONS || out.contains_key(&at) {
            continue;
        }
        let read = ["action.yml", "action.yaml"].iter().find_map(|f| {
            let file = at.join(f);
            crate::runner::place::inside(&file, &[checkout.as_path()]).ok()?;
            std::fs::metadata(&file).ok().filter(|m| m.is_file())?;
            read::bounded_text("action", &file, FILE_LIMIT).ok()
        });
        if let Some(node) = read.and_then(|t| yaml::parse(&t).ok()) {
            let action = Action {
                runs: calls::run_inputs(&node),
                saves: cache_saves(&node),
                text: action_text(&node),
            };
            out.insert(at, action);
        }
    }
}

/// The folders of the repository's own actions a workflow's steps use.
fn local_actions(root: &yaml::Node) -> Vec<String> {
    let jobs = root
        .get("jobs")
        .map(yaml::Node::entries)
        .unwrap_or_default();
    let mut out = Vec::new();
    for (_, job) in jobs {
        let steps = job.get("steps").map(yaml::Node::items).unwrap_or_default();
        for step in steps {
            let Some(dir) = step
                .get("uses")
                .and_then(yaml::Node::str)
                .and_then(|u| u.trim().strip_prefix("./"))
            else {
                continue;
            };
            let plain = !dir.split('/').any(|p| p == ".." || p.is_empty());
            if plain && !out.iter().any(|d| d == dir) {
                out.push(dir.to_owned());
            }
        }
    }
    out
}

/// The workflow at `path`, when it can be read (within [`FILE_LIMIT`])
/// and is YAML; one that cannot is said when it is linted.
pub fn parsed(path: &std::path::Path) -> Option<yaml::Node> {
    read::bounded_text("workflow", path, FILE_LIMIT)
        .ok()
        .and_then(|text| yaml::parse(&text).ok())
}
