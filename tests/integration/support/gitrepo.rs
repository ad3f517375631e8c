//! Real git for the tests: bare repositories built with `git fast-import`
//! (thousands of tags in well under a second), served over `file://` or by
//! `git daemon` on 127.0.0.1, which stops when dropped.

use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Commits everything in the work tree `dir` (as a test author) and
/// returns the new commit.
pub fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(
        dir,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            message,
        ],
    );
    git(dir, &["rev-parse", "HEAD"])
}

/// `work` published as the bare `ROOT/ROCm/FlyDSL.git`, where
/// `GITHUB_SERVER_URL/owner/name.git` finds it with `file://ROOT` as the
/// server, any commit of it fetchable by SHA (as GitHub allows).
pub fn publish(root: &Path, work: &Path) -> PathBuf {
    std::fs::create_dir_all(root.join("ROCm")).unwrap();
    let origin = root.join("ROCm/FlyDSL.git");
    git(
        root,
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            origin.to_str().unwrap(),
        ],
    );
    git(
        &origin,
        &["config", "uploadpack.allowReachableSHA1InWant", "true"],
    );
    origin
}

/// A bare repository at `<root>/<owner>/<name>.git`, the layout
/// `GITHUB_SERVER_URL/owner/name.git` expects.
pub struct BareRepo {
    pub root: TempDir,
    pub path: PathBuf,
    /// Commits of `main`, oldest first.
    pub commits: Vec<String>,
}

impl BareRepo {
    /// `main` with three commits; `tags` as `(name, annotated)`, each on the
    /// second commit; plus `extra_refs` refs under `refs/pull/N/head`.
    pub fn new(repo: &str, tags: &[(String, bool)], extra_refs: usize) -> BareRepo {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join(format!("{repo}.git"));
        std::fs::create_dir_all(&path).unwrap();
        git(
            &path,
            &["init", "--bare", "--quiet", "--initial-branch=main"],
        );
        git(
            &path,
            &["config", "uploadpack.allowReachableSHA1InWant", "true"],
        );
        let mut script = String::new();
        for i in 1..=3 {
            let msg = format!("commit {i}");
            script.push_str(&format!(
                "commit refs/heads/main\nmark :{i}\ncommitter T <t@example.com> {} +0000\ndata {}\n{msg}\n",
                1_700_000_000 + i,
                msg.len()
            ));
            if i > 1 {
                script.push_str(&format!("from :{}\n", i - 1));
            }
            script.push_str(&format!(
                "M 644 inline file.txt\ndata {}\n{msg}\n\n",
                msg.len()
            ));
        }
        for (name, annotated) in tags {
            if *annotated {
                script.push_str(&format!(
                    "tag {name}\nfrom :2\ntagger T <t@example.com> 1700000100 +0000\ndata 7\nrelease\n"
                ));
            } else {
                script.push_str(&format!("reset refs/tags/{name}\nfrom :2\n\n"));
            }
        }
        for n in 0..extra_refs {
            script.push_str(&format!("reset refs/pull/{n}/head\nfrom :3\n\n"));
        }
        let mut child = Command::new("git")
            .args(["fast-import", "--quiet"])
            .current_dir(&path)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
        git(&path, &["pack-refs", "--all"]);
        let log = git(&path, &["rev-list", "--reverse", "main"]);
        BareRepo {
            commits: log.lines().map(str::to_owned).collect(),
            root,
            path,
        }
    }

    pub fn file_url(&self) -> String {
        format!("file://{}", self.root.path().display())
    }
}

pub struct GitDaemon {
    child: Child,
    pub port: u16,
}

impl GitDaemon {
    /// `git daemon` on 127.0.0.1 serving everything under `base`.
    pub fn start(base: &Path) -> GitDaemon {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("git")
            .args([
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", base.display()),
                "--enable=upload-pack",
                &base.display().to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("git daemon starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "git daemon did not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        GitDaemon { child, port }
    }

    pub fn url(&self) -> String {
        format!("git://127.0.0.1:{}", self.port)
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
