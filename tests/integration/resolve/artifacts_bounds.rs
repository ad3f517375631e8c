//! Looking up main's artifacts within bounds: pages followed as GitHub
//! links them, a refused token named by the permission it lacks, the base
//! looked up before its artifact, bad templates and too many names refused
//! as usage, at most eight lookups in flight, GitHub Enterprise Server's
//! API path, and a release's results found by its tag's commit.

use serde_json::{Value, json};
use wiremock::Mock;
use wiremock::matchers::{method, path, query_param};

use crate::resolve::artifacts::{
    BASE_ID, artifact, artifacts, base_runs, base_runs_at, fork_pr, looking_up_mi355,
    main_artifact, mi355, name, pushes, run_json,
};
use crate::resolve::online::{BASE, REPO, STALE, online, repo_json};
use crate::support::mock_github::{MockGitHub, error, ok, ok_json};

/// Two pages of `GET {prefix}/repos/{REPO}/actions/artifacts`, the first with
/// a `Link` to the second, as GitHub paginates.
async fn two_pages(mock: &MockGitHub, prefix: &str, first: Vec<Value>, second: Vec<Value>) {
    let n = name("mi355");
    let total = first.len() + second.len();
    let next = format!(
        "<{}{prefix}/repos/{REPO}/actions/artifacts?per_page=100&name={n}&page=2>; rel=\"next\"",
        mock.url()
    );
    Mock::given(method("GET"))
        .and(path(format!("{prefix}/repos/{REPO}/actions/artifacts")))
        .and(query_param("page", "2"))
        .respond_with(ok_json(json!({"total_count": total, "artifacts": second})))
        .with_priority(1)
        .mount(&mock.server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("{prefix}/repos/{REPO}/actions/artifacts")))
        .respond_with(
            ok().insert_header("link", next.as_str())
                .set_body_json(json!({"total_count": total, "artifacts": first})),
        )
        .with_priority(2)
        .mount(&mock.server)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_artifact_past_the_first_page_is_found_not_missed() {
    let mock = MockGitHub::start().await;
    let n = name("mi355");
    let page1: Vec<Value> = (0..100)
        .map(|i| artifact(1000 + i, &n, 5000 + i, STALE, "2026-11-01T10:00:00Z", false))
        .collect();
    let page2 = vec![mi355(7, 70, "2026-11-01T10:00:00Z")];
    two_pages(&mock, "", page1, page2).await;
    pushes(&mock, &[70]).await;
    let (_, j) = looking_up_mi355(&mock).json_async().await;
    assert_eq!(j["artifact_id"], 7, "{j}");
    assert_eq!(mock.requests().await.len(), 3, "two pages and the runs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forbidden_names_the_actions_read_permission() {
    let mock = MockGitHub::start().await;
    Mock::given(path(format!("/repos/{REPO}/actions/artifacts")))
        .respond_with(error(403, "Resource not accessible by integration"))
        .mount(&mock.server)
        .await;
    pushes(&mock, &[]).await;
    let run = looking_up_mi355(&mock).on_runner().run_async().await;
    run.assert_code(0);
    assert!(
        run.stdout
            .contains("::warning title=Benchmark artifact unavailable::"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("permissions: actions: read"),
        "{}",
        run.stdout
    );
    assert_eq!(run.outputs()["artifact-available"], "false");
    assert_eq!(run.outputs()["base-available"], "true");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looked_up_base_is_looked_up_first_then_its_artifact() {
    let mock = MockGitHub::start().await;
    mock.commit_sha(REPO, "main", BASE).await;
    artifacts(
        &mock,
        &format!("bench-{}", &BASE[..7]),
        vec![artifact(
            5,
            &format!("bench-{}", &BASE[..7]),
            50,
            BASE,
            "2026-11-01T10:00:00Z",
            false,
        )],
    )
    .await;
    base_runs(&mock, &[(50, "workflow_dispatch", BASE_ID)]).await;
    let (_, j) = online(
        &mock,
        &json!({"repository": repo_json()}),
        "workflow_dispatch",
    )
    .args(["--no-tag", "--artifact-name", "bench-{short_sha}"])
    .json_async()
    .await;
    assert_eq!(j["base_sha"], BASE);
    assert_eq!(j["artifact_id"], 5, "{j}");
    assert_eq!(j["artifact_event"], "workflow_dispatch");
}

#[test]
fn bad_templates_are_usage_errors() {
    let run = crate::support::harness::Bin::new()
        .payload(&fork_pr().to_string(), "pull_request")
        .args(["--offline", "--artifact-name", "bench/{commit}"])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("--artifact-name: \"bench/{commit}\": unknown placeholder {commit}"),
        "{}",
        run.stderr
    );
    let run = crate::support::harness::Bin::new()
        .payload(&fork_pr().to_string(), "pull_request")
        .args([
            "--offline",
            "--artifact-name",
            "x-{sha}",
            "--artifact-workflow",
            "../evil",
        ])
        .run();
    run.assert_code(2);
}

#[test]
fn more_than_64_artifact_names_are_a_usage_error() {
    let names: Vec<String> = (0..65).map(|i| format!("bench-{i}-{{sha}}")).collect();
    let run = crate::support::harness::Bin::new()
        .payload(&fork_pr().to_string(), "pull_request")
        .args(["--offline", "--artifact-name", &names.join(",")])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr.contains("65 artifact names; at most 64"),
        "{}",
        run.stderr
    );
}

/// Records when each request arrived and answers it a little later.
#[derive(Clone, Default)]
struct Arrivals(std::sync::Arc<std::sync::Mutex<Vec<std::time::Instant>>>);

impl wiremock::Respond for Arrivals {
    fn respond(&self, _: &wiremock::Request) -> wiremock::ResponseTemplate {
        self.0.lock().unwrap().push(std::time::Instant::now());
        ok_json(json!({"total_count": 0, "artifacts": []}))
            .set_delay(std::time::Duration::from_millis(300))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_eight_artifact_lookups_are_in_flight() {
    let mock = MockGitHub::start().await;
    let arrivals = Arrivals::default();
    Mock::given(path(format!("/repos/{REPO}/actions/artifacts")))
        .respond_with(arrivals.clone())
        .mount(&mock.server)
        .await;
    pushes(&mock, &[]).await;
    let names: Vec<String> = (0..24).map(|i| format!("bench-{i}-{{sha}}")).collect();
    let (_, j) = online(&mock, &fork_pr(), "pull_request")
        .args(["--no-tag", "--artifact-name", &names.join(",")])
        .json_async()
        .await;
    assert_eq!(j["artifacts"].as_object().unwrap().len(), 24, "{j}");
    let times = arrivals.0.lock().unwrap().clone();
    assert_eq!(times.len(), 24);
    for (i, start) in times.iter().enumerate() {
        let together = times[i..]
            .iter()
            .filter(|t| t.duration_since(*start) < std::time::Duration::from_millis(200))
            .count();
        assert!(together <= 8, "{together} requests within 200 ms");
    }
}

/// Enterprise Server: the API lives under `/api/v3` and its `Link` URLs
/// carry that prefix; the next page must not get it twice (the client leaves a path that
/// already starts with the base path alone; this
/// guards that, and our `Link` handling, end to end).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enterprise_servers_next_page_keeps_a_single_api_prefix() {
    let mock = MockGitHub::start().await;
    let page2 = vec![mi355(8, 80, "2026-11-01T10:00:00Z")];
    two_pages(&mock, "/api/v3", vec![], page2).await;
    base_runs_at(&mock, "/api/v3", &[(80, "push", BASE_ID)]).await;
    let prefix = "/api/v3";
    let (_, j) = crate::support::harness::Bin::new()
        .payload(&fork_pr().to_string(), "pull_request")
        .env("GITHUB_API_URL", format!("{}{prefix}", mock.url()))
        .env("GITHUB_SERVER_URL", "https://ghes.example.com")
        .args([
            "--no-tag",
            "--artifact-name",
            "bench-mi355-{sha}",
            "--timeout",
            "10",
        ])
        .json_async()
        .await;
    assert_eq!(j["artifact_id"], 8, "{j}");
    assert_eq!(j["base_repo_url"], "https://ghes.example.com/ROCm/FlyDSL");
    let requests = mock.requests().await;
    assert!(
        requests
            .iter()
            .all(|r| r.contains("GET /api/v3/repos/") && !r.contains("/api/v3/api/v3")),
        "{requests:?}"
    );
    assert_eq!(requests.len(), 3);
}

/// Issue 32: `{tag_sha}` names the release's uploaded results, looked up
/// against the runs of the tag's commit (a release run), never the base
/// commit's; a pull request reuses them instead of benchmarking the
/// release again. With no tag, it is a notice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_runs_results_are_found_by_tag_sha() {
    use crate::resolve::online::TAG_COMMIT;
    let mock = MockGitHub::start().await;
    mock.tags(
        REPO,
        &[("v0.3.1".to_owned(), TAG_COMMIT.to_owned(), "commit")],
    )
    .await;
    let release = format!("bench-release-{TAG_COMMIT}");
    let mut from_release = artifact(21, &release, 201, TAG_COMMIT, "2026-11-01T10:00:00Z", false);
    from_release["workflow_run"]["head_branch"] = json!("v0.3.1");
    artifacts(&mock, &release, vec![from_release]).await;
    main_artifact(&mock).await;
    pushes(&mock, &[101]).await;
    let mut run = run_json(201, "release", BASE_ID);
    run["head_sha"] = json!(TAG_COMMIT);
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/runs")))
        .and(query_param("head_sha", TAG_COMMIT))
        .respond_with(ok_json(json!({"total_count": 1, "workflow_runs": [run]})))
        .mount(&mock.server)
        .await;
    let (run, j) = online(&mock, &fork_pr(), "pull_request")
        .args([
            "--artifact-name",
            "bench-mi355-{sha}, bench-release-{tag_sha}",
        ])
        .json_async()
        .await;
    assert_eq!(run.code, 0);
    assert_eq!(j["tag_sha"], TAG_COMMIT);
    assert_eq!(
        j["artifact_name"],
        name("mi355"),
        "the first template fills artifact-*"
    );
    assert_eq!(
        j["artifacts"][&release],
        json!({"available": true, "id": 21, "run_id": 201, "event": "release"}),
        "{j}"
    );
    assert_eq!(j["artifacts"][name("mi355")]["id"], 11);

    let (_, j) = online(&mock, &fork_pr(), "pull_request")
        .args(["--no-tag", "--artifact-name", "bench-release-{tag_sha}"])
        .json_async()
        .await;
    assert!(
        j["notices"]
            .to_string()
            .contains("release artifacts ({tag_sha}) not looked up"),
        "{j}"
    );
    let out = online(&mock, &fork_pr(), "pull_request")
        .args(["--artifact-name", "bench-{tag_sha}-{short_sha}"])
        .run_async()
        .await;
    assert_eq!(out.code, 2, "{}", out.stderr);
}

/// Issue 47, the artifact name typed once: a push to main gets the
/// template rendered for the pushed commit (`upload-name`: what it uploads),
/// while `artifact-name` stays the base commit's (what it looks up), both
/// in the outputs and the JSON, offline too; without `artifact-name` both
/// are empty.
#[test]
fn a_push_uploads_under_the_name_the_next_pull_request_looks_up() {
    let after = "3c9d2e7a1b0f4e5d6c7b8a9f0e1d2c3b4a5f6e7d";
    let before = "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16";
    let payload = json!({"ref": "refs/heads/main", "before": before, "after": after,
        "repository": {"full_name": REPO, "default_branch": "main", "id": BASE_ID}});
    let run = crate::support::harness::Bin::new()
        .args(["resolve", "--offline", "--no-tag"])
        .args(["--artifact-name", "bench-mi355-{sha}"])
        .payload(&payload.to_string(), "push")
        .on_runner()
        .run();
    run.assert_code(0);
    let o = run.outputs();
    assert_eq!(o["base-sha"], before, "{}", run.stdout);
    assert_eq!(o["upload-name"], format!("bench-mi355-{after}"));
    let json: Value = serde_json::from_str(&o["json"]).unwrap();
    assert_eq!(json["upload_name"], format!("bench-mi355-{after}"));
    let none = crate::support::harness::Bin::new()
        .args(["resolve", "--offline", "--no-tag"])
        .payload(&payload.to_string(), "push")
        .on_runner()
        .run();
    none.assert_code(0);
    assert_eq!(none.outputs()["upload-name"], "");
}
