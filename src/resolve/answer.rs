//! The answer: one baseline (or the reason there is none), as every output
//! form shows it.
//!
//! Each decision is one state that cannot contradict itself: the baseline
//! is found, unavailable or skipped ([`Base`]); a release tag is found or
//! not ([`ReleaseTag`]); the artifacts are one report. The flat fields the
//! outputs carry (`base_sha` with `base_available`, `skip` with
//! `skip_reason`, `tag` with `tag_available`, the first artifact's `artifact_*`)
//! are derived from them when rendered ([`Answer::flat`]): the JSON keys,
//! and in kebab-case the step outputs (a `null` is an empty string).

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use crate::resolve::artifacts::RunEvent;
use crate::resolve::rules::{BaseSource, Baseline, Decision, Lookup, SkipReason};
use crate::validate::{Label, RefName, RepoName, Sha};

/// One artifact name's state, as the `artifacts` output shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ArtifactState {
    pub available: bool,
    pub id: Option<u64>,
    pub run_id: Option<u64>,
    /// The event of the run that uploaded it: always one the base
    /// repository's own code ran for (`push`, `schedule`, ...).
    pub event: Option<RunEvent>,
}

/// What the artifact lookups found, per rendered name, and what to tell
/// the user.
#[derive(Debug, Default)]
pub struct ArtifactReport {
    pub states: BTreeMap<String, ArtifactState>,
    /// Rendered names in template order: the first one fills the single
    /// `artifact-*` outputs.
    pub order: Vec<String>,
    pub notices: Vec<String>,
    pub warnings: Vec<String>,
    pub trace: Vec<String>,
}

impl ArtifactReport {
    /// Another lookup's report after this one's (the release tag's
    /// templates after the base commit's).
    pub fn then(mut self, other: ArtifactReport) -> ArtifactReport {
        self.states.extend(other.states);
        self.order.extend(other.order);
        self.notices.extend(other.notices);
        self.warnings.extend(other.warnings);
        self.trace.extend(other.trace);
        self
    }
}

/// What settling the answer (by network, git or the local clone) learned,
/// in the order it learned it. [`Answer::apply`] is the one place these
/// reach the answer.
#[derive(Debug)]
pub enum Finding {
    Trace(String),
    Warning(&'static str, String),
    Notice(String),
    /// The baseline, and the request or field it came from.
    Base {
        sha: Sha,
        origin: String,
    },
    BaseUnavailable(String),
    BaseRef(RefName),
    /// The head side, as a pull request fetched by API tells it.
    Head {
        repo: Option<RepoName>,
        sha: Sha,
    },
    /// The latest release tag of the base repository, peeled.
    Tag {
        name: String,
        sha: Sha,
    },
    Artifacts(ArtifactReport),
    Fetched,
}

/// A warning: shown as `::warning title=...::message`, and in JSON as its
/// message alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub title: &'static str,
    pub message: String,
}

impl Serialize for Warning {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.message)
    }
}

/// The baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// The commit, the rule that answered, and the field, flag or request it
    /// came from (for the log line).
    Found {
        sha: Sha,
        source: BaseSource,
        origin: String,
    },
    /// Something to benchmark but no baseline (a warning says why), or not
    /// found yet while the answer is settled.
    Unavailable { source: BaseSource },
    /// Nothing to benchmark.
    Skipped(SkipReason),
}

/// The base repository's latest release tag, peeled to its commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseTag {
    pub name: String,
    pub sha: Sha,
}

#[derive(Debug, Clone)]
pub struct Answer {
    pub event_name: String,
    pub base_repo: RepoName,
    pub base_repo_url: String,
    pub base: Base,
    pub base_ref: Option<RefName>,
    pub head_repo: Option<RepoName>,
    pub head_sha: Option<Sha>,
    pub is_fork: bool,
    pub label: Label,
    /// `None` when none matched, none could be listed, or none was asked for.
    pub tag: Option<ReleaseTag>,
    /// `--fetch DIR` put the base commit into DIR.
    pub base_fetched: bool,
    /// Every rendered artifact name and what was found for it, in template
    /// order (the first fills the single `artifact-*` outputs).
    pub artifacts: Vec<(String, ArtifactState)>,
    /// The first artifact name rendered for this run's own commit: what a
    /// push to main uploads so that later pull requests find it under the
    /// name they look up, without the template typed a second time.
    pub upload_name: Option<String>,
    pub warnings: Vec<Warning>,
    /// Worth knowing, not worth a warning (e.g. no artifact to reuse).
    pub notices: Vec<String>,
    pub trace: Vec<String>,
}

