//! The report in each output form. The job log (text and github forms)
//! carries, per baseline, the block the dashboard parses: a header line
//! `=== Benchmark: current vs LABEL ===` and one fixed-format line per
//! compared row. No other line looks like a row (none has `ratio=`); the
//! exact `repo@sha` of a baseline is on a line of its own.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::report::Report;
use super::table::Key;
use super::verdict::{Class, Comparison, RowResult, Verdict};
use crate::runner::Rendered;
use crate::runner::file_command::{self, EncodeError};
use crate::runner::markdown::escape as md;
use crate::runner::workflow_command::{command, plain};

/// Annotations per kind: GitHub shows ten per step anyway.
const ANNOTATIONS: usize = 10;
/// Rows of the full table in the job summary before it says "and N more"
/// (GitHub shows at most 1 MiB of summary).
const SUMMARY_BYTES: usize = 900 * 1024;
/// Rows per baseline in the `json` step output (`--format json` has all).
const OUTPUT_ROWS: usize = 100;

/// The classes counted in the outputs, in order.
const COUNTED: [(Class, &str); 10] = [
    (Class::Regressed, "regressed"),
    (Class::Warned, "warned"),
    (Class::Improved, "improved"),
    (Class::Unchanged, "unchanged"),
    (Class::Noisy, "noisy"),
    (Class::Lost, "lost"),
    (Class::Skipped, "skipped"),
    (Class::New, "new"),
    (Class::NotComparable, "not-comparable"),
    (Class::Ignored, "ignored"),
];

/// `op`, `shape` and `dtype` (or the configured key columns: the first two,
/// then the rest joined).
fn key_fields(key: &Key) -> (&str, &str, String) {
    let part = |i: usize| key.0.get(i).map_or("", String::as_str);
    let rest = key.0.get(2..).map_or_else(String::new, |r| r.join(","));
    (part(0), part(1), rest)
}

/// One dashboard line: exactly the motivating repository's format.
pub fn dashboard_line(label: &str, row: &RowResult, unit: &str) -> Option<String> {
    let (base, cur) = (row.baseline.as_ref()?.median, row.current.as_ref()?.median);
    let (op, shape, dtype) = key_fields(&row.key);
    let ratio = cur / base;
    let delta = cur - base;
    let pct = (ratio - 1.0) * 100.0;
    Some(format!(
        "  {op:>18} {shape:>34} {dtype:>8}  {label}={base:9.3} {unit:<6}  current={cur:9.3} {unit:<6}  ratio={ratio:6.3}x  delta={delta:+9.3} ({pct:+6.1}%)"
    ))
}

fn dashboard(report: &Report, comparison: &Comparison, out: &mut String) {
    let label = &comparison.label;
    if let Some(line) = report.provenance.as_ref().and_then(|p| p.describe(label)) {
        let _ = writeln!(out, "baseline {label} = {line}");
    }
    let _ = writeln!(out, "=== Benchmark: current vs {label} ===");
    for row in comparison.rows.iter().filter(|r| r.class.compared()) {
        if let Some(line) = dashboard_line(label, row, report.unit(row.metric)) {
            out.push_str(&line.replace(['\r', '\n'], " "));
            out.push('\n');
        }
    }
}

fn verdict_line(report: &Report) -> String {
    let gate = report.gate().map_or("?", |g| g.label.as_str());
    let (fail, warn) = (report.thresholds.fail_pct, report.thresholds.warn_pct);
    let what = match (report.verdict, report.gate()) {
        (Verdict::Inconclusive, Some(g)) if g.unavailable.is_some() => {
            format!(
                "its baseline is unavailable: {}",
                g.unavailable.as_deref().unwrap_or_default()
            )
        }
        (Verdict::Inconclusive, _) => "no row was compared".to_owned(),
        (_, Some(g)) => format!(
            "{} regressed, {} lost of {} compared",
            g.count(Class::Regressed),
            g.count(Class::Lost),
            g.compared()
        ),
        (_, None) => String::new(),
    };
    format!(
        "compare: {} against {gate}: {what} (fail: worse by more than {fail}%, warn: {warn}%)",
        report.verdict.as_str().to_uppercase()
    )
}

