//! The trend in each output form: step outputs (`regressions`,
//! `new-regressions`, `improvements`, `drifts`, `transients`, `runs`,
//! `json`), a job summary with a table per section and a line chart per
//! regressed row, a warning per new regression for a runner; one JSON
//! object (schema 1); text for a person. Keys and run names come from
//! strangers' files: shown as data and cut (the log writer keeps every line
//! from being a command).

use std::borrow::Cow;
use std::fmt::Write as _;

use super::changes::Change;
use super::report::{Found, Report, RowTrend, Section};
use crate::contract::trend::{
    Counts, KeyCells, TrendChange, TrendMachineChange, TrendMovedRow, TrendReport, TrendRow,
};
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::LogText;
use crate::runner::markdown::{escape as md, line_chart};
use crate::runner::text::{counted, quantity, visible};
use crate::runner::write::fewer_rows_to_fit;
use crate::runner::{Forms, Rendered};
use crate::table::SHOWN_CELL;

/// Changes each section of the text and the summary lists.
const LISTED: usize = 100;
/// Rows the `json` step output lists (`--format json` lists all).
const OUTPUT_ROWS: usize = 200;
/// Regressed rows charted in the summary.
const CHARTS: usize = 10;
/// Warnings annotated one by one; the rest are counted.
const ANNOTATED: usize = 10;

fn counts(report: &Report<'_>) -> Counts {
    Counts {
        regressions: report.section(Section::Regressions).len(),
        new_regressions: report.new_regressions().len(),
        improvements: report.section(Section::Improvements).len(),
        drifts: report.section(Section::Drifts).len(),
        transients: report.section(Section::Transients).len(),
        outliers: report.outliers(),
    }
}

/// A text shown in an output: whole for `--format json`, else cut.
fn shown(text: &str, cut: bool) -> Cow<'_, str> {
    if cut {
        visible(text, SHOWN_CELL)
    } else {
        Cow::Borrowed(text)
    }
}

fn run_name<'a>(report: &Report<'a>, index: usize, cut: bool) -> Cow<'a, str> {
    report
        .run(index)
        .map_or(Cow::Borrowed("?"), |r| shown(&r.name, cut))
}

fn json_change<'a>(report: &Report<'a>, c: &Change, cut: bool) -> TrendChange<'a> {
    TrendChange {
        run: run_name(report, c.run, cut),
        sha: report
            .run(c.run)
            .and_then(|r| r.sha.as_ref())
            .map(ToString::to_string),
        index: c.run,
        before: c.before,
        after: c.after,
        before_spread_pct: c.before_spread * 100.0,
        after_spread_pct: c.after_spread * 100.0,
        change_pct: c.change * 100.0,
        kind: c.kind.name().into(),
        new: report.is_new(c),
    }
}

fn json_row<'a>(report: &'a Report<'a>, row: &'a RowTrend<'a>, cut: bool) -> TrendRow<'a> {
    let key = report
        .config
        .keys
        .iter()
        .zip(row.series.key().fields())
        .map(|(k, v)| (k.clone(), shown(&v, cut).into_owned()))
        .collect();
    TrendRow {
        key: KeyCells(key),
        metric: report
            .config
            .metrics
            .get(row.series.metric)
            .map_or("", |m| m.column.as_str())
            .into(),
        unit: report.unit(row.series).into(),
        runs: row.judged.runs,
        outliers: row
            .judged
            .outliers
            .iter()
            .map(|i| run_name(report, *i, cut))
            .collect(),
        changes: row
            .judged
            .changes
            .iter()
            .map(|c| json_change(report, c, cut))
            .collect(),
    }
}

/// The trend as one JSON object; `rows` caps the rows listed (and cuts
/// every text), `None` lists all, whole.
pub fn json(report: &Report<'_>, rows: Option<usize>) -> String {
    let cut = rows.is_some();
    let listed: Vec<TrendRow> = report
        .rows
        .iter()
        .filter(|r| !r.judged.changes.is_empty() || !r.judged.outliers.is_empty())
        .take(rows.unwrap_or(usize::MAX))
        .map(|r| json_row(report, r, cut))
        .collect();
    let value = TrendReport {
        schema: crate::contract::TREND_SCHEMA,
        runs: report.history.runs.len(),
        rows_judged: report.judged,
        min_change_pct: report.min_change * 100.0,
        recent: report.recent,
        counts: counts(report),
        rows_listed: listed.len(),
        rows: listed,
        warnings: report
            .history
            .warnings
            .iter()
            .map(|w| shown(w, cut))
            .collect(),
        machine_changes: report
            .machines
            .iter()
            .map(|m| TrendMachineChange {
                run: run_name(report, m.run, cut).into_owned(),
                from: m.from.clone(),
                to: m.to.clone(),
                differences: m.differences.clone(),
                rows: m
                    .rows
                    .iter()
                    .take(rows.unwrap_or(usize::MAX))
                    .map(|r| TrendMovedRow {
                        key: shown(&r.key, cut).into_owned(),
                        change_pct: r.change * 100.0,
                    })
                    .collect(),
            })
            .collect(),
    };
    serde_json::to_string(&value).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}

