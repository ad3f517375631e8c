//! One side carried out as the plan says: its tree made (a worktree for the
//! baseline), its groups asked of that tree's harness, the command run
//! once, its rows counted, the worktree removed. Whatever goes wrong on a
//! side is said on that side (a warning, a status); only what the user
//! must fix (a path that cannot be used) is an error.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::BenchError;
use super::files;
use super::inputs::Inputs;
use super::log::RawLog;
pub use super::outcome::{Measured, Note, SideRun, Status, ended_text, record};
use super::plan::{self, Action, Fill, Side, Tree};
use super::process::{self, Ended};
use super::row_count::rows;
use super::signals;
use super::worktree::{self, Worktree};
use crate::github::network;
use crate::runner::shown;

/// A side that bench was told to stop before it started.
fn not_started(run: &mut SideRun, signal: i32) {
    run.status = Status::Skipped;
    run.warn(format!(
        "{} not run: bench received {} (the step was cancelled)",
        run.side.name(),
        signals::name(signal)
    ));
}

/// The directory `path` checked to lie inside the places bench may touch
/// ([`files::inside`]), before anything is written, read or removed there
/// (again after each run: a harness can swap a directory for a link).
fn within(path: &Path, inputs: &Inputs) -> Result<(), BenchError> {
    files::inside(path, inputs).map(|_| ()).map_err(|e| {
        BenchError::Place(format!(
            "{e}: bench writes, reads and removes only inside the workspace, the working directory, the repository, RUNNER_TEMP or the volume, without following a symbolic link out"
        ))
    })
}

/// Where a side's CSV goes: current.csv, baseline.csv, or tag.csv for
/// the release tag's baseline.
pub fn out_path(side: Side, inputs: &Inputs) -> PathBuf {
    let name = match (side, inputs.tag) {
        (Side::Current, _) => "current.csv",
        (Side::Baseline, false) => "baseline.csv",
        (Side::Baseline, true) => "tag.csv",
    };
    inputs.out_dir.join(name)
}

/// Carries out one side's action, once: [`open`], one [`Opened::measure`]
/// into the side's own file, [`Opened::close`].
pub fn carry_out(
    side: Side,
    action: &Action,
    groups: Option<&[String]>,
    label: &str,
    inputs: &Inputs,
) -> Result<SideRun, BenchError> {
    once(open(side, action, groups, label, inputs)?, inputs)
}

/// An opened side measured once, into its own file, and closed.
pub fn once(mut opened: Opened, inputs: &Inputs) -> Result<SideRun, BenchError> {
    if opened.runs() {
        let out = opened.run.out.clone();
        let groups = opened.groups.clone();
        let done = opened.measure(&out, groups.as_deref(), inputs.timeout, 1, inputs);
        match done {
            Ok(done) => record(&mut opened.run, &done, groups, None),
            Err(e) => {
                opened.close();
                return Err(e);
            }
        }
    }
    Ok(opened.close())
}

/// A side made ready to measure, as many times as there are rounds: its
/// tree (the checkout, or the baseline's worktree, made once and kept
/// across rounds) and the groups its harness knows (asked once).
#[derive(Debug)]
pub struct Opened {
    pub run: SideRun,
    tree: Option<PathBuf>,
    worktree: Option<Worktree>,
    /// The groups each run gets (`None`: the whole suite).
    pub groups: Option<Vec<String>>,
    /// `--failure-command` ran for this side already (once a side).
    failure_shown: bool,
}

