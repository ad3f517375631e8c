//! What moved a whole round. Pairing cancels what moves the machine while
//! both sides of a round run, but not a burst that hits one side's run
//! alone (a neighbour's build for ten seconds, the VM paused): every row of
//! that side is then slower by about the same factor, in that round only.
//! On real rounds such bursts were most of the noise (a round where the
//! whole suite ran twice as slow on one side, a few times in 40 rounds),
//! and read row by row they look like a change of every row.
//!
//! The rounds are blocks of a two-way layout (rows by rounds): each value
//! is the row's change plus the round's effect plus noise. Tukey's median
//! polish (Exploratory Data Analysis, 1977) estimates both robustly: each
//! row's centre is the median of its rounds, each round's effect the median
//! of what its rows show beyond their centres. A real change moves a row in
//! every round, so it stays in the row's centre and never becomes a round's
//! effect, however many rows it moves (a change that slows the whole suite
//! is every row's centre, not any round's effect). A round's effect is
//! taken out of its rows' values before they are judged.
//!
//! A round's effect is estimated only from at least [`MIN_ROWS`] rows
//! (from fewer, the estimate is mostly the rows' own noise), and a row's
//! spread is then widened by `m / (m - 1)` for the fewest rows `m` of its
//! rounds: the effect took part of each row's own noise with it.

use super::RowRounds;
use crate::series::median_of;

/// The fewest rows of a round from which its effect is estimated.
pub const MIN_ROWS: usize = 5;

/// Passes of the polish: the second settles what the first's row centres
/// (taken before any round was corrected) left.
const PASSES: usize = 2;

/// Each round's effect among the rounds before a look.
#[derive(Debug, Clone, PartialEq)]
pub struct Effects {
    /// Per round: the effect (log, positive worse), 0 where not estimated.
    shift: Vec<f64>,
    /// Per round: the rows its effect was estimated from (0: not estimated).
    rows: Vec<usize>,
}

/// A row's values in rounds before `look`: (round, value) pairs.
fn window(row: &RowRounds, look: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
    row.round
        .iter()
        .copied()
        .zip(row.worse.iter().copied())
        .take_while(move |(round, _)| *round < look)
}

impl Effects {
    /// No round corrected (a suite too small to tell a round's effect).
    pub fn none() -> Effects {
        Effects {
            shift: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// The effects of the rounds before `look`, from every row with at
    /// least two values there.
    pub fn estimate(rows: &[RowRounds], look: usize) -> Effects {
        let mut effects = Effects {
            shift: vec![0.0; look],
            rows: vec![0; look],
        };
        let mut residuals: Vec<Vec<f64>> = vec![Vec::new(); look];
        let mut values: Vec<f64> = Vec::new();
        for _ in 0..PASSES {
            residuals.iter_mut().for_each(Vec::clear);
            for row in rows {
                values.clear();
                values.extend(effects.adjusted(row, look).map(|(_, v)| v));
                if values.len() < 2 {
                    continue;
                }
                let Some(centre) = median_of(&mut values) else {
                    continue;
                };
                for (round, value) in effects.adjusted(row, look) {
                    if let Some(list) = residuals.get_mut(round) {
                        list.push(value - centre);
                    }
                }
            }
            for (round, list) in residuals.iter_mut().enumerate() {
                if list.len() < MIN_ROWS {
                    continue;
                }
                let count = list.len();
                if let (Some(m), Some(shift), Some(used)) = (
                    median_of(list),
                    effects.shift.get_mut(round),
                    effects.rows.get_mut(round),
                ) {
                    *shift += m;
                    *used = count;
                }
            }
        }
        effects
    }

    /// A row's values before `look`, each less its round's effect.
    pub fn adjusted<'a>(
        &'a self,
        row: &'a RowRounds,
        look: usize,
    ) -> impl Iterator<Item = (usize, f64)> + 'a {
        window(row, look)
            .map(|(round, value)| (round, value - self.shift.get(round).copied().unwrap_or(0.0)))
    }

    /// How much to widen a row's variance: `m / (m - 1)` for the fewest
    /// rows `m` any of its corrected rounds was estimated from, 1 if none.
    pub fn inflation(&self, row: &RowRounds, look: usize) -> f64 {
        window(row, look)
            .filter_map(|(round, _)| self.rows.get(round).copied())
            .filter(|m| *m >= MIN_ROWS)
            .min()
            .map_or(1.0, |m| m as f64 / (m as f64 - 1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(worse: Vec<f64>) -> RowRounds {
        RowRounds {
            round: (0..worse.len()).collect(),
            worse,
            fail: 0.1,
            better: 0.1,
            warn: 0.03,
        }
    }

    #[test]
    fn a_burst_on_one_side_of_one_round_is_taken_out() {
        // Eight rows, small noise; round 1 ran 70% slower on one side.
        let rows: Vec<RowRounds> = (0..8)
            .map(|i| {
                let e = f64::from(i) * 0.001;
                row(vec![e, 0.7 + e, -e])
            })
            .collect();
        let effects = Effects::estimate(&rows, 3);
        for r in &rows {
            let adjusted: Vec<f64> = effects.adjusted(r, 3).map(|(_, v)| v).collect();
            assert!(adjusted.iter().all(|v| v.abs() < 0.02), "{adjusted:?}");
        }
    }

    #[test]
    fn a_change_of_every_row_stays_in_the_rows() {
        // The whole suite 20% worse in every round: no round's effect.
        let rows: Vec<RowRounds> = (0..8)
            .map(|i| {
                let e = f64::from(i % 3) * 0.01 - 0.01;
                row(vec![0.2 + e, 0.2 - e, 0.2 + 2.0 * e, 0.2])
            })
            .collect();
        let effects = Effects::estimate(&rows, 4);
        for r in &rows {
            let mean = effects.adjusted(r, 4).map(|(_, v)| v).sum::<f64>() / 4.0;
            assert!((mean - 0.2).abs() < 0.02, "{mean}");
        }
    }

    #[test]
    fn too_few_rows_correct_nothing() {
        let rows: Vec<RowRounds> = (0..MIN_ROWS - 1)
            .map(|_| row(vec![0.0, 0.5, 0.0]))
            .collect();
        let effects = Effects::estimate(&rows, 3);
        let adjusted: Vec<f64> = effects.adjusted(&rows[0], 3).map(|(_, v)| v).collect();
        assert_eq!(adjusted, vec![0.0, 0.5, 0.0]);
        assert!((effects.inflation(&rows[0], 3) - 1.0).abs() < 1e-12);
    }
}
