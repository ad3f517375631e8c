//! Issue 47, the examples that run: every workflow of examples/workflows
//! run by its jobs as a runner would ([`crate::support::workflow`]), on the
//! seed-shaped world of [`crate::docs_blocks`], for each case it is
//! triggered by: a push to main first (what it uploads, a pull request may
//! download), then a pull request from a fork. An example that is not run
//! says why in its own comments (`# not-run: ...`).

use std::path::{Path, PathBuf};

use serde_json::json;
use serde_yaml_ng::Value as Yaml;

use crate::docs_blocks::{World, assert_all_ran, check_jobs};
use crate::support::harness::repo_root;
use crate::support::workflow;

/// Every example workflow runs for each case it is triggered by (a push to
/// main before a pull request from a fork), or says why not.
#[test]
fn every_example_workflow_runs_for_a_push_and_a_fork_pull_request() {
    let dir = repo_root().join("examples/workflows");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let mut results = Vec::new();
    for path in names {
        results.extend(run_example(&path));
    }
    assert_all_ran(&results);
}

fn run_example(path: &Path) -> Vec<(String, Result<(), String>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    if let Some(why) = text.lines().find_map(|l| l.strip_prefix("# not-run:")) {
        // An example that is not run says why, in its own comments.
        assert!(!why.trim().is_empty(), "{name}: not-run says why");
        return vec![];
    }
    let doc: Yaml = serde_yaml_ng::from_str(&text).unwrap();
    let on = &doc["on"];
    let mut world = World::new(".");
    let mut out = Vec::new();
    for event in ["push", "pull_request"] {
        if on.get(event).is_none() {
            continue;
        }
        let mut run = world.run(event);
        let got = workflow::run_workflow_with(&mut run, &doc, json!({}));
        world.log.push_str(&run.log);
        out.push((
            format!("{name} ({event})"),
            got.and_then(|n| check_jobs(n, &run.log)),
        ));
    }
    assert!(
        !out.is_empty(),
        "{name}: runs on neither push nor pull_request"
    );
    out
}

/// reuse-main-baseline.yml on a push to main: each runner uploads its
/// results under the name a pull request based on the pushed commit looks
/// up (`artifact-name` rendered for that commit: resolve's `upload-name`),
/// the template typed once.
#[test]
fn a_push_to_main_uploads_under_the_names_pull_requests_look_up() {
    let path = repo_root().join("examples/workflows/reuse-main-baseline.yml");
    let doc: Yaml = serde_yaml_ng::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut world = World::new(".");
    let mut run = world.run("push");
    let got = workflow::run_workflow_with(&mut run, &doc, json!({}));
    check_jobs(got.unwrap(), &run.log).unwrap();
    let mut stored: Vec<String> = std::fs::read_dir(&run.store)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    stored.sort();
    let head = &run.checkout_sha;
    let want: Vec<String> = ["mi325", "mi355", "navi"]
        .iter()
        .map(|gpu| format!("bench-{gpu}-{head}"))
        .collect();
    assert_eq!(stored, want, "{}", run.log);
    let csv = run.store.join(&want[1]).join("current.csv");
    assert!(
        std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("op,shape,dtype,tbps,tflops"),
        "main's results themselves"
    );
}
