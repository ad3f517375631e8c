//! The job summary: the verdict first, the provenance, a chart of the rows
//! beyond the warn threshold (how much worse, against each row's own
//! threshold or noise band), what failed, what is noisy and worth a re-run,
//! what is new, then every row in a collapsed table (with the threshold
//! that applied and where it came from), under GitHub's 1 MiB.

use std::fmt::Write as _;

use super::{
    ANNOTATIONS, REPORT_ONLY, Rerun, counts_line, cut, history_line, threshold_words, verdict_line,
};
use crate::compare::report::Report;
use crate::compare::verdict::{Class, Comparison, RowResult};
use crate::contract::comparison::PAIRED_CHANGE;
use crate::runner::markdown::{Bar, CHART_BARS, escape as md, xychart};
use crate::runner::text::quantity;

/// The summary stops adding rows at this size (GitHub shows at most 1 MiB).
const SUMMARY_BYTES: usize = 900 * 1024;

fn table_row(report: &Report<'_>, row: &RowResult<'_>) -> String {
    let unit = md(report.unit(row.metric));
    let num = |side: &Option<crate::compare::verdict::Samples>| {
        side.as_ref()
            .map_or_else(|| "-".to_owned(), |s| quantity(s.median, &unit))
    };
    let change = row
        .change
        .map_or_else(|| "-".to_owned(), |c| format!("{:+.1}%", c * 100.0));
    format!(
        "| {} | {} | {} | {change} | {} | {} | {} |\n",
        md(&row.key.describe(&report.config.keys)),
        num(&row.baseline),
        num(&row.current),
        row.class.name(),
        md(&threshold_words(row)),
        md(&cut(row.reason.as_deref().unwrap_or_default()))
    )
}

const TABLE_HEAD: &str = "| key | baseline | current | change | class | fail threshold | why |\n|---|---|---|---|---|---|---|\n";
/// Paired rounds: the change is the paired estimate, not the medians'
/// ratio, and the head says which is which.
const TABLE_HEAD_PAIRED: &str = "| key | baseline (median) | current (median) | change (paired) | class | fail threshold | why |\n|---|---|---|---|---|---|---|\n";

/// The head of a table of `c`'s rows, with what a paired change is.
fn table_head(c: &Comparison<'_>) -> String {
    match c.paired() {
        Some(_) => format!("*{PAIRED_CHANGE}*\n\n{TABLE_HEAD_PAIRED}"),
        None => TABLE_HEAD.to_owned(),
    }
}

/// Another machine, said before the verdict.
fn machine_block(report: &Report<'_>) -> String {
    report
        .machine
        .sentence()
        .map(|s| format!("> [!WARNING]\n> {}\n\n", md(&s)))
        .unwrap_or_default()
}

/// The job summary: the verdict and where each baseline came from, the
/// chart, the rows worth a re-run, each baseline's rows by class, then
/// every row collapsed.
pub fn summary(report: &Report<'_>) -> String {
    let mut out = String::new();
    head(report, &mut out);
    out.push_str(&chart(report));
    reruns(report, &mut out);
    for c in report.comparisons().filter(|c| c.unavailable.is_none()) {
        against(report, c, &mut out);
    }
    full_tables(report, &mut out);
    out
}

/// The verdict first (another machine, report-only said beside it), then
/// each baseline's provenance and the run's warnings.
fn head(report: &Report<'_>, out: &mut String) {
    let _ = writeln!(
        out,
        "### Benchmark comparison: {}\n",
        report.verdict().name().to_uppercase()
    );
    out.push_str(&machine_block(report));
    let _ = writeln!(out, "{}\n", md(&verdict_line(report)));
    if report.report_only {
        let _ = writeln!(out, "> [!NOTE]\n> {REPORT_ONLY}\n");
    }
    for c in report.comparisons() {
        if let Some(line) = report
            .provenance
            .as_ref()
            .and_then(|p| p.describe(&c.label))
        {
            let _ = writeln!(out, "- baseline `{}` = {}", c.label, md(&line));
        }
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "\n> [!WARNING]\n> {}", md(&cut(warning)));
    }
    out.push('\n');
}

