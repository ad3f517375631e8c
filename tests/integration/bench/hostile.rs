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

/// The processes whose working directory is under `dir`: what a harness
/// run there left running.
fn left_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| std::fs::read_link(e.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir)))
        .filter_map(|e| std::fs::read_to_string(e.path().join("cmdline")).ok())
        .map(|c| c.replace('\0', " "))
        .collect()
}

/// A harness whose background member ignores TERM: only KILL stops it.
const STUBBORN: &str = "(trap '' TERM; exec sleep 300) & echo op,shape,dtype,tflops > {out}; echo gemm,1,bf16,1 >> {out}";

#[test]
fn a_group_member_that_ignores_term_is_killed_after_a_timeout_and_after_an_exit() {
    use std::time::{Duration, Instant};
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let start = Instant::now();
    let run = p
        .bench_with(&p.resolution(&p.base), &format!("{STUBBORN}; sleep 300"))
        .args(["--side", "current", "--timeout-minutes", "0.02"])
        .timeout(Duration::from_secs(60))
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["current-status"], "timed-out");
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(
        left_in(p.root.path()),
        Vec::<String>::new(),
        "KILL after the grace"
    );

    let run = p
        .bench_with(&p.resolution(&p.base), STUBBORN)
        .args(["--side", "current"])
        .timeout(Duration::from_secs(60))
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["current-status"], "ok");
    assert_eq!(
        left_in(p.root.path()),
        Vec::<String>::new(),
        "after a normal exit too"
    );
}

/// bench on the baseline side of `p`, its harness `command` started (it
/// writes `started` in the tree first), then sent `signals` one second
/// apart; returns the exit code, the seconds from the first signal to the
/// exit, and the step outputs.
fn cancelled(p: &Project, command: &str, signals: &[i32]) -> (i32, f64, String) {
    use std::time::{Duration, Instant};
    let res = p.root.path().join("resolution.json");
    std::fs::write(&res, p.resolution(&p.base)).unwrap();
    let output = p.root.path().join("github_output");
    std::fs::write(&output, "").unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_baseline-resolver"))
        .current_dir(p.root.path())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_WORKSPACE", &p.checkout)
        .env("RUNNER_TEMP", p.root.path())
        .args(["bench", "--side", "baseline", "--resolution"])
        .arg(&res)
        .args([
            "--command",
            &format!("touch {}/started; {command}", p.root.path().display()),
        ])
        .arg("--worktree-dir")
        .arg(p.worktree_dir())
        .arg("--out-dir")
        .arg(p.root.path().join("results"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = p.root.path().join("started");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !started.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(started.exists(), "the harness started");
    std::thread::sleep(Duration::from_millis(300));
    let pid = i32::try_from(child.id()).unwrap();
    let first = Instant::now();
    for (i, signal) in signals.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_secs(1));
        }
        assert_eq!(unsafe { libc::kill(pid, *signal) }, 0);
    }
    let deadline = Instant::now() + Duration::from_secs(40);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("bench did not exit after {signals:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = first.elapsed().as_secs_f64();
    std::fs::remove_file(&started).unwrap();
    (
        status.code().unwrap_or(-1),
        took,
        std::fs::read_to_string(&output).unwrap(),
    )
}

#[test]
fn a_cancelled_step_stops_the_harness_removes_the_worktree_and_exits_with_the_signal() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    for (signals, code) in [
        (vec![libc::SIGTERM], 143),
        (vec![libc::SIGHUP], 129),
        (vec![libc::SIGINT], 130),
    ] {
        let (got, took, outputs) =
            cancelled(&p, "echo op > {out}; sleep 300 & sleep 300", &signals);
        assert_eq!(got, code, "{signals:?}");
        assert!(took < 5.0, "{signals:?}: {took} s");
        assert!(
            outputs.contains("baseline-status"),
            "what it has is written"
        );
        assert!(
            !p.worktree_dir().exists(),
            "{signals:?}: the worktree is removed"
        );
        assert_eq!(p.worktrees(), 1, "and unregistered");
        assert_eq!(left_in(p.root.path()), Vec::<String>::new(), "{signals:?}");
    }
    // The runner's cancellation: SIGINT, then SIGTERM while a member that
    // ignores TERM is still there: KILL at once, not after the grace.
    let (got, took, _) = cancelled(
        &p,
        &format!("{STUBBORN}; sleep 300"),
        &[libc::SIGINT, libc::SIGTERM],
    );
    assert_eq!(got, 130);
    assert!(took < 5.0, "{took} s");
    assert!(!p.worktree_dir().exists());
    assert_eq!(left_in(p.root.path()), Vec::<String>::new());
}

