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
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::LogText;
use crate::runner::markdown::escape as md;
use crate::runner::text::visible;
use crate::runner::{Forms, Rendered};

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
struct JsonShadow<'a> {
    ignore: Cow<'a, str>,
    claim: Cow<'a, str>,
    by: Cow<'a, str>,
    path: Cow<'a, str>,
}

#[derive(Serialize)]
struct JsonSelection<'a> {
    schema: u32,
    /// `all`, `some`, `none`, or `check` (`--check`: no selection made).
    selection: &'static str,
    groups: &'a [String],
    changed_files: usize,
    reason: String,
    base: Option<String>,
    head: Option<String>,
    warnings: &'a [String],
    /// Where an ignore pattern matches a path a claim also matches.
    shadows: Vec<JsonShadow<'a>>,
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

/// `all`, `some`, `none`, or `check` for `--check`.
fn name(outcome: &Outcome) -> &'static str {
    if outcome.check {
        "check"
    } else {
        outcome.selection.kind.name()
    }
}

/// The selection as one JSON object; `files` caps the files listed.
pub fn json<'a>(outcome: &'a Outcome, files: Option<usize>) -> String {
    let s = &outcome.selection;
    let cut = files.is_some();
    let listed: Vec<JsonFile> = s
        .files
        .iter()
        .take(files.unwrap_or(usize::MAX))
        .map(|f| file(f, cut))
        .collect();
    let shown = |t: &'a str| {
        if cut {
            visible(t, SHOWN_PATH)
        } else {
            Cow::from(t)
        }
    };
    let shadows = outcome
        .shadows
        .iter()
        .map(|f| JsonShadow {
            ignore: shown(&f.ignore),
            claim: shown(&f.claim),
            by: shown(&f.by),
            path: shown(&f.path),
        })
        .collect();
    let value = JsonSelection {
        schema: crate::contract::SELECTION_SCHEMA,
        selection: name(outcome),
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
        shadows,
        files_listed: listed.len(),
        files: listed,
    };
    serde_json::to_string(&value).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}

/// The step outputs, in order; `select/action.yml` declares exactly these.
pub fn step_outputs(outcome: &Outcome) -> Vec<(&'static str, String)> {
    let s = &outcome.selection;
    vec![
        ("selection", name(outcome).to_owned()),
        ("groups", s.groups.join(",")),
        ("changed-files", s.changed.to_string()),
        ("reason", visible(&s.reason, SHOWN_PATH + 200).into_owned()),
        ("json", json(outcome, Some(OUTPUT_FILES))),
    ]
}

fn summary(outcome: &Outcome) -> String {
    let s = &outcome.selection;
    let mut out = String::new();
    if outcome.check {
        let _ = writeln!(
            out,
            "### Benchmark selection config check\n\n{} ignore pattern(s) shadowed by a claim.\n",
            outcome.shadows.len()
        );
    } else {
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
    }
    for warning in &outcome.warnings {
        let _ = writeln!(out, "> [!WARNING]\n> {}\n", md(warning));
    }
    for shadow in &outcome.shadows {
        let _ = writeln!(
            out,
            "> [!WARNING]\n> {}\n",
            md(&visible(&shadow.message(), 4 * SHOWN_PATH))
        );
    }
    out
}

impl Forms for Outcome {
    fn json(&self) -> String {
        json(self, None)
    }

    /// The selection for a person, line by line.
    fn text(&self) -> LogText {
        let s = &self.selection;
        let mut log = LogText::new();
        if self.check {
            let head = self
                .head
                .as_ref()
                .map_or_else(|| "?".to_owned(), ToString::to_string);
            log.push_line(&format!(
                "select --check: {} ignore pattern(s) shadowed by a claim in the tree of {head}",
                self.shadows.len()
            ));
        } else {
            log.push_line(&format!("select: {} ({})", s.kind.name(), s.reason));
        }
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
        for warning in &self.warnings {
            log.push_line(&format!("warning: {warning}"));
        }
        for shadow in &self.shadows {
            log.push_line(&format!(
                "warning: {}",
                visible(&shadow.message(), 4 * SHOWN_PATH)
            ));
        }
        log
    }

    /// For a runner: the outputs, the summary, the annotations.
    fn actions(&self) -> Result<Rendered, EncodeError> {
        let outputs = file_command::encode_all(step_outputs(self))?;
        let mut stdout = LogText::new();
        let title = if self.check {
            "Benchmark selection config check"
        } else {
            "Benchmark selection: all"
        };
        for warning in &self.warnings {
            stdout.push_command("warning", &[("title", title)], warning);
        }
        for shadow in &self.shadows {
            stdout.push_command(
                "warning",
                &[("title", "The select config shadows itself")],
                &visible(&shadow.message(), 4 * SHOWN_PATH),
            );
        }
        if self.selection.kind == super::decide::Kind::None {
            stdout.push_command(
                "notice",
                &[("title", "No benchmark to run")],
                &self.selection.reason,
            );
        }
        Ok(Rendered {
            outputs,
            summary: summary(self),
            stdout,
        })
    }
}
