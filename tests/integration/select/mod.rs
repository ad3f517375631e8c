//! `select` on real git repositories built in the test: the files that
//! differ between the two benchmarked commits, mapped to groups, failing
//! safe to all. Each scenario of the issue: one kernel, two kernels, docs
//! only, a harness change, an unmapped file, renames inside and across
//! groups, a deletion, mode and submodule changes, a base behind main, more
//! files than max-files, an unknown base, and shallow clones of depth 1.
//! `downstream`: what a selection does in `compare` and at the edges;
//! `precedence`: an explicit claim beats an ignore.

mod downstream;
mod precedence;
mod snapshots;

use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::support::gitrepo::git;
use crate::support::harness::{Bin, Run};

/// The config the scenarios share: the motivating repository's layout.
pub const CONFIG: &str = r#"
[select]
all = ["CMakeLists.txt", "scripts/run_benchmark.sh", "vendor/**"]
ignore = ["**/*.md", "docs/**"]
max-files = 300

[[select.groups]]
name = "softmax"
paths = ["kernels/softmax/**"]
rows = ["op=softmax*"]

[[select.groups]]
name = "moe"
paths = ["kernels/moe/**", "kernels/common/**"]
rows = ["op=moe*"]

[[select.groups]]
name = "gemm"
paths = ["kernels/gemm/**", "kernels/common/**"]
rows = ["op=gemm*"]
"#;

/// A working repository with a first commit of the usual layout.
pub struct Work {
    pub dir: TempDir,
}

impl Work {
    pub fn new() -> Work {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        for (key, value) in [
            ("user.name", "bench"),
            ("user.email", "bench@example.com"),
            ("commit.gpgsign", "false"),
        ] {
            git(dir.path(), &["config", key, value]);
        }
        let work = Work { dir };
        for file in [
            "CMakeLists.txt",
            "README.md",
            "docs/guide.txt",
            "scripts/run_benchmark.sh",
            "kernels/softmax/softmax.cu",
            "kernels/moe/moe.cu",
            "kernels/gemm/gemm.cu",
            "kernels/common/util.h",
        ] {
            work.write(file, &format!("// {file}\nint version = 1;\n"));
        }
        work.commit("first");
        work
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, file: &str, text: &str) {
        let path = self.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Changes a file's content (its old lines stay, so a rename of it is
    /// still found as one).
    pub fn touch(&self, file: &str) {
        let path = self.path().join(file);
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str("int changed = 1;\n");
        self.write(file, &text);
    }

    pub fn git(&self, args: &[&str]) -> String {
        git(self.path(), args)
    }

    /// Commits everything and returns the commit's SHA.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }
}

/// `select --format json` of `base..head` in `repo`, with `CONFIG`.
pub fn select(repo: &Path, base: &str, head: &str) -> (Run, Value) {
    select_with(repo, base, head, CONFIG)
}

pub fn select_with(repo: &Path, base: &str, head: &str, config: &str) -> (Run, Value) {
    select_bin(Bin::new(), config, repo, base, head).json()
}

/// `bin` running `select` of `base..head` in `repo` with `config` (written
/// to the scratch dir as `bench.toml`).
pub fn select_bin(bin: Bin, config: &str, repo: &Path, base: &str, head: &str) -> Bin {
    let file = config_file(bin.dir(), config);
    bin.arg("select")
        .arg("--config")
        .arg(file)
        .args(["--base", base, "--head", head])
        .arg("--repo")
        .arg(repo)
}

pub fn config_file(dir: &Path, config: &str) -> PathBuf {
    let file = dir.join("bench.toml");
    std::fs::write(&file, config).unwrap();
    file
}

/// `(selection, groups joined, changed_files)`.
fn answer(v: &Value) -> (String, String, u64) {
    let names: Vec<&str> = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect();
    (
        v["selection"].as_str().unwrap().to_owned(),
        names.join(","),
        v["changed_files"].as_u64().unwrap(),
    )
}

/// Each path listed, with its status and what it matched.
fn files(v: &Value) -> Vec<(String, String, String)> {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
                f["matched"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn reason(v: &Value) -> &str {
    v["reason"].as_str().unwrap()
}

#[test]
fn one_kernel_selects_its_group() {
    let w = Work::new();
    let base = w.head();
    w.touch("kernels/softmax/softmax.cu");
    let head = w.commit("softmax faster");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("some".into(), "softmax".into(), 1));
    assert_eq!(
        files(&v),
        [(
            "kernels/softmax/softmax.cu".into(),
            "modified".into(),
            "group".into()
        )]
    );
}

#[test]
fn two_kernels_select_two_groups_in_config_order() {
    let w = Work::new();
    let base = w.head();
    w.touch("kernels/gemm/gemm.cu");
    w.touch("kernels/softmax/softmax.cu");
    w.touch("README.md");
    let head = w.commit("two kernels and the readme");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("some".into(), "softmax,gemm".into(), 3));
    // A shared header belongs to two groups.
    let base = w.head();
    w.touch("kernels/common/util.h");
    let head = w.commit("common");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("some".into(), "moe,gemm".into(), 1));
}

