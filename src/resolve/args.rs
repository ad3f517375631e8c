//! The command line as typed: raw strings and switches, nothing validated.
//!
//! Each flag also has an environment variable (the action passes its inputs as
//! `INPUT_*`, the runner sets `GITHUB_*`); [`super::inputs`] merges the two and
//! validates, so this file is only the interface and its help text.

use std::path::PathBuf;

use clap::Args;

const EXIT_CODES: &str = "\
Exit codes:
  0  answered: a baseline, a skip, or (without --strict) a missing baseline with a warning
  1  bad input: unreadable or malformed event file, a payload that contradicts its event
     name, a field of the wrong type or shape; or step outputs could not be written
  2  usage: unknown flag, or an invalid flag / INPUT_* / GITHUB_* value
  3  --strict and there is something to benchmark but no baseline";

const EXAMPLES: &str = "\
Examples:
  # Dry run on a saved event, no token, no network:
  baseline-resolver resolve --event examples/events/fork-pull-request.json \\
      --event-name pull_request --offline

  # The same answer as one JSON object, for scripts:
  baseline-resolver --event event.json --event-name push --format json --offline

  # In a workflow step (GITHUB_EVENT_PATH, GITHUB_EVENT_NAME and GITHUB_OUTPUT are
  # set by the runner), fail the job when no baseline can be found:
  baseline-resolver --strict";

pub const ABOUT: &str = "Resolve exactly one benchmark baseline from a GitHub Actions event.";

pub const LONG_ABOUT: &str = "Resolve exactly one benchmark baseline from a GitHub Actions event.\n\n\
    Reads the event payload (GITHUB_EVENT_PATH, GITHUB_EVENT_NAME) and answers: the \
    canonical base repository (never the fork), the exact base commit SHA, where that \
    answer came from (base-source), and the head side. With --format github (the default \
    on a runner) the answer becomes step outputs in GITHUB_OUTPUT, a job summary and \
    visible ::warning:: annotations; a missing baseline is always a warning, never a \
    quiet skip. It never walks back through older commits: one baseline or none.";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

#[derive(Debug, Clone, Default, Args)]
pub struct ResolveArgs {
    /// The event payload file. [env: GITHUB_EVENT_PATH]
    #[arg(long, value_name = "PATH")]
    pub event: Option<PathBuf>,

    /// The event's name, e.g. pull_request, push, workflow_dispatch. [env: GITHUB_EVENT_NAME]
    #[arg(long, value_name = "NAME")]
    pub event_name: Option<String>,

    /// Output form: github (step outputs, summary, annotations), json (one object on
    /// stdout) or text. [default: github when GITHUB_ACTIONS=true, else text]
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,

    /// Use only the payload: no GitHub API, no git server. What the payload cannot
    /// answer is reported unavailable, with a warning. [env: INPUT_OFFLINE]
    #[arg(long)]
    pub offline: bool,

    /// Use this commit as the baseline (full 40- or 64-hex SHA); wins over every rule.
    /// [env: INPUT_BASE_SHA]
    #[arg(long, value_name = "SHA")]
    pub base_sha: Option<String>,

    /// Use this branch or tag of the base repository, resolved once to a full SHA; wins
    /// over every rule. [env: INPUT_BASE_REF]
    #[arg(long, value_name = "REF", conflicts_with = "base_sha")]
    pub base_ref: Option<String>,

    /// base: the pull request's base.sha; merge-base: the merge-base of base.sha and
    /// head.sha. [default: base] [env: INPUT_MODE]
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,

    /// The comparison label; dashboards parse it, so keep `main` unless they change.
    /// [default: main] [env: INPUT_LABEL]
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,

    /// Exit 3 when there is something to benchmark but no baseline.
    /// [env: INPUT_STRICT]
    #[arg(long)]
    pub strict: bool,

    /// The repository the workflow runs in, for payloads that name none (schedule).
    /// [env: GITHUB_REPOSITORY]
    #[arg(long, value_name = "OWNER/NAME")]
    pub repository: Option<String>,

    /// The GitHub server, for clone URLs (Enterprise Server: https://HOST).
    /// [default: https://github.com] [env: GITHUB_SERVER_URL]
    #[arg(long, value_name = "URL")]
    pub server_url: Option<String>,

    /// The commit the workflow runs on: the head for events whose payload names none.
    /// [env: GITHUB_SHA]
    #[arg(long, value_name = "SHA")]
    pub github_sha: Option<String>,

    /// The REST API (Enterprise Server: https://HOST/api/v3).
    /// [default: https://api.github.com] [env: GITHUB_API_URL]
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,

    /// Token for the API and git; public repositories need none. Never printed.
    /// [env: INPUT_TOKEN, then GITHUB_TOKEN]
    #[arg(long, value_name = "TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// Do not look up the base repository's latest release tag. [env: INPUT_TAG=false]
    #[arg(long)]
    pub no_tag: bool,

    /// Glob for release tags (`*` and `?`), ordered as versions (semver and PEP 440).
    /// [default: v*] [env: INPUT_TAG_PATTERN]
    #[arg(long, value_name = "GLOB")]
    pub tag_pattern: Option<String>,

    /// Count pre-releases (-rc.1, .devN, aN, bN, rcN) as release tags.
    /// [env: INPUT_TAG_PRERELEASES]
    #[arg(long)]
    pub tag_prereleases: bool,

    /// One deadline for all network work, in seconds. [default: 60] [env: INPUT_TIMEOUT]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<String>,

    /// Benchmark artifact name(s) to reuse: templates with {sha}, {short_sha}, {label},
    /// or {tag_sha} (the release tag's results), separated by commas or newlines, e.g.
    /// bench-mi355-{sha}. [env: INPUT_ARTIFACT_NAME]
    #[arg(long, value_name = "TEMPLATES")]
    pub artifact_name: Option<String>,

    /// Only artifacts from successful runs of this workflow file (e.g. benchmark.yml).
    /// [env: INPUT_ARTIFACT_WORKFLOW]
    #[arg(long, value_name = "FILE")]
    pub artifact_workflow: Option<String>,

    /// Fetch exactly the base commit (depth 1, no tags) into the git repository at DIR,
    /// as refs/baseline-resolver/base; reports base-fetched. [env: INPUT_FETCH]
    #[arg(long, value_name = "DIR")]
    pub fetch: Option<PathBuf>,
}
