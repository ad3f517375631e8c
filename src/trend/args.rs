//! The inputs of `trend`, each declared once (flag, `INPUT_*` variable,
//! parser, default, help: [`crate::runner::declare`]), and its help text.
//! Several history patterns in one variable go one per line.

use crate::runner::{Declared, Given, Input, Typed, shown};
pub use crate::table::formats::RESULTS_FORMAT;

pub const ABOUT: &str = "Find the change points in main's own benchmark history: the regression that landed anyway, the slow creep, no server.";

const EXIT_CODES: &str = "\
Exit codes:
  0  the history was read and judged (a malformed history file is a warning and is left out)
  1  bad input: the config cannot be read or is wrong (file and line); --history names no
     file, none of its files can be read, or no row has a value (the first file, line and
     reason); the history files together over 512 MiB or one over 64 MiB
  2  usage: unknown flag, or an invalid flag / INPUT_* value; no --history; over 1000
     history files
  4  --fail-on regression, and a persistent regression starts within the last --recent runs";

const EXAMPLES: &str = "\
Examples:
  # main's rolling history (one CSV per push, named <run>-<sha>.csv), judged:
  baseline-resolver trend --history 'history/*.csv' --config bench.toml

  # The main job goes red when a regression landed in the last 5 runs:
  baseline-resolver trend --history 'history/*.csv' --fail-on regression

  # Smaller steps too, and only the last two runs count as new:
  baseline-resolver trend --history 'history/*.csv' --min-change 3 --recent 2 --format json

How it judges:
  The history files are runs in name order (name them so that they sort by run:
  history/0042-<sha>.csv; a name ending in -<sha> gives the run its commit). Each row's
  series is its headline metric in every run that has it (rows may appear and vanish).
  Single-run outliers are listed apart, never a change. The rest is split at its change
  points by binary segmentation with a two-sample t test (as Apache Otava; deterministic,
  segments at least 2 runs, the segmentation compare's noise bands use, searched more
  thoroughly: when a stretch has no large enough split, its halves, quarters, ... are
  searched, so a step near the start or one a second step undid is found); a change
  smaller than --min-change is not reported. Each change point has the run and commit it
  starts at, the levels before and after (medians, with their spread) and its change,
  signed so that negative is worse; it is persistent when its level held 5 runs (a
  second step that undid it later is its own change, the fix), transient when it came
  back within 5 runs (one change, its return not listed apart). A steady creep with no
  single step (a straight line fits better than any steps, its slope is significant and
  it adds up to --min-change) is a drift, with its total size. A persistent regression that starts
  within the last --recent runs is new: a warning names its commit.";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

/// What the command line gave `trend`.
pub type TrendArgs = Given<Trend>;

/// `trend`'s inputs, in `--help` order.
pub struct Trend;

impl Declared for Trend {
    const INPUTS: &'static [Input] = &[
        HISTORY,
        CONFIG,
        RESULTS_FORMAT.input,
        MIN_CHANGE.input,
        RECENT.input,
        FAIL_ON.input,
        crate::runner::format::FORMAT,
    ];
}

pub const HISTORY: Input = Input::one(
    "history",
    &["INPUT_HISTORY"],
    "FILE",
    "main's past runs: files or globs (`*`/`?` in the last part), read in name order. \
     Repeatable.",
)
.many()
.path();

pub const CONFIG: Input = Input::one(
    "config",
    &["INPUT_CONFIG"],
    "FILE",
    "The benchmark config (bench.toml, the file compare reads too): key columns, metrics and \
     their direction.",
)
.said("keys op,shape,dtype; metrics tflops, tbps")
.path();

pub const MIN_CHANGE: Typed<f64> = Typed {
    input: Input::one(
        "min-change",
        &["INPUT_MIN_CHANGE"],
        "PCT",
        "The smallest change reported, in percent.",
    )
    .default("5"),
    parse: percent,
};

pub const RECENT: Typed<usize> = Typed {
    input: Input::one(
        "recent",
        &["INPUT_RECENT"],
        "N",
        "Change points within the last N runs are new (warned; --fail-on counts only these).",
    )
    .default("5"),
    parse: runs,
};

pub const FAIL_ON: Typed<bool> = Typed {
    input: Input::one(
        "fail-on",
        &["INPUT_FAIL_ON"],
        "WHAT",
        "`regression`: exit 4 when a new persistent regression is found; `never`.",
    )
    .default("never"),
    parse: fail_on,
};

/// The most runs `--recent` may name (as many as the history may hold).
pub const MAX_RECENT: usize = crate::table::files::MAX_FILES;

/// `--min-change`: a percentage above 0 and below 100 (`5`, `5%`, `2.5`),
/// as a fraction.
fn percent(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p / 100.0),
        _ => Err(format!(
            "expected a percentage above 0 and below 100, got {:?}",
            shown(text)
        )),
    }
}

fn runs(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_RECENT).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of runs from 1 to {MAX_RECENT}, got {:?}",
            shown(text)
        )),
    }
}

fn fail_on(text: &str) -> Result<bool, String> {
    match text.trim() {
        "regression" => Ok(true),
        "never" => Ok(false),
        other => Err(format!(
            "expected regression or never, got {:?}",
            shown(other)
        )),
    }
}
