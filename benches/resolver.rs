//! What the resolver costs, measured side by side with the strategies other
//! tools use. `cargo bench --bench resolver` runs everything (release build,
//! servers on 127.0.0.1 only, a few minutes on 2 cores) and writes the
//! results to BENCHMARKS.md. Nothing here is a pass/fail test.

// The figures are printed for whoever ran the bench, not to a runner's log
// (clippy.toml keeps the macros out of src/).
#![allow(clippy::disallowed_macros)]

#[path = "sections/compare.rs"]
mod compare_section;
#[path = "sections/formats.rs"]
mod formats_section;
#[path = "sections/git.rs"]
mod git_section;
#[path = "sections/lint.rs"]
mod lint_section;
#[path = "sections/noise.rs"]
mod noise_section;
#[path = "sections/select.rs"]
mod select_section;
#[path = "../tests/integration/support/simulation.rs"]
mod simulation;
#[path = "sections/tags.rs"]
mod tags_section;
#[path = "sections/whole.rs"]
mod whole_section;
// The tests' servers, reused as they are (they name each other as
// `crate::support::...`, as in the test crate).
#[path = "../tests/integration/support/gitrepo.rs"]
#[allow(dead_code)]
mod gitrepo;
#[path = "../tests/integration/support/mock_github.rs"]
#[allow(dead_code)]
mod mock_github;
#[path = "../tests/integration/support/tls.rs"]
#[allow(dead_code)]
mod tls;
mod support {
    pub(crate) use super::{gitrepo, mock_github, tls};
}

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_baseline-resolver");
/// The simulated network's round-trip time.
const RTT: Duration = Duration::from_millis(50);
const REPO: &str = "ROCm/FlyDSL";
const BASE: &str = "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16";
const HEAD: &str = "3c9d2e7a1f5b8c4d6e0a2b9f7c1d3e5a8b6f4c20";
const TAG_COMMIT: &str = "89abcdef0123456789abcdef0123456789abcdef";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The binary with a clean environment (no runner, no proxy) plus `envs`.
fn command(program: &str, args: &[&str], envs: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("SSL_CERT_FILE", support::tls::ca_file());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null());
    cmd
}

fn timed(args: &[&str], envs: &[(&str, &str)]) -> (Duration, Output) {
    timed_program(BIN, args, envs)
}

/// One run of `program` (this build's binary, or another to compare with).
fn timed_program(program: &str, args: &[&str], envs: &[(&str, &str)]) -> (Duration, Output) {
    let started = Instant::now();
    let out = command(program, args, envs).output().expect("binary runs");
    (started.elapsed(), out)
}

/// Peak RSS in kB of one run, from GNU time.
fn peak_rss_kb(args: &[&str], envs: &[(&str, &str)]) -> u64 {
    let mut all = vec!["-f", "%M", BIN];
    all.extend_from_slice(args);
    let out = command("/usr/bin/time", &all, envs)
        .output()
        .expect("/usr/bin/time");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0)
}

