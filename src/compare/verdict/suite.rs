//! A whole-suite shift: most compared rows moved the same way by a similar
//! amount. A slower machine or another build environment moves every row
//! at once; so does a real global regression, so the rows still fail, but
//! the verdict says which cause is likelier and to re-run elsewhere. Pure.

use crate::series;

/// Fewer compared rows than this: no suite to speak of.
pub const MIN_ROWS: usize = 10;
/// The median row must move at least this much (log, about 3%).
pub const MIN_SHIFT: f64 = 0.0296;

/// The suite moved together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    /// The median row's change, signed so that negative is worse (a fraction).
    pub change: f64,
    /// Rows that moved with it (the same way, by at least half as much).
    pub rows: usize,
    /// Rows compared.
    pub compared: usize,
}

/// Whether the compared rows' `changes` (signed fractions, negative is
/// worse) moved together: more than half of them the same way by at least
/// half the median's amount, and the median beyond both [`MIN_SHIFT`] and
/// four robust deviations of the median's own steps along main's history
/// (`steps`, log).
pub fn shift(changes: &[f64], steps: &[f64]) -> Option<Shift> {
    if changes.len() < MIN_ROWS {
        return None;
    }
    let mut logs: Vec<f64> = changes.iter().map(|c| c.ln_1p()).collect();
    let median = series::median_of(&mut logs)?;
    let rows = logs
        .iter()
        .filter(|l| l.signum() == median.signum() && l.abs() >= median.abs() / 2.0)
        .count();
    let allowed = if steps.len() >= 3 {
        let (_, spread) = series::robust(steps)?;
        (4.0 * spread).max(MIN_SHIFT)
    } else {
        MIN_SHIFT
    };
    (rows.saturating_mul(2) > changes.len() && median.abs() > allowed).then(|| Shift {
        change: median.exp_m1(),
        rows,
        compared: changes.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_rows_moving_together_is_a_shift() {
        let mut changes = vec![-0.15; 82];
        changes.extend(vec![0.01; 44]);
        let s = shift(&changes, &[0.001, -0.002, 0.0, 0.003]).unwrap();
        assert_eq!((s.rows, s.compared), (82, 126));
        assert!((s.change + 0.15).abs() < 1e-9);
    }

    #[test]
    fn a_few_rows_or_a_usual_step_is_not() {
        let mut changes = vec![-0.15; 40];
        changes.extend(vec![0.0; 86]);
        assert_eq!(shift(&changes, &[]), None, "a third of the rows");
        assert_eq!(shift(&[-0.2; 5], &[]), None, "too few rows");
        assert_eq!(
            shift(&[-0.05; 50], &[0.04, -0.05, 0.06, -0.03, 0.05]),
            None,
            "main's median moves this much from run to run"
        );
        assert!(shift(&[-0.05; 50], &[]).is_some());
    }
}
