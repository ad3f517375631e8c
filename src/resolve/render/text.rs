//! Prose for a person at a terminal: the answer first, then the decision trace.

use std::fmt::Write as _;

use crate::resolve::answer::{Answer, Base};
use crate::runner::log::LogText;

/// The answer as log lines: every line made safe (values come from payloads
/// and servers).
pub fn render(answer: &Answer) -> LogText {
    let mut log = LogText::new();
    for line in prose(answer).lines() {
        log.push_line(line);
    }
    log
}

fn prose(answer: &Answer) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", answer.baseline_line());
    let _ = writeln!(
        out,
        "  base repo   {} ({})",
        answer.base_repo, answer.base_repo_url
    );
    if let Some(base_ref) = &answer.base_ref {
        let _ = writeln!(out, "  base ref    {base_ref}");
    }
    let head = match (&answer.head_repo, &answer.head_sha) {
        (Some(repo), Some(sha)) => format!("{repo}@{sha}"),
        (None, Some(sha)) => format!("(deleted or unknown repository)@{sha}"),
        (Some(repo), None) => format!("{repo} (commit unknown)"),
        (None, None) => "unknown".to_owned(),
    };
    let fork = if answer.is_fork { " (fork)" } else { "" };
    let _ = writeln!(out, "  head        {head}{fork}");
    if let Base::Skipped(reason) = &answer.base {
        let _ = writeln!(out, "  skip        {reason}");
    }
    if let Some(tag) = &answer.tag {
        let _ = writeln!(out, "  latest tag  {} = {}", tag.name, tag.sha);
    }
    for (name, found) in &answer.artifacts {
        match (found.id, found.run_id, found.event) {
            (Some(id), Some(run), Some(event)) => {
                let _ = writeln!(out, "  artifact    {name}: id {id}, {event} run {run}");
            }
            _ => {
                let _ = writeln!(out, "  artifact    {name}: none");
            }
        }
    }
    for warning in &answer.warnings {
        let _ = writeln!(out, "warning: {}", warning.message);
    }
    for notice in &answer.notices {
        let _ = writeln!(out, "notice: {notice}");
    }
    let _ = writeln!(out, "decision:");
    for line in &answer.trace {
        let _ = writeln!(out, "  - {}", line.replace(['\r', '\n'], " "));
    }
    out
}
