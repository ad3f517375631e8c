//! Why `table`: every results format (CSV, Google Benchmark, pytest-benchmark
//! and the rest) is read into the one table of rows every command judges.
//!
//! Benchmark results as the benchmark scripts write them: CSV with a header,
//! key columns (`op,shape,dtype`), metric columns (`tflops`, `tbps`) and an
//! optional `status`. This is the model; [`read`] builds it from a file.
//!
//! A row is valid when its status (if there is one) is `ok` and its headline
//! metric (the first configured metric that holds a number) is finite and
//! above zero; an invalid row is kept with the reason, because "this
//! benchmark failed in the baseline" is a result too. Every metric cell that
//! holds a positive finite number is kept, not only the headline: a row is
//! compared on the metric its baseline measured, whatever current's
//! headline is.
//!
//! Compact on purpose (a results file may hold millions of rows and the
//! comparison must stay within a few times the input's size): the key texts
//! of a table share one string, a row is a few integers, the metric values
//! are one flat array, and reasons are interned.

pub mod files;
pub mod formats;
pub mod read;
mod samples;
pub mod schema;

use std::borrow::Cow;

use rustc_hash::FxHashMap;

pub use read::{MAX_FILE_BYTES, TableError, read};
pub use schema::Schema;

use crate::runner::text::visible;

/// The most characters of one key cell any output shows (the JSON on
/// stdout keeps keys whole): a 30 MiB key must not become a 30 MiB log
/// line or step output.
pub const SHOWN_CELL: usize = 200;

/// Separates the cells of a key in a table's key text. A cell holding it
/// (or [`ESCAPE`]) has it escaped, so two different keys never join to the
/// same text.
const SEPARATOR: char = '\u{1f}';
const ESCAPE: char = '\u{1e}';

/// "No value" for the `u32` indices of a row.
pub const NONE: u32 = u32::MAX;

/// The cells of one row's key, as read (trimmed of surrounding spaces,
/// otherwise byte for byte: distinct cells stay distinct).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key<'t> {
    text: &'t str,
}

impl<'t> Key<'t> {
    /// A key from its joined text, as [`Key::joined`] gave it (a key kept
    /// after its table is gone).
    pub fn of(text: &'t str) -> Key<'t> {
        Key { text }
    }

    /// The cells, unescaped.
    pub fn fields(self) -> impl Iterator<Item = Cow<'t, str>> {
        split_separator(self.text).map(unescape)
    }

    /// The first cell (the one `run_benchmark.sh --only` takes).
    pub fn first(self) -> Cow<'t, str> {
        unescape(split_separator(self.text).next().unwrap_or_default())
    }

    /// Cell `i` (empty when the key has fewer cells).
    pub fn cell(self, i: usize) -> Cow<'t, str> {
        unescape(split_separator(self.text).nth(i).unwrap_or_default())
    }

    /// The first two cells, and the rest joined by `,` (the dashboard's
    /// `op`, `shape`, `dtype`), each as a person should see it (see
    /// [`visible`]): an ordinary key is unchanged.
    pub fn dashboard_fields(self) -> (Cow<'t, str>, Cow<'t, str>, Cow<'t, str>) {
        let show = |c: Cow<'t, str>| match c {
            Cow::Borrowed(b) => visible(b, SHOWN_CELL),
            Cow::Owned(o) => Cow::Owned(visible(&o, SHOWN_CELL).into_owned()),
        };
        let mut cells = self.fields().map(show);
        let first = cells.next().unwrap_or_default();
        let second = cells.next().unwrap_or_default();
        let third = cells.next().unwrap_or_default();
        let rest: Vec<Cow<'t, str>> = cells.collect();
        if rest.is_empty() {
            return (first, second, third);
        }
        let mut joined = third.into_owned();
        for cell in rest {
            joined.push(',');
            joined.push_str(&cell);
        }
        (first, second, joined.into())
    }

    /// `op=softmax,shape=32768x8192,dtype=bf16`, each cell visible and cut
    /// at [`SHOWN_CELL`] characters.
    pub fn describe(self, columns: &[String]) -> String {
        columns
            .iter()
            .zip(self.fields())
            .map(|(c, v)| format!("{c}={}", visible(&v, SHOWN_CELL)))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The joined text, for hashing and equality.
    pub fn joined(self) -> &'t str {
        self.text
    }
}

