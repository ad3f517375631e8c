//! The files bench reads and removes, looked at before they are opened:
//! a stranger's harness or checked-in tree can leave a FIFO (opening it
//! for reading blocks until a writer comes, past every timeout), a
//! device, or a symlink pointing anywhere where a results file should be.
//! Only a regular file is read, opened without blocking and without
//! following a symlink; whatever else is at a path bench owns is removed
//! as the link or node itself, never what it points at.

use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use super::inputs::Inputs;
use crate::runner::place;

/// `path` once every symlink on its way is followed, when it lies inside
/// the workspace, the working directory, the repository, the runner's
/// temporary directory or the volume; otherwise why not. A checked-out `bench-results` that is a
/// symlink to elsewhere, or a dangling one, is refused here, before bench
/// writes, reads or removes anything through it.
pub fn inside(path: &Path, inputs: &Inputs) -> Result<PathBuf, String> {
    let volume = inputs.volume.as_ref().map(|v| PathBuf::from(&v.host));
    let mut roots: Vec<&Path> = vec![
        &inputs.workspace,
        &inputs.cwd,
        &inputs.repository,
        &inputs.temp,
    ];
    roots.extend(volume.as_deref());
    place::inside(path, &roots)
}

/// What is at a path, in words ("a FIFO", "a symbolic link").
pub fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else {
        "a regular file"
    }
}

/// The regular file at `path`, opened for reading: `Ok(None)` when nothing
/// is there, an error saying what is there when it is anything else. The
/// path is looked at without following a symlink first, then opened with
/// `O_NONBLOCK | O_NOFOLLOW` and looked at again, so a FIFO swapped in
/// between cannot block the open and is refused after it.
pub fn open_regular(path: &Path) -> Result<Option<File>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if !meta.file_type().is_file() {
        return Err(format!("{}, not a regular file", kind(&meta)));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.file_type().is_file() {
        return Err(format!("{}, not a regular file", kind(&meta)));
    }
    Ok(Some(file))
}

/// Removes whatever is at `path` (a file, a FIFO, a symlink, dangling or
/// not: the link itself, never its target); a directory is refused.
/// Returns what was removed, `None` when nothing was there.
pub fn remove(path: &Path) -> Result<Option<&'static str>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if meta.file_type().is_dir() {
        return Err("a directory, which bench does not remove".to_owned());
    }
    std::fs::remove_file(path).map_err(|e| e.to_string())?;
    Ok(Some(kind(&meta)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_blocking_and_removed_as_itself() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out.csv");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let err = open_regular(&fifo).unwrap_err();
        assert!(err.contains("a FIFO"), "{err}");
        assert_eq!(remove(&fifo).unwrap(), Some("a FIFO"));
        assert!(open_regular(&fifo).unwrap().is_none());
        let target = dir.path().join("target");
        std::fs::write(&target, "x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(open_regular(&link).unwrap_err().contains("symbolic link"));
        assert_eq!(remove(&link).unwrap(), Some("a symbolic link"));
        assert!(target.exists(), "the link's target stays");
        assert!(open_regular(&target).unwrap().is_some());
    }
}
