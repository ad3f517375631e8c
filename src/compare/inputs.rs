//! Validated inputs of `compare`: flags merged with `INPUT_*` variables
//! through the runner's [`Reader`], every value checked and named by where
//! it came from when it is wrong.

use std::path::PathBuf;

use thiserror::Error;

use super::args::CompareArgs;
use super::defaults;
use crate::config::{FailThreshold, Thresholds};
use crate::paired::{Schedule, schedule};
use crate::runner::env::{Input, Value};
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader, shown};
use crate::table::formats::Format as ResultsFormat;
use crate::validate::Label;

const CURRENT: Input = Input::new("current", &["INPUT_CURRENT"]);
const BASELINE: Input = Input::new("baseline", &["INPUT_BASELINE"]);
const GATE: Input = Input::new("gate", &["INPUT_GATE"]);
const FAIL: Input = Input::new("fail-threshold", &["INPUT_FAIL_THRESHOLD"]);
const WARN: Input = Input::new("warn-threshold", &["INPUT_WARN_THRESHOLD"]);
const FALSE_ALARMS: Input = Input::new("false-alarms", &["INPUT_FALSE_ALARMS"]);
const CONFIG: Input = Input::new("config", &["INPUT_CONFIG"]);
const STRICT: Input = Input::new("strict", &["INPUT_STRICT"]);
const RESULTS_FORMAT: Input = Input::new("results-format", &["INPUT_RESULTS_FORMAT"]);
const NO_GATE: Input = Input::new("no-gate", &["INPUT_NO_GATE"]);
const MIN_COVERAGE: Input = Input::new("min-coverage", &["INPUT_MIN_COVERAGE"]);
const REPORT: Input = Input::new("report", &["INPUT_REPORT"]);
const RESOLUTION: Input = Input::new("resolution", &["INPUT_RESOLUTION"]);
const HISTORY: Input = Input::new("history", &["INPUT_HISTORY"]);
const SELECTION: Input = Input::new("selection", &["INPUT_SELECTION"]);
const PAIRED: Input = Input::new("paired", &["INPUT_PAIRED"]);
const MANIFEST: Input = Input::new("manifest", &["INPUT_MANIFEST"]);
const ROUNDS: Input = Input::new("rounds", &["INPUT_ROUNDS"]);
const MAX_ROUNDS: Input = Input::new("max-rounds", &["INPUT_MAX_ROUNDS"]);
const FORMAT: Input = Input::new("format", &[]);

#[derive(Debug, Error)]
enum Problem {
    #[error("no current results: pass --current FILE (the benchmark results of the change)")]
    NoCurrent,
    #[error("no baseline: pass --baseline LABEL=FILE (main's results, say main=main.csv)")]
    NoBaseline,
    #[error("expected LABEL=FILE, got {0:?}")]
    NotLabelFile(String),
    #[error("{0:?} is not one of the baseline labels ({1})")]
    UnknownGate(String, String),
    #[error("expected a percentage from 0 to 1000, got {0:?}")]
    Percent(String),
    #[error("expected a percentage from 0 to 1000 or auto, got {0:?}")]
    FailPercent(String),
    #[error("expected a percentage above 0 and at most 50, got {0:?}")]
    Rate(String),
    #[error(
        "--manifest names the rounds of both sides: give it, or --current and --baseline files, not both"
    )]
    ManifestAndCurrent,
    #[error("expected a number of rounds from 1 to {max}, got {0:?}", max = schedule::LIMIT)]
    Rounds(String),
    #[error(
        "--paired pairs the i-th --current file with the i-th file of the gate baseline {label}: {current} current files, {baseline} of {label}"
    )]
    Unpaired {
        label: String,
        current: usize,
        baseline: usize,
    },
    #[error("expected a percentage from 0 to 100, got {0:?}")]
    Coverage(String),
}

