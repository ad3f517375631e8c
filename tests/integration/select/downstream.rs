//! What a selection does downstream and at the edges: `compare
//! --selection` (rows of groups that did not run are `not-selected`; a
//! selected group's missing row is still lost), `select/action.yml` as the
//! runner runs it, paths a stranger's commit named, and the decision's
//! properties.

use std::path::Path;

use baseline_resolver::config::load::parse;
use baseline_resolver::select::changes::{Change, Status};
use baseline_resolver::select::decide::{Kind, decide};
use proptest::prelude::*;
use serde_json::Value;

use crate::select::{CONFIG, Work, config_file, select, select_bin};
use crate::support::harness::{Bin, Run};

const HEADER: &str = "op,shape,dtype,tbps,tflops,status\n";

/// Rows of three groups and one row no group claims.
fn results(dir: &Path, name: &str, ops: &[(&str, f64)]) -> String {
    let mut text = HEADER.to_owned();
    for (op, value) in ops {
        text.push_str(&format!("{op},1024,bf16,-,{value},ok\n"));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const ALL_ROWS: [(&str, f64); 4] = [
    ("softmax_fwd", 100.0),
    ("moe_gate", 200.0),
    ("gemm_bf16", 300.0),
    ("allreduce", 400.0),
];

/// `compare` of `current` rows against all four, with `selection`.
fn compare_selected(current: &[(&str, f64)], selection: &str) -> (Run, Value) {
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(dir.path(), CONFIG);
    let base = results(dir.path(), "main.csv", &ALL_ROWS);
    let cur = results(dir.path(), "current.csv", current);
    let run = Bin::new()
        .arg("compare")
        .args(["--current", &cur, "--baseline", &format!("main={base}")])
        .arg("--config")
        .arg(config)
        .args(["--selection", selection, "--format", "json"])
        .run();
    let value = serde_json::from_str(run.stdout.trim()).unwrap_or(Value::Null);
    (run, value)
}

fn classes(v: &Value) -> Vec<(String, String)> {
    v["baselines"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"]["op"].as_str().unwrap().to_owned(),
                r["class"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn class_of(v: &Value, op: &str) -> String {
    classes(v)
        .into_iter()
        .find(|(o, _)| o == op)
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("no row {op}: {v}"))
}

#[test]
fn rows_of_groups_that_did_not_run_are_not_selected_not_lost() {
    let some = r#"{"selection":"some","groups":["softmax"]}"#;
    let (run, v) = compare_selected(&[("softmax_fwd", 100.0), ("allreduce", 400.0)], some);
    run.assert_code(0);
    assert_eq!(v["verdict"], "pass", "{v}");
    assert_eq!(class_of(&v, "moe_gate"), "not-selected");
    assert_eq!(class_of(&v, "gemm_bf16"), "not-selected");
    assert_eq!(class_of(&v, "softmax_fwd"), "unchanged");
    assert_eq!(
        class_of(&v, "allreduce"),
        "unchanged",
        "no group claims it: compared"
    );
    assert_eq!(v["baselines"][0]["counts"]["not-selected"], 2);

    // A selected group's row that is missing still fails.
    let (run, v) = compare_selected(&[("allreduce", 400.0)], some);
    run.assert_code(4);
    assert_eq!(class_of(&v, "softmax_fwd"), "lost");

    // A not-selected row that ran anyway is still not compared.
    let (run, v) = compare_selected(
        &[
            ("softmax_fwd", 100.0),
            ("moe_gate", 50.0),
            ("allreduce", 400.0),
        ],
        some,
    );
    run.assert_code(0);
    assert_eq!(class_of(&v, "moe_gate"), "not-selected");
}

#[test]
fn all_changes_nothing_and_none_is_inconclusive() {
    let (run, v) = compare_selected(&ALL_ROWS[..3], r#"{"selection":"all","groups":[]}"#);
    run.assert_code(4);
    assert_eq!(
        class_of(&v, "allreduce"),
        "lost",
        "with all, every row counts"
    );

    let none = r#"{"selection":"none","groups":[]}"#;
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(
        dir.path(),
        &CONFIG.replace(
            "rows = [\"op=gemm*\"]",
            "rows = [\"op=gemm*\", \"op=allreduce\"]",
        ),
    );
    let base = results(dir.path(), "main.csv", &ALL_ROWS);
    let cur = results(dir.path(), "current.csv", &[]);
    let run = Bin::new()
        .on_runner()
        .arg("compare")
        .args(["--current", &cur, "--baseline", &format!("main={base}")])
        .arg("--config")
        .arg(config)
        .args(["--selection", none])
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["verdict"], "inconclusive", "never a silent pass");
    assert_eq!(out["not-selected"], "4");
    assert_eq!(out["compared"], "0");
    assert!(run.stdout.contains("4 not-selected"), "{}", run.stdout);
}

#[test]
fn a_selection_that_is_not_selects_answer_is_refused_and_unknown_groups_warned() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("selection.json");
    std::fs::write(&file, r#"{"selection":"few","groups":[]}"#).unwrap();
    let (run, _) = compare_selected(&ALL_ROWS, &file.display().to_string());
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("selection.json is not select's JSON answer: selection is \"few\""),
        "{}",
        run.stderr
    );
    let (run, v) = compare_selected(
        &ALL_ROWS,
        r#"{"selection":"some","groups":["softmax","fft"]}"#,
    );
    run.assert_code(0);
    assert!(
        v["warnings"]
            .to_string()
            .contains("the group \\\"fft\\\", which the config does not know"),
        "{v}"
    );
}

/// The composite step of `select/action.yml`, through the launcher: the
/// outputs written are exactly those declared, and every input reaches the
/// binary as its `INPUT_*` variable.
#[test]
fn the_select_action_writes_the_outputs_it_declares() {
    use crate::action::{action_dir, run_step_of};
    let w = Work::new();
    let base = w.head();
    w.touch("kernels/moe/moe.cu");
    let head = w.commit("moe");
    w.write("bench.toml", CONFIG);
    let dir = action_dir();
    let event = w.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let config = w.path().join("bench.toml").display().to_string();
    let repo = w.path().display().to_string();
    let run = run_step_of(
        "select/action.yml",
        dir.path(),
        &event,
        "pull_request",
        &[
            ("config", &config),
            ("base", &base),
            ("head", &head),
            ("repo", &repo),
        ],
        &[],
    );
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    crate::action::assert_declared("select/action.yml", &run);
    assert_eq!(run.outputs["selection"], "some");
    assert_eq!(run.outputs["groups"], "moe");
    assert_eq!(run.outputs["changed-files"], "1");
    let json: Value = serde_json::from_str(&run.outputs["json"]).unwrap();
    assert_eq!(json["files"][0]["path"], "kernels/moe/moe.cu");
    assert_eq!(json["files"][0]["by"], "moe");
}

/// A fork's commit names its files: no path can make a log line a
/// workflow command, in the text, the warnings or the notice.
#[test]
fn a_hostile_path_stays_data() {
    let w = Work::new();
    let base = w.head();
    for name in [
        "kernels/softmax/x\n::error::pwned.cu",
        "docs/\r::set-env name=A::b.md",
        "new/##[error]owned.py",
        "new/  ::warning::spaced.py",
    ] {
        w.write(name, "x\n");
    }
    let head = w.commit("hostile names");
    let run = select_bin(Bin::new().on_runner(), CONFIG, w.path(), &base, &head).run();
    run.assert_code(0);
    assert_eq!(run.outputs()["selection"], "all");
    for line in run.stdout.lines().chain(run.stderr.lines()) {
        let trimmed = line.trim_start();
        assert!(
            !trimmed.starts_with("::")
                || trimmed.starts_with("::notice")
                || trimmed.starts_with("::warning title=Benchmark selection"),
            "a command from data: {line}"
        );
        assert!(!line.contains("##["), "a ##[ command from data: {line}");
    }
    let (_, v) = select(w.path(), &base, &head);
    let paths: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"kernels/softmax/x\n::error::pwned.cu"),
        "the JSON keeps the path whole: {paths:?}"
    );
}

fn select_table() -> baseline_resolver::config::Select {
    parse(CONFIG).unwrap().select.unwrap()
}

/// Paths a change could touch: group paths, `all` paths and ignored ones.
fn mapped_path() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "kernels/softmax/softmax.cu",
        "kernels/softmax/sub/a.h",
        "kernels/moe/moe.cu",
        "kernels/gemm/gemm.cu",
        "kernels/common/util.h",
        "CMakeLists.txt",
        "vendor/ck",
        "README.md",
        "docs/guide.txt",
        "kernels/moe/NOTES.md",
    ])
    .prop_map(str::to_owned)
}

