//! `--manifest`: what bench measured (the contract in
//! [`crate::contract::rounds`]) as compare's inputs: the change's files
//! and the baseline's (paired in round order, or each side's one run), the
//! baseline's label as the gate, the look schedule bench followed, the
//! other baselines it measured (the release with `--with-tag`), resolve's
//! and select's answers, and the config (bench's copy, never its path read
//! again), columns and thresholds bench judged its rounds by. The
//! decision between looks and compare's verdict are one pure function, so
//! the same files with the same settings give the verdict bench decided
//! on. Each value is checked by the one parser its input has
//! ([`crate::config::judging`], [`crate::paired::schedule`]): the harness
//! could have rewritten the file. An input given to compare wins over the
//! manifest's.

use std::path::{Path, PathBuf};

use super::CompareError;
use super::args::MAX_ROUNDS;
use super::inputs::{BaselineFiles, ConfigFrom, Inputs};
use crate::config::FailThreshold;
use crate::config::columns::floor_value;
use crate::config::judging::{FALSE_ALARMS, THRESHOLD};
use crate::contract::rounds::{Judged, Manifest, ManifestError};
use crate::paired::Schedule;
use crate::paired::schedule::counted;
use crate::runner::{InputError, Value, shown};
use crate::validate::Label;

/// The inputs with the manifest's in them (unchanged without
/// `--manifest`).
pub fn with_manifest(mut inputs: Inputs) -> Result<Inputs, CompareError> {
    let Some(path) = inputs.manifest.clone() else {
        return Ok(inputs);
    };
    let manifest = Manifest::load(&path)?;
    let origin = shown(&path.to_string_lossy());
    let invalid = |message: String| {
        CompareError::Manifest(ManifestError::Invalid {
            origin: origin.clone(),
            message,
        })
    };
    let label = Label::parse(&manifest.label).map_err(|e| invalid(format!("its label: {e}")))?;
    if inputs.gate_given && inputs.gate != label {
        return Err(invalid(format!(
            "its rounds pair with {label}, and --gate names {}: the paired baseline is the gate",
            inputs.gate
        )));
    }
    let given = inputs.baselines.iter().any(|b| b.label == label);
    match &manifest.once {
        _ if !manifest.rounds.is_empty() => {
            if given {
                return Err(invalid(format!(
                    "it holds the rounds of {label}, and --baseline names {label} too: give that label's files once"
                )));
            }
            let (current, baseline) = manifest.files();
            inputs.current = current;
            inputs.baselines.insert(0, files(&label, baseline));
            let benched = benched(&manifest).map_err(invalid)?;
            inputs.paired = Some(schedule(benched, inputs.schedule_given)?);
        }
        Some(once) => {
            let Some(current) = &once.current else {
                return Err(invalid(
                    "it names no results file of the change (the change's side wrote none)"
                        .to_owned(),
                ));
            };
            inputs.current = vec![current.clone()];
            // A side run once; no file: that baseline is unavailable (a
            // warning, never a pass). --baseline for the label wins.
            if !given {
                let baseline = once.baseline.iter().cloned().collect();
                inputs.baselines.insert(0, files(&label, baseline));
            }
        }
        None => return Err(invalid("it lists no round".to_owned())),
    }
    inputs.gate = label;
    for other in &manifest.others {
        let label = Label::parse(&other.label)
            .map_err(|e| invalid(format!("the other baseline's label: {e}")))?;
        if !inputs.baselines.iter().any(|b| b.label == label) {
            inputs.baselines.push(files(&label, other.files.clone()));
        }
    }
    if inputs.resolution.is_none() {
        inputs.resolution = manifest
            .resolution
            .as_ref()
            .and_then(|r| serde_json::to_string(r).ok());
    }
    if inputs.selection.is_none() {
        inputs.selection = manifest
            .selection
            .as_ref()
            .and_then(|s| serde_json::to_string(s).ok());
    }
    if let Some(judged) = manifest.judged {
        benched_config(&mut inputs, &judged, &origin)?;
        settings(&mut inputs, judged, &origin).map_err(invalid)?;
    }
    Ok(inputs)
}

/// Bench's looks (`first_look`, `max_rounds`, each checked as `--rounds`
/// and `--max-rounds` would be, the cap at least the first look): a fault
/// here is the manifest's.
fn benched(manifest: &Manifest) -> Result<(usize, usize), String> {
    let first = counted(manifest.first_look).map_err(|e| format!("its first_look: {e}"))?;
    let most = counted(manifest.max_rounds).map_err(|e| format!("its max_rounds: {e}"))?;
    Schedule::asked(first, Some(most), most)
        .map_err(|e| format!("its look schedule (bench's {e})"))?;
    Ok((first, most))
}

/// The looks compare follows: bench's, with compare's `--rounds` and
/// `--max-rounds` given winning. A given cap below the first look is the
/// user's input at fault, not the manifest: a usage error on
/// `--max-rounds` (exit 2), in the words it has without a manifest.
fn schedule(
    (first, most): (usize, usize),
    (rounds, max_rounds): (Option<usize>, Option<usize>),
) -> Result<Schedule, CompareError> {
    Schedule::asked(rounds.unwrap_or(first), max_rounds, most).map_err(|message| {
        CompareError::Usage(InputError {
            origin: MAX_ROUNDS.input.both(),
            message,
        })
    })
}

fn files(label: &Label, files: Vec<std::path::PathBuf>) -> BaselineFiles {
    BaselineFiles {
        label: label.clone(),
        files,
    }
}

