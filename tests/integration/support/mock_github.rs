//! A local stand-in for the GitHub REST API on 127.0.0.1 (wiremock behind a
//! TLS front, so it speaks HTTPS and HTTP/2 like GitHub), answering with the
//! shapes GitHub documents: JSON bodies, `x-ratelimit-*` headers on every
//! answer, `{"message", "documentation_url"}` error bodies, the `sha` media
//! type, `Link` pagination with https URLs. The binary reaches it through
//! `GITHUB_API_URL`, as on a runner, and trusts it through `SSL_CERT_FILE`
//! (the harness sets it). The server stops when dropped.

use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::tls::{Front, Options};

pub struct MockGitHub {
    pub server: MockServer,
    /// The HTTPS side the binary talks to.
    pub front: Front,
}

/// A 200 with GitHub's rate-limit headers.
pub fn ok() -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("x-ratelimit-limit", "5000")
        .insert_header("x-ratelimit-remaining", "4999")
        .insert_header("x-ratelimit-used", "1")
        .insert_header("x-ratelimit-resource", "core")
        .insert_header("x-ratelimit-reset", "1893456000")
        .insert_header("x-github-api-version-selected", "2022-11-28")
}

pub fn ok_json(body: Value) -> ResponseTemplate {
    ok().set_body_json(body)
}

/// An error answer as GitHub writes it.
pub fn error(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": status.to_string(),
    }))
}

/// Answers the first `fail` requests with `first`, then with `then`.
pub struct Sequence {
    pub count: std::sync::atomic::AtomicUsize,
    pub fail: usize,
    pub first: ResponseTemplate,
    pub then: ResponseTemplate,
}

impl Respond for Sequence {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if n < self.fail {
            self.first.clone()
        } else {
            self.then.clone()
        }
    }
}

pub fn sequence(fail: usize, first: ResponseTemplate, then: ResponseTemplate) -> Sequence {
    Sequence {
        count: 0.into(),
        fail,
        first,
        then,
    }
}

struct MatchingRefs {
    base: String,
    refs: Vec<(String, Value)>,
}

impl Respond for MatchingRefs {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let prefix = request
            .url
            .path()
            .strip_prefix(&self.base)
            .unwrap_or_default();
        let prefix = percent_decode(prefix);
        let found: Vec<&Value> = self
            .refs
            .iter()
            .filter(|(name, _)| name.starts_with(&prefix))
            .map(|(_, v)| v)
            .collect();
        ok_json(json!(found))
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '/' || c == '-' || c == '_' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

impl MockGitHub {
    pub async fn start() -> MockGitHub {
        MockGitHub::start_with(Options::github()).await
    }

    /// With a TLS front of another shape: another CA, names or protocol.
    pub async fn start_with(options: Options<'_>) -> MockGitHub {
        // TCP_NODELAY on the listener, which Linux hands to every accepted
        // socket: wiremock sets none, and its HTTP/2 answer, written after a
        // small SETTINGS ack, would otherwise wait on loopback for the Front's
        // delayed ACK (40 ms), a stall no GitHub server has.
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_nodelay(true).unwrap();
        socket.bind(([127, 0, 0, 1], 0).into()).unwrap();
        let listener = socket.listen(1024).unwrap().into_std().unwrap();
        let server = MockServer::builder().listener(listener).start().await;
        let front = Front::start(*server.address(), options).await;
        MockGitHub { server, front }
    }

    /// `https://127.0.0.1:PORT`, for `GITHUB_API_URL`.
    pub fn url(&self) -> String {
        self.front.url()
    }

    /// `GET /repos/{repo}/commits/{reference}` with `Accept: application/vnd.github.sha`.
    pub async fn commit_sha(&self, repo: &str, reference: &str, sha: &str) {
        Mock::given(method("GET"))
            .and(path(format!("/repos/{repo}/commits/{reference}")))
            .and(header("accept", "application/vnd.github.sha"))
            .respond_with(ok().set_body_string(sha))
            .mount(&self.server)
            .await;
    }

    pub async fn repository(&self, repo: &str, default_branch: &str) {
        let (owner, name) = repo.split_once('/').unwrap();
        Mock::given(method("GET"))
            .and(path(format!("/repos/{repo}")))
            .respond_with(ok().set_body_json(json!({
                "id": 700001, "name": name, "full_name": repo, "owner": {"login": owner},
                "private": false, "default_branch": default_branch, "visibility": "public"
            })))
            .mount(&self.server)
            .await;
    }

