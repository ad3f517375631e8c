//! What every format reader fills and how it becomes a [`Table`]: rows
//! by key (the same benchmark seen again, as Google Benchmark's
//! repetitions and go test's `-count` lines are, adds samples to its row),
//! samples as one flat list, sorted into rows only at the end.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::{Format, KEYS, MAX_SAMPLES};
use crate::config::Metric;
use crate::runner::shown;
use crate::table::{NONE, Schema, Status, Table, TableError, hash_key, push_key};

/// A row as it is being read: its key is `keys[start..end]`, so that a
/// row costs no allocation of its own; `next` is the row read before it
/// whose key has the same hash (`NONE` for none).
struct Pending {
    start: usize,
    end: usize,
    line: u32,
    next: u32,
    reason: Option<Box<str>>,
}

/// Rows, metrics and samples of one file being read.
pub struct Collect {
    path: PathBuf,
    format: Format,
    metrics: Vec<Metric>,
    rows: Vec<Pending>,
    /// A key's hash to the last row read with that hash, the others
    /// chained through `Pending::next`: the keys are not copied into the
    /// index, they are compared where they are, in `keys`.
    index: FxHashMap<u64, u32>,
    /// (row, metric, value), in the order read.
    samples: Vec<(u32, u16, f64)>,
    key: String,
    /// Every row's key, one after the other.
    keys: String,
}

impl Collect {
    pub fn new(path: &Path, format: Format, metrics: Vec<Metric>) -> Collect {
        Collect {
            path: path.to_owned(),
            format,
            metrics,
            rows: Vec::new(),
            index: FxHashMap::default(),
            samples: Vec::new(),
            key: String::new(),
            keys: String::new(),
        }
    }

    /// An error at `at` (a JSON path, a line) of this file.
    pub fn error(&self, at: impl Into<String>, message: impl Into<String>) -> TableError {
        TableError::Format {
            path: self.path.clone(),
            format: self.format.name(),
            at: at.into(),
            message: message.into(),
        }
    }

