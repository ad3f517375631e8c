//! The transport: a reqwest client built here, one deadline for all
//! network work, retries by the [`policy`](super::policy), and bodies read
//! chunk by chunk under a per-answer and a per-run limit.
//!
//! Each request is the API URL's origin and path (Enterprise Server's
//! `/api/v3`, never twice) with the endpoint's path, the token as a
//! `Bearer` header marked sensitive, the API version header and our
//! user agent; the client is chosen on purpose: TLS 1.2 or newer through
//! native-tls on the OpenSSL that libgit2 already links, HTTP/2 by ALPN,
//! the proxy variables honoured. (octocrab carried the requests before; it
//! did no more than this for the three calls used, at 40 crates of build.)
//! What is ours: the deadline, the retry policy, the body budget, and the
//! request wave: the requests a resolution sends together at its start go
//! at once, each opening its own connection (at most [`SPECULATIVE`]), and
//! later ones wait only until one is open. Which protocol the server speaks
//! is known only at the end of the first TLS handshake (ALPN, 2 round
//! trips in); over HTTP/1.1 each request then needs a connection of its
//! own, and one opened only then costs 2 round trips more. Over HTTP/2 the
//! requests share a connection (the pool keeps the first to say HTTP/2 for
//! every request): a few handshakes spent for nothing, no time lost.

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use serde::de::DeserializeOwned;
use tokio::sync::watch;
use tokio::time::Instant;

use super::diagnose::{certificate_problem, root_cause, tls_problem};
use super::error::{ApiError, Permission};
use super::policy::{self, Asked, Disposition, MAX_WAIT, RETRIES};
use crate::validate::RepoName;
use crate::validate::secret::Secret;

#[derive(Clone)]
pub struct Config {
    /// e.g. `https://api.github.com` or `https://HOST/api/v3`.
    pub api_url: String,
    pub token: Option<Secret>,
    pub timeout: Duration,
}

/// The most one answer may hold. 10,000 tags are 2.3 MB; anything near
/// this is not what was asked for, and reading stops here, mid-stream.
const MAX_BODY: usize = 32 * 1024 * 1024;
/// The most all answers of a run may hold together (pages and concurrent
/// lookups included), so no server can push memory past about 100 MB.
const MAX_TOTAL_BODY: usize = 48 * 1024 * 1024;

/// The most requests that go before a connection is open, each opening its
/// own: enough for a resolution's first wave (the tag listing, the runs of
/// the base SHA and up to six artifact lookups) to be answered 3 round trips
/// in over HTTP/1.1 as over HTTP/2, few enough that a server never sees a
/// burst of handshakes from one run.
const SPECULATIVE: usize = 8;

/// The REST API version every request asks for.
const API_VERSION: &str = "2022-11-28";
const USER_AGENT: &str = concat!("baseline-resolver/", env!("CARGO_PKG_VERSION"));

pub struct Api {
    http: reqwest::Client,
    /// `scheme://host[:port]` of the API URL.
    origin: String,
    /// Its path (`/api/v3` on Enterprise Server, empty on github.com).
    base_path: String,
    /// `Bearer <token>`, marked sensitive (never logged by the client).
    auth: Option<HeaderValue>,
    /// The API URL as configured, to name the host in messages.
    host: String,
    deadline: Instant,
    timeout: Duration,
    requests: AtomicUsize,
    /// `true` once a connection to the API host is open (or an early
    /// request is over): from then on requests go at once, over HTTP/2 on
    /// that connection. Until then the first [`SPECULATIVE`] requests go
    /// (each may open a connection) and the others wait.
    open: watch::Sender<bool>,
    /// Requests sent before any connection was open.
    early: AtomicUsize,
    /// Bytes of answer bodies still allowed in this run ([`MAX_TOTAL_BODY`]).
    body_budget: AtomicUsize,
}