/// One baseline label and its sample files, in the order given.
#[derive(Debug, Clone)]
pub struct BaselineFiles {
    pub label: Label,
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Clone)]
pub struct Inputs {
    pub current: Vec<PathBuf>,
    pub baselines: Vec<BaselineFiles>,
    /// The gate label (the first baseline unless `--gate`).
    pub gate: Label,
    /// Fractions; `fail_origin` names where the fail threshold came from.
    pub thresholds: Thresholds,
    pub fail_origin: String,
    /// Past runs of the gate's branch (paths or globs), in run order.
    pub history: Vec<PathBuf>,
    pub config: Option<PathBuf>,
    /// `--results-format`: every file read as this format; `None` finds
    /// each file's from its content.
    pub results_format: Option<ResultsFormat>,
    pub strict: bool,
    pub report_only: bool,
    /// The share of the suite (percent) a pass needs compared; below it
    /// the gate is inconclusive.
    pub min_coverage: f64,
    /// Where the JSON report is also written (`--report`).
    pub report: Option<PathBuf>,
    /// A path, or the JSON itself.
    pub resolution: Option<String>,
    /// `select`'s answer: a path, or the JSON itself.
    pub selection: Option<String>,
    /// `--paired`: the gate's files are rounds, each paired with the
    /// current file of the same position, looked at on this schedule.
    pub paired: Option<Schedule>,
    /// `--manifest`: bench's rounds, read by [`with_manifest`]; the
    /// `--rounds`/`--max-rounds` given (they override the manifest's), and
    /// whether `--gate` was.
    pub manifest: Option<PathBuf>,
    pub schedule_given: (Option<usize>, Option<usize>),
    pub gate_given: bool,
    pub format: Format,
    pub files: RunnerFiles,
    /// `--fingerprint` and the fingerprint files named.
    pub machine: super::machine::Asked,
}

pub fn validate(args: &CompareArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::new(env);
    let flags: Vec<String> = args
        .current
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let paths = |input: &Input, flags: &[String]| -> Vec<PathBuf> {
        r.values(input, flags)
            .into_iter()
            .map(|v| PathBuf::from(v.text))
            .collect()
    };
    let path = |input: &Input, flag: Option<&PathBuf>| {
        r.value(input, flag.map(|p| p.to_string_lossy()).as_deref())
            .map(|v| PathBuf::from(v.text))
    };
    let current = paths(&CURRENT, &flags);
    let manifest = path(&MANIFEST, args.manifest.as_ref());
    match (current.is_empty(), manifest.is_some()) {
        (true, false) => return Err(usage(&CURRENT, Problem::NoCurrent)),
        (false, true) => return Err(usage(&MANIFEST, Problem::ManifestAndCurrent)),
        _ => {}
    }
    let baselines = baselines(&r, args, manifest.is_some())?;
    let (gate, gate_given) = gate(&r, args, &baselines, manifest.is_some())?;
    let fail = r.value(&FAIL, args.fail_threshold.as_deref());
    let fail_origin = fail
        .as_ref()
        .map_or_else(|| FAIL.both(), |v| v.origin.clone());
    let thresholds = thresholds(&r, args, fail)?;
    let schedule_given = (
        r.parse(&ROUNDS, args.rounds.as_deref(), round_count)?,
        r.parse(&MAX_ROUNDS, args.max_rounds.as_deref(), round_count)?,
    );
    let paired = match manifest {
        Some(_) => None,
        None => paired_schedule(&r, args, &current, &baselines, &gate, schedule_given)?,
    };
    let history_flags: Vec<String> = args
        .history
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    Ok(Inputs {
        current,
        gate,
        baselines,
        thresholds,
        fail_origin,
        history: paths(&HISTORY, &history_flags),
        config: path(&CONFIG, args.config.as_ref()),
        results_format: r.parse(&RESULTS_FORMAT, args.results_format.as_deref(), named)?,
        strict: r.switch(&STRICT, args.strict, false)?,
        report_only: r.switch(&NO_GATE, args.no_gate, false)?,
        min_coverage: min_coverage(&r, args)?,
        report: path(&REPORT, args.report.as_ref()),
        resolution: r
            .value(&RESOLUTION, args.resolution.as_deref())
            .map(|v| v.text),
        selection: r
            .value(&SELECTION, args.selection.as_deref())
            .map(|v| v.text),
        paired,
        manifest,
        schedule_given,
        gate_given,
        format: Format::choose(
            r.value(&FORMAT, args.format.as_deref()),
            crate::runner::on_runner(env),
        )?,
        files: RunnerFiles::from_env(&r),
        machine: super::machine::asked(&r, args)?,
    })
}

