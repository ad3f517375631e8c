//! How many rows a results file holds: a side's own file once its
//! command ended, a reused result, and `--baseline-result` before it is
//! trusted to stand for the baseline (a file with no rows does not).

use std::io::Read as _;
use std::path::Path;

use super::files;
use super::inputs::Inputs;
use crate::table::formats::Format;

/// Data rows of a results CSV (lines after the header that hold anything),
/// counted as the file streams: constant memory at any size; a harness's
/// file (JSON, XML, go test's text) is read and its rows counted, as
/// compare will see them. `None` when no regular file is there
/// ([`files::open_regular`]: a FIFO is never waited on). `named` is
/// `--results-format`: the file read as that format, not as its content
/// suggests, as compare will read it.
pub fn rows(path: &Path, named: Option<Format>) -> Option<u64> {
    counted(path, files::open_regular(path).ok()??, named)
}

fn counted(path: &Path, mut file: std::fs::File, named: Option<Format>) -> Option<u64> {
    match crate::table::formats::rows_of(path, &mut file, named) {
        Some(rows) => Some(rows),
        None => count(file),
    }
}

/// [`rows`] of a results file someone else put there (`--baseline-result`):
/// `Ok(None)` when there is none, an error saying what is there instead of
/// a regular file, or where it leads when that is outside the places bench
/// may read ([`files::inside`]).
pub fn downloaded(path: &Path, inputs: &Inputs) -> Result<Option<u64>, String> {
    // The file itself is looked at as itself (a link there is refused by
    // open_regular); the directories on its way are followed here.
    if let Some(dir) = path
        .parent()
        .filter(|_| std::fs::symlink_metadata(path).is_ok())
    {
        files::inside(dir, inputs)
            .map_err(|e| format!("outside the places bench may read ({e})"))?;
    }
    Ok(files::open_regular(path)?.and_then(|f| counted(path, f, inputs.results_format)))
}

fn count(mut file: std::fs::File) -> Option<u64> {
    let mut buf = vec![0u8; 1 << 16];
    let (mut lines, mut filled, mut header) = (0u64, false, true);
    loop {
        let n = file.read(&mut buf).ok()?;
        let Some(chunk) = buf.get(..n).filter(|c| !c.is_empty()) else {
            break;
        };
        for &b in chunk {
            if b == b'\n' {
                if filled && !header {
                    lines = lines.saturating_add(1);
                }
                header = false;
                filled = false;
            } else if !b.is_ascii_whitespace() {
                filled = true;
            }
        }
    }
    Some(if filled && !header {
        lines.saturating_add(1)
    } else {
        lines
    })
}
