//! `bench --rounds`' manifest, read by `compare --paired`: which results
//! file of the change pairs with which file of the baseline. A paired
//! verdict is only as good as its pairs: the i-th current file must be the
//! run made right beside the i-th baseline file (same runner, same round),
//! so bench says so in one file instead of compare guessing from names.
//!
//! ```json
//! {"schema": 1, "label": "main", "seed": 42, "first_look": 3, "max_rounds": 20,
//!  "rounds": [{"round": 1, "current": "/w/bench-results/current-1.csv",
//!              "baseline": "/w/bench-results/baseline-1.csv", "groups": null}],
//!  "judged": {"config": "/dev/fd/63",
//!             "config_text": "[[rules]]\nmatch = [\"op=*\"]\nfail-threshold = 50\n"}}
//! ```
//!
//! `groups` is what the round ran: `null` is the whole suite (or the whole
//! selection), a list is the groups re-run because their rows were still
//! undecided; a row a round did not run is simply absent from its files.
//!
//! Bench writes it after every run, rounds or not, with what compare needs
//! to judge those files as bench judged them between looks: the config
//! (`judged.config`, the path `--config` named, and `judged.config_text`,
//! its text as bench read it, or `judged.config_error`, why bench holds
//! none: compare judges by that text, never by the
//! path read again, which for `--config /dev/stdin` or `<(make-config)` is
//! an empty pipe or compare's own stdin), the columns and thresholds
//! (`judged`), resolve's and select's answers (`resolution`, `selection`),
//! the files of a side that ran once (`once`: no rounds) and the other
//! baselines bench measured (`others`: the release tag). Each is optional,
//! so a manifest an older bench wrote still reads: it judges with
//! compare's own inputs (one naming a config but holding no copy of it is
//! read from the path only when that is a regular file, with a warning;
//! otherwise compare refuses it and asks for `--config`). The manifest
//! crosses a job boundary (an artifact), where the harness could rewrite
//! it: a reader bounds its size, its rounds, its labels and patterns, its
//! copy of the config, and shows its strings as data.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::config::MAX_CONFIG_BYTES;
use crate::runner::read::{self, FileError};
use crate::runner::shown;

/// The manifest's schema number: a change of a field's meaning is a new one.
pub const ROUNDS_SCHEMA: u32 = 1;
/// A manifest names a few hundred paths and holds a config of at most
/// [`MAX_CONFIG_BYTES`] (twice that as a JSON string at worst: a config's
/// TOML has no control character but tab and newline, and only `"`, `\`
/// and those grow, to two bytes); anything larger is not one.
pub const MAX_MANIFEST_BYTES: u64 = 8 * 1024 * 1024;
/// The most bytes of bench's reason for holding no copy of the config
/// (`judged.config_error`): bench writes at most 500 characters of it.
pub const MAX_CONFIG_ERROR_BYTES: usize = 4096;

/// Why bench holds no copy of the config, as the manifest keeps it and
/// compare shows it: one line (a control character is a space), at most
/// 500 characters. Compare applies it again: the harness could have
/// rewritten the manifest.
pub fn config_error_line(why: &str) -> String {
    let line: String = why
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    crate::runner::text::cut(&line, 500)
}
/// The most rounds a manifest may hold (bench's `--max-rounds` is at most
/// this): each round is two files compare reads.
pub const MAX_ROUNDS: usize = 1000;
/// The most other baselines a manifest names (bench measures one: the
/// release tag), and the most files each.
pub const MAX_OTHERS: usize = 8;
pub const MAX_OTHER_FILES: usize = 16;

