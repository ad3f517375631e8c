//! Running the user's command once: `bash -c` in the tree, in a process
//! group of its own so a timeout stops all of it (a harness that started a
//! server, a `docker exec`), its output relayed line by line. The command
//! runs a stranger's tree (a fork's harness on a pull request): no line of
//! it may become a workflow command of ours, and no line of it is held
//! whole, however long.

use std::io::Read;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::log::RawLog;
use crate::runner::log::LogText;
use crate::runner::write;

/// A relayed line longer than this is cut into lines of this size.
pub const MAX_LINE: usize = 64 * 1024;
/// What a list command may print; the rest is read and dropped.
pub const MAX_LISTED: usize = 1024 * 1024;
/// After a timeout, how long the group has to stop on SIGTERM before SIGKILL.
const GRACE: Duration = Duration::from_secs(10);
/// After the command ends, how long its output may still drain (a process
/// that left the group and kept the pipe open is not waited for).
const DRAIN: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(50);

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Exited: 0 is success; a signal is 128 + its number, as bash says it.
    Exit(i32),
    /// Outlived its time and was stopped.
    TimedOut,
}

#[derive(Debug, Clone)]
pub struct Finished {
    pub ended: Ended,
    pub duration: Duration,
    /// What it printed on stdout, when asked to keep it (at most [`MAX_LISTED`]).
    pub kept: String,
}

/// `bash -c script` in `dir`, stopped after `timeout`; stdout is relayed
/// (or kept, with `keep`), stderr relayed; both go to our stderr, so our
/// stdout stays the answer. `prefix` starts every relayed line.
pub fn run(
    script: &str,
    dir: &Path,
    timeout: Duration,
    prefix: &str,
    keep: bool,
) -> std::io::Result<Finished> {
    run_logged(script, dir, timeout, prefix, keep, None)
}

/// [`run`], each relayed line also written to `log` as it was printed
/// (without the prefix).
pub fn run_logged(
    script: &str,
    dir: &Path,
    timeout: Duration,
    prefix: &str,
    keep: bool,
    log: Option<RawLog>,
) -> std::io::Result<Finished> {
    let start = Instant::now();
    let mut child = Command::new("bash")
        .args(["--noprofile", "--norc", "-c", script])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let (done_tx, done_rx) = mpsc::channel::<String>();
    let pipes = [
        child.stdout.take().map(|out| {
            let tx = done_tx.clone();
            let prefix = prefix.to_owned();
            let log = log.clone();
            thread::spawn(move || {
                let _ = tx.send(if keep {
                    collect(out)
                } else {
                    relay(out, &prefix, log.as_ref())
                });
            })
        }),
        child.stderr.take().map(|err| {
            let tx = done_tx.clone();
            let prefix = prefix.to_owned();
            let log = log.clone();
            thread::spawn(move || {
                let _ = tx.send(relay(err, &prefix, log.as_ref()));
            })
        }),
    ];
    drop(done_tx);
    let ended = wait(&mut child, start, timeout)?;
    // Whatever the command left behind in its group goes too.
    signal_group(&child, "TERM");
    let mut kept = String::new();
    let until = Instant::now().checked_add(DRAIN);
    for _ in pipes.iter().flatten() {
        let left = until.map_or(DRAIN, |u| u.saturating_duration_since(Instant::now()));
        match done_rx.recv_timeout(left) {
            Ok(text) if keep && kept.is_empty() => kept = text,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    if let Some(log) = &log {
        log.flush();
    }
    Ok(Finished {
        ended,
        duration: start.elapsed(),
        kept,
    })
}

/// Waits for the child until `timeout`; then stops its group (TERM, then
/// KILL after [`GRACE`]).
fn wait(child: &mut Child, start: Instant, timeout: Duration) -> std::io::Result<Ended> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Ended::Exit(code(status)));
        }
        if start.elapsed() >= timeout {
            break;
        }
        thread::sleep(POLL);
    }
    signal_group(child, "TERM");
    let stopped = Instant::now();
    while stopped.elapsed() < GRACE {
        if child.try_wait()?.is_some() {
            return Ok(Ended::TimedOut);
        }
        thread::sleep(POLL);
    }
    signal_group(child, "KILL");
    let _ = child.kill();
    let _ = child.wait();
    Ok(Ended::TimedOut)
}

