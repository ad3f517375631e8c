//! The gate in each output form: one table (job, verdict, worst rows,
//! coverage, rounds when paired) as text for the log and as Markdown for
//! the job summary; step outputs (`verdict`, `jobs`, `failed-jobs`); an
//! annotation per job that failed or was inconclusive; one JSON object.
//! Job names, keys and reasons come from strangers' artifacts: shown as
//! data and cut (the log writer keeps every line from being a command).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Serialize;

use super::jobs::{Job, gate};
use super::judge::{Judged, Verdict, overall};
use super::machine::{self, Measured};
use crate::contract::class::Class;
use crate::contract::comparison::{Key, Row};
use crate::contract::coverage::Coverage;
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::LogText;
use crate::runner::markdown::escape as md;
use crate::runner::text::{counted, visible};
use crate::runner::{Forms, Rendered};

/// A job's name as shown.
const NAME: usize = 60;
/// A row's key as shown.
const KEY: usize = 80;
/// A reason as shown.
const WHY: usize = 200;
/// Jobs the headline names for a baseline from another machine; the
/// table marks every one.
const NAMED: usize = 5;

/// One job, judged, with what its line shows.
pub struct Line<'a> {
    pub job: &'a Job,
    pub judged: Judged,
}

impl Line<'_> {
    fn name(&self) -> Cow<'_, str> {
        visible(&self.job.name, NAME)
    }
}

/// Every job's line, and what the gate says beside them.
pub struct Table<'a> {
    pub lines: Vec<Line<'a>>,
    /// Globs that matched no file.
    pub unmatched: Vec<String>,
    /// Reports fewer than `--expect-jobs`.
    pub missing: usize,
    pub expected: usize,
}

impl Table<'_> {
    pub fn judged(&self) -> Vec<Judged> {
        self.lines.iter().map(|l| l.judged.clone()).collect()
    }

    fn verdict(&self) -> Verdict {
        overall(&self.judged(), self.missing)
    }

    fn failed(&self) -> Vec<Cow<'_, str>> {
        self.lines
            .iter()
            .filter(|l| l.judged.verdict.fails())
            .map(Line::name)
            .collect()
    }

    /// The jobs whose baseline was measured on another machine.
    fn another_machine(&self) -> Vec<Cow<'_, str>> {
        self.lines
            .iter()
            .filter(|l| machine::of(l.job).is_some_and(|m| m.another_machine))
            .map(Line::name)
            .collect()
    }

    /// `2 jobs expected, 1 report found: a runner left no report`.
    fn missing_text(&self) -> Option<String> {
        (self.missing > 0).then(|| {
            format!(
                "{} expected, {} found: {} left no report",
                counted(self.expected, "job"),
                counted(self.lines.len(), "report"),
                counted(self.missing, "job")
            )
        })
    }
}

fn key(key: &Key) -> String {
    let cells: Vec<String> = key.0.iter().map(|(c, v)| format!("{c}={v}")).collect();
    visible(&cells.join(","), KEY).into_owned()
}

fn row_text(row: &Row<'_>) -> String {
    match row.change_pct.filter(|c| c.is_finite()) {
        Some(c) if !row.is(&[Class::Lost]) => format!("{} {c:+.1}%", key(&row.key)),
        _ => format!("{} ({})", key(&row.key), visible(&row.class, 20)),
    }
}

/// The worst rows: the failing ones kept (and how many more), else the
/// compared row that fell most (when one fell), else nothing.
fn worst(line: &Line<'_>) -> String {
    let Some(base) = line.job.report.as_ref().ok().and_then(gate) else {
        return String::new();
    };
    if base.rows.0.failing > 0 {
        let mut shown: Vec<String> = base.rows.0.rows.iter().map(row_text).collect();
        let more = base.rows.0.failing.saturating_sub(base.rows.0.rows.len());
        if more > 0 {
            shown.push(format!("and {more} more"));
        }
        return shown.join("; ");
    }
    base.worst
        .as_ref()
        .and_then(|w| {
            let fell = w.change_pct.filter(|c| c.is_finite() && *c < 0.0)?;
            Some(format!("{} {fell:+.1}%", visible(&w.key, KEY)))
        })
        .unwrap_or_default()
}

fn coverage_of<'a>(line: &'a Line<'_>) -> Option<&'a Coverage> {
    line.job
        .report
        .as_ref()
        .ok()
        .and_then(gate)
        .and_then(|b| b.coverage.as_ref())
}

