//! One row's history on main, judged: where its level changed, by how
//! much, and whether the change stayed. Pure: the row's values in run
//! order in, its changes out.
//!
//! The series is read in log space (a ratio is a ratio at any scale).
//! Single-run outliers are taken out first and listed apart: one odd run
//! is not a level. The rest is split at its change points by
//! `series::segment` (the segmentation compare's noise bands use, one
//! implementation): each change point's levels before and after are the
//! medians of its two segments, its change is signed so that negative is
//! worse, and it is `persistent` when its level held [`HOLD`] runs (no
//! level that starts within them gives back over half of it), else
//! `transient`, one change with the change point that brought it back. The
//! search is the thorough one (`Test::thorough`): a step two runs from the
//! start, or one a second step undid, is looked for. A slow creep has no single step: when a
//! creep to the last run (flat, then a straight line from some run on; or
//! one line over the whole window) explains the series better than its
//! steps (by BIC, which charges each change point for its position and
//! level), its slope is significant and it adds up to `min_change`, the row
//! is a `drift` of its total size from the run it starts at instead.

use crate::series::fit::Line;
use crate::series::segment::{self, Test};
use crate::series::{self, robust, student};

/// A change point's significance after the correction for the change
/// points kept (the segmentation's strict level). Strict, because a main
/// branch has many rows and many runs: at most about one false change
/// point per 1,000 row-runs (BENCHMARKS.md).
pub const ALPHA: f64 = 0.0001;
/// A run is an outlier when it is this many robust deviations (and
/// `min_change`) from the runs around it while its neighbours are not.
const OUTLIER_CUT: f64 = 8.0;
/// The runs on each side an outlier is judged against.
const WINDOW: usize = 3;
/// Where a creep may start, at most this many positions tried per row
/// (plus its change points).
const HINGES: usize = 64;
/// A change is persistent when its level held this many runs (no later
/// level that starts within them holds less than half of it), transient
/// when it came back sooner; the level of the last run decides for a
/// change fewer runs from the end. A level that held this long and was
/// then undone by a second step is two persistent changes (the second one
/// its fix), not a transient one.
pub const HOLD: usize = 5;
/// Too few runs to tell a change from noise.
pub const MIN_RUNS: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The level changed and held [`HOLD`] runs (or to the last run).
    Persistent,
    /// The level changed and came back within [`HOLD`] runs.
    Transient,
    /// No single step: a slope over the whole window.
    Drift,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Persistent => "persistent",
            Kind::Transient => "transient",
            Kind::Drift => "drift",
        }
    }
}

/// A change of a row's level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// The run it starts at (for a drift, the first run of the window), as
    /// a position in the whole history.
    pub run: usize,
    /// The levels before and after (a drift: the line at its ends).
    pub before: f64,
    pub after: f64,
    /// The robust spread of each side, a fraction of its level.
    pub before_spread: f64,
    pub after_spread: f64,
    /// after/before - 1, times +1 when higher is better and -1 when lower
    /// is: negative is worse.
    pub change: f64,
    pub kind: Kind,
}

impl Change {
    pub fn is_regression(&self) -> bool {
        self.change < 0.0
    }
}

/// What a row's history says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Judged {
    pub changes: Vec<Change>,
    /// Single-run outliers (positions in the whole history), not changes.
    pub outliers: Vec<usize>,
    /// Runs that had a value.
    pub runs: usize,
}

