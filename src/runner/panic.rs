//! A panic cannot be silent: with `panic = "abort"` it ends the process
//! before any output is written, so the hook says so first.

/// Makes even a bug visible on a runner: with `panic = "abort"` a panic
/// ends the process before any output is written, so the hook says so in
/// one `::error` annotation (and on stderr) instead of a bare exit 134.
pub fn install_hook(on_runner: bool) {
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let location = info.location().map(ToString::to_string);
        let (stdout, stderr) = panic_report(&message, location.as_deref(), on_runner);
        print!("{stdout}");
        eprint!("{stderr}");
    }));
}

/// The lines a panic prints: `(stdout, stderr)`.
fn panic_report(message: &str, location: Option<&str>, on_runner: bool) -> (String, String) {
    let text = format!(
        "internal error, please report it with this line and the event file: {} (at {})",
        super::shown(message),
        location.unwrap_or("unknown place")
    );
    let mut stdout = String::new();
    if on_runner {
        super::workflow_command::command(
            &mut stdout,
            "error",
            &[("title", "baseline-resolver")],
            &text,
        );
    }
    (stdout, format!("baseline-resolver: {text}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_one_error_annotation() {
        let (stdout, stderr) = panic_report("boom\n::set-output x", Some("src/x.rs:1:2"), true);
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(
            stdout.starts_with("::error title=baseline-resolver::internal error, please report")
        );
        assert!(
            stdout.contains("boom%0A::set-output x"),
            "escaped: {stdout}"
        );
        assert!(stderr.contains("src/x.rs:1:2"));
        let (stdout, _) = panic_report(&"x".repeat(10_000), None, false);
        assert!(stdout.is_empty());
        let (_, stderr) = panic_report(&"x".repeat(10_000), None, false);
        assert!(stderr.len() < 400, "cut short: {}", stderr.len());
    }
}
