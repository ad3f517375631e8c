//! Benchmark results as the benchmark scripts write them: CSV with a header,
//! key columns (`op,shape,dtype`), metric columns (`tflops`, `tbps`) and an
//! optional `status`.
//!
//! A row is valid when its status (if there is one) is `ok` and its headline
//! metric (the first configured metric that holds a number) is finite and
//! above zero; an invalid row is kept with the reason, because "this
//! benchmark failed in the baseline" is a result too. A row cut short (a
//! suite killed mid-write) is an invalid row, not a broken file. What makes
//! the whole file unusable (unreadable, over 64 MiB, a missing key or metric
//! column, a key twice) is an error naming the file and the line.
//! See `../shared/context/motivating-workflow.md`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use thiserror::Error;

use super::config::Metric;
use crate::runner::read::{self, ReadError};
use crate::runner::shown;

/// Result files are megabytes at most; anything larger is not one.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum TableError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is {size} bytes, over the {MAX_FILE_BYTES}-byte limit")]
    TooLarge { path: PathBuf, size: u64 },
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
        line: u64,
        first: u64,
        key: String,
    },
    #[error("{path} line {line}: not CSV: {message}")]
    Csv {
        path: PathBuf,
        line: u64,
        message: String,
    },
}

/// The values of the key columns of one row. One shared allocation: the
/// cells joined by the unit separator (a control character in a cell is
/// read as a space, so no cell holds one), cloned by reference count (files
/// are read on threads of their own), with its hash computed once: every
/// key is hashed into several maps.
#[derive(Debug, Clone)]
pub struct Key {
    text: Arc<str>,
    hash: u64,
}

