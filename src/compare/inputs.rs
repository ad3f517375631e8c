//! Validated inputs of `compare`: the inputs [`super::args`] declares,
//! flags merged with `INPUT_*` variables through the runner's [`Reader`],
//! every value checked and named by where it came from when it is wrong.

use std::path::PathBuf;

use thiserror::Error;

use super::args::*;
use crate::config::Thresholds;
use crate::paired::Schedule;
use crate::runner::format::FORMAT;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, Input, InputError, Reader, shown};
use crate::table::formats::Format as ResultsFormat;
use crate::validate::Label;

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
    #[error(
        "--manifest names the rounds of both sides: give it, or --current and --baseline files, not both"
    )]
    ManifestAndCurrent,
    #[error(
        "--paired pairs the i-th --current file with the i-th file of the gate baseline {label}: {current} current files, {baseline} of {label}"
    )]
    Unpaired {
        label: String,
        current: usize,
        baseline: usize,
    },
}

/// Where the rows' config comes from.
#[derive(Debug, Clone)]
pub enum ConfigFrom {
    /// A file read now: `--config`, or the path an older bench's manifest
    /// names (a regular file).
    File(PathBuf),
    /// The config bench judged its rounds by, as its manifest holds it.
    Benched(Box<crate::config::Config>),
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
    /// `--config`, else with `--manifest` the config bench judged by.
    pub config: Option<ConfigFrom>,
    /// `--keys`, `--metric`, `--ignore`: applied over the config.
    pub columns: crate::config::columns::Columns,
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
    /// `--warn-threshold` and `--false-alarms` were given (else the
    /// manifest's, when there is one, are used).
    pub warn_given: bool,
    pub false_alarms_given: bool,
    /// What reading the manifest found to warn of (a manifest without
    /// bench's copy of its config).
    pub manifest_warnings: Vec<String>,
    pub format: Format,
    pub files: RunnerFiles,
    /// `--fingerprint` and the fingerprint files named.
    pub machine: super::machine::Asked,
}

pub fn validate(args: &CompareArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::given(env, &args.flags);
    let current = r.paths(&CURRENT);
    let manifest = r.path(&MANIFEST);
    match (current.is_empty(), manifest.is_some()) {
        (true, false) => return Err(usage(&CURRENT, Problem::NoCurrent)),
        (false, true) => return Err(usage(&MANIFEST, Problem::ManifestAndCurrent)),
        _ => {}
    }
    let baselines = baselines(&r, manifest.is_some())?;
    let (gate, gate_given) = gate(&r, &baselines, manifest.is_some())?;
    let fail = r.text(&FAIL.input);
    let fail_origin = fail
        .as_ref()
        .map_or_else(|| FAIL.input.both(), |v| v.origin.clone());
    let thresholds = Thresholds {
        fail_given: fail.is_some(),
        fail: r.typed_or_default(&FAIL)?,
        warn: r.typed_or_default(&WARN)?,
        false_alarms: r.typed_or_default(&FALSE_ALARMS)?,
    };
    let schedule_given = (r.typed(&ROUNDS)?, r.typed(&MAX_ROUNDS)?);
    let paired = match manifest {
        Some(_) => None,
        None => paired_schedule(&r, &current, &baselines, &gate, schedule_given)?,
    };
    Ok(Inputs {
        current,
        gate,
        baselines,
        thresholds,
        fail_origin,
        history: r.paths(&HISTORY),
        config: r.path(&CONFIG).map(ConfigFrom::File),
        columns: crate::config::columns::read(&r)?,
        results_format: r.typed(&RESULTS_FORMAT)?,
        strict: r.on(&STRICT)?,
        report_only: r.on(&NO_GATE)?,
        min_coverage: r.typed_or_default(&MIN_COVERAGE)?,
        report: r.path(&REPORT),
        resolution: r.text(&RESOLUTION).map(|v| v.text),
        selection: r.text(&SELECTION).map(|v| v.text),
        paired,
        manifest,
        schedule_given,
        gate_given,
        warn_given: r.text(&WARN.input).is_some(),
        false_alarms_given: r.text(&FALSE_ALARMS.input).is_some(),
        manifest_warnings: Vec::new(),
        format: Format::choose(r.text(&FORMAT), crate::runner::on_runner(env))?,
        files: RunnerFiles::from_env(&r),
        machine: super::machine::asked(&r)?,
    })
}

/// The gate label: `--gate` (a baseline's label, or with `--manifest` the
/// label the manifest will bring), else the first baseline's; and whether
/// `--gate` was given.
fn gate(
    r: &Reader<'_>,
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
    let gate_value = r.text(&GATE);
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
    current: &[PathBuf],
    baselines: &[BaselineFiles],
    gate: &Label,
    (rounds, max_rounds): (Option<usize>, Option<usize>),
) -> Result<Option<Schedule>, InputError> {
    if !r.on(&PAIRED)? {
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
    let rounds = rounds.map_or_else(|| r.typed_or_default(&ROUNDS), Ok)?;
    let default_max = r.typed_or_default(&MAX_ROUNDS)?;
    Schedule::asked(rounds, max_rounds, default_max)
        .map(Some)
        .map_err(|message| InputError {
            origin: MAX_ROUNDS.input.both(),
            message,
        })
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
fn baselines(r: &Reader<'_>, manifest: bool) -> Result<Vec<BaselineFiles>, InputError> {
    let mut out: Vec<BaselineFiles> = Vec::new();
    for value in r.list(&BASELINE) {
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
        assert_eq!(
            inputs.thresholds.fail,
            crate::config::FailThreshold::Fixed(0.15)
        );
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
        let args = |b: &str| CompareArgs::default().with("baseline", b);
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
