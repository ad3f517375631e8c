//! `--config`, read at most once a run. Three steps of a run may need it
//! (the `--fail-threshold` check, the selection's groups, the paired
//! rounds' judging); reading the file again for each could give them two
//! different configs (a file replaced mid-run, or a pipe such as
//! `--config <(make-config)` that is empty the second time). It is read
//! when a step first needs it, not before: a bad config stops only a run
//! that uses it, with the error it always gave, where it always gave it.
//! Its text is kept for the manifest: compare judges by what bench read,
//! not by what the path reads later (compare's own stdin, an empty pipe,
//! a file edited since).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::BenchError;
use crate::config::columns::{self, Columns};
use crate::config::{Config, MAX_CONFIG_BYTES};
use crate::runner::read;

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

/// The path `--config` names and, once a step has read it, what it holds.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    path: Option<PathBuf>,
    read: OnceLock<Read>,
}

/// The config as read: its text (what the manifest holds) and its rules.
#[derive(Debug, Clone)]
struct Read {
    text: String,
    config: Config,
}

impl ConfigFile {
    pub fn new(path: Option<PathBuf>) -> ConfigFile {
        ConfigFile {
            path,
            read: OnceLock::new(),
        }
    }

    /// The path as given (made absolute): what the manifest names.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The config as written (`None` without `--config`), read the first
    /// time it is asked for. A config that cannot be read is not kept: its
    /// error stops the run.
    pub fn written(&self) -> Result<Option<&Config>, BenchError> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        if let Some(read) = self.read.get() {
            return Ok(Some(&read.config));
        }
        let text = read::bounded_text("the config", path, MAX_CONFIG_BYTES)
            .map_err(crate::config::ConfigError::from)?;
        if let Some(why) = empty_pipe(path, &text) {
            return Err(BenchError::Place(why));
        }
        let config = crate::config::load::from_text(path, &text)?;
        Ok(Some(
            &self.read.get_or_init(|| Read { text, config }).config,
        ))
    }

    /// The text of the config as it was read (`None` without `--config`,
    /// or when it cannot be read or is not a config), read now if no step
    /// needed it: what compare judges the rounds by, whatever the path
    /// reads later. A config that cannot be read stops nothing here: the
    /// manifest then holds no copy, and compare says so.
    pub fn text(&self) -> Option<&str> {
        match self.written() {
            Ok(Some(_)) => self.read.get().map(|r| r.text.as_str()),
            _ => None,
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
