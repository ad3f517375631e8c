//! The `env:` a step sees: the workflow's, the job's and its own, a later
//! level's value winning, as the runner sets them. Values are followed:
//! `${{ env.NAME }}` in a `with:`, `if:` or `run:` reads as NAME's value,
//! and `$NAME` in a script too ([`Vars`]), so
//! `repository: ${{ env.GITHUB_REPO_NAME }}` is known to be the head
//! repository when the workflow's `env:` says `GITHUB_REPO_NAME:
//! ${{ github.event.pull_request.head.repo.full_name || ... }}`. Pure.

use std::borrow::Cow;

use super::shell::{MAX_EXPANDED, Vars};
use super::yaml::Node;

/// The variables one level sees.
#[derive(Debug, Clone, Default)]
pub struct StepEnv {
    vars: Vars,
}

impl StepEnv {
    /// This level's variables with `node`'s (an `env:` mapping) over them.
    /// A value may name an earlier level's variable: it is read then.
    pub fn with(&self, node: Option<&Node>) -> StepEnv {
        let mut vars = self.vars.clone();
        for (key, value) in node.map(Node::entries).unwrap_or_default() {
            if let Some(text) = value.str() {
                let text = expand(&vars, text);
                vars.set(&key.text, &text);
            }
        }
        StepEnv { vars }
    }

    /// The variables, for a script.
    pub fn vars(&self) -> &Vars {
        &self.vars
    }

    /// Whether an `if:` (`cond`) is one comparison of a variable these
    /// levels set written out with another string (`env.CACHE_BENCHMARK
    /// == 'on'` under `CACHE_BENCHMARK: "off"`, stef's benchmark cache,
    /// switched off): what it guards never runs.
    pub fn rules_out(&self, cond: &str) -> bool {
        let inner = cond.trim();
        let inner = inner
            .strip_prefix("${{")
            .and_then(|c| c.strip_suffix("}}"))
            .unwrap_or(inner);
        let (left, right, equal) = match (inner.split_once("=="), inner.split_once("!=")) {
            (Some((l, r)), None) => (l, r, true),
            (None, Some((l, r))) => (l, r, false),
            _ => return false,
        };
        let literal = |t: &str| {
            let t = t.trim();
            t.strip_prefix('\'')
                .and_then(|v| v.strip_suffix('\''))
                .filter(|v| !v.contains('\''))
                .map(str::to_owned)
        };
        let variable = |t: &str| {
            let name = t.trim().strip_prefix("env.")?;
            let written = name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            let value = self.vars.get(name).filter(|_| written)?;
            (!value.contains("${{") && !value.contains('$')).then(|| value.to_owned())
        };
        let (value, wanted) = match (variable(left), literal(right)) {
            (Some(v), Some(w)) => (v, w),
            _ => match (literal(left), variable(right)) {
                (Some(w), Some(v)) => (v, w),
                _ => return false,
            },
        };
        // Expressions compare strings ignoring case.
        value.eq_ignore_ascii_case(&wanted) != equal
    }

    /// `text` with `env.NAME` inside its `${{ }}` expressions read as the
    /// value: an expression value (`${{ E }}`) as `(E)`, text as a string.
    pub fn expand<'t>(&self, text: &'t str) -> Cow<'t, str> {
        expand(&self.vars, text)
    }
}

/// `env.NAME` inside every `${{ }}` of `text` replaced by NAME's value.
fn expand<'t>(vars: &Vars, text: &'t str) -> Cow<'t, str> {
    if !text.contains("env.") || !text.contains("${{") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(open) = rest.find("${{") {
        let (before, from) = rest.split_at(open);
        out.push_str(before);
        let end = from.find("}}").map_or(from.len(), |e| e.saturating_add(2));
        let (expression, after) = from.split_at(end);
        let replaced = within(vars, expression);
        changed |= matches!(replaced, Cow::Owned(_));
        out.push_str(&replaced);
        rest = after;
        if out.len() > MAX_EXPANDED {
            return Cow::Borrowed(text);
        }
    }
    out.push_str(rest);
    if !changed {
        return Cow::Borrowed(text);
    }
    // `${{ 'paradedb/benchmarker' }}` (a variable holding text) is that
    // text, as the action receives it.
    match literal(&out) {
        Some(text) => Cow::Owned(text),
        None => Cow::Owned(out),
    }
}

