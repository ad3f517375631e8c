//! A cancelled step: the runner sends `bench` SIGINT, then SIGTERM (and a
//! terminal or a closing session SIGHUP). The harness runs in a process
//! group of its own, so it receives none of them: without a handler it
//! would outlive `bench`, holding the GPU, with the baseline's worktree
//! left on disk. The handler only notes the signal; the run's waiting
//! loop sees it, stops the harness's group (TERM, then KILL; at once on a
//! second signal), the worktree is removed as after any run, what there
//! is is written, and `bench` exits with the signal's status (128 + its
//! number, as a shell reports it).

use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

/// The first signal caught (0: none).
static FIRST: AtomicI32 = AtomicI32::new(0);
/// How many were caught: a second one asks for KILL at once.
static COUNT: AtomicU32 = AtomicU32::new(0);

/// The signals that mean "stop": the runner's cancellation and a hang-up.
pub const STOPPING: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn note(signal: libc::c_int) {
    // Only atomics: what a signal handler may touch.
    let _ = FIRST.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    COUNT.fetch_add(1, Ordering::SeqCst);
}

/// Installs the handler for [`STOPPING`]; from then on those signals are
/// noted, not fatal.
pub fn install() {
    for signal in STOPPING {
        // SAFETY: `note` only stores to atomics (async-signal-safe); the
        // sigaction struct is zeroed and then filled as sigaction(2) asks.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = note as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// The first stopping signal received, if any.
pub fn caught() -> Option<i32> {
    match FIRST.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Whether a second signal came: the group is killed without a grace.
pub fn insisted() -> bool {
    COUNT.load(Ordering::SeqCst) >= 2
}

/// The signal's name, for the warning.
pub fn name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}