/// Judges one row: `values` are (run, value) in run order, only the runs
/// that have the row (a value that is not a positive finite number is left
/// out). `sign` is +1 when higher is better, -1 when lower is;
/// `min_change` a fraction (0.05).
pub fn judge(values: &[(usize, f64)], sign: f64, min_change: f64) -> Judged {
    let (at, logs): (Vec<usize>, Vec<f64>) = values
        .iter()
        .filter(|(_, v)| v.is_finite() && *v > 0.0)
        .map(|(i, v)| (*i, v.ln()))
        .unzip();
    let mut judged = Judged {
        runs: logs.len(),
        ..Judged::default()
    };
    if logs.len() < MIN_RUNS {
        return judged;
    }
    let smallest = (1.0 + min_change.max(1e-6)).ln();
    let odd = outliers(&logs, smallest);
    let (kept_at, kept): (Vec<usize>, Vec<f64>) = at
        .iter()
        .zip(&logs)
        .enumerate()
        .filter(|(i, _)| !odd.contains(i))
        .map(|(_, (a, y))| (*a, *y))
        .unzip();
    judged.outliers = odd.iter().filter_map(|i| at.get(*i).copied()).collect();
    let test = Test {
        alpha: ALPHA,
        min_change: smallest,
        thorough: true,
    };
    let points = segment::change_points(&kept, test);
    if let Some(d) = drift(&kept, &points, smallest) {
        judged.changes.push(Change {
            run: kept_at.get(d.start).copied().unwrap_or(0),
            change: sign * series::step_change(d.after - d.before),
            before: series::level_of(d.before),
            after: series::level_of(d.after),
            before_spread: d.spread,
            after_spread: d.spread,
            kind: Kind::Drift,
        });
        return judged;
    }
    judged.changes = steps(&kept, &kept_at, &points, sign, smallest);
    judged
}

/// The change points as changes: levels, spreads, and whether each stayed.
/// A transient change and the change point that brought it back are one
/// change: the return is not listed apart (as a change the other way),
/// unless it lands `smallest` or more away from where the transient
/// started (a new level of its own).
fn steps(
    kept: &[f64],
    kept_at: &[usize],
    points: &[usize],
    sign: f64,
    smallest: f64,
) -> Vec<Change> {
    let parts = segment::segments(kept.len(), points);
    let levels: Vec<(f64, f64)> = parts
        .iter()
        .map(|r| level(kept.get(r.clone()).unwrap_or_default()))
        .collect();
    let mut returns = vec![false; points.len()];
    let mut out = Vec::with_capacity(points.len());
    for (j, p) in points.iter().enumerate() {
        let (Some(before), Some(after)) =
            (levels.get(j), j.checked_add(1).and_then(|a| levels.get(a)))
        else {
            continue;
        };
        let step = after.0 - before.0;
        // The first later level, within HOLD runs, that gave back over half of it.
        let back = (j.saturating_add(2)..levels.len())
            .take_while(|s| {
                parts
                    .get(*s)
                    .is_some_and(|r| r.start < p.saturating_add(HOLD))
            })
            .find(|s| {
                levels
                    .get(*s)
                    .is_some_and(|l| held(before.0, step, l.0) < 0.5)
            });
        if let Some(s) = back {
            let lands = levels.get(s).map_or(0.0, |l| (l.0 - before.0).abs());
            if let Some(r) = s.checked_sub(1).and_then(|r| returns.get_mut(r)) {
                *r = lands < smallest;
            }
        }
        if returns.get(j).copied().unwrap_or(false) {
            continue;
        }
        out.push(Change {
            run: kept_at.get(*p).copied().unwrap_or(0),
            before: series::level_of(before.0),
            after: series::level_of(after.0),
            before_spread: series::step_change(before.1),
            after_spread: series::step_change(after.1),
            change: sign * series::step_change(step),
            kind: if back.is_some() {
                Kind::Transient
            } else {
                Kind::Persistent
            },
        });
    }
    out
}

/// The share of a `step` from `before` that a later level still holds
/// (logs): 1 all of it, 0 none, below 0 past where it started.
fn held(before: f64, step: f64, later: f64) -> f64 {
    if step == 0.0 {
        0.0
    } else {
        (later - before) / step
    }
}

/// A segment's level (median) and robust spread (1.4826 x MAD), in logs.
fn level(values: &[f64]) -> (f64, f64) {
    robust(values).unwrap_or((0.0, 0.0))
}

