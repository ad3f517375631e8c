//! What the history (past runs of the gate baseline's branch) says about
//! each row, and about the suite as a whole: each row's noise, moderated by
//! the others' ([`noise`]), and how far the median row moved from one run
//! of main to the next, which is what a whole-suite shift of the change is
//! measured against. Pure.

use super::samples::Samples;
use super::{BASELINE, HISTORY};
use crate::compare::join::Join;
use crate::compare::noise::{self, NoBand, Noise};
use crate::series;

/// The suite's step from one history run to the next is the median over
/// at most this many rows: enough for a median, bounded for a million.
const SUITE_ROWS: usize = 100_000;

/// What the history says.
pub struct History {
    /// Per key, its noise, or why it gives none.
    pub noises: Vec<Result<Noise, NoBand>>,
    /// The median row's change (log) between consecutive history runs.
    pub suite_steps: Vec<f64>,
}

/// Learns each key's noise from the history runs of `join`.
pub fn learn(join: &Join<'_>, tables: usize) -> History {
    let mut steps: Vec<Vec<f64>> = vec![Vec::new(); tables.saturating_sub(1)];
    let mut values: Vec<f64> = Vec::with_capacity(tables);
    let mut noises: Vec<Result<Noise, NoBand>> = (0..join.len())
        .map(|slot| {
            // The history's values of the metric the baseline measured.
            let metric = join
                .rows(slot, BASELINE)
                .find_map(|r| r.measure().map(|m| m.0));
            values.clear();
            if let Some(m) = metric {
                values.extend(
                    join.cells(slot, HISTORY)
                        .map(|c| c.and_then(|r| r.value(m)).unwrap_or(f64::NAN)),
                );
            }
            if slot < SUITE_ROWS {
                for (step, pair) in steps.iter_mut().zip(values.windows(2)) {
                    if let [a, b] = pair
                        && *a > 0.0
                        && *b > 0.0
                        && a.is_finite()
                        && b.is_finite()
                    {
                        step.push((b / a).ln());
                    }
                }
            }
            noise::learn(&values)
        })
        .collect();
    let prior = noise::prior(noises.iter());
    for noise in noises.iter_mut().flatten() {
        *noise = noise.moderated(prior);
    }
    History {
        noises,
        suite_steps: steps
            .iter_mut()
            .filter_map(|s| series::median_of(s))
            .collect(),
    }
}

/// Runs that move from one of the two levels main's history holds to the
/// other (pandas's rows that land on one of two code paths, 25% or 3,000
/// times apart): the history shows that move without any change, so the
/// row is not judged on it. A change within one level, or to a value on
/// neither, is still judged by the configured threshold (a 99% drop of a
/// row alternating 100 and 60 fails). A run is on a level within a quarter
/// of the gap between them (each level's own runs lie within an eighth).
pub(super) fn between_levels(
    noise: Option<&Result<Noise, NoBand>>,
    base: &Samples,
    cur: &Samples,
) -> Option<String> {
    let Some(Err(NoBand::TwoLevels { runs, low, high })) = noise else {
        return None;
    };
    let near = (high / low).ln() / 4.0;
    let level = |v: &f64| {
        if (v / low).ln().abs() <= near {
            Some(false)
        } else if (v / high).ln().abs() <= near {
            Some(true)
        } else {
            None
        }
    };
    let on = |side: &Samples| {
        let mut levels = side.samples().iter().map(level);
        let first = levels.next().flatten()?;
        levels.all(|l| l == Some(first)).then_some(first)
    };
    (on(base)? != on(cur)?).then(|| {
        format!(
            "main's history holds two levels, the higher {:.2} times the lower over {runs} runs, and the runs move from one to the other: not judged on that move; re-run",
            high / low
        )
    })
}
