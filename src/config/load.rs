//! Reading the config: the file (bounded), its TOML, and the checks that
//! make a mistake an error instead of a rule that silently does nothing
//! (an unknown key, a pattern on a column that is not a key, a threshold
//! that could never fail). An error names the file and the line, and shows
//! at most [`SNIPPET`] characters of it, control characters made visible
//! (the file may be a stranger's, and a line may be a megabyte long).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use super::judging;
use super::{
    Config, Direction, FailThreshold, Group, Lint, Metric, PathPattern, Pattern, Rerun, Rule,
    Select,
};
use crate::glob::{Glob, PathGlob};
use crate::runner::read::{self, FileError};

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("config {}{}: {message}", path.display(), line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Invalid {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
}

/// A config is a few rules; anything this large is not one.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The most of an offending line an error shows.
pub const SNIPPET: usize = 200;

/// Why the text is not a config, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: Option<usize>,
    pub message: String,
}

impl Problem {
    fn at(line: Option<usize>, message: impl Into<String>) -> Problem {
        Problem {
            line,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = read::bounded_text("the config", path, MAX_CONFIG_BYTES)?;
    from_text(path, &text)
}

/// The config in `text`, read from `path` (which its errors name): for a
/// reader that keeps the text it read (bench, for its manifest).
pub fn from_text(path: &Path, text: &str) -> Result<Config, ConfigError> {
    parse(text).map_err(|p| ConfigError::Invalid {
        path: path.to_owned(),
        line: p.line,
        message: p.message,
    })
}

/// The file as written, before checks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    keys: Option<Vec<String>>,
    metrics: Option<Vec<MetricSpec>>,
    #[serde(default)]
    rules: Vec<toml::Spanned<RuleSpec>>,
    select: Option<toml::Spanned<SelectSpec>>,
    lint: Option<LintSpec>,
    rerun: Option<toml::Spanned<RerunSpec>>,
}

/// `[rerun]`: the key column the `rerun` outputs list, and the joiner.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RerunSpec {
    key: Option<String>,
    join: Option<String>,
}

/// `[lint]`: which jobs and workflows run benchmarks, where the files do
/// not show it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LintSpec {
    #[serde(default)]
    benchmark_jobs: Vec<String>,
    #[serde(default)]
    benchmark_workflows: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct SelectSpec {
    #[serde(default)]
    all: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default = "default_max_files")]
    max_files: usize,
    #[serde(default)]
    groups: Vec<toml::Spanned<GroupSpec>>,
}

