//! The inputs of `compare`, each declared once (flag, `INPUT_*` variable,
//! parser, default, help: [`crate::runner::declare`]), and its help text.
//! Several files in one variable go one per line.

pub use crate::config::columns::{FLOOR, IGNORE, KEYS, METRIC};
use crate::config::{FailThreshold, judging};
use crate::paired::schedule;
use crate::runner::{Declared, Given, Input, Typed, shown};
pub use crate::table::formats::RESULTS_FORMAT;

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
      --baseline main=baseline-r1.csv --baseline main=baseline-r2.csv \\
      --baseline main=baseline-r3.csv

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

  # A CSV with its own columns, without a config file: a row per rank and an aggregate
  # row per shape, the time lower-is-better, the per-rank rows ignored, under 10 us no change:
  baseline-resolver compare --current current.csv --baseline main=main.csv \\
      --keys rank,shape,dtype --metric avg_time_us:lower --ignore 'rank=?' \\
      --fail-threshold 15 --floor 10

  # Report only (for dashboards that ingest only successful runs):
  baseline-resolver compare --current current.csv --baseline main=main.csv --no-gate

Rows and classes:
  Rows are matched on the key columns (op,shape,dtype) unless --keys or the config name
  others. The headline metric is tflops when it holds a number, else tbps, unless --metric
  or the config's metrics say otherwise; a row is valid when its status (if any) is ok and that
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
  limma does; the suite may widen a row's spread, never narrow it). regressed: worse
  beyond the fail threshold and worse than no change at the row's share of --false-alarms
  (Holm's step-down across rows, each look spending its share: the chance that any
  unchanged row fails stays under --false-alarms over every row and every look). unchanged / warned / improved: the interval rules out a change beyond
  the fail threshold. noisy, with rerun: still in doubt; bench runs more rounds of those
  rows (looks at --rounds, twice as many, ... up to --max-rounds). At --max-rounds a row in
  doubt stays noisy; the undecided output counts them and --strict fails them (exit 3).";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

/// What the command line gave `compare`.
pub type CompareArgs = Given<Compare>;

/// `compare`'s inputs, in `--help` order.
pub struct Compare;

impl Declared for Compare {
    const INPUTS: &'static [Input] = &[
        CURRENT,
        BASELINE,
        GATE,
        FAIL.input,
        WARN.input,
        FALSE_ALARMS.input,
        CONFIG,
        KEYS.input,
        METRIC.input,
        IGNORE,
        FLOOR.input,
        RESULTS_FORMAT.input,
        STRICT,
        MIN_COVERAGE.input,
        NO_GATE,
        RESOLUTION,
        SELECTION,
        HISTORY,
        PAIRED,
        MANIFEST,
        ROUNDS.input,
        MAX_ROUNDS.input,
        FINGERPRINT,
        CURRENT_FINGERPRINT,
        BASELINE_FINGERPRINT,
        REPORT,
        crate::runner::format::FORMAT,
    ];
}

pub const CURRENT: Input = Input::one(
    "current",
    &["INPUT_CURRENT"],
    "FILE",
    "Results of the change: the CSV, or a harness's own results file (docs/formats.md). \
     Repeat for repeated runs: medians are \
     compared.",
)
.many()
.path();

pub const BASELINE: Input = Input::one(
    "baseline",
    &["INPUT_BASELINE"],
    "LABEL=FILE",
    "A baseline's results, as LABEL=FILE. Repeat a label for repeated runs; another label is \
     another baseline (the release tag), reported but not gated. LABEL matches \
     [A-Za-z0-9_][A-Za-z0-9_.~-]* (dashboards read it).",
)
.many();

pub const GATE: Input = Input::one(
    "gate",
    &["INPUT_GATE"],
    "LABEL",
    "The baseline label whose regressions fail the step: the gate baseline.",
)
.said("the first --baseline");

pub const FAIL: Typed<FailThreshold> = Typed {
    input: Input::one(
        "fail-threshold",
        &["INPUT_FAIL_THRESHOLD"],
        "PCT|auto",
        "Worse by more than this percentage is a regression, or `auto`: each row's own \
         run-to-run noise band learned from --history (rows without enough history keep the \
         default). From 0 (any slowdown beyond the noise fails) to 1000; under 100 unless every \
         metric is lower-is-better.",
    )
    .default("10"),
    parse: judging::fail_threshold,
};

pub const WARN: Typed<f64> = Typed {
    input: Input::one(
        "warn-threshold",
        &["INPUT_WARN_THRESHOLD"],
        "PCT",
        "Worse by more than this percentage is a warning (0 to 1000).",
    )
    .default("3"),
    parse: |t| judging::THRESHOLD.parse(t),
};

pub const FALSE_ALARMS: Typed<f64> = Typed {
    input: Input::one(
        "false-alarms",
        &["INPUT_FALSE_ALARMS"],
        "PCT",
        "With --history: the chance that a pull request changing nothing fails on some row. \
         The learned bands share it among the rows compared (with 100 rows, each row's chance \
         is about 1/100 of it), so a suite of a thousand rows is no likelier to fail by chance \
         than one of ten. Above 0, at most 50.",
    )
    .default("1"),
    parse: |t| judging::FALSE_ALARMS.parse(t),
};

pub const CONFIG: Input = Input::one(
    "config",
    &["INPUT_CONFIG"],
    "FILE",
    "The benchmark config (bench.toml, docs/config.md): key columns, metrics and per-row \
     rules (thresholds, floor, direction, ignore).",
)
.path();

