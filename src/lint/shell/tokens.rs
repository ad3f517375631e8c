//! The tokenizer: one script's bytes into its commands, each with its
//! words, the separator before it, the scripts inside it and the subshells
//! open around it. [`super::read`] reads the scripts inside in turn.

use std::borrow::Cow;

use super::{Nested, SHELLS, Sep, Word};

/// The commands of `script`, whose byte 0 is at `base` of the outermost
/// script, in order.
pub(super) fn split(script: &str, base: usize) -> Vec<Done<'_>> {
    let mut t = Tokens {
        s: script.as_bytes(),
        text: script,
        i: 0,
        base,
        word: None,
        words: Vec::new(),
        before: Sep::Line,
        inner: Vec::new(),
        heredocs: Vec::new(),
        done: Vec::new(),
        subshells: 0,
        in_test: false,
    };
    t.run();
    t.done
}

/// A command as the tokenizer ends it: its words, what came before, the
/// scripts inside it, and how many `( ... )` subshells are open around it.
pub(super) type Done<'a> = (Vec<Word>, Sep, Vec<Nested<'a>>, usize);

struct Tokens<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    base: usize,
    word: Option<Word>,
    words: Vec<Word>,
    before: Sep,
    inner: Vec<Nested<'a>>,
    /// Here-documents opened on this line: (delimiter, strip tabs).
    heredocs: Vec<(String, bool)>,
    done: Vec<Done<'a>>,
    /// `( ... )` subshells open.
    subshells: usize,
    /// Inside a `[[ ... ]]` test: its `||`, `&&` and parentheses join
    /// the test's own expressions (`[[ (a != x) || (b != y) ]]`, over
    /// continued lines in gemini-cli's status check), they end no command.
    in_test: bool,
}

impl<'a> Tokens<'a> {
    fn push(&mut self, text: &str) {
        let at = self.base.saturating_add(self.i);
        self.word
            .get_or_insert_with(|| Word {
                text: String::new(),
                at,
            })
            .text
            .push_str(text);
    }

    fn end_word(&mut self) {
        if let Some(w) = self.word.take() {
            // `<<<` is a here-string (`read -r a b <<< "$x"`): its word is
            // the input, and no heredoc body follows on the next lines.
            if let Some(d) = w.text.strip_prefix("<<").filter(|d| !d.starts_with('<')) {
                let strip = d.starts_with('-');
                let d = d.trim_start_matches('-').trim_matches(['\'', '"']);
                if !d.is_empty() {
                    self.heredocs.push((d.to_owned(), strip));
                }
            }
            match w.text.as_str() {
                "[[" if self.words.len() < 4 => self.in_test = true,
                "]]" => self.in_test = false,
                _ => {}
            }
            self.words.push(w);
        }
    }

    fn end_command(&mut self, next: Sep) {
        self.end_word();
        let words = std::mem::take(&mut self.words);
        let inner = std::mem::take(&mut self.inner);
        self.done.push((words, self.before, inner, self.subshells));
        self.before = next;
        self.in_test = false;
    }

