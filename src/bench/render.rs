//! What `bench` did, in each output form: the step outputs (the two paths
//! compare reads, where the baseline came from, each side's status, exit
//! status, duration and rows), a summary line per side, annotations, text
//! and JSON. Paths, group names and commits may come from a fork's run:
//! every one is shown as data.

use serde::Serialize;

use super::Outcome;
use super::side::{SideRun, Status};
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::LogText;
use crate::runner::markdown::escape as md;
use crate::runner::{Forms, Rendered, shown};

/// The JSON's schema number: bumped when a field changes meaning.
pub const SCHEMA: u32 = 1;

impl Outcome {
    /// Where the baseline's results came from: `artifact`, `ran`,
    /// `unavailable` or `skipped`.
    pub fn baseline_source(&self) -> &'static str {
        match self.baseline.status {
            Status::Reused => "artifact",
            Status::Unavailable => "unavailable",
            Status::Skipped => "skipped",
            Status::Ok | Status::Failed | Status::TimedOut => "ran",
        }
    }

    /// Each side that was asked for, by the name its outputs carry
    /// (`tag` for `--with-tag`'s).
    fn sides(&self) -> Vec<(&'static str, &SideRun)> {
        let mut sides = vec![
            (self.current.side.name(), &self.current),
            (self.baseline.side.name(), &self.baseline),
        ];
        sides.extend(self.tag.as_ref().map(|t| ("tag", t)));
        sides
    }
}

/// The CSV, or where it would have been (compare then says unavailable),
/// whole: a later step reads it (the step outputs, the JSON), so it is
/// never shortened. The path is the user's own `--out-dir` or
/// `--baseline-result`, bounded by the system's path length.
fn path_full(run: &SideRun) -> String {
    run.path
        .as_ref()
        .unwrap_or(&run.out)
        .to_string_lossy()
        .into_owned()
}

/// The same for a person (the text, the summary): cut when long.
fn path_text(run: &SideRun) -> String {
    shown(&path_full(run))
}

/// The harness's raw log, whole (a later step reads it); empty when the
/// side did not run.
fn log_path(run: &SideRun) -> String {
    run.log
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn seconds(run: &SideRun) -> String {
    run.duration
        .map(|d| format!("{:.1}", d.as_secs_f64()))
        .unwrap_or_default()
}

/// The step outputs, as `bench/action.yml` declares them.
pub fn step_outputs(outcome: &Outcome) -> Vec<(String, String)> {
    let mut out = vec![
        ("current".to_owned(), path_full(&outcome.current)),
        ("baseline".to_owned(), path_full(&outcome.baseline)),
        (
            "baseline-source".to_owned(),
            outcome.baseline_source().to_owned(),
        ),
    ];
    match &outcome.tag {
        Some(tag) => {
            out.push(("tag".to_owned(), path_full(tag)));
            out.push(("tag-label".to_owned(), tag.label.clone()));
        }
        // Declared by the action, so written: empty without --with-tag.
        None => out.extend(
            [
                "",
                "-label",
                "-status",
                "-log",
                "-exit-code",
                "-duration",
                "-rows",
            ]
            .map(|o| (format!("tag{o}"), String::new())),
        ),
    }
    for (side, run) in outcome.sides() {
        out.push((format!("{side}-status"), run.status.name().to_owned()));
        out.push((format!("{side}-log"), log_path(run)));
        out.push((
            format!("{side}-exit-code"),
            run.exit.map(|c| c.to_string()).unwrap_or_default(),
        ));
        out.push((format!("{side}-duration"), seconds(run)));
        out.push((
            format!("{side}-rows"),
            run.rows.map(|r| r.to_string()).unwrap_or_default(),
        ));
    }
    match &outcome.rounds {
        Some(done) => out.extend(super::manifest::outputs(done, outcome.manifest.as_deref())),
        None => out.extend(super::manifest::single(
            outcome.current.path.as_deref(),
            outcome.baseline.path.as_deref(),
            &outcome.baseline.label,
            outcome.manifest.as_deref(),
        )),
    }
    if let (Some(tag), Some((_, lines))) = (
        &outcome.tag,
        out.iter_mut().find(|(name, _)| name == "compare-baseline"),
    ) {
        // The tag's file, or where it would have been (compare then says
        // the release is unavailable), beside main's.
        let line = format!("{}={}", tag.label, path_full(tag));
        *lines = if lines.is_empty() {
            line
        } else {
            format!("{lines}\n{line}")
        };
    }
    out
}

#[derive(Serialize)]
struct SideJson {
    side: &'static str,
    status: &'static str,
    sha: Option<String>,
    path: Option<String>,
    exit_code: Option<i32>,
    duration_seconds: Option<f64>,
    rows: Option<u64>,
    groups: Option<Vec<String>>,
    dropped_groups: Vec<String>,
    fetched: bool,
    log: Option<String>,
    notes: Vec<String>,
}

fn side_json(side: &'static str, run: &SideRun) -> SideJson {
    let cut = |v: &[String]| v.iter().take(200).map(|g| shown(g)).collect::<Vec<_>>();
    SideJson {
        side,
        status: run.status.name(),
        sha: run.sha.as_deref().map(shown),
        path: run.path.as_ref().map(|_| path_full(run)),
        exit_code: run.exit,
        duration_seconds: run
            .duration
            .map(|d| (d.as_secs_f64() * 10.0).round() / 10.0),
        rows: run.rows,
        groups: run.groups.as_deref().map(cut),
        dropped_groups: cut(&run.dropped),
        fetched: run.fetched,
        log: run.log.as_ref().map(|_| log_path(run)),
        notes: run.notes.iter().map(|n| n.text.clone()).collect(),
    }
}

fn groups_text(run: &SideRun) -> String {
    match &run.groups {
        None if run.status == Status::Ok || run.status == Status::Failed => {
            "the whole suite".to_owned()
        }
        None => String::new(),
        Some(groups) => shown(&groups.join(", ")),
    }
}

fn summary(outcome: &Outcome) -> String {
    let mut s = String::from(
        "### Benchmarks run\n\n| side | commit | status | exit | seconds | rows | groups |\n|---|---|---|---|---|---|---|\n",
    );
    for (side, run) in outcome.sides() {
        let sha = run.sha.as_deref().map(shown).unwrap_or_default();
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} | {} |\n",
            side,
            md(sha.get(..12).unwrap_or(&sha)),
            run.status.name(),
            run.exit.map(|c| c.to_string()).unwrap_or_default(),
            seconds(run),
            run.rows.map(|r| r.to_string()).unwrap_or_default(),
            md(&groups_text(run)),
        ));
    }
    s.push_str(&format!(
        "\nThe baseline's results: **{}**.\n",
        outcome.baseline_source()
    ));
    if let Some(done) = &outcome.rounds {
        s.push_str(&super::manifest::summary(done));
    }
    for note in outcome.sides().iter().flat_map(|(_, r)| &r.notes) {
        let kind = if note.warning { "Warning" } else { "Note" };
        s.push_str(&format!("\n> **{kind}:** {}\n", md(&note.text)));
    }
    s
}

