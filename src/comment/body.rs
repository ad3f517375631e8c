//! The comment's Markdown, from the report: pure. The verdict first, where
//! the baseline came from, the rows that fail, a chart, then every row in
//! `<details>`, cut to GitHub's limit with a sentence saying how many rows
//! were left out and where the whole report is.
//!
//! Every value comes from the report, which a fork's code may have shaped:
//! [`inert`] makes it text that GitHub renders as written, with no HTML,
//! link, image, mention or issue reference. The only link is the run's,
//! built by the program from the runner's own variables.

use std::fmt::Write as _;

use super::report::{Baseline, Report, Row};
use crate::compare::class::Class;
use crate::runner::markdown::{Bar, CHART_BARS, escape, xychart};
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
}

pub struct Body {
    pub text: String,
    /// Rows the limit left out.
    pub left_out: usize,
}

/// A median with its unit, or a dash.
fn number(v: Option<f64>, unit: &str) -> String {
    match v {
        Some(v) if v.is_finite() => {
            let digits = if v.abs() >= 100.0 { 1 } else { 3 };
            format!("{v:.digits$} {unit}")
        }
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

fn headline(report: &Report) -> String {
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

fn provenance(report: &Report, ctx: &Context<'_>) -> String {
    let mut parts = Vec::new();
    if let Some(p) = &report.provenance {
        if let (Some(repo), Some(sha)) = (p.base_repo.as_deref(), short_sha(p.base_sha.as_deref()))
        {
            parts.push(format!("baseline {}@{sha}", inert(repo, 100)));
        }
        if let (Some(tag), Some(sha)) = (p.tag.as_deref(), short_sha(p.tag_sha.as_deref())) {
            parts.push(format!("release {} ({sha})", inert(tag, 60)));
        }
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
    let mut parts: Vec<String> = Vec::new();
    for (k, v) in &b.counts {
        if *v > 0 && k != "compared" && k.bytes().all(|c| c.is_ascii_lowercase() || c == b'-') {
            parts.push(format!("{v} {k}"));
        }
    }
    format!(
        "{}: {compared} compared ({})\n\n",
        inert(&b.label, 60),
        parts.join(", ")
    )
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

/// Appends rows while the body stays under the limit, `keep` bytes kept
/// free besides; returns how many did not fit.
fn rows<'a>(
    out: &mut String,
    rows: impl Iterator<Item = &'a Row>,
    with_class: bool,
    keep: usize,
) -> usize {
    let mut left = 0usize;
    let room = LIMIT.saturating_sub(RESERVE).saturating_sub(keep);
    for row in rows {
        let line = row_line(row, with_class);
        if left > 0 || out.len().saturating_add(line.len()) > room {
            left = left.saturating_add(1);
        } else {
            out.push_str(&line);
        }
    }
    left
}

fn chart(gate: &Baseline) -> String {
    let mut worse: Vec<&Row> = gate
        .rows
        .iter()
        .filter(|r| r.is(&[Class::Regressed, Class::Warned, Class::Noisy]))
        .filter(|r| r.change_pct.is_some_and(|c| c.is_finite() && c < 0.0))
        .collect();
    if worse.is_empty() {
        return String::new();
    }
    worse.sort_by(|a, b| {
        a.change_pct
            .unwrap_or(0.0)
            .total_cmp(&b.change_pct.unwrap_or(0.0))
    });
    let bars: Vec<Bar> = worse
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
            line: r
                .thresholds
                .as_ref()
                .and_then(|t| t.fail_pct)
                .unwrap_or(0.0),
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

pub fn render(report: &Report, ctx: &Context<'_>) -> Body {
    let mut out = format!("{}\n", marker(ctx.marker));
    out.push_str(&headline(report));
    out.push_str(&provenance(report, ctx));
    let mut left = 0usize;
    if let Some(gate) = report.gate() {
        if !gate.available {
            out.push_str(&unavailable(gate));
        } else {
            out.push_str(&counts(gate));
        }
    }
    for w in report.warnings.iter().take(10) {
        let _ = write!(out, "> ⚠️ {}\n\n", inert(w, 300));
    }
    if let Some(gate) = report.gate() {
        // The chart (at most a few KB) follows the failing rows; its room is kept.
        let picture = chart(gate);
        let failing: Vec<&Row> = gate
            .rows
            .iter()
            .filter(|r| r.is(&[Class::Regressed, Class::Lost]))
            .collect();
        if !failing.is_empty() {
            let _ = write!(out, "#### Regressed and lost ({})\n\n{HEAD}", failing.len());
            left = left.saturating_add(rows(&mut out, failing.into_iter(), false, picture.len()));
            out.push('\n');
        }
        out.push_str(&picture);
    }
    for b in &report.baselines {
        if !b.available {
            if !b.gate {
                out.push_str(&unavailable(b));
            }
            continue;
        }
        // A `<details>` is opened only with room for it and its close.
        if left > 0 || out.len().saturating_add(400).saturating_add(RESERVE) > LIMIT {
            left = left.saturating_add(b.rows.len());
            continue;
        }
        let _ = write!(
            out,
            "<details><summary>All {} rows against {}</summary>\n\n{HEAD_CLASS}",
            b.rows.len(),
            inert(&b.label, 60)
        );
        left = left.saturating_add(rows(&mut out, b.rows.iter(), true, 0));
        out.push_str("\n</details>\n\n");
    }
    if left > 0 {
        let whole = match ctx.run_url {
            Some(url) => {
                format!("in the job summary and the report artifact of [the benchmark run]({url})")
            }
            None => "in the benchmark run's job summary and report artifact".to_owned(),
        };
        let _ = writeln!(
            out,
            "*{left} rows are left out to keep this comment under GitHub's limit of 65,536 characters; the whole report is {whole}.*"
        );
    }
    Body {
        text: out,
        left_out: left,
    }
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
