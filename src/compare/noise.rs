//! How much a row moves from run to run when nothing changed, learned from
//! the history of the gate baseline's branch (`--history`: past runs, in
//! run order), and where its level is now. Pure: samples in, a band out.
//!
//! Measured on public benchmark histories (BENCHMARKS.md, "Real
//! material"): real histories hold level shifts (real performance changes
//! on main), slow drifts, single runs far off on a cloud machine, and rows
//! that land on one of two levels. So, in log space (ratios: scaling a
//! file changes nothing), with the statistics of [`crate::series`]:
//!
//! 1. Gross outliers go (further than [`fit::CUT`] robust deviations from
//!    the median): one run 60% off must not make a row unjudgeable.
//! 2. A row whose runs sit on two levels (alternating 100 and 60) cannot be
//!    judged by a band: [`NoBand::TwoLevels`], its configured threshold
//!    applies and a warning says why.
//! 3. The change points of the history (binary segmentation with a
//!    two-sample t test, [`segment`]) split it into levels; within each, a
//!    drift is a line when its slope is significant. The run-to-run noise
//!    is the residual spread pooled over the segments, with their degrees
//!    of freedom: a row with past shifts gets the band of its quiet
//!    stretches, a drifting row the band of its residuals.
//! 4. Across the rows of one comparison, the spreads are moderated
//!    ([`prior`], limma's empirical Bayes): ten runs tell a row's spread
//!    only roughly, and the other rows of the suite say what spreads are
//!    usual.
//! 5. The level of the last segment (its line, extended to the next run)
//!    is what the baseline run is checked against ([`Noise::off_level`]);
//!    a baseline on it is counted with it ([`Noise::reference`]), so a
//!    change is measured against main's level known from several runs,
//!    not against one run's noise.
//! 6. The band of a change is the one-sided Student t quantile at the
//!    row's share of the pull request's false-alarm rate ([`row_rate`]),
//!    times the spread of one run against the reference; every current
//!    run must stray beyond it. A row can always fail by a large enough
//!    drop, a band is finite, and a band whose fall reaches 100% is
//!    [`NoBand::Unusable`].

use crate::series::prior::Prior;
use crate::series::segment::{self, Test};
use crate::series::{self, fit, student};

/// A row's run-to-run noise band: a ratio, as the noise is multiplicative.
/// A value within a factor of `e^log` of the baseline, either way, is
/// explained by noise; so a fall is noise down to `1 - e^-log` (never 100%:
/// a large enough drop always fails) and a rise up to `e^log - 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// The band in log space (natural log of the ratio), finite.
    pub log: f64,
    /// The history runs it was learned from (valid samples of the row).
    pub runs: usize,
}

impl Band {
    /// The largest fall (a fraction) noise explains: `1 - e^-log`.
    pub fn fall(&self) -> f64 {
        -(-self.log).exp_m1()
    }

    /// The largest rise (a fraction) noise explains: `e^log - 1`.
    pub fn rise(&self) -> f64 {
        self.log.exp_m1()
    }
}

/// Why a row's history gives no band: the configured threshold judges it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoBand {
    /// Fewer than [`MIN_RUNS`] valid samples (after outliers): `runs` there were.
    TooFew { runs: usize },
    /// A band whose fall reaches [`NEVER_FAIL`], or not a number: with it
    /// the row could never fail (a higher-is-better value falls at most
    /// 100%), so this history cannot judge the row. `band` is its rise.
    Unusable { runs: usize, band: f64 },
    /// The runs sit on two levels, `low` and `high` (the medians of each,
    /// in the metric's unit): no spread describes them.
    TwoLevels { runs: usize, low: f64, high: f64 },
}

/// A band this wide (a fraction) or wider would let no drop fail the row:
/// a higher-is-better value falls at most 100%, to zero.
pub const NEVER_FAIL: f64 = 1.0;

/// Fewer valid history samples than this (after outliers are dropped): no
/// band, the configured threshold alone applies (and the row says so).
pub const MIN_RUNS: usize = 5;

/// A segment's slope is a drift when its t test says so at this level (and
/// it moves the level by a shift's worth across the segment).
const DRIFT: f64 = 0.01;

/// What a row's history says, in log space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Noise {
    /// The spread of one run about its level (a standard deviation).
    pub sigma: f64,
    /// The degrees of freedom of `sigma` (moderation adds the prior's).
    pub dof: f64,
    /// The level the next run is expected at: the last segment's mean, or
    /// its line extended by one run.
    pub level: f64,
    /// How many runs the level is known from: the last segment's length
    /// (fewer for a line extended past its runs).
    pub weight: f64,
    /// Valid history runs.
    pub runs: usize,
    /// Level shifts found in the history.
    pub shifts: usize,
    /// The last segment's drift per run (log), 0 when it has none.
    pub drift: f64,
    /// Runs set aside as outliers that sit together away from the level,
    /// below it and above it ([`Excursion`]).
    pub excursions: [Option<Excursion>; 2],
}

