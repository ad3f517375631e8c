//! Self-hosted GPU runners often sit behind a proxy: requests to the API go
//! through `HTTPS_PROXY` (a CONNECT tunnel, TLS end to end) unless
//! `NO_PROXY` exempts the host. A minimal proxy on 127.0.0.1 records the
//! request line of every connection it is asked for.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::resolve::online::{REPO, TIP, online, repo_json};
use crate::support::git_https::GitHttps;
use crate::support::gitrepo::BareRepo;
use crate::support::mock_github::{MockGitHub, error};

/// Tunnels `CONNECT host:port` to its target and records each request
/// head. Stops with the test runtime.
async fn start_proxy() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if client.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let text = String::from_utf8_lossy(&head).into_owned();
                log.lock().unwrap().push(text.clone());
                let request_line = text.lines().next().unwrap_or_default();
                let Some(authority) = request_line
                    .strip_prefix("CONNECT ")
                    .and_then(|rest| rest.split(' ').next())
                else {
                    let _ = client
                        .write_all(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
                        .await;
                    return;
                };
                let Ok(mut upstream) = TcpStream::connect(authority).await else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                    return;
                };
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await
                    .is_ok()
                {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                }
            });
        }
    });
    (url, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_requests_tunnel_through_the_proxy_unless_no_proxy_says_otherwise() {
    let mock = MockGitHub::start().await;
    mock.commit_sha(REPO, "main", TIP).await;
    let (proxy, seen) = start_proxy().await;
    let payload = json!({"repository": repo_json()});
    let authority = mock.url().trim_start_matches("https://").to_owned();

    for var in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"] {
        seen.lock().unwrap().clear();
        let (_, j) = online(&mock, &payload, "workflow_dispatch")
            .arg("--no-tag")
            .env("INPUT_TOKEN", "ghs_tunnelled")
            .env(var, &proxy)
            .json_async()
            .await;
        assert_eq!(j["base_sha"], TIP, "{var}: {j}");
        let heads = seen.lock().unwrap().clone();
        assert_eq!(heads.len(), 1, "one tunnel for the run ({var}): {heads:?}");
        assert!(
            heads[0].starts_with(&format!("CONNECT {authority} HTTP/1.1")),
            "{heads:?}"
        );
        assert!(
            !heads[0].contains("ghs_tunnelled"),
            "the token travels inside TLS, never to the proxy"
        );
    }

    // HTTP_PROXY is for http:// URLs, as in curl: an https API does not use it.
    for (var, value) in [("HTTP_PROXY", proxy.as_str()), ("NO_PROXY", "127.0.0.1")] {
        seen.lock().unwrap().clear();
        let mut resolver = online(&mock, &payload, "workflow_dispatch").arg("--no-tag");
        resolver = match var {
            "NO_PROXY" => resolver.env("HTTPS_PROXY", &proxy).env(var, value),
            _ => resolver.env(var, value),
        };
        let (_, j) = resolver.json_async().await;
        assert_eq!(j["base_sha"], TIP, "{var}");
        assert!(
            seen.lock().unwrap().is_empty(),
            "{var}={value}: the proxy is not used"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn git_over_https_tunnels_through_the_proxy_too() {
    let repo = BareRepo::new(REPO, &[("v1.0.0".to_owned(), false)], 0);
    let git = GitHttps::start(repo.root.path()).await;
    let mock = MockGitHub::start().await;
    wiremock::Mock::given(wiremock::matchers::any())
        .respond_with(error(503, "Service Unavailable"))
        .mount(&mock.server)
        .await;
    let (proxy, seen) = start_proxy().await;
    let payload = json!({"repository": repo_json()});
    let (_, j) = online(&mock, &payload, "workflow_dispatch")
        .env("GITHUB_SERVER_URL", git.url())
        .env("HTTPS_PROXY", &proxy)
        .json_async()
        .await;
    assert_eq!(j["tag"], "v1.0.0", "git answered: {j}");
    let git_authority = git.url().trim_start_matches("https://").to_owned();
    let heads = seen.lock().unwrap().clone();
    assert!(
        heads
            .iter()
            .any(|h| h.starts_with(&format!("CONNECT {git_authority} "))),
        "git went through the proxy: {heads:?}"
    );
}

/// A proxy setting that cannot be parsed once sent every request direct,
/// past the proxy, without a word. Now it is a usage error that names the
/// variable, credentials hidden, before any request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_proxy_is_an_error_naming_the_variable() {
    let mock = MockGitHub::start().await;
    mock.commit_sha(REPO, "main", TIP).await;
    let payload = json!({"repository": repo_json()});
    for (var, value) in [
        ("HTTPS_PROXY", "http://user:s3cret@[proxy.corp"),
        ("https_proxy", "http:// proxy.corp:3128"),
        ("ALL_PROXY", "ftp://proxy.corp"),
    ] {
        let run = online(&mock, &payload, "workflow_dispatch")
            .arg("--no-tag")
            .env(var, value)
            .run_async()
            .await;
        run.assert_code(2);
        assert!(
            run.stderr.contains(&format!("{var}: not a proxy URL")),
            "{var}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("s3cret"), "{}", run.stderr);
    }
    assert!(
        mock.requests().await.is_empty(),
        "nothing was sent, direct or otherwise"
    );
}