/// Makes a side ready: the status of a side that does not run (skipped,
/// unavailable, reused), else its tree and groups. A CSV an earlier run
/// left where this side writes (a self-hosted runner keeps its
/// workspace) is removed first, when `--side` asks for this side: it must
/// never pass for this run's results (and a `--side baseline` step must
/// not delete the current.csv an earlier step wrote).
pub fn open(
    side: Side,
    action: &Action,
    groups: Option<&[String]>,
    label: &str,
    inputs: &Inputs,
) -> Result<Opened, BenchError> {
    let out = out_path(side, inputs);
    within(&inputs.out_dir, inputs)?;
    if inputs.sides.has(side) {
        remove_earlier(&out)?;
    }
    let mut run = SideRun::new(side, Status::Ok, &out);
    label.clone_into(&mut run.label);
    if let Some(signal) = signals::caught() {
        not_started(&mut run, signal);
    }
    let mut opened = Opened {
        run,
        tree: None,
        worktree: None,
        groups: None,
        failure_shown: false,
    };
    if opened.run.status != Status::Skipped {
        opened.place(side, action, inputs)?;
    }
    if let Some(tree) = opened.tree.clone()
        && !setup(&mut opened.run, &tree, inputs)?
    {
        opened.tree = None;
    }
    opened.ask_groups(side, groups, inputs)?;
    Ok(opened)
}

impl Opened {
    /// Where the side's harness runs, or why it does not: skipped,
    /// unavailable, or reused (the downloaded result stands for it, its
    /// rows counted); on the checkout, or in a worktree of the commit made
    /// now (fetched from the base repository when the checkout lacks it).
    fn place(&mut self, side: Side, action: &Action, inputs: &Inputs) -> Result<(), BenchError> {
        let run = &mut self.run;
        match action {
            Action::Skipped(why) => {
                run.status = Status::Skipped;
                run.notice(format!("{} not run: {}", side.name(), shown(why)));
            }
            Action::Unavailable(why) => {
                run.status = Status::Unavailable;
                run.warn(format!("{} unavailable: {}", side.name(), shown(why)));
            }
            Action::Reuse(path) => {
                run.status = Status::Reused;
                run.rows = rows(path, inputs.results_format);
                run.notice(format!(
                    "{} not run: the downloaded result {} stands for it ({} rows)",
                    side.name(),
                    shown(&path.to_string_lossy()),
                    run.rows.unwrap_or(0)
                ));
                run.path = Some(path.clone());
            }
            Action::Run(Tree::Checkout) => {
                run.sha = worktree::head(&inputs.repository).ok();
                self.tree = Some(inputs.repository.clone());
            }
            Action::Run(Tree::Commit { sha, repo }) => {
                let from = repo.as_ref().map_or_else(
                    || "origin".to_owned(),
                    |repo| network::git_url(&inputs.server_url, repo),
                );
                if let Some(tree) = make_worktree(run, sha.as_str(), &from, inputs)? {
                    self.tree = Some(tree.path.clone());
                    self.worktree = Some(tree);
                }
            }
        }
        Ok(())
    }

    /// The groups this tree's harness runs, asked once (`--list-command`):
    /// a side whose harness knows none of the selected groups is skipped,
    /// and one cancelled while its list command ran is not started.
    fn ask_groups(
        &mut self,
        side: Side,
        groups: Option<&[String]>,
        inputs: &Inputs,
    ) -> Result<(), BenchError> {
        let Some(tree) = self.tree.clone() else {
            return Ok(());
        };
        self.groups = groups_for(&mut self.run, &tree, groups, inputs)?;
        if let Some(signal) = signals::caught() {
            // Cancelled while the list command ran: the command is not started.
            not_started(&mut self.run, signal);
            self.tree = None;
            return Ok(());
        }
        if self.groups.as_ref().is_some_and(Vec::is_empty) {
            self.run.status = Status::Skipped;
            self.run.notice(format!(
                "{} not run: this tree's harness knows none of the selected groups",
                side.name()
            ));
            self.tree = None;
        }
        Ok(())
    }
}