fn side_title(side: &str) -> &'static str {
    match side {
        "current" => "the change",
        "tag" => "the release tag",
        _ => "the baseline",
    }
}

impl Forms for Outcome {
    fn json(&self) -> String {
        let mut value = serde_json::json!({
            "schema": SCHEMA,
            "baseline_source": self.baseline_source(),
            "current": side_json("current", &self.current),
            "baseline": side_json("baseline", &self.baseline),
        });
        if let (Some(tag), Some(map)) = (&self.tag, value.as_object_mut()) {
            map.insert(
                "tag".to_owned(),
                serde_json::to_value(side_json("tag", tag)).unwrap_or_default(),
            );
        }
        if let (Some(done), Some(map)) = (&self.rounds, value.as_object_mut()) {
            map.insert(
                "rounds".to_owned(),
                super::manifest::json(done, self.manifest.as_deref()),
            );
        }
        value.to_string()
    }

    /// One line per side, then its notes.
    fn text(&self) -> LogText {
        let mut out = LogText::new();
        for (side, run) in self.sides() {
            let mut line = format!("{side}: {}", run.status.name());
            if let Some(sha) = &run.sha {
                line.push_str(&format!(" at {}", shown(sha)));
            }
            if let Some(code) = run.exit {
                line.push_str(&format!(", exit {code}"));
            }
            if run.duration.is_some() {
                line.push_str(&format!(", {} s", seconds(run)));
            }
            if let Some(rows) = run.rows {
                line.push_str(&format!(", {rows} rows"));
            }
            let groups = groups_text(run);
            if !groups.is_empty() {
                line.push_str(&format!(" ({groups})"));
            }
            if run.path.is_some() {
                line.push_str(&format!(" -> {}", path_text(run)));
            }
            out.push_line(&line);
            for note in &run.notes {
                let kind = if note.warning { "warning" } else { "note" };
                out.push_line(&format!("  {kind}: {}", note.text));
            }
        }
        let manifest = self.manifest.as_deref();
        for line in self
            .rounds
            .iter()
            .flat_map(|d| super::manifest::text(d, manifest))
        {
            out.push_line(&line);
        }
        out
    }

    /// For a runner: outputs, summary, annotations for every note (the
    /// text follows them in the log).
    fn actions(&self) -> Result<Rendered, EncodeError> {
        let mut rendered = Rendered {
            outputs: file_command::encode_all(step_outputs(self))?,
            ..Rendered::default()
        };
        file_command::encode(&mut rendered.outputs, "json", &self.json())?;
        rendered.summary = summary(self);
        for (side, run) in self.sides() {
            let title = format!("bench: {}", side_title(side));
            for note in &run.notes {
                let kind = if note.warning { "warning" } else { "notice" };
                rendered
                    .stdout
                    .push_command(kind, &[("title", &title)], &note.text);
            }
        }
        Ok(rendered)
    }
}