pub const STRICT: Input = Input::switch(
    "strict",
    &["INPUT_STRICT"],
    "Exit 3 when the gate is inconclusive.",
);

pub const MIN_COVERAGE: Typed<f64> = Typed {
    input: Input::one(
        "min-coverage",
        &["INPUT_MIN_COVERAGE"],
        "PCT",
        "The share of the suite (percent of the rows neither ignored nor unselected) that must \
         be compared for a pass; below it the gate is inconclusive with a warning (a baseline \
         whose run died after a third of the suite never passes on that third).",
    )
    .default("50"),
    parse: coverage,
};

pub const NO_GATE: Input = Input::switch(
    "no-gate",
    &["INPUT_NO_GATE"],
    "Report only: exit 0 whatever the verdict (bad input and usage errors still exit 1 and 2), \
     and say REPORT-ONLY in every output.",
);

pub const RESOLUTION: Input = Input::one(
    "resolution",
    &["INPUT_RESOLUTION"],
    "FILE",
    "resolve's JSON answer (a file, or the JSON itself): the provenance (base repository and \
     commit, release tag), and evidence: when it says there is no baseline, or its label is \
     none of the --baseline labels, the gate is inconclusive.",
);

pub const SELECTION: Input = Input::one(
    "selection",
    &["INPUT_SELECTION"],
    "FILE",
    "select's answer (a file, or its json output itself): rows that only groups it did not \
     select produce are not-selected (not compared, not failing); a selected group's missing \
     row is still lost. Needs the config's [select] groups.",
);

pub const HISTORY: Input = Input::one(
    "history",
    &["INPUT_HISTORY"],
    "FILE",
    "A past run of the gate baseline's branch (in the format of the other files), oldest \
     first; repeat, or a \
     glob in the file name (history/*.csv, expanded in name order). Each row's fail threshold \
     becomes the larger of the configured one and its run-to-run noise band; a row with fewer \
     than 5 valid runs keeps the configured one. A file that cannot be read is a warning.",
)
.many()
.path();

pub const PAIRED: Input = Input::switch(
    "paired",
    &["INPUT_PAIRED"],
    "The --current files and the gate baseline's files are paired rounds, measured in the \
     same job (bench --rounds): the i-th current file pairs with the i-th baseline file. Each \
     row is judged on its rounds' ratios (see \"Paired rounds\" below).",
);

pub const MANIFEST: Input = Input::one(
    "manifest",
    &["INPUT_MANIFEST"],
    "FILE",
    "bench's manifest (its manifest output): the change's and the baseline's files (paired \
     rounds, or each side's one run), the baseline's label as the gate, bench's look \
     schedule, the release's file (--with-tag), resolve's and select's answers, and the config (as \
     bench read it), columns and thresholds bench judged by. Instead of --current and the gate's --baseline files; an \
     input given here as well wins over the manifest's. A manifest holding no copy of its \
     config (an older bench, or one that could not read it) is refused (exit 1) when that \
     config's path is a pipe, under /dev or /proc once resolved, or gone, unless --config is \
     given.",
)
.path();

pub const ROUNDS: Typed<usize> = Typed {
    input: Input::one(
        "rounds",
        &["INPUT_ROUNDS"],
        "N",
        "With --paired: the rounds of the first look; a row still in doubt is looked at again \
         at twice as many, up to --max-rounds. 1 to 160, the same as bench's.",
    )
    .default("3"),
    parse: schedule::count,
};

pub const MAX_ROUNDS: Typed<usize> = Typed {
    input: Input::one(
        "max-rounds",
        &["INPUT_MAX_ROUNDS"],
        "N",
        "With --paired: the most rounds a row gets; a row still in doubt then stays noisy. At \
         least --rounds, at most 160.",
    )
    .default("20"),
    parse: schedule::count,
};

pub const FINGERPRINT: Input = Input::one(
    "fingerprint",
    &["INPUT_FINGERPRINT"],
    "MODE",
    "What another machine means: `warn` (the report says first that the baseline was measured \
     on another GPU, driver or runtime, other clocks or power cap, from the fingerprints bench \
     wrote beside the files; rows judged as usual) or `strict` (the gate is then \
     inconclusive). History runs from another machine are always left out of the noise bands.",
)
.default("warn");

pub const CURRENT_FINGERPRINT: Input = Input::one(
    "current-fingerprint",
    &["INPUT_CURRENT_FINGERPRINT"],
    "FILE",
    "The current side's fingerprint, instead of the one beside the first --current file.",
)
.path();

pub const BASELINE_FINGERPRINT: Input = Input::one(
    "baseline-fingerprint",
    &["INPUT_BASELINE_FINGERPRINT"],
    "FILE",
    "The gate baseline's fingerprint (uploaded with main's results), instead of the one beside \
     its first file.",
)
.path();

pub const REPORT: Input = Input::one(
    "report",
    &["INPUT_REPORT"],
    "FILE",
    "Also write the JSON report (what --format json prints, every row) to FILE: the file a \
     later job's gate or comment reads, uploaded as an artifact.",
)
.path();

/// `--min-coverage`: a percentage from 0 to 100 (compare's alone: the
/// share of the suite a pass needs compared).
fn coverage(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').trim().parse::<f64>() {
        Ok(p) if p.is_finite() && (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "expected a percentage from 0 to 100, got {:?}",
            shown(text)
        )),
    }
}
