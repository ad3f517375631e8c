//! Why `config`: the one config file (`bench.toml`) that bench, compare,
//! select, trend, convert and lint read; resolve and comment never read it.
//!
//! The comparison config, checked into the repository (TOML): which columns
//! are the key, which metrics (and which way is better), and ordered rules
//! that give some rows their own thresholds, an absolute floor, a direction,
//! or `ignore`. The first rule whose every pattern matches a row decides.
//! This is the model, compiled for matching (a config may hold thousands of
//! rules, each tried against every row); [`load`] reads and checks the file.
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
//! match = ["op=softmax"]
//! fail-threshold = "auto"   # learned from --history
//!
//! [[rules]]
//! match = ["op=experimental_*"]
//! ignore = true
//!
//! # Jobs and workflows that run benchmarks, for `lint` (see docs/lint.md).
//! [lint]
//! benchmark-jobs = ["gpu-*", "perf"]
//! benchmark-workflows = ["nightly-*.yml"]
//!
//! # What `select` maps changed files to (see docs/select.md).
//! [select]
//! all = ["CMakeLists.txt", "scripts/run_benchmark.sh", "python/flydsl/compiler/**"]
//! ignore = ["**/*.md", "docs/**"]
//! max-files = 3000
//!
//! [[select.groups]]
//! name = "softmax"
//! paths = ["kernels/softmax/**", "tests/bench/softmax*.py"]
//! rows = ["op=softmax*"]
//! ```
//!
//! Thresholds are fractions here (0.10 for 10%): percentages exist only
//! where a person reads or writes them (flags, TOML, messages).

pub mod columns;
pub mod defaults;
pub mod judging;
pub mod load;

use crate::glob::{Glob, PathGlob};

pub use load::{ConfigError, MAX_CONFIG_BYTES};

/// Which way is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub column: String,
    /// As the dashboard line shows it (`TFLOPS`, `TB/s`).
    pub unit: String,
    pub direction: Direction,
}

/// How much worse fails the gate: a fraction, or learned per row from
/// the history (`auto`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FailThreshold {
    Fixed(f64),
    Auto,
}

impl FailThreshold {
    /// The fraction a row is judged by when no history teaches one: the
    /// fixed threshold, or for `auto` the default.
    pub fn configured(self) -> f64 {
        match self {
            FailThreshold::Fixed(f) => f,
            FailThreshold::Auto => defaults::FAIL_THRESHOLD,
        }
    }
}

/// The thresholds a run was given (`--fail-threshold`, `--warn-threshold`),
/// as fractions, and whether each was given or is the default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub fail: FailThreshold,
    pub warn: f64,
    /// `--fail-threshold` (or `INPUT_FAIL_THRESHOLD`) was given.
    pub fail_given: bool,
    /// The chance (a fraction) that a pull request of noise alone fails
    /// on some row, shared among its rows by the learned bands.
    pub false_alarms: f64,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            fail: FailThreshold::Fixed(defaults::FAIL_THRESHOLD),
            warn: defaults::WARN_THRESHOLD,
            fail_given: false,
            false_alarms: defaults::FALSE_ALARMS,
        }
    }
}

/// One `KEY=GLOB` pattern, compiled: the key column's position and the glob.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub column: usize,
    pub glob: Glob,
    /// As written, for messages.
    pub text: String,
}

/// One rule: where it applies, and what it changes there.
#[derive(Debug, Clone, Default)]
pub struct Rule {
    pub patterns: Vec<Pattern>,
    pub fail: Option<FailThreshold>,
    pub warn: Option<f64>,
    /// A change smaller than this, in the metric's unit, is no change.
    pub floor: Option<f64>,
    pub direction: Option<Direction>,
    pub ignore: bool,
}

impl Rule {
    /// Every pattern matches the row's key cells.
    pub fn matches(&self, cells: &[&str]) -> bool {
        self.patterns.iter().all(|p| {
            cells
                .get(p.column)
                .is_some_and(|value| p.glob.matches(value))
        })
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub keys: Vec<String>,
    pub metrics: Vec<Metric>,
    pub rules: Vec<Rule>,
    /// The `[select]` table, when the config has one.
    pub select: Option<Select>,
    /// The `[lint]` table, when the config has one.
    pub lint: Option<Lint>,
    /// `[rerun]`: how compare's `rerun` output names the rows to run again.
    pub rerun: Rerun,
}

/// `[rerun]`: which key column's values the `rerun` outputs list, joined
/// how: the form the harness's own flag takes (`--only softmax,moe` is one
/// harness's; another takes `-k "softmax or moe"` or one name per line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rerun {
    /// The key column, by position in `keys` (the first by default).
    pub key: usize,
    /// Between two values: `,` (default), ` `, `\n`, or ` or `.
    pub join: &'static str,
}

impl Default for Rerun {
    fn default() -> Rerun {
        Rerun { key: 0, join: "," }
    }
}

impl Rerun {
    /// `comma`, `space`, `lines` or `or`, as `[rerun] join` spells it.
    pub fn join_of(word: &str) -> Option<&'static str> {
        match word {
            "comma" => Some(","),
            "space" => Some(" "),
            "lines" => Some("\n"),
            "or" => Some(" or "),
            _ => None,
        }
    }
}