/// The methods [`Api::write`] sends.
#[derive(Debug, Clone, Copy)]
pub enum Write {
    Post,
    Patch,
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

fn now_epoch() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Api {
    pub fn new(config: Config) -> Result<Api, ApiError> {
        let what = "API client".to_owned();
        let invalid = |message: String| ApiError::Invalid {
            what: what.clone(),
            message: format!("GITHUB_API_URL {:?}: {message}", config.api_url),
        };
        let url = url::Url::parse(&config.api_url).map_err(|e| invalid(e.to_string()))?;
        let origin = url.origin();
        if !origin.is_tuple() {
            return Err(invalid("not an http(s) URL".to_owned()));
        }
        let auth = match &config.token {
            // The one place the API's token leaves its Secret.
            Some(token) => {
                let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose()))
                    .map_err(|_| invalid("the token is not a header value".to_owned()))?;
                value.set_sensitive(true);
                Some(value)
            }
            None => None,
        };
        let (open, _) = watch::channel(false);
        let http = http_client(Opened(open.clone())).map_err(|e| ApiError::Transport {
            what: what.clone(),
            host: config.api_url.clone(),
            cause: root_cause(&e),
        })?;
        Ok(Api {
            http,
            origin: origin.ascii_serialization(),
            base_path: url.path().trim_end_matches('/').to_owned(),
            auth,
            host: config.api_url,
            // The timeout is at most an hour (validated), so this cannot overflow.
            deadline: Instant::now()
                .checked_add(config.timeout)
                .unwrap_or_else(Instant::now),
            timeout: config.timeout,
            requests: AtomicUsize::new(0),
            open,
            early: AtomicUsize::new(0),
            body_budget: AtomicUsize::new(MAX_TOTAL_BODY),
        })
    }

    /// The URL of `path` (with its query): the API URL's path before it,
    /// unless `path` already starts with it (a `Link` page names the
    /// whole path, `/api/v3` included).
    fn url_of(&self, path: &str) -> String {
        if path.starts_with(&self.base_path) {
            format!("{}{path}", self.origin)
        } else {
            format!("{}{}{path}", self.origin, self.base_path)
        }
    }

    /// One request with the headers every request carries.
    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .request(method, self.url_of(path))
            .header(header::USER_AGENT, USER_AGENT)
            .header("x-github-api-version", API_VERSION);
        if let Some(auth) = &self.auth {
            request = request.header(header::AUTHORIZATION, auth.clone());
        }
        request
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
        let send = async {
            let response = self.send(path, accept, what).await?;
            let (status, headers) = (response.status(), response.headers().clone());
            let body = self.read_body(response, &headers, what).await?;
            Ok(Reply {
                status,
                headers,
                body,
            })
        };
        match tokio::time::timeout_at(self.deadline, send).await {
            Ok(result) => result,
            Err(_) => Err(self.deadline_error(what)),
        }
    }

    /// Sends one GET and waits for the answer's head. Until a connection is
    /// open, the first [`SPECULATIVE`] requests go at once and the others
    /// wait for one to open.
    async fn send(
        &self,
        path: &str,
        accept: &'static str,
        what: &str,
    ) -> Result<reqwest::Response, ApiError> {
        let opener =
            !*self.open.borrow() && self.early.fetch_add(1, Ordering::AcqRel) < SPECULATIVE;
        if !opener && !*self.open.borrow() {
            let mut open = self.open.subscribe();
            let _ = open.wait_for(|open| *open).await;
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let response = self
            .request(Method::GET, path)
            .header(header::ACCEPT, accept)
            .send()
            .await
            .map_err(|e| self.transport_error(what, &e, ""));
        if opener {
            // Answered or failed: nobody waits on this request any more.
            self.open.send_replace(true);
        }
        response
    }

    /// Reads a body chunk by chunk and stops at [`MAX_BODY`], or when the
    /// run's [`MAX_TOTAL_BODY`] is spent: the size is checked while it
    /// streams, so an endless answer costs no more memory than the limit.
    async fn read_body(
        &self,
        mut response: reqwest::Response,
        headers: &HeaderMap,
        what: &str,
    ) -> Result<Vec<u8>, ApiError> {
        let too_large = |limit: usize| ApiError::Invalid {
            what: what.to_owned(),
            message: format!("the answer is larger than {} MiB", limit >> 20),
        };
        let declared = policy::header_u64(headers, "content-length").unwrap_or(0);
        if declared > MAX_BODY as u64 {
            return Err(too_large(MAX_BODY));
        }
        let mut bytes = Vec::new();
        while let Some(data) = response
            .chunk()
            .await
            .map_err(|e| self.transport_error(what, &e, "reading the answer: "))?
        {
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

    fn transport_error(&self, what: &str, err: &reqwest::Error, doing: &str) -> ApiError {
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
    pub(super) async fn get(
        &self,
        path: &str,
        accept: &'static str,
        what: &str,
        permission: Permission,
        repo: &RepoName,
    ) -> Result<Reply, ApiError> {
        let asked = Asked {
            what,
            permission,
            repo,
        };
        let mut attempt: u32 = 0;
        loop {
            let (hint, give_up) = match self.attempt(path, accept, what).await {
                Ok(answer) if answer.status.is_success() => return Ok(answer),
                Ok(answer) => {
                    match policy::classify(
                        answer.status,
                        &answer.headers,
                        &answer.body,
                        &asked,
                        now_epoch(),
                    ) {
                        Disposition::Fail(err) => return Err(err),
                        Disposition::Retry(hint, give_up) => (hint, give_up),
                    }
                }
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
                .unwrap_or_else(|| policy::backoff(attempt.saturating_sub(1)))
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

    /// One write (`POST` or `PATCH` with a JSON body), retried only when
    /// the server says it did not take it (a rate limit with its wait): a
    /// 5xx or a lost connection may have created the comment already, and
    /// a second one must not be.
    pub(super) async fn write<T: DeserializeOwned>(
        &self,
        method: Write,
        path: &str,
        body: &serde_json::Value,
        asked: &Asked<'_>,
    ) -> Result<T, ApiError> {
        let what = asked.what;
        let mut attempt: u32 = 0;
        loop {
            let send = async {
                self.requests.fetch_add(1, Ordering::Relaxed);
                let method = match method {
                    Write::Post => Method::POST,
                    Write::Patch => Method::PATCH,
                };
                let response = self
                    .request(method, path)
                    .header(header::ACCEPT, "application/vnd.github+json")
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(body.to_string())
                    .send()
                    .await
                    .map_err(|e| self.transport_error(what, &e, ""))?;
                let (status, headers) = (response.status(), response.headers().clone());
                let body = self.read_body(response, &headers, what).await?;
                Ok::<_, ApiError>((status, headers, body))
            };
            let (status, headers, bytes) = tokio::time::timeout_at(self.deadline, send)
                .await
                .map_err(|_| self.deadline_error(what))??;
            if status.is_success() {
                return serde_json::from_slice(&bytes).map_err(|e| ApiError::Invalid {
                    what: what.to_owned(),
                    message: format!("invalid JSON: {e}"),
                });
            }
            let give_up = match policy::classify(status, &headers, &bytes, asked, now_epoch()) {
                Disposition::Retry(Some(wait), err @ ApiError::RateLimited { .. }) => {
                    let fits = Instant::now()
                        .checked_add(wait)
                        .is_some_and(|end| end < self.deadline);
                    if !fits || attempt >= RETRIES {
                        return Err(err);
                    }
                    tokio::time::sleep(wait).await;
                    None
                }
                Disposition::Retry(_, err) | Disposition::Fail(err) => Some(err),
            };
            if let Some(err) = give_up {
                return Err(err);
            }
            attempt = attempt.saturating_add(1);
        }
    }

    pub(super) async fn get_json<T: DeserializeOwned>(
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
    /// on the same base URL) up to `max_pages`. A listing that is not read
    /// to its end is an error, never a shorter answer: a `next` link that
    /// names a page already read (a loop), or `max_pages` read with a
    /// `next` still ahead. A caller that acts on "not in the list" (create
    /// a comment, say no artifact exists) must have seen the whole list.
    pub(super) async fn get_pages<T: DeserializeOwned>(
        &self,
        first: String,
        what: &str,
        permission: Permission,
        repo: &RepoName,
        max_pages: usize,
    ) -> Result<Vec<T>, ApiError> {
        let mut pages = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut path = first;
        loop {
            let (page, headers): (T, _) = self.get_json(&path, what, permission, repo).await?;
            pages.push(page);
            seen.insert(path);
            let Some(next) = policy::next_link(&headers) else {
                return Ok(pages);
            };
            if seen.contains(&next) {
                return Err(ApiError::Invalid {
                    what: what.to_owned(),
                    message: format!(
                        "the pages loop: page {} links back to a page already read",
                        pages.len()
                    ),
                });
            }
            if pages.len() >= max_pages {
                return Err(ApiError::Invalid {
                    what: what.to_owned(),
                    message: format!(
                        "more than {max_pages} pages; the listing was not read to its end"
                    ),
                });
            }
            path = next;
        }
    }
}

/// The client every API request goes through. Redirects keep reqwest's
/// default: at most 10, and `Authorization` is dropped when one leaves the
/// host.
fn http_client(opened: Opened) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .min_tls_version(reqwest::tls::Version::TLS_1_2)
        .connector_layer(opened)
        .build()
}

/// A connector layer that says when a connection is open (TCP, and TLS
/// with its ALPN): the moment the requests waiting for it may go.
#[derive(Clone)]
struct Opened(watch::Sender<bool>);

#[derive(Clone)]
struct OpenedService<S> {
    inner: S,
    open: watch::Sender<bool>,
}

impl<S> tower_layer::Layer<S> for Opened {
    type Service = OpenedService<S>;

    fn layer(&self, inner: S) -> OpenedService<S> {
        OpenedService {
            inner,
            open: self.0.clone(),
        }
    }
}

type Connecting<R, E> = Pin<Box<dyn std::future::Future<Output = Result<R, E>> + Send>>;

impl<S, Request> tower_service::Service<Request> for OpenedService<S>
where
    S: tower_service::Service<Request>,
    S::Future: Send + 'static,
    S::Response: 'static,
    S::Error: 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Connecting<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let connecting = self.inner.call(request);
        let open = self.open.clone();
        Box::pin(async move {
            let connection = connecting.await;
            if connection.is_ok() {
                open.send_replace(true);
            }
            connection
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a TLS feature reqwest refuses an https URL before it
    /// connects ("scheme is not http"); with one, it gets as far as the
    /// (refused) connection.
    #[test]
    fn the_client_speaks_https() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (open, _) = watch::channel(false);
        let err = runtime
            .block_on(async {
                let client = http_client(Opened(open.clone())).unwrap();
                client.get("https://127.0.0.1:1/").send().await
            })
            .unwrap_err();
        assert_eq!(root_cause(&err), "connection refused", "{err:?}");
        assert_eq!(certificate_problem(&err), None);
        assert!(!*open.borrow(), "a refused connection is not open");
    }
}
