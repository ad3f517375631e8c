//! Reading a results file into a [`Table`].
//!
//! The file is read whole (bounded: [`MAX_FILE_BYTES`] each, and a budget
//! shared by every file of a run), a UTF-8 byte-order mark is dropped, and
//! the records go to one [`Builder`] whichever reader split them: the simple
//! reader (lines and commas, for the quote-free files benchmark scripts
//! write) or the csv crate (quoted cells). Nothing is reserved from a count
//! taken from the input: buffers grow with what is read.
//!
//! What makes the whole file unusable (unreadable, too large, a missing key
//! or metric column, a key twice, a key cell that is not UTF-8) is an error
//! naming the file and the line; a row cut short is an invalid row.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashTable;
use thiserror::Error;

use super::formats::{self, Format};
use super::{Status, Table, push_key};
use crate::config::Metric;
use crate::runner::read::{self, FileError};
use crate::runner::shown;

/// Result files are megabytes at most; anything larger is not one.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum TableError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{path}: the input files together are over the {limit}-byte limit of one comparison")]
    OverBudget { path: PathBuf, limit: u64 },
    #[error("{path} line 1: no {what} column {names} in the header {header:?}")]
    MissingColumn {
        path: PathBuf,
        what: &'static str,
        names: String,
        header: String,
    },
    #[error("{path} line {line}: the key {key} is already on line {first}")]
    DuplicateKey {
        path: PathBuf,
        line: u32,
        first: u32,
        key: String,
    },
    #[error("{path} line {line}: the key column {column} is not UTF-8 text")]
    NotUtf8 {
        path: PathBuf,
        line: u32,
        column: String,
    },
    #[error("{path} line {line}: not CSV: {message}")]
    Csv {
        path: PathBuf,
        line: u64,
        message: String,
    },
    /// A harness's file that its reader refuses: where (a JSON path, a
    /// line) and why.
    #[error("{path}: {format} results, {at}: {message}")]
    Format {
        path: PathBuf,
        format: &'static str,
        at: String,
        message: String,
    },
    #[error("{path}: not a results file of any known format (tried {tried}): {why}")]
    UnknownFormat {
        path: PathBuf,
        tried: String,
        why: String,
    },
    /// Files whose keys or metrics cannot be lined up with each other or
    /// with the config's.
    #[error("{path}: {message}")]
    Schema { path: PathBuf, message: String },
}

/// Bytes every input file of one comparison may hold together.
pub struct Budget {
    left: AtomicU64,
    limit: u64,
}

impl Budget {
    pub fn new(limit: u64) -> Budget {
        Budget {
            left: AtomicU64::new(limit),
            limit,
        }
    }

    /// Takes a file's `bytes` from the budget, or names the file that
    /// spent it.
    pub(crate) fn spend(&self, path: &Path, bytes: usize) -> Result<(), TableError> {
        if self.take(u64::try_from(bytes).unwrap_or(u64::MAX)) {
            return Ok(());
        }
        Err(TableError::OverBudget {
            path: path.to_owned(),
            limit: self.limit,
        })
    }

    /// Takes `bytes` from the budget, or says it is spent.
    fn take(&self, bytes: u64) -> bool {
        self.left
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                left.checked_sub(bytes)
            })
            .is_ok()
    }
}

/// Reads and parses one results file, its bytes taken from `budget`.
pub fn read(
    path: &Path,
    keys: &[String],
    metrics: &[Metric],
    budget: &Budget,
) -> Result<Table, TableError> {
    read_as(path, keys, metrics, budget, None)
}

/// Whether a read computes the file's identity ([`Table::sha256`]):
/// compare reports it (users check it with sha256sum), so compare's reads
/// hash every byte; a command that never shows it (convert) leaves it out,
/// SHA-256 being as much of the time as the parse of a large harness file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity {
    Sha256,
    Unhashed,
}

/// [`read`], the format named (`--results-format`) rather than found from
/// the content. A directory is criterion's tree.
pub fn read_as(
    path: &Path,
    keys: &[String],
    metrics: &[Metric],
    budget: &Budget,
    named: Option<Format>,
) -> Result<Table, TableError> {
    read_with(path, keys, metrics, budget, named, Identity::Sha256)
}

