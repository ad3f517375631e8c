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

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::config::Metric;
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

/// The values of the key columns of one row.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub Vec<String>);

impl Key {
    /// `op=softmax,shape=32768x8192,dtype=bf16`.
    pub fn describe(&self, columns: &[String]) -> String {
        columns
            .iter()
            .zip(&self.0)
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
    let read_err = |source| TableError::Read {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(read_err)?;
    let size = file.metadata().map_err(read_err)?.len();
    if size > MAX_FILE_BYTES {
        return Err(TableError::TooLarge {
            path: path.to_owned(),
            size,
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    let read_size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read_size > MAX_FILE_BYTES {
        return Err(TableError::TooLarge {
            path: path.to_owned(),
            size: read_size,
        });
    }
    parse(path, &bytes, keys, metrics)
}

/// Where the columns the comparison reads are.
struct Columns {
    keys: Vec<usize>,
    /// `None` for a configured metric this file does not have.
    metrics: Vec<Option<usize>>,
    status: Option<usize>,
}

impl Columns {
    fn find(
        path: &Path,
        header: &csv::ByteRecord,
        keys: &[String],
        metrics: &[Metric],
    ) -> Result<Columns, TableError> {
        let names: Vec<String> = header
            .iter()
            .map(|h| String::from_utf8_lossy(h).trim().to_ascii_lowercase())
            .collect();
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
            keys: key_columns,
            metrics: metric_columns,
            status: position("status"),
        })
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
    let csv_err = |e: csv::Error| TableError::Csv {
        path: path.to_owned(),
        line: e.position().map_or(0, csv::Position::line),
        message: e.to_string(),
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes);
    let header = reader.byte_headers().map_err(csv_err)?.clone();
    let columns = Columns::find(path, &header, keys, metrics)?;
    let mut rows = Vec::new();
    let mut seen: HashMap<Key, u64> = HashMap::new();
    let mut record = csv::ByteRecord::new();
    while reader.read_byte_record(&mut record).map_err(csv_err)? {
        let line = record.position().map_or(0, csv::Position::line);
        if record
            .iter()
            .all(|cell| cell.iter().all(u8::is_ascii_whitespace))
        {
            continue;
        }
        let row = row(&record, line, &columns, metrics, header.len());
        if let Some(first) = seen.insert(row.key.clone(), line) {
            return Err(TableError::DuplicateKey {
                path: path.to_owned(),
                line,
                first,
                key: shown(&row.key.describe(keys)),
            });
        }
        rows.push(row);
    }
    Ok(Table {
        path: path.to_owned(),
        sha256,
        rows,
    })
}

fn cell(record: &csv::ByteRecord, index: usize) -> Option<&str> {
    record
        .get(index)
        .and_then(|c| std::str::from_utf8(c).ok())
        .map(str::trim)
}

fn row(
    record: &csv::ByteRecord,
    line: u64,
    columns: &Columns,
    metrics: &[Metric],
    fields: usize,
) -> Row {
    let key = Key(columns
        .keys
        .iter()
        .map(|&i| cell(record, i).unwrap_or_default().to_owned())
        .collect());
    let status = columns.status.map(|i| cell(record, i).unwrap_or_default());
    let skipped = status == Some("skip");
    let measure = match status {
        _ if record.len() < fields => Err(format!(
            "the row is cut short ({} of {fields} fields)",
            record.len()
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
fn measure(
    record: &csv::ByteRecord,
    columns: &Columns,
    metrics: &[Metric],
) -> Result<Measure, String> {
    let mut seen = Vec::new();
    for (metric, column) in columns.metrics.iter().enumerate() {
        let Some(column) = column else { continue };
        let name = metrics.get(metric).map_or("metric", |m| m.column.as_str());
        let Some(text) = cell(record, *column) else {
            seen.push(format!("{name} is missing"));
            continue;
        };
        match text.parse::<f64>() {
            Ok(value) if value.is_finite() && value > 0.0 => return Ok(Measure { value, metric }),
            Ok(value) => return Err(format!("{name} is {value}, not a positive finite number")),
            Err(_) if text.is_empty() => seen.push(format!("{name} is empty")),
            Err(_) => seen.push(format!("{name} is {:?}", shown(text))),
        }
    }
    Err(seen.join(", "))
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
