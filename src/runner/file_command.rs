//! The runner's file commands: `GITHUB_OUTPUT` (and `GITHUB_ENV`) entries.
//!
//! Each entry is written in the heredoc form the toolkit uses,
//! `name<<DELIM\nvalue\nDELIM\n`, with a fresh random delimiter that is
//! checked not to occur in the value, so no value can end its own entry early
//! and add or overwrite another output. [`read`] parses a file the way the
//! runner does (`actions/runner`, `FileCommandManager` / `EnvFileKeyValuePairs`);
//! the tests and the fuzzer use it to prove the round trip.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    #[error(
        "output name {0:?} is not usable (empty, ends with '<', or contains '=', '<<', CR or LF)"
    )]
    Name(String),
    #[error("value of output {0:?} ends with a carriage return, which the runner would drop")]
    TrailingCarriageReturn(String),
    #[error("no random source for a delimiter: {0}")]
    Random(String),
}

/// Appends one `name<<DELIM` entry to `out`.
pub fn encode(out: &mut String, name: &str, value: &str) -> Result<(), EncodeError> {
    // The runner splits the header at the first `<<`: a name ending in `<`
    // would give `name<<<DELIM`, read as name `name` and delimiter `<DELIM`.
    if name.is_empty()
        || name.ends_with('<')
        || name.contains('=')
        || name.contains("<<")
        || name.contains(['\r', '\n'])
    {
        return Err(EncodeError::Name(name.to_owned()));
    }
    // The runner strips the line break before the delimiter line, "\r\n"
    // included, so a value ending in CR could not come back whole.
    if value.ends_with('\r') {
        return Err(EncodeError::TrailingCarriageReturn(name.to_owned()));
    }
    let delimiter = loop {
        let candidate = delimiter()?;
        if !value.contains(&candidate) && !name.contains(&candidate) {
            break candidate;
        }
    };
    out.push_str(name);
    out.push_str("<<");
    out.push_str(&delimiter);
    out.push('\n');
    out.push_str(value);
    out.push('\n');
    out.push_str(&delimiter);
    out.push('\n');
    Ok(())
}

/// Every `(name, value)` entry in order, each as [`encode`] writes it: a
/// command's step outputs.
pub fn encode_all<N: AsRef<str>, V: AsRef<str>>(
    entries: impl IntoIterator<Item = (N, V)>,
) -> Result<String, EncodeError> {
    let mut out = String::new();
    for (name, value) in entries {
        encode(&mut out, name.as_ref(), value.as_ref())?;
    }
    Ok(out)
}

/// `ghadelimiter_` and 128 random bits, as the toolkit's delimiters look.
fn delimiter() -> Result<String, EncodeError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| EncodeError::Random(e.to_string()))?;
    let mut text = String::with_capacity(13 + 32);
    text.push_str("ghadelimiter_");
    for b in bytes {
        text.push_str(&format!("{b:02x}"));
    }
    Ok(text)
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    #[error("invalid format {0:?}: name must not be empty")]
    EmptyName(String),
    #[error("invalid format {0:?}: name must not be empty and delimiter must not be empty")]
    EmptyHeredoc(String),
    #[error("invalid value: matching delimiter not found {0:?}")]
    NoDelimiter(String),
    #[error("invalid value: EOF marker missing new line")]
    NoNewline,
    #[error("invalid format {0:?}")]
    Format(String),
}

/// Reads the next line from `index`, returning it without its line break and
/// the break itself (`"\n"`, `"\r\n"` or `None` at end of text).
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::string_slice,
    reason = "indices come from find() on the same text, at ASCII characters; the reader serves tests and the fuzzer"
)]
fn read_line<'a>(text: &'a str, index: &mut usize) -> Option<(&'a str, Option<&'static str>)> {
    if *index >= text.len() {
        return None;
    }
    let rest = &text[*index..];
    match rest.find('\n') {
        Some(at) => {
            *index += at + 1;
            let line = &rest[..at];
            match line.strip_suffix('\r') {
                Some(line) => Some((line, Some("\r\n"))),
                None => Some((line, Some("\n"))),
            }
        }
        None => {
            *index = text.len();
            Some((rest, None))
        }
    }
}

