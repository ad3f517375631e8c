//! asv's entries are read by position in asv's own column order and
//! checked against the file's `result_columns` (issue 51: the columns the
//! reader does not keep are skipped unbuilt). A file whose columns are in
//! another order reads as the same rows.

use crate::support::harness::Bin;

/// `convert`'s CSV of an asv file of `text`.
fn converted(text: &str) -> String {
    let bin = Bin::new();
    std::fs::write(bin.dir().join("asv.json"), text).unwrap();
    let run = bin.args(["convert", "asv.json"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn asv_columns_in_another_order_read_as_the_same_rows() {
    let own = r#"{"commit_hash": "abc", "result_columns": ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"],
        "results": {"b.time_x": [[1.0, 2.0], [["'a'", "'b'"]], "v", 0, 1.0, null, null, null, null, null, null, [[1.0, 1.5, 0.5], null], null]}}"#;
    let moved = r#"{"commit_hash": "abc", "result_columns": ["samples", "version", "params", "result"],
        "results": {"b.time_x": [[[1.0, 1.5, 0.5], null], "v", [["'a'", "'b'"]], [1.0, 2.0]]}}"#;
    let a = converted(own);
    assert_eq!(converted(moved), a);
    insta::assert_snapshot!(a, @r"
    benchmark,params,time,status,samples
    b.time_x,'a',1000000000,ok,3
    b.time_x,'b',2000000000,ok,1
    ");
}

/// A list entry with no `result_columns` to name its columns has no
/// result, as before: each of its rows is failed.
#[test]
fn asv_list_entries_without_result_columns_are_failed_rows() {
    let text = r#"{"commit_hash": "abc", "results": {"b.time_x": [[1.0], [], "v"]}}"#;
    let out = converted(text);
    assert!(out.contains("b.time_x,,,failed"), "{out}");
}
