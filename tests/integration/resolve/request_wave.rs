//! The requests a resolution knows at its start (the tag listing, the
//! artifact lookups, the runs of the base SHA) go at once, each opening a
//! connection. Which protocol the server speaks is known only at the end
//! of the first TLS handshake; a server that speaks only HTTP/1.1 needs a
//! connection per request, and one opened only after that handshake costs
//! two round trips more (issue 46: 5.78 round trips where 4.5 was the goal).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use wiremock::Mock;
use wiremock::matchers::{method, path};

use crate::resolve::online::{BASE, HEAD, REPO, TIP, online, repo_json};
use crate::support::mock_github::{MockGitHub, ok};
use crate::support::tls::Options;

/// A TCP hop in front of the API that forwards no byte of any connection
/// until `expected` connections are open at once, or `patience` has gone:
/// it tells whether the client opened them together, without timing it.
struct Hold {
    port: u16,
    /// The connections open when the first one was let through.
    seen_together: Arc<AtomicUsize>,
}

impl Hold {
    async fn start(upstream: u16, expected: usize, patience: Duration) -> Hold {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (open, seen_together) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (told, _) = tokio::sync::watch::channel(0usize);
        let seen = seen_together.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let count = open.fetch_add(1, Ordering::SeqCst) + 1;
                told.send_replace(count);
                let (mut waiting, seen) = (told.subscribe(), seen.clone());
                tokio::spawn(async move {
                    let _ =
                        tokio::time::timeout(patience, waiting.wait_for(|n| *n >= expected)).await;
                    let _ = seen.compare_exchange(
                        0,
                        *waiting.borrow(),
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    );
                    forward(client, upstream).await;
                });
            }
        });
        Hold {
            port,
            seen_together,
        }
    }

    fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }
}

async fn forward(mut client: TcpStream, upstream: u16) {
    if let Ok(mut server) = TcpStream::connect(("127.0.0.1", upstream)).await {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
    }
}

/// A fork pull request with a tag lookup and one `{sha}` artifact lookup
/// asks three questions at its start; against a server that speaks only
/// HTTP/1.1 and closes every connection, it opens three connections
/// together, and the resolution is whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http1_the_first_requests_open_their_connections_together() {
    let mock = MockGitHub::start_with(Options::http1()).await;
    let close = |body: serde_json::Value| {
        ok().set_body_json(body)
            .insert_header("connection", "close")
    };
    let answers = [
        (
            format!("/repos/{REPO}/git/matching-refs/tags/v"),
            json!([{"ref": "refs/tags/v1.0.0", "object": {"sha": TIP, "type": "commit"}}]),
        ),
        (
            format!("/repos/{REPO}/actions/artifacts"),
            json!({"total_count": 1, "artifacts": [{"id": 9, "name": format!("bench-{BASE}"),
                "expired": false, "created_at": "2026-11-01T00:00:00Z",
                "workflow_run": {"id": 90, "head_sha": BASE}}]}),
        ),
        (
            format!("/repos/{REPO}/actions/runs"),
            json!({"total_count": 1, "workflow_runs": [{"id": 90, "event": "push",
                "head_sha": BASE, "conclusion": "success",
                "repository": {"id": 1}, "head_repository": {"id": 1}}]}),
        ),
    ];
    for (at, body) in answers {
        Mock::given(method("GET"))
            .and(path(at))
            .respond_with(close(body))
            .mount(&mock.server)
            .await;
    }
    let hold = Hold::start(mock.front.port, 3, Duration::from_secs(5)).await;
    let payload = json!({"pull_request": {
        "base": {"ref": "main", "sha": BASE, "repo": repo_json()},
        "head": {"ref": "feature", "sha": HEAD, "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}});
    let (_, j) = online(&mock, &payload, "pull_request")
        .api(&hold.url())
        .env("INPUT_ARTIFACT_NAME", "bench-{sha}")
        .json_async()
        .await;
    assert_eq!(j["warnings"], json!([]), "{j}");
    assert_eq!(
        (j["tag"].as_str(), j["tag_sha"].as_str()),
        (Some("v1.0.0"), Some(TIP))
    );
    assert_eq!(
        (j["artifact_available"].as_bool(), j["artifact_id"].as_u64()),
        (Some(true), Some(9)),
        "{j}"
    );
    assert_eq!(
        hold.seen_together.load(Ordering::SeqCst),
        3,
        "the tag listing, the artifact list and the runs of the base SHA each \
         opened a connection at the start, none waiting for another's handshake"
    );
}

/// The bound SECURITY.md states: however many questions a resolution asks
/// at its start (here the tag listing, the runs of the base SHA and ten
/// artifact names), at most 8 connections are opened before one is open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_8_connections_open_before_the_first_is_open() {
    let mock = MockGitHub::start_with(Options::http1()).await;
    Mock::given(method("GET"))
        .respond_with(ok().set_body_json(json!([])))
        .mount(&mock.server)
        .await;
    let hold = Hold::start(mock.front.port, 12, Duration::from_secs(3)).await;
    let names: Vec<String> = (0..10).map(|i| format!("bench-{i}-{{sha}}")).collect();
    let payload = json!({"pull_request": {
        "base": {"ref": "main", "sha": BASE, "repo": repo_json()},
        "head": {"ref": "feature", "sha": HEAD, "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}});
    let _ = online(&mock, &payload, "pull_request")
        .api(&hold.url())
        .env("INPUT_ARTIFACT_NAME", names.join(","))
        .json_async()
        .await;
    assert_eq!(hold.seen_together.load(Ordering::SeqCst), 8);
}
