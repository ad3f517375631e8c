//! The variables a script sets, as the rules can tell them, and their
//! expansion in later words: what lets `BASE="main~$i"` then
//! `git checkout "$BASE"` read as the walk it is.

use super::{Command, Sep};

/// A variable's value longer than this after expansion is left
/// unexpanded: `X=$X$X` a hundred times stays small.
pub const MAX_EXPANDED: usize = 4_096;
/// Variables remembered: a script sets a few dozen.
const MAX_VARS: usize = 256;

/// The variables a script sets, in order, as the rules can tell them:
/// `NAME=value` alone on its command (also after `export`, `declare`,
/// `local`, `readonly`, `typeset`). `$NAME` and `${NAME}` in later words
/// become the value, so `BASE="main~$i"` then `git checkout "$BASE"`
/// reads as `git checkout main~$i`. Not a shell: no arithmetic, no
/// command output; a value holding `$(...)` stays as written.
#[derive(Debug, Clone, Default)]
pub struct Vars(Vec<(String, String)>);

impl Vars {
    /// Sets `name` (a later value shadows an earlier one).
    pub fn set(&mut self, name: &str, value: &str) {
        if value.len() > MAX_EXPANDED || !is_name(name) {
            return;
        }
        self.0.retain(|(n, _)| n != name);
        if self.0.len() < MAX_VARS {
            self.0.push((name.to_owned(), value.to_owned()));
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Expands the words of `c`, then records what it assigns.
    pub(super) fn expand(&mut self, c: &mut Command) {
        for w in &mut c.words {
            if let Some(text) = self.expanded(&w.text) {
                w.text = text;
            }
        }
        let mut words = c.words.iter().map(|w| w.text.as_str()).peekable();
        if words.peek().is_some_and(|w| DECLARE.contains(w)) {
            words.next();
        }
        let pairs: Vec<(&str, &str)> = words
            .filter(|w| !w.starts_with('-'))
            .map_while(|w| w.split_once('='))
            .collect();
        let all = c
            .words
            .iter()
            .filter(|w| !w.text.starts_with('-') && !DECLARE.contains(&w.text.as_str()))
            .count();
        if !pairs.is_empty() && pairs.len() == all {
            let owned: Vec<(String, String)> = pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect();
            // Set only on a condition (`[ -f "$B" ] || B=""`, neqo's
            // baseline build when it is missing; `[[ ... ]] && skip=true`):
            // the value set before stands, the one the script runs with
            // when the condition fails.
            let maybe = matches!(c.before, Sep::And | Sep::Or);
            for (n, v) in owned {
                if !maybe || self.get(&n).is_none() {
                    self.set(&n, &v);
                }
            }
        }
    }

    /// `text` with `$NAME` and `${NAME}` of known variables replaced;
    /// `None` when nothing is known in it, or the result is too long.
    fn expanded(&self, text: &str) -> Option<String> {
        if self.0.is_empty() || !text.contains('$') {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let (mut rest, mut changed) = (text, false);
        while let Some(at) = rest.find('$') {
            out.push_str(rest.get(..at)?);
            let after = rest.get(at.saturating_add(1)..)?;
            // `${{ env.NAME }}`: the runner puts the value in before the
            // shell runs.
            if let Some((name, len)) = env_expression(after)
                && let Some(value) = self.get(name)
            {
                out.push_str(value);
                changed = true;
                rest = after.get(len..)?;
                continue;
            }
            let (name, len) = match after.strip_prefix('{') {
                Some(inner) if !inner.starts_with('{') => {
                    let end = inner.find('}')?;
                    (inner.get(..end)?, end.saturating_add(2))
                }
                _ => {
                    let end = after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(after.len());
                    (after.get(..end)?, end)
                }
            };
            match self.get(name).filter(|_| is_name(name)) {
                Some(value) => {
                    out.push_str(value);
                    changed = true;
                }
                None => out.push_str(rest.get(at..at.saturating_add(1).saturating_add(len))?),
            }
            rest = after.get(len..)?;
            if out.len() > MAX_EXPANDED {
                return None;
            }
        }
        out.push_str(rest);
        changed.then_some(out)
    }
}

/// `{{ env.NAME }}` at the start of `text` (what follows a `$`): the name
/// and the length up to the closing `}}`.
fn env_expression(text: &str) -> Option<(&str, usize)> {
    let inner = text.strip_prefix("{{")?;
    let end = inner.find("}}")?;
    let name = inner.get(..end)?.trim().strip_prefix("env.")?;
    is_name(name).then_some((name, end.saturating_add(4)))
}

/// Builtins whose arguments are assignments.
const DECLARE: &[&str] = &["export", "declare", "local", "readonly", "typeset"];

/// A shell variable's name.
fn is_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
