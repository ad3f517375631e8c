//! Issue 46: `bench` against a stranger's values and files. What a
//! selection, a resolution or a harness writes must not become an option
//! of the harness, block the step, outlive it, or steer a write outside
//! the workspace.

use std::path::Path;

use crate::bench::{Project, quiet};

/// Nothing ran: neither side's CSV exists and no worktree was made.
fn nothing_ran(p: &Project) {
    let results = p.root.path().join("results");
    assert!(
        !results.join("current.csv").exists(),
        "the current side ran"
    );
    assert!(!results.join("baseline.csv").exists(), "the baseline ran");
    assert_eq!(p.worktrees(), 1);
}

#[test]
fn a_value_that_would_be_an_option_is_refused_and_nothing_runs() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let elsewhere = p.root.path().join("elsewhere.csv");
    let group = format!(
        r#"{{"selection":"some","groups":["--output_csv={}"]}}"#,
        elsewhere.display()
    );
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--selection", &group])
        .run();
    run.assert_code(1);
    assert!(
        run.stderr.contains("--output_csv=") && run.stderr.contains("not starting with -"),
        "{}",
        run.stderr
    );
    nothing_ran(&p);
    assert!(!elsewhere.exists());

    // The tag under --tag, and a label, are values too.
    let tagged = format!(
        r#"{{"label":"main","base_sha":"{b}","base_available":true,"tag":"--index-url=https://evil.example/simple","tag_sha":"{b}"}}"#,
        b = p.base
    );
    let run = p.bench(&tagged).arg("--tag").run();
    run.assert_code(1);
    assert!(
        run.stderr.contains("the resolution's tag") && run.stderr.contains("--index-url"),
        "{}",
        run.stderr
    );
    nothing_ran(&p);
    let labelled = format!(
        r#"{{"label":"-rf","base_sha":"{}","base_available":true}}"#,
        p.base
    );
    let run = p.bench(&labelled).run();
    run.assert_code(1);
    assert!(run.stderr.contains("\"-rf\""), "{}", run.stderr);
    nothing_ran(&p);
}

#[test]
fn with_a_config_a_group_it_does_not_declare_is_refused() {
    let p = Project::new(&quiet("100", "gemm softmax"), &quiet("90", "gemm softmax"));
    let config = p.root.path().join("bench.toml");
    std::fs::write(
        &config,
        crate::select::CONFIG.replace("name = \"moe\"", "name = \"moe2\""),
    )
    .unwrap();
    let run = p
        .bench(&p.resolution(&p.base))
        .args([
            "--selection",
            r#"{"selection":"some","groups":["gemm","rmsnorm"]}"#,
        ])
        .arg("--config")
        .arg(&config)
        .run();
    run.assert_code(1);
    assert!(
        run.stderr.contains("\"rmsnorm\"") && run.stderr.contains("softmax, moe2, gemm"),
        "{}",
        run.stderr
    );
    nothing_ran(&p);
    let run = p
        .bench(&p.resolution(&p.base))
        .args([
            "--selection",
            r#"{"selection":"some","groups":["gemm","softmax"]}"#,
        ])
        .env("INPUT_CONFIG", &config)
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["current-rows"], "2");
    assert!(Path::new(&run.outputs()["baseline"]).exists());
}

#[test]
fn a_fifo_at_out_or_as_the_downloaded_result_never_blocks_the_step() {
    use std::time::{Duration, Instant};
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let start = Instant::now();
    let run = p
        .bench_with(&p.resolution(&p.base), "mkfifo {out}; exit 0")
        .args(["--side", "current"])
        .timeout(Duration::from_secs(30))
        .run();
    run.assert_code(0);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(run.outputs()["current-rows"], "0");
    assert!(
        run.stdout
            .contains("{out} is a FIFO, not a regular file: removed"),
        "{}",
        run.stdout
    );
    let out = p.root.path().join("results/current.csv");
    assert!(std::fs::symlink_metadata(&out).is_err(), "the FIFO is gone");

    let bin = p.bench(&p.resolution(&p.base));
    let fifo = bin.dir().join("main-results.csv");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let start = Instant::now();
    let run = bin
        .arg("--baseline-result")
        .arg(&fifo)
        .timeout(Duration::from_secs(30))
        .run();
    run.assert_code(0);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(run.outputs()["baseline-source"], "ran");
    assert!(
        run.stdout
            .contains("is a FIFO, not a regular file: the baseline runs"),
        "{}",
        run.stdout
    );
}