/// `--setup-command`, once per side in its tree before its list command
/// and harness (every round uses what it set up); `false` when it failed,
/// and then the side's harness is not run.
fn setup(run: &mut SideRun, tree: &Path, inputs: &Inputs) -> Result<bool, BenchError> {
    let Some(template) = &inputs.setup_command else {
        return Ok(true);
    };
    let setup = script(template, run, Path::new(""), "", tree, inputs)?;
    let how = match super::setup::run(&setup, tree, inputs.timeout, run.side.name()) {
        Ok(Ended::Exit(0)) => return Ok(true),
        Ok(ended) => {
            stop_inside(run, ended, Path::new(""), "", tree, inputs)?;
            ended_text(ended)
        }
        Err(e) => format!("could not start: {e}"),
    };
    run.status = Status::Failed;
    run.warn(format!(
        "the {} side's setup command {how}: its harness was not run",
        run.side.name()
    ));
    Ok(false)
}

/// After a command of this side was stopped (a timeout or a
/// cancellation): bench stopped the process group it started, but a
/// harness started through `docker exec` lives in the container. With
/// `--container`, bench ends the command's group there itself (it knows
/// the group: [`super::container::Container::wrap`]); then the user's
/// `--stop-command`, for what else only they know how to end. A failure
/// of either is a warning.
fn stop_inside(
    run: &mut SideRun,
    ended: Ended,
    out: &Path,
    groups: &str,
    tree: &Path,
    inputs: &Inputs,
) -> Result<(), BenchError> {
    if !matches!(ended, Ended::TimedOut | Ended::Cancelled(_)) {
        return Ok(());
    }
    if let Some(container) = &inputs.container {
        let stop = container.stop(&super::container::pidfile(run.side.name()));
        let how = match super::setup::stop(&stop, tree, run.side.name()) {
            Ok(Ended::Exit(0)) => None,
            Ok(other) => Some(ended_text(other)),
            Err(e) => Some(format!("could not start: {e}")),
        };
        if let Some(how) = how {
            run.warn(format!(
                "stopping the {} side's command inside the container {} {how}: it may still be running",
                run.side.name(),
                shown(&container.name)
            ));
        }
    }
    let Some(template) = &inputs.stop_command else {
        return Ok(());
    };
    let stop = script(template, run, out, groups, tree, inputs)?;
    let how = match super::setup::stop(&stop, tree, run.side.name()) {
        Ok(Ended::Exit(0)) => return Ok(()),
        Ok(ended) => ended_text(ended),
        Err(e) => format!("could not start: {e}"),
    };
    run.warn(format!(
        "the {} side's stop command {how}: what it was to stop may still be running",
        run.side.name()
    ));
    Ok(())
}

/// A results file an earlier run left where this run writes goes first.
/// Its run record and raw log go with it.
pub fn remove_earlier(out: &Path) -> Result<(), BenchError> {
    files::remove(out).map_err(|e| {
        BenchError::Place(format!(
            "cannot remove what an earlier run left at {}: {e}",
            shown(&out.to_string_lossy())
        ))
    })?;
    super::record::clear(out);
    super::fingerprint::clear(out);
    let _ = std::fs::remove_file(super::log::path_for(out));
    Ok(())
}

impl Opened {
    /// Whether this side has a tree to measure.
    pub fn runs(&self) -> bool {
        self.tree.is_some()
    }