/// The cells of a key text: split at the separator byte.
fn split_separator(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.as_bytes().iter().position(|b| *b == 0x1f) {
            Some(at) => {
                rest = current.get(at.saturating_add(1)..);
                current.get(..at)
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

fn unescape(cell: &str) -> Cow<'_, str> {
    if !cell.as_bytes().contains(&0x1e) {
        return cell.into();
    }
    let mut out = String::with_capacity(cell.len());
    let mut chars = cell.chars();
    while let Some(c) = chars.next() {
        match (c, c == ESCAPE) {
            (_, true) => out.push(match chars.next() {
                Some('_') => SEPARATOR,
                _ => ESCAPE,
            }),
            (c, false) => out.push(c),
        }
    }
    out.into()
}

/// Appends a key's cells to `text`, separated and escaped.
pub(crate) fn push_key<'a>(text: &mut String, cells: impl IntoIterator<Item = &'a str>) {
    for (i, cell) in cells.into_iter().enumerate() {
        if i > 0 {
            text.push(SEPARATOR);
        }
        if cell.bytes().any(|b| b == 0x1e || b == 0x1f) {
            for c in cell.chars() {
                match c {
                    SEPARATOR => text.push_str("\u{1e}_"),
                    ESCAPE => text.push_str("\u{1e}^"),
                    c => text.push(c),
                }
            }
        } else {
            text.push_str(cell);
        }
    }
}

/// The hash every map of keys uses, computed once per row.
pub fn hash_key(joined: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(joined)
}

/// What a row's status says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `ok`, or no status column: the metrics decide.
    Ok,
    /// `skip`: the benchmark chose not to run.
    Skip,
    /// Anything else (`missing`, `failed`, empty), or a row cut short.
    Failed,
}

/// One row: where its key is, and what it measured. Values and reasons are
/// in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    key_start: u32,
    key_len: u32,
    hash: u64,
    /// The line of the file, for messages.
    pub line: u32,
    pub status: Status,
    /// The headline metric when the row is valid.
    headline: Option<u8>,
    /// Index into the table's reasons when the row is invalid.
    reason: u32,
}

/// One results file.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub path: std::path::PathBuf,
    /// Hex SHA-256 of the file as read.
    pub sha256: String,
    /// Bytes read.
    pub bytes: u64,
    metrics: usize,
    keys: String,
    rows: Vec<Row>,
    /// `rows x metrics` values; NaN where the cell holds no positive finite number.
    values: Vec<f64>,
    reasons: Vec<Box<str>>,
    reason_index: FxHashMap<Box<str>, u32>,
    /// What a harness's own format said the keys and metrics are; `None`
    /// for the CSV, which the config describes.
    pub schema: Option<Schema>,
    /// Every repetition of a row's metrics, when the format recorded them
    /// (empty for the CSV: one value per cell).
    samples: samples::Samples,
}

/// A row as the comparison reads it: a table and a row number, each
/// field looked up when asked for (a comparison reads a few fields of
/// millions of rows, several times).
#[derive(Clone, Copy)]
pub struct RowView<'t> {
    table: &'t Table,
    index: usize,
    row: &'t Row,
}

impl std::fmt::Debug for RowView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Row")
            .field("key", &self.key())
            .field("line", &self.line())
            .field("status", &self.status())
            .field("measure", &self.measure())
            .field("reason", &self.reason())
            .finish()
    }
}

impl<'t> RowView<'t> {
    pub fn key(&self) -> Key<'t> {
        self.table.key(self.index).unwrap_or(Key { text: "" })
    }

    pub fn hash(&self) -> u64 {
        self.row.hash
    }

    /// The line of the file, for messages.
    pub fn line(&self) -> u32 {
        self.row.line
    }

    pub fn status(&self) -> Status {
        self.row.status
    }

    fn raw(&self, metric: usize) -> Option<f64> {
        let at = self
            .index
            .checked_mul(self.table.metrics)?
            .checked_add(metric)?;
        (metric < self.table.metrics).then(|| self.table.values.get(at).copied())?
    }

    /// The valid headline measurement: (metric, value).
    pub fn measure(&self) -> Option<(usize, f64)> {
        let m = usize::from(self.row.headline?);
        Some((m, self.raw(m)?))
    }

    /// The value of `metric` when the row is valid apart from its headline
    /// (status ok) and that cell holds a positive finite number.
    pub fn value(&self, metric: usize) -> Option<f64> {
        let v = self.raw(metric)?;
        (self.row.status == Status::Ok && v.is_finite()).then_some(v)
    }

    /// Every repetition the file recorded of `metric` for this row (the
    /// value is their median); empty when it recorded one value.
    pub fn samples(&self, metric: usize) -> &'t [f64] {
        self.table.samples_of(self.index, metric)
    }

    /// Why the row is not valid.
    pub fn reason(&self) -> &'t str {
        usize::try_from(self.row.reason)
            .ok()
            .and_then(|i| self.table.reasons.get(i))
            .map_or("", AsRef::as_ref)
    }

    pub fn valid(&self) -> bool {
        self.row.headline.is_some()
    }
}

