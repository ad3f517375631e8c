//! Issue 46's review of `resolve` with `{tag_sha}` artifact names and a
//! stranger's tag names: a tag is pushed by whoever may push one, and the
//! listing is the API's word. A name that is not a version is never the
//! release; a tag whose commit is not a full SHA is never looked up or
//! put into an artifact name; no byte of a name becomes a workflow
//! command or a second output.

use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path, query_param};

use crate::resolve::artifacts::fork_pr;
use crate::resolve::online::{REPO, TAG_COMMIT, online};
use crate::support::mock_github::{MockGitHub, ok_json};

/// Tags a stranger could push: names that would be workflow commands, an
/// option, an encoded newline, and a version whose commit is an option.
fn hostile_tags() -> Vec<(String, String, &'static str)> {
    [
        ("v9.0.0\n::error::pwned", TAG_COMMIT),
        ("--upload-pack=touch x", TAG_COMMIT),
        ("v8.0.0%0A::warning::x", TAG_COMMIT),
        ("v7.0.0", "--upload-pack=touch y"),
    ]
    .map(|(name, commit)| (name.to_owned(), commit.to_owned(), "commit"))
    .to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_tag_names_and_commits_stay_data_with_tag_sha_artifacts() {
    let mock = MockGitHub::start().await;
    let mut tags = vec![("v0.3.1".to_owned(), TAG_COMMIT.to_owned(), "commit")];
    tags.extend(hostile_tags());
    mock.tags(REPO, &tags).await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/artifacts")))
        .respond_with(ok_json(json!({"total_count": 0, "artifacts": []})))
        .mount(&mock.server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/runs")))
        .and(query_param("head_sha", TAG_COMMIT))
        .respond_with(ok_json(json!({"total_count": 0, "workflow_runs": []})))
        .mount(&mock.server)
        .await;
    let run = online(&mock, &fork_pr(), "pull_request")
        .on_runner()
        .args(["--artifact-name", "bench-release-{tag_sha}"])
        .run_async()
        .await;
    let commands: Vec<&str> = run
        .stdout
        .lines()
        .chain(run.stderr.lines())
        .filter(|l| l.contains("pwned") || l.starts_with("::warning::x"))
        .filter(|l| l.starts_with("::"))
        .collect();
    assert!(commands.is_empty(), "{commands:?}");
    let outputs = run.outputs();
    let tag = outputs.get("tag").cloned().unwrap_or_default();
    assert_eq!(
        tag, "v0.3.1",
        "the newest tag that is a version with a full SHA"
    );
    let requests = mock.requests().await;
    assert!(
        requests.iter().all(|r| !r.contains("upload-pack")),
        "{requests:?}"
    );
    assert_eq!(outputs["tag-sha"], TAG_COMMIT);
    assert!(
        run.stdout.contains(&format!(
            "bench-release-{TAG_COMMIT} of {REPO}@{TAG_COMMIT}"
        )),
        "the {{tag_sha}} name is looked up for that tag's commit: {}",
        run.stdout
    );
}

/// When every tag is a stranger's name (none a version, or none with a full
/// SHA), there is no release tag: no `{tag_sha}` artifact is asked for at
/// all (no request names a value taken from a tag), the tag outputs stay
/// empty, and the run says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_hostile_tags_mean_no_release_artifact_lookup() {
    let mock = MockGitHub::start().await;
    mock.tags(REPO, &hostile_tags()).await;
    let (run, j) = online(&mock, &fork_pr(), "pull_request")
        .args(["--artifact-name", "bench-release-{tag_sha}"])
        .json_async()
        .await;
    assert_eq!(j["tag_available"], false, "{j}");
    assert_eq!(
        (&j["tag"], &j["tag_sha"]),
        (&serde_json::Value::Null, &serde_json::Value::Null),
        "{j}"
    );
    let said = format!("{j} {}", run.stderr);
    assert!(
        said.contains("release artifacts ({tag_sha}) not looked up: there is no release tag"),
        "{said}"
    );
    let requests = mock.requests().await;
    assert!(
        requests
            .iter()
            .all(|r| !r.contains("/actions/") && !r.contains("upload-pack")),
        "{requests:?}"
    );
}
