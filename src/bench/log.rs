//! The harness's output as it printed it, one file per side
//! (`current.log`, `baseline.log`, `tag.log` in the out dir): what bench
//! relays to the job log carries `[current] ` before every line (so no line
//! is read as a workflow command), and a dashboard that parses the
//! harness's own table from the log finds nothing there. The file is the
//! raw output, stdout and stderr as they came, bounded.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A side's log is cut here: a harness that prints without end must not
/// fill the runner's disk.
pub const MAX_LOG: u64 = 256 * 1024 * 1024;

/// Where a side's log goes: its CSV's name with `.log`.
pub fn path_for(csv: &Path) -> PathBuf {
    csv.with_extension("log")
}

struct Inner {
    file: BufWriter<File>,
    written: u64,
    cut: bool,
}

/// One side's raw log, shared by the threads that read its stdout and
/// stderr (each line written whole).
#[derive(Clone)]
pub struct RawLog(Arc<Mutex<Inner>>);

impl RawLog {
    /// Creates (or empties: an earlier run's log must not pass for this
    /// one's) the log at `path`.
    pub fn create(path: &Path) -> std::io::Result<RawLog> {
        Ok(RawLog(Arc::new(Mutex::new(Inner {
            file: BufWriter::new(File::create(path)?),
            written: 0,
            cut: false,
        }))))
    }

    /// One line as the harness printed it; past [`MAX_LOG`], one line
    /// that says the rest was left out.
    pub fn line(&self, bytes: &[u8]) {
        let Ok(mut inner) = self.0.lock() else {
            return;
        };
        if inner.cut {
            return;
        }
        let size = u64::try_from(bytes.len())
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        if inner.written.saturating_add(size) > MAX_LOG {
            inner.cut = true;
            let _ = writeln!(inner.file, "[bench: the log is cut at {MAX_LOG} bytes]");
            return;
        }
        inner.written = inner.written.saturating_add(size);
        let _ = inner.file.write_all(bytes);
        let _ = inner.file.write_all(b"\n");
    }

    /// Writes what is buffered.
    pub fn flush(&self) {
        if let Ok(mut inner) = self.0.lock() {
            let _ = inner.file.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_written_as_printed_and_the_path_follows_the_csv() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_for(&dir.path().join("current.csv"));
        assert_eq!(path, dir.path().join("current.log"));
        let log = RawLog::create(&path).unwrap();
        log.clone().line(b"op  shape");
        log.line(b"::error::x");
        log.flush();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "op  shape\n::error::x\n"
        );
    }
}