fn default_max_files() -> usize {
    3000
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupSpec {
    name: String,
    paths: Vec<String>,
    #[serde(default)]
    rows: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MetricSpec {
    column: String,
    unit: String,
    #[serde(default = "higher")]
    direction: Direction,
}

fn higher() -> Direction {
    Direction::Higher
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RuleSpec {
    #[serde(rename = "match")]
    patterns: Vec<String>,
    fail_threshold: Option<ThresholdSpec>,
    warn_threshold: Option<f64>,
    floor: Option<f64>,
    direction: Option<Direction>,
    #[serde(default)]
    ignore: bool,
}

/// A percentage, or `"auto"`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ThresholdSpec {
    Percent(f64),
    Word(String),
}

/// Parses and checks a config's text.
pub fn parse(text: &str) -> Result<Config, Problem> {
    let file: File = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        let mut message = one_line(e.message());
        if let Some(snippet) = line.and_then(|l| text.lines().nth(l.saturating_sub(1))) {
            message.push_str(&format!(" (in `{}`)", snippet_of(snippet)));
        }
        Problem::at(line, message)
    })?;
    let defaults = Config::default();
    let keys = file.keys.unwrap_or(defaults.keys);
    let metrics = match file.metrics {
        Some(specs) => specs
            .into_iter()
            .map(|m| Metric {
                column: m.column,
                unit: m.unit,
                direction: m.direction,
            })
            .collect(),
        None => defaults.metrics,
    };
    if keys.is_empty() || metrics.is_empty() {
        return Err(Problem::at(
            None,
            "keys and metrics must each name at least one column",
        ));
    }
    let rerun = match file.rerun {
        Some(spec) => {
            let line = line_of(text, spec.span().start);
            rerun_of(&keys, spec.into_inner()).map_err(|m| Problem::at(Some(line), m))?
        }
        None => Rerun::default(),
    };
    let mut config = Config {
        rerun,
        keys,
        metrics,
        rules: Vec::with_capacity(file.rules.len()),
        select: None,
        lint: file.lint.map(|l| Lint {
            benchmark_jobs: l.benchmark_jobs.iter().map(|p| Glob::new(p)).collect(),
            benchmark_workflows: l.benchmark_workflows.iter().map(|p| Glob::new(p)).collect(),
        }),
    };
    for (i, spec) in file.rules.into_iter().enumerate() {
        // The line is counted only for an error: counting it for every rule
        // of a large config would read the text once per rule.
        let start = spec.span().start;
        let rule = compile(&config, i, spec.into_inner())
            .map_err(|message| Problem::at(Some(line_of(text, start)), message))?;
        config.rules.push(rule);
    }
    if let Some(spec) = file.select {
        let start = spec.span().start;
        let select =
            compile_select(&config.keys, spec.into_inner(), text).map_err(|(at, message)| {
                Problem::at(Some(at.unwrap_or_else(|| line_of(text, start))), message)
            })?;
        config.select = Some(select);
    }
    Ok(config)
}

/// `[rerun]` checked: a key column the config has, a joiner it knows.
fn rerun_of(keys: &[String], spec: RerunSpec) -> Result<Rerun, String> {
    let key = match spec.key {
        None => Rerun::default().key,
        Some(k) => keys.iter().position(|c| *c == k).ok_or_else(|| {
            format!(
                "rerun: key {:?} is not one of the key columns ({})",
                snippet_of(&k),
                keys.join(", ")
            )
        })?,
    };
    let join = match spec.join {
        None => Rerun::default().join,
        Some(j) => Rerun::join_of(&j).ok_or_else(|| {
            format!(
                "rerun: join {:?} is not comma, space, lines or or",
                snippet_of(&j)
            )
        })?,
    };
    Ok(Rerun { key, join })
}

/// Path patterns, compiled; `!` (gitignore's negation) is refused rather
/// than read as a literal `!` that would never match.
fn paths(at: &str, patterns: Vec<String>) -> Result<Vec<PathPattern>, String> {
    patterns
        .into_iter()
        .map(|text| {
            if text.starts_with('!') {
                return Err(format!(
                    "{at}: {:?}: negation (!) is not supported; list what to match instead",
                    snippet_of(&text)
                ));
            }
            Ok(PathPattern {
                glob: PathGlob::new(&text),
                text,
            })
        })
        .collect()
}

/// A group name is what `run_benchmark.sh --only a,b` takes: no comma, no
/// space, nothing a shell would read.
fn group_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn compile_select(
    keys: &[String],
    spec: SelectSpec,
    text: &str,
) -> Result<Select, (Option<usize>, String)> {
    if spec.max_files == 0 {
        return Err((None, "select: max-files must be at least 1".to_owned()));
    }
    let mut groups: Vec<Group> = Vec::with_capacity(spec.groups.len());
    for (i, group) in spec.groups.into_iter().enumerate() {
        let start = group.span().start;
        let line = || Some(line_of(text, start));
        let group = group.into_inner();
        let at = format!("select.groups[{i}]");
        if !group_name_ok(&group.name) {
            return Err((
                line(),
                format!(
                    "{at}: name {:?} is not a group name (letters, digits, '_', '-', '.')",
                    snippet_of(&group.name)
                ),
            ));
        }
        if groups.iter().any(|g| g.name == group.name) {
            return Err((
                line(),
                format!("{at}: the name {:?} is used twice", group.name),
            ));
        }
        if group.paths.is_empty() {
            return Err((line(), format!("{at}: `paths` names no pattern")));
        }
        let mut rows = Vec::with_capacity(group.rows.len());
        for pattern in group.rows {
            rows.push(key_pattern(keys, &at, pattern).map_err(|m| (line(), m))?);
        }
        groups.push(Group {
            name: group.name,
            paths: paths(&format!("{at}.paths"), group.paths).map_err(|m| (line(), m))?,
            rows,
        });
    }
    Ok(Select {
        all: paths("select.all", spec.all).map_err(|m| (None, m))?,
        ignore: paths("select.ignore", spec.ignore).map_err(|m| (None, m))?,
        max_files: spec.max_files,
        groups,
    })
}

