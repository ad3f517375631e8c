//! One row classified: its two sides read from the join, lost or measured,
//! the threshold it is judged by, and what noise explains: the row's band,
//! repeated samples that disagree, and a baseline run that is itself off
//! its history's level. Pure.

use super::samples::{Bounds, Samples, digits_apart, each_change};
use super::{Applied, BASELINE, CURRENT, Comparison, Origin, RowResult, Rows};
use super::{history, two_sample};
use crate::compare::defaults;
use crate::compare::noise::{Band, NoBand, Noise};
use crate::config::{Direction, FailThreshold, Policy};
use crate::contract::class::Class;
use crate::table::{RowView, Status};

/// A row's noise band from its history, or why it has none; `None`
/// without a history.
type RowBand = Option<Result<Band, NoBand>>;

/// The baseline as judged: its samples on main's level, and how far off
/// the level it was when every sample was (one run, or several that
/// disagree on which way).
struct Judged {
    base: Samples,
    /// `value / level - 1` of the baseline run that was off.
    off: Option<f64>,
    /// Baseline samples set aside as off the level (others were on it).
    set_aside: usize,
    /// Every baseline sample sits on the level its history predicts: the
    /// level and they are one reference.
    on_level: bool,
}

impl<'t> Comparison<'t> {
    /// Classifies the row of `slot`. Called once per row and output
    /// pass, so the common case (one sample a side) allocates nothing.
    pub(super) fn row(&self, slot: usize) -> Option<RowResult<'t>> {
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
            rerun_baseline: false,
            paired: None,
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
                Some((metric, _)) if self.stopped().is_some() => {
                    out.class = Class::Absent;
                    out.metric = Some(metric);
                    out.reason = Some(format!(
                        "not in the baseline, and {}: never measured there",
                        self.stopped().unwrap_or_default()
                    ));
                }
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
        match &self.paired {
            Some(judged) => self.paired_row(&mut out, judged, slot),
            None => self.measured(&mut out, slot),
        }
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
    pub(super) fn measured(&self, out: &mut RowResult<'t>, slot: usize) {
        let (Some(base), Some(cur), Some(metric)) = (&out.baseline, &out.current, out.metric)
        else {
            return;
        };
        let policy = out.policy;
        let direction = policy
            .direction
            .or_else(|| self.config.metrics.get(metric).map(|m| m.direction))
            .unwrap_or(Direction::Higher);
        let noise = self.noises.get(slot);
        let judged = self.judge_baseline(base, noise);
        let base = &judged.base;
        out.change = Some(base.change_to(cur, direction));
        let (reference, band) = self.reference(noise, &judged);
        let level_test = self.against_level(noise, &judged, reference, cur, direction);
        let applied = match (&level_test, noise) {
            (Some(_), Some(Ok(n))) => level_applied(&policy, n),
            _ => self.applied(&policy, band, direction),
        };
        let two = level_test.or_else(|| {
            let (whole, change) = (out.baseline.as_ref()?, out.change?);
            two_sample::test(whole, cur, (change, direction.sign()), self.spread_prior)
        });
        out.applied = Some(applied);
        let bounds = Bounds::of(base, cur, reference.map(|r| r.0.exp()), direction);
        let (class, reason) = self.classify(out, &bounds, band, two, direction);
        out.class = class;
        out.reason = reason;
        if class != Class::Unchanged
            && let Some(why) =
                history::between_levels(noise, base, cur).or_else(|| self.visited(noise, base, cur))
        {
            out.class = Class::Noisy;
            out.reason = Some(why);
        }
        let beyond_both = match class {
            Class::Regressed => true,
            Class::Improved => bounds.least_better > applied.fail,
            _ => false,
        };
        self.off_level(out, &judged, class, beyond_both);
    }

