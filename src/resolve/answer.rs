//! The answer: one baseline (or the reason there is none), as every output
//! form shows it.
//!
//! Field names here are the JSON keys; the step outputs are the same names in
//! kebab-case. A `null` in JSON is an empty string as a step output.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use crate::resolve::rules::{Baseline, Decision, Lookup};
use crate::validate::{Label, RefName, RepoName, Sha};

/// One artifact name's state, as the `artifacts` output shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ArtifactState {
    pub available: bool,
    pub id: Option<u64>,
    pub run_id: Option<u64>,
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

#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub event_name: String,
    pub base_repo: RepoName,
    pub base_repo_url: String,
    pub base_sha: Option<Sha>,
    pub base_ref: Option<RefName>,
    pub base_source: Option<&'static str>,
    pub base_available: bool,
    pub head_repo: Option<RepoName>,
    pub head_sha: Option<Sha>,
    pub is_fork: bool,
    pub label: Label,
    pub skip: bool,
    pub skip_reason: Option<String>,
    pub tag: Option<String>,
    pub tag_sha: Option<Sha>,
    pub tag_version: Option<String>,
    pub tag_available: bool,
    /// `--fetch DIR` put the base commit into DIR.
    pub base_fetched: bool,
    /// The first `artifact-name`'s benchmark artifact of the base commit.
    pub artifact_available: bool,
    pub artifact_id: Option<u64>,
    pub artifact_run_id: Option<u64>,
    pub artifact_name: Option<String>,
    /// Every rendered artifact name and what was found for it.
    pub artifacts: BTreeMap<String, ArtifactState>,
    pub warnings: Vec<Warning>,
    /// Worth knowing, not worth a warning (e.g. no artifact to reuse).
    pub notices: Vec<String>,
    pub trace: Vec<String>,
    /// The field, flag or request the base SHA came from, for the log line.
    #[serde(skip)]
    pub base_origin: Option<String>,
}

impl Answer {
    /// Starts the answer from the decision. A [`Lookup`] is returned when the
    /// base SHA still has to be found; the caller settles it with
    /// [`Answer::found`] or [`Answer::unavailable`].
    pub fn new(decision: Decision, label: Label, server_url: &str) -> (Answer, Option<Lookup>) {
        let base_repo_url = format!("{server_url}/{}", decision.base_repo);
        let mut answer = Answer {
            event_name: decision.event_name.to_string(),
            base_repo: decision.base_repo,
            base_repo_url,
            base_sha: None,
            base_ref: decision.base_ref,
            base_source: None,
            base_available: false,
            head_repo: decision.head.repo,
            head_sha: decision.head.sha,
            is_fork: decision.head.is_fork,
            label,
            skip: false,
            skip_reason: None,
            tag: None,
            tag_sha: None,
            tag_version: None,
            tag_available: false,
            base_fetched: false,
            artifact_available: false,
            artifact_id: None,
            artifact_run_id: None,
            artifact_name: None,
            artifacts: BTreeMap::new(),
            warnings: Vec::new(),
            notices: Vec::new(),
            trace: decision.trace,
            base_origin: None,
        };
        let lookup = match decision.baseline {
            Baseline::Known {
                sha,
                source,
                origin,
            } => {
                answer.base_source = Some(source.as_str());
                answer.found(sha, origin);
                None
            }
            Baseline::Lookup { source, lookup } => {
                answer.base_source = Some(source.as_str());
                Some(lookup)
            }
            Baseline::Skip { reason } => {
                answer.skip = true;
                answer.skip_reason = Some(reason);
                None
            }
            Baseline::Unavailable { source, reason } => {
                answer.base_source = Some(source.as_str());
                answer.unavailable(reason);
                None
            }
        };
        for warning in decision.warnings {
            answer.warn("Baseline chosen among several", warning);
        }
        (answer, lookup)
    }

    fn found(&mut self, sha: Sha, origin: String) {
        self.base_sha = Some(sha);
        self.base_available = true;
        self.base_origin = Some(origin);
    }

    /// Records a missing baseline, loudly: the warning is shown as a
    /// `::warning::` and in the summary.
    fn unavailable(&mut self, warning: String) {
        self.base_sha = None;
        self.base_available = false;
        self.warn("Benchmark baseline unavailable", warning);
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
                Finding::Tag { name, sha } => {
                    self.tag_version = Some(crate::resolve::tags::tag_version(&name).to_owned());
                    self.tag = Some(name);
                    self.tag_sha = Some(sha);
                    self.tag_available = true;
                }
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
        if let Some(first) = report.order.first()
            && let Some(state) = report.states.get(first)
        {
            self.artifact_name = Some(first.clone());
            self.artifact_available = state.available;
            self.artifact_id = state.id;
            self.artifact_run_id = state.run_id;
        }
        self.artifacts = report.states;
    }

    /// Checks made once the base SHA is settled, whichever way it was found.
    pub fn finish(&mut self) {
        if let (Some(base), Some(head)) = (&self.base_sha, &self.head_sha)
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
        let source = self.base_source.unwrap_or("none");
        match (&self.base_sha, &self.skip_reason) {
            (Some(sha), _) => format!(
                "baseline {} = {}@{sha} ({source}: {})",
                self.label,
                self.base_repo,
                self.base_origin.as_deref().unwrap_or("?")
            ),
            (None, Some(reason)) => format!(
                "baseline {} = none, skipped ({reason}) for {}",
                self.label, self.base_repo
            ),
            (None, None) => format!(
                "baseline {} = UNAVAILABLE for {} ({source})",
                self.label, self.base_repo
            ),
        }
    }

    /// True when there is something to benchmark but no baseline for it:
    /// what `--strict` turns into a failure.
    pub fn missing_baseline(&self) -> bool {
        !self.skip && !self.base_available
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
