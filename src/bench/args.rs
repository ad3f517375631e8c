//! The `bench` command line as typed, and its help text. Each flag also has
//! an `INPUT_*` variable (what `bench/action.yml` passes).

use std::path::PathBuf;

use clap::Args;

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
  baseline-resolver bench --resolution resolution.json --repository src --volume src:/src \
    --out-dir src/results --command 'docker exec bench bash -c \"cd {tree} && ./run.sh --csv {out}\"'

How it runs:
  --command runs through `bash -c` in the tree being measured, once per side a round: the
  checkout (current), and a detached git worktree at the resolution's base_sha (baseline; with --tag,
  its tag_sha), fetched at depth 1 when the clone lacks it, and removed afterwards, also after
  a failure or a timeout. Never another commit: a baseline that cannot be checked out is
  unavailable, with a warning. Placeholders: {out} the CSV this side writes (absolute),
  {groups} the selected groups in --groups-format (empty for the whole suite), {tree} the
  tree's directory, {side} current or baseline, {sha} the commit measured, {label} current,
  the resolution's label or the tag, {round} the round. Each is a plain
  word (letters, digits and ._+:@%/=-), so it may stand unquoted, also inside `bash -c '...'`,
  and none starts with - (a group, label or tag that does is refused before anything runs).
  A side that exits non-zero or outlives --timeout-minutes (its whole process group is
  stopped) keeps the rows it wrote: a warning names the exit status and the rows, the step
  succeeds, and compare judges the rows there are. The command's output is relayed to
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

#[derive(Debug, Clone, Default, Args)]
pub struct BenchArgs {
    /// The harness, as a bash command with {out} (required), {groups}, {tree}, {side},
    /// {sha}. [env: INPUT_COMMAND]
    #[arg(long, value_name = "TEMPLATE")]
    pub command: Option<String>,

    /// resolve's JSON answer (its `json` output, or a file of it): the base commit.
    /// [env: INPUT_RESOLUTION]
    #[arg(long, value_name = "JSON|FILE")]
    pub resolution: Option<String>,

    /// The TOML config select and compare read (keys, metrics, rules, [select] groups):
    /// a selection's group that is not one of them is refused; the rounds are judged
    /// between looks by it, as compare --paired judges, and its groups say which rows
    /// each group runs again. [env: INPUT_CONFIG]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// select's JSON answer: `none` runs nothing, `some` the groups it names.
    /// [default: the whole suite] [env: INPUT_SELECTION]
    #[arg(long, value_name = "JSON|FILE")]
    pub selection: Option<String>,

    /// main's downloaded results for the base commit: when the file is there with rows,
    /// the baseline is not run. [env: INPUT_BASELINE_RESULT]
    #[arg(long, value_name = "FILE")]
    pub baseline_result: Option<PathBuf>,

    /// The results format of {out} and of --baseline-result, where the content does not
    /// say it (customBiggerIsBetter or customSmallerIsBetter for the peer action's custom
    /// JSON); a name from docs/formats.md. [default: found from each file's content]
    /// [env: INPUT_RESULTS_FORMAT]
    #[arg(long, value_name = "NAME")]
    pub results_format: Option<String>,

    /// Prints the groups a tree's harness knows (runs in each tree, as --command does);
    /// {groups} keeps only those, and what is dropped is said. [env: INPUT_LIST_COMMAND]
    #[arg(long, value_name = "TEMPLATE")]
    pub list_command: Option<String>,

    /// Runs once per side, in its tree, before its list command and harness (same
    /// placeholders: {side}, {tree}, {sha}, {label}): what one side needs first, such as
    /// the base commit's wheel ({side} says which). When it fails or times out the side
    /// is failed, with a warning, and its harness is not run. [env: INPUT_SETUP_COMMAND]
    #[arg(long, value_name = "TEMPLATE")]
    pub setup_command: Option<String>,

    /// Runs in a side's tree when its command was stopped by --timeout-minutes or a
    /// cancellation (same placeholders), within 60 seconds even after a cancellation: ends
    /// what bench's own stop cannot reach, such as a harness inside a container
    /// (`docker exec NAME pkill -f run_benchmark.sh`). [env: INPUT_STOP_COMMAND]
    #[arg(long, value_name = "TEMPLATE")]
    pub stop_command: Option<String>,
    /// A command that prints a JSON object of what else the machine is (`{"image":
    /// "sha256:..."}`); merged into the fingerprint written beside each results file,
    /// where every field it gives counts as one that moves performance. Runs once, in
    /// the repository, at most 10 seconds. [env: INPUT_FINGERPRINT_COMMAND]
    #[arg(long, value_name = "COMMAND")]
    pub fingerprint_command: Option<String>,

    /// How {groups} is written: `comma` (a,b), `space` (a b) or `flag:NAME`
    /// (NAME a NAME b). [default: comma] [env: INPUT_GROUPS_FORMAT]
    #[arg(long, value_name = "FORM")]
    pub groups_format: Option<String>,

    /// The longest one side may run, in minutes (above 0, at most 1440). [default: 60]
    /// [env: INPUT_TIMEOUT_MINUTES]
    #[arg(long, value_name = "MINUTES")]
    pub timeout_minutes: Option<String>,

