//! The selection in each output form: step outputs (`selection`,
//! `groups`, `changed-files`, `reason`, `json`), a short job-summary
//! section and annotations for a runner; one JSON object; text for a
//! person. Paths come from a stranger's commit: shown as data, cut, and
//! never able to make a log line a command (the log writer sees to that).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Serialize;

use super::Outcome;
use super::decide::Matched;
use crate::runner::Rendered;
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::LogText;
use crate::runner::markdown::escape as md;
use crate::runner::text::visible;

/// Files the text form lists (a log of ten thousand paths helps nobody).
const TEXT_FILES: usize = 100;
/// Files the `json` step output lists (`--format json` lists all).
const OUTPUT_FILES: usize = 1000;
/// The most characters of a path any output shows but `--format json`.
const SHOWN_PATH: usize = 300;

#[derive(Serialize)]
struct JsonFile<'a> {
    path: Cow<'a, str>,
    status: &'static str,
    /// `group`, `all`, `ignore` or `unmapped`.
    matched: &'static str,
    /// The groups, or the pattern that matched.
    by: Option<Cow<'a, str>>,
}

#[derive(Serialize)]
struct JsonSelection<'a> {
    schema: u32,
    selection: &'static str,
    groups: &'a [String],
    changed_files: usize,
    reason: String,
    base: Option<String>,
    head: Option<String>,
    warnings: &'a [String],
    files_listed: usize,
    files: Vec<JsonFile<'a>>,
}

fn file(report: &super::decide::PathReport, cut: bool) -> JsonFile<'_> {
    let (matched, by) = match &report.matched {
        Matched::Groups(g) if g.len() == 1 => ("group", g.first().map(|g| Cow::from(g.as_str()))),
        Matched::Groups(g) => ("group", Some(Cow::from(g.join(",")))),
        Matched::All(p) => ("all", Some(Cow::from(p.as_str()))),
        Matched::Ignored(p) => ("ignore", Some(Cow::from(p.as_str()))),
        Matched::Unmapped => ("unmapped", None),
    };
    JsonFile {
        path: if cut {
            visible(&report.path, SHOWN_PATH)
        } else {
            Cow::from(report.path.as_str())
        },
        status: report.status.name(),
        matched,
        by,
    }
}

/// The selection as one JSON object; `files` caps the files listed.
pub fn json(outcome: &Outcome, files: Option<usize>) -> String {
    let s = &outcome.selection;
    let cut = files.is_some();
    let listed: Vec<JsonFile> = s
        .files
        .iter()
        .take(files.unwrap_or(usize::MAX))
        .map(|f| file(f, cut))
        .collect();
    let value = JsonSelection {
        schema: 1,
        selection: s.kind.name(),
        groups: &s.groups,
        changed_files: s.changed,
        reason: if cut {
            visible(&s.reason, SHOWN_PATH + 200).into_owned()
        } else {
            s.reason.clone()
        },
        base: outcome.base.as_ref().map(ToString::to_string),
        head: outcome.head.as_ref().map(ToString::to_string),
        warnings: &outcome.warnings,
        files_listed: listed.len(),
        files: listed,
    };
    serde_json::to_string(&value).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}

/// The step outputs, in order; `select/action.yml` declares exactly these.
pub fn step_outputs(outcome: &Outcome) -> Vec<(&'static str, String)> {
    let s = &outcome.selection;
    vec![
        ("selection", s.kind.name().to_owned()),
        ("groups", s.groups.join(",")),
        ("changed-files", s.changed.to_string()),
        ("reason", visible(&s.reason, SHOWN_PATH + 200).into_owned()),
        ("json", json(outcome, Some(OUTPUT_FILES))),
    ]
}

/// The selection for a person, line by line.
pub fn text(outcome: &Outcome) -> LogText {
    let s = &outcome.selection;
    let mut log = LogText::new();
    log.push_line(&format!("select: {} ({})", s.kind.name(), s.reason));
    if !s.groups.is_empty() {
        log.push_line(&format!("groups: {}", s.groups.join(",")));
    }
    for f in s.files.iter().take(TEXT_FILES) {
        let matched = match &f.matched {
            Matched::Groups(g) => format!("group {}", g.join(",")),
            Matched::All(p) => format!("all ({p})"),
            Matched::Ignored(p) => format!("ignored ({p})"),
            Matched::Unmapped => "unmapped".to_owned(),
        };
        log.push_line(&format!(
            "  {:<12} {}  -> {matched}",
            f.status.name(),
            visible(&f.path, SHOWN_PATH)
        ));
    }
    if let Some(more) = s.files.len().checked_sub(TEXT_FILES).filter(|n| *n > 0) {
        log.push_line(&format!(
            "  ... and {more} more (--format json lists every path)"
        ));
    }
    for warning in &outcome.warnings {
        log.push_line(&format!("warning: {warning}"));
    }
    log
}

fn summary(outcome: &Outcome) -> String {
    let s = &outcome.selection;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Benchmark selection: {}\n\n{}\n",
        s.kind.name(),
        md(&visible(&s.reason, SHOWN_PATH + 200))
    );
    if !s.groups.is_empty() {
        let _ = writeln!(out, "Groups: `{}`\n", s.groups.join(","));
    }
    let _ = writeln!(out, "{} changed files.\n", s.changed);
    for warning in &outcome.warnings {
        let _ = writeln!(out, "> [!WARNING]\n> {}\n", md(warning));
    }
    out
}

/// For a runner: the outputs, the summary, the annotations.
pub fn actions(outcome: &Outcome) -> Result<Rendered, EncodeError> {
    let mut outputs = String::new();
    for (name, value) in step_outputs(outcome) {
        file_command::encode(&mut outputs, name, &value)?;
    }
    let mut stdout = LogText::new();
    for warning in &outcome.warnings {
        stdout.push_command("warning", &[("title", "Benchmark selection: all")], warning);
    }
    if outcome.selection.kind == super::decide::Kind::None {
        stdout.push_command(
            "notice",
            &[("title", "No benchmark to run")],
            &outcome.selection.reason,
        );
    }
    Ok(Rendered {
        outputs,
        summary: summary(outcome),
        stdout,
    })
}
