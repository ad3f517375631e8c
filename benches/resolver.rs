//! What the resolver costs, measured side by side with the strategies other
//! tools use. `cargo bench --bench resolver` runs everything (release build,
//! servers on 127.0.0.1 only, a few minutes on 2 cores) and writes the
//! results to BENCHMARKS.md. Nothing here is a pass/fail test.

#[path = "sections/compare.rs"]
mod compare_section;
#[path = "sections/lint.rs"]
mod lint_section;
#[path = "sections/noise.rs"]
mod noise_section;
#[path = "sections/select.rs"]
mod select_section;
#[path = "../tests/integration/support/simulation.rs"]
mod simulation;
// The tests' servers, reused as they are (they name each other as
// `crate::support::...`, as in the test crate).
#[path = "../tests/integration/support/gitrepo.rs"]
#[allow(dead_code)]
mod gitrepo;
#[path = "../tests/integration/support/mock_github.rs"]
#[allow(dead_code)]
mod mock_github;
#[path = "../tests/integration/support/tls.rs"]
#[allow(dead_code)]
mod tls;
mod support {
    pub(crate) use super::{gitrepo, mock_github, tls};
}

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use baseline_resolver::resolve::tags::Version;
use serde_json::{Value, json};
use support::mock_github::{MockGitHub, ok};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

const BIN: &str = env!("CARGO_BIN_EXE_baseline-resolver");
/// The simulated network's round-trip time.
const RTT: Duration = Duration::from_millis(50);
const REPO: &str = "ROCm/FlyDSL";
const BASE: &str = "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16";
const HEAD: &str = "3c9d2e7a1f5b8c4d6e0a2b9f7c1d3e5a8b6f4c20";
const TAG_COMMIT: &str = "89abcdef0123456789abcdef0123456789abcdef";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The binary with a clean environment (no runner, no proxy) plus `envs`.
fn command(program: &str, args: &[&str], envs: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("SSL_CERT_FILE", support::tls::ca_file());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null());
    cmd
}

fn timed(args: &[&str], envs: &[(&str, &str)]) -> (Duration, Output) {
    let started = Instant::now();
    let out = command(BIN, args, envs).output().expect("binary runs");
    (started.elapsed(), out)
}

/// Peak RSS in kB of one run, from GNU time.
fn peak_rss_kb(args: &[&str], envs: &[(&str, &str)]) -> u64 {
    let mut all = vec!["-f", "%M", BIN];
    all.extend_from_slice(args);
    let out = command("/usr/bin/time", &all, envs)
        .output()
        .expect("/usr/bin/time");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0)
}