    /// A text format's bytes as text, or where they stop being UTF-8.
    pub fn text<'b>(&self, bytes: &'b [u8]) -> Result<&'b str, TableError> {
        std::str::from_utf8(bytes)
            .map_err(|e| self.error(format!("byte {}", e.valid_up_to()), "not UTF-8 text"))
    }

    /// The position of the metric named `column`, added (with its unit and
    /// direction) the first time it is seen.
    pub fn metric(
        &mut self,
        metric: impl FnOnce() -> Metric,
        column: &str,
    ) -> Result<u16, TableError> {
        if let Some(i) = self.metrics.iter().position(|m| m.column == column) {
            return Ok(u16::try_from(i).unwrap_or(u16::MAX));
        }
        if self.metrics.len() >= 64 {
            return Err(self.error(
                format!("the metric {}", shown(column)),
                "more than 64 metrics in one file",
            ));
        }
        self.metrics.push(metric());
        Ok(u16::try_from(self.metrics.len().saturating_sub(1)).unwrap_or(u16::MAX))
    }

    /// The row of `benchmark` with `params`, added at `line` the first time.
    pub fn row(&mut self, benchmark: &str, params: &str, line: u32) -> u32 {
        self.key.clear();
        push_key(&mut self.key, [benchmark, params]);
        let hash = hash_key(&self.key);
        let mut at = self.index.get(&hash).copied().unwrap_or(NONE);
        while let Some(p) = usize::try_from(at).ok().and_then(|r| self.rows.get(r)) {
            if self.keys.get(p.start..p.end) == Some(self.key.as_str()) {
                return at;
            }
            at = p.next;
        }
        let row = u32::try_from(self.rows.len()).unwrap_or(NONE);
        let next = self.index.insert(hash, row).unwrap_or(NONE);
        let start = self.keys.len();
        self.keys.push_str(&self.key);
        self.rows.push(Pending {
            start,
            end: self.keys.len(),
            line,
            next,
            reason: None,
        });
        row
    }

    /// One repetition of `metric` for `row`; `at` says where it is when it
    /// is refused.
    pub fn sample(
        &mut self,
        row: u32,
        metric: u16,
        value: f64,
        at: impl FnOnce() -> String,
    ) -> Result<(), TableError> {
        if !value.is_finite() {
            return Err(self.error(at(), format!("{value} is not a finite number")));
        }
        if self.samples.len() >= MAX_SAMPLES {
            return Err(self.error(at(), format!("more than {MAX_SAMPLES} numbers in one file")));
        }
        self.samples.push((row, metric, value));
        Ok(())
    }

    /// Marks `row` as not valid: the harness says it failed or was skipped.
    pub fn fail(&mut self, row: u32, reason: &str) {
        if let Some(p) = usize::try_from(row).ok().and_then(|r| self.rows.get_mut(r))
            && p.reason.is_none()
        {
            p.reason = Some(shown(reason).into());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table: each row's value per metric is the median of its samples.
    pub fn finish(mut self) -> Table {
        let metrics = self.metrics.len();
        let mut table = Table::new(self.path.clone(), metrics);
        table.schema = Some(Schema {
            format: self.format,
            keys: KEYS.iter().map(|k| (*k).to_owned()).collect(),
            metrics: self.metrics.clone(),
        });
        self.samples.sort_by_key(|(row, metric, _)| (*row, *metric));
        let mut at = 0usize;
        let mut values = vec![f64::NAN; metrics];
        let mut lists: Vec<Vec<f64>> = vec![Vec::new(); metrics];
        let mut scratch = Vec::new();
        for (r, pending) in self.rows.iter().enumerate() {
            for list in &mut lists {
                list.clear();
            }
            while let Some(&(row, metric, value)) = self.samples.get(at) {
                if usize::try_from(row).ok() != Some(r) {
                    break;
                }
                if let Some(list) = lists.get_mut(usize::from(metric)) {
                    list.push(value);
                }
                at = at.saturating_add(1);
            }
            for (value, list) in values.iter_mut().zip(&mut lists) {
                *value = median(list, &mut scratch)
                    .filter(|v| *v > 0.0)
                    .unwrap_or(f64::NAN);
            }
            let headline = values.iter().position(|v| v.is_finite());
            let (status, reason) = match (&pending.reason, headline) {
                (Some(why), _) => (Status::Failed, Some(why.to_string())),
                (None, Some(_)) => (Status::Ok, None),
                (None, None) => (Status::Ok, Some(self.no_value(&lists))),
            };
            let headline = headline.filter(|_| status == Status::Ok);
            let key_start = table.key_buffer().len();
            let key = self
                .keys
                .get(pending.start..pending.end)
                .unwrap_or_default();
            table.key_buffer().push_str(key);
            table.push(
                key_start,
                pending.line,
                status,
                headline,
                &values,
                reason.as_deref(),
            );
            table.push_samples(&lists);
        }
        table.seal();
        table
    }

    /// Why a row has no value: no sample, or none positive.
    fn no_value(&self, lists: &[Vec<f64>]) -> String {
        let names: Vec<&str> = self.metrics.iter().map(|m| m.column.as_str()).collect();
        if lists.iter().all(Vec::is_empty) {
            return format!("no value of {}", names.join(" or "));
        }
        format!("no positive value of {}", names.join(" or "))
    }
}

/// The median of `values` (sorted in `scratch`: the samples keep the
/// order they were recorded in); `None` when there are none.
fn median(list: &[f64], values: &mut Vec<f64>) -> Option<f64> {
    values.clear();
    values.extend_from_slice(list);
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let mid = n / 2;
    match n {
        0 => None,
        _ if n % 2 == 1 => values.get(mid).copied(),
        _ => {
            let a = values.get(mid.saturating_sub(1)).copied()?;
            let b = values.get(mid).copied()?;
            Some(a / 2.0 + b / 2.0)
        }
    }
}
