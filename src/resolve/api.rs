//! The GitHub REST API, as a runner reaches it: `GITHUB_API_URL` (github.com
//! or Enterprise Server's `https://HOST/api/v3`), the job's token, the
//! machine's proxy settings.
//!
//! octocrab carries the requests (auth, base URI, API version header) over a
//! reqwest client built here, so the transport is chosen on purpose: TLS 1.2
//! or newer through native-tls on the OpenSSL that libgit2 already links (one
//! TLS stack and one trust store for the API and git: the system's CA
//! certificates, `SSL_CERT_FILE`, `SSL_CERT_DIR`), HTTP/2 when the server
//! offers it, and `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` honoured.
//! Everything above the transport is ours: one deadline for all network work,
//! retries with jittered backoff on connection errors, 5xx and rate limits
//! (honouring `Retry-After` and `x-ratelimit-reset` when they fit inside the
//! deadline), and small structs for the few fields read, so a new field or an
//! Enterprise Server difference cannot break parsing.
//! See <https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api>.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderValue, StatusCode, header};
use http_body_util::BodyExt;
use octocrab::Octocrab;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use thiserror::Error;
use tokio::time::Instant;

use crate::resolve::tags::Tag;
use crate::validate::secret::Secret;
use crate::validate::{RepoName, Sha};

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApiError {
    #[error("{what}: not found (HTTP 404) in {repo}")]
    NotFound { what: String, repo: String },
    #[error(
        "{what}: HTTP {status} ({message}); the token cannot read this. Give the workflow `permissions: {permission}` (and a token for private repositories)"
    )]
    Forbidden {
        what: String,
        status: u16,
        message: String,
        permission: &'static str,
    },
    #[error(
        "{what}: the token was refused (HTTP 401: {message}): it is expired or wrong, or none was passed; pass the job's token (the action's default, `token: ${{{{ github.token }}}}`)"
    )]
    Unauthorized { what: String, message: String },
    /// `kind` is "rate limit" (the hourly quota is used up) or "secondary
    /// rate limit" (too many requests at once or too fast).
    #[error(
        "{what}: {kind} (HTTP {status}); it lifts in {wait_seconds}s, past the deadline or the retries"
    )]
    RateLimited {
        what: String,
        kind: &'static str,
        status: u16,
        wait_seconds: u64,
    },
    #[error("{what}: HTTP {status} ({message})")]
    Status {
        what: String,
        status: u16,
        message: String,
    },
    #[error("{what}: the server answered HTTP {status} {attempts} times")]
    ServerError {
        what: String,
        status: u16,
        attempts: u32,
    },
    /// The request did not get an answer: `cause` is the root cause alone
    /// (`connection refused`), not the chain of wrappers around it.
    #[error("{what}: {host}: {cause}")]
    Transport {
        what: String,
        host: String,
        cause: String,
    },
    /// The server's certificate was refused. Final: retrying cannot help,
    /// and nothing is ever retried without TLS.
    #[error(
        "{what}: {host}: certificate not trusted ({reason}); if a private CA signs it, add that CA to the system store or set SSL_CERT_FILE"
    )]
    Certificate {
        what: String,
        host: String,
        reason: String,
    },
    /// The TLS handshake failed for another reason (a protocol version
    /// below TLS 1.2, a plain-HTTP server at an https URL). Final too.
    #[error("{what}: {host}: TLS handshake failed: {reason}")]
    Tls {
        what: String,
        host: String,
        reason: String,
    },
    #[error("{what}: no answer within the {seconds}s deadline")]
    Deadline { what: String, seconds: u64 },
    #[error("{what}: unexpected answer: {message}")]
    Invalid { what: String, message: String },
    /// The API answered, and the answer does not decide: several candidates
    /// and no rule to pick one. Final: nothing is guessed.
    #[error("{what}")]
    Undecided { what: String },
}