/// The `json` step output: fewer rows until it fits 1 MiB (a
/// row may list up to 64 changes).
fn output_json(report: &Report<'_>) -> String {
    fewer_rows_to_fit(OUTPUT_ROWS, |rows| json(report, Some(rows)))
}

/// The step outputs, in order; `trend/action.yml` declares exactly these.
pub fn step_outputs(report: &Report<'_>) -> Vec<(&'static str, String)> {
    let c = counts(report);
    vec![
        ("regressions", c.regressions.to_string()),
        ("new-regressions", c.new_regressions.to_string()),
        ("improvements", c.improvements.to_string()),
        ("drifts", c.drifts.to_string()),
        ("transients", c.transients.to_string()),
        ("runs", report.history.runs.len().to_string()),
        ("json", output_json(report)),
    ]
}

/// `op=gemm,...: -20.0% at run 0120-<sha> (commit fa4f8ae2d93c): 100.000 ->
/// 80.000 TFLOPS`, with `new` when it is.
fn line(report: &Report<'_>, found: &Found<'_, '_>) -> String {
    let c = &found.change;
    let key = found.row.series.key().describe(&report.config.keys);
    let commit = report
        .run(c.run)
        .and_then(|r| r.sha.as_ref())
        .map(|s| format!(" (commit {})", s.short()))
        .unwrap_or_default();
    format!(
        "{key}: {:+.1}% {} run {}{commit}: {} -> {}{}",
        c.change * 100.0,
        if c.kind == super::changes::Kind::Drift {
            "from"
        } else {
            "at"
        },
        run_name(report, c.run, true),
        quantity(c.before, ""),
        quantity(c.after, report.unit(found.row.series)),
        if report.is_new(c) { " (new)" } else { "" }
    )
}

fn headline(report: &Report<'_>) -> String {
    let c = counts(report);
    format!(
        "trend: {}, {} judged (changes of {:.1}% or more); {} ({} new in the last {}), {}, {}, {} transient; {}",
        counted(report.history.runs.len(), "run"),
        counted(report.judged, "row"),
        report.min_change * 100.0,
        counted(c.regressions, "persistent regression"),
        c.new_regressions,
        counted(report.recent, "run"),
        counted(c.improvements, "improvement"),
        counted(c.drifts, "drift"),
        c.transients,
        counted(c.outliers, "single-run outlier"),
    )
}

/// The single-run outliers, row by row: set apart from the changes, but
/// named, so that a reader can look at the run that was odd.
fn outlier_lines(report: &Report<'_>) -> Vec<String> {
    let total = report.outliers();
    if total == 0 {
        return Vec::new();
    }
    let mut out = vec!["single-run outliers (not changes):".to_owned()];
    out.extend(
        report
            .rows
            .iter()
            .filter(|r| !r.judged.outliers.is_empty())
            .flat_map(|r| {
                let key = r.series.key().describe(&report.config.keys);
                r.judged.outliers.iter().map(move |i| {
                    format!(
                        "  {}: run {}",
                        visible(&key, 2 * SHOWN_CELL),
                        run_name(report, *i, true)
                    )
                })
            })
            .take(LISTED),
    );
    if let Some(more) = total.checked_sub(LISTED).filter(|n| *n > 0) {
        out.push(format!("  ... and {more} more (--format json lists all)"));
    }
    out
}

