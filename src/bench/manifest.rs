//! What the rounds leave behind: the manifest `compare --paired` reads
//! (the contract in [`crate::contract::rounds`]), and how the rounds show
//! in the step outputs, the JSON, the text and the job summary. Paths and
//! group names may come from a fork's run: each is shown as data.

use std::path::{Path, PathBuf};

use super::inputs::Inputs;
use super::plan::Side;
use super::rounds::{Rounds, Stop};
use super::{BenchError, Outcome};
use crate::config::Direction;
use crate::contract::resolution::Provenance;
use crate::contract::rounds::{
    Judged, MAX_MANIFEST_BYTES, Manifest, Once, Other, ROUNDS_SCHEMA, Round,
};
use crate::contract::selection::Chosen;
use crate::runner::markdown::escape as md;
use crate::runner::shown;

/// The manifest's name in the out dir.
pub const FILE: &str = "rounds.json";

/// The rounds as they ran.
#[derive(Debug, Clone)]
pub struct Done {
    pub rounds: Rounds,
    /// The groups counted in "rounds each group got": the selection's, or
    /// the config's `[select]` groups; empty: the whole suite.
    pub names: Vec<String>,
    /// The baseline's label (compare's gate label).
    pub label: String,
}

impl Done {
    fn files(&self, side: Side) -> Vec<String> {
        self.rounds
            .pairs
            .iter()
            .map(|p| match side {
                Side::Current => &p.current.path,
                Side::Baseline => &p.baseline.path,
            })
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    /// Why the rounds stopped, in words.
    pub fn stopped(&self) -> String {
        match &self.rounds.stop {
            Stop::Decided => "every row decided".to_owned(),
            Stop::Cap { undecided } => {
                format!("{undecided} rows still undecided at --max-rounds")
            }
            Stop::Budget(side) => format!(
                "the {} side's --timeout-minutes spent; rows may be undecided",
                side.name()
            ),
            Stop::Unjudged(why) => format!("the rounds could not be judged ({})", shown(why)),
            Stop::Cancelled => "the step was cancelled; no more rounds were started".to_owned(),
        }
    }

    fn stop_word(&self) -> &'static str {
        match self.rounds.stop {
            Stop::Decided => "decided",
            Stop::Cap { .. } => "cap",
            Stop::Budget(_) => "time-budget",
            Stop::Unjudged(_) => "unjudged",
            Stop::Cancelled => "cancelled",
        }
    }
}

/// Where the manifest goes in the out dir.
pub fn path(out_dir: &Path) -> PathBuf {
    out_dir.join(FILE)
}

/// How bench judged its rounds, as compare's inputs say it: what bench
/// was given, so that compare, given the manifest alone, judges the same
/// files by the same settings through the same pure decision. The config
/// goes in as bench read it (its text), its path only naming it: read
/// again, a pipe is empty or compare's own stdin, and a file may have
/// been edited since.
fn judged(inputs: &Inputs) -> Judged {
    let columns = &inputs.columns;
    let asked = &inputs.rounds;
    let text = inputs.config.text();
    Judged {
        config: inputs.config.path().map(Path::to_owned),
        config_text: text.ok().flatten().map(str::to_owned),
        config_error: text.err().map(crate::contract::rounds::config_error_line),
        keys: columns.keys.as_ref().map(|v| v.text.clone()),
        metric: columns.metric.as_ref().map(|m| {
            let way = match m.direction {
                Direction::Higher => "higher",
                Direction::Lower => "lower",
            };
            format!("{}:{way}", m.column)
        }),
        ignore: columns.ignore.iter().map(|v| v.text.clone()).collect(),
        floor: columns.floor,
        results_format: inputs.results_format.map(|f| f.name().to_owned()),
        fail: asked.fail_given.then_some(asked.fail),
        warn: Some(asked.warn),
        false_alarms: Some(asked.false_alarms),
    }
}