impl ApiError {
    /// True when the API as a whole is out of reach (down, rate limited, no
    /// network), so git may answer instead; false when the API answered and
    /// the answer is final (404, 403 permission, 422).
    pub fn api_unavailable(&self) -> bool {
        matches!(
            self,
            ApiError::RateLimited { .. }
                | ApiError::ServerError { .. }
                | ApiError::Transport { .. }
                | ApiError::Deadline { .. }
                | ApiError::Invalid { .. }
        )
    }
}

/// Which permission an endpoint needs, for the message of a 401/403.
#[derive(Debug, Clone, Copy)]
pub enum Permission {
    Contents,
    PullRequests,
    Actions,
}

impl Permission {
    fn text(self) -> &'static str {
        match self {
            Permission::Contents => "contents: read",
            Permission::PullRequests => "pull-requests: read",
            Permission::Actions => "actions: read",
        }
    }
}

#[derive(Clone)]
pub struct Config {
    /// e.g. `https://api.github.com` or `https://HOST/api/v3`.
    pub api_url: String,
    pub token: Option<Secret>,
    pub timeout: Duration,
}

/// Retries after the first attempt, for 5xx and connection errors.
const RETRIES: u32 = 3;
const BACKOFF_BASE: Duration = Duration::from_millis(200);
/// The most one answer may hold. 10,000 tags are 2.3 MB; anything near
/// this is not what was asked for, and reading stops here, mid-stream.
const MAX_BODY: usize = 32 * 1024 * 1024;
/// The most all answers of a run may hold together (pages and concurrent
/// lookups included), so no server can push memory past about 100 MB.
const MAX_TOTAL_BODY: usize = 48 * 1024 * 1024;
/// The longest wait a server may ask for (`Retry-After`,
/// `x-ratelimit-reset`); the deadline is never longer than this anyway.
const MAX_WAIT: Duration = Duration::from_secs(3600);
/// How long to wait on a secondary rate limit that names no wait, as
/// GitHub's documentation asks.
const SECONDARY_WAIT: Duration = Duration::from_secs(60);

pub struct Api {
    octo: Octocrab,
    /// The API URL as configured, to name the host in messages.
    host: String,
    deadline: Instant,
    timeout: Duration,
    requests: AtomicUsize,
    /// Set once a request has had an answer: a connection to the API host
    /// is open (and, over HTTP/2, shared by every later request).
    connected: AtomicBool,
    /// Held by the one request that opens the connection. Requests sent
    /// together would otherwise each open their own (TCP and TLS
    /// handshakes) before HTTP/2 lets all but one be thrown away.
    opening: tokio::sync::Mutex<()>,
    /// Bytes of answer bodies still allowed in this run ([`MAX_TOTAL_BODY`]).
    body_budget: AtomicUsize,
}

/// An answer's body as octocrab hands it over, read frame by frame.
type Body = http_body_util::combinators::BoxBody<bytes::Bytes, octocrab::Error>;

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// The object a git ref or tag object points at (`{"sha", "type"}`).
#[derive(Deserialize)]
struct GitObject {
    sha: String,
    #[serde(rename = "type")]
    kind: String,
}

/// The error body GitHub sends with 4xx/5xx: `{"message": ..., "documentation_url": ...}`.
#[derive(Deserialize)]
struct ErrorBody {
    message: Option<String>,
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

fn now_epoch() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Full jitter: a random wait between half and all of `base * 2^attempt`.
fn backoff(attempt: u32) -> Duration {
    let cap = BACKOFF_BASE.saturating_mul(2u32.saturating_pow(attempt.min(6)));
    let mut byte = [0u8; 1];
    let _ = getrandom::fill(&mut byte);
    cap.mul_f64(0.5 + 0.5 * f64::from(byte[0]) / 255.0)
}

impl Api {
    pub fn new(config: Config) -> Result<Api, ApiError> {
        let what = "API client".to_owned();
        let mut builder = Octocrab::builder()
            .base_uri(config.api_url.as_str())
            .map_err(|e| ApiError::Invalid {
                what: what.clone(),
                message: format!("GITHUB_API_URL {:?}: {e}", config.api_url),
            })?;
        if let Some(token) = &config.token {
            // The one place the API's token leaves its Secret.
            builder = builder.personal_token(token.expose().to_owned());
        }
        let transport_error = |e: &(dyn std::error::Error + 'static)| ApiError::Transport {
            what: what.clone(),
            host: config.api_url.clone(),
            cause: root_cause(e),
        };
        let client = http_client().map_err(|e| transport_error(&e))?;
        let octo = builder
            .build_with_reqwest(client)
            .map_err(|e| transport_error(&e))?;
        Ok(Api {
            octo,
            host: config.api_url,
            // The timeout is at most an hour (validated), so this cannot overflow.
            deadline: Instant::now()
                .checked_add(config.timeout)
                .unwrap_or_else(Instant::now),
            timeout: config.timeout,
            requests: AtomicUsize::new(0),
            connected: AtomicBool::new(false),
            opening: tokio::sync::Mutex::new(()),
            body_budget: AtomicUsize::new(MAX_TOTAL_BODY),
        })
    }

