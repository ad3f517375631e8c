//! Self-hosted GPU runners often sit behind a proxy: requests to the API go
//! through `HTTP_PROXY`/`HTTPS_PROXY` unless `NO_PROXY` exempts the host.
//! A minimal forwarding HTTP proxy on 127.0.0.1 records what passes through.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::mock_github::MockGitHub;
use crate::online::{REPO, TIP, online, repo_json};

/// Forwards absolute-form HTTP requests (`GET http://host:port/path`) to
/// their origin and records each request line. Stops with the test runtime.
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
                let mut lines = text.split("\r\n");
                let request_line = lines.next().unwrap_or_default().to_owned();
                log.lock().unwrap().push(request_line.clone());
                let mut parts = request_line.split(' ');
                let (method, target) = (parts.next().unwrap_or("GET"), parts.next().unwrap_or("/"));
                let Some(rest) = target.strip_prefix("http://") else {
                    return;
                };
                let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                let Ok(mut upstream) = TcpStream::connect(authority).await else {
                    return;
                };
                let mut forwarded = format!("{method} {path} HTTP/1.1\r\n");
                for line in lines.filter(|l| !l.is_empty()) {
                    let lower = line.to_ascii_lowercase();
                    if !lower.starts_with("connection:") && !lower.starts_with("proxy-") {
                        forwarded.push_str(line);
                        forwarded.push_str("\r\n");
                    }
                }
                forwarded.push_str("Connection: close\r\n\r\n");
                if upstream.write_all(forwarded.as_bytes()).await.is_err() {
                    return;
                }
                let mut response = Vec::new();
                let _ = upstream.read_to_end(&mut response).await;
                let _ = client.write_all(&response).await;
                let _ = client.shutdown().await;
            });
        }
    });
    (url, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_requests_go_through_the_proxy_unless_no_proxy_says_otherwise() {
    let mock = MockGitHub::start().await;
    mock.commit_sha(REPO, "main", TIP).await;
    let (proxy, seen) = start_proxy().await;
    let payload = json!({"repository": repo_json()});

    for var in ["HTTP_PROXY", "http_proxy"] {
        seen.lock().unwrap().clear();
        let (_, j) = online(&mock, &payload, "workflow_dispatch")
            .arg("--no-tag")
            .env(var, &proxy)
            .json_async()
            .await;
        assert_eq!(j["base_sha"], TIP, "{var}: {j}");
        let lines = seen.lock().unwrap().clone();
        assert_eq!(lines.len(), 1, "{var}: {lines:?}");
        assert!(
            lines[0].starts_with(&format!("GET {}/repos/{REPO}/commits/main", mock.url())),
            "{lines:?}"
        );
    }

    seen.lock().unwrap().clear();
    let (_, j) = online(&mock, &payload, "workflow_dispatch")
        .arg("--no-tag")
        .env("HTTP_PROXY", &proxy)
        .env("NO_PROXY", "127.0.0.1")
        .json_async()
        .await;
    assert_eq!(j["base_sha"], TIP);
    assert!(
        seen.lock().unwrap().is_empty(),
        "NO_PROXY bypasses the proxy"
    );
}
