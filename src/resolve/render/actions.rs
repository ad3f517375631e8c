//! The answer for a runner: step outputs for `GITHUB_OUTPUT`, a Markdown
//! summary for `GITHUB_STEP_SUMMARY`, and workflow commands for the log.

use std::fmt::Write as _;

use super::step_outputs;
use crate::resolve::answer::{Answer, Base};
use crate::runner::Rendered;
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::LogText;
use crate::runner::markdown::escape as md;

pub fn render(answer: &Answer, debug: &[String]) -> Result<Rendered, EncodeError> {
    let outputs = file_command::encode_all(step_outputs(answer))?;
    Ok(Rendered {
        outputs,
        summary: summary(answer),
        stdout: stdout(answer, debug),
    })
}

fn stdout(answer: &Answer, debug: &[String]) -> LogText {
    let mut out = LogText::new();
    for line in debug {
        out.push_command("debug", &[], line);
    }
    out.push_line(&answer.baseline_line());
    for warning in &answer.warnings {
        out.push_command("warning", &[("title", warning.title)], &warning.message);
    }
    for notice in &answer.notices {
        out.push_command("notice", &[("title", "Benchmark artifact")], notice);
    }
    out.push_command("group", &[], "Baseline decision");
    for line in &answer.trace {
        out.push_line(line);
    }
    out.push_command("endgroup", &[], "");
    out
}

/// The summary's table: the baseline and where it came from, the head,
/// the event, the release tag and each artifact, as (name, value) cells.
fn table_rows(answer: &Answer) -> Vec<(String, String)> {
    let (baseline, source) = match &answer.base {
        Base::Found {
            sha,
            source,
            origin,
        } => (
            format!("**{}** @ `{sha}`", md(answer.base_repo.as_str())),
            format!("{source} ({})", md(origin)),
        ),
        Base::Skipped(reason) => (
            format!("none: skipped ({})", md(&reason.to_string())),
            "none".to_owned(),
        ),
        Base::Unavailable { source } => (
            format!("**unavailable** for {}", md(answer.base_repo.as_str())),
            source.to_string(),
        ),
    };
    let head = match (&answer.head_repo, &answer.head_sha) {
        (Some(repo), Some(sha)) => format!("{} @ `{sha}`", md(repo.as_str())),
        (None, Some(sha)) => format!("(deleted fork) @ `{sha}`"),
        (Some(repo), None) => md(repo.as_str()),
        (None, None) => "unknown".to_owned(),
    };
    let mut rows: Vec<(String, String)> = [
        ("Baseline", baseline),
        ("Source", source),
        (
            "Base ref",
            answer
                .base_ref
                .as_ref()
                .map(|r| md(r.as_str()))
                .unwrap_or_default(),
        ),
        (
            "Head",
            format!("{head}{}", if answer.is_fork { " (fork)" } else { "" }),
        ),
        ("Event", md(&answer.event_name)),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    if let Some(tag) = &answer.tag {
        rows.push((
            "Latest release tag".to_owned(),
            format!("{} @ `{}`", md(&tag.name), tag.sha),
        ));
    }
    for (name, found) in &answer.artifacts {
        let state = match (found.id, found.run_id, found.event) {
            (Some(id), Some(run), Some(event)) => {
                format!("artifact {id} of the {event} run {run}: reused")
            }
            _ => "none: the baseline runs once".to_owned(),
        };
        rows.push((format!("Artifact {}", md(name)), state));
    }
    rows
}

fn summary(answer: &Answer) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Benchmark baseline `{}`\n",
        // A validated label: no backtick can end the code span early.
        answer.label.as_str()
    );
    out.push_str("| | |\n|---|---|\n");
    for (name, value) in table_rows(answer) {
        let _ = writeln!(out, "| {name} | {value} |");
    }
    out.push('\n');
    for warning in &answer.warnings {
        let _ = writeln!(out, "> [!WARNING]\n> {}\n", md(&warning.message));
    }
    for notice in &answer.notices {
        let _ = writeln!(out, "> [!NOTE]\n> {}\n", md(notice));
    }
    out.push_str("<details><summary>Decision trace</summary>\n\n");
    for line in &answer.trace {
        let _ = writeln!(out, "- {}", md(line));
    }
    out.push_str("\n</details>\n\n");
    out
}
