//! Validated inputs of `comment`: flags merged with `INPUT_*` variables and
//! the runner's `GITHUB_*`, each named by where it came from when wrong.

use std::path::PathBuf;
use std::time::Duration;

use super::args::CommentArgs;
use crate::github::network::{self, check_proxies, timeout};
use crate::runner::Input;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader, shown};
use crate::validate::secret::Secret;
use crate::validate::{RepoName, url};

const REPORT: Input = Input::new("report", &["INPUT_REPORT"]);
const PR: Input = Input::new("pr", &["INPUT_PR"]);
const ISSUE: Input = Input::new("issue", &["INPUT_ISSUE"]);
const REPO: Input = Input::new("repo", &["INPUT_REPO", "GITHUB_REPOSITORY"]);
const MARKER: Input = Input::new("marker", &["INPUT_MARKER"]);
const AUTHOR: Input = Input::new("author", &["INPUT_AUTHOR"]);
const TOKEN: Input = Input::new("token", &["INPUT_TOKEN", "GITHUB_TOKEN"]);
const STRICT: Input = Input::new("strict", &["INPUT_STRICT"]);
const TIMEOUT: Input = Input::new("timeout", &["INPUT_TIMEOUT"]);
const EVENT: Input = Input::new("event", &["GITHUB_EVENT_PATH"]);
const EVENT_NAME: Input = Input::new("", &["GITHUB_EVENT_NAME"]);
const SERVER_URL: Input = Input::new("", &["GITHUB_SERVER_URL"]);
const API_URL: Input = Input::new("", &["GITHUB_API_URL"]);
const RUN_ID: Input = Input::new("", &["GITHUB_RUN_ID"]);
const FORMAT: Input = Input::new("format", &[]);

pub const MARKER_DEFAULT: &str = "default";
pub const AUTHOR_DEFAULT: &str = "github-actions[bot]";

#[derive(Debug, Clone)]
pub struct Inputs {
    /// A path, or the JSON itself.
    pub report: String,
    pub pr: Option<u64>,
    /// `--issue`: an issue instead of a pull request.
    pub issue: Option<u64>,
    pub repo: Option<RepoName>,
    pub marker: String,
    pub author: String,
    pub token: Option<Secret>,
    pub strict: bool,
    pub dry_run: bool,
    pub timeout: Duration,
    pub event: Option<PathBuf>,
    pub event_name: Option<String>,
    pub server_url: String,
    pub api_url: String,
    pub run_id: Option<u64>,
    pub format: Format,
    pub files: RunnerFiles,
}

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

pub fn validate(args: &CommentArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::new(env);
    let report = r.required(
        &REPORT,
        args.report.as_deref(),
        "no report: pass --report FILE (compare's or trend's --format json output, or their json output)",
    )?;
    check_proxies(&r)?;
    let event = args.event.as_ref().map(|p| p.to_string_lossy());
    let pr = r.parse(&PR, args.pr.as_deref(), number)?;
    let issue = r.parse(&ISSUE, args.issue.as_deref(), number)?;
    if pr.is_some() && issue.is_some() {
        return Err(InputError {
            origin: format!("{} and {}", PR.both(), ISSUE.both()),
            message: "give a pull request or an issue, not both".to_owned(),
        });
    }
    Ok(Inputs {
        report: report.text,
        pr,
        issue,
        repo: r.parse(&REPO, args.repo.as_deref(), RepoName::parse)?,
        marker: r
            .parse(&MARKER, args.marker.as_deref(), marker)?
            .unwrap_or_else(|| MARKER_DEFAULT.to_owned()),
        author: r
            .parse(&AUTHOR, args.author.as_deref(), login)?
            .unwrap_or_else(|| AUTHOR_DEFAULT.to_owned()),
        token: r.parse(&TOKEN, args.token.as_deref(), Secret::parse)?,
        strict: r.switch(&STRICT, args.strict, false)?,
        dry_run: args.dry_run,
        timeout: r
            .parse(&TIMEOUT, args.timeout.as_deref(), timeout)?
            .unwrap_or(Duration::from_secs(network::TIMEOUT_SECONDS)),
        event: r
            .value(&EVENT, event.as_deref())
            .map(|v| PathBuf::from(v.text)),
        event_name: r.value(&EVENT_NAME, None).map(|v| v.text),
        server_url: r
            .parse(&SERVER_URL, None, |v| url::server(v, &["https", "http"]))?
            .unwrap_or_else(|| network::SERVER_URL.to_owned()),
        api_url: r
            .parse(&API_URL, None, |v| url::server(v, &["https", "http"]))?
            .unwrap_or_else(|| network::API_URL.to_owned()),
        run_id: r.parse(&RUN_ID, None, |v| {
            v.parse::<u64>().map_err(|e| e.to_string())
        })?,
        format: Format::choose(
            r.value(&FORMAT, args.format.as_deref()),
            crate::runner::on_runner(env),
        )?,
        files: RunnerFiles::from_env(&r),
    })
}
