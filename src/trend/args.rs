//! The `trend` command line as typed, and its help text. Each flag also has
//! an `INPUT_*` variable (what `trend/action.yml` passes); several history
//! patterns in one variable go one per line.

use std::path::PathBuf;

use clap::Args;

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

#[derive(Debug, Clone, Default, Args)]
pub struct TrendArgs {
    /// main's past runs: files or globs (`*`/`?` in the last part), read in name order.
    /// Repeatable. [env: INPUT_HISTORY, one per line]
    #[arg(long, value_name = "FILE")]
    pub history: Vec<PathBuf>,

    /// The TOML config compare reads: key columns, metrics and their direction.
    /// [default: keys op,shape,dtype; metrics tflops, tbps] [env: INPUT_CONFIG]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The results format of every history file, where the content does not say it
    /// (customBiggerIsBetter or customSmallerIsBetter for the peer action's custom JSON); a
    /// name from docs/formats.md. [default: found from each file's content]
    /// [env: INPUT_RESULTS_FORMAT]
    #[arg(long, value_name = "NAME")]
    pub results_format: Option<String>,

    /// The smallest change reported, in percent. [default: 5] [env: INPUT_MIN_CHANGE]
    #[arg(long, value_name = "PCT")]
    pub min_change: Option<String>,

    /// Change points within the last N runs are new (warned; --fail-on counts only
    /// these). [default: 5] [env: INPUT_RECENT]
    #[arg(long, value_name = "N")]
    pub recent: Option<String>,

    /// `regression`: exit 4 when a new persistent regression is found; `never`.
    /// [default: never] [env: INPUT_FAIL_ON]
    #[arg(long, value_name = "WHAT")]
    pub fail_on: Option<String>,

    /// github (step outputs, summary, annotations), json, or text.
    /// [default: github on a runner, else text]
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}
