//! Git over smart HTTP and TLS on 127.0.0.1, the way GitHub serves git:
//! `git http-backend` (run as CGI, once per request) behind a small hyper
//! server, behind the TLS front. Every request is recorded, with the
//! credentials it carried, so a test can check where the token went.
//! Stops when dropped.

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::support::tls::{Front, Options};

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query.
    pub target: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

pub struct GitHttps {
    pub front: Front,
    state: Arc<State>,
    task: JoinHandle<()>,
}

/// What every request handler shares.
struct State {
    root: PathBuf,
    seen: Mutex<Vec<Seen>>,
    /// Answer a request without credentials with 401 and a Basic challenge,
    /// as GitHub does for a private repository.
    private: AtomicBool,
    /// Answer every request with a 302 to this base URL, path kept.
    redirect: Mutex<Option<String>>,
    /// Cut this many bytes off the end of every pack (a POST's answer), as
    /// a connection lost mid-transfer would.
    cut_pack: Mutex<Option<usize>>,
}

impl GitHttps {
    /// Serves every repository under `root` (`root/owner/name.git`).
    pub async fn start(root: &Path) -> GitHttps {
        GitHttps::start_with(root, Options::http1()).await
    }

    /// With a TLS front of another shape (another CA, say).
    pub async fn start_with(root: &Path, options: Options<'_>) -> GitHttps {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let state = Arc::new(State {
            root: root.to_owned(),
            seen: Mutex::default(),
            private: AtomicBool::new(false),
            redirect: Mutex::default(),
            cut_pack: Mutex::default(),
        });
        let shared = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let state = shared.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request| handle(request, state.clone()));
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(socket), service)
                        .await;
                });
            }
        });
        let front = Front::start(address, options).await;
        GitHttps { front, state, task }
    }

    /// From now on, ask for credentials as a private repository does.
    pub fn make_private(&self) {
        self.state.private.store(true, Ordering::SeqCst);
    }

    /// From now on, send every request on to `base` with a 302.
    pub fn redirect_to(&self, base: &str) {
        *self.state.redirect.lock().unwrap() = Some(base.to_owned());
    }

    /// From now on, cut `bytes` off the end of every pack: the negotiation
    /// (and the shallow lines) arrive, the pack does not.
    pub fn cut_packs_short_by(&self, bytes: usize) {
        *self.state.cut_pack.lock().unwrap() = Some(bytes);
    }

    /// `https://127.0.0.1:PORT`, for `GITHUB_SERVER_URL`.
    pub fn url(&self) -> String {
        self.front.url()
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }
}

impl Drop for GitHttps {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn handle(
    request: Request<Incoming>,
    state: Arc<State>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    state.seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        target: parts.uri.to_string(),
        authorization: header("authorization"),
    });
    let redirect = state.redirect.lock().unwrap().clone();
    if let Some(base) = redirect {
        let mut response = text(StatusCode::FOUND, "moved");
        let location = format!("{base}{}", parts.uri);
        response.headers_mut().insert(
            "location",
            hyper::header::HeaderValue::from_str(&location).unwrap(),
        );
        return Ok(response);
    }
    if state.private.load(Ordering::SeqCst) && header("authorization").is_none() {
        let mut response = text(StatusCode::UNAUTHORIZED, "authentication required");
        response.headers_mut().insert(
            "www-authenticate",
            hyper::header::HeaderValue::from_static("Basic realm=\"GitHub\""),
        );
        return Ok(response);
    }
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let cgi = Cgi {
        root: state.root.clone(),
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or_default().to_owned(),
        content_type: header("content-type").unwrap_or_default(),
        content_encoding: header("content-encoding").unwrap_or_default(),
        git_protocol: header("git-protocol").unwrap_or_default(),
        body,
    };
    let mut response = tokio::task::spawn_blocking(move || cgi.run())
        .await
        .unwrap_or_else(|e| text(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()));
    let cut = *state.cut_pack.lock().unwrap();
    if let (Some(cut), true) = (cut, parts.method == hyper::Method::POST) {
        let whole = std::mem::take(response.body_mut())
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        *response.body_mut() = Full::new(whole.slice(..whole.len().saturating_sub(cut)));
        response.headers_mut().remove("content-length");
    }
    Ok(response)
}

fn text(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(message.to_owned())));
    *response.status_mut() = status;
    response
}

/// One `git http-backend` request, as a web server runs CGI.
struct Cgi {
    root: PathBuf,
    method: String,
    path: String,
    query: String,
    content_type: String,
    content_encoding: String,
    git_protocol: String,
    body: Bytes,
}

impl Cgi {
    fn run(self) -> Response<Full<Bytes>> {
        let mut child = Command::new("git")
            .arg("http-backend")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_PROJECT_ROOT", &self.root)
            .env("GIT_HTTP_EXPORT_ALL", "1")
            .env("REQUEST_METHOD", &self.method)
            .env("PATH_INFO", &self.path)
            .env("QUERY_STRING", &self.query)
            .env("CONTENT_TYPE", &self.content_type)
            .env("CONTENT_LENGTH", self.body.len().to_string())
            .env("HTTP_CONTENT_ENCODING", &self.content_encoding)
            .env("GIT_PROTOCOL", &self.git_protocol)
            .env("REMOTE_ADDR", "127.0.0.1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("git http-backend runs");
        let mut stdin = child.stdin.take().unwrap();
        let body = self.body.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(&body);
        });
        let out = child.wait_with_output().unwrap();
        let _ = writer.join();
        let raw = out.stdout;
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map(|i| (i, 4))
            .or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
        let Some((end, gap)) = split else {
            return text(
                StatusCode::BAD_GATEWAY,
                "no CGI header from git http-backend",
            );
        };
        let mut response = Response::new(Full::new(Bytes::copy_from_slice(&raw[end + gap..])));
        for line in String::from_utf8_lossy(&raw[..end]).lines() {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("status") {
                let code = value.split(' ').next().and_then(|c| c.parse().ok());
                *response.status_mut() = code
                    .and_then(|c| StatusCode::from_u16(c).ok())
                    .unwrap_or(StatusCode::BAD_GATEWAY);
            } else if let (Ok(n), Ok(v)) = (
                hyper::header::HeaderName::from_bytes(name.trim().as_bytes()),
                hyper::header::HeaderValue::from_str(value),
            ) {
                response.headers_mut().append(n, v);
            }
        }
        response
    }
}
