//! Enough of the shell language to find commands in a `run:` script the way
//! bash would: comments are not code, a `\` at the end of a line joins it
//! to the next, quotes and `${{ ... }}` expressions hold spaces, `;`, `&&`,
//! `||`, `|` and newlines separate commands, and the bodies of `$(...)`,
//! `<(...)`, backticks, `bash -c "..."` (also after `docker exec ...`) and
//! here-documents fed to a shell are scripts too, read as such.
//!
//! It is not a shell: no expansion, no evaluation. The rules ask it which
//! commands run, with which words, inside how many loops; a rare construct
//! it misreads makes a rule miss, never a finding out of nowhere.

use std::borrow::Cow;

use thiserror::Error;

mod vars;

pub use vars::{MAX_EXPANDED, Vars};

/// Scripts inside scripts (`$(...)` in `$(...)`, `bash -c` in a
/// here-document, ...) read at most this deep: a real script nests two or
/// three. Deeper is refused, so no script can exhaust the stack.
pub const MAX_NESTING: usize = 64;

/// A script nested deeper than [`MAX_NESTING`]; `at` is the byte of the
/// outermost script where the level past the limit starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("scripts nested more than {MAX_NESTING} deep ($(...), backticks, bash -c, here-documents)")]
pub struct TooDeep {
    pub at: usize,
}

/// A word as the command receives it (quotes removed, `$(...)` and
/// `${{ ... }}` kept as written), and where it starts in the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub at: usize,
}

/// What came before a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    Line,
    Semi,
    And,
    Or,
    Pipe,
}

#[derive(Debug, Clone)]
pub struct Command {
    /// Where the command starts, its reserved words included.
    pub start: usize,
    /// Reserved words in front of the command (`if`, `then`, `do`, `!`,
    /// `while`, `done`, ...), which bash reads as syntax, not as the command.
    pub keywords: Vec<String>,
    pub words: Vec<Word>,
    pub before: Sep,
    /// Loops (`for`, `while`, `until`) open around it.
    pub loops: usize,
    /// Inside a substitution, a `bash -c` body or a here-document.
    pub nested: bool,
    /// Which script it is part of: 0 for the step's own, then one number
    /// per nested script, in the order they are read. A `cd` moves the
    /// commands after it in the same script only.
    pub script: usize,
    /// The command (its index in the list) whose substitution, `bash -c`
    /// body or here-document holds this one: `docker exec box bash -c
    /// "git fetch"` is the parent of `git fetch`.
    pub parent: Option<usize>,
    /// `( ... )` subshells open around it in its script: a `cd` inside
    /// one moves nothing after it closes.
    pub subshells: usize,
}

impl Command {
    pub fn name(&self) -> Option<&str> {
        self.words.first().map(|w| w.text.as_str())
    }

    /// Where the command starts (its first word, else its first keyword).
    pub fn at(&self) -> usize {
        self.words.first().map_or(self.start, |w| w.at)
    }

    /// `git <sub>`, also as `git -C dir <sub>`.
    pub fn git(&self, sub: &str) -> bool {
        let mut words = self.words.iter().map(|w| w.text.as_str());
        if words.next() != Some("git") {
            return false;
        }
        let mut skip = false;
        for w in words {
            if skip {
                skip = false;
                continue;
            }
            if w == "-C" || w == "-c" {
                skip = true;
                continue;
            }
            if w.starts_with('-') {
                continue;
            }
            return w == sub;
        }
        false
    }

    pub fn has(&self, word: &str) -> bool {
        self.words.iter().any(|w| w.text == word)
    }

    /// The word after `flag` (`--branch main`: `main`).
    pub fn after(&self, flag: &str) -> Option<&str> {
        self.words
            .iter()
            .zip(self.words.iter().skip(1))
            .find(|(a, _)| a.text == flag)
            .map(|(_, b)| b.text.as_str())
    }
}

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time",
    "esac",
];
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh"];

/// The commands of `script`, in order, those of nested scripts after the
/// command that holds them; each word with the script's own variables
/// expanded as far as they can be told (see [`Vars`]).
pub fn commands(script: &str) -> Result<Vec<Command>, TooDeep> {
    commands_with(script, &Vars::default())
}

/// [`commands`], with `vars` set before the script starts (a step's
/// `env:`, say).
pub fn commands_with(script: &str, vars: &Vars) -> Result<Vec<Command>, TooDeep> {
    let mut out = Vec::new();
    let outer = Reading {
        loops: 0,
        depth: 0,
        parent: None,
        script: 0,
    };
    read(script, 0, outer, &mut 0, &mut out)?;
    let mut vars = vars.clone();
    for c in &mut out {
        vars.expand(c);
    }
    Ok(out)
}

