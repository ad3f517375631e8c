//! What a side ended as: its `Status`, the notes a user reads, what one
//! run of the command measured (`Measured`), and how a run's ending becomes
//! the side's status and warning (`record`). Apart from `side`, which
//! carries a side out, so that the rounds' loop and the renderers read the
//! same outcome without the machinery that made it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::plan::Side;
use super::process::Ended;
use super::signals;

/// How a side ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Failed,
    TimedOut,
    Reused,
    Unavailable,
    Skipped,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::TimedOut => "timed-out",
            Status::Reused => "reused",
            Status::Unavailable => "unavailable",
            Status::Skipped => "skipped",
        }
    }
}

/// A note on a side: a warning (something the user should see) or a notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub warning: bool,
    pub text: String,
}

/// What one side did.
#[derive(Debug, Clone)]
pub struct SideRun {
    pub side: Side,
    pub status: Status,
    /// The commit measured, when known.
    pub sha: Option<String>,
    /// `{label}`: `current`, the resolution's label, or the tag.
    pub label: String,
    /// The CSV: written by the run, or the downloaded one.
    pub path: Option<PathBuf>,
    /// Where this side's CSV is written (it does not exist when the side
    /// did not run: compare then says its baseline is unavailable).
    pub out: PathBuf,
    pub exit: Option<i32>,
    pub duration: Option<Duration>,
    pub rows: Option<u64>,
    /// The groups the command was given (`None`: the whole suite).
    pub groups: Option<Vec<String>>,
    /// Selected groups this tree's harness does not know.
    pub dropped: Vec<String>,
    /// Whether the commit was fetched (the clone lacked it).
    pub fetched: bool,
    /// The harness's output as it printed it (`current.log`), when it ran.
    pub log: Option<PathBuf>,
    pub notes: Vec<Note>,
}

impl SideRun {
    pub fn new(side: Side, status: Status, out: &Path) -> SideRun {
        SideRun {
            side,
            status,
            sha: None,
            label: side.name().to_owned(),
            path: None,
            out: out.to_owned(),
            exit: None,
            duration: None,
            rows: None,
            groups: None,
            dropped: Vec::new(),
            fetched: false,
            log: None,
            notes: Vec::new(),
        }
    }

    pub fn warn(&mut self, text: String) {
        self.notes.push(Note {
            warning: true,
            text,
        });
    }

    pub fn notice(&mut self, text: String) {
        self.notes.push(Note {
            warning: false,
            text,
        });
    }

    /// Whether `--strict` fails on this side.
    pub fn fails_strict(&self) -> bool {
        matches!(
            self.status,
            Status::Failed | Status::TimedOut | Status::Unavailable
        ) || (self.status == Status::Ok && self.rows == Some(0))
    }
}

/// One run of the command on a side.
#[derive(Debug, Clone)]
pub struct Measured {
    pub ended: Ended,
    pub duration: Duration,
    pub rows: u64,
    pub path: PathBuf,
}

/// One run's result on the side: its file, seconds, rows, and the status
/// with the warning a user needs (`round` named in it when there are
/// several).
pub fn record(
    run: &mut SideRun,
    done: &Measured,
    groups: Option<Vec<String>>,
    round: Option<usize>,
) {
    run.groups = groups;
    run.duration = Some(done.duration);
    run.rows = Some(done.rows);
    run.path = Some(done.path.clone());
    judge(run, done.ended, round);
}

pub fn ended_text(ended: Ended) -> String {
    match ended {
        Ended::Exit(code) => format!("exited with status {code}"),
        Ended::TimedOut => "outlived its timeout and was stopped".to_owned(),
        Ended::Cancelled(signal) => format!(
            "was stopped because bench received {} (the step was cancelled)",
            signals::name(signal)
        ),
    }
}

/// The status from how the command ended, with the warning a user needs.
fn judge(run: &mut SideRun, ended: Ended, round: Option<usize>) {
    let rows = run.rows.unwrap_or(0);
    let which = round.map(|r| format!(" (round {r})")).unwrap_or_default();
    let seconds = run.duration.map_or(0.0, |d| d.as_secs_f64());
    match ended {
        Ended::Exit(0) if rows == 0 => {
            run.exit = Some(0);
            run.warn(format!(
                "the {} side's command{which} succeeded but wrote no rows to {{out}}",
                run.side.name()
            ));
        }
        Ended::Exit(0) => run.exit = Some(0),
        other => {
            run.exit = match other {
                Ended::Exit(code) => Some(code),
                Ended::TimedOut | Ended::Cancelled(_) => None,
            };
            run.status = if other == Ended::TimedOut {
                Status::TimedOut
            } else {
                Status::Failed
            };
            let kept = if rows == 0 {
                "it wrote no rows, so compare has nothing of this side to judge".to_owned()
            } else {
                format!("the {rows} rows it wrote are kept, and compare judges those")
            };
            run.warn(format!(
                "the {} side's command{which} {} after {seconds:.1} s; {kept}",
                run.side.name(),
                ended_text(other)
            ));
        }
    }
}
