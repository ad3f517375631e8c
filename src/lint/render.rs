//! The output forms of `lint`: `text` for a person (`file:line:col:
//! severity[rule] message`, then the fix), `json` for scripts, and for a
//! runner annotations on the lines, a summary table and step outputs.
//! SARIF is [`super::sarif`].

use std::fmt::Write as _;

use serde::Serialize;

use super::Outcome;
use super::finding::{RULES, Severity};
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::LogText;
use crate::runner::markdown::escape as md;
use crate::runner::text::counted;
use crate::runner::write::{Forms, Rendered};

/// Annotations beyond this are in the log and the summary only (GitHub
/// shows at most 10 of each kind per step anyway).
const ANNOTATIONS: usize = 200;
/// Findings listed in the job summary.
const SUMMARY_FINDINGS: usize = 300;

fn totals(outcome: &Outcome) -> String {
    let refused = match outcome.refused.len() {
        0 => String::new(),
        n => format!("; {} could not be linted", counted(n, "file")),
    };
    format!(
        "{} ({} error, {} warning, {} note) in {}; {} suppressed{refused}",
        counted(outcome.findings.len(), "finding"),
        outcome.count(Severity::Error),
        outcome.count(Severity::Warning),
        outcome.count(Severity::Note),
        counted(outcome.files, "file"),
        outcome.suppressed
    )
}

pub fn text(outcome: &Outcome) -> LogText {
    let mut out = LogText::new();
    for f in &outcome.findings {
        out.push_line(&format!(
            "{}:{}:{}: {}[{}] {}",
            f.file,
            f.at.line,
            f.at.column,
            f.rule.severity.name(),
            f.rule.id,
            f.message
        ));
        out.push_line(&format!("  fix: {}", f.rule.fix));
    }
    out.push_line(&totals(outcome));
    out
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    file: &'a str,
    line: usize,
    column: usize,
    message: &'a str,
    fix: &'a str,
}

#[derive(Serialize)]
struct JsonRefusal<'a> {
    file: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonLint<'a> {
    findings: Vec<JsonFinding<'a>>,
    files: usize,
    suppressed: usize,
    /// Files that could not be linted (exit 1).
    refused: Vec<JsonRefusal<'a>>,
}

pub fn json(outcome: &Outcome) -> String {
    let findings = outcome
        .findings
        .iter()
        .map(|f| JsonFinding {
            rule: f.rule.id,
            severity: f.rule.severity.name(),
            file: &f.file,
            line: f.at.line,
            column: f.at.column,
            message: &f.message,
            fix: f.rule.fix,
        })
        .collect();
    let refused = outcome
        .refused
        .iter()
        .map(|r| JsonRefusal {
            file: &r.file,
            line: r.at.map(|a| a.line),
            column: r.at.map(|a| a.column),
            message: &r.message,
        })
        .collect();
    serde_json::to_string(&JsonLint {
        findings,
        files: outcome.files,
        suppressed: outcome.suppressed,
        refused,
    })
    .unwrap_or_default()
}

fn summary(outcome: &Outcome) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### Workflow lint\n\n{}\n", totals(outcome));
    for r in &outcome.refused {
        let _ = writeln!(out, "> [!CAUTION]\n> Not linted: {}\n", md(&r.line()));
    }
    if outcome.findings.is_empty() {
        return out;
    }
    out.push_str("| rule | severity | findings |\n|---|---|---|\n");
    for rule in RULES {
        let n = outcome
            .findings
            .iter()
            .filter(|f| f.rule.id == rule.id)
            .count();
        if n > 0 {
            let _ = writeln!(out, "| `{}` | {} | {n} |", rule.id, rule.severity.name());
        }
    }
    out.push_str("\n| where | rule | message |\n|---|---|---|\n");
    for f in outcome.findings.iter().take(SUMMARY_FINDINGS) {
        let _ = writeln!(
            out,
            "| {}:{}:{} | `{}` | {} |",
            md(&f.file),
            f.at.line,
            f.at.column,
            f.rule.id,
            md(&f.message)
        );
    }
    if outcome.findings.len() > SUMMARY_FINDINGS {
        let _ = writeln!(
            out,
            "\n... and {} more (see the log)",
            outcome.findings.len().saturating_sub(SUMMARY_FINDINGS)
        );
    }
    out
}

/// For a runner: step outputs, the summary, an annotation per finding.
pub fn actions(outcome: &Outcome) -> Result<Rendered, EncodeError> {
    let outputs = file_command::encode_all(
        [
            ("findings", outcome.findings.len()),
            ("errors", outcome.count(Severity::Error)),
            ("warnings", outcome.count(Severity::Warning)),
            ("notes", outcome.count(Severity::Note)),
            ("suppressed", outcome.suppressed),
        ]
        .map(|(name, count)| (name, count.to_string())),
    )?;
    let mut stdout = LogText::new();
    for r in outcome.refused.iter().take(ANNOTATIONS) {
        let (line, col) = r.at.map_or((String::new(), String::new()), |a| {
            (a.line.to_string(), a.column.to_string())
        });
        let mut properties = vec![("file", r.file.as_str())];
        if r.at.is_some() {
            properties.extend([("line", line.as_str()), ("col", col.as_str())]);
        }
        properties.push(("title", "baseline-resolver lint: not linted"));
        stdout.push_command("error", &properties, &r.message);
    }
    for f in outcome.findings.iter().take(ANNOTATIONS) {
        let kind = match f.rule.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let (line, col) = (f.at.line.to_string(), f.at.column.to_string());
        let title = format!("baseline-resolver lint ({})", f.rule.id);
        stdout.push_command(
            kind,
            &[
                ("file", &f.file),
                ("line", &line),
                ("col", &col),
                ("title", &title),
            ],
            &format!("{} Fix: {}", f.message, f.rule.fix),
        );
    }
    Ok(Rendered {
        outputs,
        summary: summary(outcome),
        stdout,
    })
}

impl Forms for Outcome {
    fn json(&self) -> String {
        json(self)
    }

    fn text(&self) -> LogText {
        text(self)
    }

    fn actions(&self) -> Result<Rendered, EncodeError> {
        actions(self)
    }
}