/// Positions (in `logs`) of single-run outliers: further than
/// [`OUTLIER_CUT`] robust deviations and `smallest` from the median of the
/// [`WINDOW`] runs on each side, and that far from each neighbour too (the
/// first run of a new level is as near its next run as the level is).
fn outliers(logs: &[f64], smallest: f64) -> Vec<usize> {
    let odd = |i: usize| -> Option<bool> {
        let lo = i.saturating_sub(WINDOW);
        let hi = i.saturating_add(WINDOW).saturating_add(1).min(logs.len());
        let around: Vec<f64> = (lo..hi)
            .filter(|j| *j != i)
            .filter_map(|j| logs.get(j).copied())
            .collect();
        if around.len() < 2 {
            return None;
        }
        let (median, spread) = level(&around);
        let value = *logs.get(i)?;
        let cut = (OUTLIER_CUT * spread).max(smallest);
        let apart = |j: Option<usize>| {
            j.and_then(|j| logs.get(j))
                .is_none_or(|n| (value - n).abs() > cut)
        };
        Some((value - median).abs() > cut && apart(i.checked_sub(1)) && apart(i.checked_add(1)))
    };
    (0..logs.len()).filter(|&i| odd(i) == Some(true)).collect()
}

/// A drift found: where the creep starts (a position in `kept`), the
/// level before it and at the last run (logs), and the spread about the
/// line (a fraction).
struct Drift {
    start: usize,
    before: f64,
    after: f64,
    spread: f64,
}

/// The best hinge: flat up to `h`, then a straight line to the last run
/// (`h` = 0 is one line over the whole window), by least squares on
/// `max(0, i - h)`, with the BIC of its fit (2 parameters for a line, 3
/// with the hinge's position).
/// At most [`HINGES`] positions are tried (every run of a short history,
/// every few runs of a long one, and each change point), so a row costs
/// at most that many fits whatever its length.
fn hinge(kept: &[f64], points: &[usize]) -> Option<(usize, Line, f64)> {
    let n = kept.len();
    let nf = n as f64;
    let last = n.saturating_sub(2);
    let stride = n.div_ceil(HINGES).max(1);
    let mut tried: Vec<usize> = (0..last)
        .step_by(stride)
        .chain(points.iter().copied())
        .collect();
    tried.retain(|h| *h < last);
    tried.sort_unstable();
    tried.dedup();
    let mut best: Option<(usize, Line, f64)> = None;
    for h in tried {
        let xs: Vec<f64> = (0..n).map(|i| i.saturating_sub(h) as f64).collect();
        let Some(line) = Line::fit(&xs, kept) else {
            continue;
        };
        let params = if h == 0 { 2.0 } else { 3.0 };
        let score = bic(nf, line.rss, params);
        if best.as_ref().is_none_or(|b| score < b.2) {
            best = Some((h, line, score));
        }
    }
    best
}

/// The Bayesian information criterion of a fit of `n` runs.
fn bic(n: f64, rss: f64, params: f64) -> f64 {
    n * (rss.max(1e-300) / n).ln() + params * n.ln()
}

/// A drift, when a creep to the last run (a hinge: flat, then a line)
/// explains `kept` better than its steps, its slope is significant and it
/// adds up to at least `smallest`.
fn drift(kept: &[f64], points: &[usize], smallest: f64) -> Option<Drift> {
    let n = kept.len();
    let nf = n as f64;
    let (start, line, score) = hinge(kept, points)?;
    let span = n.saturating_sub(1).saturating_sub(start) as f64;
    let total = line.slope * span;
    if total.abs() < smallest || line.dof() < 2 || line.sxx <= 0.0 {
        return None;
    }
    let se = (line.rss / line.dof() as f64 / line.sxx).sqrt();
    let t = if se > 1e-12 {
        line.slope.abs() / se
    } else {
        f64::INFINITY
    };
    if 2.0 * student::upper_tail(t, line.dof() as f64) >= ALPHA {
        return None;
    }
    let steps_rss: f64 = segment::segments(n, points)
        .iter()
        .map(|r| {
            let side = kept.get(r.clone()).unwrap_or_default();
            let mean = side.iter().sum::<f64>() / side.len().max(1) as f64;
            side.iter().map(|v| (v - mean).powi(2)).sum::<f64>()
        })
        .sum();
    if score >= bic(nf, steps_rss, 1.0 + 2.0 * points.len() as f64) {
        return None;
    }
    Some(Drift {
        start,
        before: line.at(0.0),
        after: line.at(span),
        spread: series::step_change((line.rss / line.dof() as f64).sqrt()),
    })
}

#[cfg(test)]
mod tests;