    /// `GET /repos/{repo}/compare/{base}...{head}` answering `merge_base`.
    pub async fn compare(&self, repo: &str, base: &str, head: &str, merge_base: &str) {
        Mock::given(method("GET"))
            .and(path(format!("/repos/{repo}/compare/{base}...{head}")))
            .respond_with(ok().set_body_json(json!({
                "status": "diverged", "ahead_by": 2, "behind_by": 3, "total_commits": 2,
                "base_commit": {"sha": base},
                "merge_base_commit": {"sha": merge_base, "commit": {"message": "m"}},
                "commits": [], "files": []
            })))
            .mount(&self.server)
            .await;
    }

    pub async fn pull(&self, repo: &str, number: u64, body: Value) {
        Mock::given(method("GET"))
            .and(path(format!("/repos/{repo}/pulls/{number}")))
            .respond_with(ok().set_body_json(body))
            .mount(&self.server)
            .await;
    }

    /// `GET /repos/{repo}/git/matching-refs/tags/{prefix}`: every tag whose
    /// name starts with the requested prefix, in one array, as GitHub does.
    /// `tags` is `(name, object sha, "commit" | "tag")`.
    pub async fn tags(&self, repo: &str, tags: &[(String, String, &str)]) {
        let refs: Vec<(String, Value)> = tags
            .iter()
            .map(|(name, sha, kind)| {
                let value = json!({"ref": format!("refs/tags/{name}"), "node_id": "REF_x",
                    "url": format!("https://api.github.com/repos/{repo}/git/refs/tags/{name}"),
                    "object": {"sha": sha, "type": kind, "url": "https://api.github.com/x"}});
                (name.clone(), value)
            })
            .collect();
        let base = format!("/repos/{repo}/git/matching-refs/tags/");
        Mock::given(method("GET"))
            .and(path_regex(format!("^{}", regex_escape(&base))))
            .respond_with(MatchingRefs { base, refs })
            .mount(&self.server)
            .await;
    }

    /// `GET /repos/{repo}/git/tags/{sha}`: an annotated tag object.
    pub async fn tag_object(&self, repo: &str, tag_sha: &str, name: &str, commit: &str) {
        Mock::given(method("GET"))
            .and(path(format!("/repos/{repo}/git/tags/{tag_sha}")))
            .respond_with(ok().set_body_json(json!({
                "node_id": "TAG_x", "tag": name, "sha": tag_sha, "message": "release",
                "tagger": {"name": "r", "email": "r@example.com", "date": "2026-01-01T00:00:00Z"},
                "object": {"type": "commit", "sha": commit, "url": "https://api.github.com/x"},
                "verification": {"verified": false, "reason": "unsigned"}
            })))
            .mount(&self.server)
            .await;
    }

    /// `GET /repos/{repo}/pulls?head=OWNER:BRANCH&state=all` (one page).
    pub async fn pulls_with_head(&self, repo: &str, head: &str, pulls: Value) {
        Mock::given(method("GET"))
            .and(path(format!("/repos/{repo}/pulls")))
            .and(query_param("head", head))
            .and(query_param("state", "all"))
            .respond_with(ok().set_body_json(pulls))
            .mount(&self.server)
            .await;
    }

    /// Requests received so far, as `METHOD path?query`.
    pub async fn requests(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| match r.url.query() {
                Some(q) => format!("{} {}?{q}", r.method, r.url.path()),
                None => format!("{} {}", r.method, r.url.path()),
            })
            .collect()
    }
}

/// A pull request answer of `GET /pulls/{n}` or the list endpoints.
pub fn pull_json(
    number: u64,
    base_repo: &str,
    base_sha: &str,
    head_repo: Option<&str>,
    head_sha: &str,
) -> Value {
    let repo = |full: &str| json!({"id": 1, "full_name": full, "name": full.split('/').nth(1)});
    json!({
        "number": number, "state": "open", "title": "t", "body": null,
        "base": {"label": "x:main", "ref": "main", "sha": base_sha, "repo": repo(base_repo)},
        "head": {"label": "y:feature", "ref": "feature", "sha": head_sha,
                 "repo": head_repo.map(repo).unwrap_or(Value::Null)}
    })
}