const REPORT_ONLY: &str =
    "REPORT-ONLY (--no-gate): the verdict is reported, and the step passes whatever it is";

fn counts_line(c: &Comparison) -> String {
    let n = |class| c.count(class);
    format!(
        "{}: {} compared ({} regressed, {} warned, {} improved, {} unchanged, {} noisy); {} lost, {} skipped, {} new, {} not comparable, {} ignored",
        c.label,
        c.compared(),
        n(Class::Regressed),
        n(Class::Warned),
        n(Class::Improved),
        n(Class::Unchanged),
        n(Class::Noisy),
        n(Class::Lost),
        n(Class::Skipped),
        n(Class::New),
        n(Class::NotComparable),
        n(Class::Ignored)
    )
}

/// The report for a person (and the log of the github form).
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", verdict_line(report));
    if report.report_only {
        let _ = writeln!(out, "{REPORT_ONLY}");
    }
    for c in &report.comparisons {
        if let Some(why) = &c.unavailable {
            let _ = writeln!(out, "baseline {} unavailable: {why}", c.label);
            continue;
        }
        dashboard(report, c, &mut out);
        let _ = writeln!(out, "{}", counts_line(c));
        for row in c
            .rows
            .iter()
            .filter(|r| !r.class.compared() && r.class != Class::Ignored)
        {
            let key = row.key.describe(&report.config.keys);
            let reason = row
                .reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            plain(
                &mut out,
                &format!("  {}: {key}{reason}", row.class.as_str()),
            );
        }
    }
    for warning in &report.warnings {
        plain(&mut out, &format!("warning: {warning}"));
    }
    out
}

fn row_message(report: &Report, c: &Comparison, row: &RowResult) -> String {
    let key = row.key.describe(&report.config.keys);
    match (row.change, &row.baseline, &row.current) {
        (Some(change), Some(b), Some(cur)) => format!(
            "{key}: {:+.1}% against {} ({:.3} -> {:.3} {}; fail at {}%)",
            change * 100.0,
            c.label,
            b.median,
            cur.median,
            report.unit(row.metric),
            row.policy.fail * 100.0
        ),
        _ => format!(
            "{key}: {} against {}{}",
            row.class.as_str(),
            c.label,
            row.reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ),
    }
}

/// Annotations: for the gate, `::error` for up to ten regressed or lost
/// rows (`::warning` under `--no-gate`), `::warning` for up to ten more and
/// one line for the rest; skipped rows and unavailable baselines warn.
fn annotations(report: &Report, out: &mut String) {
    for warning in &report.warnings {
        command(
            out,
            "warning",
            &[("title", "Benchmark baseline unavailable")],
            warning,
        );
    }
    let Some(gate) = report.gate() else { return };
    let failing: Vec<&RowResult> = gate.rows.iter().filter(|r| r.class.fails()).collect();
    let first = if report.report_only {
        "warning"
    } else {
        "error"
    };
    for (i, row) in failing.iter().enumerate().take(2 * ANNOTATIONS) {
        let kind = if i < ANNOTATIONS { first } else { "warning" };
        command(
            out,
            kind,
            &[("title", "Benchmark regression")],
            &row_message(report, gate, row),
        );
    }
    if let Some(more) = failing
        .len()
        .checked_sub(2 * ANNOTATIONS)
        .filter(|m| *m > 0)
    {
        let message = format!(
            "{more} more regressed or lost rows against {}: see the job summary",
            gate.label
        );
        command(
            out,
            "warning",
            &[("title", "Benchmark regression")],
            &message,
        );
    }
    for row in gate
        .rows
        .iter()
        .filter(|r| r.class == Class::Skipped)
        .take(ANNOTATIONS)
    {
        command(
            out,
            "warning",
            &[("title", "Benchmark skipped")],
            &row_message(report, gate, row),
        );
    }
    if report.verdict == Verdict::Inconclusive {
        command(
            out,
            "warning",
            &[("title", "Benchmark comparison inconclusive")],
            &verdict_line(report),
        );
    }
}