#[test]
fn docs_only_select_nothing_with_a_notice_on_a_runner() {
    let w = Work::new();
    let base = w.head();
    w.touch("README.md");
    w.touch("docs/guide.txt");
    w.write("docs/kernels/NOTES.md", "notes\n");
    let head = w.commit("docs");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("none".into(), String::new(), 3));
    assert_eq!(
        reason(&v),
        "all 3 changed files are ignored: nothing to benchmark"
    );

    let run = select_bin(Bin::new().on_runner(), CONFIG, w.path(), &base, &head).run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["selection"], "none");
    assert_eq!(out["groups"], "");
    assert_eq!(out["changed-files"], "3");
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("::notice title=No benchmark to run::all 3 changed files")),
        "{}",
        run.stdout
    );
    assert!(
        run.summary.contains("### Benchmark selection: none"),
        "{}",
        run.summary
    );
}

#[test]
fn a_harness_or_build_change_runs_everything_and_says_which_file() {
    let w = Work::new();
    let base = w.head();
    w.touch("kernels/softmax/softmax.cu");
    w.touch("scripts/run_benchmark.sh");
    let head = w.commit("harness");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("all".into(), String::new(), 2));
    assert_eq!(
        reason(&v),
        "scripts/run_benchmark.sh matches all (scripts/run_benchmark.sh): everything runs"
    );
}

#[test]
fn a_file_nobody_mapped_runs_everything_and_is_named() {
    let w = Work::new();
    let base = w.head();
    w.touch("kernels/softmax/softmax.cu");
    w.write("python/flydsl/new_pass.py", "x = 1\n");
    let head = w.commit("a new directory");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v).0, "all");
    assert_eq!(
        reason(&v),
        "python/flydsl/new_pass.py matches no group and no all or ignore pattern: everything runs"
    );
    let listed = files(&v);
    assert!(listed.contains(&(
        "python/flydsl/new_pass.py".into(),
        "added".into(),
        "unmapped".into()
    )));
}

#[test]
fn a_rename_counts_its_old_and_its_new_path() {
    let w = Work::new();
    let base = w.head();
    w.git(&[
        "mv",
        "kernels/softmax/softmax.cu",
        "kernels/softmax/online_softmax.cu",
    ]);
    let head = w.commit("rename inside the group");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("some".into(), "softmax".into(), 2));
    assert!(files(&v).iter().all(|(_, status, _)| status == "renamed"));

    let base = w.head();
    w.git(&[
        "mv",
        "kernels/softmax/online_softmax.cu",
        "kernels/moe/softmax_gate.cu",
    ]);
    let head = w.commit("rename across groups");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("some".into(), "softmax,moe".into(), 2));
    let paths: Vec<String> = files(&v).into_iter().map(|f| f.0).collect();
    assert_eq!(
        paths,
        [
            "kernels/softmax/online_softmax.cu",
            "kernels/moe/softmax_gate.cu"
        ]
    );

    // Moved and edited: found by similarity, as git finds it.
    let body: String = (0..40).map(|i| format!("int line{i} = {i};\n")).collect();
    w.write("kernels/gemm/tile.cu", &body);
    let base = w.commit("a gemm tile");
    std::fs::remove_file(w.path().join("kernels/gemm/tile.cu")).unwrap();
    w.write(
        "kernels/common/tile.cu",
        &body.replace("line7 = 7", "line7 = 8"),
    );
    let head = w.commit("moved and edited");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("some".into(), "moe,gemm".into(), 2));
    assert_eq!(
        files(&v),
        [
            (
                "kernels/gemm/tile.cu".into(),
                "renamed".into(),
                "group".into()
            ),
            (
                "kernels/common/tile.cu".into(),
                "renamed".into(),
                "group".into()
            ),
        ]
    );
}