/// The gate label: `--gate` (a baseline's label, or with `--manifest` the
/// label the manifest will bring), else the first baseline's; and whether
/// `--gate` was given.
fn gate(
    r: &Reader<'_>,
    args: &CompareArgs,
    baselines: &[BaselineFiles],
    manifest: bool,
) -> Result<(Label, bool), InputError> {
    let labels = || {
        baselines
            .iter()
            .map(|b| b.label.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let gate_value = r.value(&GATE, args.gate.as_deref());
    let gate_given = gate_value.is_some();
    let gate = match gate_value {
        Some(v) => match baselines.iter().find(|b| b.label.as_str() == v.text) {
            Some(b) => b.label.clone(),
            // The manifest's label is known once it is read.
            None if manifest => Label::parse(&v.text).map_err(|e| v.invalid(e))?,
            None => return Err(v.invalid(Problem::UnknownGate(shown(&v.text), labels()))),
        },
        None => match baselines.first() {
            Some(b) => b.label.clone(),
            None if manifest => Label::parse("main").map_err(|e| InputError {
                origin: GATE.both(),
                message: e.to_string(),
            })?,
            None => return Err(usage(&BASELINE, Problem::NoBaseline)),
        },
    };
    Ok((gate, gate_given))
}

/// `--paired` and its look schedule (`--rounds`, `--max-rounds`); the
/// gate's files and current's must pair one to one.
fn paired_schedule(
    r: &Reader<'_>,
    args: &CompareArgs,
    current: &[PathBuf],
    baselines: &[BaselineFiles],
    gate: &Label,
    (rounds, max_rounds): (Option<usize>, Option<usize>),
) -> Result<Option<Schedule>, InputError> {
    if !r.switch(&PAIRED, args.paired, false)? {
        return Ok(None);
    }
    let baseline = baselines
        .iter()
        .find(|b| &b.label == gate)
        .map_or(0, |b| b.files.len());
    if baseline != current.len() {
        return Err(usage(
            &PAIRED,
            Problem::Unpaired {
                label: gate.to_string(),
                current: current.len(),
                baseline,
            },
        ));
    }
    Ok(Some(Schedule {
        rounds: rounds.unwrap_or(defaults::ROUNDS),
        max_rounds: max_rounds.unwrap_or(defaults::MAX_ROUNDS),
    }))
}

/// `--results-format`: a format's name.
fn named(text: &str) -> Result<ResultsFormat, String> {
    ResultsFormat::parse_name(text)
}

/// `--rounds`, `--max-rounds`: a whole number of rounds, at least one.
fn round_count(text: &str) -> Result<usize, Problem> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=schedule::LIMIT).contains(&n) => Ok(n),
        _ => Err(Problem::Rounds(shown(text))),
    }
}

fn usage(input: &Input, problem: Problem) -> InputError {
    InputError {
        origin: input.both(),
        message: problem.to_string(),
    }
}

/// `LABEL=FILE` entries, grouped by label in the order first given.
/// `LABEL=` with no file (an earlier step that was skipped or failed left
/// its output empty) keeps the label with no file: that baseline is
/// unavailable with a warning, and the others are still compared.
fn baselines(
    r: &Reader<'_>,
    args: &CompareArgs,
    manifest: bool,
) -> Result<Vec<BaselineFiles>, InputError> {
    let mut out: Vec<BaselineFiles> = Vec::new();
    for value in r.values(&BASELINE, &args.baseline) {
        let (label, file) = value
            .text
            .split_once('=')
            .filter(|(l, _)| !l.trim().is_empty())
            .ok_or_else(|| value.invalid(Problem::NotLabelFile(shown(&value.text))))?;
        let label = Label::parse(label.trim()).map_err(|e| value.invalid(e))?;
        let file = Some(file.trim())
            .filter(|f| !f.is_empty())
            .map(PathBuf::from);
        match out.iter_mut().find(|b| b.label == label) {
            Some(group) => group.files.extend(file),
            None => out.push(BaselineFiles {
                label,
                files: file.into_iter().collect(),
            }),
        }
    }
    if out.is_empty() && !manifest {
        return Err(usage(&BASELINE, Problem::NoBaseline));
    }
    Ok(out)
}

/// `--min-coverage`: a percentage from 0 to 100, 50 by default.
fn min_coverage(r: &Reader<'_>, args: &CompareArgs) -> Result<f64, InputError> {
    let Some(value) = r.value(&MIN_COVERAGE, args.min_coverage.as_deref()) else {
        return Ok(super::coverage::DEFAULT_MIN_COVERAGE);
    };
    match percent(&value.text) {
        Ok(p) if p <= 100.0 => Ok(p),
        _ => Err(value.invalid(Problem::Coverage(shown(&value.text)))),
    }
}

/// A percentage as written (`10`, `10%`), from 0 to 1000.
fn percent(text: &str) -> Result<f64, Problem> {
    match text.trim_end_matches('%').trim().parse::<f64>() {
        Ok(p) if p.is_finite() && (0.0..=1000.0).contains(&p) => Ok(p),
        _ => Err(Problem::Percent(shown(text))),
    }
}