/// [`read_as`], the file's SHA-256 computed only when `identity` asks
/// (otherwise [`Table::sha256`] is empty).
pub fn read_with(
    path: &Path,
    keys: &[String],
    metrics: &[Metric],
    budget: &Budget,
    named: Option<Format>,
    identity: Identity,
) -> Result<Table, TableError> {
    if path.is_dir() {
        return formats::criterion::read(path, budget, identity);
    }
    let bytes = read::bounded("results file", path, MAX_FILE_BYTES)?;
    if !budget.take(u64::try_from(bytes.len()).unwrap_or(u64::MAX)) {
        return Err(TableError::OverBudget {
            path: path.to_owned(),
            limit: budget.limit,
        });
    }
    // Detection's `Csv` is a JSON document no reader knows (refused,
    // naming what was tried); text that is no harness's is the CSV.
    let mut table = match named.map_or_else(|| formats::detect(&bytes), Some) {
        None => parse(path, &bytes, keys, metrics),
        Some(Format::Csv) if named.is_some() => parse(path, &bytes, keys, metrics),
        Some(format) => formats::parse(path, &bytes, format),
    }?;
    if identity == Identity::Sha256 {
        table.sha256 = hex(&openssl::sha::sha256(&bytes));
    }
    Ok(table)
}

/// Parses results; `path` only names the source in errors. The file's
/// identity is the caller's ([`read_with`]).
pub fn parse(
    path: &Path,
    bytes: &[u8],
    keys: &[String],
    metrics: &[Metric],
) -> Result<Table, TableError> {
    let mut table = Table::new(path.to_owned(), metrics.len());
    table.bytes = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut builder = Builder::new(table, keys, metrics);
    match simple(bytes) {
        Some(text) => read_simple(text, &mut builder)?,
        None => read_csv(bytes, &mut builder)?,
    }
    builder.finish()
}

pub(crate) fn hex(digest: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(digest.len().saturating_mul(2));
    for b in digest {
        for nibble in [b >> 4, b & 0xf] {
            out.push(char::from(
                DIGITS.get(usize::from(nibble)).copied().unwrap_or(b'0'),
            ));
        }
    }
    out
}

/// Where the columns the comparison reads are.
struct Columns {
    /// Fields in the header: a row with fewer was cut short.
    fields: usize,
    keys: Vec<usize>,
    /// `None` for a configured metric this file does not have.
    metrics: Vec<Option<usize>>,
    status: Option<usize>,
}

impl Columns {
    fn find(
        path: &Path,
        header: &[&str],
        keys: &[String],
        metrics: &[Metric],
    ) -> Result<Columns, TableError> {
        let position = |name: &str| header.iter().position(|n| n.eq_ignore_ascii_case(name));
        let missing = |what, wanted: Vec<&str>| TableError::MissingColumn {
            path: path.to_owned(),
            what,
            names: wanted.join(" or "),
            header: shown(&header.join(",").to_ascii_lowercase()),
        };
        let mut key_columns = Vec::new();
        for key in keys {
            key_columns.push(position(key).ok_or_else(|| missing("key", vec![key.as_str()]))?);
        }
        let metric_columns: Vec<Option<usize>> =
            metrics.iter().map(|m| position(&m.column)).collect();
        if metric_columns.iter().all(Option::is_none) {
            return Err(missing(
                "metric",
                metrics.iter().map(|m| m.column.as_str()).collect(),
            ));
        }
        Ok(Columns {
            fields: header.len(),
            keys: key_columns,
            metrics: metric_columns,
            status: position("status"),
        })
    }
}

/// Builds a table record by record, whichever reader splits the file.
struct Builder<'a> {
    table: Table,
    keys: &'a [String],
    metrics: &'a [Metric],
    columns: Option<Columns>,
    /// Row numbers by key, to refuse a key twice.
    seen: HashTable<u32>,
    values: Vec<f64>,
}

