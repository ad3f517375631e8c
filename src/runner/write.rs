//! Writing a command's rendered answer: everything is rendered into memory
//! first, so an answer that cannot be encoded leaves `GITHUB_OUTPUT`
//! untouched; then the step outputs are appended, then the job summary, then
//! the log. Outputs are what later steps need: a summary that cannot be
//! written is a warning, not a failed step.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::file_command::EncodeError;
use super::format::Format;
use super::log::{LogSink, LogStream, LogText};

/// The most a step output holds: a later step reads it through an
/// expression, and the runner keeps it in memory.
pub const OUTPUT_LIMIT: usize = 1024 * 1024;

/// A step output listing rows: `render(rows)` with `rows` halved from
/// `start` until it fits [`OUTPUT_LIMIT`] (or lists none).
pub fn fewer_rows_to_fit(start: usize, render: impl Fn(usize) -> String) -> String {
    let mut rows = start;
    loop {
        let text = render(rows);
        if text.len() <= OUTPUT_LIMIT || rows == 0 {
            return text;
        }
        rows /= 2;
    }
}

/// GitHub refuses a step summary over 1 MiB (and shows none of it).
pub const SUMMARY_LIMIT: usize = 1024 * 1024;

/// Why an answer could not be written: its step outputs cannot be
/// encoded, or a file (or stdout) refused the write.
#[derive(Debug, Error)]
pub enum WriteError {
    #[error("cannot encode the step outputs: {0}")]
    Encode(#[from] EncodeError),
    #[error(
        "--format github writes step outputs to the file named by GITHUB_OUTPUT, which is not set (use --format text or json outside a runner)"
    )]
    NoOutputFile,
    #[error("cannot write {what} {path}: {source}")]
    File {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a command writes for a runner, rendered before anything is written.
#[derive(Debug, Default)]
pub struct Rendered {
    /// `GITHUB_OUTPUT` entries, already encoded.
    pub outputs: String,
    /// Markdown for `GITHUB_STEP_SUMMARY`.
    pub summary: String,
    /// The log: annotations and plain lines.
    pub stdout: LogText,
}

/// Where the runner wants outputs and the summary (`GITHUB_OUTPUT`,
/// `GITHUB_STEP_SUMMARY`).
#[derive(Debug, Clone, Default)]
pub struct RunnerFiles {
    pub output: Option<PathBuf>,
    pub summary: Option<PathBuf>,
}

impl RunnerFiles {
    pub fn from_env(reader: &super::Reader<'_>) -> RunnerFiles {
        RunnerFiles {
            output: reader.var("GITHUB_OUTPUT").map(PathBuf::from),
            summary: reader.var("GITHUB_STEP_SUMMARY").map(PathBuf::from),
        }
    }
}

pub fn append(what: &'static str, path: &Path, text: &str) -> Result<(), WriteError> {
    let write_err = |source| WriteError::File {
        what,
        path: path.to_owned(),
        source,
    };
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(write_err)?;
    file.write_all(text.as_bytes()).map_err(write_err)
}

/// The summary cut at a line break to fit [`SUMMARY_LIMIT`], saying so.
pub fn fit_summary(summary: &str) -> std::borrow::Cow<'_, str> {
    const NOTE: &str = "\n\n*(cut here: GitHub shows at most 1 MiB of a step summary)*\n";
    if summary.len() <= SUMMARY_LIMIT {
        return summary.into();
    }
    let room = SUMMARY_LIMIT.saturating_sub(NOTE.len());
    let mut end = room;
    while !summary.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    let head = summary.get(..end).unwrap_or_default();
    let head = head
        .rfind('\n')
        .map_or(head, |at| head.get(..at).unwrap_or(head));
    format!("{head}{NOTE}").into()
}

/// A command's answer in the forms `--format` chooses between, each
/// rendered by the command; [`emit`] writes the one asked for.
pub trait Forms {
    /// `--format json`: the answer as one JSON object.
    fn json(&self) -> String;
    /// `--format text`: the answer for a person.
    fn text(&self) -> LogText;
    /// `--format github`: the step outputs, the job summary and the
    /// annotations.
    fn actions(&self) -> Result<Rendered, EncodeError>;
    /// The text form as it is written: [`Forms::text`], unless the command
    /// streams a text too long to hold whole (compare's rows).
    fn write_text(&self, log: &mut dyn LogSink) -> io::Result<()> {
        log.append(&self.text())
    }
    /// What the runner's log shows after the annotations under `--format
    /// github`: the text form, unless the command's annotations already
    /// say all of it.
    fn log(&self, log: &mut dyn LogSink) -> io::Result<()> {
        self.write_text(log)
    }
}

/// Writes a command's answer in the form asked for: JSON or text on
/// stdout; for a runner, the outputs first, then the summary (a failure
/// there becomes a warning in the log), then the log (the annotations,
/// [`Forms::log`], that warning). The outputs and the summary are rendered
/// before anything is written.
pub fn emit(format: Format, files: &RunnerFiles, answer: &impl Forms) -> Result<(), WriteError> {
    match format {
        Format::Json => stdout(|log| log.json(&answer.json())),
        Format::Text => stdout(|log| answer.write_text(log)),
        Format::Github => {
            let rendered = answer.actions()?;
            let summary_warning = outputs_and_summary(files, &rendered)?;
            stdout(|log| {
                log.append(&rendered.stdout)?;
                answer.log(log)?;
                log.append(&summary_warning)
            })
        }
    }
}

/// The first two writes for a runner: the outputs, then the summary.
/// Returns what the log should say about a summary that could not be
/// written (empty when it was).
fn outputs_and_summary(files: &RunnerFiles, rendered: &Rendered) -> Result<LogText, WriteError> {
    let output = files.output.as_deref().ok_or(WriteError::NoOutputFile)?;
    append("GITHUB_OUTPUT", output, &rendered.outputs)?;
    let mut warning = LogText::new();
    if let Some(path) = files.summary.as_deref()
        && let Err(err) = append("GITHUB_STEP_SUMMARY", path, &fit_summary(&rendered.summary))
    {
        warning.push_command(
            "warning",
            &[("title", "Job summary not written")],
            &err.to_string(),
        );
    }
    Ok(warning)
}

/// Writes the log to a buffered stdout line by line, as it is formed: a
/// log of a hundred thousand lines is never held whole in memory. Every
/// line goes through [`LogSink`], so none is read as a command it was not
/// meant to be. A closed stdout (`| head`) is not worth failing an answer
/// over.
#[expect(
    clippy::disallowed_methods,
    reason = "the one writer of stdout (clippy.toml)"
)]
pub fn stdout(
    write: impl FnOnce(&mut LogStream<'_>) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = write(&mut LogStream::new(&mut out));
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(WriteError::File {
            what: "stdout",
            path: "-".into(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// Lines on stderr (an error message), each made safe like every log line.
#[expect(
    clippy::disallowed_methods,
    reason = "the one writer of stderr (clippy.toml)"
)]
pub fn stderr(lines: &LogText) {
    let _ = std::io::stderr()
        .lock()
        .write_all(lines.as_str().as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_over_the_limit_is_cut_at_a_line_and_says_so() {
        let line = "| row | é |\n";
        let big = line.repeat(SUMMARY_LIMIT / line.len() + 10);
        let cut = fit_summary(&big);
        assert!(cut.len() <= SUMMARY_LIMIT, "{}", cut.len());
        assert!(cut.ends_with("step summary)*\n"));
        assert!(cut.contains("| row | é |\n\n*(cut here"));
        assert_eq!(fit_summary("small\n"), "small\n");
    }
}
