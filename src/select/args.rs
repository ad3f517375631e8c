//! The `select` command line as typed, and its help text. Each flag also
//! has an `INPUT_*` variable (what `select/action.yml` passes).

use std::path::PathBuf;

use clap::Args;

pub const ABOUT: &str = "Select the benchmark groups a change can affect: the files that differ between the two benchmarked commits, mapped to groups, failing safe to all.";

const EXIT_CODES: &str = "\
Exit codes:
  0  a selection: all, some or none (a git failure is all, with a warning)
  1  bad input: the config cannot be read, has no [select] table, or is wrong (file and
     line named); the resolution cannot be read
  2  usage: unknown flag, or an invalid flag / INPUT_* value (a revision starting with -
     or holding a control character), or no base commit given at all (without --check)";

const EXAMPLES: &str = "\
Examples:
  # What the two commits a pull request benchmarks differ in, mapped to groups:
  baseline-resolver select --config bench.toml --base fa4f8ae2... --head 3c9d2e7a...

  # The base and head from resolve's answer (after resolve --fetch . put the base here):
  baseline-resolver select --config bench.toml --resolution resolve.json

  # Does the config shadow itself (an ignore covering a path a group claims)?
  baseline-resolver select --check --config bench.toml

Deciding:
  The files that differ between exactly the two benchmarked commits (the resolved base and
  the head or merge commit; a tree diff, renames count both paths, deletions, mode and
  submodule changes included) are mapped by the [select] table of the config, in an
  order that fails safe: all patterns first (everything runs), then every group's paths
  (the path selects each group that claims it), and only a path neither claims is tried
  against ignore (never relevant). An explicit claim beats an ignore whatever order the
  globs are written in: a broad ignore (scripts/*.sh, **/*.md) can never drop a path the
  config maps (scripts/run_benchmark.sh in all). A path that matches none of them selects
  all, and the reason names it. Where an ignore pattern matches a path of the head's tree
  that a claim also matches, a warning names both (at most 20 pairs; --check runs only
  this). More changed files than max-files: all. No relevant change, or base = head:
  none. A commit or tree the repository lacks, or any git error: all, with a warning.
  Path globs are gitignore-style: * and ? stay within a segment, ** matches any number of
  directories (none included), a trailing /** everything below, anchored at the root.";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

#[derive(Debug, Clone, Default, Args)]
pub struct SelectArgs {
    /// The TOML config with a [select] table (the same file compare reads).
    /// [env: INPUT_CONFIG]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The baseline commit: a full SHA, or any revision the repository
    /// resolves (HEAD, a branch, main~1); the SHA used is printed.
    /// [default: the resolution's base_sha] [env: INPUT_BASE]
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,

    /// The commit benchmarked as the change, as --base.
    /// [default: the resolution's head_sha, then GITHUB_SHA; HEAD with --check] [env: INPUT_HEAD]
    #[arg(long, value_name = "REV")]
    pub head: Option<String>,

    /// Only check the config against the tree of the head commit: warn where
    /// an ignore pattern matches a path that all or a group claims (the claim
    /// wins, so that ignore is partly dead). No base, no diff.
    #[arg(long)]
    pub check: bool,

    /// The git repository holding both commits. [default: .] [env: INPUT_REPO]
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,

    /// resolve's JSON answer (a file, or the JSON itself), for the default base and head.
    /// [env: INPUT_RESOLUTION]
    #[arg(long, value_name = "FILE")]
    pub resolution: Option<String>,

    /// Output form: github (step outputs, summary, annotations), json (one object on
    /// stdout) or text. [default: github when GITHUB_ACTIONS=true, else text]
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}
