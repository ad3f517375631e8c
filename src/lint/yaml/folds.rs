//! Where each line of a plain or `>` folded scalar begins in its value.
//!
//! YAML joins the lines of such a scalar with a space (`run: docker run`
//! then `--rm` on the next line is the one line `docker run --rm`), so an
//! offset in the value says nothing of the file's line. A finding in a
//! long `docker run` written that way (optimum-amd's benchmark step, its
//! `pip install` on the 18th line of the value) must still point at its
//! line, as one in a `|` script does.

use super::Pos;

/// For the scalar whose value is `value` and whose first character is at
/// byte `from` of `source` (at `at`): the value's offset where each later
/// line of the file starts, with that line's place. Each line is matched
/// in the value as written (its indentation and trailing blanks dropped,
/// blank lines skipped); the first line that does not match ends the
/// reading, and the value's end ends it, so it costs one pass over the
/// scalar's own lines. Empty for a value on one line: one with no line
/// break before `end`, the byte its text ends at, is known as one without
/// reading on to its line's end (a flow sequence of 100,000 plain items
/// on one line read that line's rest for each, quadratic).
pub(super) fn line_starts(
    source: &str,
    (from, end): (usize, usize),
    at: Pos,
    value: &str,
) -> Vec<(usize, Pos)> {
    let mut starts = Vec::new();
    let Some(rest) = source.get(from..) else {
        return starts;
    };
    let extent = end.saturating_sub(from).min(rest.len());
    if !rest.as_bytes().iter().take(extent).any(|&b| b == b'\n') {
        return starts;
    }
    let mut lines = rest.split('\n');
    let first = lines
        .next()
        .unwrap_or_default()
        .trim_end_matches([' ', '\t', '\r']);
    if first.len() >= value.len() || !value.starts_with(first) {
        return starts;
    }
    let mut cursor = first.len();
    let mut line = at.line;
    for text in lines {
        line = line.saturating_add(1);
        if cursor >= value.len() {
            break;
        }
        let content = text.trim_matches([' ', '\t', '\r']);
        if content.is_empty() {
            continue;
        }
        let gap = value.get(cursor..).map_or(0, |v| {
            v.len()
                .saturating_sub(v.trim_start_matches([' ', '\t', '\n']).len())
        });
        cursor = cursor.saturating_add(gap);
        if !value.get(cursor..).is_some_and(|v| v.starts_with(content)) {
            break;
        }
        let indent = text
            .len()
            .saturating_sub(text.trim_start_matches([' ', '\t']).len());
        starts.push((
            cursor,
            Pos {
                line,
                column: indent.saturating_add(1),
            },
        ));
        cursor = cursor.saturating_add(content.len());
    }
    starts
}