/// `[lint]`: the jobs (by id) and workflows (by file name) that run
/// benchmarks, for `lint`'s baseline rules, where the files do not show it.
#[derive(Debug, Clone, Default)]
pub struct Lint {
    pub benchmark_jobs: Vec<Glob>,
    pub benchmark_workflows: Vec<Glob>,
}

/// A path pattern as written and compiled.
#[derive(Debug, Clone)]
pub struct PathPattern {
    pub text: String,
    pub glob: PathGlob,
}

/// `[select]`: which changed files select which benchmark groups.
#[derive(Debug, Clone)]
pub struct Select {
    /// A change here runs everything (the harness, the build, the compiler).
    pub all: Vec<PathPattern>,
    /// Never relevant (docs, Markdown).
    pub ignore: Vec<PathPattern>,
    /// More changed files than this: everything.
    pub max_files: usize,
    pub groups: Vec<Group>,
}

/// One benchmark group: its name (what `run_benchmark.sh --only` takes),
/// the paths that affect it, and the result rows it produces.
#[derive(Debug, Clone)]
pub struct Group {
    pub name: String,
    pub paths: Vec<PathPattern>,
    /// A row is the group's when any of these `KEY=GLOB` patterns matches.
    pub rows: Vec<Pattern>,
}

impl Group {
    /// Whether the row with these key cells is one of this group's.
    pub fn owns(&self, cells: &[&str]) -> bool {
        self.rows.iter().any(|p| {
            cells
                .get(p.column)
                .is_some_and(|value| p.glob.matches(value))
        })
    }
}

impl Select {
    /// Whether a row with these key cells belongs only to groups that did
    /// not run (`unselected`, by position): at least one group owns it and
    /// none of its owners ran. A row no group claims is always compared.
    pub fn only_unselected(&self, unselected: &[usize], cells: &[&str]) -> bool {
        let mut owners = self
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.owns(cells))
            .peekable();
        owners.peek().is_some() && owners.all(|(i, _)| unselected.contains(&i))
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            keys: defaults::KEYS.iter().map(|k| (*k).to_owned()).collect(),
            metrics: defaults::METRICS
                .iter()
                .map(|(column, unit)| Metric {
                    column: (*column).to_owned(),
                    unit: (*unit).to_owned(),
                    direction: Direction::Higher,
                })
                .collect(),
            rules: Vec::new(),
            select: None,
            lint: None,
            rerun: Rerun::default(),
        }
    }
}

/// Where a row's fail threshold came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Source {
    /// The default (10%).
    Default,
    /// `--fail-threshold`.
    Input,
    /// `[[rules]]` number N (from 0).
    Rule(usize),
}

/// What applies to one row before any history is read: the thresholds
/// (fractions), the floor, the direction, and whether it is ignored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    pub fail: FailThreshold,
    pub fail_source: Source,
    pub warn: f64,
    pub floor: f64,
    pub direction: Option<Direction>,
    pub ignore: bool,
    /// The rule that matched, by position, when one did.
    pub rule: Option<usize>,
}

impl Config {
    /// The first rule every pattern of which matches `cells`, by position.
    pub fn rule_for(&self, cells: &[&str]) -> Option<usize> {
        self.rules.iter().position(|r| r.matches(cells))
    }

    /// The policy for a row that `rule` (from [`Config::rule_for`]) matched.
    pub fn policy(&self, rule: Option<usize>, thresholds: &Thresholds) -> Policy {
        let base_source = if thresholds.fail_given {
            Source::Input
        } else {
            Source::Default
        };
        let mut policy = Policy {
            fail: thresholds.fail,
            fail_source: base_source,
            warn: thresholds.warn,
            floor: 0.0,
            direction: None,
            ignore: false,
            rule: None,
        };
        let Some(r) = rule.and_then(|i| self.rules.get(i)) else {
            return policy;
        };
        policy.rule = rule;
        if let Some(fail) = r.fail {
            policy.fail = fail;
            policy.fail_source = Source::Rule(rule.unwrap_or(0));
        }
        policy.warn = r.warn.unwrap_or(policy.warn);
        policy.floor = r.floor.unwrap_or(0.0);
        policy.direction = r.direction;
        policy.ignore = r.ignore;
        policy
    }

    /// True when every metric is lower-is-better: only then can a change be
    /// worse than -100% (a latency that triples is -200%).
    pub fn all_lower(&self) -> bool {
        self.metrics.iter().all(|m| m.direction == Direction::Lower)
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
        let config = load::parse(
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
        let th = Thresholds::default();
        let p = config.policy(
            config.rule_for(&key("allreduce_8gpu", "1x8192", "fp8")),
            &th,
        );
        assert_eq!(
            (p.fail, p.warn, p.rule, p.fail_source),
            (FailThreshold::Fixed(0.15), 0.03, Some(0), Source::Rule(0))
        );
        let p = config.policy(config.rule_for(&key("gemm", "1x8192", "fp8")), &th);
        assert_eq!(
            (p.floor, p.direction, p.rule, p.fail_source),
            (0.5, Some(Direction::Lower), Some(1), Source::Default)
        );
        let p = config.policy(config.rule_for(&key("gemm", "1x8192", "bf16")), &th);
        assert!(p.ignore);
        assert_eq!(Config::default().rule_for(&key("a", "b", "c")), None);
    }
}