fn sh(cmd: &str) -> String {
    Command::new("sh")
        .args(["-c", cmd])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// `../shared/tools/delay_relay.py` in front of a server: a network with a
/// round-trip time of [`RTT`], where a new connection costs one RTT (the TCP
/// handshake) and every chunk half an RTT each way, so TLS handshakes cost
/// what they cost on a real network.
struct Relay {
    child: std::process::Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Relay {
    fn script() -> PathBuf {
        root().join("../shared/tools/delay_relay.py")
    }

    /// `None` (with a notice) when the shared tools are not beside the checkout.
    fn start(upstream: u16) -> Option<Relay> {
        if !Relay::script().exists() {
            eprintln!("NOTICE: ../shared/tools/delay_relay.py not found; network sections skipped");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let portfile = dir.path().join("port");
        let child = Command::new("python3")
            .arg(Relay::script())
            .arg(upstream.to_string())
            .arg(&portfile)
            .arg(RTT.as_millis().to_string())
            .arg("3600")
            .spawn()
            .expect("python3 runs the relay");
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&portfile)
                && let Ok(port) = text.trim().parse()
            {
                break port;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "relay did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        Some(Relay {
            child,
            port,
            log: dir.path().join("port.log"),
            _dir: dir,
        })
    }

    fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// Connections opened through the relay so far.
    fn connections(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Section 1: offline resolution of every fixture payload, whole process.
fn offline(report: &mut String) {
    let shared = root().join("../shared/fixtures/events");
    let dir = if shared.join("expected.json").exists() {
        shared
    } else {
        root().join("tests/fixtures/events")
    };
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let (mut medians, mut worst_rss) = (Vec::new(), 0);
    let mut rows = String::new();
    for (file, entry) in expected.as_object().unwrap() {
        let event = dir.join(file);
        let name = entry["event_name"].as_str().unwrap();
        let args = [
            "--event",
            event.to_str().unwrap(),
            "--event-name",
            name,
            "--offline",
            "--format",
            "json",
        ];
        let env = [("GITHUB_REPOSITORY", "ROCm/FlyDSL")];
        let times: Vec<Duration> = (0..30).map(|_| timed(&args, &env).0).collect();
        let m = median(times);
        let rss = peak_rss_kb(&args, &env);
        worst_rss = worst_rss.max(rss);
        medians.push(m);
        let _ = writeln!(
            rows,
            "| `{file}` | {} | {:.1} MB |",
            ms(m),
            rss as f64 / 1024.0
        );
    }
    let slowest = *medians.iter().max().unwrap();
    let _ = writeln!(
        report,
        "## 1. Offline resolution, whole process\n\n{} payloads of `{}`, 30 runs each (median). Target: under 5 ms and 10 MB.\n\n\
         | payload | median wall | peak RSS |\n|---|---|---|\n{rows}\n\
         Slowest median: **{}**; median of medians: **{}**; highest peak RSS: **{:.1} MB**.\n",
        medians.len(),
        dir.strip_prefix(root()).unwrap_or(&dir).display(),
        ms(slowest),
        ms(median(medians.clone())),
        worst_rss as f64 / 1024.0
    );
}

/// Tag names: mixed semver and PEP 440, half annotated.
fn tag_list(n: usize) -> Vec<(String, String, &'static str)> {
    (0..n)
        .map(|i| {
            let name = match i % 3 {
                0 => format!("v{}.{}.{}", i / 1000, (i / 10) % 100, i % 10),
                1 => format!("v{}.{}.{}.dev{i}", i / 1000, (i / 10) % 100, i % 10),
                _ => format!("v{}.{}.{}-rc.{}", i / 1000, (i / 10) % 100, i % 10, i % 7),
            };
            let kind = if i % 2 == 0 { "commit" } else { "tag" };
            (name, format!("{:040x}", i + 1), kind)
        })
        .collect()
}

/// `GET /repos/{o}/{r}/tags?per_page=100&page=N` with a `Link` to the next
/// page, as GitHub answers it: the endpoint tag-finding actions walk.
struct TagPages {
    tags: Vec<(String, String)>,
    base: String,
}

impl Respond for TagPages {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let page: usize = request
            .url
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        let items: Vec<Value> = self
            .tags
            .iter()
            .skip((page - 1) * 100)
            .take(100)
            .map(|(name, sha)| json!({"name": name, "commit": {"sha": sha, "url": "x"}, "zipball_url": "x", "tarball_url": "x", "node_id": "x"}))
            .collect();
        let mut answer = ok().set_body_json(items);
        if page * 100 < self.tags.len() {
            let next = format!(
                "<{}/repos/{REPO}/tags?per_page=100&page={}>; rel=\"next\"",
                self.base,
                page + 1
            );
            answer = answer.insert_header("link", next.as_str());
        }
        answer
    }
}

/// The page-by-page strategy, as a reference: follow `Link` to the end, then
/// sort as versions and take the highest. Returns (tag, requests).
async fn page_by_page(base: &str) -> (String, usize) {
    let ca = std::fs::read(support::tls::ca_file()).unwrap();
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&ca).unwrap())
        .build()
        .unwrap();
    let mut url = format!("{base}/repos/{REPO}/tags?per_page=100");
    let mut names = Vec::new();
    let mut requests = 0;
    loop {
        let response = client.get(&url).send().await.expect("page");
        requests += 1;
        let next = response
            .headers()
            .get("link")
            .and_then(|l| l.to_str().ok())
            .and_then(|l| l.split(';').next())
            .map(|u| {
                u.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_owned()
            });
        let page: Vec<Value> = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        names.extend(
            page.iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned)),
        );
        match next {
            Some(n) => url = n,
            None => break,
        }
    }
    let best = names
        .iter()
        .filter_map(|n| {
            Version::parse(n)
                .filter(|v| !v.is_prerelease())
                .map(|v| (v, n))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, n)| n.clone())
        .unwrap_or_default();
    (best, requests)
}