/// The config bench judged by, where compare was given no `--config`:
/// bench's copy of it in the manifest, checked as a config file is (its
/// path only names it). Never the path read again: a pipe (`--config
/// /dev/stdin`, `<(make-config)`) was bench's to read once, and a file
/// may have changed since. A manifest an older bench wrote holds no copy:
/// its path is read when it is a regular file, with a warning, and
/// refused otherwise.
fn benched_config(inputs: &mut Inputs, judged: &Judged, origin: &str) -> Result<(), CompareError> {
    if inputs.config.is_some() {
        return Ok(());
    }
    let named = judged.config.as_ref().map(|p| shown(&p.to_string_lossy()));
    match (&judged.config_text, &judged.config) {
        (Some(text), _) => {
            let config = crate::config::load::parse(text).map_err(|problem| {
                CompareError::Manifest(ManifestError::Invalid {
                    origin: origin.to_owned(),
                    message: format!(
                        "its copy of the config bench read{}: {problem}",
                        named.map(|n| format!(" from {n}")).unwrap_or_default()
                    ),
                })
            })?;
            inputs.config = Some(ConfigFrom::Benched(Box::new(config)));
        }
        (None, Some(_)) if judged.config_error.is_some() => {
            let why = crate::contract::rounds::config_error_line(
                judged.config_error.as_deref().unwrap_or_default(),
            );
            return Err(CompareError::Manifest(ManifestError::ConfigUnread {
                origin: origin.to_owned(),
                config: named.unwrap_or_default(),
                why,
            }));
        }
        (None, Some(path)) => {
            let config = named.unwrap_or_default();
            let real = not_a_file(path).map_err(|what| {
                CompareError::Manifest(ManifestError::ConfigGone {
                    origin: origin.to_owned(),
                    config: config.clone(),
                    what,
                })
            })?;
            let read = crate::config::load::load(&real).map_err(|e| {
                CompareError::Manifest(ManifestError::Invalid {
                    origin: origin.to_owned(),
                    message: format!("the config it names, {config}: {e}"),
                })
            })?;
            inputs.manifest_warnings.push(format!(
                "the manifest {origin} holds no copy of the config bench judged by (an older bench wrote it, or bench could not read that config): judged by {config} as it reads now, which may not be what bench read"
            ));
            inputs.config = Some(ConfigFrom::Benched(Box::new(read)));
        }
        (None, None) => {}
    }
    Ok(())
}

/// The regular file the config path an older manifest names resolves to
/// (links followed, `..` undone), or what it is instead: a pipe, a device,
/// a directory, a path that cannot be read, or a name under `/dev` or
/// `/proc` as written or once resolved (`/dev/stdin`, bash's `/dev/fd/63`,
/// `/tmp/../dev/stdin`), which names whatever compare's own process has
/// there even when that is a file.
fn not_a_file(path: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::FileTypeExt;
    let special = |p: &Path| p.starts_with("/dev") || p.starts_with("/proc");
    if special(path) {
        return Err("under /dev or /proc (a pipe or a device)".to_owned());
    }
    let real =
        std::fs::canonicalize(path).map_err(|e| format!("a path that cannot be read ({e})"))?;
    if special(&real) {
        return Err("under /dev or /proc once resolved (a pipe or a device)".to_owned());
    }
    let kind = std::fs::metadata(&real)
        .map_err(|e| format!("a path that cannot be read ({e})"))?
        .file_type();
    let what = match () {
        _ if kind.is_file() => return Ok(real),
        _ if kind.is_fifo() || kind.is_socket() => "a pipe",
        _ if kind.is_dir() => "a directory",
        _ => "a device",
    };
    Err(format!("{what}, not a regular file"))
}

/// How bench judged, where compare was not told otherwise: the columns,
/// the results format, the thresholds. Each value is checked as the input
/// would be (the harness could have rewritten the file).
fn settings(inputs: &mut Inputs, judged: Judged, origin: &str) -> Result<(), String> {
    let from = format!("the manifest {origin}");
    let value = |text: String| Value {
        text,
        origin: from.clone(),
    };
    let columns = &mut inputs.columns;
    if columns.keys.is_none() {
        columns.keys = judged.keys.map(value);
    }
    if columns.metric.is_none()
        && let Some(text) = judged.metric
    {
        columns.metric =
            Some((super::args::METRIC.parse)(&text).map_err(|e| format!("its metric: {e}"))?);
    }
    if columns.ignore.is_empty() {
        columns.ignore = judged.ignore.into_iter().map(value).collect();
    }
    if columns.floor.is_none()
        && let Some(floor) = judged.floor
    {
        columns.floor = Some(floor_value(floor).map_err(|e| format!("its floor: {e}"))?);
    }
    if inputs.results_format.is_none()
        && let Some(name) = judged.results_format
    {
        let parse = super::args::RESULTS_FORMAT.parse;
        inputs.results_format = Some(parse(&name).map_err(|e| format!("its results format: {e}"))?);
    }
    let t = &mut inputs.thresholds;
    if !t.fail_given
        && let Some(fail) = judged.fail
    {
        let fail = THRESHOLD
            .fraction(fail)
            .map_err(|e| format!("its fail threshold: {e}"))?;
        t.fail = FailThreshold::Fixed(fail);
        t.fail_given = true;
        inputs.fail_origin = from.clone();
    }
    if !inputs.warn_given
        && let Some(warn) = judged.warn
    {
        t.warn = THRESHOLD
            .fraction(warn)
            .map_err(|e| format!("its warn threshold: {e}"))?;
    }
    if !inputs.false_alarms_given
        && let Some(rate) = judged.false_alarms
    {
        t.false_alarms = FALSE_ALARMS
            .fraction(rate)
            .map_err(|e| format!("its false-alarm rate: {e}"))?;
    }
    Ok(())
}
