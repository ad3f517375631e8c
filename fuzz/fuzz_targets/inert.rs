//! What a fuzz target checks of every line a command would print: the
//! runner's own rules (actions/runner, `ActionCommand.TryParseV2` and
//! `TryParse`), written out here apart from `runner::log`, so that a line
//! that reaches the log without passing through it is caught.

/// The workflow commands the commands emit on purpose.
const OURS: [&str; 6] = [
    "::error",
    "::warning",
    "::notice",
    "::group::",
    "::endgroup::",
    "::add-mask::",
];

/// Panics on a line of `log` the runner would read as a command, other
/// than our own annotations when `commands` allows them.
pub fn check(log: &str, commands: bool) {
    for line in log.split(['\n', '\r']) {
        let trimmed = line.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
        if trimmed.starts_with("::") {
            assert!(
                commands && OURS.iter().any(|o| trimmed.starts_with(o)),
                "a workflow command: {line:?}"
            );
        }
        let lower = line.to_ascii_lowercase();
        assert!(
            !lower.contains("##[") && !lower.contains("##vso["),
            "a legacy command: {line:?}"
        );
    }
}
