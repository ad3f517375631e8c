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