/// The step outputs, in order; `action.yml` declares exactly these.
pub fn step_outputs(report: &Report) -> Vec<(&'static str, String)> {
    let gate = report.gate();
    let count = |class| gate.map_or(0, |g| g.count(class)).to_string();
    let worst = gate.and_then(Comparison::worst);
    vec![
        ("verdict", report.verdict.as_str().to_owned()),
        ("report-only", report.report_only.to_string()),
        ("compared", gate.map_or(0, Comparison::compared).to_string()),
        ("regressed", count(Class::Regressed)),
        ("warned", count(Class::Warned)),
        ("improved", count(Class::Improved)),
        ("lost", count(Class::Lost)),
        ("new", count(Class::New)),
        ("noisy", count(Class::Noisy)),
        (
            "worst-key",
            worst
                .map(|r| r.key.describe(&report.config.keys))
                .unwrap_or_default(),
        ),
        (
            "worst-change-pct",
            worst
                .and_then(|r| r.change)
                .map(|c| format!("{:.1}", c * 100.0))
                .unwrap_or_default(),
        ),
        ("json", json(report, Some(OUTPUT_ROWS)).to_string()),
    ]
}

/// For a runner: outputs, the job summary, and the log (the dashboard block
/// and the annotations).
pub fn actions(report: &Report) -> Result<Rendered, EncodeError> {
    let mut outputs = String::new();
    for (name, value) in step_outputs(report) {
        file_command::encode(&mut outputs, name, &value)?;
    }
    let mut stdout = String::new();
    annotations(report, &mut stdout);
    stdout.push_str(&text(report));
    Ok(Rendered {
        outputs,
        summary: summary(report),
        stdout,
    })
}

fn table_row(report: &Report, row: &RowResult) -> String {
    let unit = md(report.unit(row.metric));
    let num = |side: &Option<super::verdict::Side>| {
        side.as_ref()
            .map_or_else(|| "-".to_owned(), |s| format!("{:.3} {unit}", s.median))
    };
    let change = row
        .change
        .map_or_else(|| "-".to_owned(), |c| format!("{:+.1}%", c * 100.0));
    format!(
        "| {} | {} | {} | {change} | {} | {} |\n",
        md(&row.key.describe(&report.config.keys)),
        num(&row.baseline),
        num(&row.current),
        row.class.as_str(),
        md(row.reason.as_deref().unwrap_or_default())
    )
}

const TABLE_HEAD: &str =
    "| key | baseline | current | change | class | why |\n|---|---|---|---|---|---|\n";

/// The job summary: the verdict first, the provenance, what failed, what is
/// new, then every row in a collapsed table, under GitHub's 1 MiB.
fn summary(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Benchmark comparison: {}\n",
        report.verdict.as_str().to_uppercase()
    );
    let _ = writeln!(out, "{}\n", md(&verdict_line(report)));
    if report.report_only {
        let _ = writeln!(out, "> [!NOTE]\n> {REPORT_ONLY}\n");
    }
    for c in &report.comparisons {
        if let Some(line) = report
            .provenance
            .as_ref()
            .and_then(|p| p.describe(&c.label))
        {
            let _ = writeln!(out, "- baseline `{}` = {}", c.label, md(&line));
        }
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "\n> [!WARNING]\n> {}", md(warning));
    }
    for c in report
        .comparisons
        .iter()
        .filter(|c| c.unavailable.is_none())
    {
        let _ = writeln!(
            out,
            "\n#### Against `{}`\n\n{}\n",
            c.label,
            md(&counts_line(c))
        );
        for (title, classes) in [
            ("Regressed and lost", &[Class::Regressed, Class::Lost][..]),
            ("New", &[Class::New][..]),
            (
                "Not comparable",
                &[Class::NotComparable, Class::Skipped][..],
            ),
        ] {
            let rows: Vec<&RowResult> = c
                .rows
                .iter()
                .filter(|r| classes.contains(&r.class))
                .collect();
            if rows.is_empty() {
                continue;
            }
            let _ = write!(out, "**{title}** ({})\n\n{TABLE_HEAD}", rows.len());
            for row in rows.iter().take(ANNOTATIONS * 10) {
                out.push_str(&table_row(report, row));
            }
            out.push('\n');
        }
    }
    full_tables(report, &mut out);
    out
}