/// A script inside a script: a slice of it (a substitution, a
/// here-document), or a word's text (`bash -c "..."`, quotes removed).
struct Nested<'a> {
    body: Cow<'a, str>,
    at: usize,
    /// The body's byte `i` is at `at + i` of the outermost script. For a
    /// word's text that is not its source (an escape removed) that is
    /// approximate, and kept inside the script that holds it.
    exact: bool,
}

/// Where a script being read sits: the loops around it, how deep, the
/// command that holds it and its own number.
#[derive(Clone, Copy)]
struct Reading {
    loops: usize,
    depth: usize,
    parent: Option<usize>,
    script: usize,
}

/// Reads one script whose byte 0 is at `base` of the outermost one;
/// `scripts` counts the scripts read so far (for their numbers).
fn read(
    script: &str,
    base: usize,
    at: Reading,
    scripts: &mut usize,
    out: &mut Vec<Command>,
) -> Result<(), TooDeep> {
    if at.depth > MAX_NESTING {
        return Err(TooDeep { at: base });
    }
    let nested = at.depth > 0;
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
    };
    t.run();
    let mut looping = at.loops;
    for (words, before, inner, subshells) in t.done {
        let start = words.first().map_or(0, |w| w.at);
        let mut command = Command {
            start,
            keywords: Vec::new(),
            words,
            before,
            loops: looping,
            nested,
            script: at.script,
            parent: at.parent,
            subshells,
        };
        while let Some(first) = command.words.first() {
            if !KEYWORDS.contains(&first.text.as_str()) {
                break;
            }
            let k = command.words.remove(0).text;
            match k.as_str() {
                "while" | "until" => looping = looping.saturating_add(1),
                "done" => looping = looping.saturating_sub(1),
                _ => {}
            }
            command.keywords.push(k);
        }
        command.loops = looping;
        if command.name() == Some("for") {
            looping = looping.saturating_add(1);
        }
        let shell_body = shell_argument(&command, script, base);
        let inner_loops = command.loops;
        if command.words.is_empty() && command.keywords.is_empty() {
            continue;
        }
        let parent = out.len();
        out.push(command);
        for n in inner.iter().chain(&shell_body) {
            *scripts = scripts.saturating_add(1);
            let inner = Reading {
                loops: inner_loops,
                depth: at.depth.saturating_add(1),
                parent: Some(parent),
                script: *scripts,
            };
            let first = out.len();
            read(&n.body, n.at, inner, scripts, out)?;
            if !n.exact {
                // Approximate (the text lost a quote or an escape), but
                // never past the script that holds it.
                let end = base.saturating_add(script.len());
                for c in out.iter_mut().skip(first) {
                    c.start = c.start.min(end);
                    for w in &mut c.words {
                        w.at = w.at.min(end);
                    }
                }
            }
        }
    }
    Ok(())
}

/// The script of `bash -c SCRIPT` (also after `docker exec ... bash -c`);
/// `script` is the one the command was read from, at `base`.
fn shell_argument(c: &Command, script: &str, base: usize) -> Option<Nested<'static>> {
    let at = c.words.windows(2).position(|w| match w {
        [shell, flag] => {
            flag.text == "-c" && SHELLS.contains(&shell.text.rsplit('/').next().unwrap_or(""))
        }
        _ => false,
    })?;
    let word = c.words.get(at.saturating_add(2))?;
    let local = word.at.saturating_sub(base);
    let source = |skip: usize| {
        script
            .get(local.saturating_add(skip)..)
            .is_some_and(|rest| rest.starts_with(word.text.as_str()))
    };
    let (at, exact) = if source(1) {
        (word.at.saturating_add(1), true)
    } else if source(0) {
        (word.at, true)
    } else {
        (word.at.saturating_add(1), false)
    };
    Some(Nested {
        body: Cow::Owned(word.text.clone()),
        at,
        exact,
    })
}

/// A command as the tokenizer ends it: its words, what came before, the
/// scripts inside it, and how many `( ... )` subshells are open around it.
type Done<'a> = (Vec<Word>, Sep, Vec<Nested<'a>>, usize);

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
            if let Some(d) = w.text.strip_prefix("<<") {
                let strip = d.starts_with('-');
                let d = d.trim_start_matches('-').trim_matches(['\'', '"']);
                if !d.is_empty() {
                    self.heredocs.push((d.to_owned(), strip));
                }
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
    }

    /// The text up to the byte that closes what opened just before `from`,
    /// counting nested parentheses outside quotes.
    fn closing(&self, from: usize, open: u8, close: u8) -> usize {
        let (mut depth, mut j, mut quote) = (1usize, from, 0u8);
        while let Some(&c) = self.s.get(j) {
            match (quote, c) {
                (0, b'\'' | b'"') => quote = c,
                (q, c) if q != 0 && c == q => quote = 0,
                (0, b'\\') => j = j.saturating_add(1),
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

#[cfg(test)]
mod tests;
