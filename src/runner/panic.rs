//! A panic cannot be silent: the hook says so in one `::error` first. And a
//! third-party reader's panic on a stranger's file (the YAML parser's, on
//! a workflow) is contained: [`contain`] turns it into an error naming the
//! file, never an exit with nothing said.

use std::cell::Cell;

use super::log::{LogSink as _, LogText};

thread_local! {
    /// Set while [`contain`] runs: the hook stays quiet and keeps the
    /// message for the caller.
    static CONTAINED: Cell<Option<String>> = const { Cell::new(None) };
    static CONTAINING: Cell<bool> = const { Cell::new(false) };
}

/// Makes even a bug visible on a runner: the hook says so in one `::error`
/// annotation (and on stderr), with the panic's message and place, before
/// the process ends.
pub fn install_hook(on_runner: bool) {
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let location = info.location().map(ToString::to_string);
        if CONTAINING.with(Cell::get) {
            let at = location.unwrap_or_default();
            CONTAINED.with(|c| c.set(Some(format!("{message} (at {at})"))));
            return;
        }
        let (stdout, stderr) = panic_report(&message, location.as_deref(), on_runner);
        let _ = super::write::stdout(|log| log.append(&stdout));
        super::write::stderr(&stderr);
    }));
}

/// Runs `f`, a call into a reader that may panic on input it was never
/// meant to see; its panic becomes `Err(message)`, said by the caller, not
/// by the hook. Nothing `f` borrows is used after a panic but dropped.
pub fn contain<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    CONTAINING.with(|c| c.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CONTAINING.with(|c| c.set(false));
    result.map_err(|_| {
        CONTAINED
            .with(Cell::take)
            .unwrap_or_else(|| "a panic".to_owned())
    })
}

/// The lines a panic prints: `(stdout, stderr)`.
fn panic_report(message: &str, location: Option<&str>, on_runner: bool) -> (LogText, LogText) {
    let text = format!(
        "internal error, please report it with this line and the event file: {} (at {})",
        super::shown(message),
        location.unwrap_or("unknown place")
    );
    let mut stdout = LogText::new();
    if on_runner {
        stdout.push_command("error", &[("title", "baseline-resolver")], &text);
    }
    let mut stderr = LogText::new();
    stderr.push_line(&format!("baseline-resolver: {text}"));
    (stdout, stderr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_one_error_annotation() {
        let (stdout, stderr) = panic_report("boom\n::set-output x", Some("src/x.rs:1:2"), true);
        let (stdout, stderr) = (stdout.as_str(), stderr.as_str());
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(
            stdout.starts_with("::error title=baseline-resolver::internal error, please report")
        );
        assert!(
            stdout.contains("boom%0A::set-output x"),
            "escaped: {stdout}"
        );
        assert!(stderr.contains("src/x.rs:1:2"));
        let (stdout, stderr) = panic_report(&"x".repeat(10_000), None, false);
        assert!(stdout.is_empty());
        assert!(
            stderr.as_str().len() < 400,
            "cut short: {}",
            stderr.as_str().len()
        );
    }
}
