//! Jobs that call a reusable workflow (`uses:` at the job level) hold the
//! runners the called workflow's jobs ask for, which the calling file does
//! not show. Measured on a recall set labelled by reading, five
//! of eight missed findings were such calls: GPU test and benchmark jobs
//! whose `always()` or cancelling group lint could not see as expensive.
//!
//! A call into the same repository (`uses: ./.github/workflows/x.yml`) is
//! judged by the called file, read beside the caller (`lint::callees`
//! reads it; everything here is pure): its jobs' `runs-on`, with
//! `${{ inputs.K }}` read as the caller's `with: K` when that is written
//! out, else the input's `default:`. A call into another repository
//! (`owner/repo/.github/workflows/x.yml@ref`), or one whose file is not
//! at hand, is judged only by what the caller passes: a `with:` key
//! naming a GPU (`gpu-arch-type: cuda`), or naming a runner or machine
//! whose written value is an expensive label (`runner: linux.g5.4xlarge`,
//! `machine_type: single-gpu`; the quoted labels of an expression too),
//! or any input whose value names one by the patterns `runs-on` is read
//! with (a GPU, `self-hosted`, a larger hosted runner), whatever the
//! key's name: rapids' calls pass `node_type: "gpu-l4-latest-1"`, and a
//! list of key names misses the next project's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::candidates::candidates;
use super::env::StepEnv;
use super::shell::{Command, commands_with};
use super::workflow::{CallInputs, Job, Step, costly_labels, input_in, larger_image};
use super::yaml::Node;

/// The called workflows read beside their callers: path -> parsed file.
pub type Callees = BTreeMap<PathBuf, Node>;

/// At most this many called files are read for one lint run (each at most
/// `FILE_LIMIT`): the workflows are a stranger's.
pub const MAX_CALLEES: usize = 64;

/// How many calls deep a caller's runners are followed: a caller, the
/// workflow it calls, and so on down to this many called files. GitHub
/// allows ten levels; tt-xla's uplift workflows reach their Tenstorrent
/// jobs three calls down (uplift, perf uplift, filtered perf tests, perf
/// test), and a chain deeper than this is read by what its last call
/// passes. A workflow that calls itself ends there too.
pub const MAX_CALL_DEPTH: usize = 4;

/// At most this many jobs of called files are read to judge one call of
/// the linted file, however the calls nest: without it, 100 jobs each
/// calling a file whose 100 jobs call it again are 100^4 jobs per call
/// down to [`MAX_CALL_DEPTH`]. Once they are spent, the jobs not yet read
/// are no evidence and a call met then is judged by what it passes.
pub const MAX_JOBS_JUDGED: usize = 1024;

/// The file a job's `uses:` names in its own repository's
/// `.github/workflows` (GitHub allows no other place), as a bare file name
/// (no `/`, no `..`): `None` for another repository's workflow.
pub fn local_file(uses: &str) -> Option<&str> {
    let name = uses.trim().strip_prefix("./.github/workflows/")?;
    let plain = !name.contains(['/', '\\']) && !name.starts_with('.');
    (plain && (name.ends_with(".yml") || name.ends_with(".yaml"))).then_some(name)
}

/// Where the workflows a caller at `caller` calls with `./.github/...`
/// lie: beside it when it is in `.github/workflows`, else the working
/// directory's (the repository root, where lint runs).
pub fn workflows_dir(caller: &Path) -> PathBuf {
    match caller.parent() {
        Some(dir) if dir.ends_with(".github/workflows") => dir.to_path_buf(),
        _ => PathBuf::from(".github/workflows"),
    }
}

/// The called workflow of `job` when it is a call into the same
/// repository whose file was read beside the caller at `caller`.
pub fn called<'c>(job: &Job<'_>, caller: &Path, callees: &'c Callees) -> Option<&'c Node> {
    let file = local_file(job.text("uses")?)?;
    callees.get(&workflows_dir(caller).join(file))
}

/// Whether `job`, a call of a reusable workflow from the file at
/// `caller`, is seen to hold an expensive runner.
pub fn costly_call(job: &Job<'_>, caller: &Path, callees: &Callees) -> bool {
    let mut budget = MAX_JOBS_JUDGED;
    costly_call_at(job, caller, callees, 1, &mut budget)
}

