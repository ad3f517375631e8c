//! The benchmark artifacts of the base commit, looked up in the BASE
//! repository (never the fork). An artifact counts only when it has not
//! expired, comes from a run of exactly the base SHA, and that run is the
//! base repository's own: its code came from the base repository itself
//! (`head_repository.id` is the repository's id) and its event is one that
//! runs merged code ([`RunEvent`]: push, schedule, workflow_dispatch,
//! merge_group, release). A fork's `pull_request` run whose head is main's
//! tip lives in the base repository and uploads artifacts there too; its
//! numbers are the fork's, not main's, so they are never reused. With
//! `artifact-workflow`, only successful runs of that workflow count. The
//! newest such artifact wins. A missing artifact is a notice: the workflow
//! then runs the baseline once, as before.
//!
//! An artifact does not say its run's event, so the runs of the base SHA
//! are listed beside the artifact lookups (one more request in the same
//! wave, no more round trips).
//! See <https://docs.github.com/en/rest/actions/artifacts> and
//! <https://docs.github.com/en/rest/actions/workflow-runs>.

use futures_util::{StreamExt, stream};

use crate::github::{Api, ApiError, Artifact, Run};
use crate::resolve::answer::{ArtifactReport, ArtifactState};
use crate::resolve::artifacts::{ArtifactQuery, RunEvent, name_for};
use crate::validate::{Label, RepoName, Sha};

/// Artifact lookups in flight at once: GitHub's secondary rate limits punish
/// bursts, and a few concurrent requests already hide the round trips.
const IN_FLIGHT: usize = 8;

/// A run of the base SHA whose artifacts may stand for the base commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustedRun {
    pub id: u64,
    pub event: RunEvent,
}

/// The runs of `sha` that ran the base repository's own code for an event
/// that runs merged code (and, with `success`, that succeeded). Every field
/// is the server's word, checked, never assumed: a run without a head
/// repository, an event or the exact SHA is not trusted.
pub fn trusted_runs(runs: &[Run], sha: &Sha, success: bool) -> Vec<TrustedRun> {
    runs.iter()
        .filter(|r| {
            r.head_sha
                .as_deref()
                .is_some_and(|h| h.eq_ignore_ascii_case(sha.as_str()))
        })
        .filter(|r| !success || r.conclusion.as_deref() == Some("success"))
        .filter(|r| {
            let own = r.repository.as_ref().and_then(|x| x.id);
            let head = r.head_repository.as_ref().and_then(|x| x.id);
            own.is_some() && own == head
        })
        .filter_map(|r| {
            let event = RunEvent::trusted(r.event.as_deref()?)?;
            Some(TrustedRun { id: r.id, event })
        })
        .collect()
}

fn run_sha_is(artifact: &Artifact, sha: &Sha) -> bool {
    artifact
        .workflow_run
        .as_ref()
        .and_then(|r| r.head_sha.as_deref())
        .is_some_and(|h| h.eq_ignore_ascii_case(sha.as_str()))
}

/// An artifact whose own run record names a head repository other than
/// the run's repository came from a fork, whatever the runs listing says.
fn from_a_fork(artifact: &Artifact) -> bool {
    artifact
        .workflow_run
        .as_ref()
        .is_some_and(|r| match (r.repository_id, r.head_repository_id) {
            (Some(own), Some(head)) => own != head,
            _ => false,
        })
}

/// The newest artifact that is not expired, comes from a run of `sha`, and
/// from one of the `trusted` runs; with the event of its run.
pub fn choose<'a>(
    candidates: &'a [Artifact],
    sha: &Sha,
    trusted: &[TrustedRun],
) -> Option<(&'a Artifact, RunEvent)> {
    candidates
        .iter()
        .filter(|a| !a.expired && run_sha_is(a, sha) && !from_a_fork(a))
        .filter_map(|a| {
            let run = a.workflow_run.as_ref().and_then(|r| r.id)?;
            let t = trusted.iter().find(|t| t.id == run)?;
            Some((a, t.event))
        })
        .max_by(|(a, _), (b, _)| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)))
}

