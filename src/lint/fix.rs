//! `lint --fix`: the mechanical rules mended in place, each an edit at the
//! span of the node its finding points at, every other byte left as it was.
//!
//! - `job-always`: `always()` becomes `!cancelled()` (and a plain `if:`
//!   that would then start with `!`, a YAML tag, is wrapped in `${{ }}`);
//! - `cancel-main` and `label-cancel`: `cancel-in-progress: true` becomes
//!   `${{ github.event_name == 'pull_request' }}` (with `&&
//!   github.event.action != 'labeled'` for a `labeled` trigger);
//! - `tag-sort`: where the job uses baseline-resolver (a step with an
//!   `id:`), the `$(... sort -V ...)` becomes `"$BASELINE_TAG"`, set in the
//!   step's `env:` from that step's `tag` output (never `${{ }}` in a
//!   script).
//!
//! Pure: the text and the findings in, edits out; the caller re-lints the
//! result and keeps it only when the file still parses and the fixed
//! findings are gone.

use super::finding::Finding;
use super::yaml::{Node, Pos, Style};

/// One replacement of bytes `start..end` of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The byte offset of a position (line and column from 1, columns in
/// characters).
pub fn offset(text: &str, at: Pos) -> Option<usize> {
    let line_start = if at.line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(at.line.checked_sub(2)?)
            .map(|(i, _)| i.saturating_add(1))?
    };
    let line = text.get(line_start..)?;
    let col = at.column.checked_sub(1)?;
    let within = line.char_indices().nth(col).map_or(line.len(), |(i, _)| i);
    Some(line_start.saturating_add(within))
}

/// The edits that mend `findings` in `text` (whose tree is `root`), one
/// per fixable finding, not overlapping, in file order.
pub fn edits(text: &str, root: &Node, findings: &[Finding]) -> Vec<Edit> {
    let mut out: Vec<Edit> = Vec::new();
    for f in findings {
        let Some(at) = offset(text, f.at) else {
            continue;
        };
        // A `labeled` run cancels too where label-cancel points here.
        let labeled = findings
            .iter()
            .any(|g| g.rule.id == "label-cancel" && g.at == f.at);
        let edit = match f.rule.id {
            "job-always" => always(text, root, f.at, at),
            "cancel-main" | "label-cancel" => cancel(text, at, labeled),
            "tag-sort" => tag(text, root, f.at, at),
            _ => None,
        };
        out.extend(edit.into_iter().flatten());
    }
    out.sort_by_key(|e| (e.start, e.end));
    // Two findings at one place (cancel-main and label-cancel) make one edit.
    out.dedup_by(|b, a| b.start < a.end);
    out
}

/// Applies non-overlapping `edits` (in file order) to `text`.
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0usize;
    for e in edits {
        out.push_str(text.get(from..e.start).unwrap_or(""));
        out.push_str(&e.text);
        from = e.end;
    }
    out.push_str(text.get(from..).unwrap_or(""));
    out
}

/// The scalar whose value holds position `at`, anywhere in the tree.
fn scalar_at(node: &Node, at: Pos) -> Option<&super::yaml::Scalar> {
    let mut all = Vec::new();
    node.scalars(&mut all);
    all.into_iter()
        .find(|s| s.pos_of(0) <= at && at <= s.pos_of(s.text.len()))
}

fn always(text: &str, root: &Node, pos: Pos, at: usize) -> Option<Vec<Edit>> {
    let token = text.get(at..at.checked_add(8)?)?;
    if !token.eq_ignore_ascii_case("always()") {
        return None;
    }
    let scalar = scalar_at(root, pos)?;
    let fixed = Edit {
        start: at,
        end: at.saturating_add(8),
        text: "!cancelled()".to_owned(),
    };
    // A plain `if: always() && x` would become `if: !cancelled() && x`,
    // which YAML reads as a tag: the whole value goes inside `${{ }}`.
    let start = offset(text, scalar.at)?;
    if scalar.style == Style::Plain && start == at && !scalar.text.contains('\n') {
        let end = start.checked_add(scalar.text.len())?;
        if text.get(start..end) != Some(scalar.text.as_str()) {
            return None;
        }
        let rest = text.get(at.saturating_add(8)..end)?;
        return Some(vec![Edit {
            start,
            end,
            text: format!("${{{{ !cancelled(){rest} }}}}"),
        }]);
    }
    Some(vec![fixed])
}

