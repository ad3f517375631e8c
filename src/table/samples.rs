//! The repetitions of a row, where a harness recorded them (Google
//! Benchmark's repetitions, pytest-benchmark's rounds, hyperfine's runs):
//! one flat array and a span per row and metric, so the CSV (which has none)
//! pays nothing, and a table of a million rows with ten repetitions each
//! stays one allocation. Also where a table's metrics are put in another
//! order ([`Table::remap`]): a command reading several harness files
//! compares them on one list of metrics.

use super::{NONE, Status, Table};

/// Spans (`start`, `len`) into `values`, `rows x metrics` of them, or
/// none at all when no row has repetitions.
#[derive(Debug, Clone, Default)]
pub(super) struct Samples {
    spans: Vec<(u32, u32)>,
    values: Vec<f64>,
}

impl Table {
    /// The repetitions of row `row`'s `metric`; empty when there are none.
    pub(super) fn samples_of(&self, row: usize, metric: usize) -> &[f64] {
        let at = row
            .checked_mul(self.metrics)
            .and_then(|a| a.checked_add(metric));
        let Some(&(start, len)) = at.and_then(|a| self.samples.spans.get(a)) else {
            return &[];
        };
        let (Ok(start), Ok(len)) = (usize::try_from(start), usize::try_from(len)) else {
            return &[];
        };
        self.samples
            .values
            .get(start..start.saturating_add(len))
            .unwrap_or_default()
    }

    /// Records the repetitions of the row just pushed, one list per metric
    /// (an empty list where the metric has none).
    pub(crate) fn push_samples<S: AsRef<[f64]>>(&mut self, per_metric: &[S]) {
        let row = self.rows.len().saturating_sub(1);
        let want = row.saturating_mul(self.metrics);
        if self.samples.spans.len() < want {
            self.samples.spans.resize(want, (0, 0));
        }
        for m in 0..self.metrics {
            let list = per_metric.get(m).map_or(&[][..], AsRef::as_ref);
            let start = u32::try_from(self.samples.values.len()).unwrap_or(NONE);
            let len = if list.len() > 1 { list.len() } else { 0 };
            if len > 0 {
                self.samples.values.extend_from_slice(list);
            }
            self.samples
                .spans
                .push((start, u32::try_from(len).unwrap_or(0)));
        }
    }

    /// Puts the metrics in the order `order` gives (new position to old
    /// position, `None` for a metric this table lacks), and judges the
    /// headline again: the first metric, in the new order, that holds a
    /// positive finite number. A row that held one only in a metric left
    /// out is not valid, and says which were read.
    pub(crate) fn remap(&mut self, order: &[Option<usize>], names: &str) {
        let old = self.metrics;
        if order.len() == old && order.iter().enumerate().all(|(i, o)| *o == Some(i)) {
            return;
        }
        let rows = self.rows.len();
        let mut values = Vec::with_capacity(rows.saturating_mul(order.len()));
        let mut spans = Vec::new();
        let has_samples = !self.samples.spans.is_empty();
        let why = format!("none of the metrics {names} holds a positive finite number");
        for r in 0..rows {
            let base = r.saturating_mul(old);
            let mut headline = None;
            for (new, from) in order.iter().enumerate() {
                let v = from
                    .and_then(|f| self.values.get(base.saturating_add(f)))
                    .copied()
                    .unwrap_or(f64::NAN);
                if headline.is_none() && v.is_finite() && v > 0.0 {
                    headline = u8::try_from(new).ok();
                }
                values.push(v);
                if has_samples {
                    let span = from
                        .and_then(|f| self.samples.spans.get(base.saturating_add(f)))
                        .copied()
                        .unwrap_or((0, 0));
                    spans.push(span);
                }
            }
            let was_valid = self.rows.get(r).is_some_and(|row| row.headline.is_some());
            let reason = (was_valid && headline.is_none()).then(|| self.intern(&why));
            if let Some(row) = self.rows.get_mut(r)
                && was_valid
            {
                row.headline = headline;
                if let Some(reason) = reason {
                    row.reason = reason;
                    row.status = Status::Ok;
                }
            }
        }
        self.metrics = order.len();
        self.values = values;
        self.samples.spans = spans;
    }
}
