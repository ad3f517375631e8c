//! The job's token: validated once, then held as a [`Secret`] until the
//! two lines that send it (the API client's builder and git's credential
//! callback). Its `Debug` never shows it, so no log or error can.

use std::fmt;

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "not a usable token: it holds a space, a line break, a control character or a non-ASCII character (the value is not shown)"
)]
pub struct NotAToken;

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A token goes into an HTTP header and git's Basic auth: printable
    /// ASCII without spaces. The line break a pasted secret often ends with
    /// is trimmed (by the reader); anything else is refused, unshown.
    pub fn parse(value: &str) -> Result<Secret, NotAToken> {
        if !value.is_empty() && value.bytes().all(|b| b.is_ascii_graphic()) {
            Ok(Secret(value.to_owned()))
        } else {
            Err(NotAToken)
        }
    }

    /// The token itself: only where it is sent.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_never_shown() {
        let s = Secret::parse("ghs_SECRET").unwrap();
        assert_eq!(format!("{s:?}"), "Secret(***)");
        assert!(Secret::parse("a b").is_err());
        assert!(Secret::parse("a\nb").is_err());
        assert!(!NotAToken.to_string().contains("a\nb"));
    }
}
