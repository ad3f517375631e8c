//! Reading a file a command was pointed at (an event payload, a results
//! file, a config) whole, bounded: whatever is at the path, a file that
//! grows while it is read or a FIFO that reports no size, at most `limit`
//! bytes are held. A failure is a [`FileError`] that names the file by what
//! it is (`event file`, `the config`), the one way every command says it.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

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
    let file = File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
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
pub fn bounded_reader(what: &'static str, path: &Path, limit: u64) -> Result<impl Read, FileError> {
    let io = |source| FileError::Read {
        what,
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
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
