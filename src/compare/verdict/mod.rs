//! The comparison itself, pure: joined result tables in, a class per row
//! and a verdict out. No I/O.
//!
//! Per baseline, over the union of the keys of current and baseline: a row
//! is compared on the metric its baseline measured. Compared rows are
//! `regressed`, `warned`, `improved` or `unchanged` by how much worse or
//! better the current median is (negative is worse, whichever way the
//! metric points), or `noisy` when the change is explained by noise: within
//! the row's run-to-run band learned from the history, or repeated samples
//! that overlap. A row valid in the baseline whose metric is not valid in
//! current is `lost` (`skipped` when current says `skip`); a row only
//! current has is `new`; a row the baseline has but could not measure is
//! `not-comparable`, and the rest of the baseline is still compared.
//!
//! Rows are classified when they are read ([`Comparison::rows`]), not
//! stored: a comparison of millions of rows holds only its counts, so its
//! memory stays near the size of the tables themselves.

mod history;
mod paired;
mod row;
mod samples;
pub mod suite;
mod two_sample;

use super::join::Join;
use super::noise::{self, Band, NoBand, Noise};
use crate::config::{Config, Policy, Source, Thresholds};
pub use crate::contract::class::{CLASSES, Class, Verdict};
use crate::parallel;
use crate::table::{Key, RowView, Table};
pub use paired::PairedRow;
pub use samples::Samples;
pub use suite::Shift;

/// Where the fail threshold a row was judged by came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Origin {
    /// The default, `--fail-threshold` or a rule: no history was given.
    Configured(Source),
    /// The larger of the configured threshold and the row's noise band.
    Learned(Band),
    /// `--history` was given, but it gives the row no band (too few
    /// valid samples, or a band with which the row could never fail): the
    /// configured threshold alone.
    NoBand { why: NoBand, source: Source },
    /// `--history` was given and the change's runs were tested against
    /// main's level, known from `runs` runs of it and the baseline's: that
    /// test judges the noise, so the configured threshold (for `auto`,
    /// its floor) alone says how much worse fails; no band raised it.
    Level { source: Source, runs: usize },
}

/// The fail threshold a row was judged by (a fraction), and its origin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Applied {
    pub fail: f64,
    pub origin: Origin,
}

/// The result for one key against one baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct RowResult<'t> {
    pub key: Key<'t>,
    pub class: Class,
    /// current / baseline - 1, signed so that negative is worse (a fraction).
    pub change: Option<f64>,
    pub current: Option<Samples>,
    pub baseline: Option<Samples>,
    /// The metric compared (index into the config's metrics).
    pub metric: Option<usize>,
    /// Why the row is noisy, lost, skipped or not comparable.
    pub reason: Option<String>,
    pub policy: Policy,
    pub applied: Option<Applied>,
    /// The baseline run was itself off its history's level: the row is
    /// noisy until the baseline is run again.
    pub rerun_baseline: bool,
    /// With `--paired`: what the rounds said.
    pub paired: Option<PairedRow>,
}

impl RowResult<'_> {
    /// A re-run could change this row's verdict: it is noisy (the
    /// baseline's run off its level among them), or it regressed on a
    /// single sample per side.
    pub fn worth_rerun(&self) -> bool {
        if let Some(p) = &self.paired {
            return p.rerun;
        }
        let single = |s: &Option<Samples>| s.as_ref().is_some_and(|s| s.samples().len() == 1);
        self.class == Class::Noisy
            || (self.class == Class::Regressed && single(&self.baseline) && single(&self.current))
    }
}

/// A compared row as the dashboard line shows it.
#[derive(Debug, Clone, Copy)]
pub struct Medians<'t> {
    pub key: Key<'t>,
    pub metric: usize,
    pub baseline: f64,
    pub current: f64,
}

/// The rows of one side of a key: one per sample file, almost always one.
type Rows<'t> = smallvec::SmallVec<[RowView<'t>; 2]>;

