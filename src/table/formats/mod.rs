//! The results that benchmark harnesses already write, read as they are:
//! one reader per format, each mapping the format's own notions to rows.
//! Every format's rows have the same two key columns ([`KEYS`]):
//! `benchmark` (the benchmark's name) and `params` (its parameters, empty
//! when it has none); its metrics are the format's (a time in nanoseconds,
//! lower is better; a rate, higher is better; a format's own declared
//! direction); every repetition the harness recorded is a sample of its
//! row, and the row's value is their median. docs/formats.md says, format
//! by format, what becomes a key, a metric and a sample.
//!
//! A format is found from the content ([`detect`]) or named
//! (`--results-format`). The CSV stays what it was: text that is no
//! harness's is read as the CSV the config describes.
//!
//! Every reader is bounded: the file's size (the CSV's limit), JSON
//! nesting (128 levels, serde_json's limit), at most [`MAX_SAMPLES`]
//! numbers per file, and a number that is not finite is refused with
//! where it is.

pub mod asv;
pub mod asv_cells;
pub mod bmf;
pub mod catch2;
pub mod collect;
pub mod criterion;
pub mod custom;
pub mod dotnet;
pub mod gbench;
pub mod gotest;
pub mod hyperfine;
pub mod jmh;
pub mod json;
pub mod libtest;
pub mod list;
pub mod nvbench;
pub mod pyperf;
pub mod pytest;
pub mod text;

use std::path::Path;

use super::{Table, TableError};
use crate::config::{Direction, Metric};

/// The key columns of every harness format's rows.
pub const KEYS: [&str; 2] = ["benchmark", "params"];

/// The most numbers (samples of every row and metric) one file may hold.
pub const MAX_SAMPLES: usize = 4_000_000;

/// A results format, as `--results-format` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The CSV a `bench.toml` describes.
    Csv,
    GoogleBenchmark,
    PytestBenchmark,
    Criterion,
    Pyperf,
    Hyperfine,
    GoTest,
    CargoBench,
    Asv,
    Nvbench,
    Catch2,
    Jmh,
    BenchmarkDotNet,
    /// The Bencher Metric Format.
    Bmf,
    /// The peer action's custom JSON, direction from each unit.
    Custom,
    /// The custom JSON named `customBiggerIsBetter`: every value higher is better.
    CustomBigger,
    /// The custom JSON named `customSmallerIsBetter`: every value lower is better.
    CustomSmaller,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 17] = [
        Format::GoogleBenchmark,
        Format::PytestBenchmark,
        Format::Asv,
        Format::Pyperf,
        Format::Hyperfine,
        Format::Criterion,
        Format::GoTest,
        Format::CargoBench,
        Format::Nvbench,
        Format::Catch2,
        Format::Jmh,
        Format::BenchmarkDotNet,
        Format::Bmf,
        Format::Custom,
        Format::CustomBigger,
        Format::CustomSmaller,
        Format::Csv,
    ];

    /// The name `--results-format` takes and messages show.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::GoogleBenchmark => "google-benchmark",
            Format::PytestBenchmark => "pytest-benchmark",
            Format::Criterion => "criterion",
            Format::Pyperf => "pyperf",
            Format::Hyperfine => "hyperfine",
            Format::GoTest => "go-test",
            Format::CargoBench => "cargo-bench",
            Format::Asv => "asv",
            Format::Nvbench => "nvbench",
            Format::Catch2 => "catch2",
            Format::Jmh => "jmh",
            Format::BenchmarkDotNet => "benchmarkdotnet",
            Format::Bmf => "bmf",
            Format::Custom => "custom",
            Format::CustomBigger => "customBiggerIsBetter",
            Format::CustomSmaller => "customSmallerIsBetter",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The format `--results-format` (or its action input) names, or a
    /// message naming every format there is.
    pub fn parse_name(name: &str) -> Result<Format, String> {
        Format::from_name(name.trim()).ok_or_else(|| {
            format!(
                "{:?} is not a format; the formats are {}",
                crate::runner::shown(name),
                Format::names()
            )
        })
    }

    /// Every name, for `--help` and messages.
    pub fn names() -> String {
        Format::ALL.map(Format::name).join(", ")
    }
}

/// The format of a file's content, when it is a harness's: JSON by its
/// top-level fields, text by its lines. `None` is text that is none of
/// them (read as the CSV, as before); a JSON document no reader knows is
/// [`Format::Csv`]'s refusal in [`parse`], which names what was tried.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    if matches!(first, b'{' | b'[') {
        return Some(json::detect(bytes));
    }
    if *first == b'<' && catch2::looks_like(bytes) {
        return Some(Format::Catch2);
    }
    if gotest::looks_like(bytes) {
        return Some(Format::GoTest);
    }
    if libtest::looks_like(bytes) {
        return Some(Format::CargoBench);
    }
    None
}

