//! The `comment` command line as typed, and its help text. Each flag also
//! has an `INPUT_*` variable (what `comment/action.yml` passes).

use std::path::PathBuf;

use clap::Args;

pub const ABOUT: &str = "Post compare's verdict on the pull request as one comment, updated in place on every run (one per --marker), fork-safe from a workflow_run job.";

const EXIT_CODES: &str = "\
Exit codes:
  0  commented (created, updated or already up to date), or the comment could not be
     posted and a warning says why and which permission is needed (without --strict)
  1  bad input: the report cannot be read or is not compare's JSON report, the event
     file cannot be read; with --strict, a comment that could not be posted
  2  usage: unknown flag, or an invalid flag / INPUT_* value (a marker that is not a
     word, a pull request number that is not one), or no pull request to comment on";

const EXAMPLES: &str = "\
Examples:
  # The body it would post, without a token or a network:
  baseline-resolver comment --report report.json --dry-run

  # On pull request 42 of the repository GITHUB_REPOSITORY names:
  GITHUB_TOKEN=... baseline-resolver comment --report report.json --pr 42

Finding the comment:
  The body starts with <!-- baseline-resolver:MARKER -->. Among the pull request's
  comments (every page), the first that starts so and was written by --author is
  updated in place; otherwise one is created. A comment by anyone else is never
  edited, whatever it holds. The pull request: --pr, else the event's
  (pull_request, pull_request_target, issue_comment on a pull request, workflow_run:
  its pull_requests, or for a fork's run the open pull request with its head commit).

Safety:
  Every value of the report is shown as text: no HTML, link, image, @mention or #ref
  can come from it; the only link is the run's, built from GITHUB_SERVER_URL,
  GITHUB_REPOSITORY and the run id. The body is at most 65,536 characters, with a
  sentence saying how many rows were left out.";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

#[derive(Debug, Clone, Default, Args)]
pub struct CommentArgs {
    /// compare's JSON report (--format json, or its json output): a file, or the JSON
    /// itself. [env: INPUT_REPORT]
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,

    /// The pull request number. [default: the event's pull request] [env: INPUT_PR]
    #[arg(long, value_name = "N")]
    pub pr: Option<String>,

    /// Post on this issue instead of a pull request (a tracking issue for trend's report):
    /// one comment per marker there too, updated in place. [env: INPUT_ISSUE]
    #[arg(long, value_name = "N", conflicts_with = "pr")]
    pub issue: Option<String>,

    /// The repository of the pull request, OWNER/NAME. [default: GITHUB_REPOSITORY]
    /// [env: INPUT_REPO]
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,

    /// Which comment: one per pull request and marker (a matrix keeps one per runner
    /// with --marker mi355). [default: default] [env: INPUT_MARKER]
    #[arg(long, value_name = "ID")]
    pub marker: Option<String>,

    /// The login the token comments as: only its comments are updated.
    /// [default: github-actions[bot]] [env: INPUT_AUTHOR]
    #[arg(long, value_name = "LOGIN")]
    pub author: Option<String>,

    /// The token (pull-requests: write). [env: INPUT_TOKEN, GITHUB_TOKEN]
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,

    /// Exit 1 when the comment cannot be posted (default: a warning, exit 0).
    /// [env: INPUT_STRICT]
    #[arg(long)]
    pub strict: bool,

    /// Print the body and post nothing (no token, no network).
    #[arg(long)]
    pub dry_run: bool,

    /// Seconds for all requests together. [default: 60] [env: INPUT_TIMEOUT]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<String>,

    /// The event payload. [default: GITHUB_EVENT_PATH]
    #[arg(long, value_name = "FILE")]
    pub event: Option<PathBuf>,

    /// Output form: github (step outputs, summary, annotations), json or text.
    /// [default: github when GITHUB_ACTIONS=true, else text]
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}
