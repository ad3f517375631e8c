//! Reading a file a command was pointed at (an event payload, a results
//! file, a config) whole, bounded: whatever is at the path, a file that
//! grows while it is read or a FIFO that reports no size, at most `limit`
//! bytes are held. A failure is a [`FileError`] that names the file by what
//! it is (`event file`, `the config`), the one way every command says it.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use thiserror::Error;

#[derive(Debug, Error)]
pub enum FileError {
    #[error("cannot read {what} {path}: {source}", path = .path.display())]
    Read {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// Over the limit: the size the file reported, or the bytes read past it.
    #[error("{what} {path} is {size} bytes, over the {limit}-byte limit", path = .path.display())]
    TooLarge {
        what: &'static str,
        path: PathBuf,
        size: u64,
        limit: u64,
    },
}

/// How long a FIFO (or socket) may stay silent before its read fails: a
/// FIFO nobody writes to, or whose writer never ends, would otherwise hold
/// the step until the job's own timeout.
pub const SILENT_PIPE: Duration = Duration::from_secs(60);

/// Opens `path` for reading without waiting for a writer: opening a FIFO
/// blocks until someone opens its other end, which a stranger's harness
/// that leaves one behind never does. A regular file reads as usual; a
/// FIFO or socket reads through [`Patient`], which waits for its bytes at
/// most [`SILENT_PIPE`] at a time.
fn open(path: &Path) -> std::io::Result<(Box<dyn Read>, u64)> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    let kind = meta.file_type();
    if kind.is_fifo() || kind.is_socket() {
        return Ok((Box::new(Patient { file, quiet: None }), meta.len()));
    }
    Ok((Box::new(file), meta.len()))
}

/// A pipe opened without blocking, read as if it blocked: "no bytes yet"
/// is waited out in short sleeps, up to [`SILENT_PIPE`] since the last byte.
/// A pipe with no writer reads as empty (its end).
struct Patient {
    file: File,
    quiet: Option<Instant>,
}

impl Read for Patient {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.file.read(buf) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    let since = *self.quiet.get_or_insert_with(Instant::now);
                    if since.elapsed() > SILENT_PIPE {
                        return Err(std::io::Error::new(
                            ErrorKind::TimedOut,
                            format!("no byte arrived for {} s", SILENT_PIPE.as_secs()),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                other => {
                    self.quiet = None;
                    return other;
                }
            }
        }
    }
}

/// The file's bytes, refused before reading when its size is over `limit`,
/// and again when more than `limit` bytes arrive anyway. `what` names it in
/// the error (`event file`, `the config`).
pub fn bounded(what: &'static str, path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let io = |source| FileError::Read {
        what,
        path: path.to_owned(),
        source,
    };
    let too_large = |size| FileError::TooLarge {
        what,
        path: path.to_owned(),
        size,
        limit,
    };
    let (file, size) = open(path).map_err(io)?;
    if size > limit {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > limit {
        return Err(too_large(read));
    }
    Ok(bytes)
}

/// The file to read as a stream, refused when its size is over `limit`,
/// and cut with an error when more than `limit` bytes arrive anyway (a
/// file that grows, a FIFO): for a reader that keeps less than it reads.
pub fn bounded_reader(
    what: &'static str,
    path: &Path,
    limit: u64,
) -> Result<impl Read + use<>, FileError> {
    let io = |source| FileError::Read {
        what,
        path: path.to_owned(),
        source,
    };
    let (file, size) = open(path).map_err(io)?;
    if size > limit {
        return Err(FileError::TooLarge {
            what,
            path: path.to_owned(),
            size,
            limit,
        });
    }
    Ok(Capped {
        inner: file.take(limit.saturating_add(1)),
        left: limit,
    })
}

/// A reader that fails once more than its limit has been read.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let got = u64::try_from(n).unwrap_or(u64::MAX);
        self.left = self.left.checked_sub(got).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                "it grew past its size limit while it was read",
            )
        })?;
        Ok(n)
    }
}

/// The file as UTF-8 text, bounded like [`bounded`].
pub fn bounded_text(what: &'static str, path: &Path, limit: u64) -> Result<String, FileError> {
    String::from_utf8(bounded(what, path, limit)?).map_err(|_| FileError::Read {
        what,
        path: path.to_owned(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ),
    })
}

/// A value that is either JSON itself (it starts with `{`: an action's
/// `json` output passed straight through `with:`) or the path of a file
/// holding it, read bounded like [`bounded_text`]. Returns the text and
/// where it came from, for messages.
pub fn file_or_inline(
    what: &'static str,
    value: &str,
    limit: u64,
) -> Result<(String, String), FileError> {
    if value.trim_start().starts_with('{') {
        return Ok((value.to_owned(), "(inline JSON)".to_owned()));
    }
    let path = Path::new(value);
    Ok((bounded_text(what, path, limit)?, path.display().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(dir: &Path, name: &str) -> PathBuf {
        let fifo = dir.join(name);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        fifo
    }

    #[test]
    fn a_fifo_nobody_writes_to_reads_as_empty_instead_of_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = mkfifo(dir.path(), "left.csv");
        let started = Instant::now();
        assert_eq!(bounded("results file", &fifo, 1024).unwrap(), b"");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_fifo_with_a_slow_writer_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = mkfifo(dir.path(), "piped.csv");
        let writer = std::process::Command::new("sh")
            .arg("-c")
            .arg("exec 3>\"$0\"; printf a >&3; sleep 0.3; printf b >&3")
            .arg(&fifo)
            .spawn()
            .unwrap();
        // The reader may open before the writer: retry until it has a writer.
        let mut got = Vec::new();
        for _ in 0..100 {
            got = bounded("results file", &fifo, 1024).unwrap();
            if !got.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut writer = writer;
        writer.wait().unwrap();
        assert_eq!(got, b"ab");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_and_one_at_it_is_read() {
        let dir = std::env::temp_dir().join(format!("bounded-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ten");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(bounded("the file", &path, 10).unwrap(), b"0123456789");
        let err = bounded("the config", &path, 9).unwrap_err();
        assert!(matches!(err, FileError::TooLarge { size: 10, .. }));
        assert!(err.to_string().starts_with("the config "), "{err}");
        assert!(
            err.to_string()
                .ends_with("is 10 bytes, over the 9-byte limit"),
            "{err}"
        );
        let err = bounded("event file", &dir.join("none"), 9).unwrap_err();
        assert!(
            err.to_string().starts_with("cannot read event file "),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