/// Each machine change, then the rows that moved with it (indented).
fn machine_lines(report: &Report<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for m in &report.machines {
        let run = run_name(report, m.run, true);
        out.push(visible(&super::machine::sentence(m, &run), 4 * SHOWN_CELL).into_owned());
        for r in m.rows.iter().take(LISTED) {
            out.push(format!(
                "  {}: {:+.1}%",
                visible(&r.key, 2 * SHOWN_CELL),
                r.change * 100.0
            ));
        }
        if let Some(more) = m.rows.len().checked_sub(LISTED).filter(|n| *n > 0) {
            out.push(format!("  ... and {more} more (--format json lists all)"));
        }
    }
    out
}

fn summary(report: &Report<'_>) -> String {
    let c = counts(report);
    let mut out = format!(
        "### Benchmark trend on main: {} ({} new)\n\n{}\n\n",
        counted(c.regressions, "persistent regression"),
        c.new_regressions,
        md(&headline(report))
    );
    for line in machine_lines(report) {
        let _ = writeln!(out, "- {}", md(&line));
    }
    if !report.machines.is_empty() {
        out.push('\n');
    }
    for section in Section::ALL {
        let found = report.section(section);
        if found.is_empty() {
            continue;
        }
        let _ = writeln!(out, "#### {}\n", section.title());
        for f in found.iter().take(LISTED) {
            let _ = writeln!(out, "- {}", md(&line(report, f)));
        }
        if let Some(more) = found.len().checked_sub(LISTED).filter(|n| *n > 0) {
            let _ = writeln!(out, "- ... and {more} more");
        }
        out.push('\n');
    }
    for f in report.section(Section::Regressions).iter().take(CHARTS) {
        let values: Vec<f64> = f.row.series.values.iter().map(|(_, v)| *v).collect();
        let mark = f
            .row
            .series
            .values
            .iter()
            .position(|(r, _)| *r == f.change.run);
        let title = f.row.series.key().describe(&report.config.keys);
        out.push_str(&line_chart(
            &title,
            report.unit(f.row.series),
            &values,
            mark,
        ));
        out.push('\n');
    }
    for warning in &report.history.warnings {
        let _ = writeln!(
            out,
            "> [!WARNING]\n> {}\n",
            md(&visible(warning, 4 * SHOWN_CELL))
        );
    }
    out
}

impl Forms for Report<'_> {
    fn json(&self) -> String {
        json(self, None)
    }

    /// The trend for a person, line by line.
    fn text(&self) -> LogText {
        let mut log = LogText::new();
        log.push_line(&headline(self));
        for line in machine_lines(self) {
            log.push_line(&line);
        }
        for section in Section::ALL {
            let found = self.section(section);
            if found.is_empty() {
                continue;
            }
            log.push_line(&format!("{}:", section.title().to_lowercase()));
            for f in found.iter().take(LISTED) {
                log.push_line(&format!("  {}", line(self, f)));
            }
            if let Some(more) = found.len().checked_sub(LISTED).filter(|n| *n > 0) {
                log.push_line(&format!("  ... and {more} more (--format json lists all)"));
            }
        }
        for line in outlier_lines(self) {
            log.push_line(&line);
        }
        for warning in &self.history.warnings {
            log.push_line(&format!("warning: {}", visible(warning, 4 * SHOWN_CELL)));
        }
        log
    }

    /// For a runner: the outputs, the summary, a warning per new regression.
    fn actions(&self) -> Result<Rendered, EncodeError> {
        let outputs = file_command::encode_all(step_outputs(self))?;
        let mut stdout = LogText::new();
        let fresh = self.new_regressions();
        for f in fresh.iter().take(ANNOTATED) {
            stdout.push_command(
                "warning",
                &[("title", "Benchmark regression on main")],
                &line(self, f),
            );
        }
        if let Some(more) = fresh.len().checked_sub(ANNOTATED).filter(|n| *n > 0) {
            stdout.push_command(
                "warning",
                &[("title", "Benchmark regression on main")],
                &format!("and {more} more new regressions (see the job summary)"),
            );
        }
        for m in self.machines.iter().take(ANNOTATED) {
            let run = run_name(self, m.run, true);
            stdout.push_command(
                "warning",
                &[("title", "Benchmark machine changed on main")],
                &visible(&super::machine::sentence(m, &run), 4 * SHOWN_CELL),
            );
        }
        for warning in self.history.warnings.iter().take(ANNOTATED) {
            stdout.push_command(
                "warning",
                &[("title", "Benchmark history")],
                &visible(warning, 4 * SHOWN_CELL),
            );
        }
        Ok(Rendered {
            outputs,
            summary: summary(self),
            stdout,
        })
    }
}
