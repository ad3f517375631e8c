//! The API client and git speak HTTPS as GitHub does: every online question
//! answered over TLS on connections shared, the CA trusted through
//! `SSL_CERT_FILE` or `SSL_CERT_DIR`, and a certificate or protocol failure
//! answered at once (one warning naming the host, no retry, nothing sent
//! without TLS) instead of retried until the deadline.

use std::time::{Duration, Instant};

use openssl::ssl::SslVersion;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::resolve::online::{BASE, HEAD, REPO, STALE, TAG_COMMIT, TIP, online, repo_json};
use crate::support::git_https::GitHttps;
use crate::support::gitrepo::BareRepo;
use crate::support::harness::Bin;
use crate::support::mock_github::{MockGitHub, ok_json, pull_json};
use crate::support::tls::{Ca, Options, ca};

const ANNOTATED: &str = "abababababababababababababababababababab";

fn fork_pr() -> Value {
    json!({"pull_request": {
        "base": {"ref": "main", "sha": BASE, "repo": repo_json()},
        "head": {"ref": "feature", "sha": HEAD, "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}})
}

async fn tags(mock: &MockGitHub) {
    let tags = [
        ("v1.0.0".to_owned(), TIP.to_owned(), "commit"),
        ("v1.1.0".to_owned(), ANNOTATED.to_owned(), "tag"),
    ];
    mock.tags(REPO, &tags).await;
    mock.tag_object(REPO, ANNOTATED, "v1.1.0", TAG_COMMIT).await;
}

fn warnings(j: &Value) -> String {
    j["warnings"].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_online_question_is_answered_over_https_on_the_first_connections() {
    let mock = MockGitHub::start().await;
    tags(&mock).await;
    mock.repository(REPO, "main").await;
    mock.commit_sha(REPO, "HEAD", TIP).await;
    mock.compare(REPO, STALE, HEAD, BASE).await;
    let fork_pull = pull_json(7, REPO, BASE, Some("jhinpan/FlyDSL-lab"), HEAD);
    mock.pulls_with_head(REPO, "jhinpan:feature", json!([fork_pull]))
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/artifacts")))
        .respond_with(ok_json(json!({"total_count": 1, "artifacts": [{
            "id": 11, "name": format!("bench-{BASE}"), "expired": false,
            "created_at": "2026-11-01T00:00:00Z",
            "workflow_run": {"id": 99, "head_sha": BASE}}]})))
        .mount(&mock.server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/runs")))
        .respond_with(ok_json(json!({"total_count": 1, "workflow_runs": [{
            "id": 99, "event": "push", "head_sha": BASE, "conclusion": "success",
            "repository": {"id": 1}, "head_repository": {"id": 1}}]})))
        .mount(&mock.server)
        .await;

    let schedule = json!({"schedule": "0 3 * * *"});
    let forced = json!({"ref": "refs/heads/main", "before": STALE, "after": HEAD, "forced": true,
        "repository": repo_json()});
    let fork_run = json!({"workflow_run": {"event": "pull_request", "head_sha": HEAD,
        "head_branch": "feature", "pull_requests": [],
        "repository": {"id": 1, "full_name": REPO},
        "head_repository": {"id": 2, "full_name": "jhinpan/FlyDSL-lab"}}});
    let cases = [
        (
            "default branch (repository + commits/HEAD), tags, peel, artifacts",
            schedule,
            "schedule",
        ),
        ("compare (forced push), tags, peel", forced, "push"),
        (
            "pulls (fork workflow_run), tags, peel",
            fork_run,
            "workflow_run",
        ),
        ("tags, peel, artifacts", fork_pr(), "pull_request"),
    ];
    let (mut connections, mut asked) = (0, 0);
    for (what, payload, event) in &cases {
        let (_, j) = online(&mock, payload, event)
            .env("GITHUB_REPOSITORY", REPO)
            .env("INPUT_ARTIFACT_NAME", "bench-{sha}")
            .json_async()
            .await;
        assert_eq!(warnings(&j), "[]", "{what}: {j}");
        assert_eq!(j["base_available"], true, "{what}");
        assert_eq!(j["tag"], "v1.1.0", "{what}");
        assert_eq!(j["tag_sha"], TAG_COMMIT, "{what}");
        // The first requests each open a connection (at most 8, issue 46);
        // every later one goes over a connection already open.
        let opened = mock.front.connections() - connections;
        let requests = mock.requests().await.len() - asked;
        (connections, asked) = (connections + opened, asked + requests);
        assert!(
            (1..=8).contains(&opened) && opened < requests,
            "{what}: {opened} connections for {requests} requests"
        );
    }
    let requests = mock.requests().await;
    assert!(requests.len() >= 14, "{requests:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_reaches_the_api_over_https() {
    let mock = MockGitHub::start().await;
    Mock::given(method("GET"))
        .and(header("authorization", "Bearer ghs_overtls"))
        .respond_with(ok_json(json!([])))
        .mount(&mock.server)
        .await;
    let (_, j) = online(&mock, &fork_pr(), "pull_request")
        .env("INPUT_TOKEN", "ghs_overtls")
        .json_async()
        .await;
    assert!(
        warnings(&j).contains("no release tag of ROCm/FlyDSL matches"),
        "the listing was answered (empty): {j}"
    );
}

/// Runs the fork pull request (one tag request) against a mock behind a
/// front of the given shape; returns the JSON answer, the time taken and
/// the connections the front saw.
async fn refused_by(options: Options<'_>) -> (Value, Duration, usize, usize) {
    let mock = MockGitHub::start_with(options).await;
    tags(&mock).await;
    let started = Instant::now();
    let (_, j) = online(&mock, &fork_pr(), "pull_request")
        .env("INPUT_TIMEOUT", "30")
        .json_async()
        .await;
    let took = started.elapsed();
    let requests = mock.requests().await.len();
    (j, took, mock.front.connections(), requests)
}

fn assert_one_final_warning(j: &Value, took: Duration, connections: usize, requests: usize) {
    let list = j["warnings"].as_array().unwrap();
    assert_eq!(list.len(), 1, "one warning: {j}");
    assert_eq!(j["base_available"], true, "the payload's answer stands");
    assert_eq!(j["tag_available"], false);
    assert!(
        list[0].as_str().unwrap().len() < 400,
        "a warning is short: {j}"
    );
    assert_eq!(connections, 1, "no retry, with TLS or without");
    assert_eq!(requests, 0, "no HTTP request reached the server");
    assert!(took < Duration::from_secs(5), "answered at once: {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_certificate_is_one_warning_and_no_retry() {
    let stranger = Ca::new("a CA nobody trusts");
    let names = ["127.0.0.1", "localhost"];
    let (j, took, connections, requests) = refused_by(Options::signed_by(&stranger, &names)).await;
    assert_one_final_warning(&j, took, connections, requests);
    let w = warnings(&j);
    assert!(w.contains("https://127.0.0.1:"), "names the host: {w}");
    assert!(w.contains("certificate not trusted"), "{w}");
    assert!(w.contains("unable to get local issuer certificate"), "{w}");
    assert!(w.contains("SSL_CERT_FILE"), "says how to trust a CA: {w}");
    assert!(!j["trace"].to_string().contains("git ls-remote"), "{j}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_for_another_host_is_refused() {
    let names = ["api.example.invalid"];
    let (j, took, connections, requests) = refused_by(Options::signed_by(ca(), &names)).await;
    assert_one_final_warning(&j, took, connections, requests);
    let w = warnings(&j);
    assert!(
        w.contains("certificate not trusted (IP address mismatch)"),
        "{w}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_older_than_1_2_is_refused() {
    let options = Options {
        max_version: Some(SslVersion::TLS1_1),
        ..Options::github()
    };
    let (j, took, connections, requests) = refused_by(options).await;
    assert_one_final_warning(&j, took, connections, requests);
    let w = warnings(&j);
    assert!(w.contains("TLS handshake failed"), "{w}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_http_server_at_an_https_url_is_named() {
    let mock = MockGitHub::start().await;
    let plain = mock.server.uri().replace("http://", "https://");
    let (_, j) = Bin::new()
        .payload(&fork_pr().to_string(), "pull_request")
        .api(&plain)
        .env("GITHUB_SERVER_URL", "git://127.0.0.1:1")
        .json_async()
        .await;
    let w = warnings(&j);
    assert!(w.contains("TLS handshake failed"), "{w}");
    assert_eq!(mock.requests().await.len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssl_cert_dir_is_trusted_by_the_api_and_by_git() {
    let repo = BareRepo::new(REPO, &[("v2.0.0".to_owned(), true)], 0);
    let git = GitHttps::start(repo.root.path()).await;
    let api_ok = MockGitHub::start().await;
    tags(&api_ok).await;
    let api_down = MockGitHub::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(503))
        .mount(&api_down.server)
        .await;
    let dir = ca().hashed_dir();
    for (mock, tag) in [(&api_ok, "v1.1.0"), (&api_down, "v2.0.0")] {
        let (_, j) = Bin::new()
            .payload(&fork_pr().to_string(), "pull_request")
            .api(&mock.url())
            .env("GITHUB_SERVER_URL", git.url())
            .env_remove("SSL_CERT_FILE")
            .env("SSL_CERT_DIR", dir.path())
            .args(["--timeout", "20"])
            .json_async()
            .await;
        assert_eq!(j["tag"], tag, "{j}");
    }
    assert_eq!(git.requests().len(), 1, "git answered the second run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn git_over_https_refuses_an_untrusted_certificate() {
    let repo = BareRepo::new(REPO, &[("v2.0.0".to_owned(), true)], 0);
    let stranger = Ca::new("a CA nobody trusts");
    let names = ["127.0.0.1"];
    let git = GitHttps::start_with(repo.root.path(), Options::signed_by(&stranger, &names)).await;
    let mock = MockGitHub::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(503))
        .mount(&mock.server)
        .await;
    let (_, j) = Bin::new()
        .payload(&fork_pr().to_string(), "pull_request")
        .api(&mock.url())
        .env("GITHUB_SERVER_URL", git.url())
        .args(["--timeout", "20"])
        .json_async()
        .await;
    let w = warnings(&j);
    assert_eq!(j["tag_available"], false);
    assert!(w.contains("certificate"), "{w}");
    assert!(git.requests().is_empty(), "nothing was sent without TLS");
    assert_eq!(git.front.connections(), 1, "one attempt");
}
