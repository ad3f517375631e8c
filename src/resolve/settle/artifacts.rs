//! The benchmark artifacts of the base commit, looked up in the BASE
//! repository (never the fork): each rendered name, every page, and only an
//! artifact that has not expired, was produced by a run of exactly the base
//! SHA and, when `artifact-workflow` is given, by a successful run of that
//! workflow, counts. The newest such artifact wins. A missing artifact is a
//! notice: the workflow then runs the baseline once, as before.
//! See <https://docs.github.com/en/rest/actions/artifacts>.

use futures_util::{StreamExt, stream};

use crate::resolve::answer::{ArtifactReport, ArtifactState};
use crate::resolve::artifacts::{ArtifactQuery, name_for};
use crate::resolve::github::{Api, ApiError, Artifact};
use crate::validate::{Label, RepoName, Sha};

/// Artifact lookups in flight at once: GitHub's secondary rate limits punish
/// bursts, and a few concurrent requests already hide the round trips.
const IN_FLIGHT: usize = 8;

/// Why no artifact counted, for the notice.
fn reason(
    candidates: &[Artifact],
    sha: &Sha,
    runs: Option<&[u64]>,
    workflow: Option<&str>,
) -> String {
    if candidates.is_empty() {
        return "none has that name".to_owned();
    }
    let live: Vec<&Artifact> = candidates.iter().filter(|a| !a.expired).collect();
    if live.is_empty() {
        return format!("{} with that name, all expired", candidates.len());
    }
    let same_sha: Vec<&&Artifact> = live.iter().filter(|a| run_sha_is(a, sha)).collect();
    if same_sha.is_empty() {
        return format!("{} with that name, none from a run of {sha}", live.len());
    }
    match (runs, workflow) {
        (Some(_), Some(workflow)) => format!(
            "{} from a run of {sha}, none from a successful run of {workflow}",
            same_sha.len()
        ),
        _ => "none usable".to_owned(),
    }
}

fn run_sha_is(artifact: &Artifact, sha: &Sha) -> bool {
    artifact
        .workflow_run
        .as_ref()
        .and_then(|r| r.head_sha.as_deref())
        .is_some_and(|h| h.eq_ignore_ascii_case(sha.as_str()))
}

/// The newest artifact that is not expired, comes from a run of `sha`, and
/// (when `runs` is given) from one of those runs.
pub fn choose<'a>(
    candidates: &'a [Artifact],
    sha: &Sha,
    runs: Option<&[u64]>,
) -> Option<&'a Artifact> {
    candidates
        .iter()
        .filter(|a| !a.expired && run_sha_is(a, sha))
        .filter(|a| {
            let run = a.workflow_run.as_ref().and_then(|r| r.id);
            runs.is_none_or(|runs| run.is_some_and(|id| runs.contains(&id)))
        })
        .max_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)))
}

/// Looks every rendered name up in `repo`, concurrently, together with the
/// workflow's successful runs for `sha` when a workflow is given.
pub async fn find(
    api: &Api,
    repo: &RepoName,
    sha: &Sha,
    label: &Label,
    query: &ArtifactQuery,
) -> ArtifactReport {
    let (templates, workflow) = (&query.templates, query.workflow.as_deref());
    let names: Vec<String> = templates.iter().map(|t| name_for(t, sha, label)).collect();
    let runs_future = async {
        match workflow {
            Some(w) => Some(api.successful_runs(repo, w, sha).await),
            None => None,
        }
    };
    let lists_future = stream::iter(names.iter().map(|n| api.artifacts(repo, n)))
        .buffered(IN_FLIGHT)
        .collect::<Vec<_>>();
    let (runs, lists) = tokio::join!(runs_future, lists_future);

    let mut report = ArtifactReport {
        order: names.clone(),
        ..ArtifactReport::default()
    };
    let runs = match runs {
        Some(Ok(ids)) => Some(ids),
        Some(Err(err)) => {
            report.warnings.push(format!(
                "benchmark artifacts of {repo} not looked up: {err}"
            ));
            for name in &names {
                report.states.insert(name.clone(), ArtifactState::default());
            }
            return report;
        }
        None => None,
    };
    for (name, list) in names.iter().zip(lists) {
        let found = match list {
            Ok(candidates) => match choose(&candidates, sha, runs.as_deref()) {
                Some(a) => {
                    let run_id = a.workflow_run.as_ref().and_then(|r| r.id);
                    report.trace.push(format!(
                        "artifact {name}: id {} from run {} of {sha} ({} candidates)",
                        a.id,
                        run_id.map_or_else(|| "?".to_owned(), |r| r.to_string()),
                        candidates.len()
                    ));
                    ArtifactState {
                        available: true,
                        id: Some(a.id),
                        run_id,
                    }
                }
                None => {
                    report.notices.push(format!(
                        "no benchmark artifact {name} of {repo}@{sha} to reuse ({}); the baseline runs once instead",
                        reason(&candidates, sha, runs.as_deref(), workflow)
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
    use crate::resolve::github::ArtifactRun;

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
            }),
        }
    }

    #[test]
    fn newest_live_artifact_of_the_exact_sha_wins() {
        let (base, other) = (sha('a'), sha('b'));
        let list = vec![
            artifact(1, "2026-11-01T00:00:00Z", 10, &base, false),
            artifact(2, "2026-11-03T00:00:00Z", 11, &base, true),
            artifact(3, "2026-11-04T00:00:00Z", 12, &other, false),
            artifact(4, "2026-11-02T00:00:00Z", 13, &base, false),
        ];
        assert_eq!(choose(&list, &base, None).map(|a| a.id), Some(4));
        assert_eq!(choose(&list, &base, Some(&[10])).map(|a| a.id), Some(1));
        assert_eq!(choose(&list, &base, Some(&[12])).map(|a| a.id), None);
        assert!(reason(&list[1..2], &base, None, None).contains("expired"));
        assert!(reason(&list[2..3], &base, None, None).contains("none from a run of"));
    }
}
