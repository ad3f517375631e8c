//! When the rounds are looked at, and how much of the false-alarm rate
//! each look may spend.
//!
//! A row is judged after the first `rounds` rounds; a row still in doubt
//! gets more, doubling, up to `max_rounds` (3, 6, 12, 20): most rows are
//! decided at the first look, and the rounds go where the answer is still
//! unknown (Chromium's Pinpoint doubles its attempts the same way).
//!
//! Looking more than once at the same row is testing it more than once:
//! each look must spend part of the rate, never all of it again. The share
//! each look may spend follows the Pocock-type spending function of Lan
//! and DeMets ("Discrete sequential boundaries for clinical trials",
//! Biometrika 70(3), 1983): `alpha * ln(1 + (e - 1) * t)` spent by the
//! time a fraction `t` of the most rounds has run, which spends about
//! evenly over the looks, so a large slowdown is caught at the first look
//! instead of waiting for the last. Each look is then tested at the level
//! it was given alone (the union bound over looks): a little more cautious
//! than the exact group-sequential boundaries, and valid however the looks
//! fall, which a schedule that stops rows at different looks needs.

/// The looks at a row: after `rounds`, doubling, up to `max_rounds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    pub rounds: usize,
    pub max_rounds: usize,
}

/// The largest `--rounds` or `--max-rounds`: a row re-run this often has
/// had its chance.
pub const LIMIT: usize = 160;

impl Schedule {
    /// The round counts at which rows are looked at, ascending, the last
    /// one `max_rounds` (3 and 20: 3, 6, 12, 20). A first look of 0 rounds
    /// counts as 1; a cap below the first look is the first look.
    pub fn looks(&self) -> Vec<usize> {
        let first = self.rounds.clamp(1, LIMIT);
        let last = self.max_rounds.clamp(first, LIMIT);
        let mut looks = vec![first];
        let mut at = first;
        while at < last {
            at = at.saturating_mul(2).min(last);
            looks.push(at);
        }
        looks
    }

    /// The share of the false-alarm rate spent by the time `rounds` of the
    /// most have run (0 to 1).
    pub fn spent(&self, rounds: usize) -> f64 {
        let last = self.looks().last().copied().unwrap_or(1).max(1);
        let t = (rounds.min(last) as f64) / (last as f64);
        (1.0 + (std::f64::consts::E - 1.0) * t).ln().clamp(0.0, 1.0)
    }

    /// The share of the rate the look at `rounds` may spend alone: what is
    /// spent by it less what was spent by the look before.
    pub fn share(&self, previous: usize, rounds: usize) -> f64 {
        (self.spent(rounds) - self.spent(previous)).max(0.0)
    }
}

/// `--rounds` or `--max-rounds` as written, for bench, compare and the
/// manifest bench writes alike: a whole number from 1 to [`LIMIT`].
pub fn count(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .map_err(|_| expected(text))
        .and_then(|n| counted(n).map_err(|_| expected(text)))
}

/// A number of rounds a file holds (bench's manifest) where the input
/// would have given it: the same range, the same words.
pub fn counted(n: usize) -> Result<usize, String> {
    if (1..=LIMIT).contains(&n) {
        Ok(n)
    } else {
        Err(expected(&n.to_string()))
    }
}

fn expected(text: &str) -> String {
    format!(
        "expected a whole number of rounds from 1 to {LIMIT}, got {:?}",
        crate::runner::shown(text)
    )
}

impl Schedule {
    /// The schedule asked for: `max_rounds` when given must be at least
    /// `rounds` (a cap below the first look is a contradiction, said, not
    /// quietly raised); not given, the default cap rises to `rounds`.
    pub fn asked(
        rounds: usize,
        max_rounds: Option<usize>,
        default_max: usize,
    ) -> Result<Schedule, String> {
        match max_rounds {
            Some(m) if m < rounds => Err(format!("--max-rounds {m} is below --rounds {rounds}")),
            Some(m) => Ok(Schedule {
                rounds,
                max_rounds: m,
            }),
            None => Ok(Schedule {
                rounds,
                max_rounds: default_max.max(rounds),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_double_up_to_the_cap() {
        let s = |rounds, max_rounds| Schedule { rounds, max_rounds }.looks();
        assert_eq!(s(3, 20), vec![3, 6, 12, 20]);
        assert_eq!(s(5, 5), vec![5]);
        assert_eq!(s(10, 3), vec![10]);
        assert_eq!(s(0, 2), vec![1, 2]);
        assert_eq!(s(3, 100_000).last(), Some(&LIMIT));
    }

    #[test]
    fn the_shares_add_up_to_the_whole_rate() {
        let schedule = Schedule {
            rounds: 3,
            max_rounds: 20,
        };
        let looks = schedule.looks();
        let mut previous = 0;
        let mut total = 0.0;
        for look in looks {
            let share = schedule.share(previous, look);
            assert!(share > 0.15 && share < 0.35, "{look}: {share}");
            total += share;
            previous = look;
        }
        assert!((total - 1.0).abs() < 1e-12);
    }
}
