//! The comparison config, checked into the repository (TOML): which columns
//! are the key, which metrics (and which way is better), and ordered rules
//! that give some rows their own thresholds, an absolute floor, a direction,
//! or `ignore`. The first rule whose every pattern matches a row decides.
//! An unknown key is an error, so a misspelt rule cannot silently do nothing.
//!
//! ```toml
//! keys = ["op", "shape", "dtype"]
//!
//! [[metrics]]
//! column = "tflops"
//! unit = "TFLOPS"
//!
//! [[metrics]]
//! column = "tbps"
//! unit = "TB/s"
//!
//! [[rules]]
//! match = ["op=allreduce*"]
//! fail-threshold = 15
//! warn-threshold = 5
//!
//! [[rules]]
//! match = ["shape=*x8192", "dtype=fp8"]
//! floor = 0.5
//!
//! [[rules]]
//! match = ["op=experimental_*"]
//! ignore = true
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use super::defaults;
use crate::glob::glob_match;
use crate::runner::read::{self, ReadError};

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read the config {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the config {path} is {size} bytes, over the {MAX_CONFIG_BYTES}-byte limit")]
    TooLarge { path: PathBuf, size: u64 },
    #[error("config {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// A config is a few rules; anything this large is not one.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Which way is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Higher,
    Lower,
}

impl Direction {
    /// +1 when higher is better, -1 when lower is: a change times this is
    /// negative when it is worse.
    pub fn sign(self) -> f64 {
        match self {
            Direction::Higher => 1.0,
            Direction::Lower => -1.0,
        }
    }
}

/// A metric column.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metric {
    pub column: String,
    /// As the dashboard line shows it (`TFLOPS`, `TB/s`).
    pub unit: String,
    #[serde(default = "higher")]
    pub direction: Direction,
}

fn higher() -> Direction {
    Direction::Higher
}

/// One rule: where it applies, and what it changes there.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Rule {
    /// `column=glob`, all of which must match.
    #[serde(rename = "match")]
    pub patterns: Vec<String>,
    pub fail_threshold: Option<f64>,
    pub warn_threshold: Option<f64>,
    /// A change smaller than this, in the metric's unit, is no change.
    pub floor: Option<f64>,
    pub direction: Option<Direction>,
    #[serde(default)]
    pub ignore: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default = "default_keys")]
    pub keys: Vec<String>,
    #[serde(default = "default_metrics")]
    pub metrics: Vec<Metric>,
    #[serde(default)]
    pub rules: Vec<Rule>,
}

fn default_keys() -> Vec<String> {
    defaults::KEYS.iter().map(|k| (*k).to_owned()).collect()
}

fn default_metrics() -> Vec<Metric> {
    defaults::METRICS
        .iter()
        .map(|(column, unit)| Metric {
            column: (*column).to_owned(),
            unit: (*unit).to_owned(),
            direction: Direction::Higher,
        })
        .collect()
}

impl Default for Config {
    fn default() -> Config {
        Config {
            keys: default_keys(),
            metrics: default_metrics(),
            rules: Vec::new(),
        }
    }
}