/// The groups worth a re-run of the change (noisy or regressed on one
/// run per side), and those whose baseline run was off main's level.
fn reruns(report: &Report<'_>, out: &mut String) {
    let rerun = Rerun::of(report);
    if !rerun.groups.is_empty() {
        let _ = writeln!(
            out,
            "\n**Worth a re-run** (noisy, or regressed on one run per side): the rows with {} `{}`{}\n",
            md(&Rerun::column(report)),
            md(&rerun.output()),
            Rerun::elsewhere(report)
        );
    }
    if !rerun.baseline_groups.is_empty() {
        let _ = writeln!(
            out,
            "**Re-run the baseline** (its run was itself off main's level): the rows with {} `{}`\n",
            md(&Rerun::column(report)),
            md(&rerun.baseline_output())
        );
    }
}

/// One baseline's section: its counts, coverage and history, then a table
/// of each class worth a look (regressed, noisy, new, absent, not
/// comparable), each cut at `ANNOTATIONS * 10` rows.
fn against(report: &Report<'_>, c: &Comparison<'_>, out: &mut String) {
    let _ = writeln!(
        out,
        "\n#### Against `{}`\n\n{}\n\n{}\n",
        c.label,
        md(&counts_line(c)),
        md(&format!(
            "coverage: {}",
            crate::compare::coverage::of(c).text()
        ))
    );
    if let Some(line) = history_line(report, c) {
        let _ = writeln!(out, "{}\n", md(&line));
    }
    for (title, classes) in [
        ("Regressed and lost", &[Class::Regressed, Class::Lost][..]),
        ("Noisy", &[Class::Noisy][..]),
        ("New", &[Class::New][..]),
        ("Absent from the baseline", &[Class::Absent][..]),
        (
            "Not comparable",
            &[Class::NotComparable, Class::Skipped][..],
        ),
    ] {
        let count: usize = classes.iter().map(|k| c.count(*k)).sum();
        if count == 0 {
            continue;
        }
        let _ = write!(out, "**{title}** ({count})\n\n{}", table_head(c));
        for row in c.rows_of(classes).take(ANNOTATIONS * 10) {
            out.push_str(&table_row(report, &row));
        }
        out.push('\n');
    }
}

/// The gate's rows beyond the warn threshold, worst first, as a bar chart
/// of how much worse each is with its fail threshold as the line; a
/// sentence when there is nothing to show.
pub fn chart(report: &Report<'_>) -> String {
    let Some(gate) = report.gate.as_ref().filter(|g| g.unavailable.is_none()) else {
        return String::new();
    };
    let mut rows: Vec<RowResult<'_>> = gate
        .rows_of(&[Class::Regressed, Class::Warned, Class::Noisy])
        .filter(|r| r.change.is_some_and(|c| c < -r.policy.warn))
        .collect();
    if rows.is_empty() {
        return "No row is worse than its warn threshold: no chart.\n".to_owned();
    }
    rows.sort_by(|a, b| a.change.unwrap_or(0.0).total_cmp(&b.change.unwrap_or(0.0)));
    let total = rows.len();
    let bars: Vec<Bar> = rows
        .iter()
        .take(CHART_BARS)
        .map(|r| Bar {
            label: r.key.fields().take(2).collect::<Vec<_>>().join(" "),
            value: -r.change.unwrap_or(0.0) * 100.0,
            line: r.applied.map_or(0.0, |a| a.fail * 100.0),
        })
        .collect();
    let mut out = xychart(
        &format!("Worse than the warn threshold against {}", gate.label),
        "worse by %, line: fail threshold",
        &bars,
    );
    if total > CHART_BARS {
        let _ = writeln!(out, "\n*The {CHART_BARS} worst of {total} rows.*");
    }
    out
}

/// Every row of every baseline, collapsed, until the summary would pass
/// its budget.
fn full_tables(report: &Report<'_>, out: &mut String) {
    for c in report.comparisons().filter(|c| c.unavailable.is_none()) {
        let total: usize = Class::ALL.iter().map(|k| c.count(*k)).sum();
        let _ = write!(
            out,
            "<details><summary>All {total} rows against {}</summary>\n\n{}",
            md(&c.label),
            table_head(c)
        );
        for (shown, row) in c.rows().enumerate() {
            if out.len() > SUMMARY_BYTES {
                let more = total.saturating_sub(shown);
                let _ = writeln!(
                    out,
                    "\n*{more} more rows: too many for a job summary; `--format json` has them all.*"
                );
                break;
            }
            out.push_str(&table_row(report, &row));
        }
        out.push_str("\n</details>\n\n");
    }
}
