//! The report in each output form. The job log (text and github forms)
//! carries, per baseline, the block the dashboard parses: a header line
//! `=== Benchmark: current vs LABEL ===` and one fixed-format line per
//! compared row. No other line looks like a row (none has `ratio=`); the
//! exact `repo@sha` of a baseline is on a line of its own.

use std::fmt::Write as _;
use std::io;

use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::report::{Provenance, Report};
use super::verdict::{Class, Comparison, RowResult, Side, Verdict};
use crate::runner::Rendered;
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::{LogSink, LogText};
use crate::runner::markdown::escape as md;

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

/// One dashboard line (with its line break): exactly the motivating
/// repository's format,
/// `  {op:>18} {shape:>34} {dtype:>8}  LABEL={base:9.3} {unit:<6}  current={cur:9.3} {unit:<6}  ratio={ratio:6.3}x  delta={delta:+9.3} ({pct:+6.1}%)`.
/// Keys hold no control character (see `Key`), so a line can never split.
/// Written piece by piece: a block can have a hundred thousand lines.
pub fn dashboard_line(out: &mut String, label: &str, row: &RowResult, unit: &str) {
    let (Some(base), Some(cur)) = (&row.baseline, &row.current) else {
        return;
    };
    let (base, cur) = (base.median, cur.median);
    // `op`, `shape` and `dtype` (or the configured key columns: the first
    // two, then the rest).
    let (op, shape, dtype) = row.key.dashboard_fields();
    let ratio = cur / base;
    out.push_str("  ");
    pad_left(out, op, 18);
    out.push(' ');
    pad_left(out, shape, 34);
    out.push(' ');
    pad_left(out, &dtype, 8);
    out.push_str("  ");
    out.push_str(label);
    out.push('=');
    fixed(out, base, 9, 3, false);
    out.push(' ');
    pad_right(out, unit, 6);
    out.push_str("  current=");
    fixed(out, cur, 9, 3, false);
    out.push(' ');
    pad_right(out, unit, 6);
    out.push_str("  ratio=");
    fixed(out, ratio, 6, 3, false);
    out.push_str("x  delta=");
    fixed(out, cur - base, 9, 3, true);
    out.push_str(" (");
    fixed(out, (ratio - 1.0) * 100.0, 6, 1, true);
    out.push_str("%)\n");
}

/// `{text:>width}`.
fn pad_left(out: &mut String, text: &str, width: usize) {
    out.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(text.chars().count()),
    ));
    out.push_str(text);
}

/// `{text:<width}`.
fn pad_right(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    out.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(text.chars().count()),
    ));
}

/// `value` as `{value:width.precision}` (`{value:+width.precision}` with
/// `plus`) writes it: exactly, and about five times quicker. The value is
/// scaled and rounded in binary; when that cannot be told from a tie of the
/// exact decimal value (or the value is out of range), `format!` decides.
fn fixed(out: &mut String, value: f64, width: usize, precision: usize, plus: bool) {
    let scale = match precision {
        1 => 10.0,
        3 => 1000.0,
        _ => 0.0,
    };
    let scaled = value * scale;
    let fraction = (scaled - scaled.trunc()).abs();
    let clear =
        scale > 0.0 && value.is_finite() && scaled.abs() < 1e15 && (fraction - 0.5).abs() > 1e-3;
    if !clear {
        let _ = if plus {
            write!(out, "{value:+width$.precision$}")
        } else {
            write!(out, "{value:width$.precision$}")
        };
        return;
    }
    // Exact below 2^53: the scaled value is an integer after rounding.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "|scaled| < 1e15 < 2^53"
    )]
    let mut units = scaled.round().abs() as u64;
    // Digits from the right into a stack buffer: `int.frac`, at least one
    // digit before the point.
    let mut buffer = [b'0'; 32];
    let mut at = buffer.len();
    let mut written = 0;
    while units > 0 || written <= precision {
        if written == precision && precision > 0 {
            at = at.saturating_sub(1);
            if let Some(b) = buffer.get_mut(at) {
                *b = b'.';
            }
        }
        at = at.saturating_sub(1);
        if let Some(b) = buffer.get_mut(at) {
            *b = b'0'.saturating_add(u8::try_from(units % 10).unwrap_or(0));
        }
        units /= 10;
        written = written.saturating_add(1);
    }
    let sign = if value.is_sign_negative() {
        "-"
    } else if plus {
        "+"
    } else {
        ""
    };
    let digits = std::str::from_utf8(buffer.get(at..).unwrap_or_default()).unwrap_or_default();
    out.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(sign.len().saturating_add(digits.len())),
    ));
    out.push_str(sign);
    out.push_str(digits);
}