    /// The text up to the byte that closes what opened just before `from`,
    /// counting nested parentheses outside quotes.
    fn closing(&self, from: usize, open: u8, close: u8) -> usize {
        let (mut depth, mut j, mut quote) = (1usize, from, 0u8);
        while let Some(&c) = self.s.get(j) {
            match (quote, c) {
                (0, b'\'' | b'"') => quote = c,
                (q, c) if q != 0 && c == q => quote = 0,
                // A backslash escapes the next byte, in double quotes too:
                // `${X:-"--flags=\"-march=x86\""}` closes at its `}`
                // (micropython's ci.sh; read past it, the rest of the
                // script was one word).
                (0 | b'"', b'\\') => j = j.saturating_add(1),
                (0, c) if c == open => depth = depth.saturating_add(1),
                (0, c) if c == close => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j;
                    }
                }
                _ => {}
            }
            j = j.saturating_add(1);
        }
        self.s.len()
    }

    fn slice(&self, from: usize, to: usize) -> &'a str {
        self.text.get(from..to).unwrap_or("")
    }

    /// A substitution `$(`, `<(` or `` ` `` at `self.i` (its opener
    /// `len` bytes long): kept in the word, its body read as a script.
    fn substitution(&mut self, len: usize, close: u8) {
        let body_start = self.i.saturating_add(len);
        let end = if close == b'`' {
            self.s
                .get(body_start..)
                .and_then(|r| r.iter().position(|&c| c == b'`'))
                .map_or(self.s.len(), |p| body_start.saturating_add(p))
        } else {
            self.closing(body_start, b'(', b')')
        };
        let body = self.slice(body_start, end);
        let raw = self.slice(self.i, end.saturating_add(1).min(self.s.len()));
        self.inner.push(Nested {
            exact: true,
            body: Cow::Borrowed(body),
            at: self.base.saturating_add(body_start),
        });
        self.push(raw);
        self.i = end.saturating_add(1);
    }

    /// `${{ ... }}` or `${...}` at `self.i`, kept whole.
    fn braces(&mut self) {
        let end = if self.s.get(self.i.saturating_add(2)) == Some(&b'{') {
            self.text
                .get(self.i..)
                .and_then(|r| r.find("}}"))
                .map_or(self.s.len(), |p| self.i.saturating_add(p).saturating_add(2))
        } else {
            self.closing(self.i.saturating_add(2), b'{', b'}')
                .saturating_add(1)
        };
        let raw = self.slice(self.i, end.min(self.s.len())).to_owned();
        self.push(&raw);
        self.i = end;
    }

    fn double_quoted(&mut self) {
        self.push("");
        self.i = self.i.saturating_add(1);
        while let Some(&c) = self.s.get(self.i) {
            match c {
                b'"' => {
                    self.i = self.i.saturating_add(1);
                    return;
                }
                b'\\' => {
                    let next = self.s.get(self.i.saturating_add(1)).copied();
                    if let Some(n @ (b'"' | b'\\' | b'$' | b'`')) = next {
                        self.push(&(n as char).to_string());
                    } else if next != Some(b'\n') {
                        self.push("\\");
                        self.i = self.i.saturating_sub(1);
                    }
                    self.i = self.i.saturating_add(2);
                }
                b'$' if self.s.get(self.i.saturating_add(1)) == Some(&b'(') => {
                    self.substitution(2, b')');
                }
                b'$' if self.s.get(self.i.saturating_add(1)) == Some(&b'{') => self.braces(),
                b'`' => self.substitution(1, b'`'),
                _ => self.one_char(),
            }
        }
    }

    /// At a newline with here-documents pending: their bodies, read as
    /// scripts when the command feeds a shell, skipped otherwise.
    fn heredoc_bodies(&mut self) {
        let feeds_shell = self
            .done
            .last()
            .is_some_and(|(w, _, _, _)| w.iter().any(|w| SHELLS.contains(&w.text.as_str())));
        for (delimiter, strip) in std::mem::take(&mut self.heredocs) {
            let start = self.i;
            let mut end = self.s.len();
            let mut at = start;
            while at < self.s.len() {
                let line_end = self
                    .text
                    .get(at..)
                    .and_then(|r| r.find('\n'))
                    .map_or(self.s.len(), |p| at.saturating_add(p));
                let line = self.slice(at, line_end);
                let line = if strip {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if line == delimiter {
                    end = at;
                    self.i = line_end.saturating_add(1).min(self.s.len());
                    break;
                }
                at = line_end.saturating_add(1);
            }
            if end == self.s.len() {
                self.i = self.s.len();
            }
            if feeds_shell {
                self.inner.push(Nested {
                    exact: true,
                    body: Cow::Borrowed(self.slice(start, end)),
                    at: self.base.saturating_add(start),
                });
                // The body belongs to the command that opened it.
                if let Some(last) = self.done.last_mut() {
                    last.2.append(&mut self.inner);
                }
            }
        }
    }

    /// The character at `self.i`, into the word.
    fn one_char(&mut self) {
        let len = self
            .text
            .get(self.i..)
            .and_then(|r| r.chars().next())
            .map_or(1, char::len_utf8);
        let ch = self.slice(self.i, self.i.saturating_add(len)).to_owned();
        self.push(&ch);
        self.i = self.i.saturating_add(len);
    }

    fn single_quoted(&mut self) {
        self.push("");
        let start = self.i.saturating_add(1);
        let end = self
            .s
            .get(start..)
            .and_then(|r| r.iter().position(|&c| c == b'\''))
            .map_or(self.s.len(), |p| start.saturating_add(p));
        let body = self.slice(start, end).to_owned();
        self.push(&body);
        self.i = end.saturating_add(1);
    }

    /// A separator at `self.i` (`c`, then `next`): ends the command and
    /// moves past it. `false` when `c` is part of a word (`2>&1`, `&>`).
    fn separator(&mut self, c: u8, next: Option<u8>) -> bool {
        let (sep, len) = match (c, next) {
            (b'\n', _) => (Sep::Line, 1),
            (b';', _) => (Sep::Semi, 1),
            (b'&', Some(b'&')) => (Sep::And, 2),
            (b'|', Some(b'|')) => (Sep::Or, 2),
            (b'|', _) => (Sep::Pipe, 1),
            (b'&', n)
                if n != Some(b'>')
                    && !self.word.as_ref().is_some_and(|w| w.text.ends_with('>')) =>
            {
                (Sep::Semi, 1)
            }
            _ => return false,
        };
        self.end_command(sep);
        self.i = self.i.saturating_add(len);
        if c == b'\n' && !self.heredocs.is_empty() {
            self.heredoc_bodies();
        }
        true
    }

    /// An array's value after `NAME=`, `(` to its `)`, over lines
    /// (`FOLDERS=(\n  ligetron\n  barretenberg\n)`): part of the
    /// assignment's word, its items no commands. Quotes are kept whole;
    /// a comment among the items runs to its line's end, its `)` and `'`
    /// no closer nor quote (pineapple's stress fixtures, `# ...
    /// (copy/dispatch/lua/normalize)` between two items).
    fn array_literal(&mut self) {
        let start = self.i;
        let mut quote: Option<u8> = None;
        let mut comment = false;
        let mut previous = b'(';
        let mut end = self.s.len();
        for (k, &b) in self.s.iter().enumerate().skip(start.saturating_add(1)) {
            let after_space = previous.is_ascii_whitespace() || previous == b'(';
            previous = b;
            match (quote, b) {
                _ if comment => comment = b != b'\n',
                (Some(q), b) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'#') if after_space => comment = true,
                (None, b'\'' | b'"') => quote = Some(b),
                (None, b')') => {
                    end = k.saturating_add(1);
                    break;
                }
                _ => {}
            }
        }
        let text = self.slice(start, end).replace(['\n', '\r'], " ");
        self.push(&text);
        self.i = end;
    }

    /// Whether the word being read is the regex of a `[[ ... =~ regex`
    /// test: the word right after `=~`, in a command whose first words
    /// hold `[[` (after `if`, `!`). Asked per character, so it reads no
    /// more than the last word and the first four.
    fn in_regex(&self) -> bool {
        self.words.last().is_some_and(|w| w.text == "=~")
            && self.words.iter().take(4).any(|w| w.text == "[[")
    }

    fn run(&mut self) {
        while let Some(&c) = self.s.get(self.i) {
            let next = self.s.get(self.i.saturating_add(1)).copied();
            match c {
                b'#' if self.word.is_none() => {
                    while self.s.get(self.i).is_some_and(|&c| c != b'\n') {
                        self.i = self.i.saturating_add(1);
                    }
                }
                b'\\' if next == Some(b'\n') => self.i = self.i.saturating_add(2),
                b'\\' => {
                    self.i = self.i.saturating_add(1);
                    self.one_char();
                }
                b'\'' => self.single_quoted(),
                b'"' => self.double_quoted(),
                b'$' if next == Some(b'(')
                    && self.s.get(self.i.saturating_add(2)) != Some(&b'(') =>
                {
                    self.substitution(2, b')');
                }
                b'$' if next == Some(b'{') => self.braces(),
                b'<' if next == Some(b'(') && self.word.is_none() => self.substitution(2, b')'),
                b'`' => self.substitution(1, b'`'),
                b' ' | b'\t' | b'\r' => {
                    self.end_word();
                    self.i = self.i.saturating_add(1);
                }
                b'(' if self.word.as_ref().is_some_and(|w| w.text.ends_with('=')) => {
                    self.array_literal();
                }
                // A `[[ x =~ regex ]]`'s regex holds `|` and parentheses:
                // `^(openvm|jolt)(/|$)` is one word, not a pipeline.
                b'|' | b'(' | b')' if self.in_regex() && next != Some(b'|') => self.one_char(),
                // Within a `[[ ... ]]` test, `||`, `&&` and parentheses are
                // the test's; a newline (after a `\` continuation, read
                // above) or `;` still ends it.
                b'|' | b'&' if self.in_test && next == Some(c) => {
                    self.end_word();
                    self.push(if c == b'|' { "||" } else { "&&" });
                    self.end_word();
                    self.i = self.i.saturating_add(2);
                }
                b'(' | b')' if self.in_test => {
                    self.end_word();
                    self.one_char();
                    self.end_word();
                }
                b'\n' | b';' | b'&' | b'|' if self.separator(c, next) => {}
                b'(' | b')' if self.word.is_none() => {
                    self.end_command(Sep::Semi);
                    self.subshells = if c == b'(' {
                        self.subshells.saturating_add(1)
                    } else {
                        self.subshells.saturating_sub(1)
                    };
                    self.i = self.i.saturating_add(1);
                }
                _ => self.one_char(),
            }
        }
        self.end_command(Sep::Line);
    }
}
