//! The config in bench's manifest: `compare --manifest rounds.json` with
//! no `--config` judges by the config bench judged the rounds by, never by
//! what the path bench was given reads now. `--config /dev/stdin` or
//! `--config <(make-config)` is a pipe read once (by bench); read again by
//! compare it is compare's own stdin or an empty pipe, and a file may be
//! edited (or another commit checked out) between the two steps.

use std::path::Path;

use serde_json::Value;

use crate::pipeline::flydsl_repo_with;
use crate::support::harness::{Bin, Run};

/// A config under which the change (30% slower) passes: every row may
/// lose up to half its throughput.
const LENIENT: &str = "[[rules]]\nmatch = [\"op=*\"]\nfail-threshold = 50\n";

/// A config under which it fails by far: every row fails at 1% worse.
const STRICT: &str = "[[rules]]\nmatch = [\"op=*\"]\nfail-threshold = 1\n";

/// Where bench reads its config from.
#[derive(Clone, Copy)]
enum Given {
    /// `--config /dev/stdin`, the text on bench's standard input.
    Pipe,
    /// `--config bench.toml`, a file in the checkout.
    File,
    /// `--config bench.toml`, a file that is not there.
    Gone,
}

/// The seed's harness on a change 30% slower than its base (100 TFLOPS to
/// 70), benched in `rounds` paired rounds with `config` given as `given`
/// says: the checkout and bench's manifest.
fn benched(config: &str, given: Given, rounds: &str) -> (tempfile::TempDir, String) {
    let (root, run) = bench_run(config, given, rounds, "");
    run.assert_code(0);
    let manifest = run.outputs()["manifest"].clone();
    (root, manifest)
}

/// The run [`benched`] makes, its harness's command after `before` (a
/// shell command run first, on each side).
fn bench_run(config: &str, given: Given, rounds: &str, before: &str) -> (tempfile::TempDir, Run) {
    let (root, base) = flydsl_repo_with(&[("value", "100")], &[("value", "70")]);
    let dir = root.path();
    let file = dir.join("bench.toml");
    if let Given::File = given {
        std::fs::write(&file, config).unwrap();
    }
    let resolution = format!(r#"{{"label":"main","base_sha":"{base}","base_available":true}}"#);
    let command = format!("{before}./scripts/run_benchmark.sh --output_csv {{out}}");
    let bin = Bin::new()
        .on_runner()
        .env("GITHUB_WORKSPACE", dir)
        .env("RUNNER_TEMP", dir)
        .args(["bench", "--resolution", &resolution])
        .args(["--command", &command])
        .args(["--seed", "5", "--rounds", rounds, "--config"])
        .arg(match given {
            Given::Pipe => Path::new("/dev/stdin"),
            Given::File | Given::Gone => &file,
        })
        .arg("--out-dir")
        .arg(dir.join("results"));
    let run = match given {
        Given::Pipe => bin.stdin(config).run(),
        Given::File | Given::Gone => bin.run(),
    };
    (root, run)
}

/// `compare --manifest MANIFEST` with `extra`, `stdin` on its standard
/// input (none: nothing to read), as JSON.
fn compare(manifest: &str, extra: &[&str], stdin: Option<&str>) -> Run {
    let bin = Bin::new().args(["compare", "--format", "json", "--manifest", manifest]);
    let bin = bin.args(extra);
    match stdin {
        Some(text) => bin.stdin(text).run(),
        None => bin.run(),
    }
}

fn json(run: &Run) -> Value {
    serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("JSON on stdout ({e}): {}\n{}", run.stdout, run.stderr))
}

/// bench read its config from its stdin; compare given the manifest alone
/// gives the verdict of that config spelled out (`--config FILE`), with
/// nothing on its own stdin or another config there.
#[test]
fn a_config_bench_read_from_a_pipe_is_the_config_compare_judges_by() {
    let (root, manifest) = benched(LENIENT, Given::Pipe, "3");
    let file = root.path().join("lenient.toml");
    std::fs::write(&file, LENIENT).unwrap();
    let spelled = compare(&manifest, &["--config", file.to_str().unwrap()], None);
    spelled.assert_code(0);
    assert_eq!(json(&spelled)["verdict"], "pass", "{}", spelled.stdout);
    for stdin in [None, Some(""), Some(STRICT)] {
        let alone = compare(&manifest, &[], stdin);
        assert_eq!(alone.code, 0, "stdin {stdin:?}: {}", alone.stdout);
        assert_eq!(json(&alone), json(&spelled), "stdin {stdin:?}");
    }
}