/// Parses a file-command file into `(name, value)` pairs, in order, exactly
/// as the runner does. Later pairs with the same name overwrite earlier ones
/// when the runner applies them.
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::string_slice,
    reason = "indices come from find() on the same text, at ASCII characters; the reader serves tests and the fuzzer"
)]
pub fn read(text: &str) -> Result<Vec<(String, String)>, ParseError> {
    let mut pairs = Vec::new();
    let mut index = 0;
    while let Some((line, _)) = read_line(text, &mut index) {
        if line.is_empty() {
            continue;
        }
        let equals = line.find('=');
        let heredoc = line.find("<<");
        match (equals, heredoc) {
            (Some(eq), h) if h.is_none_or(|h| eq < h) => {
                let (key, value) = (&line[..eq], &line[eq + 1..]);
                if key.is_empty() {
                    return Err(ParseError::EmptyName(line.to_owned()));
                }
                pairs.push((key.to_owned(), value.to_owned()));
            }
            (_, Some(h)) => {
                let (key, delimiter) = (&line[..h], &line[h + 2..]);
                if key.is_empty() || delimiter.is_empty() {
                    return Err(ParseError::EmptyHeredoc(line.to_owned()));
                }
                let start = index;
                let mut end = index;
                loop {
                    let Some((value_line, newline)) = read_line(text, &mut index) else {
                        return Err(ParseError::NoDelimiter(delimiter.to_owned()));
                    };
                    if value_line == delimiter {
                        break;
                    }
                    let Some(newline) = newline else {
                        return Err(ParseError::NoNewline);
                    };
                    end = index - newline.len();
                }
                let value = if end > start { &text[start..end] } else { "" };
                pairs.push((key.to_owned(), value.to_owned()));
            }
            _ => return Err(ParseError::Format(line.to_owned())),
        }
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut out = String::new();
        for (name, value) in pairs {
            encode(&mut out, name, value).unwrap();
        }
        read(&out).unwrap()
    }

    #[test]
    fn hostile_values_come_back_exactly_and_add_nothing() {
        let pairs = [
            ("a", ""),
            ("b", "plain"),
            ("c", "line1\nline2\r\nline3\n"),
            ("d", "100% ::warning::x %0A"),
            ("e", "x\nEOF\ninjected=1\nf<<EOF\nevil\nEOF"),
            ("f", "ghadelimiter_00000000000000000000000000000000"),
            ("g", "\n\n"),
        ];
        let back = round_trip(&pairs);
        let expected: Vec<(String, String)> = pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        assert_eq!(back, expected);
    }

    #[test]
    fn the_delimiter_is_random_and_not_in_the_value() {
        let mut one = String::new();
        let mut two = String::new();
        encode(&mut one, "x", "v").unwrap();
        encode(&mut two, "x", "v").unwrap();
        assert_ne!(one, two);
        assert!(one.starts_with("x<<ghadelimiter_"));
    }

    #[test]
    fn unusable_names_and_values_are_refused() {
        let mut out = String::new();
        // "a<" was found by the property test: it wrote `a<<<DELIM`.
        for name in ["", "a=b", "a<<b", "a\nb", "a<"] {
            assert!(matches!(
                encode(&mut out, name, "v"),
                Err(EncodeError::Name(_))
            ));
        }
        assert!(encode(&mut out, "a", "v\r").is_err());
        assert!(out.is_empty());
    }

    #[test]
    fn reader_follows_the_runner() {
        let text = "a=1\r\nb<<EOF\r\nx\r\ny\r\nEOF\r\n\nc=2=3\n";
        let pairs = read(text).unwrap();
        assert_eq!(
            pairs,
            vec![
                ("a".into(), "1".into()),
                ("b".into(), "x\r\ny".into()),
                ("c".into(), "2=3".into()),
            ]
        );
        assert!(matches!(read("=1\n"), Err(ParseError::EmptyName(_))));
        assert!(matches!(
            read("a<<EOF\nx\n"),
            Err(ParseError::NoDelimiter(_))
        ));
        assert!(matches!(read("a<<EOF\nx"), Err(ParseError::NoNewline)));
        assert!(matches!(read("junk\n"), Err(ParseError::Format(_))));
    }
}
