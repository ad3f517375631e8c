//! Reusing baselines already measured: the base commit's benchmark artifact,
//! looked up in the BASE repository against the mock API.

use serde_json::{Value, json};
use wiremock::Mock;
use wiremock::matchers::{method, path, query_param};

use crate::resolve::online::{BASE, HEAD, REPO, STALE, online, repo_json};
use crate::support::harness::Bin;
use crate::support::mock_github::{MockGitHub, ok, ok_json};

pub fn artifact(
    id: u64,
    name: &str,
    run: u64,
    head_sha: &str,
    created: &str,
    expired: bool,
) -> Value {
    json!({"id": id, "node_id": "MDg6QXJ0aWZhY3Qx", "name": name, "size_in_bytes": 5561,
        "url": format!("https://api.github.com/repos/{REPO}/actions/artifacts/{id}"),
        "archive_download_url": format!("https://api.github.com/repos/{REPO}/actions/artifacts/{id}/zip"),
        "expired": expired, "created_at": created, "updated_at": created, "expires_at": "2027-02-01T00:00:00Z",
        "digest": "sha256:00",
        "workflow_run": {"id": run, "repository_id": 700001, "head_repository_id": 700001,
                         "head_branch": "main", "head_sha": head_sha}})
}

pub async fn artifacts(mock: &MockGitHub, name: &str, list: Vec<Value>) {
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/artifacts")))
        .and(query_param("name", name))
        .respond_with(ok_json(
            json!({"total_count": list.len(), "artifacts": list}),
        ))
        .mount(&mock.server)
        .await;
}

/// Main's one mi355 artifact, measured at the base commit by run 101.
pub async fn main_artifact(mock: &MockGitHub) {
    mi355_listed(mock, vec![mi355(11, 101, "2026-11-01T10:00:00Z")]).await;
}

async fn runs(mock: &MockGitHub, workflow: &str, list: Value) {
    Mock::given(method("GET"))
        .and(path(format!(
            "/repos/{REPO}/actions/workflows/{workflow}/runs"
        )))
        .and(query_param("head_sha", BASE))
        .and(query_param("status", "success"))
        .respond_with(ok_json(json!({"total_count": 1, "workflow_runs": list})))
        .mount(&mock.server)
        .await;
}

/// The base repository's id (`repo_json`'s) and a fork's.
pub const BASE_ID: u64 = 700001;
const FORK_ID: u64 = 900002;

/// A run of BASE as `GET /repos/{REPO}/actions/runs` lists it: its event
/// and the repository its code came from.
pub fn run_json(id: u64, event: &str, head_repo: u64) -> Value {
    json!({"id": id, "name": "benchmark", "path": ".github/workflows/benchmark.yml",
        "head_branch": "main", "head_sha": BASE, "event": event, "status": "completed",
        "conclusion": "success", "run_attempt": 1,
        "repository": {"id": BASE_ID, "full_name": REPO},
        "head_repository": {"id": head_repo, "full_name": if head_repo == BASE_ID { REPO } else { "jhinpan/FlyDSL-lab" }}})
}

/// The runs of BASE: `(id, event, head repository id)` each.
pub async fn base_runs(mock: &MockGitHub, list: &[(u64, &str, u64)]) {
    base_runs_at(mock, "", list).await;
}

pub async fn base_runs_at(mock: &MockGitHub, prefix: &str, list: &[(u64, &str, u64)]) {
    let runs: Vec<Value> = list.iter().map(|&(id, e, h)| run_json(id, e, h)).collect();
    Mock::given(method("GET"))
        .and(path(format!("{prefix}/repos/{REPO}/actions/runs")))
        .and(query_param("head_sha", BASE))
        .respond_with(ok_json(
            json!({"total_count": runs.len(), "workflow_runs": runs}),
        ))
        .mount(&mock.server)
        .await;
}

/// Main's own push runs, one per id.
pub async fn pushes(mock: &MockGitHub, ids: &[u64]) {
    let list: Vec<(u64, &str, u64)> = ids.iter().map(|&id| (id, "push", BASE_ID)).collect();
    base_runs(mock, &list).await;
}