    /// The reference a row is judged against (main's level with the
    /// baseline on it, or the level alone when the baseline run is off
    /// it: its log and weight), and the noise band at that weight.
    fn reference(
        &self,
        noise: Option<&Result<Noise, NoBand>>,
        judged: &Judged,
    ) -> (Option<(f64, f64)>, RowBand) {
        let reference = match (noise, judged.off) {
            (Some(Ok(n)), None) => Some(n.reference(judged.base.samples())),
            (Some(Ok(n)), Some(_)) => Some((n.level, n.weight)),
            _ => None,
        };
        let band = match (noise, reference) {
            (Some(Ok(n)), Some((_, weight))) => Some(n.band(self.row_rate, weight)),
            (Some(Ok(n)), None) => Some(n.band(self.row_rate, n.weight)),
            (Some(Err(why)), _) => Some(Err(*why)),
            (None, _) => None,
        };
        (reference, band)
    }

    /// A baseline off its level: what is beyond both it and the level
    /// stands (`beyond_both`); what only the baseline says is not judged
    /// on it alone. Else the runs set aside as off the level are said.
    fn off_level(&self, out: &mut RowResult<'t>, judged: &Judged, class: Class, beyond_both: bool) {
        if let Some(off) = judged.off
            && !beyond_both
            && class != Class::Unchanged
        {
            out.class = Class::Noisy;
            out.rerun_baseline = true;
            out.reason = Some(format!(
                "{}'s run itself was {:.1}% {} the level of its last runs: re-run the baseline (the change is not judged on that run alone)",
                self.label,
                off.abs() * 100.0,
                if off < 0.0 { "below" } else { "above" },
            ));
        } else if judged.set_aside > 0 && out.reason.is_none() {
            out.reason = Some(format!(
                "{} of {}'s runs set aside: off the level of its history",
                judged.set_aside, self.label
            ));
        }
    }

    /// Several runs of the change against several of main's, with a
    /// history that gives the row a level: when every baseline run sits on
    /// that level, and so does their mean, the history's level and the
    /// baseline's runs are one reference (`reference`: its log and the runs
    /// it is known from), and the change's runs are tested against it with
    /// the row's spread from its history pooled with their own
    /// ([`two_sample::against_level`]). `None` otherwise: Welch's test on
    /// the two sides' runs judges the row.
    fn against_level(
        &self,
        noise: Option<&Result<Noise, NoBand>>,
        judged: &Judged,
        reference: Option<(f64, f64)>,
        cur: &Samples,
        direction: Direction,
    ) -> Option<two_sample::TwoSample> {
        let (Some(Ok(n)), Some((level, weight))) = (noise, reference) else {
            return None;
        };
        let base = judged.base.samples();
        if !judged.on_level || base.len() < 2 || cur.samples().len() < 2 {
            return None;
        }
        if !two_sample::sits_on(base, n.level, n.weight, (n.sigma, n.dof)) {
            return None;
        }
        let spread = two_sample::pooled_with(cur, n.sigma, n.dof);
        two_sample::against_level(cur, level, weight, spread, direction.sign())
    }

