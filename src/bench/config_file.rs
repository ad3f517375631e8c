//! `--config`, read once a run, at its start. Three steps of a run may
//! need it (the `--fail-threshold` check, the selection's groups, the
//! paired rounds' judging) and the manifest keeps its text; reading the
//! path again for each could give them two different configs (a file
//! replaced mid-run, or a pipe such as `--config <(make-config)` that is
//! empty the second time), and a read after the harness ran could meet
//! whatever the harness left there. So its bytes are read (bounded) when
//! the run starts and never again; they are parsed when a step first
//! needs the rules, so a bad config stops only a run that uses it. The
//! manifest holds the text, or why there is none: compare judges by what
//! bench read, not by what the path reads later (compare's own stdin, an
//! empty pipe, a file edited since).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::BenchError;
use crate::config::columns::{self, Columns};
use crate::config::{Config, MAX_CONFIG_BYTES};
use crate::runner::read;

/// The path `--config` names and what it held when the run started. A
/// clone (the release tag's run) shares the one read and the one parse.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    path: Option<PathBuf>,
    read: Arc<Read>,
}

/// The config as read: its text or why it could not be read, and its
/// rules once a step has asked for them (or why it is not a config).
#[derive(Debug, Default)]
struct Read {
    text: Option<Result<String, String>>,
    parsed: OnceLock<Result<Config, String>>,
}

impl ConfigFile {
    /// Reads the path's bytes now, once (at most [`MAX_CONFIG_BYTES`]): a
    /// read that fails is kept as its error, for the step that needs it.
    pub fn new(path: Option<PathBuf>) -> ConfigFile {
        let text = path.as_deref().map(bytes);
        ConfigFile {
            path,
            read: Arc::new(Read {
                text,
                parsed: OnceLock::new(),
            }),
        }
    }

    /// The path as given (made absolute): what the manifest names.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The config as written (`None` without `--config`), parsed the first
    /// time it is asked for. A config that could not be read, or is not a
    /// config, stops the run that asks.
    pub fn written(&self) -> Result<Option<&Config>, BenchError> {
        match self.rules() {
            None => Ok(None),
            Some(Ok(config)) => Ok(Some(config)),
            Some(Err(why)) => Err(BenchError::ConfigRead(why.to_owned())),
        }
    }

    fn rules(&self) -> Option<Result<&Config, &str>> {
        let path = self.path.as_deref()?;
        let text = match self.read.text.as_ref()? {
            Ok(text) => text,
            Err(why) => return Some(Err(why)),
        };
        let parsed = self
            .read
            .parsed
            .get_or_init(|| crate::config::load::from_text(path, text).map_err(|e| e.to_string()));
        Some(parsed.as_ref().map_err(String::as_str))
    }

    /// The text of the config as read at the start of the run (`Ok(None)`
    /// without `--config`), or why the manifest holds none (it could not
    /// be read, or is not a config): what compare judges the rounds by,
    /// whatever the path reads later. It stops nothing here: the manifest
    /// says why, bench warns, and compare quotes it.
    pub fn text(&self) -> Result<Option<&str>, &str> {
        match self.rules() {
            None => Ok(None),
            Some(Err(why)) => Err(why),
            Some(Ok(_)) => Ok(self.read.text.as_ref().and_then(|t| t.as_deref().ok())),
        }
    }

    /// What rows are judged by: the config (the defaults without one) with
    /// `--keys`, `--metric`, `--ignore`, `--floor` applied over it.
    pub fn judging(&self, given: &Columns) -> Result<Config, BenchError> {
        let mut config = self.written()?.cloned().unwrap_or_default();
        columns::apply(&mut config, given).map_err(BenchError::Usage)?;
        Ok(config)
    }
}

/// The config's text, bounded, or why it is not there to judge by.
fn bytes(path: &Path) -> Result<String, String> {
    let text = read::bounded_text("the config", path, MAX_CONFIG_BYTES)
        .map_err(|e| crate::config::ConfigError::from(e).to_string())?;
    match empty_pipe(path, &text) {
        Some(why) => Err(why),
        None => Ok(text),
    }
}

/// Why an empty read is refused: a config that is not a regular file (a
/// pipe, `/dev/stdin`, `<(make-config)`) and gave no bytes is a writer
/// that failed or never wrote, not a config of defaults. An empty regular
/// file is a config that says nothing, and is one.
fn empty_pipe(path: &Path, text: &str) -> Option<String> {
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    (text.is_empty() && !regular).then(|| {
        format!(
            "the config {} gave no bytes: it is not a regular file (a pipe whose writer failed or wrote nothing?); give a config file, or none",
            crate::runner::shown(&path.to_string_lossy())
        )
    })
}
