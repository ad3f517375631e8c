//! SARIF 2.1.0 for code scanning (`github/codeql-action/upload-sarif`):
//! one run, the twelve rules as the driver's rules (id, short and full
//! description, help, default level), one result per finding with its
//! region. Paths are kept as given (relative to the repository's root when
//! linted from there, which is what code scanning resolves them against).

use serde_json::{Value, json};

use super::Outcome;
use super::finding::RULES;

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

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
                        "artifactLocation": { "uri": f.file.trim_start_matches("./") },
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
            let uri = r.file.trim_start_matches("./");
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