    /// Runs the command once in the side's tree, writing `out`, stopped
    /// after `timeout`; `round` is `{round}`.
    pub fn measure(
        &mut self,
        out: &Path,
        groups: Option<&[String]>,
        timeout: Duration,
        round: usize,
        inputs: &Inputs,
    ) -> Result<Measured, BenchError> {
        let tree = self.tree.clone().unwrap_or_default();
        std::fs::create_dir_all(&inputs.out_dir).map_err(|e| {
            BenchError::Place(format!("cannot make {}: {e}", inputs.out_dir.display()))
        })?;
        let listed = inputs.groups_format.write(groups);
        let script = script(&inputs.command, &self.run, out, &listed, &tree, inputs)?
            .replace("{round}", &round.to_string());
        let prefix = format!("[{}] ", self.run.side.name());
        let log_path = super::log::path_for(out);
        let log = match RawLog::create(&log_path) {
            Ok(log) => {
                self.run.log.get_or_insert(log_path);
                Some(log)
            }
            Err(e) => {
                self.run.warn(format!(
                    "cannot write the harness's log {}: {e}",
                    shown(&log_path.to_string_lossy())
                ));
                None
            }
        };
        // The machine is read before the first harness runs (its clocks
        // idle, not raised by the harness), once per bench run.
        let machine =
            super::fingerprint::machine(&inputs.repository, inputs.fingerprint_command.as_deref());
        let done = process::run_logged(&script, &tree, timeout, &prefix, false, log)
            .map_err(|e| BenchError::Place(format!("cannot start bash: {e}")))?;
        stop_inside(&mut self.run, done.ended, out, &listed, &tree, inputs)?;
        if let Some(template) = inputs.failure_command.as_deref()
            && !matches!(done.ended, Ended::Exit(0) | Ended::Cancelled(_))
            && !std::mem::replace(&mut self.failure_shown, true)
        {
            let failure = self::script(template, &self.run, out, &listed, &tree, inputs)?
                .replace("{round}", &round.to_string());
            super::setup::show_failure(&mut self.run, &failure, &tree);
        }
        within(&inputs.out_dir, inputs)?;
        if let Err(what) = files::open_regular(out) {
            let removed = files::remove(out)
                .map_or_else(|e| format!("not removed: {e}"), |_| "removed".to_owned());
            self.run.warn(format!(
                "after the {} side's command, {{out}} is {what}: {removed}, and none of it is read",
                self.run.side.name()
            ));
        }
        let measured = Measured {
            ended: done.ended,
            duration: done.duration,
            rows: rows(out, inputs.results_format).unwrap_or(0),
            path: out.to_owned(),
        };
        // The run's own record beside its file: compare reads a baseline
        // that stopped short as partial, its missing rows absent, not new.
        let (status, exit) = match done.ended {
            Ended::Exit(0) => (Status::Ok, Some(0)),
            Ended::Exit(code) => (Status::Failed, Some(code)),
            Ended::TimedOut => (Status::TimedOut, None),
            Ended::Cancelled(_) => (Status::Failed, None),
        };
        if let Err(warning) = super::record::write(out, status.name(), exit, measured.rows) {
            self.run.warn(warning);
        }
        if let Err(warning) = super::fingerprint::write(out, machine) {
            self.run.warn(warning);
        }
        Ok(measured)
    }

    /// The side as it ended; its worktree removed (a failure to is a
    /// warning).
    pub fn close(mut self) -> SideRun {
        if let Some(mut tree) = self.worktree.take()
            && let Err(e) = tree.remove()
        {
            self.run
                .warn(format!("the worktree could not be removed: {e}"));
        }
        self.run
    }
}

/// Where the baseline's worktree goes: `--worktree-dir`, else a new
/// directory in the volume (a container must see it) or in RUNNER_TEMP.
fn worktree_path(side: Side, inputs: &Inputs) -> Result<PathBuf, BenchError> {
    let name = format!(".baseline-resolver-{}-{}", side.name(), std::process::id());
    let path = match (&inputs.worktree_dir, &inputs.volume) {
        (Some(dir), _) => dir.clone(),
        (None, Some(volume)) => Path::new(&volume.host).join(name),
        (None, None) => inputs.temp.join(name),
    };
    let text = path.to_string_lossy();
    if !plan::plain_word(&text) {
        return Err(BenchError::Place(format!(
            "the worktree's directory {:?} goes into the command unquoted: pass --worktree-dir with letters, digits and ._+:@%/=- only",
            shown(&text)
        )));
    }
    if path.exists() {
        return Err(BenchError::Place(format!(
            "the worktree's directory {} already exists: pass a --worktree-dir that does not",
            shown(&text)
        )));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| BenchError::Place(format!("cannot make {}: {e}", shown(&text))))?;
    }
    Ok(path)
}

