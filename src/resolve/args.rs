//! The inputs of `resolve`, each declared once (flag, the `INPUT_*` or
//! `GITHUB_*` variables, parser, default, help: [`crate::runner::declare`]),
//! and its help text. The action passes its inputs as `INPUT_*`, the
//! runner sets `GITHUB_*`; [`super::inputs`] merges them with the flags.

use super::artifacts;
use super::defaults;
use crate::github::network::git_server;
use crate::runner::{Declared, Given, Input, Typed, shown};
use crate::validate::url;
use crate::validate::{Label, RefName, RepoName, Sha};

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

/// What the command line gave `resolve`.
pub type ResolveArgs = Given<Resolve>;

/// `resolve`'s inputs, in `--help` order.
pub struct Resolve;

impl Declared for Resolve {
    const INPUTS: &'static [Input] = &[
        EVENT,
        EVENT_NAME,
        crate::runner::format::FORMAT,
        OFFLINE,
        BASE_SHA.input,
        BASE_REF.input,
        MODE.input,
        LABEL.input,
        STRICT,
        REPOSITORY.input,
        SERVER_URL.input,
        GITHUB_SHA.input,
        API_URL.input,
        TOKEN,
        NO_TAG,
        TAG,
        TAG_PATTERN.input,
        TAG_PRERELEASES,
        TIMEOUT.input,
        ARTIFACT_NAME.input,
        ARTIFACT_WORKFLOW.input,
        FETCH,
    ];
}

pub const EVENT: Input = Input::one(
    "event",
    &["GITHUB_EVENT_PATH"],
    "PATH",
    "The event payload file.",
)
.path();

pub const EVENT_NAME: Input = Input::one(
    "event-name",
    &["GITHUB_EVENT_NAME"],
    "NAME",
    "The event's name, e.g. pull_request, push, workflow_dispatch.",
);

pub const OFFLINE: Input = Input::switch(
    "offline",
    &["INPUT_OFFLINE"],
    "Use only the payload: no GitHub API, no git server. What the payload cannot answer is \
     reported unavailable, with a warning.",
);

pub const BASE_SHA: Typed<Sha> = Typed {
    input: Input::one(
        "base-sha",
        &["INPUT_BASE_SHA"],
        "SHA",
        "Use this commit as the baseline (full 40- or 64-hex SHA); wins over every rule.",
    ),
    parse: |t| Sha::parse(t).map_err(|e| e.to_string()),
};

pub const BASE_REF: Typed<RefName> = Typed {
    input: Input::one(
        "base-ref",
        &["INPUT_BASE_REF"],
        "REF",
        "Use this branch or tag of the base repository, resolved once to a full SHA; wins over \
         every rule.",
    )
    .conflicts("base-sha"),
    parse: |t| RefName::parse(t).map_err(|e| e.to_string()),
};

pub const MODE: Typed<bool> = Typed {
    input: Input::one(
        "mode",
        &["INPUT_MODE"],
        "MODE",
        "base: the pull request's base.sha; merge-base: the merge-base of base.sha and head.sha.",
    )
    .default(defaults::MODE),
    parse: mode,
};

pub const LABEL: Typed<Label> = Typed {
    input: Input::one(
        "label",
        &["INPUT_LABEL"],
        "LABEL",
        "The comparison label; dashboards parse it, so keep `main` unless they change.",
    )
    .default(defaults::LABEL),
    parse: |t| Label::parse(t).map_err(|e| e.to_string()),
};

pub const STRICT: Input = Input::switch(
    "strict",
    &["INPUT_STRICT"],
    "Exit 3 when there is something to benchmark but no baseline.",
);

pub const REPOSITORY: Typed<RepoName> = Typed {
    input: Input::one(
        "repository",
        &["GITHUB_REPOSITORY"],
        "OWNER/NAME",
        "The repository the workflow runs in, for payloads that name none (schedule).",
    ),
    parse: |t| RepoName::parse(t).map_err(|e| e.to_string()),
};

pub const SERVER_URL: Typed<String> = Typed {
    input: Input::one(
        "server-url",
        &["GITHUB_SERVER_URL"],
        "URL",
        "The GitHub server, for clone URLs (Enterprise Server: https://HOST).",
    )
    .default(defaults::SERVER_URL),
    parse: |t| git_server(t).map_err(|e| e.to_string()),
};

