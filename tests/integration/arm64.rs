//! The Linux aarch64 binary (Grace Hopper and Grace Blackwell runners,
//! GitHub's `ubuntu-24.04-arm`), run under user-mode emulation:
//! `qemu-aarch64-static -L /usr/aarch64-linux-gnu` (Debian's
//! `qemu-user-static` and `libc6-arm64-cross`, which `.ci/run` installs). It
//! must answer every fixture byte for byte as the x86_64 binary does, ask
//! for no glibc newer than 2.17, and start through the launcher on an ARM64
//! runner. Without the binaries (`scripts/build-dist`) or qemu, each test
//! prints a notice and checks nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::action::{action_dir_with, assert_tag_answered_over_https, run_step_online};
use crate::support::harness::{own_fixtures, repo_root, shared_fixtures};

const QEMU: &str = "qemu-aarch64-static";
const SYSROOT: &str = "/usr/aarch64-linux-gnu";

fn dist(platform: &str) -> PathBuf {
    repo_root().join(format!("dist/baseline-resolver-linux-{platform}"))
}

/// Both shipped binaries and qemu. These tests are ignored, with the
/// reason named (a fresh clone has neither); `.ci/run` builds and installs them and runs the
/// ignored tests, so a missing one fails there instead of passing unchecked.
fn emulation() -> (PathBuf, PathBuf) {
    let (x86, arm) = (dist("x86_64"), dist("aarch64"));
    let qemu = Command::new(QEMU).arg("--version").output().is_ok();
    let sysroot = Path::new(SYSROOT).join("lib").exists();
    assert!(
        x86.exists() && arm.exists() && qemu && sysroot,
        "needs dist/baseline-resolver-linux-{{x86_64,aarch64}} (scripts/build-dist), {QEMU} and {SYSROOT} (qemu-user-static, libc6-arm64-cross)"
    );
    (x86, arm)
}

fn run(program: &[&Path], args: &[&Path], env: &[(String, String)]) -> Output {
    let (first, rest) = program.split_first().unwrap();
    let mut cmd = Command::new(first);
    cmd.args(rest).args(args).env_clear();
    cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// One payload to answer: the event file, its name, and the environment
/// its expectation sets.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Payload {
    event: PathBuf,
    name: String,
    env: Vec<(String, String)>,
}