/// [`costly_call`] for a call `depth` files down from the linted one: past
/// [`MAX_CALL_DEPTH`] the called file is not read, only what the call
/// passes, and so once `budget` (the called jobs still to be read, of
/// [`MAX_JOBS_JUDGED`]) is spent.
fn costly_call_at(
    job: &Job<'_>,
    caller: &Path,
    callees: &Callees,
    depth: usize,
    budget: &mut usize,
) -> bool {
    if job.text("uses").is_none() {
        return false;
    }
    let readable = depth <= MAX_CALL_DEPTH && *budget > 0;
    match called(job, caller, callees).filter(|_| readable) {
        Some(root) => callee_costly(job, root, caller, callees, depth, budget),
        None => passes_costly_runner(job) || job.text("uses").is_some_and(named_costly),
    }
}

/// Whether a workflow of another repository is named for self-hosted or
/// GPU runners (`qiboteam/workflows/.github/workflows/selfhosted.yml@v1`,
/// `org/ci/.github/workflows/gpu-tests.yml@main`): its file is not at
/// hand, and a call that passes no runner says only this. In the six
/// labelled sets and the old corpus, qibojit's GPU tests are the one call
/// so named.
fn named_costly(uses: &str) -> bool {
    if local_file(uses).is_some() {
        return false;
    }
    let path = uses.split('@').next().unwrap_or(uses);
    let file = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let words: Vec<&str> = file
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    file.contains("self-hosted")
        || file.contains("self_hosted")
        || words
            .iter()
            .any(|w| ["selfhosted", "gpu", "gpus", "cuda", "rocm"].contains(w))
}

/// Whether a job of the called workflow `root` runs on an expensive
/// runner, its `${{ inputs.K }}` labels read as `caller` passes them; a
/// job of it that calls a workflow in turn is judged by that one's jobs.
fn callee_costly(
    caller: &Job<'_>,
    root: &Node,
    at: &Path,
    callees: &Callees,
    depth: usize,
    budget: &mut usize,
) -> bool {
    let jobs = root.get("jobs").map(Node::entries).unwrap_or_default();
    jobs.iter().any(|(id, node)| {
        let Some(left) = budget.checked_sub(1) else {
            return false;
        };
        *budget = left;
        let job = Job {
            id,
            node,
            steps: Vec::new(),
            env: StepEnv::default(),
            inputs: CallInputs::new(),
        };
        if job.text("uses").is_some() {
            return costly_call_at(&job, at, callees, depth.saturating_add(1), budget);
        }
        costly_labels(&callee_labels(caller, root, &job), job.devices())
    })
}

/// The runner labels of `job`, a job of the called workflow `root`, with
/// `${{ inputs.K }}` read as `caller` passes K (written out), else the
/// input's `default:`; an input passed as an expression stays unknown.
pub fn callee_labels(caller: &Job<'_>, root: &Node, job: &Job<'_>) -> Vec<String> {
    labels_given(&input_values(root, &[caller.get("with")]), job)
}

/// [`callee_labels`] with the call's input values read once (`given`),
/// for a caller that asks it of every job of the called file.
pub fn labels_given(given: &CallInputs, job: &Job<'_>) -> Vec<String> {
    job.runner_labels()
        .into_iter()
        .map(|l| {
            let plain = input_in(&l).filter(|&(_, json)| !json).map(|(k, _)| k);
            plain
                .and_then(|k| given.get(k))
                .and_then(|v| v.first().cloned())
                .unwrap_or(l)
        })
        .collect()
}

/// The values each `workflow_call` input of the reusable workflow `root`
/// is given: what each caller of the same repository (its `with:`, one
/// entry per calling job) passes written out, or the input's default
/// when a caller passes none or there is no caller. An input some caller
/// gives by an expression is left out: its value is not in the files
/// (read on bbolt's benchmark template, `runs-on: ${{
/// fromJson(inputs.runs-on) }}` defaulting to `['ubuntu-latest']`).
pub fn input_values(root: &Node, callers: &[Option<&Node>]) -> CallInputs {
    let declared = root
        .get("on")
        .and_then(|on| on.get("workflow_call"))
        .and_then(|c| c.get("inputs"))
        .map(Node::entries)
        .unwrap_or_default();
    let mut out = CallInputs::new();
    for (key, input) in declared {
        let default = input.get("default").and_then(Node::str);
        let given: Vec<Option<&str>> = if callers.is_empty() {
            vec![default]
        } else {
            callers
                .iter()
                .map(|with| {
                    let passed = with.and_then(|w| w.get(&key.text));
                    passed.map_or(default, Node::str)
                })
                .collect()
        };
        if given.iter().all(|v| v.is_some_and(|v| !v.contains("${{"))) {
            out.insert(
                key.text.clone(),
                given.into_iter().flatten().map(str::to_owned).collect(),
            );
        }
    }
    out
}

