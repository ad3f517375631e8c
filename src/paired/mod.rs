//! The paired verdict: the change and its baseline measured in the same
//! job, in rounds (each round runs both, in a random order), and each row
//! decided from the rounds' ratios. Pure: rounds in, decisions out; `bench`
//! (which rows to run again) and `compare` (the verdict) both ask it, so the
//! same files always give the same answer.
//!
//! Why pairs: what moves a whole machine (another VM, a slower night, a
//! noisy neighbour) moves both sides of a round alike, and the ratio of the
//! two cancels it (Abedi and Brecht, ICPE 2017; Laaber, Scheuner and
//! Leitner, EMSE 2019; duet benchmarking, Bulej et al., ICPE 2020). Each
//! round gives one number per row, `ln(current / baseline)` signed so that
//! positive is worse, and a row's change is their mean.
//!
//! How a row is decided, at each look of the [`schedule`]:
//! - each round's effect on every row (one side of the round slowed as a
//!   whole) is taken out ([`effects`]), and a round lying far from the
//!   row's others (a burst that hit part of one side's run) is set aside
//!   for that row (`OUTLIER`);
//! - its spread is its rounds' variance moderated by the suite's (limma's
//!   empirical Bayes prior, [`crate::series::prior`], fitted to every row's
//!   first look, each row's outlying rounds set aside there too): with
//!   three rounds a row's own spread is barely known, and the rows of one
//!   suite on one machine have spreads of a family. The
//!   statistic is Smyth's moderated t (2004), with the prior's degrees of
//!   freedom added to the row's own. The suite may widen a row's spread,
//!   never narrow it below the row's own: on real rounds a spike that hit
//!   one side of one round (the machine busy for a moment) is real noise
//!   of that row, and shrinking it away reads the spike as a change;
//! - `regressed`: worse beyond its fail threshold, and worse than nothing
//!   at the row's share of the false-alarm rate. That share is Holm's
//!   step-down (1979) over the rows not yet found worse, at the look's
//!   share of the rate: the chance that any unchanged row of the pull
//!   request fails, over every row and every look, stays at or under
//!   `--false-alarms` (the argument of Maurer and Bretz 2013 for Holm in
//!   group-sequential trials, with the union bound over looks);
//! - `unchanged`, `warned` or `improved`: the interval (at `MISS` on each
//!   side) rules out a change beyond the fail threshold; the estimate says
//!   which of the three;
//! - otherwise the row is in doubt: `noisy` with `rerun`, until the cap,
//!   where it stays `noisy` and the verdict counts it as undecided.

pub mod effects;
pub mod schedule;
pub mod tables;

pub use schedule::Schedule;
pub use tables::{Judged, judge};

use crate::contract::class::Class;
use crate::series::prior::Prior;
use crate::series::student;
use crate::series::{median_of, robust};
use effects::Effects;

/// The chance, at each look, that a row whose true change sits exactly at
/// its fail threshold is called unchanged (one side of the interval): 5%,
/// the level of the two one-sided tests of equivalence (Schuirmann 1987,
/// a 90% interval inside the margin). A row beyond the threshold by more
/// than its spread is almost never called unchanged, and each level
/// lower costs rounds on every unchanged row (1% needed 7 rounds a row on
/// real rounds where 5% needs 5).
pub const MISS: f64 = 0.05;

/// What a decision needs besides the rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The chance (a fraction) that a pull request changing nothing fails
    /// on some row, over every row and every look.
    pub false_alarms: f64,
    pub schedule: Schedule,
}

/// One row's rounds and thresholds, all as natural logs of ratios.
#[derive(Debug, Clone, PartialEq)]
pub struct RowRounds {
    /// Per round, in round order: `ln(current / baseline)`, positive worse.
    pub worse: Vec<f64>,
    /// The round (from 0) of each value of `worse`, ascending: a row a
    /// round lacks (its group not run again, its benchmark failed) skips
    /// that round's number.
    pub round: Vec<usize>,
    /// Worse beyond this fails (`ln(1 + f)` for a time, `-ln(1 - f)` for a
    /// rate, so that "10% worse" means what it means for each).
    pub fail: f64,
    /// Better beyond this is an improvement.
    pub better: f64,
    /// Worse beyond this (and a regression ruled out) is a warning.
    pub warn: f64,
}