/// Every row of every baseline, collapsed, until the summary would pass
/// its budget.
fn full_tables(report: &Report, out: &mut String) {
    for c in report
        .comparisons
        .iter()
        .filter(|c| c.unavailable.is_none())
    {
        let _ = write!(
            out,
            "<details><summary>All {} rows against {}</summary>\n\n{TABLE_HEAD}",
            c.rows.len(),
            md(&c.label)
        );
        for (shown, row) in c.rows.iter().enumerate() {
            if out.len() > SUMMARY_BYTES {
                let more = c.rows.len().saturating_sub(shown);
                let _ = writeln!(
                    out,
                    "\n*{more} more rows: too many for a job summary; `--format json` has them all.*"
                );
                break;
            }
            out.push_str(&table_row(report, row));
        }
        out.push_str("\n</details>\n\n");
    }
}

fn row_json(report: &Report, row: &RowResult) -> Value {
    let key: serde_json::Map<String, Value> = report
        .config
        .keys
        .iter()
        .zip(&row.key.0)
        .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
        .collect();
    json!({
        "key": key,
        "class": row.class.as_str(),
        "change_pct": row.change.map(|c| c * 100.0),
        "unit": row.metric.map(|m| report.unit(Some(m))),
        "baseline": row.baseline,
        "current": row.current,
        "reason": row.reason,
        "thresholds": {
            "fail_pct": row.policy.fail * 100.0,
            "warn_pct": row.policy.warn * 100.0,
            "floor": row.policy.floor,
            "rule": row.policy.rule,
        },
    })
}

fn comparison_json(report: &Report, c: &Comparison, gate: bool, rows: Option<usize>) -> Value {
    let counts: serde_json::Map<String, Value> = COUNTED
        .iter()
        .map(|(class, name)| ((*name).to_owned(), Value::from(c.count(*class))))
        .chain([("compared".to_owned(), Value::from(c.compared()))])
        .collect();
    // The step output keeps what is not unchanged first, and few of them.
    let listed: Vec<Value> = match rows {
        None => c.rows.iter().map(|r| row_json(report, r)).collect(),
        Some(max) => c
            .rows
            .iter()
            .filter(|r| r.class != Class::Unchanged)
            .take(max)
            .map(|r| row_json(report, r))
            .collect(),
    };
    json!({
        "label": c.label,
        "gate": gate,
        "available": c.unavailable.is_none(),
        "unavailable_reason": c.unavailable,
        "verdict": c.verdict().as_str(),
        "counts": counts,
        "worst": c.worst().map(|r| json!({"key": r.key.describe(&report.config.keys), "change_pct": r.change.map(|x| x * 100.0)})),
        "rows_listed": listed.len(),
        "rows": listed,
    })
}

/// The whole report as one object; `rows` caps the rows listed per
/// baseline (the step output), `None` lists every row (`--format json`).
pub fn json(report: &Report, rows: Option<usize>) -> Value {
    let inputs: Vec<Value> = report
        .inputs
        .iter()
        .map(|f| json!({"role": f.role, "path": f.path.display().to_string(), "sha256": f.sha256, "rows": f.rows, "valid_rows": f.valid_rows}))
        .collect();
    let comparisons: Vec<Value> = report
        .comparisons
        .iter()
        .enumerate()
        .map(|(i, c)| comparison_json(report, c, i == 0, rows))
        .collect();
    let provenance = report.provenance.as_ref().map(|p| {
        json!({"label": p.label, "base_repo": p.base_repo, "base_sha": p.base_sha, "base_source": p.base_source, "tag": p.tag, "tag_sha": p.tag_sha})
    });
    json!({
        "schema": 1,
        "verdict": report.verdict.as_str(),
        "report_only": report.report_only,
        "gate": report.gate().map(|g| g.label.clone()),
        "thresholds": {"fail_pct": report.thresholds.fail_pct, "warn_pct": report.thresholds.warn_pct},
        "inputs": inputs,
        "provenance": provenance,
        "baselines": comparisons,
        "warnings": report.warnings,
    })
}
