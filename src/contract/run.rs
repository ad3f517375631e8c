//! How a side's run ended, as `bench` records it beside the CSV it wrote
//! (`current.csv.run.json`, `baseline.csv.run.json`), read by `compare`:
//! a row absent from a baseline whose run failed or timed out was never
//! measured, so it is `absent`, not `new`, and the comparison's coverage
//! says so. A fork's run may have written the file: it is bounded, and a
//! file that cannot be read says nothing (the rows are judged as before).

use serde::{Deserialize, Serialize};

/// The record is a few hundred bytes; anything larger is not one.
pub const MAX_RUN_BYTES: u64 = 64 * 1024;
/// The record's schema.
pub const RUN_SCHEMA: u32 = 1;

/// One side's run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub schema: u32,
    /// `ok`, `failed` or `timed-out` (bench's statuses of a side that ran).
    pub status: String,
    /// The command's exit status (none after a timeout).
    pub exit_code: Option<i32>,
    /// Data rows the CSV held when the run ended.
    pub rows: u64,
}

impl RunRecord {
    /// Where the record of the results file `csv` is.
    pub fn path_for(csv: &std::path::Path) -> std::path::PathBuf {
        let mut name = csv.as_os_str().to_owned();
        name.push(".run.json");
        std::path::PathBuf::from(name)
    }

    /// The record beside `csv`, when there is a readable one.
    pub fn beside(csv: &std::path::Path) -> Option<RunRecord> {
        let path = Self::path_for(csv);
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_RUN_BYTES {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str::<RunRecord>(&text)
            .ok()
            .filter(|r| r.schema == RUN_SCHEMA)
    }

    /// Why the run stopped short (`failed with exit status 1`, `timed
    /// out`), or `None` when it ended well.
    pub fn stopped(&self) -> Option<String> {
        match (self.status.as_str(), self.exit_code) {
            ("failed", Some(code)) => Some(format!("its run failed with exit status {code}")),
            ("failed", None) => Some("its run failed".to_owned()),
            ("timed-out", _) => Some("its run timed out".to_owned()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_says_whether_the_run_stopped() {
        let rec = |status: &str, exit_code| RunRecord {
            schema: RUN_SCHEMA,
            status: status.to_owned(),
            exit_code,
            rows: 3,
        };
        assert_eq!(rec("ok", Some(0)).stopped(), None);
        assert_eq!(
            rec("failed", Some(1)).stopped().as_deref(),
            Some("its run failed with exit status 1")
        );
        assert_eq!(
            rec("timed-out", None).stopped().as_deref(),
            Some("its run timed out")
        );
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("baseline.csv");
        assert_eq!(RunRecord::beside(&csv), None);
        std::fs::write(
            RunRecord::path_for(&csv),
            "{\"schema\":1,\"status\":\"failed\",\"exit_code\":1,\"rows\":3}",
        )
        .unwrap();
        assert_eq!(RunRecord::beside(&csv), Some(rec("failed", Some(1))));
        std::fs::write(RunRecord::path_for(&csv), "not json").unwrap();
        assert_eq!(RunRecord::beside(&csv), None);
    }
}