/// One run per side (`--rounds 1`) judges nothing in bench, yet compare
/// judges its two files by bench's config: bench reads it (once) for the
/// manifest all the same.
#[test]
fn a_run_without_rounds_carries_the_config_from_a_pipe_too() {
    let (_root, manifest) = benched(LENIENT, Given::Pipe, "1");
    let alone = compare(&manifest, &[], Some(STRICT));
    assert_eq!(alone.code, 0, "{}", alone.stdout);
    assert_eq!(json(&alone)["verdict"], "pass", "{}", alone.stdout);
}

/// A config file changed after bench read it (edited, another commit
/// checked out, removed): compare judges by what bench read, and a
/// `--config` given to compare still wins.
#[test]
fn a_config_file_changed_after_bench_does_not_change_the_verdict() {
    let (root, manifest) = benched(LENIENT, Given::File, "3");
    let file = root.path().join("bench.toml");
    std::fs::write(&file, STRICT).unwrap();
    let alone = compare(&manifest, &[], None);
    assert_eq!(alone.code, 0, "{}", alone.stdout);
    assert_eq!(json(&alone)["verdict"], "pass", "{}", alone.stdout);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(json(&compare(&manifest, &[], None)), json(&alone));
    let strict = root.path().join("strict.toml");
    std::fs::write(&strict, STRICT).unwrap();
    let given = compare(&manifest, &["--config", strict.to_str().unwrap()], None);
    assert_eq!(given.code, 4, "{}", given.stdout);
}

/// A manifest an older bench wrote names the config's path and holds no
/// copy of it: a path that is not a regular file (a pipe, a device, gone)
/// is refused, naming the manifest and the path and saying to pass
/// `--config`; a regular file is read as it is now, with a warning that it
/// may not be the config bench judged by.
#[test]
fn an_older_manifest_without_the_config_is_refused_on_a_pipe_and_warned_on_a_file() {
    let (root, manifest) = benched(LENIENT, Given::Pipe, "3");
    let older = without_copy(Path::new(&manifest));
    let refused = compare(&manifest, &[], Some(LENIENT));
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    let dir = root.path().display().to_string();
    insta::assert_snapshot!(
        "older_manifest_config_on_a_pipe",
        refused.stderr.replace(&dir, "<root>")
    );
    assert!(!refused.stdout.contains("verdict"), "{}", refused.stdout);
    let file = root.path().join("lenient.toml");
    std::fs::write(&file, LENIENT).unwrap();
    let mut named = older;
    named["judged"]["config"] = Value::from(file.to_str().unwrap());
    std::fs::write(&manifest, named.to_string()).unwrap();
    let warned = compare(&manifest, &[], None);
    assert_eq!(warned.code, 0, "{}", warned.stderr);
    let report = json(&warned);
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("holds no copy of the config") && warnings.contains("lenient.toml"),
        "{report}"
    );
}

/// Removes bench's copy of the config from the manifest at `path`, as a
/// manifest an older bench wrote is; returns what is left.
fn without_copy(path: &Path) -> Value {
    let mut written: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let judged = written["judged"].as_object_mut().unwrap();
    assert!(judged.remove("config_text").is_some(), "{written}");
    std::fs::write(path, written.to_string()).unwrap();
    written
}

/// A config bench could not read as one, in a run that needed none (one
/// run per side, `keys = 3` on a pipe): the run goes on, its manifest
/// holds no copy, and compare refuses it instead of judging by whatever
/// the pipe's path gives compare (here a config under which it passes).
#[test]
fn a_config_bench_could_not_read_leaves_compare_refusing_not_guessing() {
    let (_root, manifest) = benched("keys = 3\n", Given::Pipe, "1");
    let refused = compare(&manifest, &[], Some(LENIENT));
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    for says in [
        "bench could not read it",
        "keys",
        "/dev/stdin",
        "pass --config",
    ] {
        assert!(refused.stderr.contains(says), "{says}: {}", refused.stderr);
    }
}

