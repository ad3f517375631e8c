//! Validated inputs: the flags of [`ResolveArgs`] merged with the
//! environment through the runner's [`Reader`], every value checked.
//!
//! Each input is one line of the table below (its flag and its variables);
//! each check is a small parser. An error names the flag or variable the bad
//! value came from, so a user can find the line of the workflow that set it.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use super::args::ResolveArgs;
use super::artifacts::{self, ArtifactQuery};
use super::defaults;
use super::rules::Settings;
use super::tags::TagPolicy;
use crate::github::event::EventName;
use crate::github::network::{check_proxies, git_server, timeout};
use crate::runner::Input;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader, shown};
use crate::validate::secret::Secret;
use crate::validate::url;
use crate::validate::{Label, RefName, RepoName, Sha};

/// The inputs: each flag and the variables that may carry it, in order.
const EVENT: Input = Input::new("event", &["GITHUB_EVENT_PATH"]);
const EVENT_NAME: Input = Input::new("event-name", &["GITHUB_EVENT_NAME"]);
const FORMAT: Input = Input::new("format", &[]);
const OFFLINE: Input = Input::new("offline", &["INPUT_OFFLINE"]);
const STRICT: Input = Input::new("strict", &["INPUT_STRICT"]);
const BASE_SHA: Input = Input::new("base-sha", &["INPUT_BASE_SHA"]);
const BASE_REF: Input = Input::new("base-ref", &["INPUT_BASE_REF"]);
const MODE: Input = Input::new("mode", &["INPUT_MODE"]);
const LABEL: Input = Input::new("label", &["INPUT_LABEL"]);
const REPOSITORY: Input = Input::new("repository", &["GITHUB_REPOSITORY"]);
const SERVER_URL: Input = Input::new("server-url", &["GITHUB_SERVER_URL"]);
const GITHUB_SHA: Input = Input::new("github-sha", &["GITHUB_SHA"]);
const API_URL: Input = Input::new("api-url", &["GITHUB_API_URL"]);
const TOKEN: Input = Input::new("token", &["INPUT_TOKEN", "GITHUB_TOKEN"]);
const TAG: Input = Input::new("no-tag", &["INPUT_TAG"]);
const TAG_PATTERN: Input = Input::new("tag-pattern", &["INPUT_TAG_PATTERN"]);
const TAG_PRERELEASES: Input = Input::new("tag-prereleases", &["INPUT_TAG_PRERELEASES"]);
const TIMEOUT: Input = Input::new("timeout", &["INPUT_TIMEOUT"]);
const ARTIFACT_NAME: Input = Input::new("artifact-name", &["INPUT_ARTIFACT_NAME"]);
const ARTIFACT_WORKFLOW: Input = Input::new("artifact-workflow", &["INPUT_ARTIFACT_WORKFLOW"]);
const FETCH: Input = Input::new("fetch", &["INPUT_FETCH"]);
const WORKSPACE: Input = Input::new("", &["GITHUB_WORKSPACE"]);

#[derive(Debug, Clone)]
pub struct Inputs {
    pub event_path: PathBuf,
    pub event_name: EventName,
    pub format: Format,
    pub offline: bool,
    pub strict: bool,
    pub label: Label,
    pub settings: Settings,
    /// Without a trailing slash, e.g. `https://github.com`.
    pub server_url: String,
    pub files: RunnerFiles,
    /// `RUNNER_DEBUG=1`: print `::debug::` lines.
    pub debug: bool,
    /// Without a trailing slash, e.g. `https://api.github.com`.
    pub api_url: String,
    pub token: Option<Secret>,
    /// `None` with `--no-tag`.
    pub tag: Option<TagPolicy>,
    /// The pattern and pre-release choice, also for the previous-tag baseline.
    pub tag_policy: TagPolicy,
    pub timeout: Duration,
    pub fetch: Option<PathBuf>,
    /// A local clone that may answer a merge-base: `GITHUB_WORKSPACE`, else `.`.
    pub workdir: PathBuf,
    pub artifacts: Option<ArtifactQuery>,
}

