//! The retry and rate-limit policy, pure: an answer's status, headers and
//! body in, what to do out (fail with which error, or retry after how
//! long). GitHub's rules: the hourly quota is used up when
//! `x-ratelimit-remaining: 0`, and lifts at `x-ratelimit-reset`; anything
//! else answered 429, or 403 with `Retry-After` or a "rate limit" message,
//! is a secondary limit that lifts after `Retry-After`, or at least a
//! minute when it names none. Every wait a server asks for is clamped.
//! See <https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api>.

use std::time::Duration;

use http::{HeaderMap, StatusCode, header};

use super::error::{ApiError, Permission};
use super::wire::ErrorBody;
use crate::runner::shown;
use crate::validate::RepoName;

/// Retries after the first attempt, for 5xx and connection errors.
pub const RETRIES: u32 = 3;
const BACKOFF_BASE: Duration = Duration::from_millis(200);
/// The longest wait a server may ask for (`Retry-After`,
/// `x-ratelimit-reset`); the deadline is never longer than this anyway.
pub const MAX_WAIT: Duration = Duration::from_secs(3600);
/// How long to wait on a secondary rate limit that names no wait, as
/// GitHub's documentation asks.
const SECONDARY_WAIT: Duration = Duration::from_secs(60);

/// What to do with an answer that is not a success.
#[derive(Debug, PartialEq)]
pub enum Disposition {
    Fail(ApiError),
    /// Worth another attempt: after the server's wait if it gave one; the
    /// error to report if no attempt is left.
    Retry(Option<Duration>, ApiError),
}

/// The request an answer belongs to, for its error.
pub struct Asked<'a> {
    pub what: &'a str,
    pub permission: Permission,
    pub repo: &'a RepoName,
}

pub fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// Full jitter: a random wait between half and all of `base * 2^attempt`.
pub fn backoff(attempt: u32) -> Duration {
    let cap = BACKOFF_BASE.saturating_mul(2u32.saturating_pow(attempt.min(6)));
    let mut byte = [0u8; 1];
    let _ = getrandom::fill(&mut byte);
    cap.mul_f64(0.5 + 0.5 * f64::from(byte[0]) / 255.0)
}

/// Decides on an answer that is not a success; `now` is the Unix time, for
/// `x-ratelimit-reset`.
pub fn classify(
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    asked: &Asked<'_>,
    now: u64,
) -> Disposition {
    let what = asked.what.to_owned();
    let message = serde_json::from_slice::<ErrorBody>(body)
        .ok()
        .and_then(|b| b.message)
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_owned());
    let message = shown(&message.replace(['\r', '\n'], " "));
    let retry_after = header_u64(headers, "retry-after").map(Duration::from_secs);
    let remaining = header_u64(headers, "x-ratelimit-remaining");
    let reset = header_u64(headers, "x-ratelimit-reset");
    let rate_limited = status == StatusCode::TOO_MANY_REQUESTS
        || (status == StatusCode::FORBIDDEN
            && (remaining == Some(0)
                || retry_after.is_some()
                || message.to_lowercase().contains("rate limit")));
    if rate_limited {
        let primary = remaining == Some(0);
        let until_reset = reset
            .filter(|_| primary)
            .map(|r| Duration::from_secs(r.saturating_sub(now).saturating_add(1)));
        let wait = retry_after
            .or(until_reset)
            .unwrap_or(SECONDARY_WAIT)
            .min(MAX_WAIT);
        let give_up = ApiError::RateLimited {
            what,
            kind: if primary {
                "rate limit"
            } else {
                "secondary rate limit"
            },
            status: status.as_u16(),
            wait_seconds: wait.as_secs(),
        };
        return Disposition::Retry(Some(wait), give_up);
    }
    match status.as_u16() {
        401 => Disposition::Fail(ApiError::Unauthorized { what, message }),
        403 => Disposition::Fail(ApiError::Forbidden {
            what,
            status: 403,
            message,
            permission: asked.permission.text(),
        }),
        404 => Disposition::Fail(ApiError::NotFound {
            what,
            repo: asked.repo.to_string(),
        }),
        500..=599 => Disposition::Retry(
            None,
            ApiError::ServerError {
                what,
                status: status.as_u16(),
                attempts: 1,
            },
        ),
        code => Disposition::Fail(ApiError::Status {
            what,
            status: code,
            message,
        }),
    }
}