fn coverage(line: &Line<'_>) -> String {
    coverage_of(line).map_or_else(String::new, |c| {
        let pct = c
            .pct
            .filter(|p| p.is_finite())
            .map(|p| format!(" ({p:.1}%)"))
            .unwrap_or_default();
        format!("{} of {}{pct}", c.compared, c.suite)
    })
}

fn rounds(line: &Line<'_>) -> Option<String> {
    let paired = line.job.report.as_ref().ok().and_then(gate)?.paired?;
    Some(format!(
        "{:.1} mean, {} most; {} undecided",
        paired.rounds_mean, paired.rounds_max, paired.undecided
    ))
}

fn verdict_text(line: &Line<'_>) -> String {
    match &line.judged.why {
        Some(why) if line.judged.verdict != Verdict::Regression => {
            format!("{}: {}", line.judged.verdict.name(), visible(why, WHY))
        }
        _ => line.judged.verdict.name().to_owned(),
    }
}

/// `gate: regression: 1 of 2 jobs failed (mi355)`.
pub fn headline(table: &Table<'_>) -> String {
    let failed = table.failed();
    let inconclusive = table
        .lines
        .iter()
        .filter(|l| l.judged.verdict == Verdict::Inconclusive)
        .count();
    let mut text = format!(
        "gate: {}: {} of {} failed",
        table.verdict().name(),
        failed.len(),
        counted(table.lines.len(), "job")
    );
    if !failed.is_empty() {
        let _ = write!(text, " ({})", failed.join(", "));
    }
    if inconclusive > 0 {
        let _ = write!(text, ", {inconclusive} inconclusive");
    }
    if let Some(missing) = table.missing_text() {
        let _ = write!(text, "; {missing}");
    }
    let other = table.another_machine();
    if !other.is_empty() {
        let mut named: Vec<Cow<'_, str>> = other.iter().take(NAMED).cloned().collect();
        if other.len() > NAMED {
            named.push(format!("and {} more", other.len().saturating_sub(NAMED)).into());
        }
        let _ = write!(
            text,
            "; {} from another machine ({})",
            counted(other.len(), "baseline"),
            named.join(", ")
        );
    }
    text
}

