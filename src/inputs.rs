//! Validated inputs: flags merged with the environment, every value checked.
//!
//! A flag wins over its environment variable; an empty variable counts as
//! unset, because a composite action passes every input, given or not, as an
//! `INPUT_*` variable. Errors name the flag and the variable, so a user can
//! find the line of the workflow that set the bad value.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use crate::cli::ResolveArgs;
use crate::event::EventName;
use crate::output::Format;
use crate::rules::Settings;
use crate::tags::TagPolicy;
use crate::validate::{Label, RefName, RepoName, Sha};

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{origin}: {message}")]
pub struct InputError {
    /// e.g. `--base-sha / INPUT_BASE_SHA`
    pub origin: String,
    pub message: String,
}

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
    pub github_output: Option<PathBuf>,
    pub step_summary: Option<PathBuf>,
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

/// `artifact-name` templates and the optional `artifact-workflow`.
#[derive(Debug, Clone)]
pub struct ArtifactQuery {
    pub templates: Vec<String>,
    pub workflow: Option<String>,
}

/// A token: its `Debug` and `Display` never show it.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// A token goes into an HTTP header and git's Basic auth: printable
    /// ASCII without spaces. The line break a pasted secret often ends with
    /// is trimmed; anything else is refused, without showing the value.
    fn parse(value: &str) -> Result<Secret, &'static str> {
        let token = value.trim();
        if token.bytes().all(|b| b.is_ascii_graphic()) {
            Ok(Secret(token.to_owned()))
        } else {
            Err(
                "not a usable token: it holds a space, a line break, a control character or a non-ASCII character (the value is not shown)",
            )
        }
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Reads a variable of the process environment (or a test's map).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

struct Source<'a> {
    env: Env<'a>,
}

impl Source<'_> {
    /// The flag's value, else the first non-empty variable of `vars`, with
    /// the name of where it came from.
    fn text(&self, flag_name: &str, flag: Option<&str>, vars: &[&str]) -> Option<(String, String)> {
        if let Some(value) = flag {
            return Some((value.to_owned(), format!("--{flag_name}")));
        }
        vars.iter().find_map(|var| {
            (self.env)(var)
                .filter(|v| !v.is_empty())
                .map(|v| (v, (*var).to_owned()))
        })
    }

    /// A switch: the flag if given, else `true`/`false` from the variable.
    fn switch(&self, flag_name: &str, flag: bool, var: &str) -> Result<bool, InputError> {
        if flag {
            return Ok(true);
        }
        self.switch_default(flag_name, var, false)
    }

    /// `true`/`false` from the variable, `default` when it is unset or empty.
    fn switch_default(
        &self,
        flag_name: &str,
        var: &str,
        default: bool,
    ) -> Result<bool, InputError> {
        match (self.env)(var).as_deref().map(str::trim) {
            None | Some("") => Ok(default),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(v) => Err(InputError {
                origin: format!("--{flag_name} / {var}"),
                message: format!("expected true or false, got {:?}", shorten(v)),
            }),
        }
    }
}

fn shorten(value: &str) -> String {
    value.chars().take(80).collect()
}

fn invalid(origin: String, message: impl ToString) -> InputError {
    InputError {
        origin,
        message: message.to_string(),
    }
}

