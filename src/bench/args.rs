//! The inputs of `bench`, each declared once (flag, `INPUT_*` variable,
//! parser, default, help: [`crate::runner::declare`]), and its help text.

pub use crate::config::columns::{FLOOR, IGNORE, KEYS, METRIC};
use std::time::Duration;

use super::plan::{GroupsFormat, Sides};
use crate::config::judging;
use crate::paired::schedule;
use crate::runner::{Declared, Given, Input, Typed, shown};

pub const ABOUT: &str = "Run the benchmark suite on the change and on the one resolved baseline in paired rounds (each once a round, in a seeded random order; rows still in doubt run again): a worktree at the exact base commit, the selected groups, partial results kept, a time budget per side.";

const EXIT_CODES: &str = "\
Exit codes:
  0  each side ran once, was reused or skipped, or is unavailable with a warning; a side whose
     command failed or timed out is a warning and keeps the rows it wrote
  1  bad input: the resolution, selection or config cannot be read; a group, label, tag or
     path is not a plain word or starts with -; a group the config does not declare; the
     worktree's directory cannot be made
  2  usage: unknown flag, or an invalid flag / INPUT_* value; no --command, or one without
     {out}; the baseline side without --resolution or --baseline-result
  4  --strict, and a side's command failed or timed out, or the baseline is unavailable
  129, 130, 143  cancelled (SIGHUP, SIGINT, SIGTERM): the harness's group was stopped,
     the worktree removed, what there is written";

const EXAMPLES: &str = "\
Examples:
  # Paired rounds (the default, 3 to 20): each round runs both sides, a file per round and side,
  # and the groups of rows still undecided run again; then compare --paired on the files:
  baseline-resolver bench --resolution resolution.json --seed 42 \\
    --command './run_benchmark.sh --output_csv {out} {groups}' --groups-format flag:--only

  # Both sides on a pull request, once each: the change here, main's base commit in a worktree:
  baseline-resolver bench --resolution resolution.json --rounds 1 \\
    --command './run_benchmark.sh --output_csv {out} {groups}' --groups-format flag:--only

  # Only the groups select chose, each tree's harness asked what it knows ({groups} carries
  # its flag, so a whole-suite run leaves no dangling --only):
  baseline-resolver bench --resolution resolution.json --selection selection.json \\
    --command './run_benchmark.sh --output_csv {out} {groups}' --groups-format flag:--only \\
    --list-command './run_benchmark.sh --list'

  # main's uploaded results were downloaded: the baseline is not run again:
  baseline-resolver bench --resolution resolution.json --baseline-result main/results.csv \\
    --command 'make bench OUT={out}'

  # The harness lives in a container started with -v \"$PWD/src:/src\" (paths as it sees them):
  baseline-resolver bench --resolution resolution.json --repository src --volume src:/src \\
    --out-dir src/results \\
    --command 'docker exec bench bash -c \"cd {tree} && ./run.sh --csv {out}\"'

How it runs:
  --command runs through `bash -c` in the tree being measured, once per side a round: the
  checkout (current), and a detached git worktree at the resolution's base_sha (baseline;
  with --tag, its tag_sha), fetched at depth 1 when the clone lacks it, and removed
  afterwards, also after a failure or a timeout. Never another commit: a baseline that
  cannot be checked out is unavailable, with a warning. Placeholders: {out} the CSV this
  side writes (absolute), {groups} the selected groups in --groups-format (empty for the
  whole suite), {tree} the tree's directory, {side} current or baseline, {sha} the commit
  measured, {label} current, the resolution's label or the tag, {round} the round. Each is a
  plain word (letters, digits and ._+:@%/=-), so it may stand unquoted, also inside
  `bash -c '...'`, and none starts with - (a group, label or tag that does is refused before
  anything runs). A side that exits non-zero or outlives --timeout-minutes (its whole process group
  is stopped) keeps the rows it wrote: a warning names the exit status and the rows, the
  step succeeds, and compare judges the rows there are. The command's output is relayed to
  stderr, line by line, never read as a workflow command.
  Rounds: the side that runs first in each round is drawn from --seed; round i writes
  current-i.csv and baseline-i.csv, and rounds.json lists them for compare --paired. After
  --rounds, the rows are judged as compare --paired judges them (--config, thresholds), and
  only the [select] groups owning rows still in doubt run again (the whole suite when a row
  has no group), doubling to --max-rounds; --timeout-minutes is one budget per side for all
  rounds. --rounds 1, or a baseline that does not run here, is one run per side.";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

