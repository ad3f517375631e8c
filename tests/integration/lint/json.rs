//! lint's JSON report (`--format json`), what a later step parses: each
//! finding with its file, line, column, severity, rule, message and fix,
//! and the counts, as a snapshot (the fixture's directory left out).

#[test]
fn json_of_a_job_that_runs_always() {
    let path = super::fixture("job-always.yml");
    let run = super::lint(&[path.to_str().unwrap(), "--format", "json"]);
    run.assert_code(4);
    let text = run
        .stdout
        .replace(&format!("{}/", super::fixtures().display()), "");
    insta::assert_snapshot!("lint_json_job_always", text);
}