/// The inputs a composite action's `run:` lines run: `${{ inputs.X }}`
/// where a command starts, after `bash -c` or `eval`, or as the whole
/// value of a variable kept to run (`CMD="${{ inputs.COMMAND }}"`,
/// JAX-Toolbox's `eks-jobset` action, which runs it in a Kubernetes job). An
/// input that is an argument (`--name "${{ inputs.NAME
/// }}"`) is not run.
pub fn run_inputs(action: &Node) -> Vec<String> {
    let steps = action
        .get("runs")
        .and_then(|r| r.get("steps"))
        .map(Node::items)
        .unwrap_or_default();
    inputs_run_by(steps.iter(), true)
}

/// The inputs the jobs of the reusable workflow `flow` run, as
/// [`run_inputs`] reads an action's: BladeDISC's `reusable.yml` runs its
/// callers' `exec_command` as a container's command (`docker run ...
/// IMAGE ${{ inputs.exec_command }}`).
/// Not a variable's value: in a workflow that is most often a setting
/// (tt-forge-fe's `SHOULD_SPLIT_BY_COUNT='${{ inputs.split-by-count }}'`),
/// and a call passing `true` would read as a job that runs `true`.
pub fn workflow_run_inputs(flow: &Node) -> Vec<String> {
    let jobs = flow.get("jobs").map(Node::entries).unwrap_or_default();
    inputs_run_by(
        jobs.iter()
            .flat_map(|(_, job)| job.get("steps").map(Node::items).unwrap_or_default()),
        false,
    )
}

/// The inputs the `run:` scripts of `steps` run: where a command starts
/// (after `;`, `&&`, `bash -c`, `eval`, ...), as a variable's whole value
/// kept to run (`assigned`), or as the command a container runs.
fn inputs_run_by<'n>(steps: impl Iterator<Item = &'n Node>, assigned: bool) -> Vec<String> {
    let mut names = Vec::new();
    let mut seen = BTreeSet::new();
    for run in steps.filter_map(|s| s.get("run").and_then(Node::str)) {
        for name in container_inputs(run) {
            if seen.insert(name.clone()) {
                names.push(name);
            }
        }
        for (at, _) in run.match_indices("${{") {
            let rest = run.get(at.saturating_add(3)..).unwrap_or("").trim_start();
            let Some(rest) = rest.strip_prefix("inputs.") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
                .collect();
            let before = line_before(run, at);
            let before = before.trim_end_matches(['"', '\'']).trim_end();
            let starts = before.is_empty()
                || [";", "&&", "||", "|", "-c", "eval", "exec"]
                    .iter()
                    .any(|e| before.ends_with(e))
                || assigned
                    && before
                        .rsplit(char::is_whitespace)
                        .next()
                        .and_then(|w| w.strip_suffix('='))
                        .is_some_and(|v| {
                            !v.is_empty()
                                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        });
            if starts && !name.is_empty() && seen.insert(name.clone()) {
                names.push(name);
            }
        }
    }
    names
}

/// The inputs a script gives a container as its command: the last word
/// of `docker run` (or `podman run`, `docker exec`) is `${{ inputs.X }}`,
/// after the image, not an option's value (`-w ${{ inputs.DIR }}`). A
/// script the shell reader refuses gives none.
fn container_inputs(run: &str) -> Vec<String> {
    let Ok(commands) = super::shell::commands(run) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in &commands {
        let words: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
        let container = matches!(
            words.as_slice(),
            [engine, "run" | "exec", ..] if matches!(super::shell::file_name(engine), "docker" | "podman")
        );
        let [.., before, last] = words.as_slice() else {
            continue;
        };
        let name = input_in(last).filter(|&(_, json)| !json).map(|(k, _)| k);
        if let Some(name) = name.filter(|_| container && !before.starts_with('-')) {
            out.push(name.to_owned());
        }
    }
    out
}

/// How far back from an input's `${{` the command it stands in is read.
/// Read to the line's start, a stranger's line of 4 MiB of `${{ inputs.A
/// }}` is read back once per input, 10^12 steps; a command word (`eval`,
/// `CMD=`) is a few bytes.
const BEFORE_LIMIT: usize = 256;

