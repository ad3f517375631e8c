//! Every line a command writes to stdout or stderr, made safe to show.
//!
//! The runner reads both streams line by line for workflow commands, and
//! what it reads there is written by strangers: a fork's benchmark wrote the
//! CSV keys, a server wrote its error messages. Its rules (actions/runner,
//! `ActionCommand.TryParseV2` and `TryParse`): a line ends at LF, CR or CRLF;
//! leading whitespace is trimmed before it looks for `::` at the start; the
//! legacy form `##[command]` is found anywhere in a line (`##vso[` too). So a
//! key `::warning::x` after the two spaces of a dashboard line, or
//! `##[add-mask]` anywhere, would be a command.
//!
//! The rule here, for every line that is not one of our own commands:
//! line breaks inside a value become spaces, a `::` that would start the
//! line after anything the runner may trim gets a `\` before it, and a `[`
//! that would complete `##[` or `##vso[` gets a `\` before it. A line with
//! none of these is written byte for byte (the dashboard parser reads those
//! lines exactly). Our own commands are built by [`LogSink::command`], whose
//! data and properties are escaped as `@actions/core` escapes them and
//! neutralised the same way. Text reaches the streams only through a
//! [`LogSink`]: [`LogText`] in memory, [`LogStream`] while it is written;
//! nothing else in the crate prints (a test checks).

use std::borrow::Cow;
use std::io;

use super::workflow_command;

/// The marker inserted before what would be read as a command.
const BREAK: char = '\\';

/// Characters the runner may trim (or that are invisible) before a `::`:
/// Unicode whitespace (what .NET's `TrimStart` removes), control
/// characters, and the invisible format characters. Wider than the
/// runner's own set on purpose: a `::` after any of these is neutralised.
fn ignorable(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(
            c,
            '\u{ad}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
        )
}

/// True when `text` needs no change: the common case.
fn clean(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Spaces, then a visible ASCII character that is not `:`: no trimming
    // can reach a `::`.
    let starts_plain = bytes
        .iter()
        .find(|b| **b != b' ')
        .is_none_or(|b| b.is_ascii_graphic() && *b != b':');
    // No line break, and no `##` (which `##[` and `##vso[` need): byte
    // searches, which the standard library vectorises.
    let breaks = bytes.contains(&b'\n') || bytes.contains(&b'\r');
    let hashes = bytes.contains(&b'#') && text.contains("##");
    starts_plain && !breaks && !hashes
}

/// `##[` or `##vso[` (any case) somewhere in `text`.
fn has_legacy(text: &str) -> bool {
    text.contains("##") && (text.contains("##[") || text.to_ascii_lowercase().contains("##vso["))
}