pub fn validate(args: &ResolveArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let src = Source { env };
    let event_path = match &args.event {
        Some(path) => path.clone(),
        None => src
            .text("event", None, &["GITHUB_EVENT_PATH"])
            .map(|(v, _)| PathBuf::from(v))
            .ok_or_else(|| InputError {
                origin: "--event / GITHUB_EVENT_PATH".to_owned(),
                message: "no event file: pass --event PATH (a saved payload) or run inside GitHub Actions".to_owned(),
            })?,
    };
    let (name, origin) = src
        .text(
            "event-name",
            args.event_name.as_deref(),
            &["GITHUB_EVENT_NAME"],
        )
        .ok_or_else(|| InputError {
            origin: "--event-name / GITHUB_EVENT_NAME".to_owned(),
            message: "no event name: pass --event-name NAME (e.g. pull_request)".to_owned(),
        })?;
    let event_name = EventName::parse(&name).map_err(|e| invalid(origin, e))?;

    let on_runner = env("GITHUB_ACTIONS").as_deref() == Some("true");
    let format = match src.text("format", args.format.as_deref(), &[]) {
        Some((value, origin)) => Format::parse(&value).ok_or_else(|| {
            invalid(
                origin,
                format!("expected github, json or text, got {:?}", shorten(&value)),
            )
        })?,
        None if on_runner => Format::Github,
        None => Format::Text,
    };

    let base_sha = match src.text("base-sha", args.base_sha.as_deref(), &["INPUT_BASE_SHA"]) {
        Some((value, origin)) => Some(Sha::parse(value.trim()).map_err(|e| invalid(origin, e))?),
        None => None,
    };
    let base_ref = match src.text("base-ref", args.base_ref.as_deref(), &["INPUT_BASE_REF"]) {
        Some((value, origin)) => {
            if base_sha.is_some() {
                return Err(invalid(
                    format!("{origin} and base-sha"),
                    "give one of base-sha and base-ref, not both",
                ));
            }
            Some(RefName::parse(value.trim()).map_err(|e| invalid(origin, e))?)
        }
        None => None,
    };
    let merge_base = match src.text("mode", args.mode.as_deref(), &["INPUT_MODE"]) {
        None => false,
        Some((value, _)) if value.trim() == "base" => false,
        Some((value, _)) if value.trim() == "merge-base" => true,
        Some((value, origin)) => {
            return Err(invalid(
                origin,
                format!("expected base or merge-base, got {:?}", shorten(&value)),
            ));
        }
    };
    let label = match src.text("label", args.label.as_deref(), &["INPUT_LABEL"]) {
        Some((value, origin)) => Label::parse(value.trim()).map_err(|e| invalid(origin, e))?,
        None => Label::default(),
    };
    let repository = match src.text(
        "repository",
        args.repository.as_deref(),
        &["GITHUB_REPOSITORY"],
    ) {
        Some((value, origin)) => Some(RepoName::parse(&value).map_err(|e| invalid(origin, e))?),
        None => None,
    };
    let github_sha = match src.text("github-sha", args.github_sha.as_deref(), &["GITHUB_SHA"]) {
        Some((value, origin)) => Some(Sha::parse(&value).map_err(|e| invalid(origin, e))?),
        None => None,
    };
    let server_url = match src.text(
        "server-url",
        args.server_url.as_deref(),
        &["GITHUB_SERVER_URL"],
    ) {
        // git:// and file:// serve local mirrors (and the tests' git daemon).
        Some((value, origin)) => {
            parse_url(&value, &["https", "http", "git", "file"]).map_err(|e| invalid(origin, e))?
        }
        None => "https://github.com".to_owned(),
    };
    let api_url = match src.text("api-url", args.api_url.as_deref(), &["GITHUB_API_URL"]) {
        Some((value, origin)) => {
            parse_url(&value, &["https", "http"]).map_err(|e| invalid(origin, e))?
        }
        None => "https://api.github.com".to_owned(),
    };
    let token = match src.text(
        "token",
        args.token.as_deref(),
        &["INPUT_TOKEN", "GITHUB_TOKEN"],
    ) {
        Some((value, origin)) => Some(Secret::parse(&value).map_err(|e| invalid(origin, e))?),
        None => None,
    };
    let tag_pattern = match src.text(
        "tag-pattern",
        args.tag_pattern.as_deref(),
        &["INPUT_TAG_PATTERN"],
    ) {
        Some((value, origin)) => {
            let ok = value.len() <= 255
                && value
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && !b"[]\\:^~".contains(&b));
            if !ok {
                return Err(invalid(
                    origin,
                    format!(
                        "expected a tag glob such as v* (printable ASCII, no [ ] \\ : ^ ~), got {:?}",
                        shorten(&value)
                    ),
                ));
            }
            value
        }
        None => "v*".to_owned(),
    };
    let tag_policy = TagPolicy {
        pattern: tag_pattern,
        prereleases: src.switch(
            "tag-prereleases",
            args.tag_prereleases,
            "INPUT_TAG_PRERELEASES",
        )?,
    };
    // `tag: false` in the action is `--no-tag`.
    let want_tag = !args.no_tag && src.switch_default("no-tag", "INPUT_TAG", true)?;
    let timeout = match src.text("timeout", args.timeout.as_deref(), &["INPUT_TIMEOUT"]) {
        Some((value, origin)) => match value.trim().trim_end_matches('s').parse::<u64>() {
            Ok(seconds) if (1..=3600).contains(&seconds) => Duration::from_secs(seconds),
            _ => {
                return Err(invalid(
                    origin,
                    format!(
                        "expected whole seconds from 1 to 3600, got {:?}",
                        shorten(&value)
                    ),
                ));
            }
        },
        None => Duration::from_secs(60),
    };
    let artifacts = match src.text(
        "artifact-name",
        args.artifact_name.as_deref(),
        &["INPUT_ARTIFACT_NAME"],
    ) {
        Some((value, origin)) => {
            let templates =
                crate::artifacts::parse_templates(&value).map_err(|e| invalid(origin, e))?;
            let workflow = match src.text(
                "artifact-workflow",
                args.artifact_workflow.as_deref(),
                &["INPUT_ARTIFACT_WORKFLOW"],
            ) {
                Some((value, origin)) => {
                    let value = value.trim().to_owned();
                    let file = value.rsplit('/').next().unwrap_or_default().to_owned();
                    let ok = (file.ends_with(".yml") || file.ends_with(".yaml"))
                        && file.len() <= 255
                        && file
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
                    if !ok {
                        return Err(invalid(
                            origin,
                            format!(
                                "expected a workflow file name such as benchmark.yml, got {:?}",
                                shorten(&value)
                            ),
                        ));
                    }
                    Some(file)
                }
                None => None,
            };
            Some(ArtifactQuery {
                templates,
                workflow,
            })
        }
        None => None,
    };
    let fetch_flag = args
        .fetch
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned());
    let fetch = src
        .text("fetch", fetch_flag.as_deref(), &["INPUT_FETCH"])
        .map(|(v, _)| PathBuf::from(v));

    Ok(Inputs {
        event_path,
        event_name,
        format,
        offline: src.switch("offline", args.offline, "INPUT_OFFLINE")?,
        strict: src.switch("strict", args.strict, "INPUT_STRICT")?,
        label,
        settings: Settings {
            base_sha,
            base_ref,
            merge_base,
            repository,
            github_sha,
        },
        server_url,
        github_output: src
            .text("", None, &["GITHUB_OUTPUT"])
            .map(|(v, _)| v.into()),
        step_summary: src
            .text("", None, &["GITHUB_STEP_SUMMARY"])
            .map(|(v, _)| v.into()),
        debug: env("RUNNER_DEBUG").as_deref() == Some("1"),
        api_url,
        token,
        tag: want_tag.then(|| tag_policy.clone()),
        tag_policy,
        timeout,
        fetch,
        artifacts,
        workdir: src
            .text("", None, &["GITHUB_WORKSPACE"])
            .map_or_else(|| PathBuf::from("."), |(v, _)| PathBuf::from(v)),
    })
}