/// A row decided, or still in doubt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    /// `Regressed`, `Warned`, `Improved`, `Unchanged` or `Noisy`.
    pub class: Class,
    /// The mean of the rounds used (log, positive worse).
    pub estimate: f64,
    /// The interval for it, `MISS` on each side; `None` when the rounds
    /// say nothing of the spread (one round, no suite to learn from).
    pub interval: Option<(f64, f64)>,
    /// The rounds the decision used.
    pub rounds: usize,
    /// One-sided chance of so much worse (or more) if nothing changed.
    pub p_worse: f64,
    /// Still in doubt, and more rounds could decide it.
    pub rerun: bool,
}

/// A row's statistics over its first `n` rounds.
#[derive(Debug, Clone, Copy)]
struct Stats {
    n: usize,
    mean: f64,
    /// The moderated standard error of the mean, and its degrees of freedom.
    se: f64,
    dof: f64,
}

fn mean_var(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let mean = values.iter().sum::<f64>() / n;
    let var = if values.len() < 2 {
        0.0
    } else {
        values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    };
    (mean, var)
}

fn stats(values: &[f64], inflation: f64, prior: Option<Prior>) -> Stats {
    let (mean, var) = mean_var(values);
    let var = var * inflation;
    let own = values.len().saturating_sub(1) as f64;
    let (var, dof) = match prior {
        // The suite may widen a row's spread, never narrow it below what
        // the row's own rounds show: a row with one wild round keeps it.
        Some(p) => {
            let (moderated, dof) = p.moderate(var, own);
            (moderated.max(var), dof)
        }
        None => (var, own),
    };
    Stats {
        n: values.len(),
        mean,
        se: (var.max(0.0) / values.len().max(1) as f64).sqrt(),
        dof,
    }
}

impl Stats {
    /// P(mean this worse or more | nothing changed), one-sided.
    fn p_worse(&self) -> f64 {
        if self.dof < 1.0 {
            return 1.0;
        }
        if self.se > 0.0 {
            return student::upper_tail(self.mean / self.se, self.dof);
        }
        // Rounds that all agree: certain, whichever way they point.
        if self.mean > 0.0 { 0.0 } else { 1.0 }
    }

    /// The interval, `MISS` on each side; `None` when nothing is known of
    /// the spread.
    fn interval(&self) -> Option<(f64, f64)> {
        if self.dof < 1.0 {
            return None;
        }
        let half = student::quantile(MISS, self.dof) * self.se;
        half.is_finite()
            .then_some((self.mean - half, self.mean + half))
    }
}

/// A round is set aside for a row when it lies further than this many
/// robust spreads (1.4826 times the median absolute deviation) from the
/// row's median: the outlier rule of Hampel (1974), at a bound wide
/// enough that normal noise almost never reaches it (six spreads: once in
/// five hundred million rounds). On real rounds, bursts that hit part of
/// one side's run (the last few benchmarks of a side, slowed by a third)
/// are what it sets aside; a round's effect on every row is taken out
/// before (`effects`).
const OUTLIER: f64 = 6.0;

/// Every row's rounds before one look, each round's effect taken out and
/// each row's outlying rounds set aside: made once per look, read by every
/// row judged there and by the suite's prior, so that a burst which hit a
/// few rows is neither their noise nor the suite's.
struct Window {
    look: usize,
    effects: Effects,
    /// Per row (as `rows`): how many rounds it has before the look, and
    /// its values there, adjusted, its outlying rounds set aside.
    rounds: Vec<usize>,
    kept: Vec<Vec<f64>>,
}

impl Window {
    fn new(rows: &[RowRounds], look: usize) -> Window {
        let effects = Effects::estimate(rows, look);
        let values: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| effects.adjusted(r, look).map(|(_, v)| v).collect())
            .collect();
        let mut scales: Vec<f64> = values
            .iter()
            .filter(|v| v.len() >= 3)
            .filter_map(|v| robust(v).map(|(_, spread)| spread))
            .collect();
        // The median over rows of three or more rounds of each row's robust
        // spread: a row whose few rounds happen to agree closely is not left
        // with a bound so narrow that ordinary noise crosses it.
        let scale = median_of(&mut scales).unwrap_or(0.0);
        let rounds = values.iter().map(Vec::len).collect();
        let kept = values
            .into_iter()
            .map(|mut v| {
                if let Some((centre, own)) = robust(&v).filter(|_| v.len() >= 3) {
                    let limit = OUTLIER * own.max(scale);
                    if limit > 0.0 {
                        v.retain(|x| (x - centre).abs() <= limit);
                    }
                }
                v
            })
            .collect();
        Window {
            look,
            effects,
            rounds,
            kept,
        }
    }

    /// Row `i`'s statistics at this look, its outlying rounds set aside.
    fn stats(&self, i: usize, row: &RowRounds, prior: Option<Prior>) -> Stats {
        let values = self.kept.get(i).map_or(&[][..], Vec::as_slice);
        Stats {
            n: self.rounds.get(i).copied().unwrap_or(0),
            ..stats(values, self.effects.inflation(row, self.look), prior)
        }
    }

    /// The suite's prior for spreads, from this look's kept rounds of every
    /// row (at least two).
    fn prior(&self, rows: &[RowRounds]) -> Option<Prior> {
        Prior::fit(
            rows.iter()
                .zip(&self.kept)
                .filter(|(_, used)| used.len() >= 2)
                .map(|(r, used)| {
                    (
                        mean_var(used).1 * self.effects.inflation(r, self.look),
                        used.len().saturating_sub(1) as f64,
                    )
                }),
        )
    }
}