/// The thresholds: `--fail-threshold` (already read: `fail`),
/// `--warn-threshold` and `--false-alarms`, fractions.
fn thresholds(
    r: &Reader<'_>,
    args: &CompareArgs,
    fail: Option<Value>,
) -> Result<Thresholds, InputError> {
    Ok(Thresholds {
        fail_given: fail.is_some(),
        fail: match fail {
            Some(v) => fail_threshold(&v.text).map_err(|e| v.invalid(e))?,
            None => FailThreshold::Fixed(defaults::FAIL_THRESHOLD),
        },
        warn: r
            .parse(&WARN, args.warn_threshold.as_deref(), percent)?
            .map_or(defaults::WARN_THRESHOLD, |p| p / 100.0),
        false_alarms: r
            .parse(&FALSE_ALARMS, args.false_alarms.as_deref(), rate)?
            .map_or(defaults::FALSE_ALARMS, |p| p / 100.0),
    })
}

/// `--false-alarms`: a chance, above 0 (a band of certainty is infinite)
/// and at most 50% (a gate that fails every other pull request of noise
/// alone is no gate).
fn rate(text: &str) -> Result<f64, Problem> {
    match text.trim_end_matches('%').trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 50.0 => Ok(p),
        _ => Err(Problem::Rate(shown(text))),
    }
}

/// `--fail-threshold`: a percentage, or `auto` (learned per row from
/// `--history`). Whether a percentage can ever fail depends on the
/// metrics' directions, checked once the config is read.
fn fail_threshold(text: &str) -> Result<FailThreshold, Problem> {
    if text.eq_ignore_ascii_case("auto") {
        return Ok(FailThreshold::Auto);
    }
    percent(text)
        .map(|p| FailThreshold::Fixed(p / 100.0))
        .map_err(|_| Problem::FailPercent(shown(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn validate_with(args: CompareArgs, vars: &[(&str, &str)]) -> Result<Inputs, InputError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        validate(&args, &|name| map.get(name).cloned())
    }

    #[test]
    fn action_inputs_one_per_line_grouped_by_label() {
        let inputs = validate_with(
            CompareArgs::default(),
            &[
                ("INPUT_CURRENT", "a.csv\nb.csv\n"),
                ("INPUT_BASELINE", "main=m1.csv\nv0.3.1 = t.csv\nmain=m2.csv"),
                ("INPUT_FAIL_THRESHOLD", "15%"),
                ("INPUT_NO_GATE", "true"),
            ],
        )
        .unwrap();
        assert_eq!(inputs.current.len(), 2);
        assert_eq!(inputs.baselines.len(), 2);
        assert_eq!(inputs.baselines[0].files.len(), 2);
        assert_eq!(inputs.gate.as_str(), "main");
        assert_eq!(inputs.thresholds.fail, FailThreshold::Fixed(0.15));
        assert_eq!(inputs.thresholds.warn, 0.03);
        assert!(inputs.thresholds.fail_given);
        assert!(inputs.report_only);
    }

    #[test]
    fn errors_name_where_the_value_came_from() {
        let err =
            validate_with(CompareArgs::default(), &[("INPUT_BASELINE", "main=m.csv")]).unwrap_err();
        assert_eq!(err.origin, "--current / INPUT_CURRENT");
        let cur = [("INPUT_CURRENT", "c.csv")];
        let args = |b: &str| CompareArgs {
            baseline: vec![b.to_owned()],
            ..CompareArgs::default()
        };
        let err = validate_with(args("main@x=m.csv"), &cur).unwrap_err();
        assert_eq!(err.origin, "--baseline");
        assert!(err.message.contains("not a valid label"), "{err}");
        let err = validate_with(args("m.csv"), &cur).unwrap_err();
        assert!(err.message.contains("expected LABEL=FILE"), "{err}");
        let mut vars = cur.to_vec();
        vars.push(("INPUT_GATE", "tag"));
        let err = validate_with(args("main=m.csv"), &vars).unwrap_err();
        assert_eq!(err.origin, "INPUT_GATE");
        let mut vars = cur.to_vec();
        vars.push(("INPUT_WARN_THRESHOLD", "-1"));
        assert_eq!(
            validate_with(args("main=m.csv"), &vars).unwrap_err().origin,
            "INPUT_WARN_THRESHOLD"
        );
    }
}