/// The rows of a harness's results file (a JSON document's entries, not
/// its lines), read whole within the results file's size limit; `None`
/// when `file` is no harness's (the CSV, whose rows its lines are) and
/// `Some(0)` when it is one but cannot be read. `named`
/// (`--results-format`) is the format rather than the content's.
pub fn rows_of(path: &Path, file: &mut std::fs::File, named: Option<Format>) -> Option<u64> {
    use std::io::{Read, Seek};
    if named == Some(Format::Csv) {
        return None;
    }
    let mut head = Vec::new();
    file.by_ref().take(4096).read_to_end(&mut head).ok()?;
    file.rewind().ok()?;
    let first = head.iter().find(|b| !b.is_ascii_whitespace())?;
    let harness = named.is_some() || matches!(first, b'{' | b'[' | b'<') || detect(&head).is_some();
    if !harness {
        return None;
    }
    let mut bytes = Vec::new();
    let limit = super::MAX_FILE_BYTES;
    file.by_ref()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    let rows = named
        .or_else(|| detect(&bytes))
        .filter(|_| u64::try_from(bytes.len()).is_ok_and(|n| n <= limit))
        .and_then(|format| parse(path, &bytes, format).ok())
        .map_or(0, |t| u64::try_from(t.len()).unwrap_or(u64::MAX));
    Some(rows)
}

/// Reads `bytes` as `format`; `path` names the file in errors. The file's
/// identity is the caller's (`read::read_with`).
pub fn parse(path: &Path, bytes: &[u8], format: Format) -> Result<Table, TableError> {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut table = match format {
        Format::GoogleBenchmark => gbench::parse(path, body),
        Format::PytestBenchmark => pytest::parse(path, body),
        Format::Pyperf => pyperf::parse(path, body),
        Format::Hyperfine => hyperfine::parse(path, body),
        Format::GoTest => gotest::parse(path, body),
        Format::CargoBench => libtest::parse(path, body),
        Format::Asv => asv::parse(path, body),
        Format::Nvbench => nvbench::parse(path, body),
        Format::Catch2 => catch2::parse(path, body),
        Format::Jmh => jmh::parse(path, body),
        Format::BenchmarkDotNet => dotnet::parse(path, body),
        Format::Bmf => bmf::parse(path, body),
        Format::Custom | Format::CustomBigger | Format::CustomSmaller => {
            custom::parse(path, body, format)
        }
        Format::Criterion => Err(TableError::Format {
            path: path.to_owned(),
            format: format.name(),
            at: "the path".to_owned(),
            message: "criterion's results are a directory (target/criterion), not a file"
                .to_owned(),
        }),
        Format::Csv => Err(TableError::UnknownFormat {
            path: path.to_owned(),
            tried: json::TRIED.to_owned(),
            why: json::why_unknown(body),
        }),
    }?;
    table.bytes = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    Ok(table)
}

/// A metric of a time, lower is better, in nanoseconds: the finest unit
/// harnesses write, so that no time shows as zero in the dashboard's
/// three decimals, and every format's times are in one unit.
pub fn time(column: &str) -> Metric {
    Metric {
        column: column.to_owned(),
        unit: "ns".to_owned(),
        direction: Direction::Lower,
    }
}

/// A metric whose direction its unit says: a rate (`/s`, `per second`)
/// is higher-is-better, anything else lower.
pub fn by_unit(column: &str, unit: &str) -> Metric {
    Metric {
        column: column.to_owned(),
        unit: unit.to_owned(),
        direction: direction_of(unit),
    }
}

/// Higher is better for a rate, lower for anything else (a time, a size,
/// a count).
pub fn direction_of(unit: &str) -> Direction {
    let u = unit.to_ascii_lowercase();
    let rate = u.ends_with("/s")
        || u.ends_with("/sec")
        || u.ends_with("/second")
        || u.contains("per second")
        || u.contains("per sec")
        || u.ends_with("ps") && !u.ends_with("steps")
        || u == "hz"
        || u.ends_with("/ms")
        || u.ends_with("/us")
        || u.ends_with("/ns");
    if rate {
        Direction::Higher
    } else {
        Direction::Lower
    }
}

/// Nanoseconds per `unit` for the time units harnesses write (`ns`, `us`,
/// `µs`, `ms`, `s`, and their long names).
pub fn nanos_per(unit: &str) -> Option<f64> {
    Some(match unit.trim() {
        "ns" | "nanosecond" | "nanoseconds" => 1.0,
        "us" | "µs" | "μs" | "microsecond" | "microseconds" => 1e3,
        "ms" | "millisecond" | "milliseconds" => 1e6,
        "s" | "sec" | "second" | "seconds" => 1e9,
        "min" | "m" => 60e9,
        "h" => 3600e9,
        _ => return None,
    })
}

#[cfg(test)]
mod tests;

/// `--results-format`, declared once for every command that reads results
/// (compare, trend, bench).
pub const RESULTS_FORMAT: crate::runner::Typed<Format> = crate::runner::Typed {
    input: crate::runner::Input::one(
        "results-format",
        &["INPUT_RESULTS_FORMAT"],
        "NAME",
        "The results format of every results file read, where the content does not say it \
         (customBiggerIsBetter or customSmallerIsBetter for the peer action's custom JSON); a \
         name from docs/formats.md.",
    )
    .said("found from each file's content"),
    parse: Format::parse_name,
};
