//! Section 9: `select` on a large change, whole process, against
//! `git diff --name-status -M` on the same two commits: the tree diff with
//! rename detection is the floor any selection pays, so the goal is stated
//! as a multiple of it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::{BIN, command, median, ms};

const GROUPS: usize = 100;
const FILES: usize = 100;
/// Of each group's files, this many are renamed unchanged; the rest change.
const RENAMED: usize = 10;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A repository of GROUPS x FILES kernels and two commits: the head changes
/// every file of every group, renaming RENAMED of each unchanged.
fn repository(dir: &Path) -> (String, String) {
    git(dir, &["init", "-q", "-b", "main"]);
    for g in 0..GROUPS {
        let at = dir.join(format!("kernels/g{g:03}"));
        std::fs::create_dir_all(at.join("moved")).unwrap();
        for f in 0..FILES {
            let body = format!("// group {g} kernel {f}\n__global__ void k{g}_{f}() {{}}\n");
            std::fs::write(at.join(format!("k{f:03}.cu")), body).unwrap();
        }
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "base"]);
    let base = git(dir, &["rev-parse", "HEAD"]);
    for g in 0..GROUPS {
        let at = dir.join(format!("kernels/g{g:03}"));
        for f in 0..FILES {
            let file = at.join(format!("k{f:03}.cu"));
            if f < RENAMED {
                std::fs::rename(&file, at.join(format!("moved/k{f:03}.cu"))).unwrap();
            } else {
                std::fs::write(&file, format!("// group {g} kernel {f}, tuned\n")).unwrap();
            }
        }
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "head"]);
    (base, git(dir, &["rev-parse", "HEAD"]))
}

fn config(dir: &Path) -> String {
    let mut text = String::from(
        "[select]\nall = [\"CMakeLists.txt\", \"scripts/**\"]\nignore = [\"**/*.md\"]\nmax-files = 20000\n",
    );
    for g in 0..GROUPS {
        let _ = writeln!(
            text,
            "[[select.groups]]\nname = \"g{g:03}\"\npaths = [\"kernels/g{g:03}/**\", \"common/g{g:03}/*.h\"]\n"
        );
    }
    let path = dir.join("select.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

fn timed(program: &str, args: &[&str], dir: &Path) -> (Duration, Vec<u8>) {
    let started = std::time::Instant::now();
    let out = command(program, args, &[])
        .current_dir(dir)
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(out.status.success(), "{program} {args:?}: {out:?}");
    (took, out.stdout)
}

pub fn selecting(report: &mut String) {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let (base, head) = repository(dir);
    let config = config(dir);
    let ours = |format| {
        [
            "select", "--config", &config, "--base", &base, "--head", &head, "--format", format,
        ]
    };
    let (text, json) = (ours("text"), ours("json"));
    let reference = ["diff", "--name-status", "-M", &base, &head];
    let (mut t, mut j, mut g) = (Vec::new(), Vec::new(), Vec::new());
    let (mut listing, mut answer) = (Vec::new(), Vec::new());
    // Interleaved, so all three see the same machine.
    for _ in 0..30 {
        t.push(timed(BIN, &text, dir).0);
        let (took, out) = timed(BIN, &json, dir);
        j.push(took);
        answer = out;
        let (took, out) = timed("git", &reference, dir);
        g.push(took);
        listing = out;
    }
    let answer: serde_json::Value = serde_json::from_slice(&answer).unwrap();
    let git_files = String::from_utf8_lossy(&listing).lines().count();
    let renames = String::from_utf8_lossy(&listing)
        .lines()
        .filter(|l| l.starts_with('R'))
        .count();
    let (t, j, g) = (median(t), median(j), median(g));
    let _ = writeln!(
        report,
        "## 9. Selecting\n\n`baseline-resolver select` on a repository of {GROUPS} groups of {FILES} files, where the head \
         commit changes {} files and renames {} unchanged (10,000 paths in the diff), against a config of {GROUPS} groups \
         (two patterns each, plus `all` and `ignore` patterns); whole process to a pipe, median of 30, interleaved with \
         `git diff --name-status -M` on the same two commits (the floor: a tree diff with rename detection). \
         Goal: at most 2x git.\n\n\
         | command | median wall | |\n|---|---|---|\n\
         | `select --format text` | **{}** | {:.2}x git |\n\
         | `select --format json` | **{}** | {:.2}x git; selection `{}`, {} groups, {} changed files |\n\
         | `git diff --name-status -M` | {} | {git_files} lines, {renames} renames |\n",
        GROUPS * (FILES - RENAMED),
        GROUPS * RENAMED,
        ms(t),
        t.as_secs_f64() / g.as_secs_f64(),
        ms(j),
        j.as_secs_f64() / g.as_secs_f64(),
        answer["selection"].as_str().unwrap_or("?"),
        answer["groups"].as_array().map_or(0, Vec::len),
        answer["changed_files"],
        ms(g),
    );
}
