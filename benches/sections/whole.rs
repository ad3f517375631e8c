//! Section 4: a whole online resolution of a fork pull request over HTTPS
//! through the relay, in round trips, against a server that speaks HTTP/2
//! (as GitHub does), HTTP/1.1 with `Connection: close` (a new connection
//! for every request), and HTTP/1.1 with connections kept alive (a proxy
//! or an Enterprise Server front that speaks no HTTP/2).
//!
//! `BENCH_BASELINE_BIN=/path/to/an/older/baseline-resolver` measures that
//! binary too, its runs alternating with this build's on the same relay,
//! so a change to the request wave is seen beside what it replaced under
//! the same load.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use wiremock::Mock;

use super::support::mock_github::{MockGitHub, ok};
use super::{BASE, BIN, HEAD, REPO, RTT, Relay, TAG_COMMIT, median, ms, online_run_of, support};

/// Runs of each binary per row.
const RUNS: usize = 9;

/// How the mock API answers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Server {
    Http2,
    Http1Close,
    Http1KeepAlive,
}

impl Server {
    fn label(self) -> &'static str {
        match self {
            Server::Http2 => "HTTP/2, connections kept",
            Server::Http1Close => "HTTP/1.1, `Connection: close`",
            Server::Http1KeepAlive => "HTTP/1.1, kept alive",
        }
    }
}

/// The API: tags (the latest one lightweight, so no peel, or annotated,
/// so one more request for its tag object), artifacts and runs.
async fn mock(server: Server, annotated: bool) -> MockGitHub {
    let options = if server == Server::Http2 {
        support::tls::Options::github()
    } else {
        support::tls::Options::http1()
    };
    let mock = MockGitHub::start_with(options).await;
    let answer = |body: Value| {
        let answer = ok().set_body_json(body);
        if server == Server::Http1Close {
            answer.insert_header("connection", "close")
        } else {
            answer
        }
    };
    let latest_type = if annotated { "tag" } else { "commit" };
    let tags = json!([
        {"ref": "refs/tags/v1.0.0", "object": {"sha": BASE, "type": latest_type}},
        {"ref": "refs/tags/v0.9.0", "object": {"sha": HEAD, "type": "commit"}}]);
    let tag_object = json!({"sha": BASE, "object": {"sha": TAG_COMMIT, "type": "commit"}});
    let artifacts = json!({"total_count": 1, "artifacts": [
        {"id": 9, "name": format!("bench-mi355-{BASE}"), "expired": false, "created_at": "2026-11-01T00:00:00Z",
         "workflow_run": {"id": 90, "head_sha": BASE}}]});
    let runs = json!({"total_count": 1, "workflow_runs": [
        {"id": 90, "event": "push", "head_sha": BASE, "conclusion": "success",
         "repository": {"id": 1}, "head_repository": {"id": 1}}]});
    for (path, body) in [
        (format!("/repos/{REPO}/git/tags/{BASE}"), tag_object),
        (format!("/repos/{REPO}/git/matching-refs/tags/v"), tags),
        (format!("/repos/{REPO}/actions/artifacts"), artifacts),
        (format!("/repos/{REPO}/actions/runs"), runs),
    ] {
        Mock::given(wiremock::matchers::path(path))
            .respond_with(answer(body))
            .mount(&mock.server)
            .await;
    }
    mock
}

/// One binary's figures for one row: median wall, round trips, TCP
/// connections per run, and whether the answer was whole.
struct Figures {
    times: Vec<std::time::Duration>,
    connections: usize,
    whole: bool,
}

impl Figures {
    fn new() -> Figures {
        Figures {
            times: Vec::new(),
            connections: 0,
            whole: true,
        }
    }

    async fn run(&mut self, program: &str, relay: &Relay, payload: &Path, extra: &[&str]) {
        let before = relay.connections();
        let (took, answer) = online_run_of(program, payload, &relay.url(), extra).await;
        self.connections += relay.connections() - before;
        self.times.push(took);
        self.whole &= answer["tag_available"] == true && answer["warnings"] == json!([]);
    }

    /// `median wall | round trips | connections | answer` cells.
    fn cells(&self) -> String {
        let m = median(self.times.clone());
        format!(
            "{} | **{:.2}** | {:.0} | {}",
            ms(m),
            m.as_secs_f64() / RTT.as_secs_f64(),
            self.connections as f64 / self.times.len() as f64,
            if self.whole {
                "tag found, no warning"
            } else {
                "DEGRADED"
            }
        )
    }
}

pub async fn whole(report: &mut String, payload: &Path) {
    let baseline = std::env::var("BENCH_BASELINE_BIN").ok();
    let mut rows = String::new();
    for (server, annotated) in [
        (Server::Http2, false),
        (Server::Http2, true),
        (Server::Http1Close, false),
        (Server::Http1KeepAlive, false),
    ] {
        let mock = mock(server, annotated).await;
        let Some(relay) = Relay::start(mock.front.port) else {
            return;
        };
        let tag = if annotated { "annotated tag" } else { "tag" };
        for (label, extra) in [
            (format!("fork PR + {tag} lookup"), vec![]),
            (
                format!("fork PR + {tag} lookup + 1 artifact lookup"),
                vec!["--artifact-name", "bench-mi355-{sha}"],
            ),
            (
                format!("fork PR + {tag} lookup + 3 artifact lookups"),
                vec![
                    "--artifact-name",
                    "bench-mi355-{sha},bench-mi325-{sha},bench-navi-{sha}",
                ],
            ),
        ] {
            let (mut ours, mut theirs) = (Figures::new(), Figures::new());
            for _ in 0..RUNS {
                ours.run(BIN, &relay, payload, &extra).await;
                if let Some(program) = &baseline {
                    theirs.run(program, &relay, payload, &extra).await;
                }
            }
            let _ = writeln!(rows, "| {label} | {} | {} |", server.label(), ours.cells());
            if baseline.is_some() {
                let _ = writeln!(
                    rows,
                    "| {label} | {} (baseline binary) | {} |",
                    server.label(),
                    theirs.cells()
                );
            }
        }
    }
    let _ = writeln!(
        report,
        "## 4. A whole online resolution over HTTPS, {} ms round trips\n\n\
         Whole process, median of {RUNS}, in round trips through the relay: the TCP handshake (1), the TLS 1.3 \
         handshake (1), then the requests; the floor for one request is 3. The requests a resolution knows at its \
         start (the tag listing, the artifact lookups, the runs of the base SHA) go at once, each opening a \
         connection (at most 8): over HTTP/2 they then share a connection, the other handshakes spent for \
         nothing; over HTTP/1.1 each has its own, opened from the start rather than after the first handshake has \
         told which protocol the server speaks. An annotated latest tag needs one more request (its tag object) \
         after the listing. The mock API's sockets have TCP_NODELAY, as a real server's do: without it, 2 of 3 runs \
         showed 4.06 round trips for the first row, its HTTP/2 answer waiting on loopback for a 40 ms delayed ACK. \
         Targets: at most 3.5 round trips with the tag and artifact lookups over HTTP/2, 4.5 with an annotated tag \
         or over HTTP/1.1.\n\n\
         | resolution | connection | median wall | round trips | TCP connections per run | |\n|---|---|---|---|---|---|\n{rows}",
        RTT.as_millis()
    );
}