impl<'a> Builder<'a> {
    fn new(table: Table, keys: &'a [String], metrics: &'a [Metric]) -> Builder<'a> {
        Builder {
            table,
            keys,
            metrics,
            columns: None,
            seen: HashTable::new(),
            values: Vec::with_capacity(metrics.len()),
        }
    }

    /// The first record is the header; a record of blanks is no record.
    fn record(&mut self, line: u32, cells: &[&str]) -> Result<(), TableError> {
        let Some(columns) = &self.columns else {
            self.columns = Some(Columns::find(
                &self.table.path,
                cells,
                self.keys,
                self.metrics,
            )?);
            return Ok(());
        };
        if cells.iter().all(|c| c.trim_ascii().is_empty()) {
            return Ok(());
        }
        let key_start = self.table.key_buffer().len();
        push_key(
            self.table.key_buffer(),
            columns
                .keys
                .iter()
                .map(|&i| cells.get(i).copied().unwrap_or_default()),
        );
        let (status, headline, reason) = judge(cells, columns, self.metrics, &mut self.values);
        let index = self.table.push(
            key_start,
            line,
            status,
            headline,
            &self.values,
            reason.as_deref(),
        );
        self.check_unique(index)
    }

    /// Refuses a key already in the table.
    fn check_unique(&mut self, index: usize) -> Result<(), TableError> {
        let table = &self.table;
        let Some(row) = table.row(index) else {
            return Ok(());
        };
        let text = row.key().joined();
        let same = |other: &u32| {
            usize::try_from(*other).ok().and_then(|o| table.key_text(o)) == Some(text)
        };
        if let Some(first) = self.seen.find(row.hash(), same) {
            let first = table
                .row(usize::try_from(*first).unwrap_or(0))
                .map_or(0, |r| r.line());
            return Err(TableError::DuplicateKey {
                path: table.path.clone(),
                line: row.line(),
                first,
                key: shown(&row.key().describe(self.keys)),
            });
        }
        let hash_of = |i: &u32| usize::try_from(*i).map_or(0, |i| table.hash(i));
        let hash = row.hash();
        self.seen
            .insert_unique(hash, u32::try_from(index).unwrap_or(u32::MAX), hash_of);
        Ok(())
    }

    fn finish(mut self) -> Result<Table, TableError> {
        if self.columns.is_none() {
            Columns::find(&self.table.path, &[], self.keys, self.metrics)?;
        }
        drop(self.seen);
        self.table.seal();
        Ok(self.table)
    }
}

/// A row's status, headline metric and, when it is not valid, why; the
/// value of every metric goes to `values`.
fn judge(
    cells: &[&str],
    columns: &Columns,
    metrics: &[Metric],
    values: &mut Vec<f64>,
) -> (Status, Option<usize>, Option<String>) {
    values.clear();
    let mut headline: Option<(usize, f64)> = None;
    for column in &columns.metrics {
        let number = column
            .and_then(|c| cells.get(c))
            .and_then(|text| text.parse::<f64>().ok());
        if headline.is_none()
            && let Some(v) = number
        {
            headline = Some((values.len(), v));
        }
        values.push(
            number
                .filter(|v| v.is_finite() && *v > 0.0)
                .unwrap_or(f64::NAN),
        );
    }
    let status = columns
        .status
        .map(|i| cells.get(i).copied().unwrap_or_default());
    if cells.len() < columns.fields {
        let why = format!(
            "the row is cut short ({} of {} fields)",
            cells.len(),
            columns.fields
        );
        return (Status::Failed, None, Some(why));
    }
    match status {
        Some("ok") | None => {}
        Some("skip") => return (Status::Skip, None, Some("status is \"skip\"".to_owned())),
        Some("") => return (Status::Failed, None, Some("status is empty".to_owned())),
        Some(other) => {
            return (
                Status::Failed,
                None,
                Some(format!("status is {:?}", shown(other))),
            );
        }
    }
    match headline {
        Some((m, v)) if v.is_finite() && v > 0.0 => (Status::Ok, Some(m), None),
        Some((m, v)) => {
            let name = metrics.get(m).map_or("metric", |m| m.column.as_str());
            let why = format!("{name} is {v}, not a positive finite number");
            (Status::Ok, None, Some(why))
        }
        None => (Status::Ok, None, Some(no_metric(cells, columns, metrics))),
    }
}

/// Why no metric cell held a number, cell by cell (only for invalid rows).
fn no_metric(cells: &[&str], columns: &Columns, metrics: &[Metric]) -> String {
    let mut seen = Vec::new();
    for (metric, column) in columns.metrics.iter().enumerate() {
        let Some(column) = column else { continue };
        let name = metrics.get(metric).map_or("metric", |m| m.column.as_str());
        seen.push(match cells.get(*column) {
            None => format!("{name} is missing"),
            Some(&"") => format!("{name} is empty"),
            Some(text) => format!("{name} is {:?}", shown(text)),
        });
    }
    seen.join(", ")
}