/// What applies to one row: the thresholds (fractions, 0.10 for 10%), the
/// floor, the direction, and whether it is ignored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    pub fail: f64,
    pub warn: f64,
    pub floor: f64,
    pub direction: Option<Direction>,
    pub ignore: bool,
    /// The rule that matched, by position, when one did.
    pub rule: Option<usize>,
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = read::bounded_text(path, MAX_CONFIG_BYTES).map_err(|err| match err {
            ReadError::Io(source) => ConfigError::Read {
                path: path.to_owned(),
                source,
            },
            ReadError::TooLarge { size } => ConfigError::TooLarge {
                path: path.to_owned(),
                size,
            },
        })?;
        Config::parse(&text).map_err(|message| ConfigError::Invalid {
            path: path.to_owned(),
            message,
        })
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|e| e.to_string().replace('\n', " "))?;
        config.check()?;
        Ok(config)
    }

    fn check(&self) -> Result<(), String> {
        if self.keys.is_empty() || self.metrics.is_empty() {
            return Err("keys and metrics must each name at least one column".to_owned());
        }
        for (i, rule) in self.rules.iter().enumerate() {
            let at = format!("rules[{i}]");
            if rule.patterns.is_empty() {
                return Err(format!("{at}: `match` names no pattern"));
            }
            for pattern in &rule.patterns {
                let column = pattern.split_once('=').map(|(c, _)| c.trim());
                if !column.is_some_and(|c| self.keys.iter().any(|k| k == c)) {
                    return Err(format!(
                        "{at}: pattern {pattern:?} is not KEY=GLOB with KEY one of {}",
                        self.keys.join(", ")
                    ));
                }
            }
            for (name, value) in [
                ("fail-threshold", rule.fail_threshold),
                ("warn-threshold", rule.warn_threshold),
                ("floor", rule.floor),
            ] {
                if value.is_some_and(|v| !v.is_finite() || v < 0.0) {
                    return Err(format!("{at}: {name} must be a number from 0 up"));
                }
            }
        }
        Ok(())
    }

    /// The policy for one row, by the values of its key columns: the first
    /// matching rule over the defaults.
    pub fn policy(&self, key: &[&str], fail_pct: f64, warn_pct: f64) -> Policy {
        let mut policy = Policy {
            fail: fail_pct / 100.0,
            warn: warn_pct / 100.0,
            floor: 0.0,
            direction: None,
            ignore: false,
            rule: None,
        };
        let Some((i, rule)) = self
            .rules
            .iter()
            .enumerate()
            .find(|(_, rule)| self.matches(rule, key))
        else {
            return policy;
        };
        policy.rule = Some(i);
        policy.fail = rule.fail_threshold.map_or(policy.fail, |p| p / 100.0);
        policy.warn = rule.warn_threshold.map_or(policy.warn, |p| p / 100.0);
        policy.floor = rule.floor.unwrap_or(0.0);
        policy.direction = rule.direction;
        policy.ignore = rule.ignore;
        policy
    }

    fn matches(&self, rule: &Rule, key: &[&str]) -> bool {
        rule.patterns.iter().all(|pattern| {
            let Some((column, glob)) = pattern.split_once('=') else {
                return false;
            };
            self.keys
                .iter()
                .position(|k| k == column.trim())
                .and_then(|i| key.get(i))
                .is_some_and(|value| glob_match(glob.trim(), value))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key<'a>(op: &'a str, shape: &'a str, dtype: &'a str) -> [&'a str; 3] {
        [op, shape, dtype]
    }

    #[test]
    fn the_first_matching_rule_decides() {
        let config = Config::parse(
            r#"
            [[rules]]
            match = ["op=allreduce*"]
            fail-threshold = 15
            [[rules]]
            match = ["shape=*x8192", "dtype=fp8"]
            floor = 0.5
            direction = "lower"
            [[rules]]
            match = ["op=*"]
            ignore = true
            "#,
        )
        .unwrap();
        let p = config.policy(&key("allreduce_8gpu", "1x8192", "fp8"), 10.0, 3.0);
        assert_eq!((p.fail, p.warn, p.rule), (0.15, 0.03, Some(0)));
        let p = config.policy(&key("gemm", "1x8192", "fp8"), 10.0, 3.0);
        assert_eq!(
            (p.floor, p.direction, p.rule),
            (0.5, Some(Direction::Lower), Some(1))
        );
        let p = config.policy(&key("gemm", "1x8192", "bf16"), 10.0, 3.0);
        assert!(p.ignore);
        assert_eq!(
            Config::default()
                .policy(&key("a", "b", "c"), 10.0, 3.0)
                .rule,
            None
        );
    }

    #[test]
    fn unknown_keys_and_bad_patterns_are_errors() {
        let err = Config::parse("[[rules]]\nmatch = [\"op=x\"]\nfail_treshold = 5\n").unwrap_err();
        assert!(err.contains("fail_treshold"), "{err}");
        let err = Config::parse("[[rules]]\nmatch = [\"kernel=x\"]\n").unwrap_err();
        assert!(err.contains("not KEY=GLOB"), "{err}");
        let err = Config::parse("threshold = 5\n").unwrap_err();
        assert!(err.contains("threshold"), "{err}");
        let err = Config::parse("[[rules]]\nmatch = [\"op=x\"]\nfloor = -1\n").unwrap_err();
        assert!(err.contains("floor"), "{err}");
    }
}