/// `SCHEME://HOST[:PORT][/PATH]` for one of `schemes`, without a trailing
/// slash, and nothing that could break out of a URL or a command line.
fn parse_url(value: &str, schemes: &[&str]) -> Result<String, String> {
    let trimmed = value.trim_end_matches('/');
    let rest = schemes
        .iter()
        .find_map(|scheme| trimmed.strip_prefix(scheme)?.strip_prefix("://"));
    let ok = rest.is_some_and(|rest| {
        !rest.is_empty()
            && rest.bytes().all(|b| {
                b.is_ascii_alphanumeric()
                    || matches!(b, b'.' | b'-' | b':' | b'/' | b'_' | b'[' | b']')
            })
    });
    if ok {
        Ok(trimmed.to_owned())
    } else if has_userinfo(value) {
        Err(format!(
            "expected a {} URL without credentials (the token goes in `token`, never in the URL), got {:?}",
            schemes.join("/"),
            shorten(&redact_userinfo(value))
        ))
    } else {
        Err(format!(
            "expected a {} URL such as https://github.com or https://ghes.example.com, got {:?}",
            schemes.join("/"),
            shorten(value)
        ))
    }
}

/// The authority of `SCHEME://AUTHORITY/...` (everything when there is no scheme).
fn authority(value: &str) -> (usize, &str) {
    let start = value.find("://").map_or(0, |i| i.saturating_add(3));
    let rest = value.get(start..).unwrap_or_default();
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (start, rest.get(..end).unwrap_or_default())
}

fn has_userinfo(value: &str) -> bool {
    authority(value).1.contains('@')
}

/// `https://user:SECRET@host/x` as `https://***@host/x`: a URL in a message
/// never shows its credentials.
fn redact_userinfo(value: &str) -> String {
    let (start, auth) = authority(value);
    match auth.rfind('@') {
        Some(at) => {
            let host_from = start.saturating_add(at);
            format!(
                "{}***{}",
                value.get(..start).unwrap_or_default(),
                value.get(host_from..).unwrap_or_default()
            )
        }
        None => value.to_owned(),
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
        assert_eq!(
            redact_userinfo("https://a@b@host/p@q"),
            "https://***@host/p@q"
        );
        assert_eq!(redact_userinfo("no url"), "no url");
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
