//! Validated inputs: the inputs [`super::args`] declares (each with its
//! flag, variables and parser), the flags merged with the environment
//! through the runner's [`Reader`], every value checked. An error names the
//! flag or variable the bad value came from, so a user can find the line of
//! the workflow that set it.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use super::args::*;
use super::artifacts::ArtifactQuery;
use super::rules::Settings;
use super::tags::TagPolicy;
use crate::github::event::EventName;
use crate::github::network::check_proxies;
use crate::runner::format::FORMAT;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, Input, InputError, Reader};
use crate::validate::Label;
use crate::validate::secret::Secret;

/// A local clone that may answer a merge-base.
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
    #[error("give one of base-sha and base-ref, not both")]
    BaseShaAndRef,
}

pub fn validate(args: &ResolveArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::given(env, &args.flags);
    let event_path = r.needed(&EVENT, &Problem::NoEvent.to_string())?;
    let name = r.needed(&EVENT_NAME, &Problem::NoEventName.to_string())?;
    let event_name = EventName::parse(&name.text).map_err(|e| name.invalid(e))?;
    let tag_policy = TagPolicy {
        pattern: r.typed_or_default(&TAG_PATTERN)?,
        prereleases: r.on(&TAG_PRERELEASES)?,
    };
    // `tag: false` in the action is `--no-tag`.
    let want_tag = !r.on(&NO_TAG)? && r.on_or(&TAG, true)?;
    let offline = r.on(&OFFLINE)?;
    if !offline {
        check_proxies(&r)?;
    }
    Ok(Inputs {
        event_path: PathBuf::from(event_path.text),
        event_name,
        format: Format::choose(r.text(&FORMAT), crate::runner::on_runner(env))?,
        offline,
        strict: r.on(&STRICT)?,
        label: r.typed_or_default(&LABEL)?,
        settings: settings(&r)?,
        server_url: r.typed_or_default(&SERVER_URL)?,
        files: RunnerFiles::from_env(&r),
        debug: crate::runner::debug(env),
        api_url: r.typed_or_default(&API_URL)?,
        token: r.parsed(&TOKEN, Secret::parse)?,
        tag: want_tag.then(|| tag_policy.clone()),
        tag_policy,
        timeout: r.typed_or_default(&TIMEOUT)?,
        fetch: r.path(&FETCH),
        workdir: r.path(&WORKSPACE).unwrap_or_else(|| PathBuf::from(".")),
        artifacts: artifact_query(&r)?,
    })
}

/// What the workflow asked for besides the payload: overrides, the mode,
/// and the runner's repository and commit.
fn settings(r: &Reader<'_>) -> Result<Settings, InputError> {
    let base_sha = r.typed(&BASE_SHA)?;
    if base_sha.is_some()
        && let Some(value) = r.text(&BASE_REF.input)
    {
        return Err(InputError {
            origin: format!("{} and base-sha", value.origin),
            message: Problem::BaseShaAndRef.to_string(),
        });
    }
    Ok(Settings {
        base_sha,
        base_ref: r.typed(&BASE_REF)?,
        merge_base: r.typed_or_default(&MODE)?,
        repository: r.typed(&REPOSITORY)?,
        github_sha: r.typed(&GITHUB_SHA)?,
    })
}

/// `artifact-name` templates and the optional `artifact-workflow`.
fn artifact_query(r: &Reader<'_>) -> Result<Option<ArtifactQuery>, InputError> {
    let Some(templates) = r.typed(&ARTIFACT_NAME)? else {
        return Ok(None);
    };
    Ok(Some(ArtifactQuery {
        templates,
        workflow: r.typed(&ARTIFACT_WORKFLOW)?,
    }))
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
        let args = ResolveArgs::default()
            .with("event-name", "pull_request")
            .with("label", "main-mi355");
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

        let args = ResolveArgs::default().with("label", "main label");
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
