//! A workflow as the rules read it: its triggers, its jobs and their steps,
//! each step's script already split into commands. Built once per file;
//! shapes GitHub would refuse are skipped, never an error (actionlint's
//! job), so a rule sees only what it understands.

use std::borrow::Cow;
use std::rc::Rc;

use super::env::StepEnv;
pub use super::runners::{
    accelerators, costly_labels, input_in, larger_image, matrix_written, own_machine_labels,
    unknown_runner,
};
use super::runners::{context_in, matrix_or_fallback, matrix_values, runner_choices, written_list};
use super::scripts::{self, Beside};
use super::shell::{self, Command, TooDeep};
use super::yaml::{Node, Pos, Scalar};

pub struct Workflow<'a> {
    pub root: &'a Node,
    /// Event names under `on:`.
    pub triggers: Vec<&'a str>,
    pub jobs: Vec<Job<'a>>,
    /// The workflow's `env:`.
    pub env: StepEnv,
    /// The workflows of the same repository that call this one (a
    /// reusable workflow), triggers only ([`triggers_only`]): their runs
    /// are its runs, and its `concurrency:` group is met by them.
    pub callers: Vec<Workflow<'a>>,
    /// How many of `callers`, the first, call this one themselves; the
    /// others call one of those (callers of callers).
    pub direct_callers: usize,
    /// The repository's default branch when the caller knows it
    /// (`--default-branch`): the file itself never says.
    pub default_branch: Option<String>,
    /// The repository's own `owner/name` when the caller knows it
    /// (`--repository`): a checkout of it by name is of its own code.
    pub repository: Option<String>,
}

pub struct Job<'a> {
    pub id: &'a Scalar,
    pub node: &'a Node,
    pub steps: Vec<Step<'a>>,
    /// The workflow's and the job's `env:`.
    pub env: StepEnv,
    /// What each `workflow_call` input of its file is known to be: every
    /// value its callers of the same repository pass, or its default
    /// (`calls::input_values`); empty when not known.
    pub inputs: CallInputs,
}

/// A reusable workflow's inputs as its callers give them: each input's
/// written values.
pub type CallInputs = std::collections::BTreeMap<String, Vec<String>>;

pub struct Step<'a> {
    pub node: &'a Node,
    /// Its commands read with [`Step::env`]'s variables set.
    pub script: Option<Script<'a>>,
    /// Every level's `env:`, the step's own last.
    pub env: StepEnv,
    /// The commands its `with:` gives the repository's own action as
    /// inputs that action runs (`COMMAND: python3 fuji-train-perf.py`
    /// to an action whose `run:` uses `${{ inputs.COMMAND }}`,
    /// [`super::calls::given_commands`]), or a tool's action as its
    /// subcommand (`actions-rs/cargo`'s `command: bench`, [`tool_command`]):
    /// what the step runs, as evidence.
    pub given: Vec<Command>,
    /// The keys of the caches the repository's own action it uses saves
    /// (`uses: ./.github/actions/cache-save`, whose steps run
    /// `actions/cache/save`): this step saves them.
    pub cache_saves: Vec<String>,
    /// The text of that action's steps and outputs (its scripts, their
    /// `env:`): what the step writes, as a job that picks another's
    /// runner is read ([`super::picks`]). Shared by every step using it.
    pub action_text: Rc<[String]>,
}

pub struct Script<'a> {
    pub scalar: &'a Scalar,
    pub commands: Vec<Command>,
}

impl Script<'_> {
    pub fn pos(&self, command: &Command) -> Pos {
        self.scalar.pos_of(command.at())
    }
}

/// A script the shell reader refused, and where its step's `run:` is.
#[derive(Debug, Clone, Copy)]
pub struct ScriptError {
    pub at: Pos,
    pub source: TooDeep,
}

/// Event names under `on:`.
fn triggers(root: &Node) -> Vec<&str> {
    match root.get("on") {
        Some(n) => match (n.str(), n.items(), n.entries()) {
            (Some(one), _, _) => vec![one],
            (_, items, _) if !items.is_empty() => items.iter().filter_map(Node::str).collect(),
            (_, _, entries) => entries.iter().map(|(k, _)| k.text.as_str()).collect(),
        },
        None => Vec::new(),
    }
}

/// A workflow read for its triggers alone (no jobs): a caller of a
/// reusable workflow, whose events start the called one's runs.
pub fn triggers_only(root: &Node) -> Workflow<'_> {
    Workflow {
        root,
        triggers: triggers(root),
        jobs: Vec::new(),
        env: StepEnv::default(),
        callers: Vec::new(),
        direct_callers: 0,
        default_branch: None,
        repository: None,
    }
}