fn code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    status
        .code()
        .or_else(|| status.signal().map(|s| s.saturating_add(128)))
        .unwrap_or(-1)
}

/// `kill -SIG -- -PGID` through bash's builtin (std has no killpg); the
/// group is the child's pid ([`CommandExt::process_group`] `(0)`).
fn signal_group(child: &Child, signal: &str) {
    let _ = Command::new("bash")
        .args([
            "--noprofile",
            "--norc",
            "-c",
            "kill -s \"$1\" -- \"-$2\" 2>/dev/null",
        ])
        .args(["kill", signal, &child.id().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Reads `from` in bounded lines and hands each to `line`: a line with no
/// end is cut every [`MAX_LINE`] bytes, so memory stays bounded.
fn lines(mut from: impl Read, mut line: impl FnMut(&[u8])) {
    let mut buf = vec![0u8; MAX_LINE];
    let mut filled = 0usize;
    while let Some(room) = buf.get_mut(filled..) {
        let n = match from.read(room) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        filled = filled.saturating_add(n).min(buf.len());
        let mut start = 0usize;
        while let Some(at) = buf
            .get(start..filled)
            .and_then(|b| memchr::memchr(b'\n', b))
        {
            let end = start.saturating_add(at);
            line(buf.get(start..end).unwrap_or_default());
            start = end.saturating_add(1);
        }
        buf.copy_within(start..filled, 0);
        filled = filled.saturating_sub(start);
        if filled == buf.len() {
            line(buf.get(..filled).unwrap_or_default());
            filled = 0;
        }
    }
    if filled > 0 {
        line(buf.get(..filled).unwrap_or_default());
    }
}

/// Each line of `from` on our stderr, after `prefix`, never a command;
/// and as it was printed in `log`, when there is one.
fn relay(from: impl Read, prefix: &str, log: Option<&RawLog>) -> String {
    lines(from, |bytes| {
        if let Some(log) = log {
            log.line(bytes);
        }
        let text = String::from_utf8_lossy(bytes);
        let mut out = LogText::new();
        out.push_line(&format!("{prefix}{}", text.trim_end_matches('\r')));
        write::stderr(&out);
    });
    String::new()
}

/// Up to [`MAX_LISTED`] bytes of `from`'s lines, the rest drained.
fn collect(from: ChildStdout) -> String {
    let mut kept = String::new();
    lines(from, |bytes| {
        if kept.len().saturating_add(bytes.len()) < MAX_LISTED {
            kept.push_str(&String::from_utf8_lossy(bytes));
            kept.push('\n');
        }
    });
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(input: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        lines(input, |l| out.push(l.to_vec()));
        out
    }

    #[test]
    fn lines_are_split_and_an_endless_one_is_cut() {
        assert_eq!(
            split(b"a\nbc\n\nd"),
            [b"a".to_vec(), b"bc".to_vec(), vec![], b"d".to_vec()]
        );
        let long = vec![b'x'; MAX_LINE * 2 + 5];
        let cut = split(&long);
        assert_eq!(
            cut.iter().map(Vec::len).collect::<Vec<_>>(),
            [MAX_LINE, MAX_LINE, 5]
        );
    }

    #[test]
    fn a_run_ends_with_its_status_or_is_stopped_at_its_time() {
        let dir = std::env::temp_dir();
        let ok = run("echo hi; exit 3", &dir, Duration::from_secs(30), "", true).unwrap();
        assert_eq!(ok.ended, Ended::Exit(3));
        assert_eq!(ok.kept, "hi\n");
        let start = Instant::now();
        let slow = run(
            "sleep 30 & sleep 30",
            &dir,
            Duration::from_millis(300),
            "",
            false,
        )
        .unwrap();
        assert_eq!(slow.ended, Ended::TimedOut);
        assert!(start.elapsed() < Duration::from_secs(10), "stopped on TERM");
    }
}