/// The `rel="next"` URL of a `Link` header, as a path with query: the base
/// URL (and the token with it) stays ours, whatever host the link names.
pub fn next_link(headers: &HeaderMap) -> Option<String> {
    let link = headers.get(header::LINK)?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        if !params.split(';').any(|p| p.trim() == "rel=\"next\"") {
            return None;
        }
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        let url = url::Url::parse(target).ok()?;
        Some(match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn decide(status: u16, headers: &[(&str, &str)], body: &str) -> Disposition {
        let repo = RepoName::parse("ROCm/FlyDSL").unwrap();
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.insert(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        let asked = Asked {
            what: "tags of ROCm/FlyDSL",
            permission: Permission::Contents,
            repo: &repo,
        };
        classify(
            StatusCode::from_u16(status).unwrap(),
            &map,
            body.as_bytes(),
            &asked,
            1_000_000,
        )
    }

    fn wait(d: Disposition) -> (Option<u64>, String) {
        match d {
            Disposition::Retry(w, e) => (w.map(|w| w.as_secs()), e.to_string()),
            Disposition::Fail(e) => panic!("expected a retry, got {e}"),
        }
    }

    fn fails(d: Disposition) -> String {
        match d {
            Disposition::Fail(e) => e.to_string(),
            Disposition::Retry(_, e) => panic!("expected a failure, got a retry ({e})"),
        }
    }

    #[test]
    fn the_hourly_quota_waits_for_its_reset_clamped() {
        let (w, e) = wait(decide(
            403,
            &[
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "1000030"),
            ],
            "{}",
        ));
        assert_eq!(w, Some(31));
        assert!(
            e.contains("rate limit (HTTP 403)") && !e.contains("secondary"),
            "{e}"
        );
        let (w, _) = wait(decide(
            403,
            &[
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "18446744073709551615"),
            ],
            "",
        ));
        assert_eq!(w, Some(3600), "clamped to an hour");
        let (w, _) = wait(decide(
            403,
            &[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "5")],
            "",
        ));
        assert_eq!(w, Some(1), "a reset in the past waits a second");
    }

    #[test]
    fn secondary_limits_honour_retry_after_or_wait_a_minute() {
        let (w, e) = wait(decide(429, &[("retry-after", "7")], ""));
        assert_eq!(w, Some(7));
        assert!(e.contains("secondary rate limit"), "{e}");
        let (w, _) = wait(decide(
            403,
            &[],
            r#"{"message":"You have exceeded a secondary rate limit"}"#,
        ));
        assert_eq!(w, Some(60));
        let (w, _) = wait(decide(403, &[("retry-after", "99999999")], ""));
        assert_eq!(w, Some(3600));
    }

    #[test]
    fn final_answers_say_what_to_do() {
        assert!(
            fails(decide(401, &[], r#"{"message":"Bad credentials"}"#))
                .contains("the token was refused (HTTP 401: Bad credentials)")
        );
        assert!(
            fails(decide(
                403,
                &[],
                r#"{"message":"Resource not accessible by integration"}"#
            ))
            .contains("permissions: contents: read")
        );
        assert_eq!(
            fails(decide(404, &[], "")),
            "tags of ROCm/FlyDSL: not found (HTTP 404) in ROCm/FlyDSL"
        );
        assert!(fails(decide(422, &[], "not json")).contains("HTTP 422 (Unprocessable Entity)"));
    }

    #[test]
    fn server_errors_are_retried_without_a_wait_of_their_own() {
        assert!(matches!(
            decide(502, &[], ""),
            Disposition::Retry(None, ApiError::ServerError { status: 502, .. })
        ));
    }

    #[test]
    fn a_server_message_is_one_short_line() {
        let long = format!(r#"{{"message":"{}\n::warning::x"}}"#, "m".repeat(500));
        let e = fails(decide(422, &[], &long));
        assert!(!e.contains('\n') && e.len() < 300, "{e}");
    }

    #[test]
    fn backoff_is_jittered_and_bounded() {
        for attempt in 0..8 {
            let cap = BACKOFF_BASE * 2u32.pow(attempt.min(6));
            let wait = backoff(attempt);
            assert!(wait >= cap / 2 && wait <= cap, "{attempt}: {wait:?}");
        }
    }
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
        h.insert(
            header::LINK,
            HeaderValue::from_static(r#"<https://evil.example/api/v3/x?page=2>; rel="next""#),
        );
        assert_eq!(
            next_link(&h).as_deref(),
            Some("/api/v3/x?page=2"),
            "only the path and query are kept"
        );
    }
}