#[test]
fn deletions_mode_changes_and_submodule_pointers_count() {
    let w = Work::new();
    let base = w.head();
    w.git(&["rm", "-q", "kernels/gemm/gemm.cu"]);
    let head = w.commit("delete");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("some".into(), "gemm".into(), 1));
    assert_eq!(files(&v)[0].1, "deleted");

    let base = w.head();
    w.git(&["update-index", "--chmod=+x", "kernels/moe/moe.cu"]);
    w.git(&["commit", "-q", "-m", "mode"]);
    let (_, v) = select(w.path(), &base, &w.head());
    assert_eq!(
        answer(&v),
        ("some".into(), "moe".into(), 1),
        "a mode change"
    );

    // A submodule is a gitlink in the tree: its pointer moving is a change.
    let pointer = |sha: &str| {
        w.git(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{sha},vendor/ck"),
        ]);
        w.git(&["commit", "-q", "-m", "submodule"]);
        w.head()
    };
    let first = pointer(&base);
    let second = pointer(&first);
    let (_, v) = select(w.path(), &first, &second);
    assert_eq!(answer(&v), ("all".into(), String::new(), 1));
    assert_eq!(
        reason(&v),
        "vendor/ck matches all (vendor/**): everything runs"
    );
}

/// The resolved base is main's tip, which moved on after the branch point:
/// main's own change differs between the two benchmarked trees too.
#[test]
fn a_base_ahead_of_the_branch_point_selects_mains_changes_too() {
    let w = Work::new();
    let branch_point = w.head();
    w.touch("kernels/gemm/gemm.cu");
    let main_tip = w.commit("main: gemm");
    w.git(&["checkout", "-q", "-b", "feature", &branch_point]);
    w.touch("kernels/softmax/softmax.cu");
    let head = w.commit("feature: softmax");
    let (_, v) = select(w.path(), &main_tip, &head);
    assert_eq!(answer(&v), ("some".into(), "softmax,gemm".into(), 2));
    // The merge commit a pull_request run checks out differs from main's tip
    // by the pull request's own change only.
    w.git(&["checkout", "-q", "main"]);
    w.git(&["merge", "-q", "--no-ff", "-m", "merge", "feature"]);
    let (_, v) = select(w.path(), &main_tip, &w.head());
    assert_eq!(answer(&v), ("some".into(), "softmax".into(), 1));
}

#[test]
fn more_changed_files_than_max_files_runs_everything() {
    let w = Work::new();
    let base = w.head();
    for i in 0..400 {
        w.write(
            &format!("kernels/softmax/gen/k{i:03}.cu"),
            &format!("int k{i};\n"),
        );
    }
    let head = w.commit("400 files");
    let (_, v) = select(w.path(), &base, &head);
    assert_eq!(answer(&v), ("all".into(), String::new(), 400));
    assert_eq!(
        reason(&v),
        "400 changed files, more than max-files (300): everything runs"
    );
}

#[test]
fn the_same_commit_twice_selects_nothing() {
    let w = Work::new();
    let (_, v) = select(w.path(), &w.head(), &w.head());
    assert_eq!(answer(&v), ("none".into(), String::new(), 0));
}

#[test]
fn an_unknown_base_is_all_with_a_warning_naming_it() {
    let w = Work::new();
    let unknown = "0123456789abcdef0123456789abcdef01234567";
    let bin = Bin::new();
    let config = config_file(bin.dir(), CONFIG);
    let run = bin
        .on_runner()
        .arg("select")
        .arg("--config")
        .arg(config)
        .args(["--base", unknown, "--head", &w.head()])
        .arg("--repo")
        .arg(w.path())
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["selection"], "all");
    let warning = run
        .stdout
        .lines()
        .find(|l| l.starts_with("::warning title=Benchmark selection%3A all::"))
        .unwrap_or_else(|| panic!("a warning: {}", run.stdout));
    assert!(
        warning.contains(&format!("commit {unknown} is not in")),
        "{warning}"
    );
    assert!(run.outputs()["reason"].contains(unknown));
}