/// A level main's runs visit now and then, away from their own: pandas's
/// tslibs rows on fresh cloud VMs, three runs in ten 16% slower (the VM's
/// processor), all of them gross outliers of a level within 1%. At least
/// [`EXCURSION_RUNS`] runs on one side, the furthest at most twice as far
/// from the level as the nearest and within a factor of two of it
/// ([`EXCURSION_REACH`]); in log space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Excursion {
    /// The nearest and the furthest of those runs (logs).
    pub near: f64,
    pub far: f64,
    /// How many runs.
    pub runs: usize,
}

/// Fewer runs than this off the level together are outliers, not a level
/// main visits: one odd run says nothing of where the next will land.
pub const EXCURSION_RUNS: usize = 2;

/// Runs further off than this factor (log 2: half or twice the level) are
/// no machine's spread but something else, and excuse nothing: planted in
/// a history, two runs at 1% of the level must not let a 99% drop pass.
const EXCURSION_REACH: f64 = std::f64::consts::LN_2;

impl Excursion {
    /// Whether `value` (in the metric's unit) lands where these runs did:
    /// between them, or beyond either by a quarter of their distance from
    /// `level` (log).
    pub fn holds(&self, value: f64, level: f64) -> bool {
        if !(value > 0.0 && value.is_finite()) {
            return false;
        }
        let (near, far, v) = (self.near - level, self.far - level, value.ln() - level);
        let margin = near.abs() / 4.0;
        let (lo, hi) = if near < far { (near, far) } else { (far, near) };
        v >= lo - margin && v <= hi + margin
    }

    /// The excursions among the runs `set_aside` on each side of `mid`,
    /// the kept runs' median, when they sit together.
    fn of(set_aside: &[f64], mid: f64) -> [Option<Excursion>; 2] {
        let side = |below: bool| {
            let off: Vec<f64> = set_aside
                .iter()
                .copied()
                .filter(|v| (*v < mid) == below)
                .collect();
            let (lo, hi) = off
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(*v), hi.max(*v))
                });
            let (near, far) = if below { (hi, lo) } else { (lo, hi) };
            (off.len() >= EXCURSION_RUNS
                && (far - mid).abs() <= 2.0 * (near - mid).abs()
                && (far - mid).abs() <= EXCURSION_REACH)
                .then_some(Excursion {
                    near,
                    far,
                    runs: off.len(),
                })
        };
        [side(true), side(false)]
    }
}

/// One segment's contribution: residual sum of squares, degrees of
/// freedom, the next run's level, the runs it is known from, and drift.
struct Part {
    rss: f64,
    dof: usize,
    level: f64,
    weight: f64,
    drift: f64,
}

fn part(ys: &[f64]) -> Part {
    let n = ys.len();
    let nf = n as f64;
    let mean = series::mean(ys);
    let flat = Part {
        rss: ys.iter().map(|y| (y - mean).powi(2)).sum(),
        dof: n.saturating_sub(1),
        level: mean,
        weight: nf,
        drift: 0.0,
    };
    if n < 4 {
        return flat;
    }
    let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let Some(line) = fit::Line::fit(&xs, ys) else {
        return flat;
    };
    let dof = line.dof() as f64;
    let se = (line.rss / dof / line.sxx).sqrt();
    // A drift counts when it is significant and moves the level across the
    // segment by as much as a level shift must: a slope of 0.02% a run
    // among runs 0.1% apart is noise that happens to lean.
    let significant = line.sxx > 0.0
        && line.slope.abs() * nf >= Test::NOISE.min_change
        && (se == 0.0 || 2.0 * student::upper_tail(line.slope.abs() / se, dof) < DRIFT);
    if !significant {
        return flat;
    }
    Part {
        rss: line.rss,
        dof: line.dof(),
        level: line.at(nf),
        weight: 1.0 / (1.0 / nf + (nf - line.mean_x).powi(2) / line.sxx),
        drift: line.slope,
    }
}