/// The dashboard block of one baseline, written line by line.
fn dashboard(report: &Report, comparison: &Comparison, out: &mut dyn LogSink) -> io::Result<()> {
    let label = &comparison.label;
    if let Some(source) = report.provenance.as_ref().and_then(|p| p.describe(label)) {
        out.line(&format!("baseline {label} = {source}"))?;
    }
    out.line(&format!("=== Benchmark: current vs {label} ==="))?;
    let mut line = String::with_capacity(256);
    for row in comparison.rows.iter().filter(|r| r.class.compared()) {
        line.clear();
        dashboard_line(&mut line, label, row, report.unit(row.metric));
        out.line(line.trim_end_matches('\n'))?;
    }
    Ok(())
}

fn verdict_line(report: &Report) -> String {
    let gate = report.gate().map_or("?", |g| g.label.as_str());
    let (fail, warn) = (report.thresholds.fail_pct, report.thresholds.warn_pct);
    let what = match (report.verdict(), report.gate()) {
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
        report.verdict().as_str().to_uppercase()
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

/// The report for a person (and the log of the github form), written as
/// it is formed.
pub fn write_text(report: &Report, out: &mut dyn LogSink) -> io::Result<()> {
    out.line(&verdict_line(report))?;
    if report.report_only {
        out.line(REPORT_ONLY)?;
    }
    for c in &report.comparisons {
        if let Some(why) = &c.unavailable {
            out.line(&format!("baseline {} unavailable: {why}", c.label))?;
            continue;
        }
        dashboard(report, c, out)?;
        out.line(&counts_line(c))?;
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
            out.line(&format!("  {}: {key}{reason}", row.class.as_str()))?;
        }
    }
    for warning in &report.warnings {
        out.line(&format!("warning: {warning}"))?;
    }
    Ok(())
}

/// The report as text, in memory (for tests and small reports).
pub fn text(report: &Report) -> String {
    let mut out = LogText::new();
    let _ = write_text(report, &mut out);
    out.as_str().to_owned()
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
fn annotations(report: &Report, out: &mut LogText) {
    for warning in &report.warnings {
        out.push_command(
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
        out.push_command(
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
        out.push_command("warning", &[("title", "Benchmark regression")], &message);
    }
    for row in gate
        .rows
        .iter()
        .filter(|r| r.class == Class::Skipped)
        .take(ANNOTATIONS)
    {
        out.push_command(
            "warning",
            &[("title", "Benchmark skipped")],
            &row_message(report, gate, row),
        );
    }
    if report.verdict() == Verdict::Inconclusive {
        out.push_command(
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
        ("verdict", report.verdict().as_str().to_owned()),
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
        ("json", json(report, Some(OUTPUT_ROWS))),
    ]
}

/// For a runner: the outputs, the job summary, and the annotations; the
/// rest of the log is [`write_text`], written after them.
pub fn actions(report: &Report) -> Result<Rendered, EncodeError> {
    let mut outputs = String::new();
    for (name, value) in step_outputs(report) {
        file_command::encode(&mut outputs, name, &value)?;
    }
    let mut stdout = LogText::new();
    annotations(report, &mut stdout);
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
        report.verdict().as_str().to_uppercase()
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

/// A row's key as a JSON object: `{"op": ..., "shape": ..., "dtype": ...}`.
struct JsonKey<'a> {
    columns: &'a [String],
    row: &'a RowResult,
}

impl Serialize for JsonKey<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.columns.len()))?;
        for (column, value) in self.columns.iter().zip(self.row.key.fields()) {
            map.serialize_entry(column, value)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct JsonPolicy {
    fail_pct: f64,
    warn_pct: f64,
    floor: f64,
    rule: Option<usize>,
}

#[derive(Serialize)]
struct JsonRow<'a> {
    key: JsonKey<'a>,
    class: &'static str,
    change_pct: Option<f64>,
    unit: Option<&'a str>,
    baseline: Option<&'a Side>,
    current: Option<&'a Side>,
    reason: Option<&'a str>,
    thresholds: JsonPolicy,
}

impl<'a> JsonRow<'a> {
    fn new(report: &'a Report, row: &'a RowResult) -> JsonRow<'a> {
        JsonRow {
            key: JsonKey {
                columns: &report.config.keys,
                row,
            },
            class: row.class.as_str(),
            change_pct: row.change.map(|c| c * 100.0),
            unit: row.metric.map(|m| report.unit(Some(m))),
            baseline: row.baseline.as_ref(),
            current: row.current.as_ref(),
            reason: row.reason.as_deref(),
            thresholds: JsonPolicy {
                fail_pct: row.policy.fail * 100.0,
                warn_pct: row.policy.warn * 100.0,
                floor: row.policy.floor,
                rule: row.policy.rule,
            },
        }
    }
}

/// The rows of a comparison, written one by one as the JSON is written (a
/// hundred thousand rows are never held as JSON values).
struct JsonRows<'a> {
    report: &'a Report,
    rows: Vec<&'a RowResult>,
}

impl Serialize for JsonRows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.rows.iter().map(|r| JsonRow::new(self.report, r)))
    }
}

