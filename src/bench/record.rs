//! The record of how a side's run ended, written beside its CSV
//! (`contract::run`): compare reads it to tell a row the baseline never
//! reached (its run stopped) from a new benchmark.

use std::path::Path;

use crate::contract::run::{RUN_SCHEMA, RunRecord};

/// Removes an earlier run's record (a self-hosted runner keeps its
/// workspace): a record must never speak for another run's CSV.
pub fn clear(csv: &Path) {
    let _ = std::fs::remove_file(RunRecord::path_for(csv));
}

/// Writes the record of a side that ran (`ok`, `failed`, `timed-out`)
/// beside its CSV; the error is for a warning on that side.
pub fn write(csv: &Path, status: &str, exit_code: Option<i32>, rows: u64) -> Result<(), String> {
    let record = RunRecord {
        schema: RUN_SCHEMA,
        status: status.to_owned(),
        exit_code,
        rows,
    };
    let path = RunRecord::path_for(csv);
    let text = serde_json::to_string(&record).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| {
        format!(
            "cannot write {}: {e}; compare will count the rows missing from it as new",
            crate::runner::shown(&path.to_string_lossy())
        )
    })
}