    /// Requests sent so far (attempts, retries included).
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    fn deadline_error(&self, what: &str) -> ApiError {
        ApiError::Deadline {
            what: what.to_owned(),
            seconds: self.timeout.as_secs(),
        }
    }

    async fn attempt(
        &self,
        path: &str,
        accept: &'static str,
        what: &str,
    ) -> Result<Reply, ApiError> {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static(accept));
        let send = async {
            let response = self.send(path, headers, what).await?;
            let (parts, body) = response.into_parts();
            let body = self.read_body(body, &parts.headers, what).await?;
            Ok(Reply {
                status: parts.status,
                headers: parts.headers,
                body,
            })
        };
        match tokio::time::timeout_at(self.deadline, send).await {
            Ok(result) => result,
            Err(_) => Err(self.deadline_error(what)),
        }
    }

    /// Sends one GET and waits for the answer's head. Until some request has
    /// been answered, requests go one at a time, so the first opens the
    /// connection and the others share it.
    async fn send(
        &self,
        path: &str,
        headers: HeaderMap,
        what: &str,
    ) -> Result<http::Response<Body>, ApiError> {
        let mut _opening = None;
        if !self.connected.load(Ordering::Acquire) {
            let guard = self.opening.lock().await;
            // Whoever held the lock may have opened the connection meanwhile.
            if !self.connected.load(Ordering::Acquire) {
                _opening = Some(guard);
            }
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let response = self
            .octo
            ._get_with_headers(path, Some(headers))
            .await
            .map_err(|e| self.transport_error(what, &e, ""))?;
        self.connected.store(true, Ordering::Release);
        Ok(response)
    }

    /// Reads a body frame by frame and stops at [`MAX_BODY`], or when the
    /// run's [`MAX_TOTAL_BODY`] is spent: the size is checked while it
    /// streams, so an endless answer costs no more memory than the limit.
    async fn read_body(
        &self,
        mut body: Body,
        headers: &HeaderMap,
        what: &str,
    ) -> Result<Vec<u8>, ApiError> {
        let too_large = |limit: usize| ApiError::Invalid {
            what: what.to_owned(),
            message: format!("the answer is larger than {} MiB", limit >> 20),
        };
        let declared = header_u64(headers, "content-length").unwrap_or(0);
        if declared > MAX_BODY as u64 {
            return Err(too_large(MAX_BODY));
        }
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame =
                frame.map_err(|e| self.transport_error(what, &e, "reading the answer: "))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if bytes.len().saturating_add(data.len()) > MAX_BODY {
                return Err(too_large(MAX_BODY));
            }
            let spent =
                self.body_budget
                    .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                        left.checked_sub(data.len())
                    });
            if spent.is_err() {
                return Err(ApiError::Invalid {
                    what: what.to_owned(),
                    message: format!(
                        "the answers of this run are larger than {} MiB together",
                        MAX_TOTAL_BODY >> 20
                    ),
                });
            }
            bytes.extend_from_slice(&data);
        }
        Ok(bytes)
    }

    fn transport_error(&self, what: &str, err: &octocrab::Error, doing: &str) -> ApiError {
        let (what, host) = (what.to_owned(), self.host.clone());
        if let Some(reason) = certificate_problem(err) {
            return ApiError::Certificate { what, host, reason };
        }
        if let Some(reason) = tls_problem(err) {
            return ApiError::Tls { what, host, reason };
        }
        ApiError::Transport {
            what,
            host,
            cause: format!("{doing}{}", root_cause(err)),
        }
    }

    /// GET with the retry policy; returns the first answer that is not worth
    /// retrying, or the error that ended the retries.
    async fn get(
        &self,
        path: &str,
        accept: &'static str,
        what: &str,
        permission: Permission,
        repo: &RepoName,
    ) -> Result<Reply, ApiError> {
        let mut attempt: u32 = 0;
        loop {
            let (hint, give_up) = match self.attempt(path, accept, what).await {
                Ok(answer) if answer.status.is_success() => return Ok(answer),
                Ok(answer) => match self.classify(&answer, what, permission, repo) {
                    Verdict::Fail(err) => return Err(err),
                    Verdict::Retry(hint, give_up) => (hint, give_up),
                },
                Err(err @ ApiError::Transport { .. }) => (None, err),
                Err(err) => return Err(err),
            };
            attempt = attempt.saturating_add(1);
            if attempt > RETRIES {
                return Err(match give_up {
                    ApiError::ServerError { what, status, .. } => ApiError::ServerError {
                        what,
                        status,
                        attempts: attempt,
                    },
                    other => other,
                });
            }
            // The server's own wait (Retry-After, x-ratelimit-reset) when it
            // gave one, else jittered exponential backoff; never past the deadline.
            let wait = hint
                .unwrap_or_else(|| backoff(attempt.saturating_sub(1)))
                .min(MAX_WAIT);
            let fits = Instant::now()
                .checked_add(wait)
                .is_some_and(|end| end < self.deadline);
            if !fits {
                return Err(give_up);
            }
            tokio::time::sleep(wait).await;
        }
    }

    fn classify(
        &self,
        answer: &Reply,
        what: &str,
        permission: Permission,
        repo: &RepoName,
    ) -> Verdict {
        let status = answer.status;
        let message = serde_json::from_slice::<ErrorBody>(&answer.body)
            .ok()
            .and_then(|b| b.message)
            .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_owned());
        let message = crate::runner::shown(&message.replace(['\r', '\n'], " "));
        let retry_after = header_u64(&answer.headers, "retry-after").map(Duration::from_secs);
        let remaining = header_u64(&answer.headers, "x-ratelimit-remaining");
        let reset = header_u64(&answer.headers, "x-ratelimit-reset");
        let rate_limited = status == StatusCode::TOO_MANY_REQUESTS
            || (status == StatusCode::FORBIDDEN
                && (remaining == Some(0)
                    || retry_after.is_some()
                    || message.to_lowercase().contains("rate limit")));
        if rate_limited {
            // The hourly quota is used up only when nothing remains; its end
            // is x-ratelimit-reset. Anything else is a secondary limit:
            // Retry-After if given, else at least a minute.
            // See <https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api>.
            let primary = remaining == Some(0);
            let until_reset = reset
                .filter(|_| primary)
                .map(|r| Duration::from_secs(r.saturating_sub(now_epoch()).saturating_add(1)));
            let wait = retry_after
                .or(until_reset)
                .unwrap_or(SECONDARY_WAIT)
                .min(MAX_WAIT);
            let give_up = ApiError::RateLimited {
                what: what.to_owned(),
                kind: if primary {
                    "rate limit"
                } else {
                    "secondary rate limit"
                },
                status: status.as_u16(),
                wait_seconds: wait.as_secs(),
            };
            return Verdict::Retry(Some(wait), give_up);
        }
        match status.as_u16() {
            401 => Verdict::Fail(ApiError::Unauthorized {
                what: what.to_owned(),
                message,
            }),
            403 => Verdict::Fail(ApiError::Forbidden {
                what: what.to_owned(),
                status: status.as_u16(),
                message,
                permission: permission.text(),
            }),
            404 => Verdict::Fail(ApiError::NotFound {
                what: what.to_owned(),
                repo: repo.to_string(),
            }),
            500..=599 => Verdict::Retry(
                None,
                ApiError::ServerError {
                    what: what.to_owned(),
                    status: status.as_u16(),
                    attempts: 1,
                },
            ),
            code => Verdict::Fail(ApiError::Status {
                what: what.to_owned(),
                status: code,
                message,
            }),
        }
    }

    async fn get_json<T: DeserializeOwned>(
        &self,
        path: &str,
        what: &str,
        permission: Permission,
        repo: &RepoName,
    ) -> Result<(T, HeaderMap), ApiError> {
        let answer = self
            .get(path, "application/vnd.github+json", what, permission, repo)
            .await?;
        let value = serde_json::from_slice(&answer.body).map_err(|e| ApiError::Invalid {
            what: what.to_owned(),
            message: format!("invalid JSON: {e}"),
        })?;
        Ok((value, answer.headers))
    }

    /// Every page of a paginated GET, following `rel="next"` links (as paths
    /// on the same base URL) up to `max_pages`.
    async fn get_pages<T: DeserializeOwned>(
        &self,
        first: String,
        what: &str,
        permission: Permission,
        repo: &RepoName,
        max_pages: usize,
    ) -> Result<Vec<T>, ApiError> {
        let mut pages = Vec::new();
        let mut path = first;
        for _ in 0..max_pages {
            let (page, headers): (T, _) = self.get_json(&path, what, permission, repo).await?;
            pages.push(page);
            match next_link(&headers) {
                Some(next) => path = next,
                None => break,
            }
        }
        Ok(pages)
    }

    fn sha(value: &str, what: &str) -> Result<Sha, ApiError> {
        Sha::parse(value.trim()).map_err(|e| ApiError::Invalid {
            what: what.to_owned(),
            message: e.to_string(),
        })
    }

    /// The commit a branch, tag or SHA names now: `GET /repos/{o}/{r}/commits/{ref}`
    /// with the `sha` media type, whose body is the 40 hex digits alone.
    pub async fn commit_sha(&self, repo: &RepoName, reference: &str) -> Result<Sha, ApiError> {
        let what = format!("commit of {reference}");
        let path = format!("/repos/{repo}/commits/{}", encode_path(reference));
        let answer = self
            .get(
                &path,
                "application/vnd.github.sha",
                &what,
                Permission::Contents,
                repo,
            )
            .await?;
        Self::sha(&String::from_utf8_lossy(&answer.body), &what)
    }

    /// The repository's default branch: `GET /repos/{o}/{r}`.
    pub async fn default_branch(&self, repo: &RepoName) -> Result<String, ApiError> {
        #[derive(Deserialize)]
        struct Repository {
            default_branch: String,
        }
        let what = format!("repository {repo}");
        let (r, _): (Repository, _) = self
            .get_json(&format!("/repos/{repo}"), &what, Permission::Contents, repo)
            .await?;
        Ok(r.default_branch)
    }

    /// `merge_base_commit.sha` of `GET /repos/{o}/{r}/compare/{base}...{head}`.
    /// `base` may be a branch name. `per_page=1` keeps the commit list short.
    pub async fn merge_base(
        &self,
        repo: &RepoName,
        base: &str,
        head: &Sha,
    ) -> Result<Sha, ApiError> {
        #[derive(Deserialize)]
        struct Compare {
            merge_base_commit: Commit,
        }
        #[derive(Deserialize)]
        struct Commit {
            sha: String,
        }
        let what = format!("merge-base of {base} and {head}");
        let path = format!(
            "/repos/{repo}/compare/{}...{head}?per_page=1",
            encode_path(base)
        );
        let (c, _): (Compare, _) = self
            .get_json(&path, &what, Permission::Contents, repo)
            .await?;
        Self::sha(&c.merge_base_commit.sha, &what)
    }

    /// The first parent of `commit`, `None` for a root commit:
    /// `GET /repos/{o}/{r}/commits/{sha}` (`per_page=1` keeps its file list short).
    pub async fn first_parent(
        &self,
        repo: &RepoName,
        commit: &Sha,
    ) -> Result<Option<Sha>, ApiError> {
        #[derive(Deserialize)]
        struct Commit {
            parents: Vec<Parent>,
        }
        #[derive(Deserialize)]
        struct Parent {
            sha: String,
        }
        let what = format!("parents of {commit}");
        let path = format!("/repos/{repo}/commits/{commit}?per_page=1");
        let (c, _): (Commit, _) = self
            .get_json(&path, &what, Permission::Contents, repo)
            .await?;
        match c.parents.first() {
            Some(parent) => Ok(Some(Self::sha(&parent.sha, &what)?)),
            None => Ok(None),
        }
    }

    /// `GET /repos/{o}/{r}/pulls/{number}`.
    pub async fn pull(&self, repo: &RepoName, number: u64) -> Result<Pull, ApiError> {
        let what = format!("pull request #{number}");
        let path = format!("/repos/{repo}/pulls/{number}");
        let (p, _): (Pull, _) = self
            .get_json(&path, &what, Permission::PullRequests, repo)
            .await?;
        Ok(p)
    }

    /// Pull requests of `repo` whose head is `owner:branch`:
    /// `GET /repos/{o}/{r}/pulls?state=all&head=owner:branch`, every page.
    pub async fn pulls_with_head(
        &self,
        repo: &RepoName,
        head_owner: &str,
        branch: &str,
    ) -> Result<Vec<Pull>, ApiError> {
        let what = format!("pull requests with head {head_owner}:{branch}");
        let head = encode_query(&format!("{head_owner}:{branch}"));
        let first = format!("/repos/{repo}/pulls?state=all&per_page=100&head={head}");
        let pages: Vec<Vec<Pull>> = self
            .get_pages(first, &what, Permission::PullRequests, repo, 10)
            .await?;
        Ok(pages.into_iter().flatten().collect())
    }

    /// Every tag whose name starts with `prefix`, in one request:
    /// `GET /repos/{o}/{r}/git/matching-refs/tags/{prefix}` answers all
    /// matching refs in one array, however many there are. A `Link` header
    /// (should a server ever paginate it) is followed.
    pub async fn tags(&self, repo: &RepoName, prefix: &str) -> Result<Vec<Tag>, ApiError> {
        #[derive(Deserialize)]
        struct Ref {
            #[serde(rename = "ref")]
            name: String,
            object: GitObject,
        }
        let what = format!("tags of {repo}");
        let first = format!(
            "/repos/{repo}/git/matching-refs/tags/{}",
            encode_path(prefix)
        );
        let pages: Vec<Vec<Ref>> = self
            .get_pages(first, &what, Permission::Contents, repo, 100)
            .await?;
        let mut tags = Vec::new();
        for r in pages.into_iter().flatten() {
            let Some(name) = r.name.strip_prefix("refs/tags/") else {
                continue;
            };
            let Ok(object) = Sha::parse(&r.object.sha) else {
                continue;
            };
            let commit = (r.object.kind == "commit").then(|| object.clone());
            tags.push(Tag {
                name: name.to_owned(),
                object,
                commit,
            });
        }
        Ok(tags)
    }

    /// Artifacts of `repo` named exactly `name`, every page (at most 10):
    /// `GET /repos/{o}/{r}/actions/artifacts?name=NAME&per_page=100`.
    pub async fn artifacts(&self, repo: &RepoName, name: &str) -> Result<Vec<Artifact>, ApiError> {
        #[derive(Deserialize)]
        struct Page {
            artifacts: Vec<Artifact>,
        }
        let what = format!("artifacts named {name}");
        let first = format!(
            "/repos/{repo}/actions/artifacts?per_page=100&name={}",
            encode_query(name)
        );
        let pages: Vec<Page> = self
            .get_pages(first, &what, Permission::Actions, repo, 10)
            .await?;
        Ok(pages
            .into_iter()
            .flat_map(|p| p.artifacts)
            .filter(|a| a.name == name)
            .collect())
    }

    /// Ids of the successful runs of `workflow` (a file name such as
    /// `benchmark.yml`) for commit `sha`:
    /// `GET /repos/{o}/{r}/actions/workflows/{workflow}/runs?head_sha=SHA&status=success`.
    pub async fn successful_runs(
        &self,
        repo: &RepoName,
        workflow: &str,
        sha: &Sha,
    ) -> Result<Vec<u64>, ApiError> {
        #[derive(Deserialize)]
        struct Page {
            workflow_runs: Vec<Run>,
        }
        #[derive(Deserialize)]
        struct Run {
            id: u64,
            conclusion: Option<String>,
        }
        let what = format!("successful runs of {workflow} for {sha}");
        let path = format!(
            "/repos/{repo}/actions/workflows/{}/runs?head_sha={sha}&status=success&per_page=100",
            encode_path(workflow)
        );
        let (page, _): (Page, _) = self
            .get_json(&path, &what, Permission::Actions, repo)
            .await?;
        Ok(page
            .workflow_runs
            .into_iter()
            .filter(|r| r.conclusion.as_deref() == Some("success"))
            .map(|r| r.id)
            .collect())
    }

    /// Peels an annotated tag object to the commit it points at:
    /// `GET /repos/{o}/{r}/git/tags/{sha}`, repeated for a tag of a tag.
    pub async fn peel(&self, repo: &RepoName, tag: &Tag) -> Result<Sha, ApiError> {
        #[derive(Deserialize)]
        struct TagObject {
            object: GitObject,
        }
        if let Some(commit) = &tag.commit {
            return Ok(commit.clone());
        }
        let what = format!("tag object of {}", tag.name);
        let mut object = tag.object.clone();
        for _ in 0..4 {
            let path = format!("/repos/{repo}/git/tags/{object}");
            let (t, _): (TagObject, _) = self
                .get_json(&path, &what, Permission::Contents, repo)
                .await?;
            object = Self::sha(&t.object.sha, &what)?;
            if t.object.kind == "commit" {
                return Ok(object);
            }
        }
        Err(ApiError::Invalid {
            what,
            message: "a chain of more than 4 tag objects".to_owned(),
        })
    }
}