impl Table {
    pub fn new(path: std::path::PathBuf, metrics: usize) -> Table {
        Table {
            path,
            metrics,
            ..Table::default()
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn valid_rows(&self) -> usize {
        self.rows.iter().filter(|r| r.headline.is_some()).count()
    }

    /// The first row that is not valid, as a message names it (`file line
    /// N: why`): what a command says when its files gave it nothing to use.
    pub fn first_invalid(&self) -> Option<String> {
        let row = self.rows().find(|row| !row.valid())?;
        let (path, line) = (self.path.display(), row.line());
        Some(format!("{path} line {line}: {}", row.reason()))
    }

    pub fn row(&self, index: usize) -> Option<RowView<'_>> {
        Some(RowView {
            table: self,
            index,
            row: self.rows.get(index)?,
        })
    }

    /// The hash of row `index`'s key.
    pub fn hash(&self, index: usize) -> u64 {
        self.rows.get(index).map_or(0, |r| r.hash)
    }

    pub fn rows(&self) -> impl Iterator<Item = RowView<'_>> {
        (0..self.rows.len()).filter_map(|i| self.row(i))
    }

    /// The key of row `index`.
    pub fn key(&self, index: usize) -> Option<Key<'_>> {
        self.key_text(index).map(|text| Key { text })
    }

    /// The text of key `index` as stored, for equality against another.
    pub fn key_text(&self, index: usize) -> Option<&str> {
        let row = self.rows.get(index)?;
        let start = usize::try_from(row.key_start).ok()?;
        self.keys
            .get(start..start.checked_add(usize::try_from(row.key_len).ok()?)?)
    }

    /// Adds a row whose key was just appended to the key text from
    /// `key_start`; returns its index. `values` holds one value per metric.
    pub(crate) fn push(
        &mut self,
        key_start: usize,
        line: u32,
        status: Status,
        headline: Option<usize>,
        values: &[f64],
        reason: Option<&str>,
    ) -> usize {
        let key_len = self.keys.len().saturating_sub(key_start);
        let hash = hash_key(self.keys.get(key_start..).unwrap_or_default());
        let reason = reason.map_or(NONE, |r| self.intern(r));
        self.values.extend(
            values
                .iter()
                .copied()
                .chain(std::iter::repeat(f64::NAN))
                .take(self.metrics),
        );
        self.rows.push(Row {
            key_start: u32::try_from(key_start).unwrap_or(NONE),
            key_len: u32::try_from(key_len).unwrap_or(0),
            hash,
            line,
            status,
            headline: headline.and_then(|m| u8::try_from(m).ok()),
            reason,
        });
        self.rows.len().saturating_sub(1)
    }

    /// The key text, to append a row's key to before [`Table::push`].
    pub(crate) fn key_buffer(&mut self) -> &mut String {
        &mut self.keys
    }

    fn intern(&mut self, reason: &str) -> u32 {
        if let Some(i) = self.reason_index.get(reason) {
            return *i;
        }
        let i = u32::try_from(self.reasons.len()).unwrap_or(NONE);
        self.reasons.push(reason.into());
        self.reason_index.insert(reason.into(), i);
        i
    }

    /// Frees what reading needed and the comparison does not.
    pub(crate) fn seal(&mut self) {
        self.reason_index = FxHashMap::default();
        self.rows.shrink_to_fit();
        self.values.shrink_to_fit();
        self.keys.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_of(cells: &[&str]) -> String {
        let mut s = String::new();
        push_key(&mut s, cells.iter().copied());
        s
    }

    #[test]
    fn distinct_cells_never_join_to_the_same_key() {
        let a = key_of(&["a\u{1f}b", "c"]);
        let b = key_of(&["a", "b\u{1f}c"]);
        assert_ne!(a, b);
        let k = Key { text: &a };
        assert_eq!(
            k.fields().collect::<Vec<_>>(),
            ["a\u{1f}b", "c"],
            "cells come back as they were"
        );
        let e = key_of(&["x\u{1e}_", "y"]);
        assert_eq!(
            Key { text: &e }.fields().collect::<Vec<_>>(),
            ["x\u{1e}_", "y"]
        );
        assert_ne!(key_of(&["a\tb"]), key_of(&["a b"]));
    }
}
