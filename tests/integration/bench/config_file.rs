//! `--config` read once a run: the steps of a run that need it (the
//! `--fail-threshold` check, the selection's groups, the paired rounds'
//! judging) see one config, even where a second read would differ.

use std::path::Path;

use super::rounds::{BaseAndHead, GROUPS_CONFIG, json_of};

/// A config on a pipe (`--config <(make-config)`, `--config /dev/stdin`)
/// can be read only once: bench reads `--config` once a run, so the
/// selection's groups are checked against the very config the rounds are
/// judged by, and only the noisy group's rows run again, as with a file.
#[test]
fn a_config_on_a_pipe_is_read_once_and_judges_the_rounds_as_a_file_would() {
    let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "quiet noisy");
    let file = project.root.path().join("config.toml");
    std::fs::write(&file, GROUPS_CONFIG).unwrap();
    let selection = r#"{"selection":"some","groups":["quiet","noisy"]}"#;
    for config in [file.as_path(), Path::new("/dev/stdin")] {
        let run = project
            .bench()
            .args(["--rounds", "3", "--max-rounds", "6", "--seed", "5"])
            .args(["--selection", selection, "--format", "json"])
            .arg("--config")
            .arg(config)
            .stdin(GROUPS_CONFIG)
            .run();
        run.assert_code(0);
        let rounds = &json_of(&run)["rounds"];
        let said = format!("--config {}: {rounds}", config.display());
        assert_eq!(rounds["ran"], 6, "{said}");
        assert_eq!(rounds["groups"][4], serde_json::json!(["noisy"]), "{said}");
        assert_eq!(rounds["by_group"][0]["group"], "quiet", "{said}");
        assert_eq!(rounds["by_group"][0]["rounds"], 3, "{said}");
        assert_eq!(rounds["by_group"][1]["rounds"], 6, "{said}");
    }
}

/// Read when a step first needs it, not before: a config that cannot be
/// parsed stops a run of paired rounds (exit 1, naming the file, before
/// anything runs) but not one run per side that never judges a row.
#[test]
fn a_bad_config_stops_only_a_run_that_needs_it() {
    let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "gemm");
    let bad = project.root.path().join("bad.toml");
    std::fs::write(&bad, "keys = 3\n").unwrap();
    let run = project.bench().arg("--config").arg(&bad).run();
    run.assert_code(1);
    assert!(run.stderr.contains("bad.toml"), "{}", run.stderr);
    assert!(!project.root.path().join("results").exists(), "nothing ran");
    let once = project
        .bench()
        .args(["--rounds", "1", "--format", "json"])
        .arg("--config")
        .arg(&bad)
        .run();
    once.assert_code(0);
    assert_eq!(json_of(&once)["current"]["status"], "ok", "{}", once.stdout);
}

/// `--config /dev/stdin` with nothing on stdin (or `<(make-config)` whose
/// writer failed) is no config of defaults: bench refuses it, naming the
/// path and saying it gave no bytes, before anything runs; a run that
/// needs no config (one run per side) goes on with that as a warning.
#[test]
fn a_config_on_a_pipe_that_gives_no_bytes_is_refused() {
    let project = BaseAndHead::new(("100", "ok"), ("100", "ok"), "gemm");
    let run = project
        .bench()
        .args(["--rounds", "3", "--config", "/dev/stdin"])
        .stdin("")
        .run();
    run.assert_code(1);
    assert!(run.stderr.contains("/dev/stdin"), "{}", run.stderr);
    assert!(run.stderr.contains("gave no bytes"), "{}", run.stderr);
    assert!(!project.root.path().join("results").exists(), "nothing ran");
    let once = project
        .bench()
        .args(["--rounds", "1", "--config", "/dev/stdin"])
        .stdin("")
        .run();
    once.assert_code(0);
    let warning = once
        .stdout
        .lines()
        .find(|l| l.contains("warning: --config"));
    let warning = warning.unwrap_or_else(|| panic!("no warning: {}", once.stdout));
    assert!(
        warning.contains("/dev/stdin") && warning.contains("gave no bytes"),
        "{warning}"
    );
}