/// What an artifact answer holds that the resolver reads
/// (`GET /repos/{o}/{r}/actions/artifacts`).
#[derive(Debug, Clone, Deserialize)]
pub struct Artifact {
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub expired: bool,
    pub created_at: Option<String>,
    pub workflow_run: Option<ArtifactRun>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ArtifactRun {
    pub id: Option<u64>,
    pub head_sha: Option<String>,
}

enum Verdict {
    Fail(ApiError),
    /// Worth another attempt: after the server's wait if it gave one; the
    /// error to report if no attempt is left.
    Retry(Option<Duration>, ApiError),
}

/// What a pull request answer holds that the resolver reads.
#[derive(Debug, Clone, Deserialize)]
pub struct Pull {
    pub number: u64,
    /// `open` or `closed`.
    pub state: Option<String>,
    pub base: PullSide,
    pub head: PullSide,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullSide {
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    pub sha: String,
    pub repo: Option<PullRepo>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullRepo {
    pub id: Option<u64>,
    pub full_name: Option<String>,
}

/// The `rel="next"` URL of a `Link` header, as a path with query.
fn next_link(headers: &HeaderMap) -> Option<String> {
    let link = headers.get(header::LINK)?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        if !params.split(';').any(|p| p.trim() == "rel=\"next\"") {
            return None;
        }
        let url = url.trim().strip_prefix('<')?.strip_suffix('>')?;
        // Keep the path and query: the base URI (and its auth) stays ours.
        let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
        let path = after_scheme.get(after_scheme.find('/')?..)?;
        Some(path.to_owned())
    })
}

/// The client every API request goes through. Redirects keep reqwest's
/// default: at most 10, and `Authorization` is dropped when one leaves the host.
fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .min_tls_version(reqwest::tls::Version::TLS_1_2)
        .build()
}

