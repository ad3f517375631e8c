//! The inputs of `comment`, each declared once (flag, `INPUT_*` variable,
//! parser, default, help: [`crate::runner::declare`]), and its help text.

use crate::runner::{Declared, Given, Input, Typed, shown};
use crate::validate::RepoName;

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

/// What the command line gave `comment`.
pub type CommentArgs = Given<Comment>;

/// `comment`'s inputs, in `--help` order.
pub struct Comment;

impl Declared for Comment {
    const INPUTS: &'static [Input] = &[
        REPORT,
        PR.input,
        ISSUE.input,
        REPO.input,
        MARKER.input,
        AUTHOR.input,
        TOKEN,
        STRICT,
        DRY_RUN,
        TIMEOUT.input,
        EVENT,
        crate::runner::format::FORMAT,
    ];
}

pub const MARKER_DEFAULT: &str = "default";
pub const AUTHOR_DEFAULT: &str = "github-actions[bot]";

pub const REPORT: Input = Input::one(
    "report",
    &["INPUT_REPORT"],
    "FILE",
    "compare's JSON report (--format json, or its json output), or trend's with --issue: a \
     file, or the JSON itself.",
);

pub const PR: Typed<u64> = Typed {
    input: Input::one("pr", &["INPUT_PR"], "N", "The pull request number.")
        .said("the event's pull request"),
    parse: number,
};

pub const ISSUE: Typed<u64> = Typed {
    input: Input::one(
        "issue",
        &["INPUT_ISSUE"],
        "N",
        "Post on this issue instead of a pull request (a tracking issue for trend's report): one \
         comment per marker there too, updated in place.",
    )
    .conflicts("pr"),
    parse: number,
};

pub const REPO: Typed<RepoName> = Typed {
    input: Input::one(
        "repo",
        &["INPUT_REPO", "GITHUB_REPOSITORY"],
        "OWNER/NAME",
        "The repository of the pull request, OWNER/NAME.",
    ),
    parse: |t| RepoName::parse(t).map_err(|e| e.to_string()),
};

pub const MARKER: Typed<String> = Typed {
    input: Input::one(
        "marker",
        &["INPUT_MARKER"],
        "ID",
        "Which comment: one per pull request and marker (a matrix keeps one per runner with \
         --marker mi355).",
    )
    .default(MARKER_DEFAULT),
    parse: marker,
};

pub const AUTHOR: Typed<String> = Typed {
    input: Input::one(
        "author",
        &["INPUT_AUTHOR"],
        "LOGIN",
        "The login the token comments as: only its comments are updated.",
    )
    .default(AUTHOR_DEFAULT),
    parse: login,
};

pub const TOKEN: Input = Input::one(
    "token",
    &["INPUT_TOKEN", "GITHUB_TOKEN"],
    "TOKEN",
    "The token (pull-requests: write).",
);

pub const STRICT: Input = Input::switch(
    "strict",
    &["INPUT_STRICT"],
    "Exit 1 when the comment cannot be posted (default: a warning, exit 0).",
);

pub const DRY_RUN: Input = Input::switch(
    "dry-run",
    &[],
    "Print the body and post nothing (no token, no network).",
);

pub use crate::github::network::TIMEOUT;

pub const EVENT: Input = Input::one(
    "event",
    &["GITHUB_EVENT_PATH"],
    "FILE",
    "The event payload.",
)
.path();

/// A marker is a word: it goes into an HTML comment and an output.
fn marker(value: &str) -> Result<String, String> {
    let ok = (1..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "expected a word of letters, digits, '.', '_' and '-' (at most 64), got {:?}",
            shown(value)
        ))
    }
}

/// A GitHub login: letters, digits, '-', and an app's `[bot]` suffix.
fn login(value: &str) -> Result<String, String> {
    let name = value.strip_suffix("[bot]").unwrap_or(value);
    let ok = (1..=39).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if ok {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "expected a GitHub login such as github-actions[bot], got {:?}",
            shown(value)
        ))
    }
}

fn number(value: &str) -> Result<u64, String> {
    match value.trim_start_matches('#').parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "expected a number such as 42, got {:?}",
            shown(value)
        )),
    }
}
