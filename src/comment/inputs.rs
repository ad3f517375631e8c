//! Validated inputs of `comment`: the inputs [`super::args`] declares,
//! flags merged with `INPUT_*` variables and the runner's `GITHUB_*`, each
//! named by where it came from when wrong.

use std::path::PathBuf;
use std::time::Duration;

use super::args::*;
use crate::github::network::{self, check_proxies};
use crate::runner::format::FORMAT;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, Input, InputError, Reader};
use crate::validate::secret::Secret;
use crate::validate::{RepoName, url};

const EVENT_NAME: Input = Input::new("", &["GITHUB_EVENT_NAME"]);
const SERVER_URL: Input = Input::new("", &["GITHUB_SERVER_URL"]);
const API_URL: Input = Input::new("", &["GITHUB_API_URL"]);
const RUN_ID: Input = Input::new("", &["GITHUB_RUN_ID"]);

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

pub fn validate(args: &CommentArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::given(env, &args.flags);
    let report = r.needed(
        &REPORT,
        "no report: pass --report FILE (compare's or trend's --format json output, or their json output)",
    )?;
    check_proxies(&r)?;
    let pr = r.typed(&PR)?;
    let issue = r.typed(&ISSUE)?;
    if pr.is_some() && issue.is_some() {
        return Err(InputError {
            origin: format!("{} and {}", PR.input.both(), ISSUE.input.both()),
            message: "give a pull request or an issue, not both".to_owned(),
        });
    }
    Ok(Inputs {
        report: report.text,
        pr,
        issue,
        repo: r.typed(&REPO)?,
        marker: r.typed_or_default(&MARKER)?,
        author: r.typed_or_default(&AUTHOR)?,
        token: r.parsed(&TOKEN, Secret::parse)?,
        strict: r.on(&STRICT)?,
        dry_run: r.on(&DRY_RUN)?,
        timeout: r.typed_or_default(&TIMEOUT)?,
        event: r.path(&EVENT),
        event_name: r.text(&EVENT_NAME).map(|v| v.text),
        server_url: r
            .parsed(&SERVER_URL, |v| url::server(v, &["https", "http"]))?
            .unwrap_or_else(|| network::SERVER_URL.to_owned()),
        api_url: r
            .parsed(&API_URL, |v| url::server(v, &["https", "http"]))?
            .unwrap_or_else(|| network::API_URL.to_owned()),
        run_id: r.parsed(&RUN_ID, |v| v.parse::<u64>().map_err(|e| e.to_string()))?,
        format: Format::choose(r.text(&FORMAT), crate::runner::on_runner(env))?,
        files: RunnerFiles::from_env(&r),
    })
}