/// The groups of a [`Join`] a comparison reads.
const BASELINE: usize = 0;
const CURRENT: usize = 1;
const HISTORY: usize = 2;

/// The comparison against one baseline label.
pub struct Comparison<'t> {
    pub label: String,
    /// Why the baseline is unavailable (absent, unreadable, no valid row,
    /// or the resolution says there is none).
    pub unavailable: Option<String>,
    join: Join<'t>,
    config: &'t Config,
    thresholds: Thresholds,
    /// The matching rule per key, when the config has rules.
    rules: Vec<u32>,
    /// Per key, whether only groups that did not run produce it; empty
    /// without a selection.
    not_selected: Vec<bool>,
    /// Per key, what the history says of its noise, or why it says
    /// nothing; empty without history.
    noises: Vec<Result<Noise, NoBand>>,
    /// The median row's change between consecutive history runs (log).
    suite_steps: Vec<f64>,
    /// Each row's one-sided chance of a false alarm: the pull request's
    /// rate shared among the rows compared.
    row_rate: f64,
    /// The two-sided chance that the baseline's run is called off its
    /// level when it is not.
    level_rate: f64,
    /// Most compared rows moved together.
    shift: Option<Shift>,
    counts: [usize; CLASSES],
    /// Each row's class (its index in [`Class::ALL`]), so that a pass over
    /// the rows of some classes classifies only those.
    classes: Vec<u8>,
    worst: Option<usize>,
    /// With `--paired`: every paired row decided.
    paired: Option<crate::paired::Judged>,
    /// Unpaired, with several runs on each side: the suite's prior for the
    /// spread of a row's runs (see [`two_sample`]).
    spread_prior: Option<crate::series::prior::Prior>,
    /// Why the baseline's run stopped short, when its record says so.
    stopped: Option<String>,
    /// The share of the suite (percent) below which a pass is inconclusive.
    min_coverage: f64,
}

/// What a comparison knows beyond its tables: whether the baseline's run
/// stopped short (bench's record, `contract::run`) and the least coverage
/// a pass needs. The default (nothing stopped, no minimum) is the
/// comparison of the tables alone.
#[derive(Debug, Clone, Default)]
pub struct Partial {
    pub stopped: Option<String>,
    pub min_coverage: f64,
}

/// What a comparison is made of.
pub struct Sides<'t> {
    pub label: String,
    pub baseline: &'t [Table],
    pub current: &'t [Table],
    /// Past runs of the gate baseline's branch, in run order.
    pub history: &'t [Table],
    /// The config's `[select]` groups (by position) that did not run: their
    /// rows are `not-selected`.
    pub unselected: &'t [usize],
    pub unavailable: Option<String>,
    /// The baseline's files and current's are paired rounds, decided on
    /// these settings.
    pub paired: Option<crate::paired::Settings>,
}

/// Why a baseline without a valid row is unavailable, with its first row's
/// reason, so that the user sees what the file held.
fn no_valid_row(baseline: &[Table]) -> String {
    match baseline.iter().find_map(Table::first_invalid) {
        Some(first) => format!("the baseline has no valid row ({first})"),
        None => "the baseline has no valid row".to_owned(),
    }
}

/// Compares the current tables with the samples of one baseline label.
pub fn compare<'t>(sides: Sides<'t>, config: &'t Config, thresholds: Thresholds) -> Comparison<'t> {
    compare_partial(sides, config, thresholds, Partial::default())
}

