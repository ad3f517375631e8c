//! compare's job summary and JSON report as their readers see them, kept
//! as snapshots (`snapshots/` beside this file; the text form is in
//! `mod.rs`).

/// `compare` on a failed baseline row, a 20% regression and a new
/// benchmark, its inputs named by file name only.
fn named_by_file_name(format: &[&str]) -> crate::support::harness::Run {
    let bin = super::compare_seed();
    let prefix = format!("{}/", bin.dir().display());
    let mut run = bin.args(format).run();
    run.stdout = run.stdout.replace(&prefix, "");
    run
}

#[test]
fn job_summary_of_a_compare_regression() {
    let run = super::compare_seed().on_runner().run();
    run.assert_code(4);
    insta::assert_snapshot!("summary_compare_regression", run.summary);
}

#[test]
fn json_of_a_compare_regression() {
    let run = named_by_file_name(&["--format", "json"]);
    run.assert_code(4);
    let mut value: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // The 63 unchanged rows look alike: the snapshot keeps the others.
    let rows = value["baselines"][0]["rows"].as_array_mut().unwrap();
    rows.retain(|r| r["class"] != "unchanged");
    insta::assert_snapshot!(
        "json_compare_regression",
        serde_json::to_string_pretty(&value).unwrap()
    );
}

/// What the runner shows and what a later step reads: the annotations
/// (`::warning`/`::error` lines of stdout on a runner) and the step
/// outputs of the same regression, the scratch dir named `<dir>`.
#[test]
fn annotations_and_step_outputs_of_a_compare_regression() {
    let bin = super::compare_seed();
    let dir = bin.dir().display().to_string();
    let run = bin.on_runner().run();
    run.assert_code(4);
    let annotations: String = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("::warning") || l.starts_with("::error"))
        .map(|l| format!("{}\n", l.replace(&dir, "<dir>")))
        .collect();
    insta::assert_snapshot!("annotations_compare_regression", annotations);
    insta::assert_snapshot!(
        "outputs_compare_regression",
        run.outputs_text().replace(&dir, "<dir>")
    );
}