/// A row's class once a regression beyond its threshold is ruled out.
fn settled(row: &RowRounds, mean: f64) -> Class {
    if mean < -row.better {
        Class::Improved
    } else if mean > row.warn {
        Class::Warned
    } else {
        Class::Unchanged
    }
}

/// Decides every row from its rounds (see the module's doc). The same
/// rounds and settings always give the same decisions.
pub fn decide(rows: &[RowRounds], settings: &Settings) -> Vec<Decision> {
    let looks = settings.schedule.looks();
    let first = looks.first().copied().unwrap_or(1);
    let mut window = Window::new(rows, first);
    let prior = window.prior(rows);
    let tested = rows.iter().filter(|r| !r.worse.is_empty()).count();
    let mut out: Vec<Option<Decision>> = vec![None; rows.len()];
    // Rows whose "no worse than before" was rejected, and by which look.
    let mut worse_found = vec![false; rows.len()];
    let mut found = 0usize;
    let mut previous = 0usize;
    for &look in &looks {
        let share = settings.false_alarms * settings.schedule.share(previous, look);
        if look != first {
            window = Window::new(rows, look);
        }
        // The rows in doubt that have rounds beyond the last look's.
        let mut active: Vec<(usize, Stats)> = rows
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                out.get(*i).is_some_and(Option::is_none)
                    && r.round.iter().any(|round| (previous..look).contains(round))
            })
            .map(|(i, r)| (i, window.stats(i, r, prior)))
            .collect();
        found = holm(&mut active, &mut worse_found, found, tested, share);
        for (i, s) in &active {
            let (Some(row), Some(slot)) = (rows.get(*i), out.get_mut(*i)) else {
                continue;
            };
            let worse = worse_found.get(*i).copied().unwrap_or(false);
            *slot = classify(row, s, worse);
        }
        previous = look;
    }
    // The last look is the cap: its window is the one left in `window`.
    let cap = window.look;
    rows.iter()
        .zip(out)
        .enumerate()
        .map(|(i, (row, decided))| {
            decided.unwrap_or_else(|| {
                let s = window.stats(i, row, prior);
                Decision {
                    class: Class::Noisy,
                    estimate: s.mean,
                    interval: s.interval(),
                    rounds: s.n,
                    p_worse: s.p_worse(),
                    rerun: s.n < cap,
                }
            })
        })
        .collect()
}

/// Holm's step-down at one look: the active rows not yet found worse, by
/// their chance of so much worse, each against `share` divided by the rows
/// of the suite not yet found worse (less those found before it at this
/// look). Marks the rows found worse; returns how many are now.
fn holm(
    active: &mut [(usize, Stats)],
    worse_found: &mut [bool],
    mut found: usize,
    tested: usize,
    share: f64,
) -> usize {
    let mut order: Vec<(f64, usize)> = active
        .iter()
        .filter(|(i, _)| !worse_found.get(*i).copied().unwrap_or(true))
        .map(|(i, s)| (s.p_worse(), *i))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (p, i) in order {
        let left = tested.saturating_sub(found).max(1);
        let level = share / left as f64;
        if p > level {
            break;
        }
        if let Some(flag) = worse_found.get_mut(i) {
            *flag = true;
            found = found.saturating_add(1);
        }
    }
    found
}

/// One row at one look: decided, or `None` while in doubt.
fn classify(row: &RowRounds, s: &Stats, worse: bool) -> Option<Decision> {
    let interval = s.interval();
    let decision = |class| Decision {
        class,
        estimate: s.mean,
        interval,
        rounds: s.n,
        p_worse: s.p_worse(),
        rerun: false,
    };
    if worse && s.mean > row.fail {
        return Some(decision(Class::Regressed));
    }
    let (_, high) = interval?;
    (high < row.fail).then(|| decision(settled(row, s.mean)))
}

#[cfg(test)]
mod tests;