#[derive(Debug, Error)]
pub enum ManifestError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("the rounds manifest {origin} is not bench's: {message}")]
    Invalid { origin: String, message: String },
    /// An older bench's manifest (no copy of its config) naming a config
    /// that a second read may not give as bench read it.
    #[error(
        "the rounds manifest {origin} holds no copy of the config bench judged by (an older bench wrote it, or bench could not read that config), and the config it names, {config}, is {what}: read again it may not give what bench read; pass --config with the config bench was given"
    )]
    ConfigGone {
        origin: String,
        config: String,
        what: String,
    },
    /// Bench could not read the config, and said why in the manifest.
    #[error(
        "the rounds manifest {origin} holds no copy of the config bench was given, {config}: bench could not read it ({why}); pass --config with the config bench was meant to judge by"
    )]
    ConfigUnread {
        origin: String,
        config: String,
        why: String,
    },
}

/// One round: the two files measured beside each other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// From 1, in the order the rounds ran.
    pub round: usize,
    /// The change's results of this round.
    pub current: PathBuf,
    /// The baseline's results of this round.
    pub baseline: PathBuf,
    /// The groups it ran; `None`: the whole suite (or selection).
    pub groups: Option<Vec<String>>,
}

/// How bench judged the rounds between looks, as compare's inputs say
/// it (`--keys`, `--metric`, `--ignore`, `--floor`, `--config`,
/// `--results-format`, the thresholds as fractions): compare judges the
/// same files with them and gives the verdict bench decided on. Each is
/// what bench was given; `None` (or empty) where it took its default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Judged {
    /// The path `--config` named: what messages call the config.
    pub config: Option<PathBuf>,
    /// The config's text as bench read it (at most [`MAX_CONFIG_BYTES`]):
    /// what compare judges by, never the path read again (a pipe such as
    /// `--config /dev/stdin` or `<(make-config)` reads once; a file may be
    /// edited between the steps). `None`: an older bench wrote the
    /// manifest, or bench could not read a config it never needed (then
    /// `config_error` says why).
    pub config_text: Option<String>,
    /// Why bench holds no copy of the config `config` names (it could not
    /// be read, or is not a config), in bench's words, at most
    /// [`MAX_CONFIG_ERROR_BYTES`]: compare's refusal quotes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_error: Option<String>,
    pub keys: Option<String>,
    /// `COLUMN:higher` or `COLUMN:lower`.
    pub metric: Option<String>,
    pub ignore: Vec<String>,
    pub floor: Option<f64>,
    pub results_format: Option<String>,
    /// Only when bench was given it: a config rule's threshold yields to a
    /// given one, and to no default.
    pub fail: Option<f64>,
    pub warn: Option<f64>,
    pub false_alarms: Option<f64>,
}

/// The files of a run without rounds: each side ran once (or not at all:
/// then its file is absent, and compare says that side is unavailable).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Once {
    pub current: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
}

/// Another baseline bench measured beside the paired one (`--with-tag`:
/// the release), compared unpaired and reported beside, as `compare
/// --baseline LABEL=FILE` would; no file: it is unavailable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Other {
    pub label: String,
    #[serde(default)]
    pub files: Vec<PathBuf>,
}

/// What `bench` measured: its rounds in round order (or each side's one
/// run), and how compare is to judge them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema: u32,
    /// The baseline's label (`main`, or the tag): compare's gate label.
    pub label: String,
    /// The seed the order within each round was drawn from.
    pub seed: u64,
    /// The look schedule bench followed (`--rounds`, `--max-rounds`), so
    /// that compare decides at the same looks and gives the same verdict.
    pub first_look: usize,
    pub max_rounds: usize,
    pub rounds: Vec<Round>,
    /// Without rounds: each side's one file (`rounds` is then empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub once: Option<Once>,
    #[serde(default)]
    pub others: Vec<Other>,
    /// resolve's answer bench was given, embedded (compare's
    /// `--resolution`): a baseline it says is unavailable is never evidence.
    #[serde(default)]
    pub resolution: Option<crate::contract::resolution::Provenance>,
    /// select's answer bench ran (compare's `--selection`): a row only an
    /// unselected group makes is not-selected, never lost.
    #[serde(default)]
    pub selection: Option<crate::contract::selection::Chosen>,
    #[serde(default)]
    pub judged: Option<Judged>,
}

