//! Issue 27: an explicit claim beats an ignore. On real repositories built
//! in the test: the harness listed in `all` and covered by an ignore, a
//! test file a group names and an ignore covers, a Markdown file inside a
//! group's directory; the config's own shadowing said, and `--check`. Then
//! the precedence's properties on generated configs.

use baseline_resolver::config::load::parse;
use baseline_resolver::select::changes::{Change, Status};
use baseline_resolver::select::decide::{Kind, Matched, decide};
use proptest::prelude::*;
use serde_json::Value;

use crate::select::{Work, config_file, select_with};
use crate::support::harness::Bin;

/// The config of the issue: a broad ignore for housekeeping and specific
/// claims for what matters, as maintainers write them.
const MAINTAINERS: &str = r#"
[select]
all = ["scripts/run_benchmark.sh"]
ignore = ["scripts/*.sh", "tests/kernels/test_*.py", "**/*.md"]

[[select.groups]]
name = "norm"
paths = ["kernels/norm/**", "tests/kernels/test_rmsnorm.py"]
rows = ["op=rmsnorm*", "op=layernorm*"]

[[select.groups]]
name = "softmax"
paths = ["kernels/softmax/**"]
rows = ["op=softmax*"]
"#;

fn repo() -> Work {
    let w = Work::new();
    for file in [
        "scripts/lint.sh",
        "tests/kernels/test_rmsnorm.py",
        "tests/kernels/test_gemm.py",
        "kernels/norm/norm.cu",
        "kernels/norm/README.md",
    ] {
        w.write(file, &format!("# {file}\n"));
    }
    w.commit("layout");
    w
}

fn kind_groups(v: &Value) -> (String, Vec<String>) {
    let groups = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap().to_owned())
        .collect();
    (v["selection"].as_str().unwrap().to_owned(), groups)
}

fn matched_by(v: &Value, path: &str) -> (String, String) {
    let f = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path} in {v}"));
    (
        f["matched"].as_str().unwrap().to_owned(),
        f["by"].as_str().unwrap_or("").to_owned(),
    )
}

#[test]
fn the_harness_in_all_runs_everything_though_an_ignore_covers_it() {
    let w = repo();
    let base = w.head();
    w.touch("scripts/run_benchmark.sh");
    w.touch("scripts/lint.sh");
    let head = w.commit("harness");
    let (_, v) = select_with(w.path(), &base, &head, MAINTAINERS);
    assert_eq!(kind_groups(&v).0, "all", "{v}");
    assert_eq!(
        matched_by(&v, "scripts/run_benchmark.sh"),
        ("all".into(), "scripts/run_benchmark.sh".into())
    );
    assert_eq!(
        matched_by(&v, "scripts/lint.sh"),
        ("ignore".into(), "scripts/*.sh".into())
    );
}

#[test]
fn a_test_file_a_group_names_selects_it_though_an_ignore_covers_it() {
    let w = repo();
    let base = w.head();
    w.touch("tests/kernels/test_rmsnorm.py");
    w.touch("tests/kernels/test_gemm.py");
    let head = w.commit("tests");
    let (_, v) = select_with(w.path(), &base, &head, MAINTAINERS);
    assert_eq!(kind_groups(&v), ("some".into(), vec!["norm".into()]), "{v}");
    assert_eq!(
        matched_by(&v, "tests/kernels/test_rmsnorm.py"),
        ("group".into(), "norm".into())
    );
    assert_eq!(
        matched_by(&v, "tests/kernels/test_gemm.py").0,
        "ignore",
        "no claim: the ignore decides"
    );
}

/// A group's glob claims every file below it, Markdown too: the group
/// runs. docs/select.md says how to leave such files out (a narrower
/// glob), tried here as well.
#[test]
fn a_markdown_file_inside_a_groups_directory_runs_the_group() {
    let w = repo();
    let base = w.head();
    w.touch("kernels/norm/README.md");
    let head = w.commit("notes");
    let (_, v) = select_with(w.path(), &base, &head, MAINTAINERS);
    assert_eq!(kind_groups(&v), ("some".into(), vec!["norm".into()]), "{v}");
    let narrower = MAINTAINERS.replace("\"kernels/norm/**\"", "\"kernels/norm/**/*.cu\"");
    let (_, v) = select_with(w.path(), &base, &head, &narrower);
    assert_eq!(kind_groups(&v), ("none".into(), vec![]), "{v}");
}

