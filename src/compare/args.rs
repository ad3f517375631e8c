//! The `compare` command line as typed, and its help text. Each flag also
//! has an `INPUT_*` variable (what `compare/action.yml` passes); several
//! files in one variable go one per line.

use std::path::PathBuf;

use clap::Args;

pub const ABOUT: &str =
    "Compare benchmark results of the change with the baseline's: a verdict, never a silent pass.";

const EXIT_CODES: &str = "\
Exit codes:
  0  pass; or, without --strict, inconclusive (a warning says why); or any verdict under
     --no-gate (bad input and usage errors still exit 1 and 2)
  1  bad input: a --current file missing or unreadable, a missing key or metric column, a
     key twice in one file, a key cell that is not UTF-8, a file over 64 MiB or all files
     over 512 MiB, a config or resolution that cannot be read or is over 1 MiB, a config
     error (file and line)
  2  usage: unknown flag, or an invalid flag / INPUT_* value; over 1000 input files; a
     --fail-threshold of 100 or more while a metric is higher-is-better
  3  --strict and the gate is inconclusive: its baseline unavailable, no row compared, or
     less of the suite compared than --min-coverage; or, with --paired, rows still
     undecided
  4  rows regressed or lost against the gate baseline";

const EXAMPLES: &str = "\
Examples:
  # Paired rounds from bench --rounds (the default flow where the baseline can run in the
  # job): round i of the change against round i of the baseline:
  baseline-resolver compare --paired \\
      --current current-r1.csv --current current-r2.csv --current current-r3.csv \\
      --baseline main=baseline-r1.csv --baseline main=baseline-r2.csv --baseline main=baseline-r3.csv

  # The change against main's results and the release tag's, gated on main:
  baseline-resolver compare --current current.csv \\
      --baseline main=main.csv --baseline v0.3.1=tag.csv

  # Three runs of each side, not paired: medians, and a two-sample test on the runs:
  baseline-resolver compare --current run1.csv --current run2.csv --current run3.csv \\
      --baseline main=main1.csv --baseline main=main2.csv --baseline main=main3.csv

  # Thresholds learned from the last runs of main: a wild row stops failing on its own
  # noise, a quiet row keeps 10% (or, with auto, its own tighter band):
  baseline-resolver compare --current current.csv --baseline main=main.csv \\
      --history 'history/*.csv' --fail-threshold auto

  # Report only (for dashboards that ingest only successful runs):
  baseline-resolver compare --current current.csv --baseline main=main.csv --no-gate

Rows and classes:
  Rows are matched on the key columns (op,shape,dtype). The headline metric is tflops when
  it holds a number, else tbps; a row is valid when its status (if any) is ok and that
  metric is a finite number above zero, and it is compared on the metric its baseline
  measured. change = current/baseline - 1, negative is worse. With --history, a row's fail
  threshold is the larger of the configured one and its run-to-run noise band: its spread
  within the levels of its history (change points and drift taken out), against main's
  level with the baseline run on it, at its share of --false-alarms (1% per pull request).
  A baseline run off main's level is not judged alone: its rows are noisy and named in
  the rerun-baseline output. With several runs of the change against one baseline run,
  every current run must be worse than it (and main's level) by more than the threshold;
  with several runs on both sides (not --paired), the runs must show it in a two-sample
  test (Welch's, the spread moderated by the suite's) at the row's share of --false-alarms;
  with --history and every baseline run on main's level, the change's runs are tested
  against that level (the history's with the baseline's runs) with the row's spread
  from its history, and the threshold is the configured one, not one run's band.
  regressed       worse by more than its fail threshold           (fails the gate)
  warned          worse by more than --warn-threshold
  improved        better by more than its fail threshold
  unchanged       within the thresholds
  noisy           beyond a threshold but within its noise band, repeated runs that
                  disagree, or a baseline run off main's level (reported, never
                  failing; listed in the rerun output)
  lost            valid in the baseline, its metric invalid or absent in current (fails)
  skipped         lost, but current says status=skip (a warning)
  new             only current has it
  absent          only current has it, and the baseline's run failed or timed out (its
                  record beside the file says so): never measured there, not new
  not-comparable  the baseline could not measure it (listed with the reason)
  ignored         a config rule says ignore
  not-selected    only benchmark groups --selection did not run produce it (not compared,
                  never failing; a selected group's missing row is still lost)

Paired rounds (--paired):
  Each round ran both sides on the same runner, so what moves the whole machine cancels in
  the ratio. Per row: the mean of ln(current/baseline) over its rounds, and a 90% interval
  from Student's t with the row's spread moderated by the suite's (empirical Bayes, as
  limma does; the suite may widen a row's spread, never narrow it). regressed: worse beyond the fail threshold and worse than no change at the
  row's share of --false-alarms (Holm's step-down across rows, each look spending its
  share: the chance that any unchanged row fails stays under --false-alarms over every row
  and every look). unchanged / warned / improved: the interval rules out a change beyond
  the fail threshold. noisy, with rerun: still in doubt; bench runs more rounds of those
  rows (looks at --rounds, twice as many, ... up to --max-rounds). At --max-rounds a row in
  doubt stays noisy; the undecided output counts them and --strict fails them (exit 3).";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