fn changes(paths: &[String]) -> Vec<Change> {
    paths
        .iter()
        .map(|p| Change {
            path: p.clone(),
            status: Status::Modified,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// An ignored file never changes what runs.
    #[test]
    fn adding_an_ignored_file_never_changes_the_selection(
        paths in prop::collection::vec(mapped_path(), 0..12),
        ignored in prop::sample::select(vec!["docs/new/page.html", "a/b/c/NOTES.md", "CHANGELOG.md"]),
    ) {
        let table = select_table();
        let before = decide(changes(&paths), &table);
        let mut more = paths.clone();
        more.push(ignored.to_owned());
        let after = decide(changes(&more), &table);
        prop_assert_eq!(after.kind, before.kind);
        prop_assert_eq!(after.groups, before.groups);
    }

    /// A file nobody mapped always runs everything, and is named.
    #[test]
    fn adding_an_unmapped_file_always_runs_everything(
        paths in prop::collection::vec(mapped_path(), 0..12),
        dir in "[a-z]{1,8}",
    ) {
        prop_assume!(!["kernels", "docs", "vendor"].contains(&dir.as_str()));
        let table = select_table();
        let mut more = paths.clone();
        let unmapped = format!("{dir}/new.py");
        more.push(unmapped.clone());
        let after = decide(changes(&more), &table);
        prop_assert_eq!(after.kind, Kind::All);
        prop_assert!(after.groups.is_empty());
        let first_all = more.iter().position(|p| p == "CMakeLists.txt" || p == "vendor/ck");
        if first_all.is_none() {
            prop_assert!(after.reason.starts_with(&unmapped), "{}", after.reason);
        }
    }
}