/// The errors an error wraps, outermost first.
fn chain<'a>(
    err: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(err), |e| e.source())
}

/// Why the server's certificate was refused, when that is what failed:
/// OpenSSL's verify result (`unable to get local issuer certificate`,
/// `hostname mismatch`, `certificate has expired`).
fn certificate_problem(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    chain(err).find_map(|e| {
        let text = e.to_string();
        if !text.contains("certificate verify failed") {
            return None;
        }
        // native-tls appends the verify result in parentheses.
        let reason = text
            .rsplit_once(" (")
            .and_then(|(_, r)| r.strip_suffix(')'))
            .unwrap_or("certificate verify failed");
        Some(reason.to_owned())
    })
}

/// OpenSSL's reason when the TLS handshake failed for something other than
/// the certificate: `error:0A000102:SSL routines:FUNCTION:REASON:FILE:LINE:`.
fn tls_problem(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    chain(err).find_map(|e| {
        let text = e.to_string();
        let at = text.find("SSL routines:")?;
        let routines = text.get(at..)?;
        Some(routines.split(':').nth(2).unwrap_or("failed").to_owned())
    })
}

/// The root cause of a failed request in a few words, once: the wrappers
/// around it (octocrab, reqwest, hyper) each repeat the URL and add nothing.
fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    for e in chain(err) {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            let phrase = match io.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused",
                std::io::ErrorKind::ConnectionReset => "connection reset",
                std::io::ErrorKind::ConnectionAborted => "connection aborted",
                std::io::ErrorKind::TimedOut => "connection timed out",
                std::io::ErrorKind::UnexpectedEof => "connection closed early",
                _ => continue,
            };
            return phrase.to_owned();
        }
    }
    let deepest = chain(err)
        .last()
        .map(ToString::to_string)
        .unwrap_or_default();
    let one_line = deepest.replace(['\r', '\n'], " ");
    crate::runner::shown(one_line.trim())
}