/// The text of `run`'s line that holds byte `at`, up to `at`: at most its
/// last [`BEFORE_LIMIT`] bytes, cut at a character's boundary.
fn line_before(run: &str, at: usize) -> &str {
    let mut start = at.saturating_sub(BEFORE_LIMIT);
    while !run.is_char_boundary(start) {
        start = start.saturating_add(1);
    }
    let before = run.get(start..at).unwrap_or("");
    before.rsplit('\n').next().unwrap_or(before)
}

/// The commands a step gives its action through the inputs `names` the
/// action runs, each value read as a script with the step's variables.
pub fn given_commands(step: &Step<'_>, names: &[String]) -> Vec<Command> {
    let with = step.node.get("with").map(Node::entries).unwrap_or_default();
    let mut out = Vec::new();
    for (key, value) in with {
        let runs = names.iter().any(|n| n.eq_ignore_ascii_case(&key.text));
        let Some(text) = value.str().filter(|_| runs) else {
            continue;
        };
        if let Ok(commands) = commands_with(&step.env.expand(text), step.env.vars()) {
            out.extend(commands);
        }
    }
    out
}

/// Whether a call passes an expensive runner in its `with:`: a key naming
/// a GPU with a value other than none (`gpu-arch-type: cuda`), a key
/// naming a runner or machine whose written labels are expensive, or any
/// key whose value names an expensive runner ([`names_costly_runner`]).
fn passes_costly_runner(job: &Job<'_>) -> bool {
    let with = job.get("with").map(Node::entries).unwrap_or_default();
    with.iter().any(|(key, value)| {
        let key = key.text.to_ascii_lowercase();
        let Some(value) = value.str() else {
            return false;
        };
        if key.contains("gpu") {
            let v = value.trim().to_ascii_lowercase();
            return !["", "cpu", "none", "false", "0", "no"].contains(&v.as_str());
        }
        let names_runner = ["runner", "runs-on", "runs_on", "machine", "instance"]
            .iter()
            .any(|k| key.contains(k));
        let labels = written_labels(value);
        (names_runner && costly_labels(&labels, false))
            || labels.iter().any(|l| names_costly_runner(l))
    })
}

/// Whether a value of any input names an expensive runner by the patterns
/// `runs-on` is read with: a GPU label (`gpu-l4-latest-1`), `self-hosted`,
/// or one of GitHub's larger runners (`ubuntu-latest-16-cores`). A custom
/// word counts as a runner only under a key naming one: under any key it
/// is as likely a name or a mode (`docs`, `nightly`). A value with spaces
/// or a path (`tests/gpu`) is not a label.
fn names_costly_runner(label: &str) -> bool {
    let l = label.trim().to_ascii_lowercase();
    let plain = !l.is_empty() && !l.contains(|c: char| c.is_whitespace() || c == '/');
    plain
        && (l.contains("gpu") || l == "self-hosted" || larger_image(&l))
        && costly_labels(&[l], false)
}