pub fn read(root: &Node) -> Result<Workflow<'_>, ScriptError> {
    read_beside(root, None)
}

/// [`read`], each step's commands followed by those of the repository
/// scripts it runs, when they were read `beside` it ([`scripts`]).
pub fn read_beside<'a>(
    root: &'a Node,
    beside: Option<&Beside<'_>>,
) -> Result<Workflow<'a>, ScriptError> {
    let triggers = triggers(root);
    let env = StepEnv::default().with(root.get("env"));
    let jobs = root
        .get("jobs")
        .map(|jobs| {
            jobs.entries()
                .iter()
                .map(|(id, node)| {
                    let env = env.with(node.get("env"));
                    let steps = node
                        .get("steps")
                        .map(|s| s.items().iter().map(|n| step(n, &env, beside)).collect())
                        .transpose()?
                        .unwrap_or_default();
                    Ok(Job {
                        id,
                        node,
                        steps,
                        env,
                        inputs: CallInputs::new(),
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?
        .unwrap_or_default();
    Ok(Workflow {
        root,
        triggers,
        jobs,
        env,
        callers: Vec::new(),
        direct_callers: 0,
        default_branch: None,
        repository: None,
    })
}

fn step<'a>(
    node: &'a Node,
    job: &StepEnv,
    beside: Option<&Beside<'_>>,
) -> Result<Step<'a>, ScriptError> {
    let env = job.with(node.get("env"));
    let script = match node
        .get("run")
        .or_else(|| script_input(node))
        .and_then(Node::scalar)
    {
        Some(scalar) => {
            let commands =
                shell::commands_with(&scalar.text, env.vars()).map_err(|source| ScriptError {
                    at: scalar.pos_of(source.at),
                    source,
                })?;
            let wd = node.get("working-directory").and_then(Node::str);
            let commands = match beside {
                Some(b) => scripts::splice(commands, b, wd, env.vars()),
                None => commands,
            };
            Some(Script { scalar, commands })
        }
        None => None,
    };
    Ok(Step {
        node,
        script,
        given: tool_command(node, &env),
        env,
        cache_saves: Vec::new(),
        action_text: Rc::from(Vec::new()),
    })
}

/// A step's `uses:` without its `@ref`, lower-cased: the action it runs.
fn action_name(node: &Node) -> Option<String> {
    let uses = node.get("uses").and_then(Node::str)?;
    Some(uses.split('@').next().unwrap_or(uses).to_lowercase())
}

/// Actions that run a tool with the subcommand and its arguments given as
/// inputs (`actions-rs/cargo` with `command: bench` and `args: --bench
/// x`: OBDDimal's "Benchmark PR base" runs `cargo bench`): the tool, and
/// the two inputs.
const TOOL_INPUTS: &[(&str, &str, &str, &str)] =
    &[("actions-rs/cargo", "cargo", "command", "args")];

/// What a step using one of [`TOOL_INPUTS`]' actions runs, as a command
/// read for evidence, as a `run:` is.
fn tool_command(node: &Node, env: &StepEnv) -> Vec<Command> {
    let Some(action) = action_name(node) else {
        return Vec::new();
    };
    let Some((_, tool, command, args)) = TOOL_INPUTS.iter().find(|(a, ..)| *a == action) else {
        return Vec::new();
    };
    let with = node.get("with");
    let input = |k: &str| with.and_then(|w| w.get(k)).and_then(Node::str);
    let Some(command) = input(command) else {
        return Vec::new();
    };
    let text = format!("{tool} {command} {}", input(args).unwrap_or(""));
    shell::commands_with(&text, env.vars()).unwrap_or_default()
}

/// Actions that run a shell script given as one of their inputs, in a
/// container or again until it passes, and that input: what the step
/// runs, as a `run:` is (`addnab/docker-run-action` runs its `run:` in the
/// image it names: concrete's "Benchmark" step builds and measures there;
/// `nick-fields/retry` its `command:`, STeLLAR's `./stellar` experiments).
const SCRIPT_INPUTS: &[(&str, &str)] = &[
    ("addnab/docker-run-action", "run"),
    ("uraimo/run-on-arch-action", "run"),
    ("nick-fields/retry", "command"),
    ("wandalen/wretry.action", "command"),
];

/// The script input of a step using one of [`SCRIPT_INPUTS`]' actions.
fn script_input(node: &Node) -> Option<&Node> {
    let action = action_name(node)?;
    let (_, input) = SCRIPT_INPUTS.iter().find(|(a, _)| *a == action)?;
    node.get("with")?.get(input)
}

impl Workflow<'_> {
    /// The workflow and the workflows that call it: whose runs meet in
    /// its `concurrency:` group.
    pub fn runs(&self) -> impl Iterator<Item = &Self> {
        std::iter::once(self).chain(&self.callers)
    }

    /// The workflow and the workflows that call it themselves, not their
    /// own callers.
    pub fn direct_runs(&self) -> impl Iterator<Item = &Self> {
        std::iter::once(self).chain(self.callers.iter().take(self.direct_callers))
    }

    pub fn on(&self, event: &str) -> bool {
        self.triggers.contains(&event)
    }

    pub fn on_pull_request(&self) -> bool {
        self.on("pull_request") || self.on("pull_request_target")
    }

    /// The activity types of `pull_request` and `pull_request_target` the
    /// workflow runs on (`labeled`, ...); none written means GitHub's
    /// default (opened, synchronize, reopened).
    pub fn pull_request_types(&self) -> Vec<&str> {
        let Some(on) = self.root.get("on") else {
            return Vec::new();
        };
        ["pull_request", "pull_request_target"]
            .iter()
            .filter_map(|e| on.get(e))
            .filter_map(|n| n.get("types"))
            .flat_map(|t| match t.str() {
                Some(one) => vec![one],
                None => t.items().iter().filter_map(Node::str).collect(),
            })
            .collect()
    }

    /// Whether pushes to the default branch run this workflow: `main` or
    /// `master` (the file does not say which), and the branch given as the
    /// repository's default (`branch-25.06`, `mainline`) when known.
    pub fn pushes_to_default(&self) -> bool {
        if !self.on("push") {
            return false;
        }
        if self.root.get("on").and_then(|on| on.get("push")).is_none() {
            return true;
        }
        let names = |key: &str| self.push_filter(key);
        let known = self.default_branch.as_deref();
        let default = |p: &str| {
            ["main", "master"].iter().any(|b| branch_glob(p, b))
                || known.is_some_and(|b| branch_glob(p, b))
        };
        if let Some(branches) = names("branches") {
            return branches.iter().any(|p| default(p));
        }
        if let Some(ignored) = names("branches-ignore") {
            return !ignored.iter().any(|p| default(p));
        }
        // Tags only: no branch push runs it.
        names("tags").is_none() && names("tags-ignore").is_none()
    }

    /// The name the default branch's pushes run under in this file: the
    /// known default when the push filter takes it (or takes every branch),
    /// else `main` or `master`, whichever the filter names. A filter of
    /// `master` alone in a repository whose default is known as `main`
    /// (Neuroblox's CI, written for `master`) pushes under `master`, so a
    /// `cancel-in-progress: ${{ github.ref != 'refs/heads/master' }}` is
    /// false for them.
    pub fn pushed_default(&self) -> Option<&str> {
        let known = self.default_branch.as_deref()?;
        let Some(branches) = self.push_filter("branches") else {
            return Some(known);
        };
        if branches.iter().any(|p| branch_glob(p, known)) {
            return Some(known);
        }
        ["main", "master"]
            .into_iter()
            .find(|b| branches.iter().any(|p| branch_glob(p, b)))
            .or(Some(known))
    }

    /// The patterns of the `push:` trigger's `branches`, `tags`, ... as
    /// written (one or a list); none when the trigger has no such key.
    fn push_filter(&self, key: &str) -> Option<Vec<&str>> {
        let push = self.root.get("on")?.get("push")?;
        push.get(key).map(|n| match n.str() {
            Some(one) => vec![one],
            None => n.items().iter().filter_map(Node::str).collect(),
        })
    }

    /// Whether pull requests run the workflow: on `pull_request` or
    /// `pull_request_target`, or on pushes to `pull-request/N` branches.
    /// Some projects (NVIDIA's and RAPIDS', through copy-pr-bot) never run
    /// a pull request's own event on their GPU runners: a bot copies each
    /// vetted pull request to a `pull-request/N` branch of the repository,
    /// and that push is the pull request's run, on a branch of its own.
    pub fn pull_requests_run(&self) -> bool {
        self.on_pull_request()
            || (self.on("push")
                && self
                    .push_filter("branches")
                    .is_some_and(|b| b.iter().any(|p| p.starts_with("pull-request/"))))
    }
}

/// Hours GitHub lets a job run (360 minutes): a schedule that fires again
/// within them or as they end (a run outlasts its jobs: those it needs,
/// the wait for a runner) can meet its own earlier run.
const JOB_HOURS: u32 = 6;

impl Workflow<'_> {
    /// Whether a `schedule:` cron fires again within [`JOB_HOURS`] (several
    /// minutes of an hour, or its hour field `*`, `*/6`, a range, or a list
    /// with a gap of 6 hours or less): its
    /// runs can overlap, so a cancelling group makes them cancel each other.
    pub fn frequent_schedule(&self) -> bool {
        let crons = self
            .root
            .get("on")
            .and_then(|on| on.get("schedule"))
            .map(Node::items)
            .unwrap_or_default();
        let crons: Vec<&str> = crons
            .iter()
            .filter_map(|c| c.get("cron").and_then(Node::str))
            .collect();
        crons.iter().any(|cron| {
            let mut fields = cron.split_whitespace();
            // Several minutes of an hour (`*/30`, `0,30`) fire within it.
            let minutes = fields
                .next()
                .is_some_and(|m| m.contains(['*', ',', '-', '/']));
            minutes || fields.next().is_some_and(frequent_hours)
        }) || spread_over_entries(&crons)
    }
}

/// Whether several cron entries on the same days, each at its own hour,
/// together fire twice within [`JOB_HOURS`] (`0 6 * * *`, `0 8 * * *`, ...:
/// one run every 2 hours, read on neon's growth benchmark).
fn spread_over_entries(crons: &[&str]) -> bool {
    let mut by_days: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for cron in crons {
        let fields: Vec<&str> = cron.split_whitespace().collect();
        if let [_, hours, days @ ..] = fields.as_slice() {
            by_days.entry(days.join(" ")).or_default().push(hours);
        }
    }
    by_days
        .values()
        .any(|hours| hours.len() > 1 && frequent_hours(&hours.join(",")))
}

/// Whether a cron's hour field fires twice within [`JOB_HOURS`].
fn frequent_hours(hours: &str) -> bool {
    if hours == "*" || hours.contains('-') {
        return true;
    }
    if let Some(step) = hours.strip_prefix("*/") {
        return step.parse::<u32>().is_ok_and(|n| n <= JOB_HOURS);
    }
    let mut at: Vec<u32> = hours.split(',').filter_map(|h| h.parse().ok()).collect();
    at.sort_unstable();
    at.dedup();
    let wrap = at.first().map(|f| f.saturating_add(24));
    at.iter()
        .zip(at.iter().skip(1).copied().chain(wrap))
        .any(|(a, b)| at.len() > 1 && b.saturating_sub(*a) <= JOB_HOURS)
}

/// GitHub's branch filter glob, enough for a branch name without `/`.
fn branch_glob(pattern: &str, branch: &str) -> bool {
    !pattern.starts_with('!') && crate::glob::glob_match(&pattern.replace("**", "*"), branch)
}

impl<'a> Job<'a> {
    pub fn get(&self, key: &str) -> Option<&'a Node> {
        self.node.get(key)
    }

    pub fn text(&self, key: &str) -> Option<&'a str> {
        self.get(key).and_then(Node::str)
    }

    /// The job's name and id, lower-cased, for "what does it do".
    pub fn title(&self) -> String {
        format!("{} {}", self.id.text, self.text("name").unwrap_or("")).to_lowercase()
    }

    /// The runner labels, with `${{ matrix.K }}` read as the values the
    /// job's `strategy.matrix` gives K (its list and its `include`s), and
    /// `fromJSON(matrix.K)` as the lists they write; an expression that
    /// cannot be read stays as written.
    pub fn runner_labels(&self) -> Vec<String> {
        let Some(runs_on) = self.get("runs-on") else {
            return Vec::new();
        };
        let mut scalars = Vec::new();
        runs_on.scalars(&mut scalars);
        let matrix = self.get("strategy").and_then(|s| s.get("matrix"));
        let mut labels = Vec::new();
        for s in scalars {
            // The matrix value the label is, or is built from with fixed
            // text around it: rocprofiler-sdk's `${{ matrix.runner
            // }}-runner-set` over `[mi200, mi300]` is `mi200-runner-set` and `mi300-runner-set`.
            // iroh's `fromJSON(matrix.runs_on)` over `include:` values
            // that write lists: `'["self-hosted","macOS","ARM64"]'`.
            let values = match (matrix, context_in(&s.text, "matrix.")) {
                (Some(m), Some((k, true))) => matrix_values(m, k)
                    .iter()
                    .flat_map(|v| written_list(v, true))
                    .collect(),
                (Some(m), Some((k, false))) => {
                    matrix_or_fallback(m, k).unwrap_or_else(|| matrix_written(m, &s.text))
                }
                (m, _) => m.map(|m| matrix_written(m, &s.text)).unwrap_or_default(),
            };
            let values = match input_in(&s.text) {
                Some((k, json)) if values.is_empty() => self
                    .inputs
                    .get(k)
                    .map(|v| v.iter().flat_map(|x| written_list(x, json)).collect())
                    .unwrap_or_default(),
                _ => values,
            };
            if values.is_empty() {
                labels.push(s.text.clone());
            } else {
                labels.extend(values);
            }
        }
        labels
    }

    /// Whether it occupies a runner nobody else frees or that costs by the
    /// minute beyond GitHub's own: a self-hosted, custom or GPU label, or an
    /// expression that cannot be read. Provider-hosted labels (Depot,
    /// Namespace, ...) and GitHub's own are not.
    pub fn expensive_runner(&self) -> bool {
        let labels = self.runner_labels();
        self.costly_runner() || unknown_runner(&labels)
    }

    /// Whether it is seen to occupy an expensive runner, whatever it runs:
    /// a self-hosted or custom label, any label naming a GPU (also a
    /// provider's, `runs-on=ID/runner=gpu`), one
    /// of GitHub's larger runners (`ubuntu-latest-16-cores`,
    /// `ubuntu-2404-8x-x64`, a `gpu` label), or a container given an
    /// accelerator (`--gpus`, `--device=/dev/kfd`, ...). An
    /// expression that cannot be read is not seen: it stays the benchmark
    /// rules' affair ([`Job::expensive_runner`]).
    pub fn costly_runner(&self) -> bool {
        self.runner_choices()
            .iter()
            .any(|c| costly_labels(c, self.devices()))
    }

    /// Whether it is seen on a machine the project keeps, a CPU machine
    /// among them ([`own_machine_labels`]): the runner a benchmark job with
    /// no timeout holds for 360 minutes.
    pub fn own_machine(&self) -> bool {
        self.runner_choices()
            .iter()
            .any(|c| own_machine_labels(c, self.devices()))
    }

    /// The label lists its runner may be ([`runner_choices`]).
    fn runner_choices(&self) -> Vec<Vec<String>> {
        let matrix = self.get("strategy").and_then(|s| s.get("matrix"));
        runner_choices(self.get("runs-on"), matrix, self.runner_labels())
    }

    /// Whether its container is given an accelerator ([`accelerators`]).
    pub fn devices(&self) -> bool {
        self.get("container")
            .and_then(|c| c.get("options"))
            .and_then(Node::str)
            .is_some_and(accelerators)
    }

    /// Whether `runs-on` names `self-hosted` (a runner the project pays
    /// for and that nobody else frees).
    pub fn self_hosted(&self) -> bool {
        let Some(runs_on) = self.get("runs-on") else {
            return false;
        };
        let mut labels = Vec::new();
        runs_on.scalars(&mut labels);
        labels.iter().any(|l| l.text == "self-hosted")
    }

    /// `timeout-minutes` as a number; GitHub's default, 360, when absent;
    /// `None` when it is an expression (unknown).
    pub fn timeout(&self) -> Option<f64> {
        minutes(self.get("timeout-minutes"))
    }
}

pub fn minutes(node: Option<&Node>) -> Option<f64> {
    match node.and_then(Node::str) {
        None => Some(360.0),
        Some(text) => text.trim().parse().ok(),
    }
}

impl<'a> Step<'a> {
    pub fn text(&self, key: &str) -> Option<&'a str> {
        self.node.get(key).and_then(Node::str)
    }

    /// `uses:` without its `@ref`, lower-cased.
    pub fn action(&self) -> Option<String> {
        action_name(self.node)
    }

    pub fn with(&self, key: &str) -> Option<&'a Node> {
        self.node.get("with").and_then(|w| w.get(key))
    }

    /// A `with:` value as the action receives it: `${{ env.X }}` read as X.
    pub fn with_text(&self, key: &str) -> Option<Cow<'a, str>> {
        let text = self.with(key).and_then(Node::str)?;
        Some(self.env.expand(text))
    }

    /// Name, id, action and script, lower-cased, for "what does it do".
    pub fn title(&self) -> String {
        let mut t = String::new();
        for key in ["name", "id", "uses"] {
            t.push_str(self.text(key).unwrap_or(""));
            t.push(' ');
        }
        t.to_lowercase()
    }
}