/// Percent-encodes a ref or prefix for a URL path; `/` stays (refs contain it).
fn encode_path(value: &str) -> String {
    encode(value, |b| {
        b.is_ascii_alphanumeric() || b"-._~/".contains(&b)
    })
}

fn encode_query(value: &str) -> String {
    encode(value, |b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

fn encode(value: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_header_next() {
        let mut h = HeaderMap::new();
        h.insert(
            header::LINK,
            HeaderValue::from_static(
                r#"<https://api.github.com/repositories/1/tags?page=2>; rel="next", <https://api.github.com/repositories/1/tags?page=5>; rel="last""#,
            ),
        );
        assert_eq!(
            next_link(&h).as_deref(),
            Some("/repositories/1/tags?page=2")
        );
        h.insert(
            header::LINK,
            HeaderValue::from_static(r#"<https://x/a?page=1>; rel="prev""#),
        );
        assert_eq!(next_link(&h), None);
    }

    #[test]
    fn encoding() {
        assert_eq!(encode_path("release/v1$(id)"), "release/v1%24%28id%29");
        assert_eq!(encode_query("a:b/c"), "a%3Ab%2Fc");
    }

    /// Without a TLS feature reqwest refuses an https URL before it
    /// connects ("scheme is not http"); with one, it gets as far as the
    /// (refused) connection.
    #[test]
    fn the_client_speaks_https() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = http_client().unwrap();
        let err = runtime
            .block_on(client.get("https://127.0.0.1:1/").send())
            .unwrap_err();
        assert_eq!(root_cause(&err), "connection refused", "{err:?}");
        assert_eq!(certificate_problem(&err), None);
    }

    #[test]
    fn backoff_is_jittered_and_bounded() {
        for attempt in 0..8 {
            let cap = BACKOFF_BASE * 2u32.pow(attempt.min(6));
            let wait = backoff(attempt);
            assert!(wait >= cap / 2 && wait <= cap, "{attempt}: {wait:?}");
        }
    }
}
