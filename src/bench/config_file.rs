//! `--config`, read at most once a run. Three steps of a run may need it
//! (the `--fail-threshold` check, the selection's groups, the paired
//! rounds' judging); reading the file again for each could give them two
//! different configs (a file replaced mid-run, or a pipe such as
//! `--config <(make-config)` that is empty the second time). It is read
//! when a step first needs it, not before: a bad config stops only a run
//! that uses it, with the error it always gave, where it always gave it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::BenchError;
use crate::config::Config;
use crate::config::columns::{self, Columns};

/// The path `--config` names and, once a step has read it, what it holds.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    path: Option<PathBuf>,
    read: OnceLock<Config>,
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
        if let Some(config) = self.read.get() {
            return Ok(Some(config));
        }
        let config = crate::config::load::load(path)?;
        Ok(Some(self.read.get_or_init(|| config)))
    }

    /// What rows are judged by: the config (the defaults without one) with
    /// `--keys`, `--metric`, `--ignore`, `--floor` applied over it.
    pub fn judging(&self, given: &Columns) -> Result<Config, BenchError> {
        let mut config = self.written()?.cloned().unwrap_or_default();
        columns::apply(&mut config, given).map_err(BenchError::Usage)?;
        Ok(config)
    }
}
