//! The values that say how a row is judged: the fail and warn thresholds
//! and the false-alarm rate. bench judges its rounds between looks as
//! compare judges them, and compare reads the values bench was given back
//! from its manifest: three readers of one value. Each value is parsed
//! here, once, so that the three accept the same values and refuse the
//! rest in the same words (two parsers of one value had drifted: bench
//! refused a fail threshold of 0 that compare took). A config rule's
//! thresholds are held to the same ranges.

use super::FailThreshold;
use crate::runner::shown;

/// A percentage's range, and how an error says it.
#[derive(Debug, Clone, Copy)]
pub struct Percent {
    low: f64,
    /// `low` itself is refused (a false-alarm rate of 0 is a band of
    /// infinite width).
    above: bool,
    high: f64,
}

/// `--fail-threshold` and `--warn-threshold`, and a config rule's: 0 is
/// "worse at all", as far as the noise lets one tell; beyond 1000% no
/// metric a benchmark reports moves, and a typo (`10000` for `10.000`)
/// is refused instead of passing everything.
pub const THRESHOLD: Percent = Percent {
    low: 0.0,
    above: false,
    high: 1000.0,
};

/// `--false-alarms`: above 0 (a chance of none is an infinitely wide
/// band) and at most 50% (a gate that fails every other pull request of
/// noise alone is no gate).
pub const FALSE_ALARMS: Percent = Percent {
    low: 0.0,
    above: true,
    high: 50.0,
};

impl Percent {
    /// `a percentage from 0 to 1000`, as every error about it says.
    pub fn words(&self) -> String {
        if self.above {
            format!("a percentage above {} and at most {}", self.low, self.high)
        } else {
            format!("a percentage from {} to {}", self.low, self.high)
        }
    }

    fn holds(&self, p: f64) -> bool {
        p.is_finite() && p <= self.high && (p > self.low || (!self.above && p == self.low))
    }

    /// A percentage as written (`10`, `10%`, ` 2.5 `), as a fraction.
    pub fn parse(&self, text: &str) -> Result<f64, String> {
        match text.trim().trim_end_matches('%').trim().parse::<f64>() {
            Ok(p) if self.holds(p) => Ok(p / 100.0),
            _ => Err(self.expected(text)),
        }
    }

    /// A fraction a file holds (bench's manifest) where the input would
    /// have given the percentage: the same range, the same words.
    pub fn fraction(&self, f: f64) -> Result<f64, String> {
        if self.holds(f * 100.0) {
            Ok(f)
        } else {
            Err(self.expected(&format!("{}", f * 100.0)))
        }
    }

    /// A percentage a file holds as a number (a config rule's
    /// `fail-threshold = 15`), as a fraction: the same range, the same words.
    pub fn number(&self, p: f64) -> Result<f64, String> {
        if self.holds(p) {
            Ok(p / 100.0)
        } else {
            Err(self.expected(&p.to_string()))
        }
    }

    fn expected(&self, text: &str) -> String {
        format!("expected {}, got {:?}", self.words(), shown(text))
    }
}

/// `--fail-threshold` as compare takes it: a [`THRESHOLD`] percentage, or
/// `auto` (each row's band, learned from `--history`). Its refusal names
/// both, as its help (`PCT|auto`) does.
pub fn fail_threshold(text: &str) -> Result<FailThreshold, String> {
    if is_auto(text) {
        return Ok(FailThreshold::Auto);
    }
    THRESHOLD
        .parse(text)
        .map(FailThreshold::Fixed)
        .map_err(|_| {
            format!(
                "expected {} or auto, got {:?}",
                THRESHOLD.words(),
                shown(text)
            )
        })
}

fn is_auto(text: &str) -> bool {
    text.trim().eq_ignore_ascii_case("auto")
}

/// `--fail-threshold` as bench takes it: a [`THRESHOLD`] percentage.
/// `auto` is refused by name: it learns each row's band from compare's
/// `--history`, which the rounds bench judges between looks do not have.
pub fn fixed_fail_threshold(text: &str) -> Result<f64, String> {
    if is_auto(text) {
        return Err(format!(
            "expected {}, got \"auto\": auto learns each row's noise band from compare's --history, which bench's rounds do not have",
            THRESHOLD.words()
        ));
    }
    THRESHOLD.parse(text)
}

/// A fixed fail threshold some row of `config` can reach: a
/// higher-is-better metric falls at most 100% (to zero), so 100% or more
/// fails nothing unless every metric is lower-is-better. bench refuses it
/// before its rounds run, as compare refuses it (and compare would refuse
/// the manifest that carried it, after every round had run).
pub fn reachable(fail: f64, config: &super::Config) -> Result<(), String> {
    if !can_fail(fail, config.all_lower()) {
        Err(format!(
            "{} can never fail: a higher-is-better metric falls at most 100% (to zero). Use a smaller threshold",
            fail * 100.0
        ))
    } else {
        Ok(())
    }
}

/// Whether a fixed fail threshold (a fraction) can fail a row of that
/// direction: a higher-is-better value falls at most 100%, a
/// lower-is-better one can grow without bound. The one check, for the
/// inputs ([`reachable`]) and for a config rule's own threshold.
pub fn can_fail(fail: f64, lower: bool) -> bool {
    fail < 1.0 || lower
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentage_and_its_fraction_are_held_to_one_range() {
        assert_eq!(THRESHOLD.parse("0"), Ok(0.0));
        assert_eq!(THRESHOLD.parse(" 10% "), Ok(0.1));
        assert_eq!(THRESHOLD.parse("1000"), Ok(10.0));
        for bad in ["-1", "1000.5", "NaN", "inf", "", "ten"] {
            let err = THRESHOLD.parse(bad).unwrap_err();
            assert!(
                err.starts_with("expected a percentage from 0 to 1000, got"),
                "{err}"
            );
        }
        assert_eq!(
            THRESHOLD.fraction(20.0).unwrap_err(),
            THRESHOLD.parse("2000").unwrap_err()
        );
        assert_eq!(THRESHOLD.fraction(0.0), Ok(0.0));
        assert!(FALSE_ALARMS.parse("0").is_err() && FALSE_ALARMS.fraction(0.0).is_err());
        assert_eq!(FALSE_ALARMS.parse("50"), Ok(0.5));
        assert_eq!(fail_threshold("AUTO"), Ok(FailThreshold::Auto));
        assert!(
            fixed_fail_threshold("auto")
                .unwrap_err()
                .contains("--history")
        );
    }
}
