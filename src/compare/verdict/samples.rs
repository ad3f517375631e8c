//! One side of a row (its samples, one per file that measured it) and how
//! two sides of repeated samples are told apart: a row is worse only when
//! every current sample is worse than every baseline sample (and, with
//! history, than main's level), which is what makes "re-run and compare
//! again" a confirmation.

use crate::config::Direction;
use crate::series;

/// One side of a row: the median of its samples (one per file that
/// measured it), and the samples themselves when there are several.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    pub median: f64,
    repeated: Vec<f64>,
}

impl Samples {
    /// The side of these samples; a list is made only for several.
    pub fn collect(mut values: impl Iterator<Item = f64>) -> Option<Samples> {
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

    pub fn of(values: &[f64]) -> Option<Samples> {
        match values {
            [] => None,
            [one] => Some(Samples {
                median: *one,
                repeated: Vec::new(),
            }),
            many => {
                let mut samples = many.to_vec();
                let median = crate::series::median_of(&mut samples)?;
                Some(Samples {
                    median,
                    repeated: samples,
                })
            }
        }
    }

    /// How `current`'s median compares to this side's, as compare states
    /// changes: a fraction, current / baseline - 1, negative when worse.
    pub fn change_to(&self, current: &Samples, direction: Direction) -> f64 {
        series::bounded(current.median / self.median - 1.0) * direction.sign()
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

/// How every current sample compares with every baseline sample and, with
/// history, with main's level: the least worse and the least better of
/// those changes (signed, negative is worse). A row is worse only when even
/// the least worse is beyond its threshold: every current sample worse than
/// every baseline sample, and than main's level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub least_worse: f64,
    pub least_better: f64,
    /// Main's level was one of the references.
    pub against_level: bool,
}

impl Bounds {
    pub fn of(base: &Samples, cur: &Samples, level: Option<f64>, direction: Direction) -> Bounds {
        let mut least_worse = f64::NEG_INFINITY;
        let mut least_better = f64::INFINITY;
        for c in cur.samples() {
            for b in base.samples().iter().chain(level.as_ref()) {
                let change = series::bounded(c / b - 1.0) * direction.sign();
                least_worse = least_worse.max(change);
                least_better = least_better.min(change);
            }
        }
        Bounds {
            least_worse,
            least_better,
            against_level: level.is_some(),
        }
    }
}

/// Each current sample's change against the baseline's median, as a
/// person reads it: `-22.0% and -1.0%`.
pub fn each_change(base: &Samples, cur: &Samples, direction: Direction, digits: usize) -> String {
    let changes: Vec<String> = cur
        .samples()
        .iter()
        .map(|c| {
            format!(
                "{:+.digits$}%",
                series::bounded(c / base.median - 1.0) * direction.sign() * 100.0
            )
        })
        .collect();
    match changes.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => changes.join(""),
    }
}

/// The decimals (one to three) that print two percentages apart: a reason
/// saying "-10.0% ... fails when every one is worse than -10.0%" reads as
/// a row that should have failed, when the run was -9.96%.
pub fn digits_apart(a: f64, b: f64) -> usize {
    (1..3)
        .find(|d| format!("{:.*}", d, a * 100.0) != format!("{:.*}", d, b * 100.0))
        .unwrap_or(3)
}