/// [`compare`], knowing whether the baseline's run stopped short (its
/// missing rows are `absent`, not `new`) and the least coverage a pass
/// needs.
pub fn compare_partial<'t>(
    sides: Sides<'t>,
    config: &'t Config,
    thresholds: Thresholds,
    partial: Partial,
) -> Comparison<'t> {
    let unavailable = sides.unavailable.or_else(|| {
        (sides.baseline.iter().all(|t| t.valid_rows() == 0)).then(|| no_valid_row(sides.baseline))
    });
    let join = match unavailable {
        Some(_) => Join::new(&[], 0),
        None => Join::new(&[sides.baseline, sides.current, sides.history], 2),
    };
    let mut comparison = Comparison {
        label: sides.label,
        unavailable,
        rules: Vec::new(),
        not_selected: Vec::new(),
        noises: Vec::new(),
        suite_steps: Vec::new(),
        row_rate: 0.0,
        level_rate: 0.0,
        shift: None,
        counts: [0; CLASSES],
        classes: Vec::new(),
        worst: None,
        paired: None,
        spread_prior: None,
        join,
        config,
        thresholds,
        stopped: partial.stopped,
        min_coverage: partial.min_coverage,
    };
    comparison.paired = sides
        .paired
        .filter(|_| comparison.unavailable.is_none())
        .map(|s| crate::paired::judge(sides.current, sides.baseline, config, &thresholds, &s));
    if !config.rules.is_empty() {
        comparison.rules = per_key(&comparison.join, |cells| {
            config
                .rule_for(cells)
                .and_then(|r| u32::try_from(r).ok())
                .unwrap_or(u32::MAX)
        });
    }
    if let Some(select) = config.select.as_ref()
        && !sides.unselected.is_empty()
    {
        comparison.not_selected = per_key(&comparison.join, |cells| {
            select.only_unselected(sides.unselected, cells)
        });
    }
    if !sides.history.is_empty() {
        let learned = history::learn(&comparison.join, sides.history.len());
        comparison.noises = learned.noises;
        comparison.suite_steps = learned.suite_steps;
    }
    let both = (0..comparison.join.len())
        .filter(|s| {
            comparison.join.rows(*s, BASELINE).next().is_some()
                && comparison.join.rows(*s, CURRENT).next().is_some()
        })
        .count();
    comparison.row_rate = noise::row_rate(thresholds.false_alarms, both);
    if comparison.paired.is_none() {
        comparison.spread_prior = two_sample::prior(&comparison);
    }
    comparison.level_rate = (2.0 * comparison.row_rate).min(1.0);
    comparison.classify_all();
    comparison
}

impl Comparison<'_> {
    /// Every row classified once, the rows shared among the cores: the
    /// counts, each row's class, the worst row and the suite's shift.
    fn classify_all(&mut self) {
        let parts = parallel::ranges(self.join.len(), |range| self.tally(range));
        let mut worst: Option<(f64, usize)> = None;
        let mut classes = Vec::with_capacity(self.join.len());
        let mut changes = Vec::new();
        for part in parts {
            classes.extend(part.classes);
            changes.extend(part.changes);
            for (total, n) in self.counts.iter_mut().zip(part.counts) {
                *total = total.saturating_add(n);
            }
            if let Some((change, slot)) = part.worst
                && worst.is_none_or(|(w, _)| change < w)
            {
                worst = Some((change, slot));
            }
        }
        self.worst = worst.map(|(_, slot)| slot);
        self.classes = classes;
        self.shift = suite::shift(&changes, &self.suite_steps);
    }
}

/// `f` of each key's cells, in slot order (one buffer for all of them).
fn per_key<T>(join: &Join<'_>, mut f: impl FnMut(&[&str]) -> T) -> Vec<T> {
    let mut cells: Vec<std::borrow::Cow<'_, str>> = Vec::new();
    (0..join.len())
        .map(|slot| {
            cells.clear();
            cells.extend(join.key(slot).into_iter().flat_map(Key::fields));
            let refs: Vec<&str> = cells.iter().map(AsRef::as_ref).collect();
            f(&refs)
        })
        .collect()
}

/// What classifying a range of rows found.
struct Tally {
    classes: Vec<u8>,
    /// The change of every compared row, for the suite's shift.
    changes: Vec<f64>,
    counts: [usize; CLASSES],
    worst: Option<(f64, usize)>,
}

