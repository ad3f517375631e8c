//! Section 2: the latest release tag over HTTPS with 50 ms round trips,
//! page by page as a client that lists tags would, against the resolver.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use baseline_resolver::resolve::tags::Version;
use serde_json::{Value, json};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

use super::support::mock_github::{MockGitHub, ok};
use super::{REPO, RTT, Relay, TAG_COMMIT, median, ms, online_run, peak_rss_kb, support};

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

/// Sections 2 and 6: release-tag resolution at 10, 1,000 and 10,000 tags,
/// over HTTPS through the relay, against the page-by-page strategy; peak RSS
/// at 10,000 tags.
pub async fn tags(report: &mut String, payload: &Path) -> u64 {
    let mut rows = String::new();
    let mut rss_10k = 0;
    for n in [10usize, 1_000, 10_000] {
        let mock = MockGitHub::start().await;
        let Some(relay) = Relay::start(mock.front.port) else {
            return 0;
        };
        let api = relay.url();
        serve_tags(&mock, &api, n).await;

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
            rss_10k = peak_rss_online(payload, &api).await;
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

/// Serves `n` tags on `mock`: the matching-refs listing our binary reads,
/// the annotated tags it peels and the paged `/tags` listing (`Link` to
/// `api`) the page-by-page reference follows.
async fn serve_tags(mock: &MockGitHub, api: &str, n: usize) {
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
        base: api.to_owned(),
    };
    Mock::given(wiremock::matchers::path(format!("/repos/{REPO}/tags")))
        .respond_with(pages)
        .mount(&mock.server)
        .await;
}

/// The whole process's peak RSS (KiB) resolving the fork pull request
/// `payload` against `api`.
async fn peak_rss_online(payload: &Path, api: &str) -> u64 {
    let (p, api) = (payload.to_owned(), api.to_owned());
    tokio::task::spawn_blocking(move || {
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
    .unwrap()
}