pub const GITHUB_SHA: Typed<Sha> = Typed {
    input: Input::one(
        "github-sha",
        &["GITHUB_SHA"],
        "SHA",
        "The commit the workflow runs on: the head for events whose payload names none.",
    ),
    parse: |t| Sha::parse(t).map_err(|e| e.to_string()),
};

pub const API_URL: Typed<String> = Typed {
    input: Input::one(
        "api-url",
        &["GITHUB_API_URL"],
        "URL",
        "The REST API (Enterprise Server: https://HOST/api/v3).",
    )
    .default(defaults::API_URL),
    parse: |t| url::server(t, &["https", "http"]).map_err(|e| e.to_string()),
};

pub const TOKEN: Input = Input::one(
    "token",
    &["INPUT_TOKEN", "GITHUB_TOKEN"],
    "TOKEN",
    "Token for the API and git; public repositories need none. Never printed.",
);

pub const NO_TAG: Input = Input::switch(
    "no-tag",
    &[],
    "Do not look up the base repository's latest release tag (the action's `tag: false`, \
     INPUT_TAG=false).",
);

/// The action's `tag` input: `--no-tag` said the other way round.
pub const TAG: Input = Input::switch("", &["INPUT_TAG"], "").default("true");

pub const TAG_PATTERN: Typed<String> = Typed {
    input: Input::one(
        "tag-pattern",
        &["INPUT_TAG_PATTERN"],
        "GLOB",
        "Glob for release tags (`*` and `?`), ordered as versions (semver and PEP 440).",
    )
    .default(defaults::TAG_PATTERN),
    parse: tag_glob,
};

pub const TAG_PRERELEASES: Input = Input::switch(
    "tag-prereleases",
    &["INPUT_TAG_PRERELEASES"],
    "Count pre-releases (-rc.1, .devN, aN, bN, rcN) as release tags.",
);

pub use crate::github::network::TIMEOUT;

pub const ARTIFACT_NAME: Typed<Vec<String>> = Typed {
    input: Input::one(
        "artifact-name",
        &["INPUT_ARTIFACT_NAME"],
        "TEMPLATES",
        "Benchmark artifact name(s) to reuse: templates with {sha}, {short_sha}, {label}, or \
         {tag_sha} (the release tag's results), separated by commas or newlines, e.g. \
         bench-mi355-{sha}.",
    ),
    parse: |t| artifacts::parse_templates(t).map_err(|e| e.to_string()),
};

pub const ARTIFACT_WORKFLOW: Typed<String> = Typed {
    input: Input::one(
        "artifact-workflow",
        &["INPUT_ARTIFACT_WORKFLOW"],
        "FILE",
        "Only artifacts from successful runs of this workflow file (e.g. benchmark.yml).",
    ),
    parse: workflow_file,
};

pub const FETCH: Input = Input::one(
    "fetch",
    &["INPUT_FETCH"],
    "DIR",
    "Fetch exactly the base commit (depth 1, no tags) into the git repository at DIR, as \
     refs/baseline-resolver/base; reports base-fetched.",
)
.path();

/// `base` (false) or `merge-base` (true).
fn mode(value: &str) -> Result<bool, String> {
    match value {
        "base" => Ok(false),
        "merge-base" => Ok(true),
        other => Err(format!(
            "expected base or merge-base, got {:?}",
            shown(other)
        )),
    }
}

/// A tag glob: printable ASCII without the characters git refuses in refs.
fn tag_glob(value: &str) -> Result<String, String> {
    let ok = value.len() <= 255
        && value
            .bytes()
            .all(|b| b.is_ascii_graphic() && !b"[]\\:^~".contains(&b));
    if ok {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "expected a tag glob such as v* (printable ASCII, no [ ] \\ : ^ ~), got {:?}",
            shown(value)
        ))
    }
}

/// A workflow file name (`benchmark.yml`; a path keeps its last part).
fn workflow_file(value: &str) -> Result<String, String> {
    let file = value.rsplit('/').next().unwrap_or_default();
    let ok = (file.ends_with(".yml") || file.ends_with(".yaml"))
        && file.len() <= 255
        && file
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(file.to_owned())
    } else {
        Err(format!(
            "expected a workflow file name such as benchmark.yml, got {:?}",
            shown(value)
        ))
    }
}
