//! The actions of `compare` and `lint` as the runner runs them: their
//! composite steps through `dist/launch.sh`, the outputs written exactly
//! those each declares, and the exit each verdict asks for.

use crate::compare::seed_files;
use crate::lint::fixture;

/// `compare/action.yml` as the runner runs it: its composite step, with
/// `with:` inputs evaluated into `INPUT_*`, through `dist/launch.sh` one
/// directory up; the outputs written are exactly those it declares.
#[test]
fn the_compare_action_writes_the_outputs_it_declares() {
    use crate::action::{action_dir, run_step_of};
    let dir = action_dir();
    let files = tempfile::tempdir().unwrap();
    let (base, cur) = seed_files(files.path());
    let baseline = format!("main={}\n", base.display());
    let current = cur.display().to_string();
    let resolution = r#"{"label":"main","base_repo":"ROCm/FlyDSL","base_sha":"fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16","base_source":"pr-base"}"#;
    let event = files.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let run = run_step_of(
        "compare/action.yml",
        dir.path(),
        &event,
        "pull_request",
        &[
            ("current", &current),
            ("baseline", &baseline),
            ("resolution", resolution),
        ],
        &[],
    );
    assert_eq!(
        run.code, 4,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    crate::action::assert_declared("compare/action.yml", &run);
    assert_eq!(run.outputs["verdict"], "regression");
    assert!(run.stdout.contains(
        "baseline main = ROCm/FlyDSL@fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16 (pr-base)"
    ));
    assert!(run.stdout.contains("=== Benchmark: current vs main ==="));
}

#[test]
fn the_lint_action_writes_the_outputs_it_declares_and_fails_on_findings() {
    use crate::action::{action_dir, run_step_of};
    let dir = action_dir();
    let event = dir.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let keep = tempfile::tempdir().unwrap();
    let sarif = keep.path().join("lint.sarif").display().to_string();
    let paths = format!(
        "{}\n{}\n",
        fixture("tag-sort.yml").display(),
        fixture("cache-discipline.yml").display()
    );
    let run = run_step_of(
        "lint/action.yml",
        dir.path(),
        &event,
        "pull_request",
        &[("paths", &paths), ("sarif", &sarif)],
        &[],
    );
    assert_eq!(
        run.code, 4,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    crate::action::assert_declared("lint/action.yml", &run);
    assert_eq!(run.outputs["findings"], "5");
    assert_eq!(run.outputs["warnings"], "3");
    assert_eq!(run.outputs["notes"], "2");
    assert!(std::path::Path::new(&sarif).is_file());
    let run = run_step_of(
        "lint/action.yml",
        dir.path(),
        &event,
        "pull_request",
        &[("paths", &paths), ("fail-on", "error")],
        &[],
    );
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
}
