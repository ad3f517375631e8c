//! The inputs of `select`, each declared once (flag, `INPUT_*` variable,
//! parser, default, help: [`crate::runner::declare`]), and its help text.

use std::path::PathBuf;

use crate::runner::{Declared, Given, Input, Typed};

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

/// What the command line gave `select`.
pub type SelectArgs = Given<Select>;

/// `select`'s inputs, in `--help` order.
pub struct Select;

impl Declared for Select {
    const INPUTS: &'static [Input] = &[
        CONFIG,
        BASE.input,
        HEAD.input,
        CHECK,
        REPO.input,
        RESOLUTION,
        crate::runner::format::FORMAT,
    ];
}

pub const CONFIG: Input = Input::one(
    "config",
    &["INPUT_CONFIG"],
    "FILE",
    "The benchmark config (bench.toml, the file compare reads too) with a [select] table.",
)
.path();

pub const BASE: Typed<String> = Typed {
    input: Input::one(
        "base",
        &["INPUT_BASE"],
        "REV",
        "The baseline commit: a full SHA, or any revision the repository resolves (HEAD, a \
         branch, main~1); the SHA used is printed.",
    )
    .said("the resolution's base_sha"),
    parse: revision,
};

pub const HEAD: Typed<String> = Typed {
    input: Input::one(
        "head",
        &["INPUT_HEAD"],
        "REV",
        "The commit benchmarked as the change, as --base.",
    )
    .said("the resolution's head_sha, then GITHUB_SHA; HEAD with --check"),
    parse: revision,
};

pub const CHECK: Input = Input::switch(
    "check",
    &[],
    "Only check the config against the tree of the head commit: warn where an ignore pattern \
     matches a path that all or a group claims (the claim wins, so that ignore is partly \
     dead). No base, no diff.",
);

pub const REPO: Typed<PathBuf> = Typed {
    input: Input::one(
        "repo",
        &["INPUT_REPO"],
        "DIR",
        "The git repository holding both commits.",
    )
    .default(".")
    .path(),
    parse: |text| Ok(PathBuf::from(text)),
};

pub const RESOLUTION: Input = Input::one(
    "resolution",
    &["INPUT_RESOLUTION"],
    "FILE",
    "resolve's JSON answer (a file, or the JSON itself), for the default base and head.",
);

/// `GITHUB_SHA`: the head when neither `--head` nor the resolution says.
pub const GITHUB_SHA: Input = Input::new("", &["GITHUB_SHA"]);

/// A revision git can be asked to resolve: printable, not an option (a
/// leading `-`), at most 256 bytes.
fn revision(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() || t.len() > 256 || t.starts_with('-') || t.chars().any(char::is_control) {
        return Err(format!(
            "{:?} is not a revision (a full SHA, HEAD, a branch or tag; at most 256 characters, not starting with -)",
            crate::runner::shown(t)
        ));
    }
    Ok(t.to_owned())
}