/// Every payload of a fixture folder.
fn payloads(dir: &Path) -> Vec<Payload> {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let mut out: Vec<_> = expected
        .as_object()
        .unwrap()
        .iter()
        .map(|(file, want)| Payload {
            event: dir.join(file),
            name: want["event_name"].as_str().unwrap().to_owned(),
            env: want["env"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                .collect(),
        })
        .collect();
    out.sort();
    out
}

#[test]
#[ignore = "needs scripts/build-dist and qemu-user-static (.ci/run)"]
fn the_aarch64_binary_answers_every_fixture_as_the_x86_64_one_does() {
    let (x86, arm) = emulation();
    let mut cases = vec![Payload {
        event: repo_root().join("examples/events/fork-pull-request.json"),
        name: "pull_request".to_owned(),
        env: Vec::new(),
    }];
    cases.extend(payloads(&own_fixtures()));
    let shared = shared_fixtures().expect("needs ../shared/fixtures/events beside the checkout");
    cases.extend(payloads(&shared));
    let qemu = Path::new(QEMU);
    let sysroot = Path::new(SYSROOT);
    for Payload { event, name, env } in &cases {
        let args = [
            Path::new("--event"),
            event,
            Path::new("--event-name"),
            Path::new(name),
            Path::new("--offline"),
            Path::new("--format"),
            Path::new("json"),
        ];
        let native = run(&[&x86], &args, env);
        let emulated = run(&[qemu, Path::new("-L"), sysroot, &arm], &args, env);
        assert_eq!(
            native.status.code(),
            emulated.status.code(),
            "{}",
            event.display()
        );
        assert_eq!(
            String::from_utf8_lossy(&emulated.stdout),
            String::from_utf8_lossy(&native.stdout),
            "{}: the same answer, byte for byte",
            event.display()
        );
        assert!(!native.stdout.is_empty(), "{}", event.display());
    }
    println!(
        "aarch64 under qemu: {} payloads answered as on x86_64",
        cases.len()
    );
}

/// On an ARM64 runner the launcher picks `baseline-resolver-linux-aarch64`
/// and checks it against `SHA256SUMS`; the binary then answers over HTTPS
/// (its own OpenSSL, cross-built, trusting the test CA through
/// `SSL_CERT_FILE`). Without binfmt, the file the launcher picks is a
/// wrapper that runs the real aarch64 binary under qemu (listed with the
/// wrapper's checksum), so the launcher's choice and check are the real ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs scripts/build-dist and qemu-user-static (.ci/run)"]
async fn the_action_runs_the_aarch64_binary_on_an_arm64_runner() {
    let (_, arm) = emulation();
    // The x86_64 file is a decoy: picking it would answer without qemu.
    let dir = action_dir_with(Path::new("/bin/false"));
    let dist_dir = dir.path().join("dist");
    let wrapper = dist_dir.join("baseline-resolver-linux-aarch64");
    crate::support::harness::write_executable(
        &wrapper,
        &format!(
            "#!/bin/sh\nexec {QEMU} -L {SYSROOT} '{}' \"$@\"\n",
            arm.display()
        ),
    );
    let sums = Command::new("sha256sum")
        .args([
            "baseline-resolver-linux-x86_64",
            "baseline-resolver-linux-aarch64",
        ])
        .current_dir(&dist_dir)
        .output()
        .unwrap();
    std::fs::write(dist_dir.join("SHA256SUMS"), sums.stdout).unwrap();
    let (run, requests) = run_step_online(dir.path().to_owned(), "ARM64").await;
    assert_tag_answered_over_https(&run, &requests);
    assert_eq!(
        run.outputs["base-sha"],
        "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16"
    );
    assert_eq!(run.outputs["base-repo"], "ROCm/FlyDSL");
}

/// The newest `GLIBC_x.y` version among the dynamic symbols of `bin`, and
/// how many symbols ask for one. objdump reads either architecture, and
/// prints the version bare or in parentheses depending on its release.
fn newest_glibc(bin: &Path) -> ((u32, u32), usize) {
    let out = Command::new("objdump")
        .arg("-T")
        .arg(bin)
        .output()
        .expect("objdump");
    assert!(
        out.status.success(),
        "objdump -T {}: {}",
        bin.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut newest = (0, 0);
    let mut count = 0;
    for word in text.split_whitespace() {
        let word = word.trim_matches(|c| c == '(' || c == ')');
        // GLIBC_PRIVATE names no version.
        let Some(version) = word
            .strip_prefix("GLIBC_")
            .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        else {
            continue;
        };
        let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        let v = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        newest = newest.max(v);
        count += 1;
    }
    (newest, count)
}

/// Both shipped binaries ask for no glibc symbol newer than 2.17, and stay
/// under 15 MB. The test build, linked against this machine's glibc, shows
/// the check can fail.
/// The most bytes a shipped binary may take: 15 MiB for what ships (the
/// release profile, which release.yml builds and tests through .ci/run).
/// CI's own build (`DIST_PROFILE=ci`: no LTO, opt-level 1, 16 codegen
/// units) is about twice the release's size for the same code, so its
/// bound is 24 MiB: it still catches a binary that doubles.
fn size_bound() -> u64 {
    match std::env::var("DIST_PROFILE").as_deref() {
        Ok("ci") => 24 * 1024 * 1024,
        _ => 15 * 1024 * 1024,
    }
}

#[test]
#[ignore = "needs scripts/build-dist (.ci/run)"]
fn shipped_binaries_need_glibc_2_17_at_most() {
    let (host, _) = newest_glibc(Path::new(env!("CARGO_BIN_EXE_baseline-resolver")));
    assert!(
        host > (2, 17),
        "the host build needs GLIBC_{}.{}: the check sees versions",
        host.0,
        host.1
    );
    for platform in ["x86_64", "aarch64"] {
        let bin = dist(platform);
        assert!(bin.exists(), "needs {} (scripts/build-dist)", bin.display());
        let (newest, count) = newest_glibc(&bin);
        assert!(count > 0, "{platform}: dynamically linked against glibc");
        assert!(
            newest <= (2, 17),
            "{platform} needs GLIBC_{}.{}",
            newest.0,
            newest.1
        );
        let size = std::fs::metadata(&bin).unwrap().len();
        assert!(size < size_bound(), "{platform}: {size} bytes");
        println!(
            "dist {platform}: {size} bytes, {count} versioned glibc symbols, newest GLIBC_{}.{}",
            newest.0, newest.1
        );
    }
}

/// The platforms `scripts/build-dist` builds, the ones the launcher calls
/// shipped, and the binaries the release workflow commits are the same.
#[test]
fn the_release_ships_every_platform_the_launcher_expects() {
    let read = |file: &str| std::fs::read_to_string(repo_root().join(file)).unwrap();
    let build = read("scripts/build-dist");
    let line = build
        .lines()
        .find_map(|l| l.strip_prefix("platforms=\""))
        .expect("platforms= in scripts/build-dist");
    let mut built: Vec<String> = line
        .trim_end_matches('"')
        .split_whitespace()
        .map(|p| p.split_once(':').unwrap().1.to_owned())
        .collect();
    built.sort();

    let launcher = read("dist/launch.sh");
    let case = launcher
        .lines()
        .find(|l| l.trim_end().ends_with(") shipped=yes ;;"))
        .expect("shipped=yes in dist/launch.sh");
    let mut shipped: Vec<String> = case
        .trim()
        .trim_end_matches(") shipped=yes ;;")
        .split('|')
        .map(|p| p.trim().to_owned())
        .collect();
    shipped.sort();

    let release = read(".github/workflows/release.yml");
    let mut committed: Vec<String> = release
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("dist/baseline-resolver-"))
        .map(str::to_owned)
        .collect();
    committed.sort();
    committed.dedup();

    assert_eq!(built, ["linux-aarch64", "linux-x86_64"]);
    assert_eq!(
        shipped, built,
        "dist/launch.sh ships what scripts/build-dist builds"
    );
    assert_eq!(
        committed, built,
        "release.yml commits what scripts/build-dist builds"
    );
    assert!(release.contains("dist/SHA256SUMS"));
    // What ships is the release profile; CI's ci profile inherits it and
    // differs only in what costs build time.
    assert!(release.contains("DIST_PROFILE: release"), "{release}");
    let cargo = read("Cargo.toml");
    let ci = cargo
        .split("[profile.ci]")
        .nth(1)
        .expect("[profile.ci] in Cargo.toml");
    let ci = ci.split("\n[").next().unwrap_or(ci);
    assert!(ci.contains("inherits = \"release\""), "{ci}");
    for line in ci
        .lines()
        .filter(|l| l.contains('=') && !l.starts_with('#'))
    {
        let key = line.split('=').next().unwrap().trim();
        assert!(
            ["inherits", "lto", "codegen-units", "opt-level"].contains(&key),
            "the ci profile changes only build time, not {line}"
        );
    }
}