/// The labels a value writes out: itself, or the strings an expression
/// may give ([`candidates`]: `${{ cond && 'a100-runner' || 'a10g-runner'
/// }}`, not the operands of its comparisons); words that are not labels
/// (`true`, numbers) left out.
fn written_labels(value: &str) -> Vec<String> {
    let labels: Vec<String> = if value.contains("${{") {
        candidates(value)
    } else {
        vec![value.trim().to_owned()]
    };
    labels
        .into_iter()
        .filter(|l| {
            !l.is_empty()
                && !["true", "false"].contains(&l.as_str())
                && !l.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::workflow::read;
    use crate::lint::yaml::parse;

    fn costly(caller: &str, callee: Option<&str>) -> bool {
        let root = parse(caller).unwrap();
        let flow = read(&root).unwrap();
        let mut callees = Callees::new();
        if let Some(text) = callee {
            callees.insert(
                PathBuf::from("r/.github/workflows/gpu.yml"),
                parse(text).unwrap(),
            );
        }
        let at = Path::new("r/.github/workflows/ci.yml");
        costly_call(&flow.jobs[0], at, &callees)
    }

    #[test]
    fn a_local_call_is_judged_by_the_called_jobs_runners() {
        let callee = "on:\n  workflow_call:\n    inputs:\n      runner:\n        type: string\n        default: ubuntu-latest\njobs:\n  t:\n    runs-on: ${{ inputs.runner }}\n    steps:\n      - run: make\n";
        let call = |with: &str| {
            format!("on: push\njobs:\n  c:\n    uses: ./.github/workflows/gpu.yml\n{with}")
        };
        assert!(costly(
            &call("    with:\n      runner: linux-mi300-gpu\n"),
            Some(callee)
        ));
        assert!(!costly(&call(""), Some(callee)), "the default is GitHub's");
        assert!(!costly(
            &call("    with:\n      runner: ${{ matrix.r }}\n"),
            Some(callee)
        ));
        let fixed = "on: workflow_call\njobs:\n  t:\n    runs-on: [self-hosted, h100]\n";
        assert!(costly(&call(""), Some(fixed)));
        // What the caller passes does not count when the called file says
        // otherwise: the matrix job of a GPU workflow runs on GitHub's.
        let hosted = "on: workflow_call\njobs:\n  t:\n    runs-on: ubuntu-latest\n";
        assert!(!costly(
            &call("    with:\n      gpu-arch: cuda\n"),
            Some(hosted)
        ));
    }

    #[test]
    fn a_chain_of_calls_is_followed_only_so_deep() {
        // c0 calls c1, ... c(n-1) calls cn, whose job holds a GPU.
        let chain = |n: usize| {
            let mut callees = Callees::new();
            for i in 1..=n {
                let text = if i == n {
                    "on: workflow_call\njobs:\n  t:\n    runs-on: [self-hosted, h100]\n".to_owned()
                } else {
                    format!(
                        "on: workflow_call\njobs:\n  c:\n    uses: ./.github/workflows/c{}.yml\n",
                        i + 1
                    )
                };
                callees.insert(
                    PathBuf::from(format!("r/.github/workflows/c{i}.yml")),
                    parse(&text).unwrap(),
                );
            }
            let root =
                parse("on: push\njobs:\n  c:\n    uses: ./.github/workflows/c1.yml\n").unwrap();
            let flow = read(&root).unwrap();
            costly_call(
                &flow.jobs[0],
                Path::new("r/.github/workflows/c0.yml"),
                &callees,
            )
        };
        assert!(chain(1));
        assert!(chain(MAX_CALL_DEPTH));
        assert!(
            !chain(MAX_CALL_DEPTH + 1),
            "past the bound, only what is passed"
        );
    }

    #[test]
    fn a_remote_call_is_judged_by_what_the_caller_passes() {
        let call = |with: &str| {
            format!(
                "on: push\njobs:\n  c:\n    uses: org/infra/.github/workflows/job.yml@main\n    with:\n{with}"
            )
        };
        for yes in [
            "      gpu-arch-type: cuda\n",
            "      machine_type: single-gpu\n",
            "      runner: ${{ inputs.big && 'mt-l-a100' || 'mt-l-a10g' }}\n",
            "      runner: linux.g5.4xlarge.nvidia.gpu\n",
            "      node_type: \"gpu-l4-latest-1\"\n",
            "      pool: ubuntu-24.04-16-cores\n",
        ] {
            assert!(costly(&call(yes), None), "{yes}");
        }
        let named = |file: &str| {
            format!(
                "on: push\njobs:\n  c:\n    uses: org/ci/.github/workflows/{file}@v1\n    with:\n      extras: test\n"
            )
        };
        for yes in [
            "selfhosted.yml",
            "self-hosted-tests.yml",
            "gpu_tests.yaml",
            "cuda.yml",
        ] {
            assert!(costly(&named(yes), None), "{yes}");
        }
        for no in ["tests.yml", "rules.yml", "debugpu.yml", "release.yml"] {
            assert!(!costly(&named(no), None), "{no}");
        }
        for no in [
            "      gpu-arch-type: cpu\n",
            "      runner: ubuntu-latest\n",
            "      upload-runner-logs: true\n",
            "      timeout: 90\n",
            "      node_type: cpu16\n",
            "      name: docs\n",
            "      script: ci/test.sh tests/gpu\n",
        ] {
            assert!(!costly(&call(no), None), "{no}");
        }
    }

    #[test]
    fn only_a_plain_file_of_the_workflows_folder_is_local() {
        assert_eq!(local_file("./.github/workflows/x.yml"), Some("x.yml"));
        for no in [
            "./.github/workflows/../../etc/x.yml",
            "./.github/workflows/sub/x.yml",
            "./.github/workflows/..yml",
            "org/r/.github/workflows/x.yml@v1",
            "./.github/workflows/x.txt",
        ] {
            assert_eq!(local_file(no), None, "{no}");
        }
    }
}