#[test]
fn a_config_that_shadows_itself_is_said_once_per_pair() {
    let w = repo();
    let base = w.head();
    w.touch("kernels/softmax/softmax.cu");
    let head = w.commit("softmax");
    let (_, v) = select_with(w.path(), &base, &head, MAINTAINERS);
    assert_eq!(kind_groups(&v), ("some".into(), vec!["softmax".into()]));
    let pairs: Vec<(String, String, String)> = v["shadows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["ignore"].as_str().unwrap().to_owned(),
                s["claim"].as_str().unwrap().to_owned(),
                s["by"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("**/*.md".into(), "kernels/norm/**".into(), "norm".into()),
            (
                "scripts/*.sh".into(),
                "scripts/run_benchmark.sh".into(),
                "all".into()
            ),
            (
                "tests/kernels/test_*.py".into(),
                "tests/kernels/test_rmsnorm.py".into(),
                "norm".into()
            ),
        ],
        "tree order, one per pair: {v}"
    );
}

#[test]
fn check_says_a_shadowing_config_alone_and_needs_no_base() {
    let w = repo();
    w.touch("kernels/softmax/softmax.cu");
    let head = w.commit("softmax");
    let bin = Bin::new().on_runner();
    let config = config_file(bin.dir(), MAINTAINERS);
    let run = bin
        .arg("select")
        .arg("--check")
        .arg("--config")
        .arg(&config)
        .arg("--repo")
        .arg(w.path())
        .run();
    run.assert_code(0);
    let warnings: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("::warning title=The select config shadows itself::"))
        .collect();
    assert_eq!(warnings.len(), 3, "{}", run.stdout);
    assert!(
        warnings.iter().any(|l| l.contains(
            "ignore pattern \"scripts/*.sh\" also matches scripts/run_benchmark.sh, which all claims"
        )),
        "{warnings:?}"
    );
    assert_eq!(run.outputs()["selection"], "check");
    // --check needs no base, and takes HEAD as the head.
    let (_, v) = {
        let bin = Bin::new();
        let config = config_file(
            bin.dir(),
            "[select]\nignore = [\"docs/**\"]\n[[select.groups]]\nname = \"a\"\npaths = [\"kernels/**\"]\n",
        );
        let run = bin
            .arg("select")
            .arg("--check")
            .arg("--config")
            .arg(&config)
            .arg("--repo")
            .arg(w.path())
            .args(["--format", "json"])
            .run();
        let v: Value = serde_json::from_str(run.stdout.trim()).unwrap();
        (run, v)
    };
    assert_eq!(
        v["shadows"],
        serde_json::json!([]),
        "no overlap, no warning"
    );
    assert_eq!(v["head"], head.as_str());
}

#[test]
fn base_and_head_accept_any_revision_and_say_the_sha_used() {
    let w = repo();
    let base = w.head();
    w.touch("kernels/softmax/softmax.cu");
    let head = w.commit("softmax");
    let (_, v) = select_with(w.path(), "HEAD~1", "main", MAINTAINERS);
    assert_eq!(
        (v["base"].as_str(), v["head"].as_str()),
        (Some(base.as_str()), Some(head.as_str()))
    );
    assert_eq!(kind_groups(&v).0, "some");
    let (_, v) = select_with(w.path(), "no-such-branch", "HEAD", MAINTAINERS);
    assert_eq!(kind_groups(&v).0, "all", "an unknown revision fails safe");
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("\"no-such-branch\" names no commit"),
        "{v}"
    );
}

/// A config of the given lists, as TOML.
fn config(all: &[&str], ignore: &[&str], groups: &[Vec<&str>]) -> String {
    let list = |l: &[&str]| {
        l.iter()
            .map(|p| format!("{p:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!(
        "[select]\nall = [{}]\nignore = [{}]\n",
        list(all),
        list(ignore)
    );
    for (i, paths) in groups.iter().enumerate() {
        text.push_str(&format!(
            "[[select.groups]]\nname = \"g{i}\"\npaths = [{}]\n",
            list(paths)
        ));
    }
    text
}

const PATTERNS: &[&str] = &[
    "**/*.md",
    "**/*.py",
    "docs/**",
    "scripts/*.sh",
    "scripts/run.sh",
    "k/a/**",
    "k/b/**",
    "k/*/common.h",
    "k/a/*.md",
    "tests/test_*.py",
    "tests/test_a.py",
    "**/BUILD",
    "CMakeLists.txt",
];

const PATHS: &[&str] = &[
    "README.md",
    "docs/x.md",
    "docs/y.txt",
    "scripts/run.sh",
    "scripts/lint.sh",
    "k/a/x.cu",
    "k/a/NOTES.md",
    "k/b/common.h",
    "k/a/common.h",
    "tests/test_a.py",
    "tests/test_b.py",
    "k/b/BUILD",
    "CMakeLists.txt",
    "other/file.c",
];

fn patterns(max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(PATTERNS), 0..max)
}

/// A group's paths: at least one pattern (the config requires it).
fn group(max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(PATTERNS), 1..max)
}

