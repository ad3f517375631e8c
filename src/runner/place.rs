//! Where a write or a removal lands, decided before it happens. A checked-
//! out tree is a stranger's on a pull request: a directory in it can be a
//! symlink to anywhere (`bench-results -> /home/runner/.ssh`), a workflow
//! file a symlink to a file outside the repository. A path is followed
//! through every symlink it has and must end inside a root it is allowed
//! under; a link that points nowhere is refused (creating through it would
//! create its target). A file is replaced through a new file beside it
//! and a rename, so it is never left half written and a link is replaced,
//! not written through.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// `path` (absolute) with every symlink of the part that exists resolved,
/// the rest joined as it is; an error when a component is a dangling
/// symlink (or the part that does not exist ends in `..`).
pub fn resolved(path: &Path) -> Result<PathBuf, String> {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        match std::fs::symlink_metadata(at) {
            Ok(_) => {
                let real = std::fs::canonicalize(at).map_err(|e| {
                    format!(
                        "{} cannot be followed ({e}): a symbolic link that points nowhere?",
                        at.display()
                    )
                })?;
                return Ok(rest.iter().rev().fold(real, |p, c| p.join(c)));
            }
            Err(_) => {
                let name = at
                    .file_name()
                    .ok_or_else(|| format!("{} has no existing part", path.display()))?;
                rest.push(name.to_owned());
                at = at
                    .parent()
                    .ok_or_else(|| format!("{} has no existing part", path.display()))?;
            }
        }
    }
}

/// [`resolved`] `path`, when it lies inside one of `roots` (each resolved
/// too); otherwise an error naming where it leads.
pub fn inside(path: &Path, roots: &[&Path]) -> Result<PathBuf, String> {
    let real = resolved(path)?;
    let within = roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .any(|root| real.starts_with(root));
    if within {
        Ok(real)
    } else {
        let show = |p: &Path| super::text::cut(&p.display().to_string(), 300);
        let mut named: Vec<String> = roots.iter().map(|r| show(r)).collect();
        named.dedup();
        Err(format!(
            "{} leads to {}, outside {}",
            show(path),
            show(&real),
            named.join(" and ")
        ))
    }
}

/// Replaces the regular file at `path` with `bytes`: written to a new file
/// in the same directory (created exclusively: never through a link
/// planted there), given the old file's permissions, synced, then renamed
/// over `path`. A crash leaves the old file or the new one, never half of
/// one; the temporary file is removed on any error.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = dir.join(format!(
        ".{name}.baseline-resolver-{}.tmp",
        std::process::id()
    ));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_followed_through_its_links_and_kept_inside_its_roots() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path().join("ws");
        let elsewhere = top.path().join("elsewhere");
        std::fs::create_dir_all(root.join("in")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("out")).unwrap();
        std::os::unix::fs::symlink(root.join("in"), root.join("stays")).unwrap();
        std::os::unix::fs::symlink(top.path().join("nowhere"), root.join("dangling")).unwrap();
        assert!(inside(&root.join("in/new/x.csv"), &[&root]).is_ok());
        assert!(inside(&root.join("stays/x.csv"), &[&root]).is_ok());
        let err = inside(&root.join("out/x.csv"), &[&root]).unwrap_err();
        assert!(
            err.contains("elsewhere") && err.contains("outside"),
            "{err}"
        );
        assert!(inside(&root.join("out/x.csv"), &[&root, &elsewhere]).is_ok());
        assert!(inside(&root.join("dangling/x.csv"), &[&root]).is_err());
    }

    #[test]
    fn a_file_is_replaced_whole_and_a_link_is_replaced_not_written_through() {
        let top = tempfile::tempdir().unwrap();
        let file = top.path().join("ci.yml");
        std::fs::write(&file, "old").unwrap();
        replace(&file, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        let victim = top.path().join("victim.yml");
        std::fs::write(&victim, "keep").unwrap();
        let link = top.path().join("link.yml");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        replace(&link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(
            std::fs::read_dir(top.path()).unwrap().count(),
            3,
            "no temporary file left"
        );
    }
}
