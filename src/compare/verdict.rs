//! The comparison itself, pure: result tables in, a class per row and a
//! verdict out. No I/O.
//!
//! Per baseline, over the union of the keys of current and baseline:
//! compared rows are `regressed`, `warned`, `improved` or `unchanged` by how
//! much worse or better the current median is (negative is worse, whichever
//! way the metric points), or `noisy` when repeated samples overlap; a row
//! valid in the baseline but not in current is `lost` (`skipped` when the
//! current row says `skip`); a row only current has is `new`; a row the
//! baseline has but could not measure is `not comparable`, and the rest of
//! the baseline is still compared. The gate's verdict is `regression` when
//! any row regressed or was lost, `inconclusive` when the baseline is
//! unavailable or nothing was compared, else `pass`.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::config::{Config, Direction, Policy};
use super::table::{Key, Table};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Regressed,
    Warned,
    Improved,
    Unchanged,
    Noisy,
    Lost,
    Skipped,
    New,
    NotComparable,
    Ignored,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Regressed => "regressed",
            Class::Warned => "warned",
            Class::Improved => "improved",
            Class::Unchanged => "unchanged",
            Class::Noisy => "noisy",
            Class::Lost => "lost",
            Class::Skipped => "skipped",
            Class::New => "new",
            Class::NotComparable => "not comparable",
            Class::Ignored => "ignored",
        }
    }

    /// Both sides measured: a dashboard line.
    pub fn compared(self) -> bool {
        matches!(
            self,
            Class::Regressed | Class::Warned | Class::Improved | Class::Unchanged | Class::Noisy
        )
    }

    /// What fails the gate.
    pub fn fails(self) -> bool {
        matches!(self, Class::Regressed | Class::Lost)
    }
}

/// One side of a row: the median of its samples (one per file that
/// measured it), and the samples themselves when there are several (one
/// sample is the median: no list is allocated for the common case).
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub median: f64,
    repeated: Vec<f64>,
}