fn sh(cmd: &str) -> String {
    Command::new("sh")
        .args(["-c", cmd])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// `../shared/tools/delay_relay.py` in front of a server: a network with a
/// round-trip time of [`RTT`], where a new connection costs one RTT (the TCP
/// handshake) and every chunk half an RTT each way, so TLS handshakes cost
/// what they cost on a real network.
struct Relay {
    child: std::process::Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Relay {
    fn script() -> PathBuf {
        root().join("../shared/tools/delay_relay.py")
    }

    /// `None` (with a notice) when the shared tools are not beside the checkout.
    fn start(upstream: u16) -> Option<Relay> {
        if !Relay::script().exists() {
            eprintln!("NOTICE: ../shared/tools/delay_relay.py not found; network sections skipped");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let portfile = dir.path().join("port");
        let child = Command::new("python3")
            .arg(Relay::script())
            .arg(upstream.to_string())
            .arg(&portfile)
            .arg(RTT.as_millis().to_string())
            .arg("3600")
            .spawn()
            .expect("python3 runs the relay");
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&portfile)
                && let Ok(port) = text.trim().parse()
            {
                break port;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "relay did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        Some(Relay {
            child,
            port,
            log: dir.path().join("port.log"),
            _dir: dir,
        })
    }

    fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// Connections opened through the relay so far.
    fn connections(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Section 1: offline resolution of every fixture payload, whole process.
fn offline(report: &mut String) {
    let shared = root().join("../shared/fixtures/events");
    let dir = if shared.join("expected.json").exists() {
        shared
    } else {
        root().join("tests/fixtures/events")
    };
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let (mut medians, mut worst_rss) = (Vec::new(), 0);
    let mut rows = String::new();
    for (file, entry) in expected.as_object().unwrap() {
        let event = dir.join(file);
        let name = entry["event_name"].as_str().unwrap();
        let args = [
            "--event",
            event.to_str().unwrap(),
            "--event-name",
            name,
            "--offline",
            "--format",
            "json",
        ];
        let env = [("GITHUB_REPOSITORY", "ROCm/FlyDSL")];
        let times: Vec<Duration> = (0..30).map(|_| timed(&args, &env).0).collect();
        let m = median(times);
        let rss = peak_rss_kb(&args, &env);
        worst_rss = worst_rss.max(rss);
        medians.push(m);
        let _ = writeln!(
            rows,
            "| `{file}` | {} | {:.1} MB |",
            ms(m),
            rss as f64 / 1024.0
        );
    }
    let slowest = *medians.iter().max().unwrap();
    let _ = writeln!(
        report,
        "## 1. Offline resolution, whole process\n\n{} payloads of `{}`, 30 runs each (median). Target: under 5 ms and 10 MB.\n\n\
         | payload | median wall | peak RSS |\n|---|---|---|\n{rows}\n\
         Slowest median: **{}**; median of medians: **{}**; highest peak RSS: **{:.1} MB**.\n",
        medians.len(),
        dir.strip_prefix(root()).unwrap_or(&dir).display(),
        ms(slowest),
        ms(median(medians.clone())),
        worst_rss as f64 / 1024.0
    );
}

fn pr_payload() -> String {
    json!({"pull_request": {"base": {"ref": "main", "sha": BASE, "repo": {"id": 1, "full_name": REPO}},
        "head": {"ref": "x", "sha": HEAD, "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}})
    .to_string()
}

async fn online_run(payload: &Path, api: &str, extra: &[&str]) -> (Duration, Value) {
    online_run_of(BIN, payload, api, extra).await
}

/// [`online_run`] of `program`.
async fn online_run_of(
    program: &str,
    payload: &Path,
    api: &str,
    extra: &[&str],
) -> (Duration, Value) {
    let program = program.to_owned();
    let mut args = vec![
        "--event",
        payload.to_str().unwrap(),
        "--event-name",
        "pull_request",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let api = api.to_owned();
    tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (took, out) = timed_program(
            &program,
            &a,
            &[
                ("GITHUB_API_URL", &api),
                ("GITHUB_SERVER_URL", "git://127.0.0.1:1"),
            ],
        );
        (
            took,
            serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        )
    })
    .await
    .unwrap()
}

/// Section 5: binary size and the launcher's overhead.
fn shipping(report: &mut String, payload: &Path) {
    let size = std::fs::metadata(BIN).map(|m| m.len()).unwrap_or(0);
    let shipped = |platform: &str| {
        let file = root().join(format!("dist/baseline-resolver-linux-{platform}"));
        std::fs::metadata(file).map_or_else(
            |_| "not built in this run".to_owned(),
            |m| {
                format!(
                    "**{:.2} MB** ({} bytes)",
                    m.len() as f64 / 1_048_576.0,
                    m.len()
                )
            },
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("dist");
    std::fs::create_dir(&d).unwrap();
    std::fs::copy(root().join("dist/launch.sh"), d.join("launch.sh")).unwrap();
    std::fs::copy(BIN, d.join("baseline-resolver-linux-x86_64")).unwrap();
    let sum = Command::new("sha256sum")
        .arg("baseline-resolver-linux-x86_64")
        .current_dir(&d)
        .output()
        .unwrap();
    std::fs::write(d.join("SHA256SUMS"), sum.stdout).unwrap();
    let launcher = d.join("launch.sh");
    let args = [
        "--event",
        payload.to_str().unwrap(),
        "--event-name",
        "pull_request",
        "--offline",
        "--format",
        "json",
    ];
    let env = [("RUNNER_OS", "Linux"), ("RUNNER_ARCH", "X64")];
    let run = |program: &Path| -> Duration {
        median(
            (0..50)
                .map(|_| {
                    let started = Instant::now();
                    command(program.to_str().unwrap(), &args, &env)
                        .output()
                        .unwrap();
                    started.elapsed()
                })
                .collect(),
        )
    };
    let (with_launcher, alone) = (
        run(&launcher),
        run(&d.join("baseline-resolver-linux-x86_64")),
    );
    let _ = writeln!(
        report,
        "## 5. Binary size and launcher overhead\n\n\
         - Binary built by this bench (release profile: LTO, one codegen unit, stripped; panics unwind): **{:.2} MB**\n\
         - Shipped binaries (glibc 2.17 builds by `scripts/build-dist`): `dist/baseline-resolver-linux-x86_64` {}; \
         `dist/baseline-resolver-linux-aarch64` {}\n\
         - Launcher + binary (checksum verified with openssl's SHA-256), payload-only event: **{}** median of 50; \
         binary alone: {}; launcher overhead: **{}** (target for launcher + binary: under 20 ms).\n",
        size as f64 / 1_048_576.0,
        shipped("x86_64"),
        shipped("aarch64"),
        ms(with_launcher),
        ms(alone),
        ms(with_launcher.saturating_sub(alone))
    );
}

/// Results of 100,000 benchmark rows shaped like ROCm/FlyDSL's
/// (`op,shape,dtype,tbps,tflops,status`), half memory-bound; current is the
/// baseline scaled by -15% to +10%.
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `cargo bench` passes `--bench`; nothing to filter. `BENCH_SECTIONS=4,7`
    // runs only those sections and prints them, leaving BENCHMARKS.md as it is.
    let only: Option<Vec<u32>> = std::env::var("BENCH_SECTIONS")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect());
    let run = |n: u32| only.as_ref().is_none_or(|o| o.contains(&n));
    let started = Instant::now();
    let scratch = tempfile::tempdir().unwrap();
    let payload = scratch.path().join("fork-pr.json");
    std::fs::write(&payload, pr_payload()).unwrap();

    let mut report = String::new();
    if run(1) {
        offline(&mut report);
        eprintln!("offline done ({:?})", started.elapsed());
    }
    let rss_10k = if run(2) || run(6) {
        let rss = tags_section::tags(&mut report, &payload).await;
        eprintln!("tags done ({:?})", started.elapsed());
        rss
    } else {
        0
    };
    if run(3) {
        git_section::git(&mut report).await;
        eprintln!("git done ({:?})", started.elapsed());
    }
    if run(4) {
        whole_section::whole(&mut report, &payload).await;
    }
    if run(5) {
        shipping(&mut report, &payload);
    }
    if run(6) {
        let _ = writeln!(
            report,
            "## 6. Peak RSS at 10,000 tags\n\nWhole process, fork pull request event with the 10,000-tag listing: **{:.1} MB** \
             (target: under 30 MB).\n",
            rss_10k as f64 / 1024.0
        );
    }
    if run(7) {
        compare_section::comparing(&mut report);
    }
    if run(8) {
        noise_section::simulating(&mut report);
    }
    if run(9) {
        select_section::selecting(&mut report);
    }
    if run(10) {
        lint_section::linting(&mut report);
    }
    if run(11) {
        formats_section::formats(&mut report);
    }
    if only.is_some() {
        println!("{report}");
        return;
    }

    write_benchmarks(&report, started);
}

/// Writes BENCHMARKS.md: a header naming the machine, the sections just
/// measured (`report`) and, kept as they were, the figures on real material.
fn write_benchmarks(report: &str, started: Instant) {
    let machine = format!(
        "{} cores, {}, {} RAM, Linux {}, {}",
        sh("nproc"),
        sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'"),
        sh("free -h | awk '/Mem:/ {print $2}'"),
        sh("uname -r"),
        sh("rustc --version")
    );
    let header = format!(
        "# Benchmarks\n\nWritten by `cargo bench --bench resolver` on {} (UTC); took {:.0} s.\n\n\
         Machine: {machine}.\n\nEvery server runs on 127.0.0.1 and stops with the bench. The API speaks HTTPS (a CA made \
         for the bench, trusted through `SSL_CERT_FILE`) and is reached through `../shared/tools/delay_relay.py`, a \
         simulated network with {} ms round trips where TCP and TLS handshakes cost what they cost on a real one. Numbers \
         are medians over repeated runs of the whole process unless a section says otherwise.\n\n",
        sh("date -u '+%Y-%m-%d %H:%M'"),
        started.elapsed().as_secs_f64(),
        RTT.as_millis()
    );
    // The figures measured on real public material (fetched snapshots, by
    // the scripts in scripts/) are kept as they are: the bench cannot
    // measure them, having no snapshot.
    let path = root().join("BENCHMARKS.md");
    let real = std::fs::read_to_string(&path)
        .ok()
        .and_then(|old| old.find(REAL_MATERIAL).map(|at| old[at..].to_owned()))
        .unwrap_or_default();
    std::fs::write(&path, format!("{header}{report}{real}")).unwrap();
    println!("{header}{report}");
}

/// Where BENCHMARKS.md's part measured on real material begins.
const REAL_MATERIAL: &str = "## Real material";
