//! Enough of the shell language to find commands in a `run:` script the way
//! bash would: comments are not code, a `\` at the end of a line joins it
//! to the next, quotes and `${{ ... }}` expressions hold spaces, `;`, `&&`,
//! `||`, `|` and newlines separate commands, and the bodies of `$(...)`,
//! `<(...)`, backticks, `bash -c "..."` (also after `docker exec ...`, and
//! `docker run --entrypoint bash IMAGE -c "..."`) and here-documents fed
//! to a shell are scripts too, read as such.
//!
//! It is not a shell: no expansion, no evaluation. The rules ask it which
//! commands run, with which words, inside how many loops; a rare construct
//! it misreads makes a rule miss, never a finding out of nowhere.

use std::borrow::Cow;

use thiserror::Error;

pub mod functions;
mod tokens;
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

/// A word that sets a variable for the command (`CUDA_VISIBLE_DEVICES=0`),
/// not the program it runs.
pub fn assignment(word: &str) -> bool {
    // `NAME+=value` appends (`selected+=("$d")`): an assignment too.
    word.split_once('=').is_some_and(|(name, _)| {
        let name = name.strip_suffix('+').unwrap_or(name);
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The file name of a program word: `/usr/bin/python3` is `python3`.
pub fn file_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
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
pub const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh"];

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
    unwrap_runners(&mut out);
    let mut vars = vars.clone();
    for c in &mut out {
        vars.expand(c);
    }
    Ok(out)
}

/// Calls of the functions the script defines that run their arguments as
/// a command (`run() { output=$(eval "$@" 2>&1) || ...; }`, `quiet() {
/// "$@" >/dev/null; }`), read as that command: `run git clone URL` is a
/// clone. A setup script wraps its git commands so to show their output
/// only on failure. A function that only prints its arguments (`echo
/// "$@"`) runs nothing.
fn unwrap_runners(out: &mut [Command]) {
    let mut runners: Vec<String> = Vec::new();
    let mut open: Option<(String, usize, usize)> = None;
    for c in out.iter() {
        if let Some((name, script, depth)) = &mut open {
            if c.script == *script {
                if c.keywords.iter().any(|k| k == "}") {
                    *depth = depth.saturating_sub(1);
                }
                if c.words.last().is_some_and(|w| w.text == "{") {
                    *depth = depth.saturating_add(1);
                }
            }
            let runs_arguments = c
                .words
                .iter()
                .position(|w| w.text == "$@" || w.text == "$*");
            let at_start = match c.name() {
                Some("eval" | "exec" | "command") => runs_arguments == Some(1),
                _ => runs_arguments == Some(0),
            };
            if at_start && !runners.contains(name) {
                runners.push(name.clone());
            }
            if *depth == 0 {
                open = None;
            }
            continue;
        }
        if let Some(name) = defines(c) {
            open = Some((name.to_owned(), c.script, 1));
        }
    }
    if runners.is_empty() {
        return;
    }
    for c in out.iter_mut() {
        let wraps = c.name().is_some_and(|n| runners.iter().any(|r| r == n));
        if wraps && c.words.len() > 1 {
            c.words.remove(0);
        }
    }
}

/// The name a command defines as a function with a body opened on its
/// line: `name() {`, `function name {`, `function name() {`.
fn defines(c: &Command) -> Option<&str> {
    let words: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
    let name = match words.as_slice() {
        [name, "{"] => name.strip_suffix("()")?,
        ["function", name, "{"] => name.strip_suffix("()").unwrap_or(name),
        _ => return None,
    };
    (!name.is_empty()).then_some(name)
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
    let mut looping = at.loops;
    for (words, before, inner, subshells) in tokens::split(script, base) {
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
        take_keywords(&mut command, &mut looping);
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
                clamp(
                    out.iter_mut().skip(first),
                    base.saturating_add(script.len()),
                );
            }
        }
    }
    Ok(())
}

/// Moves the command's leading keywords (`if`, `while`, `done`, ...) out
/// of its words, counting the loops they open and close in `looping`; a
/// `for` opens one for the commands after it, not for itself.
fn take_keywords(command: &mut Command, looping: &mut usize) {
    while let Some(first) = command.words.first() {
        if !KEYWORDS.contains(&first.text.as_str()) {
            break;
        }
        let k = command.words.remove(0).text;
        match k.as_str() {
            "while" | "until" => *looping = looping.saturating_add(1),
            "done" => *looping = looping.saturating_sub(1),
            _ => {}
        }
        command.keywords.push(k);
    }
    command.loops = *looping;
    if command.name() == Some("for") {
        *looping = looping.saturating_add(1);
    }
}

/// Keeps the offsets of `commands` at or before `end`.
fn clamp<'c>(commands: impl Iterator<Item = &'c mut Command>, end: usize) {
    for c in commands {
        c.start = c.start.min(end);
        for w in &mut c.words {
            w.at = w.at.min(end);
        }
    }
}

/// The script of `bash -c SCRIPT` (also after `docker exec ... bash -c`);
/// `script` is the one the command was read from, at `base`.
fn shell_argument(c: &Command, script: &str, base: usize) -> Option<Nested<'static>> {
    let word = match c.words.windows(2).position(|w| match w {
        [shell, flag] => command_flag(&flag.text) && SHELLS.contains(&file_name(&shell.text)),
        _ => false,
    }) {
        Some(at) => c.words.get(at.saturating_add(2))?,
        None => entrypoint_script(c)?,
    };
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

/// A shell's `-c`, also among other one-letter flags (`-lc`, `-ec`,
/// `-euxc`: ATOM's `$CONTAINER_ENGINE exec box bash -lc "git clone ..."`).
fn command_flag(flag: &str) -> bool {
    flag.strip_prefix('-').is_some_and(|letters| {
        !letters.starts_with('-')
            && letters.contains('c')
            && letters.bytes().all(|b| b.is_ascii_lowercase())
    })
}

/// The script of `docker run --entrypoint bash IMAGE -c SCRIPT` (also
/// `podman`, `create`, `--entrypoint=/bin/sh`): the shell is the
/// container's entrypoint, so its `-c` comes after the image, far from it
/// (optimum-amd's benchmark step installs its harness there).
/// docker's own `-c` (`--cpu-shares`) comes before the image and takes a
/// number, so a `-c` before the entrypoint, or followed by a number, is
/// not the shell's.
fn entrypoint_script(c: &Command) -> Option<&Word> {
    let words: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
    let [docker, "run" | "create", ..] = words.as_slice() else {
        return None;
    };
    if !matches!(file_name(docker), "docker" | "podman") {
        return None;
    }
    let shell = |w: &str| SHELLS.contains(&file_name(w));
    let entry = words
        .iter()
        .position(|w| match w.strip_prefix("--entrypoint=") {
            Some(value) => shell(value),
            None => false,
        });
    let entry = entry.or_else(|| {
        words
            .windows(2)
            .position(|w| matches!(w, ["--entrypoint", value] if shell(value)))
    })?;
    let flag = words
        .iter()
        .enumerate()
        .skip(entry.saturating_add(1))
        .find(|(i, w)| {
            **w == "-c"
                && words
                    .get(i.saturating_add(1))
                    .is_some_and(|next| !next.bytes().all(|b| b.is_ascii_digit()))
        })?
        .0;
    c.words.get(flag.saturating_add(1))
}

#[cfg(test)]
mod tests;