/// Why no artifact counted, for the notice.
fn reason(candidates: &[Artifact], sha: &Sha, workflow: Option<&str>) -> String {
    if candidates.is_empty() {
        return "none has that name".to_owned();
    }
    let live: Vec<&Artifact> = candidates.iter().filter(|a| !a.expired).collect();
    if live.is_empty() {
        return format!("{} with that name, all expired", candidates.len());
    }
    let same_sha = live.iter().filter(|a| run_sha_is(a, sha)).count();
    if same_sha == 0 {
        return format!("{} with that name, none from a run of {sha}", live.len());
    }
    let events = RunEvent::ALL.map(RunEvent::name).join(", ");
    match workflow {
        Some(workflow) => format!(
            "{same_sha} from a run of {sha}, none from a successful {events} run of {workflow} in the base repository itself"
        ),
        None => format!(
            "{same_sha} from a run of {sha}, none from a {events} run of the base repository itself (a pull request's or a fork's run is never reused)"
        ),
    }
}

/// Looks every rendered name up in `repo`, concurrently, together with the
/// runs of `sha` that say which artifacts are the base repository's own.
pub async fn find(
    api: &Api,
    repo: &RepoName,
    sha: &Sha,
    label: &Label,
    query: &ArtifactQuery,
) -> ArtifactReport {
    let (templates, workflow) = (&query.templates, query.workflow.as_deref());
    let names: Vec<String> = templates.iter().map(|t| name_for(t, sha, label)).collect();
    let runs_future = api.runs_of(repo, workflow, sha);
    let lists_future = stream::iter(names.iter().map(|n| api.artifacts(repo, n)))
        .buffered(IN_FLIGHT)
        .collect::<Vec<_>>();
    let (runs, lists) = tokio::join!(runs_future, lists_future);

    let mut report = ArtifactReport {
        order: names.clone(),
        ..ArtifactReport::default()
    };
    let trusted = match runs {
        Ok(runs) => trusted_runs(&runs, sha, workflow.is_some()),
        Err(err) => {
            report.warnings.push(format!(
                "benchmark artifacts of {repo} not looked up: {err}"
            ));
            for name in &names {
                report.states.insert(name.clone(), ArtifactState::default());
            }
            return report;
        }
    };
    for (name, list) in names.iter().zip(lists) {
        let found = match list {
            Ok(candidates) => match choose(&candidates, sha, &trusted) {
                Some((a, event)) => {
                    let run_id = a.workflow_run.as_ref().and_then(|r| r.id);
                    report.trace.push(format!(
                        "artifact {name}: id {} from {event} run {} of {repo}@{sha} ({} candidates)",
                        a.id,
                        run_id.map_or_else(|| "?".to_owned(), |r| r.to_string()),
                        candidates.len()
                    ));
                    ArtifactState {
                        available: true,
                        id: Some(a.id),
                        run_id,
                        event: Some(event),
                    }
                }
                None => {
                    report.notices.push(format!(
                        "no benchmark artifact {name} of {repo}@{sha} to reuse ({}); the baseline runs once instead",
                        reason(&candidates, sha, workflow)
                    ));
                    ArtifactState::default()
                }
            },
            Err(err) => {
                report.warnings.push(artifact_warning(&err, name));
                ArtifactState::default()
            }
        };
        report.states.insert(name.clone(), found);
    }
    report
}

