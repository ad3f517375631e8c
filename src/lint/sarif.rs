//! SARIF 2.1.0 for code scanning (`github/codeql-action/upload-sarif`):
//! one run, the twelve rules as the driver's rules (id, short and full
//! description, help, default level), one result per finding with its
//! region. Paths are kept as given (relative to the repository's root when
//! linted from there, which is what code scanning resolves them against),
//! written as URI references: each segment percent-encoded (RFC 3986), so
//! a stranger's file name (`%2e%2e%2fci.yml`, `a#b.yml`, `x?y.yml`) names
//! that file and no other, and is not cut at a `#` or `?`.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

use super::Outcome;
use super::finding::RULES;

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// What a segment keeps as it is: RFC 3986's unreserved characters. All
/// else (`%`, `#`, `?`, `:`, spaces, every byte of a non-ASCII character)
/// is percent-encoded.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A path as a relative (or, when it is absolute, rooted) URI reference:
/// `./` dropped, each `/`-separated segment encoded on its own.
pub fn uri(path: &str) -> String {
    path.trim_start_matches("./")
        .split('/')
        .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

pub fn sarif(outcome: &Outcome) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": { "text": r.message },
                "fullDescription": { "text": r.message },
                "help": { "text": format!("{} Fix: {}", r.message, r.fix) },
                "defaultConfiguration": { "level": r.severity.name() },
            })
        })
        .collect();
    let results: Vec<Value> = outcome
        .findings
        .iter()
        .map(|f| {
            let index = RULES.iter().position(|r| r.id == f.rule.id).unwrap_or(0);
            json!({
                "ruleId": f.rule.id,
                "ruleIndex": index,
                "level": f.rule.severity.name(),
                "message": { "text": format!("{} Fix: {}", f.message, f.rule.fix) },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri(&f.file) },
                        "region": { "startLine": f.at.line, "startColumn": f.at.column },
                    }
                }],
            })
        })
        .collect();
    // A file that could not be linted is a tool notification, so code
    // scanning shows the run as incomplete instead of clean.
    let notifications: Vec<Value> = outcome
        .refused
        .iter()
        .map(|r| {
            let uri = uri(&r.file);
            let location = match r.at {
                Some(at) => json!({ "physicalLocation": {
                    "artifactLocation": { "uri": uri },
                    "region": { "startLine": at.line, "startColumn": at.column },
                }}),
                None => json!({ "physicalLocation": { "artifactLocation": { "uri": uri } } }),
            };
            json!({
                "level": "error",
                "message": { "text": format!("not linted: {}", r.message) },
                "locations": [location],
            })
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "baseline-resolver lint",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": outcome.refused.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn each_segment_is_percent_encoded() {
        assert_eq!(
            uri("./.github/workflows/ci.yml"),
            ".github/workflows/ci.yml"
        );
        assert_eq!(uri("wf/%2e%2e%2fci.yml"), "wf/%252e%252e%252fci.yml");
        assert_eq!(uri("a#b.yml"), "a%23b.yml");
        assert_eq!(uri("x?y z.yml"), "x%3Fy%20z.yml");
        assert_eq!(uri("ü/é.yml"), "%C3%BC/%C3%A9.yml");
        assert_eq!(uri("/abs/c:d.yml"), "/abs/c%3Ad.yml");
    }
}
