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
use super::signals;
use crate::runner::log::LogText;
use crate::runner::write;

/// A relayed line longer than this is cut into lines of this size.
pub const MAX_LINE: usize = 64 * 1024;
/// What a list command may print; the rest is read and dropped.
pub const MAX_LISTED: usize = 1024 * 1024;
/// How long a group has to stop on SIGTERM before SIGKILL (after a
/// timeout, a cancellation, or a command that left members behind), and
/// then to be gone after SIGKILL.
const GRACE: Duration = Duration::from_secs(10);
/// After the command ends, how long its output may still drain (a process
/// that left the group and kept the pipe open is not waited for).
pub const DRAIN: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(50);

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Exited: 0 is success; a signal is 128 + its number, as bash says it.
    Exit(i32),
    /// Outlived its time and was stopped.
    TimedOut,
    /// bench was told to stop (this signal) and stopped it.
    Cancelled(i32),
}

#[derive(Debug, Clone)]
pub struct Finished {
    pub ended: Ended,
    pub duration: Duration,
    /// What it printed on stdout, when asked to keep it (at most [`MAX_LISTED`]).
    pub kept: String,
    /// Whether `kept` is all of it: stdout reached its end within the
    /// drain (a process that left the group can hold it open) and nothing
    /// past [`MAX_LISTED`] was dropped. A list that is not complete must
    /// not be taken for the harness's whole list.
    pub complete: bool,
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
    spawn_and_wait(script, dir, timeout, prefix, keep, log, true)
}

/// [`run`] for what has to run after a cancellation (the stop command that
/// ends a harness inside a container): a stopping signal bench already
/// caught does not cut it short; only its own `timeout` does.
pub fn run_regardless(
    script: &str,
    dir: &Path,
    timeout: Duration,
    prefix: &str,
) -> std::io::Result<Ended> {
    spawn_and_wait(script, dir, timeout, prefix, false, None, false).map(|done| done.ended)
}

/// Spawns `script` and waits for it; with `heed_signals`, a stopping
/// signal ends it as a cancellation.
fn spawn_and_wait(
    script: &str,
    dir: &Path,
    timeout: Duration,
    prefix: &str,
    keep: bool,
    log: Option<RawLog>,
    heed_signals: bool,
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
    // (from stdout, what it kept, whether that is all of it)
    let (done_tx, done_rx) = mpsc::channel::<(bool, String, bool)>();
    let pipes = [
        child.stdout.take().map(|out| {
            let tx = done_tx.clone();
            let prefix = prefix.to_owned();
            let log = log.clone();
            thread::spawn(move || {
                let (text, whole) = if keep {
                    collect(out)
                } else {
                    (relay(out, &prefix, log.as_ref()), true)
                };
                let _ = tx.send((true, text, whole));
            })
        }),
        child.stderr.take().map(|err| {
            let tx = done_tx.clone();
            let prefix = prefix.to_owned();
            let log = log.clone();
            thread::spawn(move || {
                let _ = tx.send((false, relay(err, &prefix, log.as_ref()), true));
            })
        }),
    ];
    drop(done_tx);
    // Whatever the command left behind in its group goes too.
    let ended = wait(&mut child, start, timeout, heed_signals)?;
    let (mut kept, mut complete) = (String::new(), false);
    let until = Instant::now().checked_add(DRAIN);
    for _ in pipes.iter().flatten() {
        let left = until.map_or(DRAIN, |u| u.saturating_duration_since(Instant::now()));
        match done_rx.recv_timeout(left) {
            Ok((true, text, whole)) => (kept, complete) = (text, whole),
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
        complete,
    })
}

/// Waits for the child until `timeout` (or, with `heed_signals`, until
/// bench is told to stop, [`signals`]); then stops its group
/// ([`stop_group`]).
fn wait(
    child: &mut Child,
    start: Instant,
    timeout: Duration,
    heed_signals: bool,
) -> std::io::Result<Ended> {
    let ended = loop {
        if let Some(status) = child.try_wait()? {
            break Ended::Exit(code(status));
        }
        if let Some(signal) = signals::caught().filter(|_| heed_signals) {
            break Ended::Cancelled(signal);
        }
        if start.elapsed() >= timeout {
            break Ended::TimedOut;
        }
        thread::sleep(POLL);
    };
    stop_group(child);
    Ok(ended)
}

/// Stops whatever is left in the child's process group: TERM, up to
/// [`GRACE`] for the group to be gone, then KILL (at once when bench got a
/// second stopping signal), and waits until no member is left, reaping
/// the child meanwhile (an unreaped child keeps the group alive). A group
/// that is already gone costs one `kill(-pgid, 0)`.
fn stop_group(child: &mut Child) {
    let Ok(group) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    let gone = |child: &mut Child| {
        let _ = child.try_wait();
        // SAFETY: killpg with signal 0 sends nothing; it asks whether any
        // process of the group is left.
        unsafe { libc::killpg(group, 0) != 0 }
    };
    if gone(child) {
        return;
    }
    // SAFETY: the group is the child's own (process_group(0)), not ours.
    unsafe { libc::killpg(group, libc::SIGTERM) };
    let term = Instant::now();
    while term.elapsed() < GRACE && !signals::insisted() {
        if gone(child) {
            return;
        }
        thread::sleep(POLL);
    }
    // SAFETY: as above.
    unsafe { libc::killpg(group, libc::SIGKILL) };
    let kill = Instant::now();
    while kill.elapsed() < GRACE && !gone(child) {
        thread::sleep(POLL);
    }
    let _ = child.wait();
}

fn code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    status
        .code()
        .or_else(|| status.signal().map(|s| s.saturating_add(128)))
        .unwrap_or(-1)
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

/// Up to [`MAX_LISTED`] bytes of `from`'s lines, the rest drained; and
/// whether nothing was dropped.
fn collect(from: ChildStdout) -> (String, bool) {
    let (mut kept, mut whole) = (String::new(), true);
    lines(from, |bytes| {
        if kept.len().saturating_add(bytes.len()) < MAX_LISTED {
            kept.push_str(&String::from_utf8_lossy(bytes));
            kept.push('\n');
        } else {
            whole = false;
        }
    });
    (kept, whole)
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
