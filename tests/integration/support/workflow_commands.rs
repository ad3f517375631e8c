//! The workflow commands a runner would read in a stream, as actions/runner
//! reads them (`ActionCommand.TryParseV2` and the legacy `TryParse`): a
//! line ends at LF, CR or CRLF; leading whitespace is trimmed before `::`
//! is looked for; `##[` (and `##vso[`) is a command anywhere in a line.
//! Control characters are trimmed too, a wider set than the runner's, as
//! `runner::log` escapes it. Shared by the integration tests and the fuzz
//! targets (included there by path), so both check one set of rules.

/// The commands the runner would read in `stream`, by name (`error`,
/// `add-mask`, `##[group`, `##vso[`).
pub fn commands(stream: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in stream.split("\r\n").flat_map(|l| l.split(['\r', '\n'])) {
        let trimmed = line.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
        if let Some(rest) = trimmed.strip_prefix("::") {
            let name: String = rest
                .chars()
                .take_while(|c| *c != ' ' && *c != ':')
                .collect();
            found.push(name);
        }
        let mut search = line;
        while let Some(at) = search.find("##[") {
            let rest = &search[at + 3..];
            found.push(format!(
                "##[{}",
                rest.split([']', ' ']).next().unwrap_or("")
            ));
            search = rest;
        }
        if line.to_ascii_lowercase().contains("##vso[") {
            found.push("##vso[".to_owned());
        }
    }
    found
}
