//! Any bytes as a workflow file: `lint` refuses it with an error or lints
//! it, in bounded time; every output form is inert (no line a workflow
//! command but our own annotations), the JSON and SARIF are JSON, and its
//! fixes, applied, still parse as YAML.
#![no_main]

mod inert;
#[path = "../../tests/integration/support/workflow_commands.rs"]
mod workflow_commands;

use std::path::Path;

use baseline_resolver::lint::{Outcome, Repo, fix, lint_text, render, sarif, yaml};
use baseline_resolver::runner::log::json_line;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The binary's hook: a panic of the YAML reader that `yaml::parse`
    // contains is that file's error (libyaml-safer's issues 6 and 7), any
    // other still ends the run (libfuzzer aborts on a panic that unwinds out).
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| baseline_resolver::runner::panic::install_hook(false));
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((findings, suppressed)) = lint_text(Path::new("fuzz.yml"), text, &Repo::default())
    else {
        return;
    };
    let outcome = Outcome {
        files: 1,
        findings,
        suppressed,
        refused: Vec::new(),
    };
    inert::check(render::text(&outcome).as_str(), false);
    let rendered = render::actions(&outcome).unwrap();
    inert::check(rendered.stdout.as_str(), true);
    for json in [render::json(&outcome), sarif::sarif(&outcome)] {
        inert::check(&json_line(&json), false);
        serde_json::from_str::<serde_json::Value>(&json).unwrap();
    }
    let root = yaml::parse(text).unwrap();
    let mended = fix::apply(text, &fix::edits(text, &root, &outcome.findings));
    if let Err(err) = yaml::parse(&mended) {
        panic!("the fixes broke the YAML: {err}\n{mended}");
    }
});