/// The table's columns: job, verdict, coverage, worst rows, and the
/// columns only some reports fill (rounds when a job was paired, machine
/// when a report knew what its sides were measured on), each shown when
/// any line has it.
struct Columns {
    head: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

fn columns(lines: &[Line<'_>]) -> Columns {
    let mut head = vec!["job", "verdict", "coverage", "worst rows"];
    let mut rows: Vec<Vec<String>> = lines
        .iter()
        .map(|l| {
            vec![
                l.name().into_owned(),
                verdict_text(l),
                coverage(l),
                worst(l),
            ]
        })
        .collect();
    let optional: [(&'static str, Vec<Option<String>>); 2] = [
        ("rounds", lines.iter().map(rounds).collect()),
        (
            "machine",
            lines
                .iter()
                .map(|l| machine::of(l.job).map(|m| m.cell()))
                .collect(),
        ),
    ];
    for (name, cells) in optional {
        if cells.iter().any(Option::is_some) {
            head.push(name);
            for (row, cell) in rows.iter_mut().zip(cells) {
                row.push(cell.unwrap_or_default());
            }
        }
    }
    Columns { head, rows }
}

/// The table as Markdown for the job summary.
pub fn summary(table: &Table<'_>) -> String {
    let Columns { head, rows } = columns(&table.lines);
    let mut out = format!("### Benchmark gate\n\n{}\n\n", md(&headline(table)));
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(head.len()));
    for row in &rows {
        let cells: Vec<String> = row.iter().map(|c| md(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    for glob in &table.unmatched {
        let _ = write!(
            out,
            "\n> [!WARNING]\n> No report matches `{}`.\n",
            md(&visible(glob, WHY))
        );
    }
    out
}

#[derive(Serialize)]
struct JsonJob<'a> {
    job: &'a str,
    path: String,
    verdict: &'static str,
    why: Option<&'a str>,
    /// The gate baseline's label.
    baseline: Option<&'a str>,
    regressed: u64,
    lost: u64,
    /// The worst failing rows (at most three), as `key change`.
    worst: Vec<String>,
    coverage: Option<&'a Coverage>,
    rounds: Option<String>,
    /// What each side was measured on, when the report knew.
    machine: Option<Measured>,
}

#[derive(Serialize)]
struct JsonGate<'a> {
    schema: u32,
    verdict: &'static str,
    jobs: Vec<JsonJob<'a>>,
    failed_jobs: Vec<&'a str>,
    /// Reports fewer than `--expect-jobs`.
    missing: usize,
    /// Globs that matched no file.
    unmatched: &'a [String],
}

fn json_job<'a>(line: &'a Line<'a>) -> JsonJob<'a> {
    let base = line.job.report.as_ref().ok().and_then(gate);
    JsonJob {
        job: &line.job.name,
        path: line.job.path.display().to_string(),
        verdict: line.judged.verdict.name(),
        why: line.judged.why.as_deref(),
        baseline: base.map(|b| b.label.as_ref()),
        regressed: base.map_or(0, |b| b.counts.of(Class::Regressed)),
        lost: base.map_or(0, |b| b.counts.of(Class::Lost)),
        worst: base.map_or_else(Vec::new, |b| b.rows.0.rows.iter().map(row_text).collect()),
        coverage: coverage_of(line),
        rounds: rounds(line),
        machine: machine::of(line.job),
    }
}

/// The step outputs, in order; `gate/action.yml` declares exactly these.
pub fn step_outputs(table: &Table<'_>) -> Vec<(&'static str, String)> {
    let failed = table.failed();
    vec![
        ("verdict", table.verdict().name().to_owned()),
        ("jobs", table.lines.len().to_string()),
        (
            "failed-jobs",
            serde_json::to_string(&failed).unwrap_or_else(|_| "[]".to_owned()),
        ),
    ]
}

impl Forms for Table<'_> {
    /// The gate as one JSON object (`--format json`).
    fn json(&self) -> String {
        let value = JsonGate {
            schema: 1,
            verdict: self.verdict().name(),
            jobs: self.lines.iter().map(json_job).collect(),
            failed_jobs: self
                .lines
                .iter()
                .filter(|l| l.judged.verdict.fails())
                .map(|l| l.job.name.as_str())
                .collect(),
            missing: self.missing,
            unmatched: &self.unmatched,
        };
        serde_json::to_string(&value)
            .unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
    }

    /// The table for a person, aligned.
    fn text(&self) -> LogText {
        let mut log = LogText::new();
        log.push_line(&headline(self));
        let Columns { head, rows } = columns(&self.lines);
        let all: Vec<Vec<String>> = std::iter::once(head.iter().map(|h| (*h).to_owned()).collect())
            .chain(rows)
            .collect();
        let widths: Vec<usize> = (0..head.len())
            .map(|i| {
                all.iter()
                    .filter_map(|r| r.get(i))
                    .map(|c| c.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in &all {
            let padded: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect();
            log.push_line(&format!("  {}", padded.join("  ").trim_end()));
        }
        for glob in &self.unmatched {
            log.push_line(&format!(
                "warning: no report matches {:?}",
                visible(glob, WHY)
            ));
        }
        log
    }

    /// For a runner: the outputs, the summary, an annotation per job that
    /// failed (error) or was inconclusive (warning).
    fn actions(&self) -> Result<Rendered, EncodeError> {
        let outputs = file_command::encode_all(step_outputs(self))?;
        let mut stdout = LogText::new();
        if let Some(missing) = self.missing_text() {
            stdout.push_command("error", &[("title", "Benchmark report missing")], &missing);
        }
        for line in &self.lines {
            let (level, title) = match line.judged.verdict {
                Verdict::Pass => continue,
                Verdict::Inconclusive => ("warning", "Benchmark job inconclusive"),
                Verdict::Missing | Verdict::Unreadable | Verdict::Regression => {
                    ("error", "Benchmark job failed")
                }
            };
            let message = format!("{}: {}", line.name(), verdict_text(line));
            stdout.push_command(level, &[("title", title)], &message);
        }
        for line in &self.lines {
            if let Some(m) = machine::of(line.job).filter(|m| m.another_machine) {
                stdout.push_command(
                    "warning",
                    &[("title", "Benchmark baseline from another machine")],
                    &format!("{}: {}", line.name(), m.cell()),
                );
            }
        }
        for glob in &self.unmatched {
            stdout.push_command(
                "warning",
                &[("title", "Benchmark gate")],
                &format!("no report matches {:?}", visible(glob, WHY)),
            );
        }
        Ok(Rendered {
            outputs,
            summary: summary(self),
            stdout,
        })
    }
}
