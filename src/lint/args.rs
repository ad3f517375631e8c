//! The inputs of `lint`, each declared once (flag, `INPUT_*` variable,
//! parser, default, help: [`crate::runner::declare`]), and its help text.

use super::finding::Severity;
use crate::runner::{Declared, Given, Input, Typed, shown};

pub const ABOUT: &str = "Find the benchmark-CI patterns that waste GPU hours or hide a missing comparison in a repository's own workflows: a baseline from the fork, a walk over older commits, always() on GPU jobs, silent comparisons, moving fallbacks and dependencies, and more (14 rules).";

const EXIT_CODES: &str = "\
Exit codes:
  0  nothing at or above --fail-on was found (findings below it are still shown)
  1  bad input: a file that is missing, unreadable, over 4 MiB or not YAML (file, line
     and column named); a directory or the default .github/workflows with no workflow
  2  usage: unknown flag, or an invalid flag / INPUT_* value
  4  findings at or above --fail-on";

const EXAMPLES: &str = "\
Examples:
  # Every workflow of the repository here (.github/workflows/*.yml and *.yaml):
  baseline-resolver lint

  # Two files, failing only on errors, as SARIF for code scanning:
  baseline-resolver lint .github/workflows/bench.yml ci/gpu.yaml --fail-on error --format sarif

Rules (id, severity):
  job-always (error), fork-remote (error), baseline-walk (error),
  moving-fallback (error), silent-baseline (error), discard-partial (error),
  unchecked-before (warning), long-timeout (warning), unpinned-clone (warning),
  tag-sort (warning), cancel-main (warning), label-cancel (warning),
  shallow-merge-base (warning), cache-discipline (note).
  Each is described, with its fix, in docs/lint.md and in each finding.

Which jobs run benchmarks:
  Seven rules (silent-baseline, discard-partial, unpinned-clone, long-timeout,
  moving-fallback, unchecked-before, tag-sort) look only at jobs that run
  benchmarks; four (job-always, cancel-main, label-cancel, cache-discipline)
  also at every job on an expensive runner (self-hosted, a GPU, one of
  GitHub's larger runners); fork-remote, baseline-walk and shallow-merge-base
  at every job. A job runs benchmarks on strong evidence: a benchmark command
  (cargo bench, asv run, pytest --benchmark-*, go test -bench, hyperfine, a
  run_benchmark* script, a --benchmark_* flag), a benchmark action, uploading
  or comparing benchmark results, or --config's [lint] table (benchmark-jobs,
  benchmark-workflows: globs). A word such as \"bench\" in a name or an echo
  is not evidence.

Suppressing:
  A comment `# baseline-resolver: ignore[rule-id]` (several ids: ignore[a, b]) on the
  finding's line, on the line of its step or job, or alone on the line above one of
  them, suppresses it; suppressed findings are counted in the output.";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

/// What the command line gave `lint`.
pub type LintArgs = Given<Lint>;

/// `lint`'s inputs, in `--help` order.
pub struct Lint;

impl Declared for Lint {
    const INPUTS: &'static [Input] = &[
        PATHS,
        FORMAT,
        FAIL_ON.input,
        SARIF,
        FIX,
        DRY_RUN,
        CONFIG,
        DEFAULT_BRANCH.input,
        REPOSITORY.input,
    ];
}

/// Where the workflows are when no path is given.
pub const DEFAULT_DIR: &str = ".github/workflows";

pub const PATHS: Input = Input::one(
    "paths",
    &["INPUT_PATHS"],
    "PATH",
    "Workflow files, or directories of them.",
)
.many()
.path()
.positional()
.said(DEFAULT_DIR);

/// `--format`: the runner's three forms and SARIF.
pub const FORMAT: Input = Input::one(
    "format",
    &[],
    "FORMAT",
    "Output form: text, github (annotations and a summary), json or sarif (SARIF 2.1.0, for \
     code scanning).",
)
.said("github when GITHUB_ACTIONS=true, else text");

pub const FAIL_ON: Typed<Severity> = Typed {
    input: Input::one(
        "fail-on",
        &["INPUT_FAIL_ON"],
        "SEVERITY",
        "The lowest severity that fails the run (exit 4): error, warning or note.",
    )
    .default("warning"),
    parse: |t| {
        Severity::parse(t)
            .ok_or_else(|| format!("expected error, warning or note, got {:?}", shown(t)))
    },
};

pub const SARIF: Input = Input::one(
    "sarif",
    &["INPUT_SARIF"],
    "FILE",
    "Also write the findings as SARIF 2.1.0 to FILE (for github/codeql-action/upload-sarif).",
)
.path();