#[derive(Debug, Clone, Default, Args)]
pub struct CompareArgs {
    /// Results of the change (CSV with a header). Repeat for repeated runs: medians are
    /// compared. [env: INPUT_CURRENT, one file per line]
    #[arg(long, value_name = "FILE")]
    pub current: Vec<PathBuf>,

    /// A baseline's results, as LABEL=FILE. Repeat a label for repeated runs; another label
    /// is another baseline (the release tag), reported but not gated. LABEL matches
    /// [A-Za-z0-9_][A-Za-z0-9_.~-]* (dashboards read it). [env: INPUT_BASELINE, one per line]
    #[arg(long, value_name = "LABEL=FILE")]
    pub baseline: Vec<String>,

    /// The baseline label whose regressions fail the step.
    /// [default: the first --baseline] [env: INPUT_GATE]
    #[arg(long, value_name = "LABEL")]
    pub gate: Option<String>,

    /// Worse by more than this percentage is a regression, or `auto`: each row's own
    /// run-to-run noise band learned from --history (rows without enough history keep
    /// the default). Under 100 unless every metric is lower-is-better. [default: 10]
    /// [env: INPUT_FAIL_THRESHOLD]
    #[arg(long, value_name = "PCT|auto")]
    pub fail_threshold: Option<String>,

    /// Worse by more than this percentage is a warning. [default: 3]
    /// [env: INPUT_WARN_THRESHOLD]
    #[arg(long, value_name = "PCT")]
    pub warn_threshold: Option<String>,

    /// With --history: the chance that a pull request changing nothing fails on some row.
    /// The learned bands share it among the rows compared (with 100 rows, each row's
    /// chance is about 1/100 of it), so a suite of a thousand rows is no likelier to
    /// fail by chance than one of ten. [default: 1] [env: INPUT_FALSE_ALARMS]
    #[arg(long, value_name = "PCT")]
    pub false_alarms: Option<String>,

    /// A TOML file of key columns, metrics and per-row rules (thresholds, floor, direction,
    /// ignore). [env: INPUT_CONFIG]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The results format of every file read, where the content does not say it (the peer
    /// action's custom JSON: customBiggerIsBetter or customSmallerIsBetter gives its
    /// direction); one of the names in docs/formats.md. [default: found from each file's
    /// content] [env: INPUT_RESULTS_FORMAT]
    #[arg(long, value_name = "NAME")]
    pub results_format: Option<String>,

    /// Exit 3 when the gate is inconclusive. [env: INPUT_STRICT]
    #[arg(long)]
    pub strict: bool,