impl Inputs {
    /// The inputs as `RUNNER_DEBUG=1` shows them (the token as set or none).
    pub fn debug_lines(&self) -> Vec<String> {
        let s = &self.settings;
        let shown = |v: Option<String>| v.unwrap_or_else(|| "(none)".to_owned());
        vec![
            format!("event file: {}", self.event_path.display()),
            format!("event name: {}", self.event_name),
            format!(
                "offline: {}, strict: {}, label: {}",
                self.offline, self.strict, self.label
            ),
            format!("server url: {}, api url: {}", self.server_url, self.api_url),
            format!(
                "token: {}, timeout: {}s, tag: {}, tag pattern: {}, pre-releases: {}",
                if self.token.is_some() { "set" } else { "none" },
                self.timeout.as_secs(),
                self.tag.is_some(),
                self.tag_policy.pattern,
                self.tag_policy.prereleases
            ),
            format!(
                "base-sha: {}, base-ref: {}, mode: {}",
                shown(s.base_sha.as_ref().map(ToString::to_string)),
                shown(s.base_ref.as_ref().map(ToString::to_string)),
                if s.merge_base { "merge-base" } else { "base" }
            ),
            format!(
                "GITHUB_REPOSITORY: {}, GITHUB_SHA: {}",
                shown(s.repository.as_ref().map(ToString::to_string)),
                shown(s.github_sha.as_ref().map(ToString::to_string))
            ),
        ]
    }
}

/// Why a value of an input was refused (the reader adds where it came from).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum Problem {
    #[error("no event file: pass --event PATH (a saved payload) or run inside GitHub Actions")]
    NoEvent,
    #[error("no event name: pass --event-name NAME (e.g. pull_request)")]
    NoEventName,
    #[error("expected base or merge-base, got {0:?}")]
    Mode(String),
    #[error("give one of base-sha and base-ref, not both")]
    BaseShaAndRef,
    #[error("expected a tag glob such as v* (printable ASCII, no [ ] \\ : ^ ~), got {0:?}")]
    TagGlob(String),
    #[error("expected a workflow file name such as benchmark.yml, got {0:?}")]
    WorkflowFile(String),
}

pub fn validate(args: &ResolveArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::new(env);
    let event = args.event.as_ref().map(|p| p.to_string_lossy());
    let event_path = r.required(&EVENT, event.as_deref(), &Problem::NoEvent.to_string())?;
    let name = r.required(
        &EVENT_NAME,
        args.event_name.as_deref(),
        &Problem::NoEventName.to_string(),
    )?;
    let event_name = EventName::parse(&name.text).map_err(|e| name.invalid(e))?;
    let tag_policy = TagPolicy {
        pattern: r
            .parse(&TAG_PATTERN, args.tag_pattern.as_deref(), tag_glob)?
            .unwrap_or_else(|| defaults::TAG_PATTERN.to_owned()),
        prereleases: r.switch(&TAG_PRERELEASES, args.tag_prereleases, false)?,
    };
    // `tag: false` in the action is `--no-tag`.
    let want_tag = !args.no_tag && r.switch(&TAG, false, true)?;
    let fetch = args.fetch.as_ref().map(|p| p.to_string_lossy());
    let offline = r.switch(&OFFLINE, args.offline, false)?;
    if !offline {
        check_proxies(&r)?;
    }
    Ok(Inputs {
        event_path: PathBuf::from(event_path.text),
        event_name,
        format: Format::choose(
            r.value(&FORMAT, args.format.as_deref()),
            crate::runner::on_runner(env),
        )?,
        offline,
        strict: r.switch(&STRICT, args.strict, false)?,
        label: r
            .parse(&LABEL, args.label.as_deref(), Label::parse)?
            .unwrap_or_default(),
        settings: settings(&r, args)?,
        server_url: r
            .parse(&SERVER_URL, args.server_url.as_deref(), git_server)?
            .unwrap_or_else(|| defaults::SERVER_URL.to_owned()),
        files: RunnerFiles::from_env(&r),
        debug: crate::runner::debug(env),
        api_url: r
            .parse(&API_URL, args.api_url.as_deref(), |v| {
                url::server(v, &["https", "http"])
            })?
            .unwrap_or_else(|| defaults::API_URL.to_owned()),
        token: r.parse(&TOKEN, args.token.as_deref(), Secret::parse)?,
        tag: want_tag.then(|| tag_policy.clone()),
        tag_policy,
        timeout: r
            .parse(&TIMEOUT, args.timeout.as_deref(), timeout)?
            .unwrap_or(Duration::from_secs(defaults::TIMEOUT_SECONDS)),
        fetch: r
            .value(&FETCH, fetch.as_deref())
            .map(|v| PathBuf::from(v.text)),
        workdir: r
            .value(&WORKSPACE, None)
            .map_or_else(|| PathBuf::from("."), |v| PathBuf::from(v.text)),
        artifacts: artifact_query(&r, args)?,
    })
}