/// One `KEY=GLOB` pattern, compiled.
pub(super) fn key_pattern(keys: &[String], at: &str, text: String) -> Result<Pattern, String> {
    let found = text.split_once('=').and_then(|(c, g)| {
        let column = keys.iter().position(|k| k == c.trim())?;
        Some((column, g.trim().to_owned()))
    });
    let Some((column, glob)) = found else {
        return Err(format!(
            "{at}: pattern {:?} is not KEY=GLOB with KEY one of {}",
            snippet_of(&text),
            keys.join(", ")
        ));
    };
    Ok(Pattern {
        column,
        glob: Glob::new(&glob),
        text,
    })
}

fn compile(config: &Config, i: usize, spec: RuleSpec) -> Result<Rule, String> {
    let at = format!("rules[{i}]");
    if spec.patterns.is_empty() {
        return Err(format!("{at}: `match` names no pattern"));
    }
    let mut patterns = Vec::with_capacity(spec.patterns.len());
    for text in spec.patterns {
        patterns.push(key_pattern(&config.keys, &at, text)?);
    }
    // The ranges and words of the inputs (`--fail-threshold`, `--floor`).
    let threshold = |name: &str, value: Option<f64>| {
        value
            .map(|p| {
                judging::THRESHOLD
                    .number(p)
                    .map_err(|e| format!("{at}: {name}: {e}"))
            })
            .transpose()
    };
    let fail = match spec.fail_threshold {
        None => None,
        Some(ThresholdSpec::Word(w)) if w == "auto" => Some(FailThreshold::Auto),
        Some(ThresholdSpec::Word(w)) => {
            return Err(format!(
                "{at}: fail-threshold must be a percentage or \"auto\", not {:?}",
                snippet_of(&w)
            ));
        }
        Some(ThresholdSpec::Percent(p)) => {
            let f = threshold("fail-threshold", Some(p))?.unwrap_or(0.0);
            let lower = spec
                .direction
                .map_or_else(|| config.all_lower(), |d| d == Direction::Lower);
            if !judging::can_fail(f, lower) {
                return Err(format!(
                    "{at}: fail-threshold = {p} can never fail: a higher-is-better metric falls at most 100% (to zero); use a smaller one, or `ignore = true` for rows that should not gate"
                ));
            }
            Some(FailThreshold::Fixed(f))
        }
    };
    let floor = spec
        .floor
        .map(|n| super::columns::floor_value(n).map_err(|e| format!("{at}: floor: {e}")))
        .transpose()?;
    Ok(Rule {
        patterns,
        fail,
        warn: threshold("warn-threshold", spec.warn_threshold)?,
        floor,
        direction: spec.direction,
        ignore: spec.ignore,
    })
}

/// The 1-based line of byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    let upto = text.get(..offset.min(text.len())).unwrap_or(text);
    upto.bytes()
        .filter(|b| *b == b'\n')
        .count()
        .saturating_add(1)
}

/// A message on one line.
fn one_line(text: &str) -> String {
    snippet_of(text.trim())
}

