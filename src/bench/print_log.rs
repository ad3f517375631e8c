//! `--print-log SIDE`: the harness's output, as it printed it, once more in
//! the job log after bench has run. A dashboard that parses the harness's
//! own table out of the job log (the seed's `parse_bench.py` looks for the
//! `op shape dtype TB/s TFLOPS` header) finds nothing in bench's live relay,
//! where every line carries `[current] ` in front; without this, every
//! workflow that had such a dashboard wrote a shell step to print the log
//! file again.
//!
//! Each line goes through the runner's log writer, like every line bench
//! prints: a plain line (a table row) is written byte for byte, and a line
//! a fork's harness made to look like a workflow command gets a `\` that
//! stops it being one. The printed part is bounded ([`PRINT_LIMIT`]): the
//! whole log is in the file `current-log` names.

use std::io::{BufRead as _, BufReader, Read as _};

use super::files;
use super::outcome::SideRun;
pub use super::plan::PrintLog;
use crate::runner::log::LogSink;
use crate::runner::shown;

/// The most of a side's log printed again. A job's log is read by people
/// and downloaded by dashboards; a harness that prints without end must
/// not double a log that large.
pub const PRINT_LIMIT: u64 = 8 * 1024 * 1024;

/// Prints the logs `which` asks for, each in a collapsed group titled by
/// its side; a side that did not run (no log) is left out silently, as its
/// empty `*-log` output already says.
pub fn print(which: PrintLog, runs: &[&SideRun], log: &mut impl LogSink) -> std::io::Result<()> {
    for run in runs.iter().filter(|r| which.wants(r.side)) {
        let Some(path) = &run.log else {
            continue;
        };
        let title = format!("The harness's output ({}), as it printed it", run.label);
        log.command("group", &[], &title)?;
        match files::open_regular(path) {
            Ok(Some(file)) => lines(file, log)?,
            Ok(None) => log.line(&format!("(no log at {})", shown(&path.to_string_lossy())))?,
            Err(what) => log.line(&format!(
                "(the log {} is {what}: not printed)",
                shown(&path.to_string_lossy())
            ))?,
        }
        log.command("endgroup", &[], "")?;
    }
    Ok(())
}

/// The file's lines, up to [`PRINT_LIMIT`] bytes, then one line that says
/// the rest is left out. Bytes that are not UTF-8 are shown as U+FFFD.
fn lines(file: std::fs::File, log: &mut impl LogSink) -> std::io::Result<()> {
    let mut reader = BufReader::new(file.take(PRINT_LIMIT));
    let mut line = Vec::new();
    let mut printed = 0u64;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        printed = printed.saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        if line.last() != Some(&b'\n') && printed >= PRINT_LIMIT {
            log.line(&format!(
                "[bench: only the first {PRINT_LIMIT} bytes of the log are printed; the file has it all]"
            ))?;
            break;
        }
        let text = String::from_utf8_lossy(&line);
        log.line(text.trim_end_matches(['\n', '\r']))?;
    }
    Ok(())
}