/// Writes the manifest to `out_dir/rounds.json` (an earlier one is
/// replaced) after every run: the rounds (or each side's one file), the
/// release's file with `--with-tag`, resolve's and select's answers and
/// how the rounds were judged, so that `compare --manifest` needs nothing else.
pub fn write(
    inputs: &Inputs,
    outcome: &Outcome,
    resolution: Option<&Provenance>,
    selection: Option<&Chosen>,
) -> Result<PathBuf, BenchError> {
    let done = outcome.rounds.as_ref();
    let rounds = done.map_or_else(Vec::new, |d| {
        d.rounds
            .pairs
            .iter()
            .map(|p| Round {
                round: p.round,
                current: p.current.path.clone(),
                baseline: p.baseline.path.clone(),
                groups: p.groups.clone(),
            })
            .collect()
    });
    let once = done.is_none().then(|| Once {
        current: outcome.current.path.clone(),
        baseline: outcome.baseline.path.clone(),
    });
    let others = outcome
        .tag
        .iter()
        .map(|tag| Other {
            label: tag.label.clone(),
            files: vec![tag.path.clone().unwrap_or_else(|| tag.out.clone())],
        })
        .collect();
    let manifest = Manifest {
        schema: ROUNDS_SCHEMA,
        label: done.map_or_else(|| outcome.baseline.label.clone(), |d| d.label.clone()),
        seed: done.map_or(0, |d| d.rounds.seed),
        first_look: inputs.rounds.rounds,
        max_rounds: inputs.rounds.max_rounds,
        rounds,
        once,
        others,
        resolution: resolution.cloned(),
        // Compare reads a selection's groups through the config's
        // `[select]` rows, so it goes with the config bench checked it by.
        selection: selection
            .filter(|_| inputs.config.path().is_some())
            .cloned(),
        judged: Some(judged(inputs)),
    };
    let path = path(&inputs.out_dir);
    let json = fits(&path, manifest.to_json())?;
    std::fs::create_dir_all(&inputs.out_dir)
        .and_then(|()| std::fs::write(&path, json))
        .map_err(|e| BenchError::Place(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// The manifest's JSON, refused when compare would refuse to read it (over
/// [`MAX_MANIFEST_BYTES`]): bench says so instead of leaving a file that
/// only fails in the next job.
fn fits(path: &Path, json: String) -> Result<String, BenchError> {
    if json.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(BenchError::Place(format!(
            "the rounds manifest {} would be {} bytes, over the {MAX_MANIFEST_BYTES}-byte limit compare reads; fewer rounds (--max-rounds), groups or shorter paths (--out-dir) make it fit",
            path.display(),
            json.len()
        )));
    }
    Ok(json)
}

/// The step outputs the rounds add: each side's files (one a line, in
/// round order), the baseline's again as compare's `baseline` input takes
/// them (`main=FILE` lines), the manifest, how many rounds, the seed.
pub fn outputs(done: &Done, manifest: Option<&Path>) -> Vec<(String, String)> {
    vec![
        (
            "current-files".to_owned(),
            done.files(Side::Current).join("\n"),
        ),
        (
            "baseline-files".to_owned(),
            done.files(Side::Baseline).join("\n"),
        ),
        (
            "compare-baseline".to_owned(),
            done.files(Side::Baseline)
                .iter()
                .map(|f| format!("{}={f}", done.label))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        (
            "manifest".to_owned(),
            manifest
                .map(|m| m.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        ("rounds".to_owned(), done.rounds.pairs.len().to_string()),
        ("seed".to_owned(), done.rounds.seed.to_string()),
    ]
}

/// The same outputs without rounds (`--rounds 1`, or a side that did not
/// run): each side's one file when there is one, one round when both ran,
/// the manifest (each side's one file in it), no seed.
pub fn single(
    current: Option<&Path>,
    baseline: Option<&Path>,
    label: &str,
    manifest: Option<&Path>,
) -> Vec<(String, String)> {
    // Whole: compare is handed these (a self-hosted runner's workspace
    // path alone passes the 80 characters a message shows).
    let file = |p: Option<&Path>| {
        p.map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let pairs = usize::from(current.is_some() && baseline.is_some());
    let labelled = baseline.map_or_else(String::new, |_| format!("{label}={}", file(baseline)));
    vec![
        ("current-files".to_owned(), file(current)),
        ("baseline-files".to_owned(), file(baseline)),
        ("compare-baseline".to_owned(), labelled),
        ("manifest".to_owned(), file(manifest)),
        ("rounds".to_owned(), pairs.to_string()),
        ("seed".to_owned(), String::new()),
    ]
}

/// The rounds in bench's JSON.
pub fn json(done: &Done, manifest: Option<&Path>) -> serde_json::Value {
    let r = &done.rounds;
    let undecided = match r.stop {
        Stop::Cap { undecided } => Some(undecided),
        Stop::Decided => Some(0),
        _ => None,
    };
    serde_json::json!({
        "seed": r.seed,
        "rounds": r.asked.0,
        "max_rounds": r.asked.1,
        "ran": r.pairs.len(),
        "looks": r.looks,
        "stop": done.stop_word(),
        "stopped": done.stopped(),
        "undecided": undecided,
        "manifest": shown(&manifest.map(|m| m.to_string_lossy()).unwrap_or_default()),
        "current_files": done.files(Side::Current),
        "baseline_files": done.files(Side::Baseline),
        "by_group": done.rounds.by_group(&done.names).iter().map(|(g, n)| {
            serde_json::json!({"group": g.as_deref().map(shown), "rounds": n})
        }).collect::<Vec<_>>(),
        "order": r.pairs.iter().map(|p| p.first.name()).collect::<Vec<_>>(),
        "groups": r.pairs.iter().map(|p| p.groups.as_ref().map(|g| g.iter().map(|s| shown(s)).collect::<Vec<_>>())).collect::<Vec<_>>(),
    })
}

fn group_name(g: Option<&str>) -> String {
    g.map_or_else(|| "the whole suite".to_owned(), shown)
}

/// Lines for the text form.
pub fn text(done: &Done, manifest: Option<&Path>) -> Vec<String> {
    let r = &done.rounds;
    let mut lines = vec![format!(
        "rounds: {} ({} to {} asked), seed {} (--seed {} repeats the order): {}",
        r.pairs.len(),
        r.asked.0,
        r.asked.1,
        r.seed,
        r.seed,
        done.stopped()
    )];
    for (group, n) in r.by_group(&done.names) {
        lines.push(format!("  {}: {n} rounds", group_name(group.as_deref())));
    }
    lines.push(format!(
        "  manifest -> {}",
        shown(&manifest.map(|m| m.to_string_lossy()).unwrap_or_default())
    ));
    lines
}

/// The job summary's section.
pub fn summary(done: &Done) -> String {
    let r = &done.rounds;
    let mut s = format!(
        "\n### Paired rounds\n\n{} rounds ({} to {} asked), seed `{}`: {}.\n\n| group | rounds |\n|---|---|\n",
        r.pairs.len(),
        r.asked.0,
        r.asked.1,
        r.seed,
        md(&done.stopped())
    );
    for (group, n) in r.by_group(&done.names) {
        s.push_str(&format!(
            "| {} | {n} |\n",
            md(&group_name(group.as_deref()))
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest over the bound compare reads is refused, naming its
    /// size and the limit; one at the bound is written.
    #[test]
    fn a_manifest_compare_would_refuse_is_not_written() {
        let max = usize::try_from(MAX_MANIFEST_BYTES).unwrap();
        let at = Path::new("/w/rounds.json");
        assert!(fits(at, "x".repeat(max)).is_ok());
        let over = fits(at, "x".repeat(max + 1)).unwrap_err().to_string();
        assert!(over.contains("/w/rounds.json"), "{over}");
        assert!(over.contains(&format!("{} bytes", max + 1)), "{over}");
        assert!(over.contains("8388608-byte limit"), "{over}");
    }
}