const SEPARATOR: char = '\u{1f}';

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Eq for Key {}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl Key {
    pub fn new<'a>(cells: impl IntoIterator<Item = &'a str>) -> Key {
        let mut joined = String::with_capacity(48);
        Key::join(&mut joined, cells);
        Key::from_joined(&joined)
    }

    /// Joins `cells` into `buffer` (cleared first), as a key holds them.
    fn join<'a>(buffer: &mut String, cells: impl IntoIterator<Item = &'a str>) {
        buffer.clear();
        for (i, cell) in cells.into_iter().enumerate() {
            if i > 0 {
                buffer.push(SEPARATOR);
            }
            if cell.bytes().all(|b| b.is_ascii() && !b.is_ascii_control()) {
                buffer.push_str(cell);
            } else {
                buffer.extend(cell.chars().map(|c| if c.is_control() { ' ' } else { c }));
            }
        }
    }

    fn from_joined(joined: &str) -> Key {
        use std::hash::BuildHasher;
        Key {
            hash: rustc_hash::FxBuildHasher.hash_one(joined),
            text: Arc::from(joined),
        }
    }

    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.text.split(SEPARATOR)
    }

    /// The first two fields, and the rest (joined by `,` when several).
    pub fn dashboard_fields(&self) -> (&str, &str, std::borrow::Cow<'_, str>) {
        let mut parts = self.text.splitn(3, SEPARATOR);
        let (first, second) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let rest = parts.next().unwrap_or("");
        let rest = if rest.contains(SEPARATOR) {
            rest.replace(SEPARATOR, ",").into()
        } else {
            rest.into()
        };
        (first, second, rest)
    }

    /// `op=softmax,shape=32768x8192,dtype=bf16`.
    pub fn describe(&self, columns: &[String]) -> String {
        columns
            .iter()
            .zip(self.fields())
            .map(|(c, v)| format!("{c}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// A valid row's headline measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measure {
    pub value: f64,
    /// Index of the metric (in the configured order) that held it.
    pub metric: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub key: Key,
    /// The line of the file, for messages.
    pub line: u64,
    /// The measurement, or why the row is not valid.
    pub measure: Result<Measure, String>,
    /// `status` is `skip`: the benchmark chose not to run.
    pub skipped: bool,
}

/// One results file.
#[derive(Debug, Clone)]
pub struct Table {
    pub path: PathBuf,
    /// Hex SHA-256 of the file as read.
    pub sha256: String,
    pub rows: Vec<Row>,
}

impl Table {
    pub fn valid_rows(&self) -> usize {
        self.rows.iter().filter(|r| r.measure.is_ok()).count()
    }
}

/// Reads and parses one results file.
pub fn read(path: &Path, keys: &[String], metrics: &[Metric]) -> Result<Table, TableError> {
    let bytes = read::bounded(path, MAX_FILE_BYTES).map_err(|err| match err {
        ReadError::Io(source) => TableError::Read {
            path: path.to_owned(),
            source,
        },
        ReadError::TooLarge { size } => TableError::TooLarge {
            path: path.to_owned(),
            size,
        },
    })?;
    parse(path, &bytes, keys, metrics)
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
        let names: Vec<String> = header.iter().map(|h| h.to_ascii_lowercase()).collect();
        let position = |name: &str| names.iter().position(|n| n.eq_ignore_ascii_case(name));
        let missing = |what, wanted: Vec<&str>| TableError::MissingColumn {
            path: path.to_owned(),
            what,
            names: wanted.join(" or "),
            header: shown(&names.join(",")),
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
    path: &'a Path,
    keys: &'a [String],
    metrics: &'a [Metric],
    columns: Option<Columns>,
    rows: Vec<Row>,
    seen: FxHashMap<Key, u64>,
    buffer: String,
}

impl<'a> Builder<'a> {
    fn new(path: &'a Path, lines: usize, keys: &'a [String], metrics: &'a [Metric]) -> Builder<'a> {
        // A row a line at most: reserve once instead of growing (and
        // copying) a few megabytes of rows.
        let estimate = lines.saturating_add(1);
        Builder {
            path,
            keys,
            metrics,
            columns: None,
            rows: Vec::with_capacity(estimate),
            seen: FxHashMap::with_capacity_and_hasher(estimate, Default::default()),
            buffer: String::with_capacity(64),
        }
    }

    /// The first record is the header; a record of blanks is no record.
    fn record(&mut self, line: u64, cells: &[&str]) -> Result<(), TableError> {
        let Some(columns) = &self.columns else {
            self.columns = Some(Columns::find(self.path, cells, self.keys, self.metrics)?);
            return Ok(());
        };
        if cells.iter().all(|c| c.trim_ascii().is_empty()) {
            return Ok(());
        }
        let row = row(cells, line, columns, self.metrics, &mut self.buffer);
        if let Some(first) = self.seen.insert(row.key.clone(), line) {
            return Err(TableError::DuplicateKey {
                path: self.path.to_owned(),
                line,
                first,
                key: shown(&row.key.describe(self.keys)),
            });
        }
        self.rows.push(row);
        Ok(())
    }

    fn finish(self, sha256: String) -> Result<Table, TableError> {
        if self.columns.is_none() {
            Columns::find(self.path, &[], self.keys, self.metrics)?;
        }
        Ok(Table {
            path: self.path.to_owned(),
            sha256,
            rows: self.rows,
        })
    }
}

/// Text the simple reader can split exactly as a CSV reader would: no
/// quotes, and no carriage return but before a line feed.
fn simple(bytes: &[u8]) -> Option<&str> {
    let plain = !bytes.contains(&b'"')
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| *b != b'\r' || bytes.get(i.saturating_add(1)) == Some(&b'\n'));
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
        cells.extend(split_ascii(line, b',').map(str::trim_ascii));
        let number = u64::try_from(index).unwrap_or(u64::MAX).saturating_add(1);
        builder.record(number, &cells)?;
    }
    Ok(())
}

/// `text.split(separator)` for an ASCII separator, on bytes: `str::split`
/// by a char compares every match with `memcmp`, a third of the reading
/// time on a large file. Cutting at an ASCII byte keeps UTF-8 whole.
fn split_ascii(text: &str, separator: u8) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = Some(0usize);
    std::iter::from_fn(move || {
        let from = start?;
        let rest = bytes.get(from..)?;
        match rest.iter().position(|b| *b == separator) {
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

/// The general reader (quoted cells), for whatever the simple one cannot
/// split. Line numbers are counted from the bytes: a quoted cell may hold
/// line breaks.
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
                path: builder.path.to_owned(),
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
        let number = line_at(first);
        let cells: Vec<&str> = record
            .iter()
            .map(|c| std::str::from_utf8(c).map_or("", str::trim_ascii))
            .collect();
        builder.record(number, &cells)?;
    }
}

/// Parses results; `path` only names the source in errors.
pub fn parse(
    path: &Path,
    bytes: &[u8],
    keys: &[String],
    metrics: &[Metric],
) -> Result<Table, TableError> {
    let sha256 = openssl::sha::sha256(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let lines = bytes.iter().filter(|b| **b == b'\n').count();
    let mut builder = Builder::new(path, lines, keys, metrics);
    match simple(bytes) {
        Some(text) => read_simple(text, &mut builder)?,
        None => read_csv(bytes, &mut builder)?,
    }
    builder.finish(sha256)
}

fn cell<'a>(cells: &[&'a str], index: usize) -> Option<&'a str> {
    cells.get(index).copied()
}

fn row(
    record: &[&str],
    line: u64,
    columns: &Columns,
    metrics: &[Metric],
    buffer: &mut String,
) -> Row {
    Key::join(
        buffer,
        columns
            .keys
            .iter()
            .map(|&i| cell(record, i).unwrap_or_default()),
    );
    let key = Key::from_joined(buffer);
    let status = columns.status.map(|i| cell(record, i).unwrap_or_default());
    let skipped = status == Some("skip");
    let measure = match status {
        _ if record.len() < columns.fields => Err(format!(
            "the row is cut short ({} of {} fields)",
            record.len(),
            columns.fields
        )),
        Some("ok") | None => measure(record, columns, metrics),
        Some("") => Err("status is empty".to_owned()),
        Some(other) => Err(format!("status is {:?}", shown(other))),
    };
    Row {
        key,
        line,
        measure,
        skipped,
    }
}

/// The headline metric: the first configured metric whose cell holds a
/// number; invalid unless that number is finite and above zero.
fn measure(record: &[&str], columns: &Columns, metrics: &[Metric]) -> Result<Measure, String> {
    for (metric, column) in columns.metrics.iter().enumerate() {
        let Some(text) = column.and_then(|c| cell(record, c)) else {
            continue;
        };
        if let Ok(value) = text.parse::<f64>() {
            if value.is_finite() && value > 0.0 {
                return Ok(Measure { value, metric });
            }
            let name = metrics.get(metric).map_or("metric", |m| m.column.as_str());
            return Err(format!("{name} is {value}, not a positive finite number"));
        }
    }
    Err(no_metric(record, columns, metrics))
}

/// Why no metric cell held a number, cell by cell (only for invalid rows).
fn no_metric(record: &[&str], columns: &Columns, metrics: &[Metric]) -> String {
    let mut seen = Vec::new();
    for (metric, column) in columns.metrics.iter().enumerate() {
        let Some(column) = column else { continue };
        let name = metrics.get(metric).map_or("metric", |m| m.column.as_str());
        seen.push(match cell(record, *column) {
            None => format!("{name} is missing"),
            Some("") => format!("{name} is empty"),
            Some(text) => format!("{name} is {:?}", shown(text)),
        });
    }
    seen.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::config::Config;

    fn table(text: &str) -> Result<Table, TableError> {
        let config = Config::default();
        parse(
            Path::new("t.csv"),
            text.as_bytes(),
            &config.keys,
            &config.metrics,
        )
    }

    #[test]
    fn tflops_when_it_holds_a_number_else_tbps() {
        let t = table(
            "op,shape,dtype,tbps,tflops,status\n\
             softmax,32768x8192,bf16,3.938,-,ok\n\
             gemm,8192x8192,bf16,-,812.5,ok\n\
             mla,1x128,fp8,-,-,missing\n\
             rms,1x1,bf16,,,ok\n\
             skipme,1x1,bf16,-,-,skip\n\
             cut,1x1,bf16\n\
             zero,1x1,bf16,0,-,ok\n",
        )
        .unwrap();
        let m: Vec<_> = t.rows.iter().map(|r| r.measure.clone()).collect();
        assert_eq!(
            m[0],
            Ok(Measure {
                value: 3.938,
                metric: 1
            })
        );
        assert_eq!(
            m[1],
            Ok(Measure {
                value: 812.5,
                metric: 0
            })
        );
        assert_eq!(m[2], Err("status is \"missing\"".to_owned()));
        assert_eq!(m[3], Err("tflops is empty, tbps is empty".to_owned()));
        assert!(t.rows[4].skipped && m[4].is_err());
        assert!(
            m[5].as_ref().unwrap_err().contains("cut short"),
            "{:?}",
            m[5]
        );
        assert!(
            m[6].as_ref().unwrap_err().contains("not a positive"),
            "{:?}",
            m[6]
        );
        assert_eq!(t.rows[1].line, 3);
        assert_eq!(t.valid_rows(), 2);
    }

    /// The simple reader splits a file exactly as the CSV reader does,
    /// line numbers included: generated files with blank lines, CRLF, short
    /// and long rows, spaces, failed rows.
    #[test]
    fn the_simple_reader_agrees_with_the_csv_reader() {
        let config = Config::default();
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for case in 0..2000 {
            let eol = if case % 3 == 0 { "\r\n" } else { "\n" };
            let mut text = String::new();
            for _ in 0..next(3) {
                text.push_str(eol);
            }
            text.push_str(&format!(" op ,shape,dtype,tbps,tflops,status{eol}"));
            for i in 0..next(30) {
                match next(8) {
                    0 => text.push_str(eol),
                    1 => text.push_str(&format!("   {eol}")),
                    2 => text.push_str(&format!("op{i},{i}x8,bf16{eol}")),
                    3 => text.push_str(&format!("op{i},{i}x8,bf16,-,-,missing{eol}")),
                    4 => text.push_str(&format!("op{i},{i}x8 , fp8,1.5,-,ok,extra,{eol}")),
                    _ => text.push_str(&format!("op{i},{i}x8,bf16,-,{}.25,ok{eol}", next(900))),
                }
            }
            if next(2) == 0 {
                text.push_str("last,1x1,bf16,-,3,ok");
            }
            let simple_text = simple(text.as_bytes()).expect("quote-free");
            let mut a = Builder::new(Path::new("t.csv"), 40, &config.keys, &config.metrics);
            let mut b = Builder::new(Path::new("t.csv"), 40, &config.keys, &config.metrics);
            let ra = read_simple(simple_text, &mut a).map(|()| a.rows);
            let rb = read_csv(text.as_bytes(), &mut b).map(|()| b.rows);
            match (ra, rb) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text:?}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:?}"),
                (a, b) => panic!("{text:?}: {a:?} vs {b:?}"),
            }
        }
    }

    #[test]
    fn quoted_cells_go_to_the_csv_reader() {
        let t = table("op,shape,dtype,tflops\n\"a,b\",\"1\nx\",bf16,2\nc,1,bf16,3\n").unwrap();
        assert_eq!(
            t.rows[0].key.fields().collect::<Vec<_>>(),
            ["a,b", "1 x", "bf16"]
        );
        assert_eq!(
            (t.rows[0].line, t.rows[1].line),
            (2, 4),
            "lines of the file, not records"
        );
    }

    #[test]
    fn what_makes_a_file_unusable_names_file_and_line() {
        let err = table("op,shape,tflops\nx,1,1\n").unwrap_err().to_string();
        assert!(err.contains("t.csv line 1: no key column dtype"), "{err}");
        let err = table("op,shape,dtype,ms\nx,1,b,1\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no metric column tflops or tbps"), "{err}");
        let err = table("op,shape,dtype,tflops\nx,1,b,1\ny,1,b,2\nx,1,b,3\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t.csv line 4: the key op=x,shape=1,dtype=b is already on line 2"),
            "{err}"
        );
    }
}