/// The answer's flat fields, in output order: derived, never stored.
#[derive(Debug, Serialize)]
pub struct Flat<'a> {
    pub event_name: &'a str,
    pub base_repo: &'a RepoName,
    pub base_repo_url: &'a str,
    pub base_sha: Option<&'a Sha>,
    pub base_ref: Option<&'a RefName>,
    pub base_source: Option<&'static str>,
    pub base_available: bool,
    pub head_repo: Option<&'a RepoName>,
    pub head_sha: Option<&'a Sha>,
    pub is_fork: bool,
    pub label: &'a Label,
    pub skip: bool,
    pub skip_reason: Option<String>,
    pub tag: Option<&'a str>,
    pub tag_sha: Option<&'a Sha>,
    pub tag_version: Option<&'a str>,
    pub tag_available: bool,
    pub base_fetched: bool,
    pub artifact_available: bool,
    pub artifact_id: Option<u64>,
    pub artifact_run_id: Option<u64>,
    pub artifact_event: Option<RunEvent>,
    pub artifact_name: Option<&'a str>,
    pub artifacts: BTreeMap<&'a str, &'a ArtifactState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload_name: Option<&'a str>,
    pub warnings: &'a [Warning],
    pub notices: &'a [String],
    pub trace: &'a [String],
}

impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.flat().serialize(serializer)
    }
}

impl Answer {
    /// Starts the answer from the decision. A [`Lookup`] is returned when the
    /// base SHA still has to be found; the caller settles it with
    /// [`Answer::found`] or [`Answer::unavailable`].
    pub fn new(decision: Decision, label: Label, server_url: &str) -> (Answer, Option<Lookup>) {
        let base_repo_url = format!("{server_url}/{}", decision.base_repo);
        let (base, lookup, warning) = match decision.baseline {
            Baseline::Known {
                sha,
                source,
                origin,
            } => (
                Base::Found {
                    sha,
                    source,
                    origin,
                },
                None,
                None,
            ),
            Baseline::Lookup { source, lookup } => {
                (Base::Unavailable { source }, Some(lookup), None)
            }
            Baseline::Skip { reason } => (Base::Skipped(reason), None, None),
            Baseline::Unavailable { source, reason } => {
                (Base::Unavailable { source }, None, Some(reason))
            }
        };
        let mut answer = Answer {
            event_name: decision.event_name.to_string(),
            base_repo: decision.base_repo,
            base_repo_url,
            base,
            base_ref: decision.base_ref,
            head_repo: decision.head.repo,
            head_sha: decision.head.sha,
            is_fork: decision.head.is_fork,
            label,
            tag: None,
            base_fetched: false,
            artifacts: Vec::new(),
            upload_name: None,
            warnings: Vec::new(),
            notices: Vec::new(),
            trace: decision.trace,
        };
        if let Some(reason) = warning {
            answer.unavailable(reason);
        }
        for warning in decision.warnings {
            answer.warn("Baseline chosen among several", warning);
        }
        (answer, lookup)
    }

    /// The baseline found, by the rule that asked for it.
    fn found(&mut self, sha: Sha, origin: String) {
        if let Some(source) = self.source() {
            self.base = Base::Found {
                sha,
                source,
                origin,
            };
        }
    }

    /// Records a missing baseline, loudly: the warning is shown as a
    /// `::warning::` and in the summary.
    fn unavailable(&mut self, warning: String) {
        if let Base::Found { source, .. } = self.base {
            self.base = Base::Unavailable { source };
        }
        self.warn("Benchmark baseline unavailable", warning);
    }

    /// The rule that answered (or was to answer); `None` on a skip.
    pub fn source(&self) -> Option<BaseSource> {
        match &self.base {
            Base::Found { source, .. } | Base::Unavailable { source } => Some(*source),
            Base::Skipped(_) => None,
        }
    }

    /// The baseline commit, when there is one.
    pub fn base_sha(&self) -> Option<&Sha> {
        match &self.base {
            Base::Found { sha, .. } => Some(sha),
            _ => None,
        }
    }