    /// Which sides run: `current`, `baseline` or `both`. [default: both] [env: INPUT_SIDE]
    #[arg(long, value_name = "SIDE")]
    pub side: Option<String>,

    /// The baseline is the latest release tag (the resolution's tag_sha), not the base
    /// commit. [env: INPUT_TAG]
    #[arg(long)]
    pub tag: bool,

    /// Also measure the latest release tag (the resolution's tag_sha), once, after the
    /// change and the base commit, into tag.csv, reported beside (the `tag*` outputs, and
    /// a `TAG=FILE` line in compare-baseline). [env: INPUT_WITH_TAG]
    #[arg(long)]
    pub with_tag: bool,

    /// The tag's setup with --with-tag (same placeholders, {label} the tag: the release's
    /// package installed first). [default: --setup-command] [env: INPUT_TAG_SETUP_COMMAND]
    #[arg(long, value_name = "TEMPLATE")]
    pub tag_setup_command: Option<String>,

    /// Exit 4 when a side failed or timed out, or the baseline is unavailable.
    /// [env: INPUT_STRICT]
    #[arg(long)]
    pub strict: bool,

    /// Reuse --baseline-result even when the fingerprint beside it says it was measured on
    /// another machine than this runner (another GPU, driver or runtime, clocks, power
    /// cap). By default such a result is not reused: a notice, and the baseline runs in
    /// this job. [env: INPUT_REUSE_OTHER_MACHINE]
    #[arg(long)]
    pub reuse_other_machine: bool,

    /// Where the CSVs go: current.csv, baseline.csv (tag.csv with --tag).
    /// [default: bench-results, under --volume's HOST with one] [env: INPUT_OUT_DIR]
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Where the baseline's worktree is made (it must not exist; a container must see it).
    /// [default: a new directory in RUNNER_TEMP] [env: INPUT_WORKTREE_DIR]
    #[arg(long, value_name = "DIR")]
    pub worktree_dir: Option<PathBuf>,

    /// The harness runs in a container that mounts HOST at INSIDE (`docker run -v`'s
    /// form): {out} and {tree} are given as the container sees them; the out dir and
    /// the worktree must be under HOST (the worktree's default is).
    /// [env: INPUT_VOLUME]
    #[arg(long, value_name = "HOST:INSIDE")]
    pub volume: Option<String>,

    /// The harness runs in this running container: every command (setup, list, harness,
    /// stop) is run as `docker exec -w TREE NAME bash -c '...'`, TREE the tree as the
    /// container sees it (with --volume); a timeout or a cancellation stops the command
    /// inside the container too. [env: INPUT_CONTAINER]
    #[arg(long, value_name = "NAME")]
    pub container: Option<String>,

    /// Variables passed into --container by name (`docker exec -e NAME`: the step's own
    /// value), separated by spaces or commas. [env: INPUT_CONTAINER_ENV]
    #[arg(long, value_name = "NAMES")]
    pub container_env: Option<String>,

    /// The checkout the current side measures and the worktree is made from.
    /// [default: --volume's HOST, else GITHUB_WORKSPACE, else .] [env: INPUT_REPOSITORY]
    #[arg(long, value_name = "DIR")]
    pub repository: Option<PathBuf>,

    /// Rounds: the change and the baseline each run once per round, on this runner, in an
    /// order drawn from --seed; each round's results in their own file per side, and a
    /// manifest compare --paired reads. 1: one run per side, as before rounds existed.
    /// [default: 3] [env: INPUT_ROUNDS]
    #[arg(long, value_name = "N")]
    pub rounds: Option<String>,

    /// The most rounds: after --rounds, the groups whose rows are still undecided run
    /// again (doubling: 3, 6, 12, 20) until every row is decided, this many rounds ran,
    /// or a side's --timeout-minutes is spent. [default: 20] [env: INPUT_MAX_ROUNDS]
    #[arg(long, value_name = "M")]
    pub max_rounds: Option<String>,

    /// The seed of the order within each round (which side runs first): the same seed,
    /// the same order. [default: drawn at random, and printed] [env: INPUT_SEED]
    #[arg(long, value_name = "S")]
    pub seed: Option<String>,

    /// Between looks, as compare --paired judges: worse by more than this percent fails.
    /// [default: 10] [env: INPUT_FAIL_THRESHOLD]
    #[arg(long, value_name = "PCT")]
    pub fail_threshold: Option<String>,

    /// Between looks, as compare --paired judges: worse by more than this percent warns.
    /// [default: 3] [env: INPUT_WARN_THRESHOLD]
    #[arg(long, value_name = "PCT")]
    pub warn_threshold: Option<String>,

    /// Between looks, as compare --paired judges: the chance (percent) that a change of
    /// nothing fails some row. [default: 1] [env: INPUT_FALSE_ALARMS]
    #[arg(long, value_name = "PCT")]
    pub false_alarms: Option<String>,

    /// Print a side's harness output again once bench is done, unprefixed and as it
    /// printed it (`current`, `baseline`, `both`), in a collapsed group: for a dashboard
    /// that parses the harness's table from the job log. Each line is still never read as
    /// a workflow command; at most the first 8 MiB. [default: none] [env: INPUT_PRINT_LOG]
    #[arg(long, value_name = "SIDE")]
    pub print_log: Option<String>,

    /// github (step outputs, summary, annotations), json, or text.
    /// [default: github on a runner, else text]
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}
