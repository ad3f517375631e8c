//! Reading a file a command was pointed at (an event payload, a results
//! file, a config) whole, bounded: whatever is at the path, a file that grows while it
//! is read or a FIFO that reports no size, at most `limit` bytes are held.

use std::fs::File;
use std::io::Read;
use std::path::Path;

#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// Over the limit: the size the file reported, or the bytes read past it.
    TooLarge {
        size: u64,
    },
}

impl From<std::io::Error> for ReadError {
    fn from(err: std::io::Error) -> ReadError {
        ReadError::Io(err)
    }
}

/// The file's bytes, refused before reading when its size is over `limit`,
/// and again when more than `limit` bytes arrive anyway.
pub fn bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    if size > limit {
        return Err(ReadError::TooLarge { size });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > limit {
        return Err(ReadError::TooLarge { size: read });
    }
    Ok(bytes)
}

/// The file as UTF-8 text, bounded like [`bounded`]; text that is not
/// UTF-8 is the error `read_to_string` gives.
pub fn bounded_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    String::from_utf8(bounded(path, limit)?).map_err(|_| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
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
        assert_eq!(bounded(&path, 10).unwrap(), b"0123456789");
        assert!(matches!(
            bounded(&path, 9),
            Err(ReadError::TooLarge { size: 10 })
        ));
        assert!(matches!(
            bounded(&dir.join("none"), 9),
            Err(ReadError::Io(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
