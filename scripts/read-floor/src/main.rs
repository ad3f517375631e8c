//! The floor under reading a results file: the work every reader must do
//! before it parses anything, and nothing else. `scripts/formats-speed
//! --floor` runs it on the same files as `convert` and takes its CPU time
//! the same way (wait4), so that a format's time can be told apart from
//! what the bytes alone cost. Nothing here is a pass/fail test; it is
//! built on its own (`cargo build --release` in scripts/read-floor, the
//! root's Cargo.lock copied in so that the crates are the reader's).
//!
//! `read_floor [--no-hash] PATH`: reads PATH (a directory:
//! criterion's tree, the two files a benchmark its reader reads), hashes
//! every byte with SHA-256 (the identity compare's report gives each
//! results file), and passes over every byte once with memchr (counting
//! quotes and line ends, the least a parser must look at). `--no-hash`
//! leaves the hash out, to say what it costs (convert does not hash).

use std::path::Path;

struct Steps {
    hash: bool,
}

/// What one file's bytes cost: read, hashed into `sha`, scanned.
fn file(path: &Path, steps: &Steps, sha: &mut openssl::sha::Sha256) -> std::io::Result<usize> {
    let bytes = std::fs::read(path)?;
    if steps.hash {
        sha.update(&bytes);
    }
    Ok(memchr::memchr2_iter(b'"', b'\n', &bytes).count())
}

/// criterion's tree: every directory under `dir` listed, and in each
/// `new` directory the two files its reader reads (`benchmark.json`,
/// `sample.json`), in name order; nothing else is opened.
fn tree(dir: &Path, steps: &Steps, sha: &mut openssl::sha::Sha256) -> std::io::Result<usize> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    let mut count = 0usize;
    for entry in entries.iter().filter(|e| e.file_type().is_ok_and(|t| t.is_dir())) {
        let path = entry.path();
        if entry.file_name() != "new" {
            count = count.saturating_add(tree(&path, steps, sha)?);
            continue;
        }
        for name in ["benchmark.json", "sample.json"] {
            count = count.saturating_add(file(&path.join(name), steps, sha)?);
        }
    }
    Ok(count)
}

fn main() -> std::io::Result<()> {
    let mut steps = Steps { hash: true };
    let mut path = None;
    for arg in std::env::args_os().skip(1) {
        match arg.to_str() {
            Some("--no-hash") => steps.hash = false,
            _ => path = Some(std::path::PathBuf::from(arg)),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: read_floor [--no-hash] PATH");
        std::process::exit(2);
    };
    let mut sha = openssl::sha::Sha256::new();
    let count = if path.is_dir() {
        tree(&path, &steps, &mut sha)?
    } else {
        file(&path, &steps, &mut sha)?
    };
    let digest = sha.finish();
    println!("{count} {:02x}{:02x}", digest[0], digest[1]);
    Ok(())
}
