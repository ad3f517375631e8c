//! What a harness's file says its rows are (keys and metrics), and how the
//! files of one command are lined up with each other and with the config.
//!
//! A CSV is described by the config (`bench.toml`). A harness's file
//! describes itself: its rows are keyed by `benchmark` and `params`, and
//! its metrics are the format's. When the config leaves keys and metrics
//! at their defaults (a kernel suite's `op,shape,dtype` and `tflops`,
//! `tbps`), the files' own are adopted: the keys, and every metric any of
//! the files has, in the order first seen. When the config names
//! metrics, each file's metrics are read by those names (so a config can
//! pick the headline, or turn a direction round).

use super::formats::{Format, KEYS};
use super::{Table, TableError};
use crate::config::{Config, Metric};

/// A harness file's own description of its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub format: Format,
    pub keys: Vec<String>,
    pub metrics: Vec<Metric>,
}

/// Lines up the tables one command reads, one at a time, then says what
/// the config becomes ([`Unify::apply`]).
#[derive(Debug)]
pub struct Unify {
    /// The config's keys and metrics are the defaults: a harness's are taken.
    adopt_keys: bool,
    adopt_metrics: bool,
    /// The metrics every table is lined up on.
    metrics: Vec<Metric>,
    /// The first CSV and the first harness file seen, for the message
    /// when both are read under default keys.
    csv: Option<std::path::PathBuf>,
    harness: Option<std::path::PathBuf>,
    rules: bool,
}

impl Unify {
    pub fn new(config: &Config) -> Unify {
        let defaults = Config::default();
        Unify {
            adopt_keys: config.keys == defaults.keys,
            adopt_metrics: config.metrics == defaults.metrics,
            metrics: if config.metrics == defaults.metrics {
                Vec::new()
            } else {
                config.metrics.clone()
            },
            csv: None,
            harness: None,
            rules: !config.rules.is_empty() || config.select.is_some(),
        }
    }

    /// Lines `table` up: its metrics put in the common order.
    pub fn admit(&mut self, table: &mut Table) -> Result<(), TableError> {
        let Some(schema) = &table.schema else {
            self.csv.get_or_insert_with(|| table.path.clone());
            return self.mixed(&table.path);
        };
        self.harness.get_or_insert_with(|| table.path.clone());
        self.mixed(&table.path)?;
        let format = schema.format.name();
        if self.adopt_keys && self.rules {
            return Err(TableError::Schema {
                path: table.path.clone(),
                message: format!(
                    "{format} results are keyed by {}; the config's rules name the default keys (op, shape, dtype): set keys = [\"benchmark\", \"params\"] in the config",
                    KEYS.join(", ")
                ),
            });
        }
        let mut order = Vec::with_capacity(self.metrics.len());
        if self.adopt_metrics {
            for m in &schema.metrics {
                if !self.metrics.iter().any(|c| c.column == m.column) {
                    self.metrics.push(m.clone());
                }
            }
        }
        for m in &self.metrics {
            order.push(schema.metrics.iter().position(|s| s.column == m.column));
        }
        if order.iter().all(Option::is_none) && !schema.metrics.is_empty() {
            let have: Vec<&str> = schema.metrics.iter().map(|m| m.column.as_str()).collect();
            let want: Vec<&str> = self.metrics.iter().map(|m| m.column.as_str()).collect();
            return Err(TableError::Schema {
                path: table.path.clone(),
                message: format!(
                    "the config's metrics are {}; these {format} results have {}",
                    want.join(", "),
                    have.join(", ")
                ),
            });
        }
        let names: Vec<&str> = self.metrics.iter().map(|m| m.column.as_str()).collect();
        table.remap(&order, &names.join(", "));
        Ok(())
    }

    /// A CSV read under the default keys cannot be lined up with a
    /// harness's rows: their keys mean different things.
    fn mixed(&self, path: &std::path::Path) -> Result<(), TableError> {
        match (&self.csv, &self.harness) {
            (Some(csv), Some(harness)) if self.adopt_keys => Err(TableError::Schema {
                path: path.to_owned(),
                message: format!(
                    "{} is a CSV keyed by the config's keys and {} a harness's results keyed by benchmark, params: give a config with keys = [\"benchmark\", \"params\"] and the CSV's metrics (or convert the harness's files)",
                    csv.display(),
                    harness.display()
                ),
            }),
            _ => Ok(()),
        }
    }

    /// The config the lined-up tables are read with: the harness's keys
    /// and metrics where it had the defaults.
    pub fn apply(self, config: &mut Config) {
        if self.harness.is_none() {
            return;
        }
        if self.adopt_keys {
            config.keys = KEYS.iter().map(|k| (*k).to_owned()).collect();
        }
        if self.adopt_metrics && !self.metrics.is_empty() {
            config.metrics = self.metrics;
        }
    }
}