impl Manifest {
    /// Reads and checks a manifest: bench's schema, rounds numbered 1, 2,
    /// ... in order, at most [`MAX_ROUNDS`], every path non-empty.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let text = read::bounded_text("the rounds manifest", path, MAX_MANIFEST_BYTES)?;
        let origin = shown(&path.to_string_lossy());
        Manifest::parse(&text).map_err(|message| ManifestError::Invalid { origin, message })
    }

    /// The checks of [`Manifest::load`], on the text itself.
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let manifest: Manifest = serde_json::from_str(text).map_err(|e| shown(&e.to_string()))?;
        if manifest.schema != ROUNDS_SCHEMA {
            return Err(format!(
                "schema {} (this version reads {ROUNDS_SCHEMA})",
                manifest.schema
            ));
        }
        if manifest.others.len() > MAX_OTHERS
            || manifest
                .others
                .iter()
                .any(|o| o.files.len() > MAX_OTHER_FILES)
        {
            return Err(format!(
                "more than {MAX_OTHERS} other baselines, or one with more than {MAX_OTHER_FILES} files"
            ));
        }
        if let Some(judged) = &manifest.judged
            && judged.ignore.len() > crate::config::columns::MAX_IGNORE
        {
            return Err(format!(
                "{} ignore patterns, more than {}",
                judged.ignore.len(),
                crate::config::columns::MAX_IGNORE
            ));
        }
        if let Some(text) = manifest
            .judged
            .as_ref()
            .and_then(|j| j.config_text.as_ref())
            && text.len() as u64 > MAX_CONFIG_BYTES
        {
            return Err(format!(
                "its copy of the config is {} bytes, over the {MAX_CONFIG_BYTES}-byte limit of a config",
                text.len()
            ));
        }
        if let Some(why) = manifest
            .judged
            .as_ref()
            .and_then(|j| j.config_error.as_ref())
            && why.len() > MAX_CONFIG_ERROR_BYTES
        {
            return Err(format!(
                "its reason for holding no config is {} bytes, over the {MAX_CONFIG_ERROR_BYTES}-byte limit",
                why.len()
            ));
        }
        if manifest.rounds.len() > MAX_ROUNDS {
            return Err(format!(
                "{} rounds, more than {MAX_ROUNDS}",
                manifest.rounds.len()
            ));
        }
        for (i, round) in manifest.rounds.iter().enumerate() {
            if round.round != i.saturating_add(1) {
                return Err(format!(
                    "round {} is listed where round {} belongs: rounds are numbered 1, 2, ... in order",
                    round.round,
                    i.saturating_add(1)
                ));
            }
            if round.current.as_os_str().is_empty() || round.baseline.as_os_str().is_empty() {
                return Err(format!("round {} names no file", round.round));
            }
        }
        Ok(manifest)
    }

    /// The JSON bench writes.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The files of each side, in round order: the i-th current pairs with
    /// the i-th baseline.
    pub fn files(&self) -> (Vec<PathBuf>, Vec<PathBuf>) {
        self.rounds
            .iter()
            .map(|r| (r.current.clone(), r.baseline.clone()))
            .unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(rounds: &[usize]) -> Manifest {
        Manifest {
            schema: ROUNDS_SCHEMA,
            label: "main".into(),
            seed: 7,
            first_look: 3,
            max_rounds: 20,
            rounds: rounds
                .iter()
                .map(|&n| Round {
                    round: n,
                    current: format!("/r/current-{n}.csv").into(),
                    baseline: format!("/r/baseline-{n}.csv").into(),
                    groups: (n > 2).then(|| vec!["gemm".to_owned()]),
                })
                .collect(),
            once: None,
            others: Vec::new(),
            resolution: None,
            selection: None,
            judged: None,
        }
    }

    #[test]
    fn what_bench_writes_compare_reads_back_in_round_order() {
        let m = manifest(&[1, 2, 3]);
        let back = Manifest::parse(&m.to_json()).unwrap();
        assert_eq!(back, m);
        let (current, baseline) = back.files();
        assert_eq!(current[2], PathBuf::from("/r/current-3.csv"));
        assert_eq!(baseline[0], PathBuf::from("/r/baseline-1.csv"));
    }

    #[test]
    fn rounds_out_of_order_another_schema_or_a_missing_file_are_refused() {
        let skipped = manifest(&[1, 3]);
        assert!(
            Manifest::parse(&skipped.to_json())
                .unwrap_err()
                .contains("round 3 is listed where round 2 belongs")
        );
        let mut other = manifest(&[1]);
        other.schema = 2;
        assert!(
            Manifest::parse(&other.to_json())
                .unwrap_err()
                .contains("schema 2")
        );
        let mut empty = manifest(&[1]);
        empty.rounds[0].baseline = PathBuf::new();
        assert!(
            Manifest::parse(&empty.to_json())
                .unwrap_err()
                .contains("names no file")
        );
        assert!(Manifest::parse("{\"schema\":1}").is_err());
    }

    /// The example at the top of this file is a manifest compare reads,
    /// its config copy a config.
    #[test]
    fn the_documented_example_reads_and_holds_a_config() {
        let source = include_str!("rounds.rs");
        let block = source.split("```json\n").nth(1).unwrap();
        let example: Vec<&str> = block
            .lines()
            .take_while(|l| !l.starts_with("//! ```"))
            .map(|l| l.trim_start_matches("//!"))
            .collect();
        let m = Manifest::parse(&example.join("\n")).unwrap();
        let text = m.judged.and_then(|j| j.config_text).unwrap();
        let config = crate::config::load::parse(&text).unwrap();
        assert_eq!(config.rules.len(), 1);
    }

    /// The largest manifest bench writes still reads: a config of the
    /// most bytes a config may have, each one doubled as JSON (a comment
    /// of quotes), beside 160 rounds (bench's most) of long paths.
    #[test]
    fn the_largest_config_bench_can_hold_fits_the_manifests_bound() {
        let max = usize::try_from(MAX_CONFIG_BYTES).unwrap();
        let text = format!("#{}", "\"".repeat(max - 1));
        assert!(crate::config::load::parse(&text).is_ok());
        let mut m = manifest(&(1..=160).collect::<Vec<_>>());
        for r in &mut m.rounds {
            r.current = format!("/{}/current.csv", "w".repeat(4000)).into();
            r.baseline = format!("/{}/baseline.csv", "w".repeat(4000)).into();
        }
        m.judged = Some(Judged {
            config_text: Some(text.clone()),
            ..Judged::default()
        });
        let json = m.to_json();
        assert!(json.len() > 2 * max, "{}", json.len());
        assert!(json.len() as u64 <= MAX_MANIFEST_BYTES, "{}", json.len());
        let back = Manifest::parse(&json).unwrap();
        assert_eq!(back.judged.and_then(|j| j.config_text), Some(text));
        let mut over = manifest(&[1]);
        over.judged = Some(Judged {
            config_text: Some("#".repeat(max + 1)),
            ..Judged::default()
        });
        assert!(
            Manifest::parse(&over.to_json())
                .unwrap_err()
                .contains("over the 1048576-byte limit of a config")
        );
    }

    #[test]
    fn a_manifest_an_older_bench_wrote_still_reads_with_nothing_to_judge_by() {
        let old = r#"{"schema": 1, "label": "main", "seed": 7, "first_look": 3, "max_rounds": 20,
            "rounds": [{"round": 1, "current": "/r/c-1.csv", "baseline": "/r/b-1.csv", "groups": null}]}"#;
        let m = Manifest::parse(old).unwrap();
        assert_eq!((m.judged, m.resolution, m.once), (None, None, None));
        assert!(m.others.is_empty());
        let mut many = manifest(&[1]);
        many.others = (0..=MAX_OTHERS)
            .map(|i| Other {
                label: format!("v{i}"),
                files: Vec::new(),
            })
            .collect();
        assert!(
            Manifest::parse(&many.to_json())
                .unwrap_err()
                .contains("other baselines")
        );
    }
}