/// The worktree at `sha` (fetched from `from` when the clone lacks it:
/// the base repository under `GITHUB_SERVER_URL`, whose name the plan
/// checked, since a fork's checkout has the fork as `origin`); `None`
/// (the side unavailable, with a warning) when it cannot be made.
fn make_worktree(
    run: &mut SideRun,
    sha: &str,
    from: &str,
    inputs: &Inputs,
) -> Result<Option<Worktree>, BenchError> {
    let side = run.side;
    let path = worktree_path(side, inputs)?;
    run.sha = Some(sha.to_owned());
    let made = worktree::ensure(&inputs.repository, sha, from)
        .and_then(|fetched| Ok((fetched, Worktree::add(&inputs.repository, &path, sha)?)));
    match made {
        Ok((fetched, tree)) => {
            run.fetched = fetched;
            Ok(Some(tree))
        }
        Err(e) => {
            run.status = Status::Unavailable;
            run.warn(format!(
                "{} unavailable: the commit {} cannot be checked out ({e}); no other commit is measured in its place",
                side.name(),
                shown(sha)
            ));
            Ok(None)
        }
    }
}

/// The groups this tree runs: the selection's, less what its harness does
/// not know (when there is a list command and it answers).
fn groups_for(
    run: &mut SideRun,
    tree: &Path,
    groups: Option<&[String]>,
    inputs: &Inputs,
) -> Result<Option<Vec<String>>, BenchError> {
    let Some(selected) = groups.map(<[String]>::to_vec) else {
        return Ok(None);
    };
    let Some(list) = &inputs.list_command else {
        return Ok(Some(selected));
    };
    let script = script(list, run, Path::new(""), "", tree, inputs)?;
    let prefix = format!("[{} list] ", run.side.name());
    let timeout = inputs.timeout.min(Duration::from_secs(600));
    match process::run(&script, tree, timeout, &prefix, true) {
        Ok(done) if done.ended == Ended::Exit(0) && done.complete => {
            let (kept, dropped) = plan::known(&selected, &done.kept);
            if !dropped.is_empty() {
                run.warn(format!(
                    "this tree's harness does not know {}: not run on the {} side",
                    shown(&dropped.join(", ")),
                    run.side.name()
                ));
            }
            run.dropped = dropped;
            Ok(Some(kept))
        }
        other => {
            let how = match other {
                Ok(done) if done.ended == Ended::Exit(0) => format!(
                    "exited, but its list is incomplete (its output did not end within {} s, or passed {} bytes)",
                    process::DRAIN.as_secs(),
                    process::MAX_LISTED
                ),
                Ok(done) => ended_text(done.ended),
                Err(e) => format!("could not start: {e}"),
            };
            run.warn(format!(
                "the list command {how}: the selected groups are run as they are"
            ));
            Ok(Some(selected))
        }
    }
}

/// A path as the harness sees it: its name inside the volume, if any.
fn seen(path: &Path, inputs: &Inputs) -> String {
    let text = path.to_string_lossy();
    inputs
        .volume
        .as_ref()
        .and_then(|v| v.inside(&text))
        .unwrap_or_else(|| text.into_owned())
}

/// Runs `template` for this side: placeholders filled, then `bash -c` in
/// the tree on the host (with `--container`, that `bash -c` runs it
/// through `docker exec` in the tree as the container sees it).
fn script(
    template: &str,
    run: &SideRun,
    out: &Path,
    groups: &str,
    tree: &Path,
    inputs: &Inputs,
) -> Result<String, BenchError> {
    let (out, tree) = (seen(out, inputs), seen(tree, inputs));
    let fill = Fill {
        out: &out,
        groups,
        tree: &tree,
        side: run.side.name(),
        sha: run.sha.as_deref().unwrap_or_default(),
        label: &run.label,
    };
    fill.check()?;
    let script = plan::expand(template, &fill);
    Ok(match &inputs.container {
        Some(container) => {
            container.wrap(&script, &tree, &super::container::pidfile(run.side.name()))
        }
        None => script,
    })
}