/// Text the simple reader can split exactly as a CSV reader would: UTF-8,
/// no quotes, and no carriage return but before a line feed.
fn simple(bytes: &[u8]) -> Option<&str> {
    let plain = memchr::memchr(b'"', bytes).is_none()
        && memchr::memchr_iter(b'\r', bytes)
            .all(|i| bytes.get(i.saturating_add(1)) == Some(&b'\n'));
    plain.then(|| std::str::from_utf8(bytes).ok()).flatten()
}

/// The simple reader: lines and commas. Benchmark results are almost always
/// this simple, and it is several times quicker than a general CSV reader.
fn read_simple(text: &str, builder: &mut Builder<'_>) -> Result<(), TableError> {
    let mut cells: Vec<&str> = Vec::with_capacity(16);
    for (index, line) in split_ascii(text, b'\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        cells.clear();
        for cell in split_ascii(line, b',') {
            cells.push(cell.trim_ascii());
        }
        let number = u32::try_from(index).unwrap_or(u32::MAX).saturating_add(1);
        builder.record(number, &cells)?;
    }
    Ok(())
}

/// `text.split(separator)` for an ASCII separator, by vectorised byte
/// search: `str::split` by a char compares every match with `memcmp`, a
/// third of the reading time on a large file. Cutting at an ASCII byte
/// keeps UTF-8 whole.
fn split_ascii(text: &str, separator: u8) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = Some(0usize);
    std::iter::from_fn(move || {
        let from = start?;
        let rest = bytes.get(from..)?;
        match memchr::memchr(separator, rest) {
            Some(at) => {
                let end = from.saturating_add(at);
                start = Some(end.saturating_add(1));
                text.get(from..end)
            }
            None => {
                start = None;
                text.get(from..)
            }
        }
    })
}

/// The general reader (quoted cells, text that is not UTF-8), for whatever
/// the simple one cannot split. Line numbers are counted from the bytes: a
/// quoted cell may hold line breaks. A key cell must be UTF-8 (two keys
/// must never become one); any other cell is read lossily.
fn read_csv(bytes: &[u8], builder: &mut Builder<'_>) -> Result<(), TableError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(false)
        .from_reader(bytes);
    let (mut line, mut counted) = (1u64, 0usize);
    let mut line_at = |offset: usize| {
        let upto = bytes
            .get(counted..offset.min(bytes.len()))
            .unwrap_or_default();
        line = line.saturating_add(
            u64::try_from(upto.iter().filter(|b| **b == b'\n').count()).unwrap_or(0),
        );
        counted = offset.max(counted);
        line
    };
    let mut record = csv::ByteRecord::new();
    loop {
        let more = reader
            .read_byte_record(&mut record)
            .map_err(|e| TableError::Csv {
                path: builder.table.path.clone(),
                line: e.position().map_or(0, |p| p.line()),
                message: e.to_string(),
            })?;
        if !more {
            return Ok(());
        }
        // The reader may report a record as starting at the line break
        // before it (with CRLF): its line is that of its first character.
        let offset = record
            .position()
            .map_or(0, |p| usize::try_from(p.byte()).unwrap_or(0));
        let first = bytes
            .get(offset..)
            .and_then(|rest| rest.iter().position(|b| *b != b'\r' && *b != b'\n'))
            .map_or(bytes.len(), |p| offset.saturating_add(p));
        let number = u32::try_from(line_at(first)).unwrap_or(u32::MAX);
        let texts = decode(&record, number, builder)?;
        let cells: Vec<&str> = texts.iter().map(|c| c.trim_ascii()).collect();
        builder.record(number, &cells)?;
    }
}

/// A record's cells as text: key cells (and the header) must be UTF-8.
fn decode<'r>(
    record: &'r csv::ByteRecord,
    line: u32,
    builder: &Builder<'_>,
) -> Result<Vec<std::borrow::Cow<'r, str>>, TableError> {
    record
        .iter()
        .enumerate()
        .map(|(i, cell)| match std::str::from_utf8(cell) {
            Ok(text) => Ok(text.into()),
            Err(_) => {
                let is_key = builder.columns.as_ref().is_none_or(|c| c.keys.contains(&i));
                if is_key {
                    let column = builder.columns.as_ref().map_or_else(
                        || format!("{} of the header", i.saturating_add(1)),
                        |c| {
                            let k = c.keys.iter().position(|k| *k == i).unwrap_or(0);
                            builder.keys.get(k).cloned().unwrap_or_default()
                        },
                    );
                    Err(TableError::NotUtf8 {
                        path: builder.table.path.clone(),
                        line,
                        column,
                    })
                } else {
                    Ok(String::from_utf8_lossy(cell))
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