impl<'t> Comparison<'t> {
    fn tally(&self, range: std::ops::Range<usize>) -> Tally {
        let mut tally = Tally {
            classes: Vec::with_capacity(range.len()),
            changes: Vec::new(),
            counts: [0; CLASSES],
            worst: None,
        };
        for slot in range {
            let Some(row) = self.row(slot) else {
                tally.classes.push(u8::MAX);
                continue;
            };
            let index = row.class.index();
            tally.classes.push(u8::try_from(index).unwrap_or(u8::MAX));
            if let Some(n) = tally.counts.get_mut(index) {
                *n = n.saturating_add(1);
            }
            if row.class.compared()
                && let Some(change) = row.change
            {
                tally.changes.push(change);
                if tally.worst.is_none_or(|(w, _)| change < w) {
                    tally.worst = Some((change, slot));
                }
            }
        }
        tally
    }

    /// The compared rows of `range` as the dashboard shows them: the key,
    /// the two medians and the metric, without classifying again (the class
    /// is known from the first pass). Several times quicker than
    /// [`Comparison::rows_in`] over a hundred thousand rows.
    pub fn medians_in(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = Medians<'t>> + '_ {
        let mask = Class::mask(&Class::COMPARED);
        range
            .filter(move |slot| {
                self.classes
                    .get(*slot)
                    .is_some_and(|c| mask.get(usize::from(*c)).copied().unwrap_or(false))
            })
            .filter_map(|slot| self.medians(slot))
    }

    /// A compared row's key, metric and two medians: for a paired row,
    /// over the rounds its decision used, as its row shows them (one
    /// source, [`Comparison::decided`]); else over every run in the files.
    fn medians(&self, slot: usize) -> Option<Medians<'t>> {
        let key = self.join.key(slot)?;
        let metric = self
            .join
            .rows(slot, BASELINE)
            .find_map(|r| r.measure().map(|m| m.0))?;
        let (baseline, current) = match self.decided(slot, key, metric) {
            Some((base, current)) => (base.median, current.median),
            None => {
                let base = self.join.rows(slot, BASELINE);
                let current = self.join.rows(slot, CURRENT);
                (
                    Samples::collect(base.filter_map(|r| r.measure().map(|m| m.1)))?.median,
                    Samples::collect(current.filter_map(|r| r.value(metric)))?.median,
                )
            }
        };
        Some(Medians {
            key,
            metric,
            baseline,
            current,
        })
    }

    /// How many keys (rows of any class).
    pub fn len(&self) -> usize {
        self.join.len()
    }

    pub fn is_empty(&self) -> bool {
        self.join.is_empty()
    }

    /// The rows of `range` (key order) of the given classes.
    pub fn rows_in(
        &self,
        range: std::ops::Range<usize>,
        wanted: &[Class],
    ) -> impl Iterator<Item = RowResult<'t>> + '_ {
        let mask = Class::mask(wanted);
        range
            .filter(move |slot| {
                self.classes
                    .get(*slot)
                    .is_some_and(|c| mask.get(usize::from(*c)).copied().unwrap_or(false))
            })
            .filter_map(|slot| self.row(slot))
    }

    pub fn count(&self, class: Class) -> usize {
        self.counts.get(class.index()).copied().unwrap_or(0)
    }

    pub fn compared(&self) -> usize {
        Class::ALL
            .iter()
            .filter(|c| c.compared())
            .map(|c| self.count(*c))
            .sum()
    }

    /// Every row, classified as it is read, in key order.
    pub fn rows(&self) -> impl Iterator<Item = RowResult<'t>> + '_ {
        (0..self.join.len()).filter_map(|slot| self.row(slot))
    }