fn cancel(text: &str, at: usize, labeled: bool) -> Option<Vec<Edit>> {
    let value = text.get(at..at.checked_add(4)?)?;
    if value != "true" {
        return None;
    }
    let condition = if labeled {
        "${{ github.event_name == 'pull_request' && github.event.action != 'labeled' }}"
    } else {
        "${{ github.event_name == 'pull_request' }}"
    };
    Some(vec![Edit {
        start: at,
        end: at.saturating_add(4),
        text: condition.to_owned(),
    }])
}

/// The baseline-resolver step (`uses:` naming it, not a sub-action) with
/// an `id:`, in the job whose steps hold `pos`.
fn resolver_step(root: &Node, pos: Pos) -> Option<(String, &Node)> {
    let jobs = root.get("jobs")?;
    for (_, job) in jobs.entries() {
        let steps = job.get("steps").map(Node::items).unwrap_or_default();
        let holds = steps.iter().any(|s| {
            s.get("run")
                .and_then(Node::scalar)
                .is_some_and(|r| r.at.line <= pos.line && r.pos_of(r.text.len()).line >= pos.line)
        });
        if !holds {
            continue;
        }
        let id = steps.iter().find_map(|s| {
            let uses = s.get("uses").and_then(Node::str)?;
            let name = uses.split('@').next().unwrap_or(uses);
            let own = name.ends_with("/baseline-resolver") || name.ends_with("baseline-resolver/");
            own.then(|| s.get("id").and_then(Node::str)).flatten()
        })?;
        let step = steps.iter().find(|s| {
            s.get("run")
                .and_then(Node::scalar)
                .is_some_and(|r| r.at.line <= pos.line && r.pos_of(r.text.len()).line >= pos.line)
        })?;
        return Some((id.to_owned(), step));
    }
    None
}

fn tag(text: &str, root: &Node, pos: Pos, at: usize) -> Option<Vec<Edit>> {
    let (id, step) = resolver_step(root, pos)?;
    // The `$( ... )` on this line that holds the finding.
    let line_start = text
        .get(..at)?
        .rfind('\n')
        .map_or(0, |i| i.saturating_add(1));
    let open = text
        .get(line_start..at)?
        .rfind("$(")?
        .saturating_add(line_start);
    let mut depth = 0usize;
    let mut close = None;
    for (i, c) in text.get(open..)?.char_indices() {
        match c {
            '(' => depth = depth.saturating_add(1),
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    close = Some(open.saturating_add(i).saturating_add(1));
                    break;
                }
            }
            '\n' => return None,
            _ => {}
        }
    }
    let close = close?;
    let mut edits = vec![Edit {
        start: open,
        end: close,
        text: "\"$BASELINE_TAG\"".to_owned(),
    }];
    edits.push(env_entry(text, step, &id)?);
    Some(edits)
}

/// `BASELINE_TAG: ${{ steps.ID.outputs.tag }}` added to the step's `env:`
/// (created before its `run:` when it has none), at the step's indentation.
fn env_entry(text: &str, step: &Node, id: &str) -> Option<Edit> {
    let value = format!("BASELINE_TAG: ${{{{ steps.{id}.outputs.tag }}}}");
    if let Some(env) = step.get("env") {
        let first = env.entries().first()?;
        let at = offset(
            text,
            Pos {
                line: first.0.at.line,
                column: 1,
            },
        )?;
        let indent = first.0.at.column.saturating_sub(1);
        return Some(Edit {
            start: at,
            end: at,
            text: format!("{}{value}\n", " ".repeat(indent)),
        });
    }
    let run = step.key("run")?;
    let at = offset(
        text,
        Pos {
            line: run.at.line,
            column: 1,
        },
    )?;
    let indent = run.at.column.saturating_sub(1);
    Some(Edit {
        start: at,
        end: at,
        text: format!("{pad}env:\n{pad}  {value}\n", pad = " ".repeat(indent)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_characters_on_their_line() {
        let text = "a: é\nbc: 1\n";
        assert_eq!(offset(text, Pos { line: 2, column: 5 }), Some(10));
        assert_eq!(offset(text, Pos { line: 1, column: 4 }), Some(3));
        let edits = [Edit {
            start: 3,
            end: 5,
            text: "x".into(),
        }];
        assert_eq!(apply(text, &edits), "a: x\nbc: 1\n");
    }
}