/// What the workflow asked for besides the payload: overrides, the mode,
/// and the runner's repository and commit.
fn settings(r: &Reader<'_>, args: &ResolveArgs) -> Result<Settings, InputError> {
    let base_sha = r.parse(&BASE_SHA, args.base_sha.as_deref(), Sha::parse)?;
    let base_ref = match r.value(&BASE_REF, args.base_ref.as_deref()) {
        Some(value) if base_sha.is_some() => {
            return Err(InputError {
                origin: format!("{} and base-sha", value.origin),
                message: Problem::BaseShaAndRef.to_string(),
            });
        }
        Some(value) => Some(RefName::parse(&value.text).map_err(|e| value.invalid(e))?),
        None => None,
    };
    Ok(Settings {
        base_sha,
        base_ref,
        merge_base: r.parse(&MODE, args.mode.as_deref(), mode)?.unwrap_or(false),
        repository: r.parse(&REPOSITORY, args.repository.as_deref(), RepoName::parse)?,
        github_sha: r.parse(&GITHUB_SHA, args.github_sha.as_deref(), Sha::parse)?,
    })
}

/// `artifact-name` templates and the optional `artifact-workflow`.
fn artifact_query(r: &Reader<'_>, args: &ResolveArgs) -> Result<Option<ArtifactQuery>, InputError> {
    let Some(templates) = r.parse(
        &ARTIFACT_NAME,
        args.artifact_name.as_deref(),
        artifacts::parse_templates,
    )?
    else {
        return Ok(None);
    };
    let workflow = r.parse(
        &ARTIFACT_WORKFLOW,
        args.artifact_workflow.as_deref(),
        workflow_file,
    )?;
    Ok(Some(ArtifactQuery {
        templates,
        workflow,
    }))
}

/// `base` (false) or `merge-base` (true).
fn mode(value: &str) -> Result<bool, Problem> {
    match value {
        "base" => Ok(false),
        "merge-base" => Ok(true),
        other => Err(Problem::Mode(shown(other))),
    }
}

/// A tag glob: printable ASCII without the characters git refuses in refs.
fn tag_glob(value: &str) -> Result<String, Problem> {
    let ok = value.len() <= 255
        && value
            .bytes()
            .all(|b| b.is_ascii_graphic() && !b"[]\\:^~".contains(&b));
    if ok {
        Ok(value.to_owned())
    } else {
        Err(Problem::TagGlob(shown(value)))
    }
}