/// What the command line gave `bench`.
pub type BenchArgs = Given<Bench>;

/// `bench`'s inputs, in `--help` order.
pub struct Bench;

impl Declared for Bench {
    const INPUTS: &'static [Input] = &[
        COMMAND,
        RESOLUTION,
        CONFIG,
        KEYS.input,
        METRIC.input,
        IGNORE,
        FLOOR.input,
        SELECTION,
        BASELINE_RESULT,
        RESULTS_FORMAT.input,
        LIST_COMMAND,
        SETUP_COMMAND,
        STOP_COMMAND,
        FAILURE_COMMAND,
        FINGERPRINT_COMMAND,
        GROUPS_FORMAT.input,
        TIMEOUT.input,
        SIDE.input,
        TAG,
        WITH_TAG,
        TAG_SETUP_COMMAND,
        STRICT,
        REUSE_OTHER,
        OUT_DIR,
        WORKTREE_DIR,
        VOLUME,
        CONTAINER,
        CONTAINER_ENV,
        REPOSITORY,
        ROUNDS_INPUT.input,
        MAX_ROUNDS_INPUT.input,
        SEED.input,
        FAIL.input,
        WARN.input,
        FALSE_ALARMS.input,
        PRINT_LOG,
        crate::runner::format::FORMAT,
    ];
}

pub const COMMAND: Input = Input::one(
    "command",
    &["INPUT_COMMAND"],
    "TEMPLATE",
    "The harness, as a bash command with {out} (required), {groups}, {tree}, {side}, {sha}, \
     {label}, {round} (each described under \"How it runs\").",
);

pub const RESOLUTION: Input = Input::one(
    "resolution",
    &["INPUT_RESOLUTION"],
    "JSON|FILE",
    "resolve's JSON answer (its `json` output, or a file of it): the base commit.",
);

pub const CONFIG: Input = Input::one(
    "config",
    &["INPUT_CONFIG"],
    "FILE",
    "The benchmark config (bench.toml) select and compare read (keys, metrics, rules, \
     [select] groups): a \
     selection's group that is not one of them is refused; the rounds are judged between looks \
     by it, as compare --paired judges, and its groups say which rows each group runs again. \
     Read once, when the run starts (never after the harness ran), and parsed only when a step \
     needs it; its text goes into the manifest, which compare --manifest judges by. A pipe that \
     gives no bytes is refused. One that cannot be read (gone, too large, not a config) stops \
     a run that needs it (exit 1); a run that does not (--rounds 1) goes on with a warning, and \
     the manifest holds why instead of a copy, so compare --manifest refuses it.",
)
.path();

pub const SELECTION: Input = Input::one(
    "selection",
    &["INPUT_SELECTION"],
    "JSON|FILE",
    "select's JSON answer: `none` runs nothing, `some` the groups it names.",
)
.said("the whole suite");

pub const BASELINE_RESULT: Input = Input::one(
    "baseline-result",
    &["INPUT_BASELINE_RESULT"],
    "FILE",
    "main's downloaded results for the base commit: when the file is there with rows, the \
     baseline is not run.",
)
.path();

pub use crate::table::formats::RESULTS_FORMAT;

pub const LIST_COMMAND: Input = Input::one(
    "list-command",
    &["INPUT_LIST_COMMAND"],
    "TEMPLATE",
    "Prints the groups a tree's harness knows (runs in each tree, as --command does); {groups} \
     keeps only those, and what is dropped is said.",
);

pub const SETUP_COMMAND: Input = Input::one(
    "setup-command",
    &["INPUT_SETUP_COMMAND"],
    "TEMPLATE",
    "Runs once per side, in its tree, before its list command and harness (same placeholders: \
     {side}, {tree}, {sha}, {label}): what one side needs first, such as the base commit's \
     wheel ({side} says which). When it fails or times out the side is failed, with a warning, \
     and its harness is not run.",
);

pub const STOP_COMMAND: Input = Input::one(
    "stop-command",
    &["INPUT_STOP_COMMAND"],
    "TEMPLATE",
    "Runs in a side's tree when its command was stopped by --timeout-minutes or a cancellation \
     (same placeholders), within 60 seconds even after a cancellation: ends what bench's own \
     stop cannot reach, such as a harness inside a container (`docker exec NAME pkill -f \
     run_benchmark.sh`).",
);