    /// The flat fields the outputs carry, derived from the states.
    pub fn flat(&self) -> Flat<'_> {
        let first = self.artifacts.first();
        Flat {
            event_name: &self.event_name,
            base_repo: &self.base_repo,
            base_repo_url: &self.base_repo_url,
            base_sha: self.base_sha(),
            base_ref: self.base_ref.as_ref(),
            base_source: self.source().map(BaseSource::name),
            base_available: self.base_sha().is_some(),
            head_repo: self.head_repo.as_ref(),
            head_sha: self.head_sha.as_ref(),
            is_fork: self.is_fork,
            label: &self.label,
            skip: matches!(self.base, Base::Skipped(_)),
            skip_reason: match &self.base {
                Base::Skipped(reason) => Some(reason.to_string()),
                _ => None,
            },
            tag: self.tag.as_ref().map(|t| t.name.as_str()),
            tag_sha: self.tag.as_ref().map(|t| &t.sha),
            tag_version: self
                .tag
                .as_ref()
                .map(|t| crate::resolve::tags::tag_version(&t.name)),
            tag_available: self.tag.is_some(),
            base_fetched: self.base_fetched,
            artifact_available: first.is_some_and(|(_, s)| s.available),
            artifact_id: first.and_then(|(_, s)| s.id),
            artifact_run_id: first.and_then(|(_, s)| s.run_id),
            artifact_event: first.and_then(|(_, s)| s.event),
            artifact_name: first.map(|(n, _)| n.as_str()),
            artifacts: self
                .artifacts
                .iter()
                .map(|(n, s)| (n.as_str(), s))
                .collect(),
            upload_name: self.upload_name.as_deref(),
            warnings: &self.warnings,
            notices: &self.notices,
            trace: &self.trace,
        }
    }

    fn warn(&mut self, title: &'static str, message: String) {
        let message = one_line(&message, WARNING_MAX);
        self.trace.push(format!("warning: {message}"));
        self.warnings.push(Warning { title, message });
    }

    fn notice(&mut self, message: String) {
        self.trace.push(format!("notice: {message}"));
        self.notices.push(message);
    }

    /// Writes what settling learned into the answer, in order.
    pub fn apply(&mut self, findings: Vec<Finding>) {
        for finding in findings {
            match finding {
                Finding::Trace(line) => self.trace.push(line),
                Finding::Warning(title, message) => self.warn(title, message),
                Finding::Notice(message) => self.notice(message),
                Finding::Base { sha, origin } => self.found(sha, origin),
                Finding::BaseUnavailable(warning) => self.unavailable(warning),
                Finding::BaseRef(branch) => self.base_ref = Some(branch),
                Finding::Head { repo, sha } => {
                    self.is_fork = repo.as_ref().is_none_or(|h| !h.same_repo(&self.base_repo));
                    self.head_repo = repo;
                    self.head_sha = Some(sha);
                }
                Finding::Tag { name, sha } => self.tag = Some(ReleaseTag { name, sha }),
                Finding::Artifacts(report) => self.apply_artifacts(report),
                Finding::Fetched => self.base_fetched = true,
            }
        }
    }

    fn apply_artifacts(&mut self, report: ArtifactReport) {
        self.trace.extend(report.trace);
        for warning in report.warnings {
            self.warn("Benchmark artifact unavailable", warning);
        }
        for notice in report.notices {
            self.notice(notice);
        }
        let mut states = report.states;
        self.artifacts = report
            .order
            .into_iter()
            .map(|name| {
                let state = states.remove(&name).unwrap_or_default();
                (name, state)
            })
            .collect();
    }

    /// Checks made once the base SHA is settled, whichever way it was found.
    pub fn finish(&mut self) {
        if let (Some(base), Some(head)) = (self.base_sha(), &self.head_sha)
            && base == head
        {
            self.warn("Baseline is the head commit", format!(
                "the baseline {}@{base} is the head commit itself: the comparison will show no change",
                self.base_repo
            ));
        }
        let line = self.baseline_line();
        self.trace.push(line);
    }

    /// The one line that names the exact baseline, e.g.
    /// `baseline main = ROCm/FlyDSL@fa4f8ae2... (pr-base: pull_request.base.sha)`.
    pub fn baseline_line(&self) -> String {
        match &self.base {
            Base::Found {
                sha,
                source,
                origin,
            } => format!(
                "baseline {} = {}@{sha} ({source}: {origin})",
                self.label, self.base_repo
            ),
            Base::Skipped(reason) => format!(
                "baseline {} = none, skipped ({reason}) for {}",
                self.label, self.base_repo
            ),
            Base::Unavailable { source } => format!(
                "baseline {} = UNAVAILABLE for {} ({source})",
                self.label, self.base_repo
            ),
        }
    }

    /// True when there is something to benchmark but no baseline for it:
    /// what `--strict` turns into a failure.
    pub fn missing_baseline(&self) -> bool {
        matches!(self.base, Base::Unavailable { .. })
    }
}

/// A warning is an annotation a person reads in the job log: one line, and
/// at most this many characters, whatever a server put into it.
const WARNING_MAX: usize = 400;

fn one_line(text: &str, max: usize) -> String {
    let flat = text.replace(['\r', '\n'], " ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
