//! `select`'s answer, read by `compare --selection`: which benchmark groups
//! ran. A row that only an unselected group produces is `not-selected`: not
//! compared, not lost, not failing, counted and listed. A selected group's
//! row that is missing is still `lost`; with `all`, nothing changes. The
//! rows each group produces come from compare's own config (`[select]`),
//! never from the selection file, so a selection a fork's run wrote can
//! only say which of the configured groups ran.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::config::Select;
use crate::runner::read::{self, FileError};
use crate::runner::shown;

/// A selection is a few kilobytes; anything this large is not one.
pub const MAX_SELECTION_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum SelectionError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("the selection {origin} is not select's JSON answer: {message}")]
    Invalid { origin: String, message: String },
    #[error(
        "--selection names groups ({groups}), but the config has no [select] table to say which rows they produce"
    )]
    NoGroups { groups: String },
}

/// What `select` chose, as its JSON says it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Chosen {
    /// `all`, `some` or `none`.
    pub selection: String,
    #[serde(default)]
    pub groups: Vec<String>,
}

impl Chosen {
    /// From a file, or from the JSON itself (select's `json` output).
    pub fn load(value: &str) -> Result<Chosen, SelectionError> {
        let (text, origin) = read::file_or_inline("the selection", value, MAX_SELECTION_BYTES)?;
        let chosen: Chosen = serde_json::from_str(&text).map_err(|e| SelectionError::Invalid {
            origin: origin.clone(),
            message: shown(&e.to_string()),
        })?;
        if !["all", "some", "none"].contains(&chosen.selection.as_str()) {
            return Err(SelectionError::Invalid {
                origin,
                message: format!(
                    "selection is {:?}, not all, some or none",
                    shown(&chosen.selection)
                ),
            });
        }
        Ok(chosen)
    }

    /// The configured groups that did not run (by position), and the names
    /// the selection gave that the config does not know (for a warning).
    pub fn unselected(
        &self,
        select: Option<&Select>,
    ) -> Result<(Vec<usize>, Vec<String>), SelectionError> {
        if self.selection == "all" {
            return Ok((Vec::new(), Vec::new()));
        }
        let Some(select) = select else {
            return Err(SelectionError::NoGroups {
                groups: shown(&self.groups.join(",")),
            });
        };
        let unknown = self
            .groups
            .iter()
            .filter(|g| !select.groups.iter().any(|c| &c.name == *g))
            .map(|g| shown(g))
            .collect();
        let unselected = select
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| !self.groups.contains(&g.name))
            .map(|(i, _)| i)
            .collect();
        Ok((unselected, unknown))
    }
}