pub const FAILURE_COMMAND: Input = Input::one(
    "failure-command",
    &["INPUT_FAILURE_COMMAND"],
    "TEMPLATE",
    "Runs once for a side whose command failed or timed out, where the command ran (its tree, \
     the container with --container; same placeholders), within 120 seconds: what shows why, \
     such as the harness's own per-benchmark logs (`cat /tmp/bench_{label}/*.log`). Its lines \
     are relayed as the harness's are; its own failure is a warning and never changes bench's \
     exit code.",
);

pub const FINGERPRINT_COMMAND: Input = Input::one(
    "fingerprint-command",
    &["INPUT_FINGERPRINT_COMMAND"],
    "COMMAND",
    "A command that prints a JSON object of what else the machine is (`{\"image\": \
     \"sha256:...\"}`); merged into the fingerprint written beside each results file, where \
     every field it gives counts as one that moves performance. Runs once, in the repository, \
     at most 10 seconds.",
);

pub const GROUPS_FORMAT: Typed<GroupsFormat> = Typed {
    input: Input::one(
        "groups-format",
        &["INPUT_GROUPS_FORMAT"],
        "FORM",
        "How {groups} is written: `comma` (a,b), `space` (a b) or `flag:NAME` (NAME a NAME b).",
    )
    .default("comma"),
    parse: GroupsFormat::parse,
};

/// A day: a side that needs longer is not a benchmark step.
pub const MAX_TIMEOUT_MINUTES: u64 = 1440;

pub const TIMEOUT: Typed<Duration> = Typed {
    input: Input::one(
        "timeout-minutes",
        &["INPUT_TIMEOUT_MINUTES"],
        "MINUTES",
        "The longest one side may run, in minutes (above 0, at most 1440).",
    )
    .default("60"),
    parse: minutes,
};

pub const SIDE: Typed<Sides> = Typed {
    input: Input::one(
        "side",
        &["INPUT_SIDE"],
        "SIDE",
        "Which sides run: `current`, `baseline` or `both`.",
    )
    .default("both"),
    parse: |t| Sides::parse(t).ok_or_else(|| "expected current, baseline or both".to_owned()),
};

pub const TAG: Input = Input::switch(
    "tag",
    &["INPUT_TAG"],
    "The baseline is the latest release tag (the resolution's tag_sha), not the base commit.",
);

pub const WITH_TAG: Input = Input::switch(
    "with-tag",
    &["INPUT_WITH_TAG"],
    "Also measure the latest release tag (the resolution's tag_sha), once, after the change and \
     the base commit, into tag.csv, reported beside (the `tag*` outputs, and a `TAG=FILE` line \
     in compare-baseline).",
);

pub const TAG_SETUP_COMMAND: Input = Input::one(
    "tag-setup-command",
    &["INPUT_TAG_SETUP_COMMAND"],
    "TEMPLATE",
    "The tag's setup with --with-tag (same placeholders, {label} the tag: the release's package \
     installed first).",
)
.said("--setup-command");

pub const STRICT: Input = Input::switch(
    "strict",
    &["INPUT_STRICT"],
    "Exit 4 when a side failed or timed out, or the baseline is unavailable.",
);

pub const REUSE_OTHER: Input = Input::switch(
    "reuse-other-machine",
    &["INPUT_REUSE_OTHER_MACHINE"],
    "Reuse --baseline-result even when the fingerprint beside it says it was measured on \
     another machine than this runner (another GPU, driver or runtime, clocks, power cap). By \
     default such a result is not reused: a notice, and the baseline runs in this job.",
);

pub const OUT_DIR: Input = Input::one(
    "out-dir",
    &["INPUT_OUT_DIR"],
    "DIR",
    "Where the results go: current.csv and baseline.csv (the baseline's is tag.csv with \
     --tag or --with-tag); with rounds, current-N.csv and baseline-N.csv per round and \
     rounds.json.",
)
.said("bench-results, under --volume's HOST with one")
.path();

pub const WORKTREE_DIR: Input = Input::one(
    "worktree-dir",
    &["INPUT_WORKTREE_DIR"],
    "DIR",
    "Where the baseline's worktree is made (it must not exist; a container must see it).",
)
.said("a new directory in RUNNER_TEMP")
.path();

pub const VOLUME: Input = Input::one(
    "volume",
    &["INPUT_VOLUME"],
    "HOST:INSIDE",
    "The harness runs in a container that mounts HOST at INSIDE (`docker run -v`'s form): \
     {out} and {tree} are given as the container sees them; the out dir and the worktree must \
     be under HOST (the worktree's default is).",
);