impl Side {
    fn of(values: &[(usize, f64)]) -> Option<Side> {
        match values {
            [] => None,
            [(_, one)] => Some(Side {
                median: *one,
                repeated: Vec::new(),
            }),
            many => {
                let mut samples: Vec<f64> = many.iter().map(|(_, v)| *v).collect();
                samples.sort_by(f64::total_cmp);
                let mid = samples.len() / 2;
                let median = match (samples.get(mid.wrapping_sub(1)), samples.get(mid)) {
                    (Some(a), Some(b)) if samples.len().is_multiple_of(2) => (a + b) / 2.0,
                    (_, Some(m)) => *m,
                    _ => return None,
                };
                Some(Side {
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

impl Serialize for Side {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut side = serializer.serialize_struct("Side", 2)?;
        side.serialize_field("median", &self.median)?;
        side.serialize_field("samples", self.samples())?;
        side.end()
    }
}

/// The result for one key against one baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct RowResult {
    pub key: Key,
    pub class: Class,
    /// current / baseline - 1, signed so that negative is worse (a fraction).
    pub change: Option<f64>,
    pub current: Option<Side>,
    pub baseline: Option<Side>,
    /// The metric compared (index into the config's metrics).
    pub metric: Option<usize>,
    /// Why the row is lost, skipped or not comparable.
    pub reason: Option<String>,
    pub policy: Policy,
}

/// The comparison against one baseline label.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub label: String,
    /// Why the baseline is unavailable (absent, unreadable, no valid row).
    pub unavailable: Option<String>,
    pub rows: Vec<RowResult>,
}

impl Comparison {
    pub fn count(&self, class: Class) -> usize {
        self.rows.iter().filter(|r| r.class == class).count()
    }

    pub fn compared(&self) -> usize {
        self.rows.iter().filter(|r| r.class.compared()).count()
    }

    /// The compared row with the most negative change.
    pub fn worst(&self) -> Option<&RowResult> {
        self.rows
            .iter()
            .filter(|r| r.class.compared())
            .filter_map(|r| r.change.map(|c| (c, r)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, r)| r)
    }

    /// Unavailable: inconclusive; a regressed or lost row: regression (a
    /// lost row counts even when nothing else could be compared); nothing
    /// compared: inconclusive; else pass.
    pub fn verdict(&self) -> Verdict {
        if self.unavailable.is_some() {
            Verdict::Inconclusive
        } else if self.rows.iter().any(|r| r.class.fails()) {
            Verdict::Regression
        } else if self.compared() == 0 {
            Verdict::Inconclusive
        } else {
            Verdict::Pass
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Regression,
    Inconclusive,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Regression => "regression",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// What the sample files of one side say of one key, gathered when the
/// key is compared, into buffers reused for every key.
#[derive(Default)]
struct Samples {
    /// Valid values, by metric.
    values: Vec<(usize, f64)>,
    /// Why the rows that are not valid are not.
    reasons: Vec<String>,
    skipped: bool,
    present: bool,
}

/// Every key of the baseline and current tables once, baseline order
/// first, with the row each table has for it: one map, each key hashed
/// once per table.
struct Keys<'a> {
    keys: Vec<&'a Key>,
    /// The baseline's tables, then current's.
    tables: Vec<&'a Table>,
    baseline_tables: usize,
    /// `keys.len() x tables.len()` row numbers; `u32::MAX` where absent.
    rows: Vec<u32>,
}

impl<'a> Keys<'a> {
    fn new(baseline: &'a [Table], current: &'a [Table]) -> Keys<'a> {
        let tables: Vec<&Table> = baseline.iter().chain(current).collect();
        let width = tables.len();
        let most = tables.iter().map(|t| t.rows.len()).max().unwrap_or(0);
        let mut slots: FxHashMap<&Key, usize> =
            FxHashMap::with_capacity_and_hasher(most, Default::default());
        let mut keys = Vec::with_capacity(most);
        let mut rows: Vec<u32> = Vec::with_capacity(most.saturating_mul(width));
        for (t, table) in tables.iter().enumerate() {
            for (r, row) in table.rows.iter().enumerate() {
                let slot = *slots.entry(&row.key).or_insert_with(|| {
                    keys.push(&row.key);
                    rows.resize(rows.len().saturating_add(width), u32::MAX);
                    keys.len().saturating_sub(1)
                });
                if let Some(cell) = rows.get_mut(slot.saturating_mul(width).saturating_add(t)) {
                    *cell = u32::try_from(r).unwrap_or(u32::MAX);
                }
            }
        }
        Keys {
            keys,
            baseline_tables: baseline.len(),
            tables,
            rows,
        }
    }

    /// Fills `s` (cleared first, its buffers kept) with what the tables of
    /// one side say of the key in `slot`; false when none has it.
    fn fill(&self, slot: usize, baseline: bool, s: &mut Samples) -> bool {
        s.values.clear();
        s.reasons.clear();
        s.skipped = false;
        s.present = false;
        let width = self.tables.len();
        let side = if baseline {
            0..self.baseline_tables
        } else {
            self.baseline_tables..width
        };
        for t in side {
            let row = self
                .rows
                .get(slot.saturating_mul(width).saturating_add(t))
                .filter(|&&r| r != u32::MAX)
                .and_then(|&r| self.tables.get(t)?.rows.get(usize::try_from(r).ok()?));
            let Some(row) = row else { continue };
            s.present = true;
            s.skipped |= row.skipped;
            match &row.measure {
                Ok(m) => s.values.push((m.metric, m.value)),
                Err(reason) => s.reasons.push(reason.clone()),
            }
        }
        s.present
    }
}

impl Samples {
    /// The metric of the valid samples, when they all measured the same one.
    fn metric(&self) -> Result<Option<usize>, String> {
        let mut metrics = self.values.iter().map(|(m, _)| *m);
        let first = metrics.next();
        if metrics.any(|m| Some(m) != first) {
            return Err("the samples measured different metrics".to_owned());
        }
        Ok(first)
    }
}

/// The thresholds as given: percentages.
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    pub fail_pct: f64,
    pub warn_pct: f64,
}

/// Compares `current` with the samples of one baseline label.
pub fn compare(
    label: &str,
    current: &[Table],
    baseline: &[Table],
    unavailable: Option<String>,
    config: &Config,
    thresholds: Thresholds,
) -> Comparison {
    let unavailable = unavailable.or_else(|| {
        (baseline.iter().all(|t| t.valid_rows() == 0))
            .then(|| "the baseline has no valid row".to_owned())
    });
    let mut rows = Vec::new();
    if unavailable.is_none() {
        let keys = Keys::new(baseline, current);
        rows.reserve(keys.keys.len());
        let (mut b, mut c) = (Samples::default(), Samples::default());
        for (slot, key) in keys.keys.iter().enumerate() {
            let fields: Vec<&str> = if config.rules.is_empty() {
                Vec::new()
            } else {
                key.fields().collect()
            };
            let policy = config.policy(&fields, thresholds.fail_pct, thresholds.warn_pct);
            let in_base = keys.fill(slot, true, &mut b);
            let in_cur = keys.fill(slot, false, &mut c);
            rows.push(row(
                key,
                in_base.then_some(&b),
                in_cur.then_some(&c),
                policy,
                config,
            ));
        }
    }
    Comparison {
        label: label.to_owned(),
        unavailable,
        rows,
    }
}

fn result(key: &Key, class: Class, reason: Option<String>, policy: Policy) -> RowResult {
    RowResult {
        key: key.clone(),
        class,
        change: None,
        current: None,
        baseline: None,
        metric: None,
        reason,
        policy,
    }
}

fn row(
    key: &Key,
    base: Option<&Samples>,
    cur: Option<&Samples>,
    policy: Policy,
    config: &Config,
) -> RowResult {
    let reasons = |s: &Samples| s.reasons.join("; ");
    let cur_valid = cur.filter(|c| !c.values.is_empty());
    let mut out = match (base, cur_valid) {
        _ if policy.ignore => result(
            key,
            Class::Ignored,
            Some("ignored by the config".to_owned()),
            policy,
        ),
        (None, Some(_)) => result(key, Class::New, None, policy),
        (None, None) => result(
            key,
            Class::NotComparable,
            Some(format!(
                "not in the baseline; current: {}",
                cur.map(reasons).unwrap_or_default()
            )),
            policy,
        ),
        (Some(b), _) if b.values.is_empty() => result(
            key,
            Class::NotComparable,
            Some(format!("baseline: {}", reasons(b))),
            policy,
        ),
        (Some(_), None) => lost(key, cur, policy),
        (Some(b), Some(c)) => return measured(key, b, c, policy, config),
    };
    out.baseline = base.and_then(|b| Side::of(&b.values));
    out.current = cur.and_then(|c| Side::of(&c.values));
    out.metric = [base, cur]
        .into_iter()
        .flatten()
        .find_map(|s| s.metric().ok().flatten());
    out
}

/// Valid in the baseline, not in current: lost, or skipped when current
/// said `skip`.
fn lost(key: &Key, cur: Option<&Samples>, policy: Policy) -> RowResult {
    match cur {
        None => result(
            key,
            Class::Lost,
            Some("not in the current results".to_owned()),
            policy,
        ),
        Some(c) if c.skipped => result(
            key,
            Class::Skipped,
            Some("current: status is \"skip\"".to_owned()),
            policy,
        ),
        Some(c) => result(
            key,
            Class::Lost,
            Some(format!("current: {}", c.reasons.join("; "))),
            policy,
        ),
    }
}

/// Both sides measured: how much worse or better, and whether the samples
/// say it clearly.
fn measured(key: &Key, b: &Samples, c: &Samples, policy: Policy, config: &Config) -> RowResult {
    let metric = match (b.metric(), c.metric()) {
        (Ok(Some(mb)), Ok(Some(mc))) if mb == mc => mb,
        (Ok(Some(mb)), Ok(Some(mc))) => {
            let unit = |m: usize| config.metrics.get(m).map_or("?", |m| m.unit.as_str());
            let why = format!("the baseline measured {}, current {}", unit(mb), unit(mc));
            return result(key, Class::NotComparable, Some(why), policy);
        }
        (Err(why), _) | (_, Err(why)) => {
            return result(key, Class::NotComparable, Some(why), policy);
        }
        _ => return result(key, Class::NotComparable, None, policy),
    };
    let direction = policy
        .direction
        .or_else(|| config.metrics.get(metric).map(|m| m.direction))
        .unwrap_or(Direction::Higher);
    let (Some(base), Some(cur)) = (Side::of(&b.values), Side::of(&c.values)) else {
        return result(key, Class::NotComparable, None, policy);
    };
    let change = (cur.median / base.median - 1.0) * direction.sign();
    let beyond_floor = (cur.median - base.median).abs() > policy.floor;
    let mut class = if !beyond_floor {
        Class::Unchanged
    } else if change < -policy.fail {
        Class::Regressed
    } else if change < -policy.warn {
        Class::Warned
    } else if change > policy.fail {
        Class::Improved
    } else {
        Class::Unchanged
    };
    let repeated = base.samples().len() > 1 || cur.samples().len() > 1;
    if repeated && class != Class::Unchanged && !separated(&base, &cur, direction, change < 0.0) {
        class = Class::Noisy;
    }
    RowResult {
        key: key.clone(),
        class,
        change: Some(change),
        current: Some(cur),
        baseline: Some(base),
        metric: Some(metric),
        reason: None,
        policy,
    }
}

/// Every current sample is worse (or, for an improvement, better) than
/// every baseline sample: the sets do not overlap.
fn separated(base: &Side, cur: &Side, direction: Direction, worse: bool) -> bool {
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
mod tests {
    use super::*;
    use crate::compare::table::parse;
    use std::path::Path;

    const HEADER: &str = "op,shape,dtype,tbps,tflops,status\n";

    fn t(rows: &str) -> Table {
        let c = Config::default();
        parse(
            Path::new("t.csv"),
            format!("{HEADER}{rows}").as_bytes(),
            &c.keys,
            &c.metrics,
        )
        .unwrap()
    }

    fn one(base: &str, cur: &str) -> RowResult {
        let th = Thresholds {
            fail_pct: 10.0,
            warn_pct: 3.0,
        };
        let c = compare("main", &[t(cur)], &[t(base)], None, &Config::default(), th);
        c.rows
            .into_iter()
            .find(|r| r.key.fields().next() == Some("x"))
            .unwrap()
    }

    #[test]
    fn each_class() {
        let ok = |v: f64| format!("x,1,bf16,-,{v},ok\n");
        assert_eq!(one(&ok(100.0), &ok(85.0)).class, Class::Regressed);
        assert_eq!(one(&ok(100.0), &ok(95.0)).class, Class::Warned);
        assert_eq!(one(&ok(100.0), &ok(98.0)).class, Class::Unchanged);
        assert_eq!(
            one(&ok(100.0), &ok(90.0)).class,
            Class::Warned,
            "exactly 10% is not more than 10%"
        );
        assert_eq!(one(&ok(100.0), &ok(111.0)).class, Class::Improved);
        assert_eq!(one(&ok(100.0), "y,1,bf16,-,1,ok\n").class, Class::Lost);
        assert_eq!(one(&ok(100.0), "x,1,bf16,-,-,missing\n").class, Class::Lost);
        assert_eq!(one(&ok(100.0), "x,1,bf16,-,-,skip\n").class, Class::Skipped);
        assert_eq!(one("y,1,bf16,-,1,ok\n", &ok(1.0)).class, Class::New);
        let nc = one("x,1,bf16,-,-,missing\ny,1,bf16,-,1,ok\n", &ok(1.0));
        assert_eq!(nc.class, Class::NotComparable);
        assert_eq!(
            nc.reason.as_deref(),
            Some("baseline: status is \"missing\"")
        );
        let units = one("x,1,bf16,3.9,-,ok\n", &ok(1.0));
        assert_eq!(units.class, Class::NotComparable);
        assert!(units.reason.unwrap().contains("TB/s, current TFLOPS"));
        let r = one(&ok(100.0), &ok(85.0));
        assert!((r.change.unwrap() + 0.15).abs() < 1e-12);
    }

    #[test]
    fn repeated_samples_must_not_overlap_to_fail() {
        let th = Thresholds {
            fail_pct: 10.0,
            warn_pct: 3.0,
        };
        let run = |base: &[f64], cur: &[f64]| {
            let tables = |vs: &[f64]| -> Vec<Table> {
                vs.iter()
                    .map(|v| t(&format!("x,1,bf16,-,{v},ok\n")))
                    .collect()
            };
            compare(
                "main",
                &tables(cur),
                &tables(base),
                None,
                &Config::default(),
                th,
            )
            .rows[0]
                .class
        };
        assert_eq!(
            run(&[100.0, 101.0, 99.0], &[80.0, 82.0, 84.0]),
            Class::Regressed
        );
        assert_eq!(
            run(&[100.0, 101.0, 70.0], &[80.0, 82.0, 84.0]),
            Class::Noisy
        );
        assert_eq!(
            run(&[100.0], &[85.0]),
            Class::Regressed,
            "one sample each: the threshold decides"
        );
    }

    #[test]
    fn the_gate_verdict() {
        let th = Thresholds {
            fail_pct: 10.0,
            warn_pct: 3.0,
        };
        let cfg = Config::default();
        let verdict =
            |b: &str, c: &str| compare("main", &[t(c)], &[t(b)], None, &cfg, th).verdict();
        assert_eq!(
            verdict("x,1,bf16,-,100,ok\n", "x,1,bf16,-,99,ok\n"),
            Verdict::Pass
        );
        assert_eq!(
            verdict("x,1,bf16,-,100,ok\n", "x,1,bf16,-,80,ok\n"),
            Verdict::Regression
        );
        assert_eq!(
            verdict("x,1,bf16,-,100,ok\ny,1,b,-,1,ok\n", "x,1,bf16,-,100,ok\n"),
            Verdict::Regression
        );
        assert_eq!(
            verdict("x,1,bf16,-,-,missing\n", "x,1,bf16,-,100,ok\n"),
            Verdict::Inconclusive
        );
        assert_eq!(
            verdict("y,1,bf16,-,1,ok\n", "x,1,bf16,-,100,ok\n"),
            Verdict::Regression,
            "y lost"
        );
        let unavailable = compare(
            "main",
            &[t("x,1,b,-,1,ok\n")],
            &[],
            Some("absent".into()),
            &cfg,
            th,
        );
        assert_eq!(unavailable.verdict(), Verdict::Inconclusive);
    }

    #[test]
    fn floors_directions_and_ignores_from_the_config() {
        let th = Thresholds {
            fail_pct: 10.0,
            warn_pct: 3.0,
        };
        let cfg = Config::parse(
            "[[rules]]\nmatch = [\"op=lat*\"]\ndirection = \"lower\"\n[[rules]]\nmatch = [\"op=tiny\"]\nfloor = 1.0\n[[rules]]\nmatch = [\"op=skipme\"]\nignore = true\n",
        )
        .unwrap();
        let b = t("lat,1,b,-,10,ok\ntiny,1,b,-,0.5,ok\nskipme,1,b,-,100,ok\n");
        let c = t("lat,1,b,-,12,ok\ntiny,1,b,-,0.1,ok\nskipme,1,b,-,1,ok\n");
        let rows = compare("main", &[c], &[b], None, &cfg, th).rows;
        assert_eq!(
            rows[0].class,
            Class::Regressed,
            "lower is better: 10 -> 12 is 20% worse"
        );
        assert!((rows[0].change.unwrap() + 0.2).abs() < 1e-12);
        assert_eq!(
            rows[1].class,
            Class::Unchanged,
            "0.4 below the floor of 1.0"
        );
        assert_eq!(rows[2].class, Class::Ignored);
    }
}