/// Both commits fetched at depth 1, as `actions/checkout` and `resolve
/// --fetch` leave them: a tree diff needs no history.
#[test]
fn a_shallow_clone_of_both_commits_is_enough() {
    let w = Work::new();
    let base = w.head();
    for i in 0..5 {
        w.write(&format!("kernels/gemm/step{i}.cu"), "int x;\n");
        w.commit("history in between");
    }
    w.touch("kernels/moe/moe.cu");
    let head = w.commit("moe");
    w.git(&["config", "uploadpack.allowAnySHA1InWant", "true"]);
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", w.path().display());
    git(clone.path(), &["clone", "-q", "--depth", "1", &url, "c"]);
    let c = clone.path().join("c");
    // Only the head so far: the base's tree is missing, so everything runs.
    let (_, v) = select(&c, &base, &head);
    assert_eq!(answer(&v).0, "all");
    assert!(
        reason(&v).contains(&format!("commit {base} is not in")),
        "{}",
        reason(&v)
    );
    git(&c, &["fetch", "-q", "--depth", "1", "origin", &base]);
    assert_eq!(git(&c, &["rev-parse", "--is-shallow-repository"]), "true");
    let (_, v) = select(&c, &base, &head);
    assert_eq!(answer(&v), ("some".into(), "moe,gemm".into(), 6));
}

/// `--resolution` (resolve's JSON) gives the base and head; `GITHUB_SHA`
/// is the head when it names none.
#[test]
fn the_resolution_and_github_sha_give_the_commits() {
    let w = Work::new();
    let base = w.head();
    w.touch("kernels/moe/moe.cu");
    let head = w.commit("moe");
    let resolution = format!(r#"{{"label":"main","base_sha":"{base}","head_sha":"{head}"}}"#);
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(dir.path(), CONFIG);
    let (_, v) = Bin::new()
        .arg("select")
        .arg("--config")
        .arg(&config)
        .args(["--resolution", &resolution])
        .arg("--repo")
        .arg(w.path())
        .json();
    assert_eq!(answer(&v), ("some".into(), "moe".into(), 1));
    assert_eq!(v["head"], head.as_str());

    let no_head = format!(r#"{{"label":"main","base_sha":"{base}"}}"#);
    let (_, v) = Bin::new()
        .arg("select")
        .arg("--config")
        .arg(&config)
        .args(["--resolution", &no_head])
        .arg("--repo")
        .arg(w.path())
        .env("GITHUB_SHA", &head)
        .json();
    assert_eq!(answer(&v), ("some".into(), "moe".into(), 1));

    // A resolution without a baseline: everything, with the reason.
    let none = r#"{"label":"main","base_sha":null,"skip":true}"#;
    let (_, v) = Bin::new()
        .arg("select")
        .arg("--config")
        .arg(&config)
        .args(["--resolution", none, "--head", &head])
        .arg("--repo")
        .arg(w.path())
        .json();
    assert_eq!(answer(&v).0, "all");
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("no base commit")
    );
}

#[test]
fn bad_input_names_what_and_where() {
    let w = Work::new();
    let head = w.head();
    let bin = Bin::new();
    let config = config_file(
        bin.dir(),
        "[select]\nall = [\"CMakeLists.txt\"]\n[[select.groups]]\nname = \"softmax\"\npath = [\"kernels/**\"]\n",
    );
    let run = bin
        .arg("select")
        .arg("--config")
        .arg(&config)
        .args(["--base", &head, "--head", &head])
        .run();
    run.assert_code(1);
    assert!(run.stderr.contains("bench.toml"), "{}", run.stderr);
    assert!(run.stderr.contains("line 5"), "{}", run.stderr);

    let run = Bin::new()
        .arg("select")
        .args(["--config", "bench.toml", "--base=-main", "--head", &head])
        .run();
    run.assert_code(2);
    assert!(run.stderr.contains("--base"), "{}", run.stderr);
    assert!(run.stderr.contains("not a revision"), "{}", run.stderr);

    let run = Bin::new()
        .arg("select")
        .args(["--config", "bench.toml", "--head", &head])
        .run();
    run.assert_code(2);
    assert!(run.stderr.contains("no base commit"), "{}", run.stderr);

    let bin = Bin::new();
    let config = config_file(bin.dir(), "keys = [\"op\"]\n");
    let run = bin
        .arg("select")
        .arg("--config")
        .arg(&config)
        .args(["--base", &head, "--head", &head])
        .run();
    run.assert_code(1);
    assert!(run.stderr.contains("no [select] table"), "{}", run.stderr);
}
