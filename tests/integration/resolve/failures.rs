//! Failure modes of the API: each degrades to "unavailable" with a warning
//! (exit 0, or 3 with --strict), within the deadline, never a hang or a panic.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::resolve::online::{REPO, TIP, online, repo_json};
use crate::support::harness::Bin;
use crate::support::mock_github::{MockGitHub, error, ok, sequence};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

fn dispatch_payload() -> serde_json::Value {
    json!({"repository": repo_json()})
}

/// resolve on a `workflow_dispatch` of REPO against `mock`, the release
/// tag not looked up: main's tip is the one question asked.
fn dispatch(mock: &MockGitHub) -> Bin {
    online(mock, &dispatch_payload(), "workflow_dispatch").arg("--no-tag")
}

/// A mock API whose answer to main's tip is `responder`.
async fn answering(responder: impl wiremock::Respond + 'static) -> MockGitHub {
    let mock = MockGitHub::start().await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/commits/main")))
        .respond_with(responder)
        .mount(&mock.server)
        .await;
    mock
}

/// A 403 rate-limit answer: `remaining` requests left in the hour, the
/// hourly quota resetting `reset_in` seconds from now.
fn rate_limited(message: &str, remaining: &str, reset_in: u64) -> ResponseTemplate {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    error(403, message)
        .insert_header("x-ratelimit-remaining", remaining)
        .insert_header("x-ratelimit-reset", (now + reset_in).to_string())
}

