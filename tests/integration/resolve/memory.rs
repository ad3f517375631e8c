//! Memory stays bounded whatever a server sends: an endless chunked answer
//! is cut while it streams, and pages that are each under the per-answer
//! limit still cannot add up past the run's total. Peak RSS is measured by
//! GNU time around the whole process.

use std::process::Command;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::resolve::online::REPO;
use crate::support::harness::repo_root;
use crate::support::tls::{Front, Options, ca_file};

const TIME: &str = "/usr/bin/time";

/// One tag ref as `matching-refs` lists it, about 230 bytes.
fn tag_ref(i: usize) -> String {
    format!(
        r#"{{"ref":"refs/tags/v0.{i}.0","node_id":"REF_kwDOABCDEF","url":"https://api.github.com/repos/{REPO}/git/refs/tags/v0.{i}.0","object":{{"sha":"{i:040x}","type":"commit","url":"https://api.github.com/x"}}}}"#
    )
}

/// What the raw server sends for every request.
#[derive(Clone, Copy)]
enum Answer {
    /// `200`, chunked, a JSON array that never ends.
    Endless,
    /// `200` pages of about `megabytes` MB of valid tags, each with a
    /// `Link` to the next.
    Pages { megabytes: usize },
}

async fn serve(mut socket: TcpStream, answer: Answer, base: String) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let page: usize = String::from_utf8_lossy(&head)
        .split(' ')
        .nth(1)
        .and_then(|target| target.split("page=").nth(1))
        .and_then(|p| p.split(['&', ' ']).next())
        .and_then(|p| p.parse().ok())
        .unwrap_or(1);
    let link = format!(
        "link: <{base}/repos/{REPO}/git/matching-refs/tags/v?page={}>; rel=\"next\"\r\n",
        page + 1
    );
    let header = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nx-ratelimit-remaining: 4999\r\n{link}\r\n"
    );
    if socket.write_all(header.as_bytes()).await.is_err() {
        return;
    }
    let block: String = (0..4000)
        .map(|i| format!("{},", tag_ref(i)))
        .collect::<String>();
    let chunk = |data: &str| format!("{:x}\r\n{data}\r\n", data.len());
    if socket.write_all(chunk("[").as_bytes()).await.is_err() {
        return;
    }
    let blocks = match answer {
        Answer::Endless => usize::MAX,
        Answer::Pages { megabytes } => megabytes * 1_000_000 / block.len(),
    };
    let body = chunk(&block);
    for _ in 0..blocks {
        if socket.write_all(body.as_bytes()).await.is_err() {
            return;
        }
    }
    let last = format!("{}0\r\n\r\n", chunk(&format!("{}]", tag_ref(999_999))));
    let _ = socket.write_all(last.as_bytes()).await;
}

/// Starts the raw server behind TLS and runs the fork pull request (tag
/// lookup on) under GNU time; returns the JSON answer and the peak RSS in MB.
async fn run_against(answer: Answer) -> (serde_json::Value, f64) {
    assert!(
        std::path::Path::new(TIME).exists(),
        "needs {TIME} (GNU time) to measure peak RSS"
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front = Front::start(listener.local_addr().unwrap(), Options::http1()).await;
    let base = front.url();
    let server_base = base.clone();
    let server = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(serve(socket, answer, server_base.clone()));
        }
    });
    let event = repo_root().join("examples/events/fork-pull-request.json");
    let out = tokio::task::spawn_blocking(move || {
        Command::new(TIME)
            .args(["-f", "%M"])
            .arg(env!("CARGO_BIN_EXE_baseline-resolver"))
            .arg("--event")
            .arg(event)
            .args([
                "--event-name",
                "pull_request",
                "--format",
                "json",
                "--timeout",
                "60",
            ])
            .env_clear()
            .env("GITHUB_API_URL", &base)
            .env("GITHUB_SERVER_URL", "git://127.0.0.1:1")
            .env("SSL_CERT_FILE", ca_file())
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    server.abort();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kb: f64 = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("GNU time's output: {stderr}"));
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (json, kb / 1024.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs GNU time, /usr/bin/time (.ci/run installs it)"]
async fn an_endless_answer_is_cut_while_it_streams() {
    let started = std::time::Instant::now();
    let (j, peak) = run_against(Answer::Endless).await;
    let w = j["warnings"].to_string();
    assert!(w.contains("the answer is larger than 32 MiB"), "{w}");
    assert_eq!(j["base_available"], true, "the payload's answer stands");
    assert!(peak < 100.0, "peak RSS {peak:.1} MB");
    assert!(started.elapsed() < Duration::from_secs(60));
    println!("endless answer: peak RSS {peak:.1} MB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs GNU time, /usr/bin/time (.ci/run installs it)"]
async fn pages_under_the_limit_cannot_add_up_past_the_run_total() {
    let (j, peak) = run_against(Answer::Pages { megabytes: 29 }).await;
    let w = j["warnings"].to_string();
    assert!(
        w.contains("the answers of this run are larger than 48 MiB together"),
        "{w}"
    );
    assert!(peak < 100.0, "peak RSS {peak:.1} MB");
    println!("29 MB pages: peak RSS {peak:.1} MB");
}

/// Peak RSS in MB of `baseline-resolver ARGS` under GNU time, and its
/// exit code.
fn peak_of(args: &[&std::ffi::OsStr]) -> (f64, i32) {
    assert!(
        std::path::Path::new(TIME).exists(),
        "needs {TIME} (GNU time) to measure peak RSS"
    );
    let out = Command::new(TIME)
        .args(["-f", "%M"])
        .arg(env!("CARGO_BIN_EXE_baseline-resolver"))
        .args(args)
        .env_clear()
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kb: f64 = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("GNU time's output: {stderr}"));
    (kb / 1024.0, out.status.code().unwrap_or(-1))
}

/// Issue 26: a fork-written report of 24 MB of empty rows took 1.25 GB
/// (about 52 bytes of memory per byte of report) in a job that holds a
/// write token. Rows are streamed and only what the body can show is
/// kept: the peak is a few megabytes whatever the report's size.
#[test]
#[ignore = "needs GNU time, /usr/bin/time (.ci/run installs it)"]
fn comment_keeps_what_the_body_shows_not_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty-rows.json");
    let rows = "{},".repeat(8_000_000);
    std::fs::write(
        &empty,
        format!(
            r#"{{"verdict":"pass","baselines":[{{"label":"main","gate":true,"available":true,"rows":[{rows}{{}}]}}]}}"#
        ),
    )
    .unwrap();
    let size = std::fs::metadata(&empty).unwrap().len() as f64 / 1e6;
    let (peak, code) = peak_of(&[
        "comment".as_ref(),
        "--dry-run".as_ref(),
        "--report".as_ref(),
        empty.as_os_str(),
    ]);
    assert_eq!(code, 0);
    assert!(
        peak < 40.0,
        "{size:.0} MB of empty rows: peak RSS {peak:.1} MB"
    );
    println!("comment, {size:.0} MB of empty rows: peak RSS {peak:.1} MB");
    let over = dir.path().join("over.json");
    let file = std::fs::File::create(&over).unwrap();
    file.set_len(64 * 1024 * 1024 + 1).unwrap();
    let (_, code) = peak_of(&[
        "comment".as_ref(),
        "--dry-run".as_ref(),
        "--report".as_ref(),
        over.as_os_str(),
    ]);
    assert_eq!(code, 1, "a report over 64 MiB is refused");
}
