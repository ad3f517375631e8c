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

pub use super::class::{CLASSES, Class, Verdict};
use super::defaults;
use super::join::Join;
use super::noise::{self, Band, NoBand};
use super::parallel;
use super::table::{Key, RowView, Status, Table};
use crate::config::{Config, Direction, FailThreshold, Policy, Source, Thresholds};

/// One side of a row: the median of its samples (one per file that
/// measured it), and the samples themselves when there are several.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    pub median: f64,
    repeated: Vec<f64>,
}

impl Samples {
    /// The side of these samples; a list is made only for several.
    fn collect(mut values: impl Iterator<Item = f64>) -> Option<Samples> {
        let first = values.next()?;
        match values.next() {
            None => Some(Samples {
                median: first,
                repeated: Vec::new(),
            }),
            Some(second) => {
                let mut all = vec![first, second];
                all.extend(values);
                Samples::of(&all)
            }
        }
    }

    fn of(values: &[f64]) -> Option<Samples> {
        match values {
            [] => None,
            [one] => Some(Samples {
                median: *one,
                repeated: Vec::new(),
            }),
            many => {
                let mut samples = many.to_vec();
                samples.sort_by(f64::total_cmp);
                let mid = samples.len() / 2;
                let median = match (samples.get(mid.wrapping_sub(1)), samples.get(mid)) {
                    (Some(a), Some(b)) if samples.len().is_multiple_of(2) => (a + b) / 2.0,
                    (_, Some(m)) => *m,
                    _ => return None,
                };
                Some(Samples {
                    median,
                    repeated: samples,
                })
            }
        }
    }

    /// Every sample, sorted.
    pub fn samples(&self) -> &[f64] {
        if self.repeated.is_empty() {
            std::slice::from_ref(&self.median)
        } else {
            &self.repeated
        }
    }
}

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
}

impl RowResult<'_> {
    /// A re-run could change this row's verdict: it is noisy, or it
    /// regressed on a single sample per side.
    pub fn worth_rerun(&self) -> bool {
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
    /// Per key, the history's band, or why it gives none; empty without
    /// history.
    bands: Vec<Result<Band, NoBand>>,
    counts: [usize; CLASSES],
    /// Each row's class (its index in [`Class::ALL`]), so that a pass over
    /// the rows of some classes classifies only those.
    classes: Vec<u8>,
    worst: Option<usize>,
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
}

/// Compares the current tables with the samples of one baseline label.
pub fn compare<'t>(sides: Sides<'t>, config: &'t Config, thresholds: Thresholds) -> Comparison<'t> {
    let unavailable = sides.unavailable.or_else(|| {
        (sides.baseline.iter().all(|t| t.valid_rows() == 0))
            .then(|| "the baseline has no valid row".to_owned())
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
        bands: Vec::new(),
        counts: [0; CLASSES],
        classes: Vec::new(),
        worst: None,
        join,
        config,
        thresholds,
    };
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
        comparison.bands = (0..comparison.join.len())
            .map(|slot| comparison.band(slot))
            .collect();
    }
    // Every row classified once, the rows shared among the cores.
    let parts = parallel::ranges(comparison.join.len(), |range| comparison.tally(range));
    let mut worst: Option<(f64, usize)> = None;
    let mut classes = Vec::with_capacity(comparison.join.len());
    for part in parts {
        classes.extend(part.classes);
        for (total, n) in comparison.counts.iter_mut().zip(part.counts) {
            *total = total.saturating_add(n);
        }
        if let Some((change, slot)) = part.worst
            && worst.is_none_or(|(w, _)| change < w)
        {
            worst = Some((change, slot));
        }
    }
    comparison.worst = worst.map(|(_, slot)| slot);
    comparison.classes = classes;
    comparison
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
    counts: [usize; CLASSES],
    worst: Option<(f64, usize)>,
}

