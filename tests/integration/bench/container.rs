//! Issue 47: a harness in a container. bench stops the process group it
//! started, but `docker exec` hands the command to the container: stopping
//! the client leaves the harness running there, holding the GPU. The shim
//! below plays `docker exec` that way (the command in a session of its
//! own, the client only waiting for it); `--stop-command` is what ends it.
//! And files a container wrote that nobody here may delete leave the
//! worktree behind with a warning naming them, never a failed step.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::bench::{Project, csv, quiet};

/// The seed fixture's `docker` ([`crate::support::seed::docker_shim`]):
/// `exec` runs the command in a new session and waits for it; the client
/// going does not stop it.
pub fn docker_exec_shim(dir: &Path) -> PathBuf {
    let bin = dir.join("docker-bin");
    let container = dir.join("container-bin");
    std::fs::create_dir_all(&container).unwrap();
    crate::support::seed::executable(
        &bin.join("docker"),
        &crate::support::seed::docker_shim(&container),
    );
    bin
}

/// PATH with the shim first.
pub fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Whether `pid` is a live process (a zombie nobody reaped counts as gone).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(") ").next().map(|r| !r.starts_with('Z')))
        .unwrap_or(false)
}

/// The pid the harness inside the "container" wrote, once it has.
fn harness_pid(file: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the harness never started");
}

/// Waits up to 10 s for `pid` to be gone.
fn gone_soon(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    !alive(pid)
}

/// The container's harness (writes its pid, then hangs) and the stop
/// command that ends it there.
fn in_container(pidfile: &Path) -> (String, String) {
    let pidfile = pidfile.display();
    (
        format!(
            "docker exec -i flydsl_test bash -c 'echo $$ > {pidfile}; echo op,shape,dtype,tflops > {{out}}; exec sleep 300'"
        ),
        format!("docker exec flydsl_test bash -c 'kill $(cat {pidfile})'"),
    )
}

/// bench on the change alone, `command` outliving its 1.2 s, with the
/// shim first on PATH and `stop` as the stop command.
fn timed_out(
    p: &Project,
    bin: &Path,
    command: &str,
    stop: Option<&str>,
) -> crate::support::harness::Run {
    let mut bench = p
        .bench_with(&p.resolution(&p.base), command)
        .env("PATH", path_with(bin))
        .args(["--side", "current", "--timeout-minutes", "0.02"])
        .timeout(Duration::from_secs(60));
    if let Some(stop) = stop {
        bench = bench.args(["--stop-command", stop]);
    }
    let run = bench.run();
    run.assert_code(0);
    assert_eq!(run.outputs()["current-status"], "timed-out");
    run
}

#[test]
fn a_timeout_stops_the_harness_inside_the_container_too() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let bin = docker_exec_shim(p.root.path());
    let pidfile = p.root.path().join("harness.pid");
    let (command, stop) = in_container(&pidfile);
    // Without a stop command: the client is stopped, the harness lives on.
    timed_out(&p, &bin, &command, None);
    let pid = harness_pid(&pidfile);
    assert!(
        alive(pid),
        "docker exec semantics: the harness outlived its client"
    );
    unsafe { libc::kill(pid, libc::SIGKILL) };
    std::fs::remove_file(&pidfile).unwrap();
    // With one, it is gone when bench returns.
    let run = timed_out(&p, &bin, &command, Some(&stop));
    let pid = harness_pid(&pidfile);
    assert!(
        gone_soon(pid),
        "the stop command ended the harness in the container:\n{}",
        run.stderr
    );
    assert!(!run.stdout.contains("stop command"), "{}", run.stdout);
}

#[test]
fn a_cancelled_step_runs_the_stop_command_and_a_failing_one_is_a_warning() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let bin = docker_exec_shim(p.root.path());
    let pidfile = p.root.path().join("harness.pid");
    let (command, stop) = in_container(&pidfile);
    let output = p.root.path().join("github_output");
    std::fs::write(&output, "").unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_baseline-resolver"))
        .current_dir(&p.checkout)
        .env("PATH", path_with(&bin))
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_WORKSPACE", &p.checkout)
        .args(["bench", "--side", "current", "--command", &command])
        .args(["--stop-command", &stop])
        .arg("--out-dir")
        .arg(p.root.path().join("results"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = harness_pid(&pidfile);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        unsafe { libc::kill(i32::try_from(child.id()).unwrap(), libc::SIGTERM) },
        0
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    assert!(
        gone_soon(pid),
        "cancelled: the container's harness is gone too"
    );

    // A stop command that fails: a warning, the step's own status unchanged.
    let run = timed_out(&p, &bin, &command, Some("exit 3"));
    let pid = harness_pid(&pidfile);
    unsafe { libc::kill(pid, libc::SIGKILL) };
    assert!(
        run.stdout.contains(
            "the current side's stop command exited with status 3: what it was to stop may still be running"
        ),
        "{}",
        run.stdout
    );
}

/// A file in the baseline's worktree nobody may delete (immutable, as a
/// root-owned file a container wrote is to the runner's user): bench
/// removes the rest, names it in a warning and the step stands.
#[test]
fn a_worktree_file_that_cannot_be_deleted_is_named_in_a_warning() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let locked = "mkdir -p {tree}/cache/kernels && echo x > {tree}/cache/kernels/k.bin && chmod 555 {tree}/cache";
    let chattr = std::process::Command::new("chattr")
        .arg("+i")
        .arg(p.root.path())
        .status()
        .is_ok_and(|s| s.success());
    let command = if chattr {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(p.root.path())
            .status();
        format!(
            "bash bench.sh {{out}} {{groups}} && {locked} && chattr +i {{tree}}/cache/kernels/k.bin"
        )
    } else {
        format!("bash bench.sh {{out}} {{groups}} && {locked}")
    };
    let run = p
        .bench_with(&p.resolution(&p.base), &command)
        .args(["--side", "baseline"])
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["baseline-status"], "ok");
    let left = p.worktree_dir().join("cache/kernels/k.bin");
    if chattr {
        assert!(left.exists());
        assert!(
            run.stdout.contains("::warning")
                && run
                    .stdout
                    .contains("is left with 1 entries that could not be deleted")
                && run.stdout.contains("cache/kernels/k.bin"),
            "{}",
            run.stdout
        );
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&left)
            .status();
    } else {
        // Without the privilege to lock a file: the read-only directory
        // alone does not stop the removal.
        assert!(!p.worktree_dir().exists(), "{}", run.stdout);
    }
}