fn artifact_warning(err: &ApiError, name: &str) -> String {
    format!("benchmark artifact {name} not looked up: {err}; the baseline runs once instead")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::{ArtifactRun, RunRepo};

    const BASE_REPO: u64 = 700001;
    const FORK: u64 = 900002;

    fn sha(c: char) -> Sha {
        Sha::parse(&c.to_string().repeat(40)).unwrap()
    }

    fn artifact(id: u64, created: &str, run: u64, head: &Sha, expired: bool) -> Artifact {
        Artifact {
            id,
            name: "bench".into(),
            expired,
            created_at: Some(created.into()),
            workflow_run: Some(ArtifactRun {
                id: Some(run),
                head_sha: Some(head.to_string()),
                ..ArtifactRun::default()
            }),
        }
    }

    fn run(id: u64, event: &str, head_repo: u64, head: &Sha, conclusion: &str) -> Run {
        Run {
            id,
            conclusion: Some(conclusion.into()),
            event: Some(event.into()),
            head_sha: Some(head.to_string()),
            repository: Some(RunRepo {
                id: Some(BASE_REPO),
            }),
            head_repository: Some(RunRepo {
                id: Some(head_repo),
            }),
        }
    }

    fn trusted(ids: &[u64]) -> Vec<TrustedRun> {
        ids.iter()
            .map(|&id| TrustedRun {
                id,
                event: RunEvent::Push,
            })
            .collect()
    }

    #[test]
    fn newest_live_artifact_of_the_exact_sha_from_a_trusted_run_wins() {
        let (base, other) = (sha('a'), sha('b'));
        let list = vec![
            artifact(1, "2026-11-01T00:00:00Z", 10, &base, false),
            artifact(2, "2026-11-03T00:00:00Z", 11, &base, true),
            artifact(3, "2026-11-04T00:00:00Z", 12, &other, false),
            artifact(4, "2026-11-02T00:00:00Z", 13, &base, false),
        ];
        let id = |t: &[u64]| choose(&list, &base, &trusted(t)).map(|(a, _)| a.id);
        assert_eq!(id(&[10, 11, 12, 13]), Some(4));
        assert_eq!(id(&[10]), Some(1));
        assert_eq!(id(&[12]), None);
        assert_eq!(id(&[]), None, "no trusted run, no artifact");
        assert!(reason(&list[1..2], &base, None).contains("expired"));
        assert!(reason(&list[2..3], &base, None).contains("none from a run of"));
        assert!(reason(&list[0..1], &base, None).contains("never reused"));
    }

    #[test]
    fn only_the_base_repositorys_own_runs_of_merged_code_are_trusted() {
        let (base, other) = (sha('a'), sha('b'));
        let runs = vec![
            run(1, "pull_request", FORK, &base, "success"),
            run(2, "pull_request", BASE_REPO, &base, "success"),
            run(3, "pull_request_target", BASE_REPO, &base, "success"),
            run(4, "workflow_run", BASE_REPO, &base, "success"),
            run(5, "push", FORK, &base, "success"),
            run(6, "push", BASE_REPO, &other, "success"),
            run(7, "Push", BASE_REPO, &base, "success"),
            run(8, "push", BASE_REPO, &base, "failure"),
            run(9, "schedule", BASE_REPO, &base, "success"),
            run(10, "workflow_dispatch", BASE_REPO, &base, "success"),
            run(11, "merge_group", BASE_REPO, &base, "success"),
            run(12, "release", BASE_REPO, &base, "success"),
            Run {
                head_repository: None,
                ..run(13, "push", BASE_REPO, &base, "success")
            },
        ];
        let ids = |success| -> Vec<u64> {
            trusted_runs(&runs, &base, success)
                .iter()
                .map(|t| t.id)
                .collect()
        };
        assert_eq!(ids(false), vec![8, 9, 10, 11, 12]);
        assert_eq!(ids(true), vec![9, 10, 11, 12]);
        assert_eq!(trusted_runs(&runs, &base, false)[0].event, RunEvent::Push);
    }

    #[test]
    fn an_artifact_whose_run_names_a_fork_head_is_refused() {
        let base = sha('a');
        let mut a = artifact(1, "2026-11-01T00:00:00Z", 10, &base, false);
        if let Some(r) = a.workflow_run.as_mut() {
            r.repository_id = Some(BASE_REPO);
            r.head_repository_id = Some(FORK);
        }
        assert!(choose(std::slice::from_ref(&a), &base, &trusted(&[10])).is_none());
    }
}