/// A config that is not there, in a run that needed none: bench goes on
/// but warns (the path and the error) where its other warnings go, the
/// manifest says why it holds no copy, and compare's refusal quotes it.
#[test]
fn a_config_bench_could_not_read_is_warned_and_its_reason_reaches_compare() {
    let (root, run) = bench_run("", Given::Gone, "1", "");
    run.assert_code(0);
    let warning = run
        .stdout
        .lines()
        .find(|l| l.starts_with("::warning") && l.contains("--config"))
        .unwrap_or_else(|| panic!("no warning: {}", run.stdout));
    assert!(warning.contains("bench.toml"), "{warning}");
    assert!(warning.contains("No such file"), "{warning}");
    let manifest = run.outputs()["manifest"].clone();
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let why = written["judged"]["config_error"]
        .as_str()
        .unwrap_or_default();
    assert!(
        why.contains("bench.toml") && why.contains("No such file"),
        "{written}"
    );
    let refused = compare(&manifest, &[], None);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(
        refused.stderr.contains("No such file"),
        "{}",
        refused.stderr
    );
    assert!(root.path().join("results").exists());
}

/// The config is read when the run starts, never after the harness ran:
/// a harness that rewrites it (here to a config the change fails by) does
/// not change what the manifest holds, so compare gives bench's verdict.
#[test]
fn a_config_the_harness_rewrites_is_not_what_the_manifest_holds() {
    let strict = "printf '[[rules]]\\nmatch = [\"op=*\"]\\nfail-threshold = 1\\n' > \"$GITHUB_WORKSPACE/bench.toml\" && ";
    let (_root, run) = bench_run(LENIENT, Given::File, "1", strict);
    run.assert_code(0);
    let manifest = run.outputs()["manifest"].clone();
    let written = std::fs::read_to_string(&manifest).unwrap();
    assert!(written.contains("fail-threshold = 50"), "{written}");
    let alone = compare(&manifest, &[], None);
    assert_eq!(alone.code, 0, "{}", alone.stdout);
    assert_eq!(json(&alone)["verdict"], "pass", "{}", alone.stdout);
}

/// An older manifest's config path is judged once resolved: one that
/// reaches `/dev` through `..` is refused as `/dev/stdin` is, one that is
/// gone cannot be read (the OS says why), and one that reads but is not a
/// config names the manifest as well as the config.
#[test]
fn an_older_manifests_config_path_is_checked_once_resolved() {
    let (root, manifest) = benched(LENIENT, Given::File, "3");
    let mut older = without_copy(Path::new(&manifest));
    let shm = Path::new("/dev/shm");
    let in_shm = shm.join(format!("resolver-{}.toml", std::process::id()));
    let through = format!("/tmp/..{}", in_shm.display());
    let bad = root.path().join("bad.toml");
    std::fs::write(&bad, "keys = 3\n").unwrap();
    let gone = root.path().join("gone.toml");
    let mut cases = vec![
        (gone.display().to_string(), "cannot be read (No such file"),
        (bad.display().to_string(), "bad.toml"),
    ];
    if shm.is_dir() {
        std::fs::write(&in_shm, LENIENT).unwrap();
        cases.push((through, "under /dev or /proc once resolved"));
    }
    for (config, says) in cases {
        older["judged"]["config"] = Value::from(config.as_str());
        std::fs::write(&manifest, older.to_string()).unwrap();
        let refused = compare(&manifest, &[], None);
        assert_eq!(refused.code, 1, "{config}: {}", refused.stdout);
        assert!(
            refused.stderr.contains(says),
            "{config}: {}",
            refused.stderr
        );
        assert!(
            refused.stderr.contains("rounds.json"),
            "{config}: {}",
            refused.stderr
        );
    }
    let _ = std::fs::remove_file(&in_shm);
}