impl<'t> Comparison<'t> {
    fn tally(&self, range: std::ops::Range<usize>) -> Tally {
        let mut tally = Tally {
            classes: Vec::with_capacity(range.len()),
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
                && tally.worst.is_none_or(|(w, _)| change < w)
            {
                tally.worst = Some((change, slot));
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
            .filter_map(|slot| {
                let key = self.join.key(slot)?;
                let metric = self
                    .join
                    .rows(slot, BASELINE)
                    .find_map(|r| r.measure().map(|m| m.0))?;
                let baseline = Samples::collect(
                    self.join
                        .rows(slot, BASELINE)
                        .filter_map(|r| r.measure().map(|m| m.1)),
                )?
                .median;
                let current = Samples::collect(
                    self.join
                        .rows(slot, CURRENT)
                        .filter_map(|r| r.value(metric)),
                )?
                .median;
                Some(Medians {
                    key,
                    metric,
                    baseline,
                    current,
                })
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
    /// compared: inconclusive; else pass.
    pub fn verdict(&self) -> Verdict {
        if self.unavailable.is_some() {
            Verdict::Inconclusive
        } else if self.count(Class::Regressed) > 0 || self.count(Class::Lost) > 0 {
            Verdict::Regression
        } else if self.compared() == 0 {
            Verdict::Inconclusive
        } else {
            Verdict::Pass
        }
    }

    /// Whether a history was given.
    pub fn has_history(&self) -> bool {
        !self.bands.is_empty()
    }

    /// The rows whose history gave a band with which they could never
    /// fail: how many, and the first one's slot and band.
    pub fn unusable_history(&self) -> (usize, Option<(usize, NoBand)>) {
        let mut unusable = self
            .bands
            .iter()
            .enumerate()
            .filter_map(|(slot, b)| match b {
                Err(why @ NoBand::Unusable { .. }) => Some((slot, *why)),
                _ => None,
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

    fn band(&self, slot: usize) -> Result<Band, NoBand> {
        // The history's values of the metric the baseline measured.
        let metric = self
            .join
            .rows(slot, BASELINE)
            .find_map(|r| r.measure().map(|m| m.0));
        let values: Vec<f64> = match metric {
            Some(m) => self
                .join
                .rows(slot, HISTORY)
                .filter_map(|r| r.value(m))
                .collect(),
            None => Vec::new(),
        };
        noise::band(&values)
    }

    /// Classifies the row of `slot`. Called once per row and output
    /// pass, so the common case (one sample a side) allocates nothing.
    fn row(&self, slot: usize) -> Option<RowResult<'t>> {
        let key = self.join.key(slot)?;
        let rule = self
            .rules
            .get(slot)
            .filter(|r| **r != u32::MAX)
            .and_then(|r| usize::try_from(*r).ok());
        let policy = self.config.policy(rule, &self.thresholds);
        let mut out = RowResult {
            key,
            class: Class::Ignored,
            change: None,
            current: None,
            baseline: None,
            metric: None,
            reason: None,
            policy,
            applied: None,
        };
        if policy.ignore {
            out.reason = Some("ignored by the config".to_owned());
            return Some(out);
        }
        if self.not_selected.get(slot).copied().unwrap_or(false) {
            out.class = Class::NotSelected;
            out.reason = Some("its benchmark group was not selected for this change".to_owned());
            return Some(out);
        }
        let base_rows: Rows<'t> = self.join.rows(slot, BASELINE).collect();
        let cur_rows: Rows<'t> = self.join.rows(slot, CURRENT).collect();
        let base = || base_rows.iter().copied();
        let cur = || cur_rows.iter().copied();
        if base_rows.is_empty() {
            match cur().find_map(|r| r.measure()) {
                Some((metric, _)) => {
                    out.class = Class::New;
                    out.metric = Some(metric);
                    out.current = Samples::collect(cur().filter_map(|r| r.measure().map(|m| m.1)));
                }
                None => {
                    out.class = Class::NotComparable;
                    out.reason = Some(format!("not in the baseline; current: {}", reasons(cur())));
                }
            }
            return Some(out);
        }
        let Some((metric, _)) = base().find_map(|r| r.measure()) else {
            out.class = Class::NotComparable;
            out.reason = Some(format!("baseline: {}", reasons(base())));
            return Some(out);
        };
        out.metric = Some(metric);
        if base().any(|r| r.measure().is_some_and(|(m, _)| m != metric)) {
            out.class = Class::NotComparable;
            out.reason = Some("the baseline samples measured different metrics".to_owned());
            return Some(out);
        }
        out.baseline = Samples::collect(base().filter_map(|r| r.measure().map(|m| m.1)));
        out.current = Samples::collect(cur().filter_map(|r| r.value(metric)));
        if out.current.is_none() {
            self.lost(&mut out, &cur_rows, metric);
            return Some(out);
        }
        self.measured(&mut out, slot);
        Some(out)
    }

    /// Valid in the baseline, its metric not valid in current: lost, or
    /// skipped when current said `skip`.
    fn lost(&self, out: &mut RowResult<'t>, cur: &[RowView<'t>], metric: usize) {
        let column = |m: usize| {
            self.config
                .metrics
                .get(m)
                .map_or("the metric", |m| m.column.as_str())
        };
        if cur.is_empty() {
            out.class = Class::Lost;
            out.reason = Some("not in the current results".to_owned());
        } else if cur.iter().any(|r| r.status() == Status::Skip) {
            out.class = Class::Skipped;
            out.reason = Some("current: status is \"skip\"".to_owned());
        } else {
            out.class = Class::Lost;
            let why: Vec<String> = cur
                .iter()
                .map(|r| match (r.status(), r.measure()) {
                    (Status::Ok, Some((other, _))) if other != metric => format!(
                        "{} holds no positive number (the baseline measured it; current has only {})",
                        column(metric),
                        column(other)
                    ),
                    (_, _) if !r.reason().is_empty() => r.reason().to_owned(),
                    _ => format!("{} holds no positive number", column(metric)),
                })
                .collect();
            out.reason = Some(format!("current: {}", why.join("; ")));
        }
    }

    /// Both sides measured: how much worse or better, against which
    /// threshold, and whether noise explains it.
    fn measured(&self, out: &mut RowResult<'t>, slot: usize) {
        let (Some(base), Some(cur), Some(metric)) = (&out.baseline, &out.current, out.metric)
        else {
            return;
        };
        let policy = out.policy;
        let direction = policy
            .direction
            .or_else(|| self.config.metrics.get(metric).map(|m| m.direction))
            .unwrap_or(Direction::Higher);
        let change = (cur.median / base.median - 1.0) * direction.sign();
        out.change = Some(change);
        let band = match self.bands.get(slot) {
            Some(Ok(band)) => Some(*band),
            _ => None,
        };
        let applied = self.applied(&policy, slot, band, direction);
        out.applied = Some(applied);
        let beyond_floor = (cur.median - base.median).abs() > policy.floor;
        let (worse, better) = match (band, direction) {
            (Some(b), Direction::Higher) => (b.fall(), b.rise()),
            (Some(b), Direction::Lower) => (b.rise(), b.fall()),
            (None, _) => (0.0, 0.0),
        };
        let within_band = band.is_some() && -worse <= change && change <= better;
        let mut class = if !beyond_floor {
            Class::Unchanged
        } else if change < -applied.fail {
            Class::Regressed
        } else if change < -policy.warn && within_band {
            Class::Noisy
        } else if change < -policy.warn {
            Class::Warned
        } else if change > applied.fail.max(better) {
            Class::Improved
        } else {
            Class::Unchanged
        };
        if class == Class::Noisy
            && let Some(b) = band
        {
            out.reason = Some(format!(
                "within {}'s run-to-run noise: -{:.1}%/+{:.1}% over {} runs",
                self.label,
                b.fall() * 100.0,
                b.rise() * 100.0,
                b.runs
            ));
        }
        let repeated = base.samples().len() > 1 || cur.samples().len() > 1;
        if repeated
            && matches!(class, Class::Regressed | Class::Warned | Class::Improved)
            && !separated(base, cur, direction, change < 0.0)
        {
            class = Class::Noisy;
            out.reason = Some("the repeated runs of the two sides overlap".to_owned());
        }
        out.class = class;
    }

    /// The fail threshold for a row: configured, or with history the
    /// larger of it and the band on the worse side (`auto`: the band alone,
    /// never below [`defaults::AUTO_FLOOR`]); the configured one when the
    /// history gives no band.
    fn applied(
        &self,
        policy: &Policy,
        slot: usize,
        band: Option<Band>,
        direction: Direction,
    ) -> Applied {
        let configured = match policy.fail {
            FailThreshold::Fixed(f) => f,
            FailThreshold::Auto => defaults::FAIL_THRESHOLD,
        };
        match (self.bands.get(slot), band) {
            (Some(_), Some(band)) => {
                let worse = match direction {
                    Direction::Higher => band.fall(),
                    Direction::Lower => band.rise(),
                };
                Applied {
                    fail: match policy.fail {
                        FailThreshold::Fixed(f) => f.max(worse),
                        FailThreshold::Auto => worse.max(defaults::AUTO_FLOOR),
                    },
                    origin: Origin::Learned(band),
                }
            }
            (Some(Err(why)), None) => Applied {
                fail: configured,
                origin: Origin::NoBand {
                    why: *why,
                    source: policy.fail_source,
                },
            },
            _ => Applied {
                fail: configured,
                origin: Origin::Configured(policy.fail_source),
            },
        }
    }
}

/// The reasons rows are not valid, joined.
fn reasons<'a>(rows: impl Iterator<Item = RowView<'a>>) -> String {
    rows.map(|r| r.reason())
        .filter(|r| !r.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Every current sample is worse (or, for an improvement, better) than
/// every baseline sample: the sets do not overlap.
fn separated(base: &Samples, cur: &Samples, direction: Direction, worse: bool) -> bool {
    let (bmin, bmax) = bounds(base.samples());
    let (cmin, cmax) = bounds(cur.samples());
    let current_higher = cmin > bmax;
    let current_lower = cmax < bmin;
    match (direction, worse) {
        (Direction::Higher, true) | (Direction::Lower, false) => current_lower,
        (Direction::Higher, false) | (Direction::Lower, true) => current_higher,
    }
}

fn bounds(samples: &[f64]) -> (f64, f64) {
    samples
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        })
}

#[cfg(test)]
mod tests;