pub const FIX: Input = Input::switch(
    "fix",
    &[],
    "Mend the mechanical findings in place: job-always (always() becomes !cancelled()), \
     cancel-main and label-cancel (cancel only pull requests' runs, not labeled ones), \
     tag-sort (baseline-resolver's tag output, where the job uses it). Every other byte stays; \
     the result is re-linted and kept only when the fixed findings are gone.",
);

pub const DRY_RUN: Input = Input::switch(
    "dry-run",
    &[],
    "With --fix: print the edits as a unified diff and change no file.",
)
.requires("fix");

pub const CONFIG: Input = Input::one(
    "config",
    &["INPUT_CONFIG"],
    "FILE",
    "The benchmark config compare reads (bench.toml): its [lint] table names the jobs and \
     workflows that run benchmarks where their steps do not show it (benchmark-jobs, \
     benchmark-workflows: globs).",
)
.path();

/// The longest branch name taken: git refuses longer ref names on most
/// file systems, and the name is only compared, never written.
pub const BRANCH_LIMIT: usize = 255;

/// `--default-branch`: a workflow file does not say which branch is the
/// repository's default, and `cancel-main` asks whether pushes to it share
/// a cancelling group (rapidsai's `branch-25.06`, marqo's `mainline`).
/// Empty or all spaces is not given (the action passes an empty value when
/// the event names no repository): kept as `""`, it would make an empty
/// literal of a group the default branch.
pub const DEFAULT_BRANCH: Typed<Option<String>> = Typed {
    input: Input::one(
        "default-branch",
        &["INPUT_DEFAULT_BRANCH"],
        "BRANCH",
        "The repository's default branch, whose pushes cancel-main protects; main and master \
         count as well (master not when it is main), and alone when it is empty or not given.",
    )
    .said("${{ github.event.repository.default_branch }}"),
    parse: |t| {
        if t.trim().is_empty() {
            return Ok(None);
        }
        let bad = t.len() > BRANCH_LIMIT || t.chars().any(|c| c.is_control() || c.is_whitespace());
        if bad {
            Err(format!(
                "expected a branch name of at most {BRANCH_LIMIT} bytes with no spaces or control characters, got {:?}",
                shown(t)
            ))
        } else {
            Ok(Some(t.to_owned()))
        }
    },
};

/// The longest `owner/name` taken: GitHub's owners are at most 39 bytes
/// and its names at most 100; the value is only compared, never written.
pub const REPOSITORY_LIMIT: usize = 140;

/// Whether `t` is an `owner/name` as GitHub spells one: one `/` between
/// two non-empty parts of letters, digits, `-`, `_` and `.`.
fn repository_name(t: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    t.len() <= REPOSITORY_LIMIT && t.split_once('/').is_some_and(|(o, n)| part(o) && part(n))
}

/// `--repository`: a workflow names its own repository as it names any
/// other (`repository: nod-ai/SHARK-TestSuite` in SHARK-TestSuite), and
/// `unpinned-clone` must tell its own code, which is what is measured,
/// from another project's. Empty or all spaces is not given, as the
/// action passes it when the event names no repository.
pub const REPOSITORY: Typed<Option<String>> = Typed {
    input: Input::one(
        "repository",
        &["INPUT_REPOSITORY"],
        "OWNER/NAME",
        "The repository the workflows belong to; a checkout of it by name with no ref is of its \
         own code, not a dependency (unpinned-clone). Empty or not given: only github.repository \
         and the event's repositories are known as its own.",
    )
    .said("${{ github.repository }}"),
    parse: |t| {
        if t.trim().is_empty() {
            Ok(None)
        } else if repository_name(t) {
            Ok(Some(t.to_owned()))
        } else {
            Err(format!(
                "expected owner/name of at most {REPOSITORY_LIMIT} bytes (letters, digits, '-', '_', '.'), got {:?}",
                shown(t)
            ))
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_or_all_space_branch_or_repository_is_not_given() {
        for empty in ["", "   ", "\t"] {
            assert_eq!((DEFAULT_BRANCH.parse)(empty), Ok(None), "{empty:?}");
            assert_eq!((REPOSITORY.parse)(empty), Ok(None), "{empty:?}");
        }
        assert_eq!(
            (DEFAULT_BRANCH.parse)("trunk"),
            Ok(Some("trunk".to_owned()))
        );
        assert_eq!((REPOSITORY.parse)("o/r"), Ok(Some("o/r".to_owned())));
        assert!((REPOSITORY.parse)("o r").is_err());
    }
}