fn warnings(j: &serde_json::Value) -> String {
    j["warnings"].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_error_then_success_is_retried() {
    let mock = answering(sequence(
        2,
        error(502, "Server Error"),
        ok().set_body_string(TIP),
    ))
    .await;
    let (_, j) = dispatch(&mock).json_async().await;
    assert_eq!(j["base_sha"], TIP);
    assert_eq!(mock.requests().await.len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_past_the_retries_are_a_warning() {
    let mock = answering(error(500, "Server Error")).await;
    let (_, j) = dispatch(&mock).json_async().await;
    assert_eq!(j["base_available"], false);
    assert!(warnings(&j).contains("answered HTTP 500 4 times"), "{j}");
    assert_eq!(mock.requests().await.len(), 4, "1 attempt + 3 retries");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_requests_honours_retry_after() {
    let limited =
        error(429, "You have exceeded a secondary rate limit").insert_header("retry-after", "1");
    let mock = answering(sequence(1, limited, ok().set_body_string(TIP))).await;
    let started = Instant::now();
    let (_, j) = dispatch(&mock).json_async().await;
    assert_eq!(j["base_sha"], TIP);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited Retry-After"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn primary_rate_limit_waits_for_the_reset_when_it_fits() {
    let limited = rate_limited("API rate limit exceeded for installation ID 1.", "0", 1);
    let mock = answering(sequence(1, limited, ok().set_body_string(TIP))).await;
    let (_, j) = dispatch(&mock).json_async().await;
    assert_eq!(j["base_sha"], TIP, "{j}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_resetting_after_the_deadline_gives_up_at_once() {
    let limited = rate_limited("API rate limit exceeded", "0", 3600);
    let mock = answering(limited).await;
    let started = Instant::now();
    let (_, j) = dispatch(&mock).json_async().await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(j["base_available"], false);
    assert!(warnings(&j).contains("rate limit (HTTP 403)"), "{j}");
}

/// A secondary limit (requests remain) names no reset to wait for: the
/// reset header is the hourly quota's, not this limit's. Without
/// Retry-After the wait is at least a minute, which a 10 s deadline cannot
/// hold: one attempt, and a warning that says "secondary rate limit".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secondary_rate_limit_without_retry_after_gives_up_at_once_and_says_so() {
    let limited = rate_limited("You have exceeded a secondary rate limit.", "4000", 1);
    let mock = answering(sequence(1, limited, ok().set_body_string(TIP))).await;
    let started = Instant::now();
    let (_, j) = dispatch(&mock).json_async().await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(j["base_available"], false, "the reset was not taken: {j}");
    assert!(
        warnings(&j).contains("secondary rate limit (HTTP 403); it lifts in 60s"),
        "{j}"
    );
    assert_eq!(mock.requests().await.len(), 1);
}

/// Times from the server are clamped: a `Retry-After` or reset at the end
/// of time is a give-up, not an overflow that aborts the process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_at_the_end_of_time_are_a_warning_not_a_crash() {
    for (status, headers) in [
        (429, vec![("retry-after", "18446744073709551615")]),
        (
            403,
            vec![
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "18446744073709551615"),
            ],
        ),
    ] {
        let mut limited = error(status, "API rate limit exceeded");
        for (name, value) in &headers {
            limited = limited.insert_header(*name, *value);
        }
        let mock = answering(limited).await;
        let run = dispatch(&mock).on_runner().run_async().await;
        run.assert_code(0);
        assert!(
            run.stdout.contains("it lifts in 3600s"),
            "{headers:?}: {}",
            run.stdout
        );
        assert_eq!(run.outputs()["base-available"], "false");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unauthorized_says_the_token_was_refused() {
    let mock = answering(error(401, "Bad credentials")).await;
    let (_, j) = dispatch(&mock)
        .env("INPUT_TOKEN", "ghs_expired")
        .json_async()
        .await;
    let w = warnings(&j);
    assert!(
        w.contains("the token was refused (HTTP 401: Bad credentials)"),
        "{w}"
    );
    assert!(w.contains("expired or wrong, or none was passed"), "{w}");
    assert!(!w.contains("permissions:"), "not a permission problem: {w}");
    assert_eq!(mock.requests().await.len(), 1, "no retry of 401");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forbidden_names_the_permission() {
    for (status, message) in [(403, "Resource not accessible by integration")] {
        let mock = answering(error(status, message)).await;
        let run = dispatch(&mock).on_runner().run_async().await;
        run.assert_code(0);
        assert!(
            run.stdout
                .contains("::warning title=Benchmark baseline unavailable::"),
            "{}",
            run.stdout
        );
        assert!(
            run.stdout.contains("permissions: contents: read"),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains(message));
        assert_eq!(mock.requests().await.len(), 1, "no retry of {status}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_found_names_the_repo_and_what_was_asked() {
    let mock = MockGitHub::start().await;
    let payload = json!({"ref": "refs/heads/main", "before": TIP, "after": crate::resolve::online::HEAD, "forced": true, "repository": repo_json()});
    let run = online(&mock, &payload, "push")
        .args(["--no-tag", "--strict"])
        .on_runner()
        .run_async()
        .await;
    run.assert_code(3);
    let text = &run.stdout;
    assert!(
        text.contains("not found (HTTP 404) in ROCm/FlyDSL"),
        "{text}"
    );
    assert!(text.contains(TIP), "names the SHA: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_ends_at_the_deadline() {
    let mock = answering(ResponseTemplate::new(200).set_delay(Duration::from_secs(30))).await;
    let started = Instant::now();
    let (_, j) = dispatch(&mock).args(["--timeout", "2"]).json_async().await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert_eq!(j["base_available"], false);
    assert!(
        warnings(&j).contains("no answer within the 2s deadline"),
        "{j}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tag_answer_that_is_not_json_is_a_warning_and_the_baseline_stands() {
    let mock = MockGitHub::start().await;
    mock.commit_sha(REPO, "main", TIP).await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/git/matching-refs/tags/v")))
        .respond_with(ok().set_body_string("[{\"ref\": \"refs/tags/v1\", \"obj"))
        .mount(&mock.server)
        .await;
    let (_, j) = online(&mock, &dispatch_payload(), "workflow_dispatch")
        .arg("--tag-pattern=v*")
        .json_async()
        .await;
    assert_eq!(
        j["base_sha"], TIP,
        "the baseline survives a broken tag answer"
    );
    assert_eq!(j["tag_available"], false);
    assert!(warnings(&j).contains("invalid JSON"), "{j}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sha_the_server_did_not_give_is_never_reported() {
    let mock = answering(ok().set_body_string("main")).await;
    let (_, j) = dispatch(&mock).json_async().await;
    assert!(j["base_sha"].is_null());
    assert!(warnings(&j).contains("not a full commit SHA"), "{j}");
}