/// `text` with a `\` before every `[` that would complete `##[` or `##vso[`.
fn break_legacy(text: &str) -> Cow<'_, str> {
    if !has_legacy(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().saturating_add(4));
    for c in text.chars() {
        if c == '[' && ends_legacy(&out) {
            out.push(BREAK);
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// One line of text as the runner will read it: never a command. Line
/// breaks become spaces; see the module doc for the rest.
pub fn neutralize(text: &str) -> Cow<'_, str> {
    if clean(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().saturating_add(4));
    let mut leading = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let c = if matches!(c, '\r' | '\n') { ' ' } else { c };
        if leading && !ignorable(c) {
            leading = false;
            if c == ':' && chars.peek() == Some(&':') {
                out.push(BREAK);
            }
        }
        if c == '[' && ends_legacy(&out) {
            out.push(BREAK);
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// `out` ends with `##` or `##vso` (any case): a `[` now would make `##[`.
fn ends_legacy(out: &str) -> bool {
    let bytes = out.as_bytes();
    bytes.ends_with(b"##")
        || bytes
            .len()
            .checked_sub(5)
            .and_then(|at| bytes.get(at..))
            .is_some_and(|tail| tail.eq_ignore_ascii_case(b"##vso"))
}

/// JSON on one line of stdout: serde escapes line breaks already; a `[`
/// that would complete `##[` is written as `\u005b`, which every JSON
/// reader reads back as `[` (outside strings `[` never follows `#`).
pub fn json_line(json: &str) -> Cow<'_, str> {
    if !has_legacy(json) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len().saturating_add(16));
    for c in json.chars() {
        if c == '[' && ends_legacy(&out) {
            out.push_str("\\u005b");
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Where log lines go: memory ([`LogText`]) or a stream ([`LogStream`]).
/// The provided methods are the only ways to add a line.
pub trait LogSink {
    /// Appends text already made safe (whole lines, each ending in `\n`).
    #[doc(hidden)]
    fn put(&mut self, safe: &str) -> io::Result<()>;

    /// A line of text, never read as a command.
    fn line(&mut self, text: &str) -> io::Result<()> {
        let text = neutralize(text);
        self.put(&text)?;
        self.put("\n")
    }

    /// One of our own workflow commands: `::name key=value,...::message`.
    fn command(
        &mut self,
        name: &str,
        properties: &[(&str, &str)],
        message: &str,
    ) -> io::Result<()> {
        let mut out = String::with_capacity(message.len().saturating_add(32));
        workflow_command::format(&mut out, name, properties, message);
        self.put(&break_legacy(&out))
    }

    /// One line of JSON (see [`json_line`]).
    fn json(&mut self, json: &str) -> io::Result<()> {
        // serde writes no raw line break; a pretty-printed value would.
        if json.as_bytes().iter().any(|b| matches!(b, b'\r' | b'\n')) {
            self.put(&json_line(&json.replace(['\r', '\n'], " ")))?;
        } else {
            self.put(&json_line(json))?;
        }
        self.put("\n")
    }

    /// Lines another sink made.
    fn append(&mut self, text: &LogText) -> io::Result<()> {
        self.put(&text.0)
    }
}

/// Log lines in memory, rendered before anything is written.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LogText(String);

impl LogText {
    pub fn new() -> LogText {
        LogText::default()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// [`LogSink::line`] without the `io::Result` (memory cannot fail).
    pub fn push_line(&mut self, text: &str) {
        let _ = self.line(text);
    }

    /// Appends another text's lines.
    pub fn append_text(&mut self, other: &LogText) {
        self.0.push_str(&other.0);
    }

    /// [`LogSink::command`] without the `io::Result`.
    pub fn push_command(&mut self, name: &str, properties: &[(&str, &str)], message: &str) {
        let _ = self.command(name, properties, message);
    }
}

impl LogSink for LogText {
    fn put(&mut self, safe: &str) -> io::Result<()> {
        self.0.push_str(safe);
        Ok(())
    }
}

/// Log lines written as they are formed (a dashboard of a hundred thousand
/// lines is never held whole).
pub struct LogStream<'a> {
    out: &'a mut dyn io::Write,
}

impl<'a> LogStream<'a> {
    pub(super) fn new(out: &'a mut dyn io::Write) -> LogStream<'a> {
        LogStream { out }
    }
}

impl LogSink for LogStream<'_> {
    fn put(&mut self, safe: &str) -> io::Result<()> {
        self.out.write_all(safe.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the runner would read `line` (one line) as a command.
    fn command_in(line: &str) -> bool {
        line.trim_start().starts_with("::") || line.contains("##[") || {
            let lower = line.to_ascii_lowercase();
            lower.contains("##vso[")
        }
    }

    #[test]
    fn hostile_text_is_never_a_command_and_plain_text_is_untouched() {
        for hostile in [
            "::warning::x",
            "  ::error::x",
            "\u{a0}\u{3000}::add-mask::x",
            "\u{feff}::stop-commands::t",
            "\t\u{200b}::set-output name=a::b",
            "x ##[error]y",
            "###[group]y",
            "##VSO[task.setvariable]x",
            "a\r::warning::b",
            "a\n  ::warning::b",
            "##\r[error]",
        ] {
            let safe = neutralize(hostile);
            assert!(!safe.contains(['\r', '\n']), "{safe:?}");
            assert!(!command_in(&safe), "{hostile:?} -> {safe:?}");
        }
        for plain in [
            "  softmax 32768x8192 bf16  main=    3.938 TB/s",
            "=== Benchmark: current vs main ===",
            "warning: a: b",
            "# heading",
            "",
        ] {
            assert!(matches!(neutralize(plain), Cow::Borrowed(_)), "{plain:?}");
        }
        assert_eq!(neutralize("  ::x"), "  \\::x");
        assert_eq!(neutralize("a ##[b"), "a ##\\[b");
    }

    #[test]
    fn json_stays_json_and_reads_back_the_same() {
        let value = serde_json::json!({"key": "##[error]x ##vso[y", "list": [1]});
        let text = serde_json::to_string(&value).unwrap();
        let safe = json_line(&text);
        assert!(!command_in(&safe), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn commands_escape_their_data() {
        let mut log = LogText::new();
        log.push_command(
            "warning",
            &[("title", "a:b")],
            "m\n::error::x ##[add-mask]s",
        );
        assert_eq!(log.as_str().lines().count(), 1);
        assert!(!log.as_str().contains("##["), "{}", log.as_str());
    }
}
