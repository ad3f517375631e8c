//! Rounds as results files: the i-th current table pairs with the i-th
//! baseline table (one round), and each key's pairs become the row's
//! rounds, with the thresholds the config gives it. A key a round lacks on
//! either side (its group was not run again, or a benchmark failed) has no
//! pair in that round. Pure: tables in memory in, decisions out.

use rustc_hash::FxHashMap;

use super::{Decision, RowRounds, Settings, decide};
use crate::config::{Config, Direction, Thresholds};
use crate::table::{Key, Table};

/// Every paired row of a run of rounds, decided.
#[derive(Debug, Clone)]
pub struct Judged {
    /// Each row's key, as its table's joined key text.
    pub keys: Vec<String>,
    pub decisions: Vec<Decision>,
    /// Each row's metric (index into the config's metrics) and direction.
    pub metrics: Vec<(usize, Direction)>,
    index: FxHashMap<String, usize>,
}

impl Judged {
    /// The row of a key (its joined text), by position.
    pub fn position(&self, joined: &str) -> Option<usize> {
        self.index.get(joined).copied()
    }

    /// The keys of the rows still in doubt (`noisy`), at the cap too
    /// (where no more rounds are asked: `Decision::rerun` says which more
    /// rounds could decide).
    pub fn undecided(&self) -> impl Iterator<Item = Key<'_>> + '_ {
        self.keys
            .iter()
            .zip(&self.decisions)
            .filter(|(_, d)| d.class == crate::contract::class::Class::Noisy)
            .map(|(k, _)| Key::of(k))
    }

    /// A log change (positive worse) as compare states changes: a
    /// fraction, current / baseline - 1, negative when worse.
    pub fn change(direction: Direction, worse: f64) -> f64 {
        let ratio = (-worse * direction.sign()).exp();
        crate::series::bounded((ratio - 1.0) * direction.sign())
    }
}

/// `ln` of the ratio at which a change of `fraction` is reached, worse
/// (`worse`) or better, for a metric of `direction`: "10% worse" is a
/// tenth more time or a tenth less throughput. Finite: a rate cannot fall
/// by 100% or more, so such a threshold is the largest finite one.
fn threshold(fraction: f64, direction: Direction, worse: bool) -> f64 {
    let up = (1.0 + fraction).ln();
    let down = -(1.0 - fraction.min(1.0 - 1e-9)).ln();
    match (direction, worse) {
        (Direction::Lower, true) | (Direction::Higher, false) => up,
        (Direction::Higher, true) | (Direction::Lower, false) => down,
    }
}

/// One row's pairs while they are collected.
struct Collecting {
    metric: usize,
    worse: Vec<f64>,
    round: Vec<usize>,
    base_sum: f64,
}

/// Pairs every round's tables and decides every row.
pub fn judge(
    current: &[Table],
    baseline: &[Table],
    config: &Config,
    thresholds: &Thresholds,
    settings: &Settings,
) -> Judged {
    let mut keys: Vec<String> = Vec::new();
    let mut index: FxHashMap<String, usize> = FxHashMap::default();
    let mut rows: Vec<Collecting> = Vec::new();
    for (round, (base, cur)) in baseline.iter().zip(current).enumerate() {
        let current_rows: FxHashMap<&str, usize> = (0..cur.len())
            .filter_map(|i| Some((cur.key_text(i)?, i)))
            .collect();
        for b in base.rows() {
            let Some((metric, b_value)) = b.measure() else {
                continue;
            };
            let joined = b.key().joined();
            let Some(c_value) = current_rows
                .get(joined)
                .and_then(|i| cur.row(*i))
                .and_then(|c| c.value(metric))
                .filter(|v| *v > 0.0)
            else {
                continue;
            };
            let slot = *index.entry(joined.to_owned()).or_insert_with(|| {
                keys.push(joined.to_owned());
                rows.push(Collecting {
                    metric,
                    worse: Vec::new(),
                    round: Vec::new(),
                    base_sum: 0.0,
                });
                rows.len().saturating_sub(1)
            });
            let Some(row) = rows.get_mut(slot) else {
                continue;
            };
            // A row whose metric changed between rounds keeps its first.
            if row.metric != metric || row.round.last() == Some(&round) {
                continue;
            }
            row.worse.push((c_value / b_value).ln());
            row.round.push(round);
            row.base_sum += b_value.ln();
        }
    }
    let mut metrics = Vec::with_capacity(rows.len());
    let mut rounds = Vec::with_capacity(rows.len());
    for (key, row) in keys.iter().zip(rows) {
        let (direction, thresholds) = row_settings(config, thresholds, key, row.metric, &row);
        metrics.push((row.metric, direction));
        let sign = direction.sign();
        rounds.push(RowRounds {
            worse: row.worse.iter().map(|l| -sign * l).collect(),
            round: row.round.clone(),
            fail: threshold(thresholds.0, direction, true),
            better: threshold(thresholds.0, direction, false),
            warn: threshold(thresholds.1, direction, true),
        });
    }
    let decisions = decide(&rounds, settings);
    Judged {
        keys,
        decisions,
        metrics,
        index,
    }
}

/// A row's direction and its (fail, warn) fractions: the config's rule
/// for its key, a floor (in the metric's unit) raising both at the
/// baseline's level. `auto` has no history to learn from here: the
/// default.
fn row_settings(
    config: &Config,
    thresholds: &Thresholds,
    key: &str,
    metric: usize,
    row: &Collecting,
) -> (Direction, (f64, f64)) {
    let cells: Vec<std::borrow::Cow<'_, str>> = Key::of(key).fields().collect();
    let refs: Vec<&str> = cells.iter().map(AsRef::as_ref).collect();
    let policy = config.policy(config.rule_for(&refs), thresholds);
    let direction = policy
        .direction
        .or_else(|| config.metrics.get(metric).map(|m| m.direction))
        .unwrap_or(Direction::Higher);
    let fail = policy.fail.configured();
    let level = (row.base_sum / row.worse.len().max(1) as f64).exp();
    let floor = if policy.floor > 0.0 && level > 0.0 {
        policy.floor / level
    } else {
        0.0
    };
    (direction, (fail.max(floor), policy.warn.max(floor)))
}
