//! URLs the runner hands over: `GITHUB_SERVER_URL`, `GITHUB_API_URL` and
//! the proxy variables. One parser (`url::Url`) for every check: the shape
//! of a server URL, credentials that must not be in one (and never shown),
//! and the origin (scheme, host, port) the token is held to, which is what
//! keeps it on the configured hosts.

use std::fmt;

use thiserror::Error;
use url::Url;

use crate::runner::shown;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UrlProblem {
    #[error(
        "expected a {schemes} URL such as https://github.com or https://ghes.example.com, got {value:?}"
    )]
    NotUrl { schemes: String, value: String },
    #[error(
        "expected a {schemes} URL without credentials (the token goes in `token`, never in the URL), got {value:?}"
    )]
    Credentials { schemes: String, value: String },
    #[error(
        "not a proxy URL (http://HOST:PORT, https://..., socks5://...), so requests would silently go direct: {0:?}"
    )]
    Proxy(String),
}

/// `SCHEME://HOST[:PORT][/PATH]` for one of `schemes`, without a trailing
/// slash: no credentials, query or fragment, and nothing that could break
/// out of a URL or a command line.
pub fn server(value: &str, schemes: &[&str]) -> Result<String, UrlProblem> {
    let trimmed = value.trim_end_matches('/');
    let parsed = Url::parse(trimmed).ok();
    let list = schemes.join("/");
    if let Some(url) = &parsed
        && (!url.username().is_empty() || url.password().is_some())
    {
        return Err(UrlProblem::Credentials {
            schemes: list,
            value: shown(&redact(value)),
        });
    }
    let plain = trimmed.bytes().all(|b| {
        b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'/' | b'_' | b'[' | b']')
    });
    let ok = parsed.is_some_and(|url| {
        schemes.contains(&url.scheme())
            && url.query().is_none()
            && url.fragment().is_none()
            && (url.host_str().is_some_and(|h| !h.is_empty()) || url.scheme() == "file")
    });
    if ok && plain {
        Ok(trimmed.to_owned())
    } else {
        Err(UrlProblem::NotUrl {
            schemes: list,
            value: shown(value),
        })
    }
}

/// `https://user:SECRET@host/x` as `https://***@host/x`: a URL in a
/// message never shows its credentials (a value that is no URL is shown
/// without whatever precedes an `@` in what would be its authority).
pub fn redact(value: &str) -> String {
    if value.contains("://")
        && let Ok(mut url) = Url::parse(value)
    {
        if url.username().is_empty() && url.password().is_none() {
            return value.to_owned();
        }
        let _ = url.set_password(None);
        let _ = url.set_username("***");
        return url.to_string();
    }
    let start = value.find("://").map_or(0, |i| i.saturating_add(3));
    let rest = value.get(start..).unwrap_or_default();
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest.get(..end).and_then(|auth| auth.rfind('@')) {
        Some(at) => format!(
            "{}***{}",
            value.get(..start).unwrap_or_default(),
            rest.get(at..).unwrap_or_default()
        ),
        None => value.to_owned(),
    }
}

/// Checks a proxy variable's value as the HTTP client reads it (a URL, or
/// `HOST:PORT` meaning `http://HOST:PORT`): a value it cannot use would be
/// ignored and the request would go direct, past the proxy the user set.
pub fn proxy(value: &str) -> Result<(), UrlProblem> {
    let full = if value.contains("://") {
        value.to_owned()
    } else {
        format!("http://{value}")
    };
    let ok = Url::parse(&full).is_ok_and(|url| {
        ["http", "https", "socks5", "socks5h"].contains(&url.scheme())
            && url.host_str().is_some_and(|h| !h.is_empty())
    });
    if ok {
        Ok(())
    } else {
        Err(UrlProblem::Proxy(shown(&redact(value))))
    }
}

/// Scheme, host and port (the scheme's default when none is written): the
/// one server the token may go to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Origin {
    /// The origin of `url`; `None` when it has none (not a URL).
    pub fn of(url: &str) -> Option<Origin> {
        let parsed = Url::parse(url).ok()?;
        let scheme = parsed.scheme().to_ascii_lowercase();
        let port = parsed
            .port_or_known_default()
            .or_else(|| (scheme == "git").then_some(9418));
        let host = parsed
            .host_str()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        Some(Origin { scheme, host, port })
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.port {
            Some(port) => write!(f, "{}://{}:{port}", self.scheme, self.host),
            None => write!(f, "{}://{}", self.scheme, self.host),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let server = Origin::of("https://GHES.example.com").unwrap();
        for same in [
            "https://ghes.example.com/o/r.git/info/refs",
            "https://ghes.example.com:443/o/r.git",
            "https://x-access-token@ghes.example.com/o/r",
        ] {
            assert_eq!(Origin::of(same).as_ref(), Some(&server), "{same}");
        }
        for other in [
            "http://ghes.example.com/o/r.git",
            "https://ghes.example.com:8443/o/r.git",
            "https://evil.example/o/r.git",
            "https://ghes.example.com.evil.example/o/r.git",
            "https://ghes.example.com@evil.example/o/r.git",
        ] {
            assert_ne!(Origin::of(other).as_ref(), Some(&server), "{other}");
        }
        let v6 = Origin::of("https://[::1]:8443/x").unwrap();
        assert_eq!(v6.to_string(), "https://::1:8443");
        assert_eq!(Origin::of("https://h:notaport/x"), None);
        assert_eq!(
            Origin::of("git://127.0.0.1/x").unwrap().to_string(),
            "git://127.0.0.1:9418"
        );
    }

    #[test]
    fn server_urls() {
        assert_eq!(
            server("https://ghes.example.com/", &["https"]).unwrap(),
            "https://ghes.example.com"
        );
        assert!(server("https://h/api/v3", &["https"]).is_ok());
        assert!(server("ftp://x", &["https"]).is_err());
        assert!(server("https://", &["https"]).is_err());
        assert!(server("https://h/$(id)", &["https"]).is_err());
        assert!(server("file:///srv/git", &["file"]).is_ok());
        let err = server("https://x-access-token:ghs_SECRET@h/api/v3", &["https"]).unwrap_err();
        assert!(!err.to_string().contains("ghs_SECRET"), "{err}");
        assert!(err.to_string().contains("https://***@h/api/v3"), "{err}");
    }

    #[test]
    fn redaction() {
        assert_eq!(redact("https://a@b@host/p@q"), "https://***@host/p@q");
        assert_eq!(redact("no url"), "no url");
        assert_eq!(redact("http://u:p@proxy:3128"), "http://***@proxy:3128/");
        assert_eq!(redact("u:p@proxy:3128"), "***@proxy:3128");
    }

    #[test]
    fn proxies() {
        for ok in [
            "http://proxy:3128",
            "proxy.corp:3128",
            "socks5://127.0.0.1:1080",
            "https://u:p@p",
        ] {
            assert!(proxy(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://",
            "::::",
            "ftp://proxy",
            "http://exa mple:80",
            "http://[::1",
        ] {
            assert!(proxy(bad).is_err(), "{bad}");
        }
        let err = proxy("http://user:s3cret@[bad").unwrap_err().to_string();
        assert!(!err.contains("s3cret"), "{err}");
    }
}