/// A workflow file name (`benchmark.yml`; a path keeps its last part).
fn workflow_file(value: &str) -> Result<String, Problem> {
    let file = value.rsplit('/').next().unwrap_or_default();
    let ok = (file.ends_with(".yml") || file.ends_with(".yaml"))
        && file.len() <= 255
        && file
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(file.to_owned())
    } else {
        Err(Problem::WorkflowFile(shown(value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn validate_with(args: ResolveArgs, vars: &[(&str, &str)]) -> Result<Inputs, InputError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        validate(&args, &|name| map.get(name).cloned())
    }

    const RUNNER: [(&str, &str); 2] = [
        ("GITHUB_EVENT_PATH", "/e.json"),
        ("GITHUB_EVENT_NAME", "push"),
    ];

    #[test]
    fn runner_environment_and_empty_action_inputs() {
        let mut vars = RUNNER.to_vec();
        vars.extend([
            ("GITHUB_ACTIONS", "true"),
            ("INPUT_BASE_SHA", ""),
            ("INPUT_BASE_REF", ""),
            ("INPUT_LABEL", ""),
            ("INPUT_MODE", ""),
            ("INPUT_STRICT", "false"),
            ("INPUT_OFFLINE", "TRUE"),
            ("GITHUB_SERVER_URL", "https://ghes.example.com/"),
        ]);
        let inputs = validate_with(ResolveArgs::default(), &vars).unwrap();
        assert_eq!(inputs.format, Format::Github);
        assert_eq!(inputs.label.as_str(), "main");
        assert!(inputs.offline && !inputs.strict);
        assert!(inputs.settings.base_sha.is_none() && inputs.settings.base_ref.is_none());
        assert_eq!(inputs.server_url, "https://ghes.example.com");
        assert_eq!(inputs.event_name, EventName::Push);
    }

    #[test]
    fn flags_win_over_the_environment() {
        let args = ResolveArgs {
            event_name: Some("pull_request".into()),
            label: Some("main-mi355".into()),
            ..Default::default()
        };
        let mut vars = RUNNER.to_vec();
        vars.push(("INPUT_LABEL", "other"));
        let inputs = validate_with(args, &vars).unwrap();
        assert_eq!(inputs.event_name, EventName::PullRequest);
        assert_eq!(inputs.label.as_str(), "main-mi355");
        assert_eq!(inputs.format, Format::Text);
    }

    #[test]
    fn errors_name_where_the_value_came_from() {
        let mut vars = RUNNER.to_vec();
        vars.push(("INPUT_BASE_SHA", "fa4f8ae2"));
        let err = validate_with(ResolveArgs::default(), &vars).unwrap_err();
        assert_eq!(err.origin, "INPUT_BASE_SHA");
        assert!(err.message.contains("not a full commit SHA"), "{err}");

        let args = ResolveArgs {
            label: Some("main label".into()),
            ..Default::default()
        };
        let err = validate_with(args, &RUNNER).unwrap_err();
        assert_eq!(err.origin, "--label");

        let mut vars = RUNNER.to_vec();
        vars.push(("INPUT_STRICT", "yes"));
        let err = validate_with(ResolveArgs::default(), &vars).unwrap_err();
        assert_eq!(err.origin, "--strict / INPUT_STRICT");

        let err = validate_with(ResolveArgs::default(), &[]).unwrap_err();
        assert!(err.origin.contains("GITHUB_EVENT_PATH"), "{err}");

        let mut vars = RUNNER.to_vec();
        vars.push(("GITHUB_SERVER_URL", "ftp://x"));
        assert!(validate_with(ResolveArgs::default(), &vars).is_err());
        let sha = "a".repeat(40);
        let mut vars = RUNNER.to_vec();
        vars.extend([("INPUT_BASE_SHA", sha.as_str()), ("INPUT_BASE_REF", "main")]);
        let err = validate_with(ResolveArgs::default(), &vars).unwrap_err();
        assert!(err.message.contains("not both"), "{err}");
    }

    #[test]
    fn credentials_in_a_url_are_refused_and_never_shown() {
        for var in ["GITHUB_SERVER_URL", "GITHUB_API_URL"] {
            let mut vars = RUNNER.to_vec();
            vars.push((
                var,
                "https://x-access-token:ghs_SECRET@ghes.example.com/api/v3",
            ));
            let err = validate_with(ResolveArgs::default(), &vars).unwrap_err();
            assert_eq!(err.origin, var);
            assert!(!err.to_string().contains("ghs_SECRET"), "{err}");
            assert!(
                err.message.contains("https://***@ghes.example.com/api/v3"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_token_with_a_line_break_inside_is_a_usage_error_that_hides_it() {
        let mut vars = RUNNER.to_vec();
        vars.push(("INPUT_TOKEN", "ghs_abc\nghs_SECRET"));
        let err = validate_with(ResolveArgs::default(), &vars).unwrap_err();
        assert_eq!(err.origin, "INPUT_TOKEN");
        assert!(!err.to_string().contains("SECRET"), "{err}");
        let mut vars = RUNNER.to_vec();
        vars.push(("INPUT_TOKEN", "ghs_pasted\n"));
        let inputs = validate_with(ResolveArgs::default(), &vars).unwrap();
        assert_eq!(inputs.token.unwrap().expose(), "ghs_pasted");
    }

    #[test]
    fn a_proxy_that_cannot_be_used_is_an_error_naming_it() {
        let mut vars = RUNNER.to_vec();
        vars.push(("https_proxy", "http://user:s3cret@[proxy"));
        let err = validate_with(ResolveArgs::default(), &vars).unwrap_err();
        assert_eq!(err.origin, "https_proxy");
        assert!(!err.to_string().contains("s3cret"), "{err}");
        vars.push(("INPUT_OFFLINE", "true"));
        assert!(
            validate_with(ResolveArgs::default(), &vars).is_ok(),
            "offline uses no proxy"
        );
        let mut vars = RUNNER.to_vec();
        vars.push(("HTTPS_PROXY", "proxy.corp:3128"));
        assert!(validate_with(ResolveArgs::default(), &vars).is_ok());
    }

    #[test]
    fn merge_base_mode() {
        let mut vars = RUNNER.to_vec();
        vars.push(("INPUT_MODE", "merge-base"));
        assert!(
            validate_with(ResolveArgs::default(), &vars)
                .unwrap()
                .settings
                .merge_base
        );
        let mut vars = RUNNER.to_vec();
        vars.push(("INPUT_MODE", "mergebase"));
        assert!(validate_with(ResolveArgs::default(), &vars).is_err());
    }
}