fn pr_payload() -> String {
    json!({"pull_request": {"base": {"ref": "main", "sha": BASE, "repo": {"id": 1, "full_name": REPO}},
        "head": {"ref": "x", "sha": HEAD, "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}})
    .to_string()
}

async fn online_run(payload: &Path, api: &str, extra: &[&str]) -> (Duration, Value) {
    let mut args = vec![
        "--event",
        payload.to_str().unwrap(),
        "--event-name",
        "pull_request",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let api = api.to_owned();
    tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (took, out) = timed(
            &a,
            &[
                ("GITHUB_API_URL", &api),
                ("GITHUB_SERVER_URL", "git://127.0.0.1:1"),
            ],
        );
        (
            took,
            serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        )
    })
    .await
    .unwrap()
}

/// Sections 2 and 6: release-tag resolution at 10, 1,000 and 10,000 tags,
/// over HTTPS through the relay, against the page-by-page strategy; peak RSS
/// at 10,000 tags.
async fn tags(report: &mut String, payload: &Path) -> u64 {
    let mut rows = String::new();
    let mut rss_10k = 0;
    for n in [10usize, 1_000, 10_000] {
        let mock = MockGitHub::start().await;
        let Some(relay) = Relay::start(mock.front.port) else {
            return 0;
        };
        let api = relay.url();
        let list = tag_list(n);
        mock.tags(REPO, &list).await;
        Mock::given(wiremock::matchers::path_regex(format!(
            "^/repos/{REPO}/git/tags/[0-9a-f]{{40}}$"
        )))
        .respond_with(ok().set_body_json(json!({"object": {"type": "commit", "sha": TAG_COMMIT}})))
        .mount(&mock.server)
        .await;
        let pages = TagPages {
            tags: list
                .iter()
                .map(|(n, s, _)| (n.clone(), s.clone()))
                .collect(),
            base: api.clone(),
        };
        Mock::given(wiremock::matchers::path(format!("/repos/{REPO}/tags")))
            .respond_with(pages)
            .mount(&mock.server)
            .await;

        let mut ours = Vec::new();
        let mut tag = Value::Null;
        for _ in 0..7 {
            let (took, json) = online_run(payload, &api, &[]).await;
            tag = json["tag"].clone();
            ours.push(took);
        }
        let before = mock.requests().await.len();
        let _ = online_run(payload, &api, &[]).await;
        let our_requests = mock.requests().await.len() - before;

        let mut reference = Vec::new();
        let mut ref_requests = 0;
        let mut ref_tag = String::new();
        for _ in 0..3 {
            let started = Instant::now();
            let (t, r) = page_by_page(&api).await;
            reference.push(started.elapsed());
            (ref_tag, ref_requests) = (t, r);
        }
        let (o, r) = (median(ours), median(reference));
        if n == 10_000 {
            let (p, api) = (payload.to_owned(), api.clone());
            rss_10k = tokio::task::spawn_blocking(move || {
                peak_rss_kb(
                    &[
                        "--event",
                        p.to_str().unwrap(),
                        "--event-name",
                        "pull_request",
                        "--format",
                        "json",
                    ],
                    &[
                        ("GITHUB_API_URL", &api),
                        ("GITHUB_SERVER_URL", "git://127.0.0.1:1"),
                    ],
                )
            })
            .await
            .unwrap();
        }
        let _ = writeln!(
            rows,
            "| {n} | {} | {our_requests} | {} | {ref_requests} | **{:.1}x** | {} / {} |",
            ms(o),
            ms(r),
            r.as_secs_f64() / o.as_secs_f64(),
            tag.as_str().unwrap_or("-"),
            ref_tag
        );
    }
    let _ = writeln!(
        report,
        "## 2. Release-tag resolution over HTTPS, {} ms round trips\n\n\
         Our binary (whole process, fork pull request event, tag lookup on; median of 7) against the page-by-page \
         strategy of tag-finding actions (`GET /repos/{{o}}/{{r}}/tags?per_page=100`, following `Link` to the end, then \
         sorting; median of 3; reqwest over one kept-alive HTTPS connection). Both go through the relay, so each pays \
         the TCP and TLS handshakes once. Tags are mixed semver and PEP 440, half annotated; the highest stable one is \
         annotated, so ours makes a second request to peel it. Target: the same number of requests at every count. (An \
         earlier version of this table added 50 ms to each answer instead and counted no handshakes; ours was 32x faster \
         at 10,000 tags there. Here both sides pay the same two handshakes and the bytes cross the relay, which narrows \
         the ratio without changing the request counts.)\n\n\
         | tags | ours | our requests | page-by-page | its requests | speed-up | chosen (ours / reference) |\n|---|---|---|---|---|---|---|\n{rows}\n\
         At 10 tags the page-by-page strategy is as fast or faster: its one page already carries commit SHAs, while ours \
         peels the annotated tag with a second request. From about a hundred tags on, its page count grows and ours \
         does not.\n",
        RTT.as_millis()
    );
    rss_10k
}

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
async fn git(report: &mut String) {
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
    let (mut times, mut refs) = (Vec::new(), 0);
    count.store(0, Ordering::Relaxed);
    for _ in 0..5 {
        let u = url.clone();
        let started = Instant::now();
        let listed = tokio::task::spawn_blocking(move || {
            baseline_resolver::resolve::git::list_refs(&u, None)
        })
        .await
        .unwrap()
        .unwrap();
        times.push(started.elapsed());
        refs = listed.refs.len();
    }
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
        let mut times = Vec::new();
        let mut listed = 0;
        for _ in 0..5 {
            let u = url.clone();
            let started = Instant::now();
            let out = tokio::task::spawn_blocking(move || {
                Command::new("git")
                    .args([
                        "-c",
                        &format!("protocol.version={version}"),
                        "ls-remote",
                        "--tags",
                        &u,
                    ])
                    .output()
                    .unwrap()
            })
            .await
            .unwrap();
            times.push(started.elapsed());
            listed = out.stdout.iter().filter(|b| **b == b'\n').count();
        }
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
            let verdict = if ratio > 1.5 {
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
            };
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

/// The API for section 4: tags (the latest one lightweight, so no peel)
/// and artifacts, answered over HTTP/2 with connections kept, or over
/// HTTP/1.1 with `Connection: close` (a new connection for every request).
async fn whole_mock(reuse: bool, annotated: bool) -> MockGitHub {
    let options = if reuse {
        support::tls::Options::github()
    } else {
        support::tls::Options::http1()
    };
    let mock = MockGitHub::start_with(options).await;
    let answer = |body: Value| {
        let answer = ok().set_body_json(body);
        if reuse {
            answer
        } else {
            answer.insert_header("connection", "close")
        }
    };
    // The latest tag lightweight (no peel), or annotated (one more request
    // for its tag object).
    let latest_type = if annotated { "tag" } else { "commit" };
    let tags = json!([
        {"ref": "refs/tags/v1.0.0", "object": {"sha": BASE, "type": latest_type}},
        {"ref": "refs/tags/v0.9.0", "object": {"sha": HEAD, "type": "commit"}}]);
    Mock::given(wiremock::matchers::path(format!(
        "/repos/{REPO}/git/tags/{BASE}"
    )))
    .respond_with(answer(
        json!({"sha": BASE, "object": {"sha": TAG_COMMIT, "type": "commit"}}),
    ))
    .mount(&mock.server)
    .await;
    Mock::given(wiremock::matchers::path(format!(
        "/repos/{REPO}/git/matching-refs/tags/v"
    )))
    .respond_with(answer(tags))
    .mount(&mock.server)
    .await;
    let artifacts = json!({"total_count": 1, "artifacts": [
        {"id": 9, "name": format!("bench-mi355-{BASE}"), "expired": false, "created_at": "2026-11-01T00:00:00Z",
         "workflow_run": {"id": 90, "head_sha": BASE}}]});
    Mock::given(wiremock::matchers::path(format!(
        "/repos/{REPO}/actions/artifacts"
    )))
    .respond_with(answer(artifacts))
    .mount(&mock.server)
    .await;
    let runs = json!({"total_count": 1, "workflow_runs": [
        {"id": 90, "event": "push", "head_sha": BASE, "conclusion": "success",
         "repository": {"id": 1}, "head_repository": {"id": 1}}]});
    Mock::given(wiremock::matchers::path(format!(
        "/repos/{REPO}/actions/runs"
    )))
    .respond_with(answer(runs))
    .mount(&mock.server)
    .await;
    mock
}

/// Section 4: a whole online resolution over HTTPS through the relay, in
/// round trips, with the connection kept and shared (HTTP/2, as GitHub
/// answers) and with a new connection for every request.
async fn whole(report: &mut String, payload: &Path) {
    let mut rows = String::new();
    for (reuse, annotated) in [(true, false), (true, true), (false, false)] {
        let mock = whole_mock(reuse, annotated).await;
        let Some(relay) = Relay::start(mock.front.port) else {
            return;
        };
        let connection = if reuse {
            "HTTP/2, one connection kept"
        } else {
            "HTTP/1.1, `Connection: close`"
        };
        let tag = if annotated { "annotated tag" } else { "tag" };
        for (label, extra) in [
            (format!("fork PR + {tag} lookup"), vec![]),
            (
                format!("fork PR + {tag} lookup + 3 artifact lookups"),
                vec![
                    "--artifact-name",
                    "bench-mi355-{sha},bench-mi325-{sha},bench-navi-{sha}",
                ],
            ),
        ] {
            let runs = 9;
            let (mut times, mut answer) = (Vec::new(), Value::Null);
            let before = relay.connections();
            for _ in 0..runs {
                let (t, j) = online_run(payload, &relay.url(), &extra).await;
                times.push(t);
                answer = j;
            }
            let connections = (relay.connections() - before) as f64 / runs as f64;
            let m = median(times);
            let _ = writeln!(
                rows,
                "| {label} | {connection} | {} | **{:.2}** | {connections:.0} | {} |",
                ms(m),
                m.as_secs_f64() / RTT.as_secs_f64(),
                if answer["tag_available"] == true && answer["warnings"] == json!([]) {
                    "tag found, no warning"
                } else {
                    "DEGRADED"
                }
            );
        }
    }
    let _ = writeln!(
        report,
        "## 4. A whole online resolution over HTTPS, {} ms round trips\n\n\
         Whole process, median of 9, in round trips through the relay: the TCP handshake (1), the TLS 1.3 handshake \
         (1), then the requests; the floor for one request is 3. With the connection kept, the first request opens \
         it and the others wait only for the connection (not for its answer), then all share it over HTTP/2: one \
         wave of requests. An annotated latest tag needs one more request (its tag object) after the listing. The \
         mock API's sockets have TCP_NODELAY, as a real server's do: without it, 2 of 3 runs showed 4.06 round trips \
         for the first row, its HTTP/2 answer waiting on loopback for a 40 ms delayed ACK. Targets: one connection \
         per resolution; at most 3.5 round trips with the tag and artifact lookups, 4.5 with an annotated tag.\n\n\
         | resolution | connection | median wall | round trips | TCP connections per run | |\n|---|---|---|---|---|---|\n{rows}",
        RTT.as_millis()
    );
}

/// Section 5: binary size and the launcher's overhead.
fn shipping(report: &mut String, payload: &Path) {
    let size = std::fs::metadata(BIN).map(|m| m.len()).unwrap_or(0);
    let shipped = |platform: &str| {
        let file = root().join(format!("dist/baseline-resolver-linux-{platform}"));
        std::fs::metadata(file).map_or_else(
            |_| "not built in this run".to_owned(),
            |m| {
                format!(
                    "**{:.2} MB** ({} bytes)",
                    m.len() as f64 / 1_048_576.0,
                    m.len()
                )
            },
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("dist");
    std::fs::create_dir(&d).unwrap();
    std::fs::copy(root().join("dist/launch.sh"), d.join("launch.sh")).unwrap();
    std::fs::copy(BIN, d.join("baseline-resolver-linux-x86_64")).unwrap();
    let sum = Command::new("sha256sum")
        .arg("baseline-resolver-linux-x86_64")
        .current_dir(&d)
        .output()
        .unwrap();
    std::fs::write(d.join("SHA256SUMS"), sum.stdout).unwrap();
    let launcher = d.join("launch.sh");
    let args = [
        "--event",
        payload.to_str().unwrap(),
        "--event-name",
        "pull_request",
        "--offline",
        "--format",
        "json",
    ];
    let env = [("RUNNER_OS", "Linux"), ("RUNNER_ARCH", "X64")];
    let run = |program: &Path| -> Duration {
        median(
            (0..50)
                .map(|_| {
                    let started = Instant::now();
                    command(program.to_str().unwrap(), &args, &env)
                        .output()
                        .unwrap();
                    started.elapsed()
                })
                .collect(),
        )
    };
    let (with_launcher, alone) = (
        run(&launcher),
        run(&d.join("baseline-resolver-linux-x86_64")),
    );
    let _ = writeln!(
        report,
        "## 5. Binary size and launcher overhead\n\n\
         - Binary built by this bench (release profile: LTO, one codegen unit, stripped, `panic = \"abort\"`): **{:.2} MB**\n\
         - Shipped binaries (glibc 2.17 builds by `scripts/build-dist`): `dist/baseline-resolver-linux-x86_64` {}; \
         `dist/baseline-resolver-linux-aarch64` {}\n\
         - Launcher + binary (checksum verified with openssl's SHA-256), payload-only event: **{}** median of 50; \
         binary alone: {}; launcher overhead: **{}** (target for launcher + binary: under 20 ms).\n",
        size as f64 / 1_048_576.0,
        shipped("x86_64"),
        shipped("aarch64"),
        ms(with_launcher),
        ms(alone),
        ms(with_launcher.saturating_sub(alone))
    );
}

/// Results of 100,000 benchmark rows shaped like the motivating repository's
/// (`op,shape,dtype,tbps,tflops,status`), half memory-bound; current is the
/// baseline scaled by -15% to +10%.
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `cargo bench` passes `--bench`; nothing to filter. `BENCH_SECTIONS=4,7`
    // runs only those sections and prints them, leaving BENCHMARKS.md as it is.
    let only: Option<Vec<u32>> = std::env::var("BENCH_SECTIONS")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect());
    let run = |n: u32| only.as_ref().is_none_or(|o| o.contains(&n));
    let started = Instant::now();
    let scratch = tempfile::tempdir().unwrap();
    let payload = scratch.path().join("fork-pr.json");
    std::fs::write(&payload, pr_payload()).unwrap();

    let mut report = String::new();
    if run(1) {
        offline(&mut report);
        eprintln!("offline done ({:?})", started.elapsed());
    }
    let rss_10k = if run(2) || run(6) {
        let rss = tags(&mut report, &payload).await;
        eprintln!("tags done ({:?})", started.elapsed());
        rss
    } else {
        0
    };
    if run(3) {
        git(&mut report).await;
        eprintln!("git done ({:?})", started.elapsed());
    }
    if run(4) {
        whole(&mut report, &payload).await;
    }
    if run(5) {
        shipping(&mut report, &payload);
    }
    if run(6) {
        let _ = writeln!(
            report,
            "## 6. Peak RSS at 10,000 tags\n\nWhole process, fork pull request event with the 10,000-tag listing: **{:.1} MB** \
             (target: under 30 MB).\n",
            rss_10k as f64 / 1024.0
        );
    }
    if run(7) {
        compare_section::comparing(&mut report);
    }
    if run(8) {
        noise_section::simulating(&mut report);
    }
    if run(9) {
        select_section::selecting(&mut report);
    }
    if run(10) {
        lint_section::linting(&mut report);
    }
    if only.is_some() {
        println!("{report}");
        return;
    }

    let machine = format!(
        "{} cores, {}, {} RAM, Linux {}, {}",
        sh("nproc"),
        sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'"),
        sh("free -h | awk '/Mem:/ {print $2}'"),
        sh("uname -r"),
        sh("rustc --version")
    );
    let header = format!(
        "# Benchmarks\n\nWritten by `cargo bench --bench resolver` on {} (UTC); took {:.0} s.\n\n\
         Machine: {machine}.\n\nEvery server runs on 127.0.0.1 and stops with the bench. The API speaks HTTPS (a CA made \
         for the bench, trusted through `SSL_CERT_FILE`) and is reached through `../shared/tools/delay_relay.py`, a \
         simulated network with {} ms round trips where TCP and TLS handshakes cost what they cost on a real one. Numbers \
         are medians over repeated runs of the whole process unless a section says otherwise.\n\n",
        sh("date -u '+%Y-%m-%d %H:%M'"),
        started.elapsed().as_secs_f64(),
        RTT.as_millis()
    );
    // The figures measured on real public material (fetched snapshots, by
    // the scripts in scripts/) are kept as they are: the bench cannot
    // measure them, having no snapshot.
    let path = root().join("BENCHMARKS.md");
    let real = std::fs::read_to_string(&path)
        .ok()
        .and_then(|old| old.find(REAL_MATERIAL).map(|at| old[at..].to_owned()))
        .unwrap_or_default();
    std::fs::write(&path, format!("{header}{report}{real}")).unwrap();
    println!("{header}{report}");
}

/// Where BENCHMARKS.md's part measured on real material begins.
const REAL_MATERIAL: &str = "## Real material";
