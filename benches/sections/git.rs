//! Section 3: the git fallback (`ls-remote`) against a real `git daemon`
//! and smart HTTP, counted round trips through a relay.

use std::fmt::Write as _;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::{REPO, median, ms, support};

/// A TCP relay on 127.0.0.1 that counts the bytes the server sends.
async fn counting_relay(target: u16) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let c = c.clone();
            tokio::spawn(async move {
                let Ok(mut server) = TcpStream::connect(("127.0.0.1", target)).await else {
                    return;
                };
                let (mut cr, mut cw) = client.split();
                let (mut sr, mut sw) = server.split();
                let up = async {
                    let _ = tokio::io::copy(&mut cr, &mut sw).await;
                    let _ = sw.shutdown().await;
                };
                let down = async {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        match sr.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                c.fetch_add(n, Ordering::Relaxed);
                                if cw.write_all(&buf[..n]).await.is_err() {
                                    break;
                                }
                            }
                        }
                    }
                    let _ = cw.shutdown().await;
                };
                tokio::join!(up, down);
            });
        }
    });
    (port, count)
}

/// Section 3: the git fallback, git2's ls-remote against the git command
/// line's protocol-v2 `ls-remote --tags`, 10,000 tags and 20,000 refs/pull/*.
pub async fn git(report: &mut String) {
    let tags: Vec<(String, bool)> = (0..10_000)
        .map(|i| (format!("v0.{}.{}", i / 100, i % 100), i % 2 == 1))
        .collect();
    let built = Instant::now();
    let repo = support::gitrepo::BareRepo::new(REPO, &tags, 20_000);
    let build_time = built.elapsed();
    let daemon = support::gitrepo::GitDaemon::start(repo.root.path());
    let (port, count) = counting_relay(daemon.port).await;
    let url = format!("git://127.0.0.1:{port}/{REPO}.git");

    let mut rows = String::new();
    let mut measure = |label: &str, times: Vec<Duration>, bytes: usize, refs: usize| {
        let _ = writeln!(
            rows,
            "| {label} | {} | {:.0} KiB | {refs} |",
            ms(median(times)),
            bytes as f64 / 1024.0
        );
    };
    count.store(0, Ordering::Relaxed);
    let (times, refs) = git2_times(&url).await;
    let git2_bytes = count.swap(0, Ordering::Relaxed) / 5;
    let git2_median = median(times.clone());
    measure(
        "git2 (libgit2, protocol v0: every ref)",
        times,
        git2_bytes,
        refs,
    );
    for (label, version) in [
        ("git ls-remote --tags, protocol v2", "2"),
        ("git ls-remote --tags, protocol v0", "0"),
    ] {
        let (times, listed) = ls_remote_times(&url, version).await;
        let bytes = count.swap(0, Ordering::Relaxed) / 5;
        if version == "2" {
            let ratio = git2_median.as_secs_f64() / median(times.clone()).as_secs_f64();
            let bytes_ratio = git2_bytes as f64 / bytes.max(1) as f64;
            measure(label, times, bytes, listed);
            let _ = writeln!(
                report,
                "## 3. The git fallback (ls-remote)\n\n\
                 A bare repository with 10,000 tags (half annotated) and 20,000 `refs/pull/N/head` (built in {}), served \
                 by `git daemon` on 127.0.0.1 through a relay that counts the bytes the server sends; median of 5.\n",
                ms(build_time)
            );
            let verdict = speed_verdict(ratio);
            let _ = writeln!(
                report,
                "{verdict} but receives {bytes_ratio:.1}x the bytes: libgit2 speaks only protocol v0, so the server \
                 advertises every ref, `refs/pull/*` included, and nothing can be filtered. On loopback that costs \
                 little; over a real network to a busy repository (tens of thousands of pull refs) the bytes dominate. \
                 So git2 stays the fallback, used only when the API is out of reach (the API answers the same question \
                 in one request of matching tags only), and it remains one conversation at every size.\n"
            );
        } else {
            measure(label, times, bytes, listed);
        }
    }
    let _ = writeln!(
        report,
        "| client | median wall | received | refs listed |\n|---|---|---|---|\n{rows}"
    );
}

/// Five listings by `list` (which lists and says how many refs it
/// listed), each on a blocking thread: their times and the last count.
async fn five_listings<F>(list: F) -> (Vec<Duration>, usize)
where
    F: Fn() -> usize + Clone + Send + 'static,
{
    let (mut times, mut listed) = (Vec::new(), 0);
    for _ in 0..5 {
        let list = list.clone();
        let started = Instant::now();
        listed = tokio::task::spawn_blocking(list).await.unwrap();
        times.push(started.elapsed());
    }
    (times, listed)
}

/// Five listings of `url` through git2 (libgit2, protocol v0).
async fn git2_times(url: &str) -> (Vec<Duration>, usize) {
    let url = url.to_owned();
    five_listings(move || {
        baseline_resolver::resolve::git::list_refs(&url, None)
            .unwrap()
            .refs
            .len()
    })
    .await
}

/// Five `git ls-remote --tags` of `url` at protocol `version`.
async fn ls_remote_times(url: &str, version: &str) -> (Vec<Duration>, usize) {
    let (url, version) = (url.to_owned(), format!("protocol.version={version}"));
    five_listings(move || {
        let out = Command::new("git")
            .args(["-c", &version, "ls-remote", "--tags", &url])
            .output()
            .unwrap();
        out.stdout.iter().filter(|b| **b == b'\n').count()
    })
    .await
}

/// How git2's wall time compares with the protocol-v2 command line's
/// (`ratio`: git2's over the command line's).
fn speed_verdict(ratio: f64) -> String {
    if ratio > 1.5 {
        format!("git2 is {ratio:.1}x slower than the protocol-v2 command line")
    } else if ratio < 0.9 {
        format!(
            "git2 is faster in wall time ({:.1}x, no process to start)",
            1.0 / ratio
        )
    } else if ratio <= 1.1 {
        "git2 takes about the time of the protocol-v2 command line".to_owned()
    } else {
        format!("git2 takes {ratio:.1}x the time of the protocol-v2 command line")
    }
}
