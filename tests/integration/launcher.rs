//! `dist/launch.sh`, the action's launcher, as a runner runs it: it runs
//! only the binary its checksum list names once and matches, reads that
//! list however it was written, keeps a hostile `RUNNER_ARCH` data, falls
//! back from a broken `openssl` to `sha256sum`, builds from source when it
//! must, and names the platform when it can do neither.

use std::path::Path;

use crate::action::{StepRun, action_dir, example_event, run_step};

#[test]
fn the_launcher_refuses_a_binary_that_does_not_match_its_checksum() {
    let dir = action_dir();
    let bin = dir.path().join("dist/baseline-resolver-linux-x86_64");
    let mut bytes = std::fs::read(&bin).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&bin, bytes).unwrap();
    let run = run_step(
        dir.path(),
        &example_event(),
        "pull_request",
        &[("offline", "true")],
        &[],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("::error title=baseline-resolver::checksum mismatch"),
        "{}",
        run.stdout
    );
    assert!(run.outputs.is_empty());
}

fn rewrite_sums(dir: &Path, edit: impl Fn(&str) -> String) {
    let sums = dir.join("dist/SHA256SUMS");
    let text = std::fs::read_to_string(&sums).unwrap();
    std::fs::write(&sums, edit(&text)).unwrap();
}

fn offline_step(dir: &Path, extra_env: &[(&str, &str)]) -> StepRun {
    run_step(
        dir,
        &example_event(),
        "pull_request",
        &[("offline", "true")],
        extra_env,
    )
}

#[test]
fn the_launcher_refuses_a_binary_listed_twice() {
    let dir = action_dir();
    rewrite_sums(dir.path(), |text| {
        format!("{}  baseline-resolver-linux-x86_64\n{text}", "0".repeat(64))
    });
    let run = offline_step(dir.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("is listed 2 times in"),
        "{}",
        run.stdout
    );
    assert!(run.outputs.is_empty());
}

#[test]
fn the_launcher_reads_a_checksum_file_without_a_final_newline() {
    let dir = action_dir();
    rewrite_sums(dir.path(), |text| text.trim_end().to_owned());
    let run = offline_step(dir.path(), &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.outputs["base-repo"], "ROCm/FlyDSL");
}

#[test]
fn the_launcher_reads_crlf_and_upper_case_checksums() {
    for (what, edit) in [
        (
            "CRLF line ends",
            (|t: &str| t.replace('\n', "\r\n")) as fn(&str) -> String,
        ),
        ("upper-case digests", |t: &str| {
            let (sum, rest) = t.split_at(64);
            format!("{}{rest}", sum.to_uppercase())
        }),
        ("both, binary mode", |t: &str| {
            let (sum, rest) = t.split_at(64);
            format!("{} *{}", sum.to_uppercase(), rest.trim_start()).replace('\n', "\r\n")
        }),
    ] {
        let dir = action_dir();
        rewrite_sums(dir.path(), edit);
        let run = offline_step(dir.path(), &[]);
        assert_eq!(run.code, 0, "{what}: {}\n{}", run.stdout, run.stderr);
        assert_eq!(run.outputs["base-repo"], "ROCm/FlyDSL", "{what}");
    }
    let dir = action_dir();
    rewrite_sums(dir.path(), |t| format!("{}{}", "z".repeat(64), &t[64..]));
    let run = offline_step(dir.path(), &[]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("is not a SHA-256"),
        "a malformed digest is named as such, not as a mismatch: {}",
        run.stdout
    );
}