/// What the history of a row (valid values or not, run order) says, or
/// why it says nothing.
pub fn learn(samples: &[f64]) -> Result<Noise, NoBand> {
    let (logs, _) = series::logs(samples);
    let runs = logs.len();
    let two_levels = |(low, high): (f64, f64)| NoBand::TwoLevels {
        runs,
        low: low.exp(),
        high: high.exp(),
    };
    // Runs that land on two levels in turn (three switches or more: not
    // one block of slow nights, which segments and outliers explain) are
    // two levels even when the outliers would drop one: asked before they
    // are, or three runs of ten 3,000 times slower, among the others, would
    // be dropped and the other seven give a band.
    if runs >= MIN_RUNS
        && let Some(levels) = fit::two_levels(&logs)
        && switches(&logs, (levels.0 + levels.1) / 2.0) >= 3
    {
        return Err(two_levels(levels));
    }
    let (kept, set_aside) = fit::kept(&logs);
    if kept.len() < MIN_RUNS {
        return Err(NoBand::TooFew { runs });
    }
    if let Some(levels) = fit::two_levels(&kept) {
        return Err(two_levels(levels));
    }
    let points = segment::change_points(&kept, Test::NOISE);
    let parts: Vec<Part> = segment::segments(kept.len(), &points)
        .into_iter()
        .filter_map(|range| kept.get(range).map(part))
        .collect();
    let rss: f64 = parts.iter().map(|p| p.rss).sum();
    let dof: usize = parts.iter().map(|p| p.dof).sum();
    let Some(last) = parts.last() else {
        return Err(NoBand::TooFew { runs });
    };
    if dof == 0 {
        return Err(NoBand::TooFew { runs });
    }
    let sigma = (rss / dof as f64).sqrt();
    if !sigma.is_finite() || !last.level.is_finite() {
        return Err(NoBand::Unusable {
            runs,
            band: f64::INFINITY,
        });
    }
    // Most histories set nothing aside: no median to take.
    let excursions = if set_aside.is_empty() {
        [None, None]
    } else {
        series::median_of(&mut kept.clone())
            .map_or([None, None], |mid| Excursion::of(&set_aside, mid))
    };
    Ok(Noise {
        sigma,
        dof: dof as f64,
        level: last.level,
        weight: last.weight,
        runs,
        shifts: points.len(),
        drift: last.drift,
        excursions,
    })
}

/// How often consecutive runs fall on different sides of `mid`.
fn switches(values: &[f64], mid: f64) -> usize {
    values
        .windows(2)
        .filter(|w| w.first().map(|a| *a > mid) != w.get(1).map(|b| *b > mid))
        .count()
}

/// The prior the rows' spreads give each other (see [`prior`]).
pub fn prior<'a>(noises: impl Iterator<Item = &'a Result<Noise, NoBand>>) -> Option<Prior> {
    Prior::fit(
        noises
            .filter_map(|n| n.as_ref().ok())
            .map(|n| (n.sigma * n.sigma, n.dof)),
    )
}

/// Each row's chance of a false alarm so that `rows` rows of noise alone
/// raise one with chance `rate`: `1 - (1 - rate)^(1/rows)`.
pub fn row_rate(rate: f64, rows: usize) -> f64 {
    let rows = rows.max(1) as f64;
    -((-rate).ln_1p() / rows).exp_m1()
}

impl Noise {
    /// This history with its spread moderated by the suite's prior.
    pub fn moderated(self, prior: Option<Prior>) -> Noise {
        match prior {
            Some(prior) => {
                let (var, dof) = prior.moderate(self.sigma * self.sigma, self.dof);
                Noise {
                    sigma: var.sqrt(),
                    dof,
                    ..self
                }
            }
            None => self,
        }
    }

    /// The row's level (log) and how many runs it is known from, once the
    /// baseline's samples that sit on it (checked by [`Noise::off_level`])
    /// are counted with the history's last level: the reference a change
    /// is measured against, more precise than one baseline run.
    pub fn reference(&self, baseline: &[f64]) -> (f64, f64) {
        let (logs, _) = series::logs(baseline);
        let total = self.weight + logs.len() as f64;
        let sum = self.weight * self.level + logs.iter().sum::<f64>();
        (sum / total, total)
    }

    /// The band of a change: how far one current run may stray from a
    /// reference known from `reference` runs with a one-sided chance `p`.
    /// Every current run must stray beyond it for a regression, and each
    /// gets the same band: a re-run on the same machine a few minutes
    /// later is no independent draw (on real histories machines wander for
    /// days), so an agreeing re-run is not allowed a narrower band.
    pub fn band(&self, p: f64, reference: f64) -> Result<Band, NoBand> {
        let each = p.min(0.5);
        let scale = (1.0 + 1.0 / reference.max(1.0)).sqrt();
        let band = Band {
            log: student::quantile(each, self.dof) * self.sigma * scale,
            runs: self.runs,
        };
        if !band.log.is_finite() || band.fall() >= NEVER_FAIL {
            return Err(NoBand::Unusable {
                runs: self.runs,
                band: band.rise(),
            });
        }
        Ok(band)
    }

    /// How far `value` is off the level the history predicts (a fraction,
    /// `value / level - 1`), when further than noise explains at a
    /// two-sided chance `p`; `None` when it is on the level.
    pub fn off_level(&self, value: f64, p: f64) -> Option<f64> {
        if !(value > 0.0 && value.is_finite()) {
            return None;
        }
        let off = value.ln() - self.level;
        let spread = (1.0 + 1.0 / self.weight.max(1.0)).sqrt();
        let allowed = student::quantile(p / 2.0, self.dof) * self.sigma * spread;
        (off.abs() > allowed).then(|| off.exp_m1())
    }
}

#[cfg(test)]
mod tests;
