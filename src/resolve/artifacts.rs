//! Baselines already measured: the names of the base commit's benchmark
//! artifacts. When main's own push run uploaded results for the base SHA, a
//! pull request can download them instead of re-running the baseline on a
//! GPU runner. The names come from templates such as `bench-mi355-{sha}`,
//! checked here when the inputs are validated (no network involved); the
//! lookup itself is [`crate::resolve::settle`]'s.

use serde::Serialize;
use thiserror::Error;

use crate::validate::{Label, Sha};

/// The events whose runs measure code the base repository itself holds: a
/// push, a schedule, a manual dispatch, a merge queue, a release. A pull
/// request's run (`pull_request`, `pull_request_target`, a fork's or not)
/// or a run another run started (`workflow_run`) may run code the base
/// repository never merged, even when its head commit is the base SHA, so
/// its artifacts are never reused as the base's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunEvent {
    Push,
    Schedule,
    WorkflowDispatch,
    MergeGroup,
    Release,
}

impl RunEvent {
    pub const ALL: [RunEvent; 5] = [
        RunEvent::Push,
        RunEvent::Schedule,
        RunEvent::WorkflowDispatch,
        RunEvent::MergeGroup,
        RunEvent::Release,
    ];

    /// The event of a run whose artifacts may stand for the base commit;
    /// `None` for every other event.
    pub fn trusted(event: &str) -> Option<RunEvent> {
        RunEvent::ALL.into_iter().find(|e| e.name() == event)
    }

    pub fn name(self) -> &'static str {
        match self {
            RunEvent::Push => "push",
            RunEvent::Schedule => "schedule",
            RunEvent::WorkflowDispatch => "workflow_dispatch",
            RunEvent::MergeGroup => "merge_group",
            RunEvent::Release => "release",
        }
    }
}

impl std::fmt::Display for RunEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `artifact-name` templates and the optional `artifact-workflow`.
#[derive(Debug, Clone)]
pub struct ArtifactQuery {
    pub templates: Vec<String>,
    pub workflow: Option<String>,
}

impl ArtifactQuery {
    /// The templates of the base commit's results, and those of the
    /// release tag's (`{tag_sha}`): a release run uploads its results once
    /// and every later pull request reuses them instead of benchmarking the
    /// release again. Each part is looked up against its own commit's runs.
    pub fn split(&self) -> (Option<ArtifactQuery>, Option<ArtifactQuery>) {
        let part = |tag: bool| {
            let templates: Vec<String> = self
                .templates
                .iter()
                .filter(|t| t.contains("{tag_sha}") == tag)
                .cloned()
                .collect();
            (!templates.is_empty()).then(|| ArtifactQuery {
                templates,
                workflow: self.workflow.clone(),
            })
        };
        (part(false), part(true))
    }
}

/// Why `artifact-name` was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TemplateError {
    #[error("no artifact name in it")]
    Empty,
    #[error("{count} artifact names; at most {MAX_NAMES} (one per runner)")]
    TooMany { count: usize },
    #[error("{template:?}: an unclosed '{{'")]
    Unclosed { template: String },
    #[error("{template:?}: unknown placeholder {placeholder} (known: {})", PLACEHOLDERS.join(", "))]
    UnknownPlaceholder {
        template: String,
        placeholder: String,
    },
    #[error(
        "{template:?}: {{tag_sha}} names the release tag's results, which {{sha}} and {{short_sha}} (the base commit's) cannot be part of"
    )]
    Mixed { template: String },
    #[error(
        "{template:?}: not an artifact name (1 to 255 characters, none of \" : < > | * ? \\ / CR LF)"
    )]
    NotAName { template: String },
}

/// Placeholders a template may use.
const PLACEHOLDERS: [&str; 4] = ["{sha}", "{short_sha}", "{label}", "{tag_sha}"];

/// One name per runner of a matrix; more is a mistake (or an attack on the
/// API quota), refused before any request.
pub const MAX_NAMES: usize = 64;

/// Splits `artifact-name` (commas or newlines) into templates and checks
/// each: only known placeholders, and a name GitHub could store.
pub fn parse_templates(text: &str) -> Result<Vec<String>, TemplateError> {
    let templates: Vec<String> = text
        .split([',', '\n'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    if templates.is_empty() {
        return Err(TemplateError::Empty);
    }
    if templates.len() > MAX_NAMES {
        return Err(TemplateError::TooMany {
            count: templates.len(),
        });
    }
    for template in &templates {
        let mut rest = template.as_str();
        while let Some((_, open)) = rest.split_once('{') {
            let (name, after) = open
                .split_once('}')
                .ok_or_else(|| TemplateError::Unclosed {
                    template: template.clone(),
                })?;
            let placeholder = format!("{{{name}}}");
            if !PLACEHOLDERS.contains(&placeholder.as_str()) {
                return Err(TemplateError::UnknownPlaceholder {
                    template: template.clone(),
                    placeholder,
                });
            }
            rest = after;
        }
        if template.contains("{tag_sha}")
            && (template.contains("{sha}") || template.contains("{short_sha}"))
        {
            return Err(TemplateError::Mixed {
                template: template.clone(),
            });
        }
        let sample = fill(template, &"a".repeat(40), Label::default().as_str());
        if !valid_name(&sample) {
            return Err(TemplateError::NotAName {
                template: template.clone(),
            });
        }
    }
    Ok(templates)
}

/// The artifact name `template` gives for this commit and label: the
/// base commit's, or for a `{tag_sha}` template the release tag's.
pub fn name_for(template: &str, sha: &Sha, label: &Label) -> String {
    fill(template, sha.as_str(), label.as_str())
}

fn fill(template: &str, sha: &str, label: &str) -> String {
    template
        .replace("{sha}", sha)
        .replace("{short_sha}", sha.get(..7).unwrap_or(sha))
        .replace("{label}", label)
        .replace("{tag_sha}", sha)
}

/// The characters `actions/upload-artifact` refuses in a name.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.chars().any(|c| {
            matches!(
                c,
                '"' | ':' | '<' | '>' | '|' | '*' | '?' | '\\' | '/' | '\r' | '\n'
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        let t = parse_templates("bench-mi355-{sha}, bench-{label}-{short_sha}\nraw").unwrap();
        assert_eq!(t, ["bench-mi355-{sha}", "bench-{label}-{short_sha}", "raw"]);
        let s = Sha::parse(&"a".repeat(40)).unwrap();
        assert_eq!(name_for(&t[1], &s, &Label::default()), "bench-main-aaaaaaa");
        assert!(
            parse_templates("bench-{commit}")
                .unwrap_err()
                .to_string()
                .contains("unknown placeholder {commit}")
        );
        assert!(parse_templates("a/b-{sha}").is_err());
        let t = parse_templates("bench-{sha}, bench-release-{tag_sha}").unwrap();
        let q = ArtifactQuery {
            templates: t,
            workflow: None,
        };
        let (base, tag) = q.split();
        assert_eq!(base.unwrap().templates, ["bench-{sha}"]);
        assert_eq!(tag.unwrap().templates, ["bench-release-{tag_sha}"]);
        assert!(matches!(
            parse_templates("bench-{tag_sha}-{short_sha}"),
            Err(TemplateError::Mixed { .. })
        ));
        assert!(parse_templates(" , \n").is_err());
        assert!(parse_templates("bench-{sha").is_err());
    }
}