    /// The share of the suite (percent of the rows neither ignored nor unselected) that
    /// must be compared for a pass; below it the gate is inconclusive with a warning (a
    /// baseline whose run died after a third of the suite never passes on that third).
    /// [default: 50] [env: INPUT_MIN_COVERAGE]
    #[arg(long, value_name = "PCT")]
    pub min_coverage: Option<String>,

    /// Report only: exit 0 whatever the verdict (bad input and usage errors still exit 1
    /// and 2), and say REPORT-ONLY in every output. [env: INPUT_NO_GATE]
    #[arg(long)]
    pub no_gate: bool,

    /// resolve's JSON answer (a file, or the JSON itself): the provenance (base repository
    /// and commit, release tag), and evidence: when it says there is no baseline, or its
    /// label is none of the --baseline labels, the gate is inconclusive. [env: INPUT_RESOLUTION]
    #[arg(long, value_name = "FILE")]
    pub resolution: Option<String>,

    /// select's answer (a file, or its json output itself): rows that only groups it did
    /// not select produce are not-selected (not compared, not failing); a selected group's
    /// missing row is still lost. Needs the config's [select] groups. [env: INPUT_SELECTION]
    #[arg(long, value_name = "FILE")]
    pub selection: Option<String>,

    /// A past run of the gate baseline's branch (same CSV format), oldest first; repeat, or
    /// a glob in the file name (history/*.csv, expanded in name order). Each row's fail
    /// threshold becomes the larger of the configured one and its run-to-run noise band;
    /// a row with fewer than 5 valid runs keeps the configured one. A file that cannot be
    /// read is a warning. [env: INPUT_HISTORY, one per line]
    #[arg(long, value_name = "FILE")]
    pub history: Vec<PathBuf>,

    /// The --current files and the gate baseline's files are paired rounds, measured in
    /// the same job (bench --rounds): the i-th current file pairs with the i-th baseline
    /// file. Each row is judged on its rounds' ratios (see "Paired rounds" below).
    /// [env: INPUT_PAIRED]
    #[arg(long)]
    pub paired: bool,

    /// bench's rounds manifest (its manifest output): the change's and the baseline's files
    /// in round order, the baseline's label as the gate, and bench's look schedule. Implies
    /// --paired; instead of --current and the gate's --baseline files. [env: INPUT_MANIFEST]
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,

    /// With --paired: the rounds of the first look; a row still in doubt is looked at
    /// again at twice as many, up to --max-rounds. The same as bench's. [default: 3]
    /// [env: INPUT_ROUNDS]
    #[arg(long, value_name = "N")]
    pub rounds: Option<String>,

    /// With --paired: the most rounds a row gets; a row still in doubt then stays noisy.
    /// [default: 20] [env: INPUT_MAX_ROUNDS]
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<String>,
    /// What another machine means: `warn` (the report says first that the baseline was
    /// measured on another GPU, driver or runtime, other clocks or power cap, from the
    /// fingerprints bench wrote beside the files; rows judged as usual) or `strict` (the
    /// gate is then inconclusive). History runs from another machine are always left out
    /// of the noise bands. [default: warn] [env: INPUT_FINGERPRINT]
    #[arg(long, value_name = "MODE")]
    pub fingerprint: Option<String>,

    /// The current side's fingerprint, instead of the one beside the first --current
    /// file. [env: INPUT_CURRENT_FINGERPRINT]
    #[arg(long, value_name = "FILE")]
    pub current_fingerprint: Option<PathBuf>,

    /// The gate baseline's fingerprint (uploaded with main's results), instead of the one
    /// beside its first file. [env: INPUT_BASELINE_FINGERPRINT]
    #[arg(long, value_name = "FILE")]
    pub baseline_fingerprint: Option<PathBuf>,

    /// Also write the JSON report (what --format json prints, every row) to FILE: the
    /// file a later job's gate or comment reads, uploaded as an artifact. [env: INPUT_REPORT]
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Output form: github (step outputs, summary, annotations), json (one object on
    /// stdout) or text. [default: github when GITHUB_ACTIONS=true, else text]
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}