/// `--container NAME`: the setup command and the harness run through
/// `docker exec` in the tree as the container sees it, with the variables
/// `--container-env` names and no other of the step's; a quote in the
/// command survives. With `--volume` and nothing else, the tree measured
/// is the volume's HOST and the results go to `HOST/bench-results`.
#[test]
fn container_runs_each_command_inside_it_in_the_tree_with_the_named_variables() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let bin = docker_exec_shim(p.root.path());
    let command = r#"echo "harness in $PWD rocm=${ROCM_PATH:-unset} host=${HOST_ONLY:-unset} it's"; bash bench.sh {out} {groups}"#;
    let run = crate::support::harness::Bin::new()
        .on_runner()
        .in_dir(p.root.path())
        .env("GITHUB_WORKSPACE", p.root.path())
        .env("RUNNER_TEMP", p.root.path())
        .env("PATH", path_with(&bin))
        .env("DOCKER_SHIM_VOLUME", &p.checkout)
        .env("ROCM_PATH", "/opt/rocm-7.14")
        .env("HOST_ONLY", "the runner's")
        .args(["bench", "--side", "current", "--command", command])
        .args(["--setup-command", "echo setup in $PWD for {side} at {tree}"])
        .args(["--container", "flydsl_test", "--container-env", "ROCM_PATH"])
        .args(["--volume", "checkout:/flydsl-test"])
        .run();
    run.assert_code(0);
    let tree = p.checkout.display().to_string();
    for line in [
        format!("[current setup] setup in {tree} for current at {tree}"),
        format!("[current] harness in {tree} rocm=/opt/rocm-7.14 host=unset it's"),
    ] {
        assert!(run.stderr.contains(&line), "{line}\n{}", run.stderr);
    }
    // The job control that lets bench stop the harness inside the
    // container says nothing in the harness's output (no `[1]+ Done`).
    assert!(!run.stderr.contains("Done"), "{}", run.stderr);
    let outputs = run.outputs();
    assert_eq!(outputs["current-status"], "ok");
    let written = p.checkout.join("bench-results");
    assert!(
        outputs["current"].starts_with(&written.display().to_string()),
        "{}",
        outputs["current"]
    );
    assert!(csv(&outputs["current"]).contains("gemm"));
}

/// A container name that docker would read as an option, or a variable
/// name that is not one, is refused before anything runs.
#[test]
fn container_names_that_are_no_names_are_refused() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    for (container, env, said) in [
        ("-it", "ROCM_PATH", "is not a container name"),
        ("flydsl_test", "ROCM PATH=1", "is not a variable name"),
    ] {
        let run = p
            .bench(&p.resolution(&p.base))
            .args(["--side", "current"])
            .arg(format!("--container={container}"))
            .arg(format!("--container-env={env}"))
            .run();
        run.assert_code(2);
        assert!(run.stderr.contains(said), "{}", run.stderr);
    }
}

/// With `--container`, no stop command is needed: a timeout ends the
/// harness inside the container too (bench ran it as a process group of
/// its own there and stops that group), where stopping the `docker`
/// client alone left it running.
#[test]
fn container_stops_its_harness_inside_the_container_on_a_timeout() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let bin = docker_exec_shim(p.root.path());
    let pidfile = p.root.path().join("harness.pid");
    let command = format!(
        "echo $$ > {}; echo op,shape,dtype,tflops > {{out}}; exec sleep 300",
        pidfile.display()
    );
    let run = p
        .bench_with(&p.resolution(&p.base), &command)
        .env("PATH", path_with(&bin))
        .args(["--side", "current", "--timeout-minutes", "0.02"])
        .args(["--container", "flydsl_test"])
        .timeout(Duration::from_secs(60))
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["current-status"], "timed-out");
    let pid = harness_pid(&pidfile);
    assert!(
        gone_soon(pid),
        "the harness in the container was stopped:\n{}",
        run.stderr
    );
    assert!(
        !run.stdout.contains("may still be running"),
        "{}",
        run.stdout
    );
}
