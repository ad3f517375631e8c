//! The comment's Markdown, from the report: pure. The verdict first, where
//! the baseline came from, the rows that fail, a chart, then every row in
//! `<details>`, cut to GitHub's limit with a sentence saying how many rows
//! were left out and where the whole report is.
//!
//! Every value comes from the report, which a fork's code may have shaped:
//! [`inert`] makes it text that GitHub renders as written, with no HTML,
//! link, image, mention or issue reference. The only link is the run's,
//! built by the program from the runner's own variables.

use super::report::{Baseline, Excerpt, Row};
use crate::contract::class::Class;
use crate::contract::comparison::PAIRED_CHANGE;
use crate::runner::markdown::{Bar, CHART_BARS, escape, xychart};
use crate::runner::text::quantity;
use crate::validate::Sha;

/// GitHub refuses a comment body over 65,536 characters; counted here in
/// bytes, which are never fewer.
pub const LIMIT: usize = 65_536;
/// Kept free for the closing of a `<details>` and the note on what was cut.
const RESERVE: usize = 1_024;
/// A cell of a stranger's text is cut to this many characters.
const CELL: usize = 120;

/// U+200B ZERO WIDTH SPACE: splits what GitHub would otherwise link.
const ZWSP: char = '\u{200b}';

/// Text as it is written: Markdown escaped (no HTML, no emphasis, no
/// link or image syntax, no table cell break, no code span), line breaks
/// made spaces, and a zero-width space after `@` and `#` and inside `://`,
/// `www.` and `GH-` so no mention, issue reference or bare URL forms.
pub fn inert(value: &str, max: usize) -> String {
    let cut: String = value.chars().take(max).collect();
    let mut out = String::with_capacity(cut.len().saturating_add(8));
    let mut previous = ' ';
    for c in escape(&cut).chars() {
        out.push(c);
        // `&#96;` is escape's own entity for a backtick (a `&` from the
        // text is `&amp;`): it stays whole.
        if c == '@' || (c == '#' && previous != '&') {
            out.push(ZWSP);
        }
        previous = c;
    }
    let out = out
        .replace("://", &format!(":{ZWSP}//"))
        .replace("www.", &format!("www{ZWSP}."))
        .replace("WWW.", &format!("WWW{ZWSP}."))
        .replace("GH-", &format!("GH{ZWSP}-"));
    if value.chars().count() > max {
        format!("{out}…")
    } else {
        out
    }
}

/// The hidden first line that finds the comment again.
pub fn marker(id: &str) -> String {
    format!("<!-- baseline-resolver:{id} -->")
}

/// Where the comment comes from, besides the report.
pub struct Context<'a> {
    pub marker: &'a str,
    /// The run that produced the report, built from the runner's variables.
    pub run_url: Option<&'a str>,
    /// The repository the comment is posted in (`GITHUB_REPOSITORY`): a
    /// `repo@sha` of this one links to its own commit; any other is text.
    pub repo: Option<&'a str>,
}

pub struct Body {
    pub text: String,
    /// Rows the limit left out.
    pub left_out: usize,
}

/// A median with its unit, or a dash.
fn number(v: Option<f64>, unit: &str) -> String {
    match v {
        Some(v) if v.is_finite() => quantity(v, unit),
        _ => "–".to_owned(),
    }
}

fn change(row: &Row) -> String {
    match row.change_pct {
        Some(c) if c.is_finite() => format!("{c:+.1}%"),
        _ => "–".to_owned(),
    }
}

fn short_sha(value: Option<&str>) -> Option<String> {
    let sha = Sha::parse(value?).ok()?;
    Some(sha.short().to_owned())
}

fn headline(report: &Excerpt) -> String {
    let verdict = report.verdict.as_deref().unwrap_or("inconclusive");
    let (emoji, word) = match verdict {
        "pass" => ("✅", "pass"),
        "regression" => ("❌", "regression"),
        _ => ("⚠️", "inconclusive"),
    };
    let gate = report
        .gate
        .as_deref()
        .map(|g| format!(" against {}", inert(g, 60)))
        .unwrap_or_default();
    let only = if report.report_only {
        " (report-only: the gate does not fail the job)"
    } else {
        ""
    };
    format!("### {emoji} Benchmarks: {word}{gate}{only}\n\n")
}

