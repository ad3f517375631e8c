//! `convert`: a harness's results file, read by its reader
//! (`table::formats`), written as the CSV, for dashboards and scripts
//! that want one shape. compare and trend do not need it: they read the
//! harness's files themselves.

pub mod args;

use std::fmt::Write as _;

use thiserror::Error;

use crate::config::Config;
use crate::runner::{self, CommandError, Env, Failure, exit, shown};
use crate::table::read::{Budget, Identity, read_with};
use crate::table::{Status, Table, TableError};
use args::ConvertArgs;

/// What stops a conversion, besides what stops every command
/// ([`CommandError`]): a results file that cannot be read, or `--output`
/// that cannot be written.
#[derive(Debug, Error)]
pub enum ConvertError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("{path}: cannot write: {source}")]
    Output {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl Failure for ConvertError {}

/// The command's one entry point: the file read and written as the CSV;
/// the exit code, or the error `runner::finish` says and ends on.
pub fn run(args: &ConvertArgs, env: Env<'_>) -> Result<u8, CommandError<ConvertError>> {
    work(&runner::Reader::given(env, &args.flags))?;
    Ok(exit::OK)
}

fn work(r: &runner::Reader<'_>) -> Result<(), CommandError<ConvertError>> {
    let named = r.typed(&args::RESULTS_FORMAT)?;
    let file = r.needed(&args::FILE, "no file: name the results file")?;
    let file = std::path::PathBuf::from(file.text);
    let config = Config::default();
    let budget = Budget::new(crate::table::files::MAX_TOTAL_BYTES);
    // The CSV written has no identity of the file: none is computed.
    let table = read_with(
        &file,
        &config.keys,
        &config.metrics,
        &budget,
        named,
        Identity::Unhashed,
    )
    .map_err(ConvertError::from)?;
    let (keys, metrics): (Vec<String>, Vec<String>) = match &table.schema {
        Some(s) => (
            s.keys.clone(),
            s.metrics.iter().map(|m| m.column.clone()).collect(),
        ),
        None => (
            config.keys,
            config.metrics.iter().map(|m| m.column.clone()).collect(),
        ),
    };
    let csv = render(&table, &keys, &metrics);
    let format = table.schema.as_ref().map_or("csv", |s| s.format.name());
    let samples: usize = table
        .rows()
        .filter_map(|r| r.measure().map(|(m, _)| r.samples(m).len().max(1)))
        .sum();
    let mut said = runner::log::LogText::new();
    said.push_line(&format!(
        "convert: {}: {format}, {} rows ({} valid), {samples} samples",
        shown(&file.display().to_string()),
        table.len(),
        table.valid_rows()
    ));
    runner::write::stderr(&said);
    match &r.path(&args::OUTPUT) {
        Some(path) => std::fs::write(path, csv).map_err(|source| {
            CommandError::Own(ConvertError::Output {
                path: path.clone(),
                source,
            })
        }),
        None => {
            runner::write::stdout(|out| {
                use runner::log::LogSink as _;
                csv.lines().try_for_each(|l| out.line(l))
            })?;
            Ok(())
        }
    }
}

/// The table as CSV: keys, metrics, status and the headline's number of
/// repetitions; cells quoted where they must be. Written straight into
/// one string (no list of cells a row, no copy of each cell).
pub fn render(table: &Table, keys: &[String], metrics: &[String]) -> String {
    let mut out = String::new();
    for (i, c) in keys.iter().chain(metrics).enumerate() {
        if i > 0 {
            out.push(',');
        }
        cell(&mut out, c);
    }
    out.push_str(",status,samples\n");
    for row in table.rows() {
        // The key's cells, as many as there are key columns (a key of
        // fewer is padded with empty cells), then the metrics'.
        let mut fields = row.key().fields();
        for i in 0..keys.len() {
            if i > 0 {
                out.push(',');
            }
            cell(&mut out, &fields.next().unwrap_or_default());
        }
        for m in 0..metrics.len() {
            if m > 0 || !keys.is_empty() {
                out.push(',');
            }
            if let Some(v) = row.value(m).filter(|_| row.valid()) {
                let _ = write!(out, "{v}");
            }
        }
        let status = match (row.status(), row.valid()) {
            (Status::Ok, true) => "ok",
            (Status::Skip, _) => "skip",
            _ => "failed",
        };
        let samples = row
            .measure()
            .map_or(0, |(m, _)| row.samples(m).len().max(1));
        let _ = writeln!(out, ",{status},{samples}");
    }
    out
}

/// A CSV cell appended to `out`: quoted when it holds a comma, a quote or
/// a line break.
fn cell(out: &mut String, text: &str) {
    if text.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&text.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(text);
    }
}