pub const CONTAINER: Input = Input::one(
    "container",
    &["INPUT_CONTAINER"],
    "NAME",
    "The harness runs in this running container: every command (setup, list, harness, stop) is \
     run as `docker exec -w TREE NAME bash -c '...'`, TREE the tree as the container sees it \
     (with --volume); a timeout or a cancellation stops the command inside the container too.",
);

pub const CONTAINER_ENV: Input = Input::one(
    "container-env",
    &["INPUT_CONTAINER_ENV"],
    "NAMES",
    "Variables passed into --container by name (`docker exec -e NAME`: the step's own value), \
     separated by spaces or commas.",
);

pub const REPOSITORY: Input = Input::one(
    "repository",
    &["INPUT_REPOSITORY", "GITHUB_WORKSPACE"],
    "DIR",
    "The checkout the current side measures and the worktree is made from: --volume's HOST \
     when one is given, else GITHUB_WORKSPACE.",
)
.said(".")
.path();

pub const ROUNDS_INPUT: Typed<usize> = Typed {
    input: Input::one(
        "rounds",
        &["INPUT_ROUNDS"],
        "N",
        "Rounds: the change and the baseline each run once per round, on this runner, in an \
         order drawn from --seed; each round's results in their own file per side, and a \
         manifest compare --paired reads. 1: one run per side, not paired. At most 160.",
    )
    .default("3"),
    parse: schedule::count,
};

pub const MAX_ROUNDS_INPUT: Typed<usize> = Typed {
    input: Input::one(
        "max-rounds",
        &["INPUT_MAX_ROUNDS"],
        "M",
        "The most rounds: after --rounds, the groups whose rows are still undecided run again \
         (doubling: 3, 6, 12, 20) until every row is decided, this many rounds ran, or a side's \
         --timeout-minutes is spent. At least --rounds, at most 160.",
    )
    .default("20"),
    parse: schedule::count,
};

pub const SEED: Typed<u64> = Typed {
    input: Input::one(
        "seed",
        &["INPUT_SEED"],
        "S",
        "The seed of the order within each round (which side runs first): the same seed, the \
         same order.",
    )
    .said("drawn at random, and printed"),
    parse: |t| {
        t.trim().parse::<u64>().map_err(|_| {
            format!(
                "expected a whole number from 0 to {}, got {:?}",
                u64::MAX,
                shown(t)
            )
        })
    },
};

pub const FAIL: Typed<f64> = Typed {
    input: Input::one(
        "fail-threshold",
        &["INPUT_FAIL_THRESHOLD"],
        "PCT",
        "Between looks, as compare --paired judges: worse by more than this percent fails (0 to \
         1000, as compare takes it, under 100 unless every metric is lower-is-better; 0: any slowdown the rounds can tell, and no row is shown \
         unchanged, so rows not found worse or better run to --max-rounds).",
    )
    .default("10"),
    parse: judging::fixed_fail_threshold,
};

pub const WARN: Typed<f64> = Typed {
    input: Input::one(
        "warn-threshold",
        &["INPUT_WARN_THRESHOLD"],
        "PCT",
        "Between looks, as compare --paired judges: worse by more than this percent warns (0 to \
         1000).",
    )
    .default("3"),
    parse: |t| judging::THRESHOLD.parse(t),
};

pub const PRINT_LOG: Input = Input::one(
    "print-log",
    &["INPUT_PRINT_LOG"],
    "SIDE",
    "Print a side's harness output again once bench is done, unprefixed and as it printed it \
     (`current`, `baseline`, `both`), in a collapsed group: for a dashboard that parses the \
     harness's table from the job log. Each line is still never read as a workflow command; at \
     most the first 8 MiB.",
)
.default("none");

pub const FALSE_ALARMS: Typed<f64> = Typed {
    input: Input::one(
        "false-alarms",
        &["INPUT_FALSE_ALARMS"],
        "PCT",
        "Between looks, as compare --paired judges: the chance (percent) that a change of \
         nothing fails some row (above 0, at most 50).",
    )
    .default("1"),
    parse: |t| judging::FALSE_ALARMS.parse(t),
};

/// Minutes above 0, at most a day (`90`, `0.5`).
fn minutes(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(m) if m > 0.0 && m <= MAX_TIMEOUT_MINUTES as f64 => {
            Ok(Duration::from_secs_f64(m * 60.0))
        }
        _ => Err(format!(
            "expected minutes above 0 and at most {MAX_TIMEOUT_MINUTES}, got {:?}",
            shown(text)
        )),
    }
}
