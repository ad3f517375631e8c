//! Any bytes as results files (baseline, current, then up to ten history
//! runs, split at NUL bytes), judged with the default config: parsing
//! refuses or reads, the verdict never panics, every output form is inert,
//! the step outputs read back, the JSON is JSON, and a regressed or lost
//! row makes the verdict a regression, and every change is finite.
#![no_main]

mod inert;
#[path = "../../tests/integration/support/workflow_commands.rs"]
mod workflow_commands;

use std::path::Path;

use baseline_resolver::compare::render::{self, json, summary, text};
use baseline_resolver::compare::report::Report;
use baseline_resolver::compare::verdict::{self, Class, Sides, Verdict};
use baseline_resolver::config::{Config, FailThreshold, Thresholds};
use baseline_resolver::runner::file_command;
use baseline_resolver::runner::log::json_line;
use baseline_resolver::table::{Table, read};
use libfuzzer_sys::fuzz_target;

fn tables(parts: &[&[u8]], config: &Config) -> Option<Vec<Table>> {
    parts
        .iter()
        .map(|bytes| read::parse(Path::new("fuzz.csv"), bytes, &config.keys, &config.metrics).ok())
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, data)) = data.split_first() else {
        return;
    };
    let parts: Vec<&[u8]> = data.split(|b| *b == 0).take(12).collect();
    let config = Config::default();
    let Some(all) = tables(&parts, &config) else {
        return;
    };
    let (Some(baseline), Some(current)) = (all.first(), all.get(1)) else {
        return;
    };
    let history = all.get(2..).unwrap_or_default();
    let mut thresholds = Thresholds::default();
    if selector & 1 != 0 {
        thresholds.fail = FailThreshold::Auto;
    }
    let sides = Sides {
        label: "main".to_owned(),
        baseline: std::slice::from_ref(baseline),
        current: std::slice::from_ref(current),
        history,
        unselected: &[],
        unavailable: None,
    };
    let comparison = verdict::compare(sides, &config, thresholds);
    let failed = comparison
        .rows()
        .any(|r| matches!(r.class, Class::Regressed | Class::Lost));
    // Every change can be stated: none infinite (1e-300 against 1e300).
    for row in comparison.rows() {
        assert!(row.change.is_none_or(f64::is_finite), "{:?}", row.change);
    }
    let report = Report {
        gate: Some(comparison),
        others: Vec::new(),
        report_only: false,
        thresholds,
        inputs: Vec::new(),
        provenance: None,
        warnings: Vec::new(),
        config: &config,
    };
    assert_eq!(failed, report.verdict() == Verdict::Regression);
    inert::check(&text::render(&report), false);
    let json = json::json(&report, None);
    // On stdout the JSON is one line, written through `json_line`.
    inert::check(&json_line(&json), false);
    serde_json::from_str::<serde_json::Value>(&json).unwrap();
    let rendered = render::actions(&report).unwrap();
    inert::check(rendered.stdout.as_str(), true);
    file_command::read(&rendered.outputs).unwrap();
    let _ = summary::summary(&report);
});