    /// The class of a measured row and why, from its change against the
    /// baseline (`out.change`), the least worse and least better of every
    /// current sample against every baseline sample and the reference
    /// (`bounds`), and the threshold applied.
    fn classify(
        &self,
        out: &RowResult<'t>,
        bounds: &Bounds,
        band: Option<Result<Band, NoBand>>,
        two: Option<two_sample::TwoSample>,
        direction: Direction,
    ) -> (Class, Option<String>) {
        let (Some(base), Some(cur), Some(change), Some(applied)) =
            (&out.baseline, &out.current, out.change, out.applied)
        else {
            return (Class::Unchanged, None);
        };
        let policy = out.policy;
        let learned = match band {
            Some(Ok(b)) => Some(b),
            _ => None,
        };
        // How much better and how much worse the row's noise explains (a
        // change worse than that, but within the configured threshold, is
        // a warning, not noise).
        let (better, worse) = match (learned, direction) {
            (Some(b), Direction::Higher) => (b.rise(), b.fall()),
            (Some(b), Direction::Lower) => (b.fall(), b.rise()),
            (None, _) => (0.0, 0.0),
        };
        let repeated = base.samples().len() > 1 || cur.samples().len() > 1;
        let disagree = |limit| self.disagree(base, cur, bounds, direction, limit);
        if (cur.median - base.median).abs() <= policy.floor {
            (Class::Unchanged, None)
        } else if let Some(t) = two.filter(|t| t.change < -applied.fail) {
            if t.p_worse <= self.row_rate {
                (Class::Regressed, None)
            } else {
                (Class::Noisy, Some(self.not_shown(&t, "worse")))
            }
        } else if bounds.least_worse < -applied.fail {
            (Class::Regressed, None)
        } else if change < -applied.fail {
            (Class::Noisy, Some(disagree(-applied.fail)))
        } else if change < -policy.warn {
            match learned {
                Some(b) if -change <= worse => (
                    Class::Noisy,
                    Some(format!(
                        "within {}'s run-to-run noise: -{:.1}%/+{:.1}% over {} runs",
                        self.label,
                        b.fall() * 100.0,
                        b.rise() * 100.0,
                        b.runs
                    )),
                ),
                _ if repeated && bounds.least_worse >= 0.0 => {
                    (Class::Noisy, Some(disagree(-applied.fail)))
                }
                _ => (Class::Warned, None),
            }
        } else if let Some(t) = two.filter(|t| {
            t.change
                > if t.against_level {
                    applied.fail
                } else {
                    applied.fail.max(better)
                }
        }) {
            if t.p_better <= self.row_rate {
                (Class::Improved, None)
            } else {
                (Class::Noisy, Some(self.not_shown(&t, "better")))
            }
        } else if bounds.least_better > applied.fail.max(better) {
            (Class::Improved, None)
        } else if change > applied.fail.max(better) && repeated {
            (Class::Noisy, Some(disagree(applied.fail.max(better))))
        } else {
            (Class::Unchanged, None)
        }
    }

    /// Why several runs a side, beyond a threshold by their medians, are
    /// `noisy`: the runs do not show it at the row's share of the rate.
    fn not_shown(&self, t: &two_sample::TwoSample, way: &str) -> String {
        let p = if way == "worse" {
            t.p_worse
        } else {
            t.p_better
        };
        let runs = if t.against_level {
            format!(
                "{} of the change, {:+.1}% against {}'s level (its history's and its runs'),",
                t.runs.1,
                t.change * 100.0,
                self.label
            )
        } else {
            format!(
                "{} of {} and {} of the change,",
                t.runs.0, self.label, t.runs.1
            )
        };
        format!(
            "the runs do not show it: {runs} this much {way} by chance p = {p:.2e}, over the row's share {:.2e} of the false-alarm rate",
            self.row_rate
        )
    }

    /// Why repeated runs that disagree are `noisy`: each run's change, the
    /// least change against main's level when it was a reference, and the
    /// threshold `limit` (signed: below zero the fail threshold, above it
    /// the improvement's) every run must pass, so that a reader seeing two
    /// changes beyond the configured threshold knows why the row did not
    /// fail.
    fn disagree(
        &self,
        base: &Samples,
        cur: &Samples,
        bounds: &Bounds,
        direction: Direction,
        limit: f64,
    ) -> String {
        let against = if base.samples().len() > 1 {
            "median"
        } else {
            "run"
        };
        let (least, verb, side) = if limit < 0.0 {
            (bounds.least_worse, "fails", "worse")
        } else {
            (bounds.least_better, "improves", "better")
        };
        let digits = digits_apart(least, limit);
        let level = if bounds.against_level {
            format!(
                ", {:+.digits$}% at best against its level over its last runs",
                least * 100.0
            )
        } else {
            String::new()
        };
        format!(
            "the runs disagree: {} against {}'s {against}{level}; it {verb} when every one is {side} than {:+.digits$}%",
            each_change(base, cur, direction, digits),
            self.label,
            limit * 100.0,
        )
    }