/// `lint --fix` on a workflow that is a symlink out of the repository, or
/// under a directory that is one: the target is never written; a file it
/// may fix is replaced whole (no temporary file left beside it).
#[test]
fn lint_fix_never_writes_through_a_symlink_or_outside_the_repository() {
    let top = tempfile::tempdir().unwrap();
    let root = top.path().join("repo");
    let elsewhere = top.path().join("elsewhere");
    std::fs::create_dir_all(root.join(".github/workflows")).unwrap();
    std::fs::create_dir_all(elsewhere.join("wf")).unwrap();
    let body = crate::lint::FIX_BEFORE;
    let victim = elsewhere.join("victim.yml");
    std::fs::write(&victim, body).unwrap();
    std::os::unix::fs::symlink(
        "../../../elsewhere/victim.yml",
        root.join(".github/workflows/ci.yml"),
    )
    .unwrap();
    std::fs::write(elsewhere.join("wf/other.yml"), body).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("wf"), root.join("linked")).unwrap();
    let run = crate::support::harness::Bin::new()
        .in_dir(&root)
        .args([
            "lint",
            ".github/workflows/ci.yml",
            "linked/other.yml",
            "--fix",
        ])
        .run();
    assert!(
        run.stdout
            .contains("ci.yml: not fixed: it is a symbolic link")
            && run.stdout.contains("other.yml: not fixed:")
            && run.stdout.contains("outside"),
        "{}",
        run.stdout
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), body);
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("wf/other.yml")).unwrap(),
        body
    );
    std::fs::write(root.join(".github/workflows/real.yml"), body).unwrap();
    let run = crate::support::harness::Bin::new()
        .in_dir(&root)
        .args(["lint", ".github/workflows/real.yml", "--fix"])
        .run();
    assert!(run.stdout.contains("fixed 4 findings"), "{}", run.stdout);
    assert_ne!(
        std::fs::read_to_string(root.join(".github/workflows/real.yml")).unwrap(),
        body
    );
    let names: Vec<_> = std::fs::read_dir(root.join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// A checked-out or planted symlink where bench writes: an out dir that
/// leads outside, a dangling link at `{out}`, a downloaded result behind a
/// link out.
#[test]
fn a_symlink_never_leads_benchs_writes_reads_or_removals_outside() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let elsewhere = tempfile::tempdir().unwrap();
    let victim = elsewhere.path().join("current.csv");
    std::fs::write(&victim, "keep").unwrap();
    let results = p.root.path().join("results");
    std::os::unix::fs::symlink(elsewhere.path(), &results).unwrap();
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--rounds", "1"])
        .run();
    run.assert_code(1);
    assert!(
        run.stderr.contains("outside") && run.stderr.contains("symbolic link"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "keep",
        "not removed"
    );
    assert!(!elsewhere.path().join("baseline.csv").exists());
    assert_eq!(p.worktrees(), 1);

    // A dangling link at {out}: the link goes, its target is never made.
    std::fs::remove_file(&results).unwrap();
    std::fs::create_dir(&results).unwrap();
    let target = elsewhere.path().join("made.csv");
    std::os::unix::fs::symlink(&target, results.join("baseline.csv")).unwrap();
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--rounds", "1"])
        .run();
    run.assert_code(0);
    assert!(!target.exists(), "the dangling link's target was created");
    let meta = std::fs::symlink_metadata(results.join("baseline.csv")).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!(run.outputs()["baseline-rows"], "1");

    // A downloaded result behind a link out is not read: the baseline runs.
    let bin = p.bench(&p.resolution(&p.base)).args(["--rounds", "1"]);
    std::fs::write(
        elsewhere.path().join("main.csv"),
        "op,shape,dtype,tflops\ngemm,1,bf16,1\n",
    )
    .unwrap();
    let link = bin.dir().join("main");
    std::os::unix::fs::symlink(elsewhere.path(), &link).unwrap();
    let run = bin
        .arg("--baseline-result")
        .arg(link.join("main.csv"))
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["baseline-source"], "ran");
    assert!(
        run.stdout.contains("outside the places bench may read"),
        "{}",
        run.stdout
    );
}

/// A list command whose helper leaves the group and keeps stdout open:
/// the list is incomplete, which is a warning, and the selected groups run
/// as they are (never all dropped as if the harness knew none). The helper
/// holds the pipe 20 s, well past the 5 s drain even when a loaded
/// machine sees the shell's exit seconds late (8 s did not, once).
#[test]
fn an_incomplete_list_is_a_warning_and_the_selection_runs_as_it_is() {
    let p = Project::new(&quiet("100", "gemm softmax"), &quiet("90", "gemm softmax"));
    let run = p
        .bench(&p.resolution(&p.base))
        .args([
            "--side",
            "current",
            "--selection",
            r#"{"selection":"some","groups":["gemm","softmax"]}"#,
            "--list-command",
            "setsid sleep 20 & echo gemm",
        ])
        .timeout(std::time::Duration::from_secs(60))
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["current-status"], "ok");
    assert_eq!(out["current-rows"], "2", "{}", run.stdout);
    assert!(
        run.stdout.contains("its list is incomplete")
            && run
                .stdout
                .contains("the selected groups are run as they are"),
        "{}",
        run.stdout
    );
}

/// SARIF locations are URI references: a stranger's file name, resolved
/// as code scanning resolves it, names that file, never another, and is
/// not cut at `#` or `?`.
#[test]
fn sarif_uris_name_the_file_whatever_its_name() {
    let keep = tempfile::tempdir().unwrap();
    let dir = keep.path().join("wf");
    std::fs::create_dir(&dir).unwrap();
    let names = [
        "%2e%2e%2fci.yml",
        "a#b.yml",
        "c?d.yml",
        "with space.yml",
        "naïve-ü.yml",
        "100%.yml",
    ];
    for name in names {
        std::fs::write(dir.join(name), crate::lint::FIX_BEFORE).unwrap();
    }
    let run = crate::support::harness::Bin::new()
        .in_dir(keep.path())
        .args(["lint", "wf", "--format", "sarif"])
        .run();
    run.assert_code(4);
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let base = url::Url::parse("https://github.com/o/r/blob/main/").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for result in v["runs"][0]["results"].as_array().unwrap() {
        let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        let joined = base.join(uri).unwrap();
        assert!(
            joined.fragment().is_none() && joined.query().is_none(),
            "{uri}"
        );
        let path = joined.path().strip_prefix("/o/r/blob/main/").unwrap();
        let decoded = percent_encoding::percent_decode_str(path)
            .decode_utf8()
            .unwrap();
        seen.insert(decoded.into_owned());
    }
    let expected: std::collections::BTreeSet<String> =
        names.iter().map(|n| format!("wf/{n}")).collect();
    assert_eq!(seen, expected);
}