    /// The rows of the given classes, in key order; the others are not
    /// classified again.
    pub fn rows_of(&self, wanted: &[Class]) -> impl Iterator<Item = RowResult<'t>> + '_ {
        self.rows_in(0..self.join.len(), wanted)
    }

    /// The compared row with the most negative change.
    pub fn worst(&self) -> Option<RowResult<'t>> {
        self.worst.and_then(|slot| self.row(slot))
    }

    /// Unavailable: inconclusive; a regressed or lost row: regression (a
    /// lost row counts even when nothing else could be compared); nothing
    /// compared, or less of the suite than `--min-coverage`: inconclusive
    /// (a partial comparison never reads as a pass); else pass.
    pub fn verdict(&self) -> Verdict {
        if self.unavailable.is_some() {
            Verdict::Inconclusive
        } else if self.count(Class::Regressed) > 0 || self.count(Class::Lost) > 0 {
            Verdict::Regression
        } else if self.compared() == 0 || self.coverage_pct().is_some_and(|p| p < self.min_coverage)
        {
            Verdict::Inconclusive
        } else {
            Verdict::Pass
        }
    }

    /// With `--paired`: the rows still in doubt (noisy), however many
    /// rounds they had.
    pub fn undecided(&self) -> Option<usize> {
        self.paired.as_ref().map(|_| self.count(Class::Noisy))
    }

    /// With `--paired`: every paired row's rounds and decision.
    pub fn paired(&self) -> Option<&crate::paired::Judged> {
        self.paired.as_ref()
    }

    /// The rows that should have been compared: every row but those the
    /// config ignores or the selection did not run.
    pub fn suite(&self) -> usize {
        let total: usize = Class::ALL.iter().map(|k| self.count(*k)).sum();
        total
            .saturating_sub(self.count(Class::Ignored))
            .saturating_sub(self.count(Class::NotSelected))
    }

    /// The share of [`Comparison::suite`] compared, in percent (`None`
    /// for an empty suite); `compare::coverage` says why the rest was not.
    pub fn coverage_pct(&self) -> Option<f64> {
        let suite = self.suite();
        (suite > 0).then(|| self.compared() as f64 * 100.0 / suite as f64)
    }

    /// The least coverage (percent) a pass needs.
    pub fn min_coverage(&self) -> f64 {
        self.min_coverage
    }

    /// Why the baseline's run stopped short, when it did.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// Whether a history was given.
    pub fn has_history(&self) -> bool {
        !self.noises.is_empty()
    }

    /// Most compared rows moved together (a machine or build environment
    /// is the likelier cause).
    pub fn shift(&self) -> Option<Shift> {
        self.shift
    }

    /// Each row's one-sided chance of a false alarm.
    pub fn row_rate(&self) -> f64 {
        self.row_rate
    }

    /// The rows whose history cannot judge them (two levels, or a band
    /// with which they could never fail): how many, and the first one's
    /// slot and why.
    pub fn unusable_history(&self) -> (usize, Option<(usize, NoBand)>) {
        let mut unusable = self
            .noises
            .iter()
            .enumerate()
            .filter_map(|(slot, n)| match n {
                Err(why @ (NoBand::Unusable { .. } | NoBand::TwoLevels { .. })) => {
                    Some((slot, *why))
                }
                Ok(noise) => match noise.band(self.row_rate, noise.weight + 1.0) {
                    Err(why) => Some((slot, why)),
                    Ok(_) => None,
                },
                Err(NoBand::TooFew { .. }) => None,
            });
        let first = unusable.next();
        (
            first.map_or(0, |_| unusable.count().saturating_add(1)),
            first,
        )
    }

    /// A key as a person reads it (`op=softmax,shape=...`), cut.
    pub fn key_text(&self, slot: usize) -> String {
        self.join
            .key(slot)
            .map(|k| k.describe(&self.config.keys))
            .unwrap_or_default()
    }
}
#[cfg(test)]
mod level_tests;
#[cfg(test)]
mod tests;