    /// The baseline's samples checked against the level their history
    /// predicts. Samples on the level are kept and those off it set aside;
    /// when every sample is off: several off the same way are main's new
    /// level (main may really have changed at the base commit, so older runs
    /// never replace it), one alone, or several that disagree, are not
    /// judged on.
    fn judge_baseline(&self, base: &Samples, noise: Option<&Result<Noise, NoBand>>) -> Judged {
        let whole = || Judged {
            base: base.clone(),
            off: None,
            set_aside: 0,
            on_level: false,
        };
        let Some(Ok(noise)) = noise else {
            return whole();
        };
        let offs: smallvec::SmallVec<[Option<f64>; 2]> = base
            .samples()
            .iter()
            .map(|v| noise.off_level(*v, self.level_rate))
            .collect();
        let on: Vec<f64> = base
            .samples()
            .iter()
            .zip(&offs)
            .filter(|(_, off)| off.is_none())
            .map(|(v, _)| *v)
            .collect();
        let off: Vec<f64> = offs.iter().flatten().copied().collect();
        if off.is_empty() {
            return Judged {
                on_level: true,
                ..whole()
            };
        }
        if let Some(kept) = Samples::of(&on) {
            return Judged {
                base: kept,
                off: None,
                set_aside: off.len(),
                on_level: false,
            };
        }
        let one_way = off.iter().all(|o| *o > 0.0) || off.iter().all(|o| *o < 0.0);
        if off.len() > 1 && one_way {
            return whole();
        }
        Judged {
            base: base.clone(),
            off: crate::series::median_of(&mut off.clone()),
            set_aside: 0,
            on_level: false,
        }
    }

    /// The fail threshold for a row: configured, or with history the
    /// larger of it and the band on the worse side (`auto`: the band alone,
    /// never below [`defaults::AUTO_FLOOR`]); the configured one when the
    /// history gives no band.
    fn applied(
        &self,
        policy: &Policy,
        band: Option<Result<Band, NoBand>>,
        direction: Direction,
    ) -> Applied {
        let configured = policy.fail.configured();
        match band {
            Some(Ok(band)) => {
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
            Some(Err(why)) => Applied {
                fail: configured,
                origin: Origin::NoBand {
                    why,
                    source: policy.fail_source,
                },
            },
            None => Applied {
                fail: configured,
                origin: Origin::Configured(policy.fail_source),
            },
        }
    }

    /// Runs that land where main's own runs went now and then, away from
    /// its level (an [`crate::compare::noise::Excursion`] of its history:
    /// pandas's tslibs rows, three runs in ten 16% slower on some cloud
    /// VMs, and a change whose two runs landed there too failed), while
    /// the baseline's did not: what main did without any change, so not
    /// judged on it. A run beyond where main's went, or elsewhere, is
    /// judged as any other.
    fn visited(
        &self,
        noise: Option<&Result<Noise, NoBand>>,
        base: &Samples,
        cur: &Samples,
    ) -> Option<String> {
        let Some(Ok(n)) = noise else {
            return None;
        };
        n.excursions.iter().flatten().find_map(|e| {
            let there = |v: &f64| e.holds(*v, n.level);
            (cur.samples().iter().all(there) && !base.samples().iter().any(there)).then(|| {
                let (a, b) = ((e.near - n.level).exp(), (e.far - n.level).exp());
                format!(
                    "{} of {}'s last {} runs landed there too ({:.2} to {:.2} times its level, set aside as outliers): not judged on runs that land where {}'s own did; re-run",
                    e.runs,
                    self.label,
                    n.runs,
                    a.min(b),
                    a.max(b),
                    self.label,
                )
            })
        })
    }
}

/// The test of the runs against main's level judges the noise: one run's
/// band no longer raises the threshold, and the row says so (its
/// threshold is the configured one, not learned).
fn level_applied(policy: &Policy, n: &Noise) -> Applied {
    Applied {
        fail: match policy.fail {
            FailThreshold::Fixed(f) => f,
            FailThreshold::Auto => defaults::AUTO_FLOOR,
        },
        origin: Origin::Level {
            source: policy.fail_source,
            runs: n.runs,
        },
    }
}

/// The reasons rows are not valid, joined.
fn reasons<'a>(rows: impl Iterator<Item = RowView<'a>>) -> String {
    rows.map(|r| r.reason())
        .filter(|r| !r.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}