fn provenance(report: &Excerpt, ctx: &Context<'_>) -> String {
    let mut parts = Vec::new();
    if let Some(p) = &report.provenance {
        if let (Some(repo), Some(sha)) = (p.base_repo.as_deref(), short_sha(p.base_sha.as_deref()))
        {
            // GitHub links `owner/name@sha` to that repository's commit: only
            // the pull request's own repository keeps the link.
            let own = ctx.repo.is_some_and(|r| r.eq_ignore_ascii_case(repo));
            let at = if own {
                "@".to_owned()
            } else {
                format!("@{ZWSP}")
            };
            parts.push(format!("baseline {}{at}{sha}", inert(repo, 100)));
        }
        if let (Some(tag), Some(sha)) = (p.tag.as_deref(), short_sha(p.tag_sha.as_deref())) {
            parts.push(format!("release {} ({sha})", inert(tag, 60)));
        }
    }
    if let Some(line) = crate::contract::fingerprint::measured_on_line(
        report.current_measured_on.as_deref(),
        report.baseline_measured_on.as_deref(),
    ) {
        parts.push(inert(&line, 700));
    }
    if let Some(url) = ctx.run_url {
        parts.push(format!("[the benchmark run]({url})"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{}\n\n", parts.join(" · "))
    }
}

fn counts(b: &Baseline) -> String {
    let n = |k: &str| b.counts.get(k).copied().unwrap_or(0);
    let compared = b.counts.get("compared").copied().unwrap_or_else(|| {
        Class::COMPARED
            .iter()
            .map(|c| n(c.name()))
            .fold(0, u64::saturating_add)
    });
    let parts: Vec<String> = b
        .counts
        .iter()
        .filter(|(k, v)| **v > 0 && **k != "compared")
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    format!(
        "{}: {compared} compared ({})\n\n{}",
        inert(&b.label, 60),
        parts.join(", "),
        b.coverage.as_ref().map(coverage).unwrap_or_default()
    )
}

/// `Coverage: 3 of 9 rows compared (33.3%); not compared: ...`, compare's
/// wording (`contract::coverage`), inert: `stopped` is text from the report.
fn coverage(c: &crate::contract::coverage::Coverage) -> String {
    format!("Coverage: {}\n\n", inert(&c.text(), 400))
}

fn row_line(row: &Row, with_class: bool) -> String {
    let unit = row
        .unit
        .as_deref()
        .map(|u| inert(u, 12))
        .unwrap_or_default();
    let class = if with_class {
        format!(" {} |", inert(&row.class, 20))
    } else {
        String::new()
    };
    format!(
        "| {} |{class} {} | {} | {} | {} |\n",
        inert(&row.key.cells(), CELL),
        number(row.baseline.as_ref().and_then(|s| s.median), &unit),
        number(row.current.as_ref().and_then(|s| s.median), &unit),
        change(row),
        inert(row.reason.as_deref().unwrap_or(""), CELL),
    )
}

const HEAD: &str = "| benchmark | baseline | current | change | why |\n|---|---|---|---|---|\n";
const HEAD_CLASS: &str =
    "| benchmark | class | baseline | current | change | why |\n|---|---|---|---|---|---|\n";
/// Paired rounds: the change is not the medians' ratio, and the head says
/// which is which (a row whose medians point the other way says so in its
/// why: compare writes that).
const HEAD_PAIRED: &str = "| benchmark | baseline (median) | current (median) | change (paired) | why |\n|---|---|---|---|---|\n";
const HEAD_CLASS_PAIRED: &str = "| benchmark | class | baseline (median) | current (median) | change (paired) | why |\n|---|---|---|---|---|---|\n";
/// The note and the head of a table of `b`'s rows.
fn head(b: &Baseline, with_class: bool) -> String {
    match (b.paired, with_class) {
        (true, true) => format!("*{PAIRED_CHANGE}*\n\n{HEAD_CLASS_PAIRED}"),
        (true, false) => format!("*{PAIRED_CHANGE}*\n\n{HEAD_PAIRED}"),
        (false, true) => HEAD_CLASS.to_owned(),
        (false, false) => HEAD.to_owned(),
    }
}
/// What closes an open `<details>`.
const CLOSE: &str = "\n</details>\n\n";

/// The body as it is written: every part goes through [`Out::part`],
/// which takes it only while the body, with [`RESERVE`] kept free for the
/// closing note, stays under the limit. What does not fit is counted.
/// The body as it is built: every part counted against the limit.
pub(super) struct Out {
    text: String,
    room: usize,
    left_rows: usize,
    left_parts: usize,
}

impl Out {
    pub(super) fn new() -> Out {
        Out {
            text: String::new(),
            room: LIMIT.saturating_sub(RESERVE),
            left_rows: 0,
            left_parts: 0,
        }
    }

    /// Whether `part` (and `keep` bytes after it) still fits.
    fn fits(&self, part: usize, keep: usize) -> bool {
        self.text.len().saturating_add(part).saturating_add(keep) <= self.room
    }

    /// Appends `part` when it fits; otherwise counts it as left out.
    pub(super) fn part(&mut self, part: &str) -> bool {
        if self.fits(part.len(), 0) {
            self.text.push_str(part);
            true
        } else {
            self.left_parts = self.left_parts.saturating_add(1);
            false
        }
    }

    /// Appends row lines while they fit with `keep` bytes after them, then
    /// counts the rest, and the `more` rows the report had beyond these.
    fn rows<'a>(
        &mut self,
        rows: impl Iterator<Item = &'a Row>,
        with_class: bool,
        keep: usize,
        more: usize,
    ) {
        let mut full = false;
        for row in rows {
            let line = row_line(row, with_class);
            if full || !self.fits(line.len(), keep) {
                full = true;
                self.left_rows = self.left_rows.saturating_add(1);
            } else {
                self.text.push_str(&line);
            }
        }
        self.left_rows = self.left_rows.saturating_add(more);
    }

    /// Appends `lines` while they fit, then counts the rest and the `more`
    /// the report had beyond them, as rows left out.
    pub(super) fn lines(&mut self, lines: &[String], more: usize) {
        let mut full = false;
        for line in lines {
            if full || !self.fits(line.len(), 0) {
                full = true;
                self.left_rows = self.left_rows.saturating_add(1);
            } else {
                self.text.push_str(line);
            }
        }
        self.left_rows = self.left_rows.saturating_add(more);
    }

    /// The body, with a note on what the limit left out (linking the run
    /// that made the report when it is known and there is room).
    pub(super) fn finish(self, run_url: Option<&str>) -> Body {
        let (rows, parts) = (self.left_rows, self.left_parts);
        let mut text = self.text;
        if rows > 0 || parts > 0 {
            let what = match (rows, parts) {
                (r, 0) => format!("{r} rows are"),
                (0, p) => format!("{p} parts of the report are"),
                (r, p) => format!("{r} rows and {p} other parts of the report are"),
            };
            let note = |whole: &str| {
                format!(
                    "*{what} left out to keep this comment under GitHub's limit of 65,536 characters; the whole report is {whole}.*\n"
                )
            };
            let linked = run_url.map(|url| {
                note(&format!(
                    "in the job summary and the report artifact of [the benchmark run]({url})"
                ))
            });
            let plain = note("in the benchmark run's job summary and report artifact");
            match linked {
                Some(l) if text.len().saturating_add(l.len()) <= LIMIT => text.push_str(&l),
                _ => text.push_str(&plain),
            }
        }
        Body {
            text,
            left_out: rows,
        }
    }
}

fn chart(gate: &Baseline) -> String {
    if gate.worse.is_empty() {
        return String::new();
    }
    let bars: Vec<Bar> = gate
        .worse
        .iter()
        .take(CHART_BARS)
        .map(|r| Bar {
            label: r
                .key
                .0
                .iter()
                .take(2)
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            value: -r.change_pct.unwrap_or(0.0),
            line: r.thresholds.fail_pct.unwrap_or(0.0),
        })
        .collect();
    format!(
        "{}\n",
        xychart(
            "Worse than the baseline",
            "worse by %, line: fail threshold",
            &bars
        )
    )
}

fn unavailable(b: &Baseline) -> String {
    let why = b.unavailable_reason.as_deref().unwrap_or("no results");
    format!(
        "No comparison against {}: {}\n\n",
        inert(&b.label, 60),
        inert(why, 300)
    )
}

/// The gate's part: its counts (or why there is none), the warnings, the
/// failing rows and the chart.
fn gate_part(out: &mut Out, report: &Excerpt) {
    if let Some(gate) = report.gate() {
        out.part(&if gate.available {
            counts(gate)
        } else {
            unavailable(gate)
        });
    }
    for w in &report.warnings {
        out.part(&format!("> ⚠️ {}\n\n", inert(w, 300)));
    }
    out.left_parts = out
        .left_parts
        .saturating_add(report.warnings_total.saturating_sub(report.warnings.len()));
    let Some(gate) = report.gate() else {
        return;
    };
    // The chart (at most a few KB) follows the failing rows; its room is kept.
    let picture = chart(gate);
    if gate.failing_total > 0 {
        let title = format!(
            "#### Regressed and lost ({})\n\n{}",
            gate.failing_total,
            head(gate, false)
        );
        if out.part(&title) {
            let more = gate.failing_total.saturating_sub(gate.failing.len());
            out.rows(
                gate.failing.iter(),
                false,
                picture.len().saturating_add(1),
                more,
            );
            out.text.push('\n');
        } else {
            out.left_rows = out.left_rows.saturating_add(gate.failing_total);
        }
    }
    out.part(&picture);
}

/// Every baseline's rows in a `<details>`, and a line for each baseline
/// without results.
fn baselines_part(out: &mut Out, report: &Excerpt) {
    for b in &report.baselines {
        if !b.available {
            if !b.gate {
                out.part(&unavailable(b));
            }
            continue;
        }
        let open = format!(
            "<details><summary>All {} rows against {}</summary>\n\n{}",
            b.total,
            inert(&b.label, 60),
            head(b, true)
        );
        // A `<details>` is opened only with room for it and its close.
        if !out.fits(open.len(), CLOSE.len()) {
            out.left_rows = out.left_rows.saturating_add(b.total);
            continue;
        }
        out.text.push_str(&open);
        let more = b.total.saturating_sub(b.rows.len());
        out.rows(b.rows.iter(), true, CLOSE.len(), more);
        out.text.push_str(CLOSE);
    }
    out.left_parts = out.left_parts.saturating_add(
        report
            .baselines_total
            .saturating_sub(report.baselines.len()),
    );
}

pub fn render(report: &Excerpt, ctx: &Context<'_>) -> Body {
    let mut out = Out::new();
    out.part(&format!("{}\n", marker(ctx.marker)));
    out.part(&headline(report));
    out.part(&provenance(report, ctx));
    gate_part(&mut out, report);
    baselines_part(&mut out, report);
    out.finish(ctx.run_url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strangers_text_is_inert() {
        let hostile = "@org/team #1 <img src=x onerror=alert(1)> [x](https://elsewhere) ![i](y) `c` a|b\nwww.evil.test GH-7";
        let text = inert(hostile, 500);
        for bad in [
            "@org", "#1", "<img", "](", "![", "`", "https://", "www.e", "\n", "GH-7",
        ] {
            assert!(!text.contains(bad), "{bad:?} in {text}");
        }
        assert!(text.contains("\\|"), "{text}");
    }
}