/// At most [`SNIPPET`] characters, control characters shown as `\u{..}`.
fn snippet_of(text: &str) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count >= SNIPPET {
            out.push_str(&format!("... ({} bytes)", text.len()));
            break;
        }
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_and_bad_patterns_are_errors_with_their_line() {
        let err = parse("[[rules]]\nmatch = [\"op=x\"]\nfail_treshold = 5\n").unwrap_err();
        assert!(err.message.contains("fail_treshold"), "{err}");
        assert_eq!(err.line, Some(3), "{err}");
        let err = parse("\n[[rules]]\nmatch = [\"kernel=x\"]\n").unwrap_err();
        assert!(err.message.contains("not KEY=GLOB"), "{err}");
        assert_eq!(err.line, Some(2), "{err}");
        let err = parse("threshold = 5\n").unwrap_err();
        assert!(err.message.contains("threshold"), "{err}");
        let err = parse("[[rules]]\nmatch = [\"op=x\"]\nfloor = -1\n").unwrap_err();
        assert!(err.message.contains("floor"), "{err}");
    }

    #[test]
    fn a_negated_path_pattern_is_refused() {
        let err = parse("[select]\nignore = [\"!docs/keep.md\"]\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("select.ignore: \"!docs/keep.md\": negation (!) is not supported"),
            "{err}"
        );
    }

    #[test]
    fn a_select_table_is_checked_with_its_line() {
        let c = parse(
            "[select]\nall = [\"CMakeLists.txt\"]\nignore = [\"**/*.md\"]\n[[select.groups]]\nname = \"softmax\"\npaths = [\"kernels/softmax/**\"]\nrows = [\"op=softmax*\"]\n",
        )
        .unwrap();
        let s = c.select.unwrap();
        assert_eq!((s.max_files, s.groups.len()), (3000, 1));
        assert!(s.groups[0].owns(&["softmax_online", "1x1", "bf16"]));
        assert!(s.groups[0].paths[0].glob.matches("kernels/softmax/a.cu"));
        let err =
            parse("[select]\n[[select.groups]]\nname = \"a b\"\npaths = [\"x\"]\n").unwrap_err();
        assert!(err.message.contains("not a group name"), "{err}");
        assert_eq!(err.line, Some(2));
        let err = parse("[select]\nmax_files = 3\n").unwrap_err();
        assert!(err.message.contains("max_files"), "{err}");
        let err = parse(
            "[select]\n[[select.groups]]\nname = \"a\"\npaths = [\"x\"]\nrows = [\"kernel=x\"]\n",
        )
        .unwrap_err();
        assert!(err.message.contains("not KEY=GLOB"), "{err}");
    }

    #[test]
    fn a_threshold_that_could_never_fail_is_refused() {
        let err = parse("[[rules]]\nmatch = [\"op=x\"]\nfail-threshold = 100\n").unwrap_err();
        assert!(err.message.contains("can never fail"), "{err}");
        parse("[[rules]]\nmatch = [\"op=x\"]\nfail-threshold = 150\ndirection = \"lower\"\n")
            .unwrap();
        let c = parse("[[rules]]\nmatch = [\"op=x\"]\nfail-threshold = \"auto\"\n").unwrap();
        assert_eq!(c.rules[0].fail, Some(FailThreshold::Auto));
        let err = parse("[[rules]]\nmatch = [\"op=x\"]\nfail-threshold = \"fast\"\n").unwrap_err();
        assert!(err.message.contains("\"auto\""), "{err}");
    }

    #[test]
    fn an_error_shows_a_short_snippet_without_control_characters() {
        let long = format!("keys = [\"{}\r::warning::x\", 1]\n", "k".repeat(1 << 20));
        let err = parse(&long).unwrap_err().to_string();
        assert!(err.len() < 2 * SNIPPET + 200, "{} bytes", err.len());
        assert!(!err.contains('\r'), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
}