fn run(text: &str, paths: &[&str]) -> (Kind, Vec<String>, Vec<Matched>) {
    let select = parse(text).unwrap().select.unwrap();
    let changes = paths
        .iter()
        .map(|p| Change {
            path: (*p).to_owned(),
            status: Status::Modified,
        })
        .collect();
    let s = decide(changes, &select);
    (
        s.kind,
        s.groups,
        s.files.into_iter().map(|f| f.matched).collect(),
    )
}

fn claimed(m: &Matched) -> bool {
    matches!(m, Matched::All(_) | Matched::Groups(_))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Adding an ignore pattern never removes a group from, nor turns
    /// `all` into less for, a path that `all` or a group claims.
    #[test]
    fn an_ignore_never_takes_a_claimed_path(
        all in patterns(3), ignore in patterns(3),
        groups in prop::collection::vec(group(3), 0..4),
        extra in prop::sample::select(PATTERNS),
        paths in prop::collection::vec(prop::sample::select(PATHS), 1..8),
    ) {
        let before = run(&config(&all, &ignore, &groups), &paths);
        let mut more = ignore.clone();
        more.push(extra);
        let after = run(&config(&all, &more, &groups), &paths);
        for (b, a) in before.2.iter().zip(&after.2) {
            if claimed(b) {
                prop_assert_eq!(a, b);
            }
        }
        if before.2.iter().any(|m| matches!(m, Matched::All(_))) {
            prop_assert_eq!(after.0, Kind::All);
        }
        for g in &before.1 {
            let claimed_by_g = before.2.iter().any(|m| matches!(m, Matched::Groups(gs) if gs.contains(g)));
            if claimed_by_g {
                prop_assert!(after.0 == Kind::All || after.1.contains(g));
            }
        }
    }

    /// Adding a group or an `all` pattern never turns `all` into fewer
    /// groups: a path `all` claims still runs everything, and every group
    /// that ran still runs (a path nobody mapped that the new claim maps
    /// runs only what claims it, as it should).
    #[test]
    fn a_new_claim_never_narrows_all(
        all in patterns(3), ignore in patterns(3),
        groups in prop::collection::vec(group(3), 0..4),
        extra in prop::sample::select(PATTERNS),
        as_group in any::<bool>(),
        paths in prop::collection::vec(prop::sample::select(PATHS), 1..8),
    ) {
        let before = run(&config(&all, &ignore, &groups), &paths);
        let (mut all2, mut groups2) = (all.clone(), groups.clone());
        if as_group { groups2.push(vec![extra]) } else { all2.push(extra) }
        let after = run(&config(&all2, &ignore, &groups2), &paths);
        if before.2.iter().any(|m| matches!(m, Matched::All(_))) {
            prop_assert_eq!(after.0, Kind::All);
        }
        if after.0 != Kind::All {
            for g in &before.1 {
                prop_assert!(after.1.contains(g), "{} dropped: {:?}", g, after.1);
            }
        }
    }

    /// The order of the patterns inside each list never changes the selection.
    #[test]
    fn the_order_of_patterns_never_matters(
        all in patterns(4), ignore in patterns(4),
        groups in prop::collection::vec(group(4), 0..4),
        paths in prop::collection::vec(prop::sample::select(PATHS), 1..8),
    ) {
        let before = run(&config(&all, &ignore, &groups), &paths);
        let rev = |l: &[&'static str]| l.iter().rev().copied().collect::<Vec<_>>();
        let rotated: Vec<Vec<&str>> = groups.iter().map(|g| rev(g)).collect();
        let after = run(&config(&rev(&all), &rev(&ignore), &rotated), &paths);
        prop_assert_eq!((before.0, before.1), (after.0, after.1));
    }
}