/// The text of a value that is one quoted string in an expression
/// (`${{ 'a' }}`, `${{ ('a') }}`), its `''` read as `'`.
fn literal(value: &str) -> Option<String> {
    let inner = value.trim().strip_prefix("${{")?.strip_suffix("}}")?.trim();
    let inner = inner
        .strip_prefix('(')
        .and_then(|i| i.strip_suffix(')'))
        .map_or(inner, str::trim);
    let quoted = inner.strip_prefix('\'')?.strip_suffix('\'')?;
    (!quoted.replace("''", "").contains('\'')).then(|| quoted.replace("''", "'"))
}

/// One `${{ ... }}` with each `env.NAME` replaced.
fn within<'e>(vars: &Vars, expression: &'e str) -> Cow<'e, str> {
    let mut out = String::new();
    let mut last = 0usize;
    let bytes = expression.as_bytes();
    let mut i = 0usize;
    while let Some(p) = expression.get(i..).and_then(|r| r.find("env.")) {
        let at = i.saturating_add(p);
        let boundary = at == 0
            || bytes
                .get(at.saturating_sub(1))
                .is_some_and(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.'));
        let name_start = at.saturating_add(4);
        let name_len = expression.get(name_start..).map_or(0, |r| {
            r.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(r.len())
        });
        let name = expression
            .get(name_start..name_start.saturating_add(name_len))
            .unwrap_or("");
        i = name_start
            .saturating_add(name_len)
            .max(at.saturating_add(1));
        let Some(value) = vars.get(name).filter(|_| boundary && !name.is_empty()) else {
            continue;
        };
        out.push_str(expression.get(last..at).unwrap_or(""));
        out.push_str(&as_operand(value));
        last = i;
    }
    if last == 0 {
        return Cow::Borrowed(expression);
    }
    out.push_str(expression.get(last..).unwrap_or(""));
    Cow::Owned(out)
}

/// A value as an expression operand: `${{ E }}` as `(E)`, text quoted.
fn as_operand(value: &str) -> String {
    let t = value.trim();
    match t.strip_prefix("${{").and_then(|r| r.strip_suffix("}}")) {
        Some(inner) if !inner.contains("${{") => format!("({})", inner.trim()),
        _ => format!("'{}'", t.replace('\'', "''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::yaml::parse;

    #[test]
    fn levels_stack_and_expressions_read_the_value() {
        let root = parse(
            "env:\n  REPO: ${{ github.event.pull_request.head.repo.full_name || github.repository }}\n  MODE: fast\njobs:\n  a:\n    env:\n      MODE: slow\n      BOTH: ${{ env.REPO }}\n",
        )
        .unwrap();
        let top = StepEnv::default().with(root.get("env"));
        let job = top.with(
            root.get("jobs")
                .and_then(|j| j.get("a"))
                .and_then(|a| a.get("env")),
        );
        assert_eq!(
            job.expand("${{ env.REPO }}"),
            "${{ (github.event.pull_request.head.repo.full_name || github.repository) }}"
        );
        assert_eq!(
            job.expand("${{ env.MODE == 'slow' }}"),
            "${{ 'slow' == 'slow' }}"
        );
        assert!(
            job.expand("${{ env.BOTH }}").contains("head.repo"),
            "a value reads an earlier level's"
        );
        assert_eq!(
            job.expand("${{ github.env.MODE }} ${{ env.UNSET }}"),
            "${{ github.env.MODE }} ${{ env.UNSET }}"
        );
        assert_eq!(job.vars().get("MODE"), Some("slow"));
        // A variable holding text is that text where it is the whole value.
        assert_eq!(job.expand("${{ env.MODE }}"), "slow");
        assert_eq!(job.expand("${{ env.MODE }}-x"), "${{ 'slow' }}-x");
    }

    #[test]
    fn a_comparison_with_another_written_value_rules_out_what_it_guards() {
        let root = parse("env:\n  CACHE: \"off\"\n  REF: ${{ github.sha }}\n").unwrap();
        let env = StepEnv::default().with(root.get("env"));
        assert!(env.rules_out("env.CACHE == 'on'"));
        assert!(env.rules_out("${{ 'on' == env.CACHE }}"));
        assert!(env.rules_out("env.CACHE != 'OFF'"));
        for runs in [
            "env.CACHE == 'off'",
            "env.CACHE != 'on'",
            // Not written out, or not one comparison: not told.
            "env.REF == 'main'",
            "env.UNSET == 'on'",
            "env.CACHE == 'on' || github.event_name == 'push'",
            "always()",
        ] {
            assert!(!env.rules_out(runs), "{runs}");
        }
    }
}