/// A fork pull request into ROCm/FlyDSL whose base is BASE.
pub fn fork_pr() -> Value {
    json!({"pull_request": {"base": {"ref": "main", "sha": BASE, "repo": repo_json()},
        "head": {"ref": "x", "sha": HEAD, "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}})
}

pub fn name(runner: &str) -> String {
    format!("bench-{runner}-{BASE}")
}

/// An mi355 artifact of main (`name("mi355")`) uploaded by run `run` at
/// the base commit on `created`, not expired.
pub fn mi355(id: u64, run: u64, created: &str) -> Value {
    artifact(id, &name("mi355"), run, BASE, created, false)
}

/// The mi355 artifacts the API lists.
pub async fn mi355_listed(mock: &MockGitHub, list: Vec<Value>) {
    artifacts(mock, &name("mi355"), list).await;
}

/// resolve on the fork pull request looking up `bench-mi355-{sha}`, the
/// release tag not looked up.
pub fn looking_up_mi355(mock: &MockGitHub) -> Bin {
    online(mock, &fork_pr(), "pull_request").args([
        "--no-tag",
        "--artifact-name",
        "bench-mi355-{sha}",
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn found_in_the_base_repo_for_a_fork_pull_request_newest_wins() {
    let mock = MockGitHub::start().await;
    mi355_listed(
        &mock,
        vec![
            mi355(11, 101, "2026-11-01T10:00:00Z"),
            mi355(12, 102, "2026-11-02T10:00:00Z"),
            mi355(13, 103, "2026-10-30T10:00:00Z"),
        ],
    )
    .await;
    pushes(&mock, &[101, 102, 103]).await;
    let (run, j) = looking_up_mi355(&mock).json_async().await;
    assert_eq!(j["is_fork"], true);
    assert_eq!(j["artifact_available"], true, "{j}");
    assert_eq!(j["artifact_id"], 12, "the newest");
    assert_eq!(j["artifact_run_id"], 102);
    assert_eq!(j["artifact_event"], "push");
    assert_eq!(j["artifact_name"], name("mi355"));
    assert_eq!(
        j["artifacts"][name("mi355")],
        json!({"available": true, "id": 12, "run_id": 102, "event": "push"})
    );
    assert_eq!(j["notices"], json!([]));
    assert_eq!(run.code, 0);
    let requests = mock.requests().await;
    assert!(
        requests.iter().all(|r| r.contains("/repos/ROCm/FlyDSL/")),
        "base repo only: {requests:?}"
    );
}

/// An artifact as a run of another head repository uploads it (a fork's
/// pull request run lives in the base repository); `own_fields` false
/// leaves out the ids, as an older server does.
fn fork_artifact(id: u64, run: u64, created: &str, own_fields: bool) -> Value {
    let mut a = artifact(id, &name("mi355"), run, BASE, created, false);
    if own_fields {
        a["workflow_run"]["head_repository_id"] = json!(FORK_ID);
    } else {
        let run = a["workflow_run"].as_object_mut().unwrap();
        run.remove("repository_id");
        run.remove("head_repository_id");
    }
    a
}

/// The attack of issue 26: a fork's `pull_request` run whose head is main's
/// tip uploads `bench-…-{sha}` to the base repository, newer than main's
/// and listed first. Neither it, nor a same-repository pull request's run,
/// nor a `pull_request_target` run stands for main.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forks_run_never_supplies_mains_artifact() {
    let mock = MockGitHub::start().await;
    mi355_listed(
        &mock,
        vec![
            fork_artifact(31, 301, "2026-11-05T10:00:00Z", true),
            fork_artifact(32, 302, "2026-11-04T10:00:00Z", false),
            mi355(33, 303, "2026-11-03T10:00:00Z"),
            mi355(34, 304, "2026-11-02T10:00:00Z"),
            mi355(11, 101, "2026-11-01T10:00:00Z"),
        ],
    )
    .await;
    base_runs(
        &mock,
        &[
            (301, "pull_request", FORK_ID),
            (302, "pull_request", FORK_ID),
            (303, "pull_request", BASE_ID),
            (304, "pull_request_target", BASE_ID),
            (101, "push", BASE_ID),
        ],
    )
    .await;
    let run = looking_up_mi355(&mock).on_runner().run_async().await;
    run.assert_code(0);
    let o = run.outputs();
    assert_eq!(o["artifact-id"], "11", "main's own push run: {o:?}");
    assert_eq!(o["artifact-run-id"], "101");
    assert_eq!(o["artifact-event"], "push");
    assert!(
        run.summary
            .contains("artifact 11 of the push run 101: reused"),
        "{}",
        run.summary
    );

    let mock = MockGitHub::start().await;
    mi355_listed(
        &mock,
        vec![fork_artifact(31, 301, "2026-11-05T10:00:00Z", false)],
    )
    .await;
    base_runs(&mock, &[(301, "pull_request", FORK_ID)]).await;
    let (_, j) = looking_up_mi355(&mock).json_async().await;
    assert_eq!(j["artifact_available"], false, "{j}");
    assert_eq!(j["artifact_event"], Value::Null);
    assert!(
        j["notices"]
            .to_string()
            .contains("a pull request's or a fork's run is never reused"),
        "{j}"
    );
}

/// A runs listing that loops (`next` naming the page just read) is not a
/// listing: no artifact is reused, and a warning says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_listing_that_loops_reuses_nothing() {
    let mock = MockGitHub::start().await;
    main_artifact(&mock).await;
    let same = format!(
        "<{}/repos/{REPO}/actions/runs?head_sha={BASE}&per_page=100>; rel=\"next\"",
        mock.url()
    );
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/runs")))
        .respond_with(ok().insert_header("link", same.as_str()).set_body_json(
            json!({"total_count": 1, "workflow_runs": [run_json(101, "push", BASE_ID)]}),
        ))
        .mount(&mock.server)
        .await;
    let run = looking_up_mi355(&mock).on_runner().run_async().await;
    run.assert_code(0);
    assert_eq!(run.outputs()["artifact-available"], "false");
    assert!(run.stdout.contains("the pages loop"), "{}", run.stdout);
    let runs = mock
        .requests()
        .await
        .into_iter()
        .filter(|r| r.contains("/actions/runs"))
        .count();
    assert_eq!(runs, 1, "the loop is seen at its first repeat");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_or_other_commit_is_a_notice_and_the_baseline_runs_once() {
    let mock = MockGitHub::start().await;
    mi355_listed(
        &mock,
        vec![artifact(
            11,
            &name("mi355"),
            101,
            BASE,
            "2026-11-01T10:00:00Z",
            true,
        )],
    )
    .await;
    artifacts(
        &mock,
        &name("mi325"),
        vec![artifact(
            21,
            &name("mi325"),
            201,
            STALE,
            "2026-11-01T10:00:00Z",
            false,
        )],
    )
    .await;
    pushes(&mock, &[101, 201]).await;
    let run = online(&mock, &fork_pr(), "pull_request")
        .args([
            "--no-tag",
            "--artifact-name",
            "bench-mi355-{sha}, bench-mi325-{sha}",
        ])
        .on_runner()
        .run_async()
        .await;
    run.assert_code(0);
    let o = run.outputs();
    assert_eq!(o["artifact-available"], "false");
    assert_eq!(o["artifact-name"], name("mi355"));
    assert_eq!(o["base-available"], "true", "the baseline itself stands");
    let map: Value = serde_json::from_str(&o["artifacts"]).unwrap();
    assert_eq!(map[name("mi325")]["available"], false);
    assert!(
        run.stdout
            .contains("::notice title=Benchmark artifact::no benchmark artifact"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("all expired"));
    assert!(run.stdout.contains(&format!("none from a run of {BASE}")));
    assert!(
        !run.stdout.contains("::warning"),
        "a missing artifact is a notice, not a warning"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn artifact_workflow_keeps_only_successful_runs_of_that_workflow() {
    let mock = MockGitHub::start().await;
    mi355_listed(
        &mock,
        vec![
            mi355(11, 101, "2026-11-03T10:00:00Z"), // failed run
            mi355(12, 102, "2026-11-04T10:00:00Z"), // other workflow
            mi355(13, 103, "2026-11-01T10:00:00Z"), // the one
        ],
    )
    .await;
    runs(&mock, "benchmark.yml", json!([
        {"id": 103, "name": "benchmark", "path": ".github/workflows/benchmark.yml", "head_sha": BASE,
         "event": "push", "status": "completed", "conclusion": "success",
         "repository": {"id": BASE_ID}, "head_repository": {"id": BASE_ID}}
    ]))
    .await;
    let (_, j) = looking_up_mi355(&mock)
        .args(["--artifact-workflow", "benchmark.yml"])
        .json_async()
        .await;
    assert_eq!(j["artifact_id"], 13, "{j}");

    let mock = MockGitHub::start().await;
    mi355_listed(&mock, vec![mi355(11, 101, "2026-11-03T10:00:00Z")]).await;
    runs(&mock, "benchmark.yml", json!([])).await;
    let (_, j) = looking_up_mi355(&mock)
        .args(["--artifact-workflow", "benchmark.yml"])
        .json_async()
        .await;
    assert_eq!(j["artifact_available"], false);
    assert!(
        j["notices"]
            .to_string()
            .contains("none from a successful push, schedule, workflow_dispatch, merge_group, release run of benchmark.yml"),
        "{j}"
    );
}
