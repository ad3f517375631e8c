//! docs/lint.md shows what a finding looks like in the log; the block is
//! output, so the docs tests cannot run it. Here lint runs on the workflow
//! the example names and the page's lines must be lint's own.

use crate::support::harness::{Bin, repo_root};

/// The lines of docs/lint.md's block after "Each finding names its rule".
fn example() -> Vec<String> {
    let page = std::fs::read_to_string(repo_root().join("docs/lint.md")).unwrap();
    let after = page
        .split_once("Each finding names its rule, where it is and its fix:")
        .expect("docs/lint.md shows a finding")
        .1;
    let block = after.split("```").nth(1).expect("a block after it");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_finding_docs_lint_shows_is_what_lint_prints() {
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&flows).unwrap();
    // A GPU job on a self-hosted runner, kept running by always() (line 5,
    // the value at column 9).
    std::fs::write(
        flows.join("gpu.yml"),
        "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    if: always()\n    timeout-minutes: 30\n    steps:\n      - run: make test\n",
    )
    .unwrap();
    let run = Bin::new()
        .in_dir(dir.path())
        .args(["lint", ".github/workflows/gpu.yml"])
        .run();
    let printed: Vec<&str> = run.stdout.lines().collect();
    for line in example() {
        assert!(
            printed.contains(&line.as_str()),
            "docs/lint.md's line {line:?} is not in lint's output:\n{}",
            run.stdout
        );
    }
}