/// A runner variable holding a line break cannot start a workflow command
/// through the launcher's own messages.
#[test]
fn a_hostile_runner_arch_cannot_inject_a_command() {
    let dir = action_dir();
    for arch in ["X64\n::add-mask::x", "risc\r::warning::x", "a%0A::error::x"] {
        let run = run_step(
            dir.path(),
            &example_event(),
            "pull_request",
            &[("offline", "true")],
            &[("RUNNER_ARCH", arch), ("PATH", "/usr/bin:/bin")],
        );
        assert_eq!(run.code, 1, "{arch:?}");
        let streams = format!("{}\n{}", run.stdout, run.stderr);
        let found = crate::support::workflow_commands::commands(&streams);
        assert!(
            found.iter().all(|c| c == "error"),
            "{arch:?}: {found:?}\n{streams}"
        );
        assert_eq!(found.len(), 1, "{arch:?}: {streams}");
    }
}

/// Fake tools on a PATH of their own, first in line.
fn fake_tools(tools: &[(&str, &str)]) -> (tempfile::TempDir, String) {
    let bin = tempfile::tempdir().unwrap();
    for (name, script) in tools {
        crate::support::harness::write_executable(
            &bin.path().join(name),
            &format!("#!/bin/sh\n{script}\n"),
        );
    }
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (bin, path)
}

#[test]
fn a_failing_openssl_hands_the_checksum_to_sha256sum() {
    let dir = action_dir();
    let (_bin, path) = fake_tools(&[("openssl", "echo 'openssl: broken' >&2; exit 1")]);
    let run = offline_step(dir.path(), &[("PATH", &path)]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.outputs["base-repo"], "ROCm/FlyDSL");
}

/// Without a binary for the platform, the launcher builds from source into
/// the action's own target directory and runs exactly what it built, even
/// when `CARGO_TARGET_DIR` points at a stale build.
#[test]
fn the_source_build_runs_the_binary_it_built() {
    let dir = action_dir();
    let stale = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(stale.path().join("release")).unwrap();
    let cargo = r#"
target=
while [ $# -gt 0 ]; do
  [ "$1" = --target-dir ] && target=$2
  shift
done
[ -n "$target" ] || target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target/release"
printf '#!/bin/sh
echo fresh build
' > "$target/release/baseline-resolver"
chmod +x "$target/release/baseline-resolver"
"#;
    let (_bin, path) = fake_tools(&[("cargo", cargo)]);
    let stale_bin = stale.path().join("release/baseline-resolver");
    std::fs::write(&stale_bin, "#!/bin/sh\necho stale build\n").unwrap();
    let run = offline_step(
        dir.path(),
        &[
            ("PATH", &path),
            ("RUNNER_ARCH", "RISCV64"),
            ("CARGO_TARGET_DIR", stale.path().to_str().unwrap()),
        ],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("fresh build"), "{}", run.stdout);
    assert!(!run.stdout.contains("stale build"), "{}", run.stdout);
}

/// A commit without release binaries (such as `main`) on a platform
/// releases ship (Linux x86_64 and aarch64): the message says to pin a
/// release.
#[test]
fn a_missing_linux_binary_means_the_action_is_not_pinned_to_a_release() {
    let dir = action_dir();
    std::fs::remove_file(dir.path().join("dist/baseline-resolver-linux-x86_64")).unwrap();
    for arch in ["X64", "ARM64"] {
        let run = offline_step(
            dir.path(),
            &[("PATH", "/usr/bin:/bin"), ("RUNNER_ARCH", arch)],
        );
        assert_eq!(run.code, 1, "{arch}");
        assert!(
            run.stdout
                .contains("pinned to a commit without release binaries (such as main)"),
            "{arch}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("Pin a release's full commit SHA"),
            "{arch}"
        );
        assert!(!run.stdout.contains("no prebuilt binary for"), "{arch}");
    }
}

#[test]
fn the_launcher_names_the_platform_when_it_has_no_binary_and_no_cargo() {
    let dir = action_dir();
    let run = run_step(
        dir.path(),
        &example_event(),
        "pull_request",
        &[("offline", "true")],
        &[("RUNNER_ARCH", "RISCV64"), ("PATH", "/usr/bin:/bin")],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("no prebuilt binary for linux-riscv64"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("install Rust"), "{}", run.stdout);
}
