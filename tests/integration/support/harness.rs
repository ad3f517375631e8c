//! A small builder over `assert_cmd` that runs the binary the way a runner
//! would, in a scratch directory, with `GITHUB_*`, `RUNNER_*`, `ACTIONS_*`,
//! `INPUT_*` and `*_PROXY` scrubbed from the inherited environment, so a test
//! run inside GitHub Actions (or behind a proxy) behaves like one on a laptop,
//! and with `SSL_CERT_FILE` naming the test CA that signs every test server.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use baseline_resolver::runner::file_command;
use serde_json::Value;
use tempfile::TempDir;

/// Writes `text` to `path` as a program anyone may run (mode 0755): the
/// fake tools and harness scripts the tests put on PATH or in a checkout.
pub fn write_executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The project's own fixtures (always present).
pub fn own_fixtures() -> PathBuf {
    repo_root().join("tests/fixtures/events")
}

/// The shared corpus beside the checkout, when there is one.
pub fn shared_fixtures() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/fixtures/events");
    dir.join("expected.json").is_file().then_some(dir)
}

/// The binary under test, for any of its commands.
pub struct Bin {
    cmd: Command,
    dir: TempDir,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// Raw `GITHUB_OUTPUT` text ("" when nothing was written).
    pub output_file: String,
    pub summary: String,
}

impl Bin {
    pub fn new() -> Self {
        let mut cmd = Command::cargo_bin("baseline-resolver").expect("binary built");
        for (key, _) in std::env::vars() {
            let proxy = key.to_ascii_uppercase().ends_with("_PROXY");
            if proxy
                || ["GITHUB_", "RUNNER_", "ACTIONS_", "INPUT_"]
                    .iter()
                    .any(|p| key.starts_with(p))
            {
                cmd.env_remove(&key);
            }
        }
        // The test servers' CA, trusted as a self-hosted runner trusts a private one.
        cmd.env("SSL_CERT_FILE", crate::support::tls::ca_file());
        cmd.env_remove("SSL_CERT_DIR");
        let dir = tempfile::tempdir().expect("temp dir");
        cmd.current_dir(dir.path());
        Bin { cmd, dir }
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// Kills the binary after `limit` (the run's code is then -1): a test
    /// of something that must not block fails instead of hanging.
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.cmd.timeout(limit);
        self
    }

    /// Runs in `dir` instead of the scratch directory (a repository's root).
    pub fn in_dir(mut self, dir: &Path) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    /// Gives the binary `text` on a pipe as its standard input, written
    /// once: a second read of `/dev/stdin` finds it empty, as a second read
    /// of a shell's `<(...)` does.
    pub fn stdin(mut self, text: &str) -> Self {
        self.cmd.write_stdin(text.as_bytes().to_vec());
        self
    }

    pub fn env_remove(mut self, key: &str) -> Self {
        self.cmd.env_remove(key);
        self
    }

    /// `--event PATH --event-name NAME`.
    pub fn event(self, path: impl AsRef<Path>, name: &str) -> Self {
        let path = path.as_ref().to_owned();
        self.arg("--event").arg(path).args(["--event-name", name])
    }

    /// Writes `json` to a file in the scratch dir and uses it as the event.
    pub fn payload(self, json: &str, name: &str) -> Self {
        let path = self.dir.path().join("event.json");
        std::fs::write(&path, json).expect("write payload");
        self.event(path, name)
    }

    /// Runs as on a runner: `GITHUB_ACTIONS=true`, `GITHUB_OUTPUT` and
    /// `GITHUB_STEP_SUMMARY` files in the scratch dir.
    pub fn on_runner(self) -> Self {
        let out = self.dir.path().join("github_output");
        let summary = self.dir.path().join("step_summary");
        self.env("GITHUB_ACTIONS", "true")
            .env("GITHUB_OUTPUT", out)
            .env("GITHUB_STEP_SUMMARY", summary)
    }

    pub fn run(mut self) -> Run {
        let output = self.cmd.output().expect("run binary");
        let read =
            |name: &str| std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default();
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            output_file: read("github_output"),
            summary: read("step_summary"),
        }
    }

    /// Runs with `--format json` and returns the parsed object.
    pub fn json(self) -> (Run, Value) {
        self.json_code(0)
    }

    /// The same, expecting exit code `code`.
    pub fn json_code(self, code: i32) -> (Run, Value) {
        let run = self.args(["--format", "json"]).run();
        assert_eq!(
            run.code, code,
            "stdout: {}\nstderr: {}",
            run.stdout, run.stderr
        );
        let value: Value = serde_json::from_str(run.stdout.trim())
            .unwrap_or_else(|e| panic!("one JSON object on stdout ({e}): {}", run.stdout));
        (run, value)
    }
}

impl Run {
    /// The step outputs as the runner reads them; a later entry with the same
    /// name would overwrite an earlier one, so duplicates are an error here.
    pub fn outputs(&self) -> std::collections::BTreeMap<String, String> {
        let pairs = file_command::read(&self.output_file).expect("GITHUB_OUTPUT parses");
        let mut map = std::collections::BTreeMap::new();
        for (name, value) in pairs {
            assert!(
                map.insert(name.clone(), value).is_none(),
                "output {name} written twice"
            );
        }
        map
    }

    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }
}

impl Bin {
    /// Points the binary at a mock API (and `--timeout`), as a runner would
    /// through `GITHUB_API_URL`.
    pub fn api(self, url: &str) -> Self {
        self.env("GITHUB_API_URL", url)
    }

    /// Runs on a blocking thread, so a mock server on the test's runtime
    /// keeps answering meanwhile.
    pub async fn run_async(self) -> Run {
        tokio::task::spawn_blocking(move || self.run())
            .await
            .expect("run")
    }

    pub async fn json_async(self) -> (Run, Value) {
        tokio::task::spawn_blocking(move || self.json())
            .await
            .expect("run")
    }
}

impl Run {
    /// The step outputs as a later step reads them, one `name: value` a
    /// line in name order (the file's random heredoc delimiters left out),
    /// for a snapshot.
    pub fn outputs_text(&self) -> String {
        self.outputs()
            .iter()
            .map(|(name, value)| format!("{name}: {value}\n"))
            .collect()
    }

    /// Replaces each `(value, name)` in stdout, the summary and the step
    /// outputs by its name: the temp dirs and commits that change from run
    /// to run. A 40-hex commit's short forms (12, 8, 7) go too.
    pub fn redact(mut self, names: &[(&str, &str)]) -> Run {
        let redact = |text: &str| {
            let mut text = text.to_owned();
            for (value, name) in names {
                text = text.replace(value, name);
                let hex = value.len() == 40 && value.bytes().all(|b| b.is_ascii_hexdigit());
                for short in [12, 8, 7].into_iter().filter(|_| hex) {
                    text = text.replace(&value[..short], name);
                }
            }
            text
        };
        self.stdout = redact(&self.stdout);
        self.summary = redact(&self.summary);
        self.output_file = redact(&self.output_file);
        self
    }
}