#[derive(Serialize)]
struct JsonWorst {
    key: String,
    change_pct: Option<f64>,
}

#[derive(Serialize)]
struct JsonComparison<'a> {
    label: &'a str,
    gate: bool,
    available: bool,
    unavailable_reason: Option<&'a str>,
    verdict: &'static str,
    counts: BTreeMap<&'static str, usize>,
    worst: Option<JsonWorst>,
    rows_listed: usize,
    rows: JsonRows<'a>,
}

impl<'a> JsonComparison<'a> {
    fn new(
        report: &'a Report,
        c: &'a Comparison,
        gate: bool,
        limit: Option<usize>,
    ) -> JsonComparison<'a> {
        let mut counts: BTreeMap<&'static str, usize> = COUNTED
            .iter()
            .map(|(class, name)| (*name, c.count(*class)))
            .collect();
        counts.insert("compared", c.compared());
        // The step output keeps what is not unchanged, and few of them.
        let rows: Vec<&RowResult> = match limit {
            None => c.rows.iter().collect(),
            Some(max) => c
                .rows
                .iter()
                .filter(|r| r.class != Class::Unchanged)
                .take(max)
                .collect(),
        };
        JsonComparison {
            label: &c.label,
            gate,
            available: c.unavailable.is_none(),
            unavailable_reason: c.unavailable.as_deref(),
            verdict: c.verdict().as_str(),
            counts,
            worst: c.worst().map(|r| JsonWorst {
                key: r.key.describe(&report.config.keys),
                change_pct: r.change.map(|x| x * 100.0),
            }),
            rows_listed: rows.len(),
            rows: JsonRows { report, rows },
        }
    }
}

#[derive(Serialize)]
struct JsonInput<'a> {
    role: &'a str,
    path: String,
    sha256: Option<&'a str>,
    rows: usize,
    valid_rows: usize,
}

#[derive(Serialize)]
struct JsonThresholds {
    fail_pct: f64,
    warn_pct: f64,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    schema: u32,
    verdict: &'static str,
    report_only: bool,
    gate: Option<&'a str>,
    thresholds: JsonThresholds,
    inputs: Vec<JsonInput<'a>>,
    provenance: Option<&'a Provenance>,
    baselines: Vec<JsonComparison<'a>>,
    warnings: &'a [String],
}

/// The whole report as one JSON object; `rows` caps the rows listed per
/// baseline (the step output), `None` lists every row (`--format json`).
pub fn json(report: &Report, rows: Option<usize>) -> String {
    let value = JsonReport {
        schema: 1,
        verdict: report.verdict().as_str(),
        report_only: report.report_only,
        gate: report.gate().map(|g| g.label.as_str()),
        thresholds: JsonThresholds {
            fail_pct: report.thresholds.fail_pct,
            warn_pct: report.thresholds.warn_pct,
        },
        inputs: report
            .inputs
            .iter()
            .map(|f| JsonInput {
                role: &f.role,
                path: f.path.display().to_string(),
                sha256: f.sha256.as_deref(),
                rows: f.rows,
                valid_rows: f.valid_rows,
            })
            .collect(),
        provenance: report.provenance.as_ref(),
        baselines: report
            .comparisons
            .iter()
            .enumerate()
            .map(|(i, c)| JsonComparison::new(report, c, i == 0, rows))
            .collect(),
        warnings: &report.warnings,
    };
    // Plain strings, numbers and options: serializing cannot fail.
    serde_json::to_string(&value).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::fixed;

    /// The quick formatting is byte for byte what `format!` writes.
    #[test]
    fn fixed_matches_format_exactly() {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [
            0.0,
            -0.0,
            0.0005,
            -0.0005,
            0.00049,
            1.0625,
            -1.0625,
            2.5e-4,
            999.9995,
            1e20,
            f64::NAN,
            f64::INFINITY,
            -12.05,
            0.05,
            -0.05,
        ];
        let mut values: Vec<f64> = specials.to_vec();
        for _ in 0..200_000 {
            let bits = next();
            let magnitude = 10f64.powi(((bits >> 8) % 12) as i32 - 4);
            let v = ((bits >> 20) as f64 / (1u64 << 44) as f64 - 0.5) * magnitude;
            values.push(v);
            values.push((v * 1000.0).round() / 1000.0 + 0.0005);
        }
        for v in values {
            for (width, precision, plus) in
                [(9, 3, false), (9, 3, true), (6, 3, false), (6, 1, true)]
            {
                let mut quick = String::new();
                fixed(&mut quick, v, width, precision, plus);
                let exact = if plus {
                    format!("{v:+width$.precision$}")
                } else {
                    format!("{v:width$.precision$}")
                };
                assert_eq!(quick, exact, "{v:e} {width}.{precision} {plus}");
            }
        }
    }
}
