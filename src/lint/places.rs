//! Where each command of a job runs, and whether that is inside a checkout
//! of the head repository (a pull request's fork): there `origin` is the
//! fork, so `git fetch origin main` fetches the fork's stale `main`.
//!
//! Followed as a common GPU benchmark workflow does it: `actions/checkout` of the head
//! repository (`repository:` naming `head.repo`, also through `env:`) into
//! `path: flydsl-test`; a container started with `-v
//! "$GITHUB_WORKSPACE/flydsl-test:/flydsl-test" -w /flydsl-test --name
//! box`; a later step's `docker exec box bash <<'EOF'` whose script runs
//! `cd /flydsl-test` and `git fetch origin main`. A step's
//! `working-directory:` (or the job's `defaults.run.working-directory`), `cd`
//! and `git -C` move a command; a nested script starts where the command
//! that holds it runs (`docker exec` at its `-w`, or the container's).
//! What cannot be told (a variable as a path) is not inside. Pure.

use std::collections::HashMap;

use super::shell::{Command, file_name};
use super::workflow::{Job, Step};
use super::yaml::Node;

/// A directory: on the runner relative to the workspace (`""` is the
/// workspace), on the runner elsewhere, or in a named container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dir {
    Workspace(String),
    Runner(String),
    Container { name: String, path: String },
    Unknown,
}

/// A container a step started: its mounts (runner directory, container
/// path) and its default working directory.
#[derive(Debug, Clone, Default)]
struct Container {
    mounts: Vec<(Dir, String)>,
    workdir: Option<String>,
}

/// For each step of the job, for each command of its script: whether it
/// runs inside a checkout of the head repository.
pub fn inside_head(job: &Job<'_>, names_head: impl Fn(&str) -> bool) -> Vec<Vec<bool>> {
    let mut heads: Vec<Dir> = Vec::new();
    let mut containers: HashMap<String, Container> = HashMap::new();
    let default_dir = job
        .get("defaults")
        .and_then(|d| d.get("run"))
        .and_then(|r| r.get("working-directory"))
        .and_then(Node::str);
    let mut out = Vec::with_capacity(job.steps.len());
    for step in &job.steps {
        checkout(step, &names_head, &mut heads);
        let Some(script) = &step.script else {
            out.push(Vec::new());
            continue;
        };
        let start = step.text("working-directory").or(default_dir).unwrap_or("");
        let start = join(&Dir::Workspace(String::new()), start);
        let dirs = where_each_runs(&script.commands, start, &mut containers);
        out.push(
            dirs.iter()
                .map(|d| within_head(d, &heads, &containers))
                .collect(),
        );
    }
    out
}

/// A checkout: of the head repository, its directory holds the fork; of
/// anything else, what was there is replaced.
fn checkout(step: &Step<'_>, names_head: &impl Fn(&str) -> bool, heads: &mut Vec<Dir>) {
    if step.action().as_deref() != Some("actions/checkout") {
        return;
    }
    let path = step.with_text("path").unwrap_or_default();
    let dir = join(&Dir::Workspace(String::new()), &path);
    heads.retain(|h| *h != dir);
    let repository = step.with_text("repository").unwrap_or_default();
    if names_head(&repository) {
        heads.push(dir);
    }
}

/// Where each command runs, in order; records the containers `docker run`
/// starts.
fn where_each_runs(
    commands: &[Command],
    start: Dir,
    containers: &mut HashMap<String, Container>,
) -> Vec<Dir> {
    // Per script, the directory at each open subshell depth: a `cd` in
    // `( ... )` is undone when it closes.
    let mut cwd: HashMap<usize, Vec<Dir>> = HashMap::new();
    let mut dirs: Vec<Dir> = Vec::with_capacity(commands.len());
    for c in commands {
        let levels = cwd.entry(c.script).or_insert_with(|| {
            vec![match c.parent {
                None => start.clone(),
                Some(p) => nested_start(commands, &dirs, p, containers),
            }]
        });
        levels.truncate(c.subshells.saturating_add(1));
        while levels.len() <= c.subshells {
            let last = levels.last().cloned().unwrap_or(Dir::Unknown);
            levels.push(last);
        }
        let here = levels.last().cloned().unwrap_or(Dir::Unknown);
        let words: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
        match words.as_slice() {
            ["cd" | "pushd", to, ..] => {
                if let Some(level) = levels.last_mut() {
                    *level = join(&here, to);
                }
            }
            // Back to a directory this reading does not keep.
            ["popd", ..] => {
                if let Some(level) = levels.last_mut() {
                    *level = Dir::Unknown;
                }
            }
            [docker, "run", rest @ ..] if is_docker(docker) => {
                let (name, container) = started(rest, &here);
                if let Some(name) = name {
                    containers.insert(name, container);
                }
            }
            _ => {}
        }
        let runs_in = match c.after("-C").filter(|_| c.name() == Some("git")) {
            Some(dir) => join(&here, dir),
            None => here,
        };
        dirs.push(runs_in);
    }
    dirs
}

fn is_docker(word: &str) -> bool {
    matches!(file_name(word), "docker" | "podman")
}

/// Where a script nested in command `p` starts: at `docker exec`'s working
/// directory in its container, else where `p` runs.
fn nested_start(
    commands: &[Command],
    dirs: &[Dir],
    p: usize,
    containers: &HashMap<String, Container>,
) -> Dir {
    let parent_dir = dirs.get(p).cloned().unwrap_or(Dir::Unknown);
    let Some(parent) = commands.get(p) else {
        return Dir::Unknown;
    };
    let words: Vec<&str> = parent.words.iter().map(|w| w.text.as_str()).collect();
    match words.as_slice() {
        [docker, "exec", rest @ ..] if is_docker(docker) => {
            let (name, workdir) = exec_target(rest);
            let Some(name) = name else {
                return Dir::Unknown;
            };
            let path = workdir
                .or_else(|| containers.get(name).and_then(|c| c.workdir.clone()))
                .unwrap_or_else(|| "/".to_owned());
            Dir::Container {
                name: name.to_owned(),
                path,
            }
        }
        _ => parent_dir,
    }
}

/// The working directory `docker exec` or `docker run` (podman's too)
/// gives the command it runs, from its `-w` or `--workdir`: `words` from
/// the program on.
pub fn container_workdir(words: &[&str]) -> Option<String> {
    match words {
        [docker, "exec", rest @ ..] if is_docker(docker) => exec_target(rest).1,
        [docker, "run", rest @ ..] if is_docker(docker) => started(rest, &Dir::Unknown).1.workdir,
        _ => None,
    }
}

/// `docker exec`'s options that take a value.
const EXEC_VALUES: &[&str] = &["-e", "--env", "--env-file", "-u", "--user", "--detach-keys"];

/// The container `docker exec` runs in, and its `-w`.
fn exec_target<'w>(args: &[&'w str]) -> (Option<&'w str>, Option<String>) {
    let mut workdir = None;
    let mut i = 0usize;
    while let Some(&a) = args.get(i) {
        i = i.saturating_add(1);
        if a == "-w" || a == "--workdir" {
            workdir = args.get(i).map(|w| (*w).to_owned());
            i = i.saturating_add(1);
        } else if let Some(w) = a.strip_prefix("--workdir=") {
            workdir = Some(w.to_owned());
        } else if EXEC_VALUES.contains(&a) {
            i = i.saturating_add(1);
        } else if !a.starts_with('-') {
            return (Some(a), workdir);
        }
    }
    (None, workdir)
}

/// What `docker run ARGS` starts: its `--name`, mounts and `-w`.
fn started(args: &[&str], here: &Dir) -> (Option<String>, Container) {
    let mut container = Container::default();
    let mut name = None;
    let mut i = 0usize;
    while let Some(&a) = args.get(i) {
        i = i.saturating_add(1);
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (a, None),
        };
        if !matches!(
            flag,
            "-v" | "--volume" | "-w" | "--workdir" | "--name" | "--mount"
        ) {
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => {
                let v = args.get(i).map(|v| (*v).to_owned()).unwrap_or_default();
                i = i.saturating_add(1);
                v
            }
        };
        match flag {
            "-v" | "--volume" => {
                let mut parts = split_volume(&value).into_iter();
                if let (Some(host), Some(ctr)) = (parts.next(), parts.next()) {
                    container.mounts.push((join(here, host), ctr.to_owned()));
                }
            }
            "--mount" => {
                let field = |k: &str| {
                    value.split(',').find_map(|kv| {
                        let (key, v) = kv.split_once('=')?;
                        (key == k).then(|| v.to_owned())
                    })
                };
                let source = field("source").or_else(|| field("src"));
                let target = field("target")
                    .or_else(|| field("dst"))
                    .or_else(|| field("destination"));
                if let (Some(s), Some(t)) = (source, target) {
                    container.mounts.push((join(here, &s), t));
                }
            }
            "-w" | "--workdir" => container.workdir = Some(value),
            _ => name = Some(value),
        }
    }
    (name, container)
}

/// A `-v HOST:CTR[:OPTIONS]` split at its colons, but not at one inside
/// `${...}` (`${GITHUB_WORKSPACE:-$PWD}/x:/x`).
fn split_volume(value: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0usize, 0usize);
    for (i, c) in value.char_indices() {
        match c {
            '{' => depth = depth.saturating_add(1),
            '}' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => {
                parts.push(value.get(from..i).unwrap_or(""));
                from = i.saturating_add(1);
            }
            _ => {}
        }
    }
    parts.push(value.get(from..).unwrap_or(""));
    parts
}

/// `to` taken from `here`: an absolute path, the workspace spelt as a
/// variable, or a path relative to `here`.
pub fn join(here: &Dir, to: &str) -> Dir {
    let to = to.trim();
    let workspace = [
        "${GITHUB_WORKSPACE:-$PWD}",
        "${GITHUB_WORKSPACE}",
        "$GITHUB_WORKSPACE",
        "${{ github.workspace }}",
        "${{github.workspace}}",
    ];
    for w in workspace {
        if let Some(rest) = to.strip_prefix(w) {
            return Dir::Workspace(normal(rest.trim_start_matches('/')));
        }
    }
    let rest = to
        .strip_prefix("$PWD")
        .or_else(|| to.strip_prefix("${PWD}"));
    let (relative, to) = match rest {
        Some(r) => (true, r.trim_start_matches('/')),
        None => (!to.starts_with('/'), to),
    };
    if to.contains('$') || to.starts_with('~') {
        return Dir::Unknown;
    }
    if !relative {
        return match here {
            Dir::Container { name, .. } => Dir::Container {
                name: name.clone(),
                path: normal(to),
            },
            _ => Dir::Runner(normal(to)),
        };
    }
    let below = |base: &str| {
        if base.is_empty() {
            normal(to)
        } else {
            normal(&format!("{base}/{to}"))
        }
    };
    match here {
        Dir::Workspace(base) => Dir::Workspace(below(base)),
        Dir::Runner(base) => Dir::Runner(below(base)),
        Dir::Container { name, path } => Dir::Container {
            name: name.clone(),
            path: below(path),
        },
        Dir::Unknown => Dir::Unknown,
    }
}

/// A path without `.`, `..` (as far as it goes) or repeated slashes; a
/// leading `/` kept.
fn normal(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

fn under(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    dir.is_empty() && !path.starts_with('/')
        || path == dir
        || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// Whether `dir` is inside one of the head checkouts `heads`, directly or
/// through a container's mount of one.
fn within_head(dir: &Dir, heads: &[Dir], containers: &HashMap<String, Container>) -> bool {
    let on_runner = |d: &Dir| {
        heads.iter().any(|h| match (h, d) {
            (Dir::Workspace(h), Dir::Workspace(p)) => under(p, h),
            (Dir::Runner(h), Dir::Runner(p)) => under(p, h),
            _ => false,
        })
    };
    match dir {
        Dir::Container { name, path } => containers.get(name).is_some_and(|c| {
            c.mounts
                .iter()
                .any(|(host, ctr)| on_runner(host) && under(path, ctr))
        }),
        Dir::Unknown => false,
        d => on_runner(d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_as_the_shell_would() {
        let ws = Dir::Workspace(String::new());
        assert_eq!(join(&ws, "a/./b/../c"), Dir::Workspace("a/c".into()));
        assert_eq!(
            join(&ws, "${GITHUB_WORKSPACE:-$PWD}/flydsl-test"),
            Dir::Workspace("flydsl-test".into())
        );
        assert_eq!(join(&ws, "/tmp/x"), Dir::Runner("/tmp/x".into()));
        let ctr = Dir::Container {
            name: "box".into(),
            path: "/w".into(),
        };
        assert_eq!(
            join(&ctr, "/flydsl-test"),
            Dir::Container {
                name: "box".into(),
                path: "/flydsl-test".into()
            }
        );
        assert_eq!(join(&ws, "$SOME_DIR"), Dir::Unknown);
        assert!(
            under("flydsl-test/sub", "flydsl-test")
                && under("x", "")
                && !under("flydsl-testx", "flydsl-test")
        );
        assert_eq!(
            split_volume("${GITHUB_WORKSPACE:-$PWD}/flydsl-test:/flydsl-test:ro"),
            [
                "${GITHUB_WORKSPACE:-$PWD}/flydsl-test",
                "/flydsl-test",
                "ro"
            ]
        );
    }
}

#[cfg(test)]
mod seed {
    use super::*;
    use crate::lint::{workflow, yaml};

    /// A common GPU workflow's shape: the head checked out into a path, mounted
    /// into a container, and `git fetch origin main` run there.
    #[test]
    fn a_fetch_inside_the_containers_mount_of_the_head_checkout() {
        let text = r#"on: pull_request
env:
  REPO: ${{ github.event.pull_request.head.repo.full_name || github.repository }}
jobs:
  test:
    runs-on: [self-hosted]
    steps:
      - uses: actions/checkout@v4
        with:
          repository: ${{ env.REPO }}
          path: flydsl-test
      - run: |
          docker run -dt --user root --device=/dev/kfd $DEVICE_FLAG \
          -v "${GITHUB_WORKSPACE:-$PWD}/flydsl-test:/flydsl-test" \
          -w /flydsl-test \
          --name flydsl_test \
          ${{ env.DOCKER_IMAGE }}
        env:
          GITHUB_WORKSPACE: ${{ github.workspace }}
      - run: |
          docker exec -i flydsl_test bash <<'BASH'
          cd /flydsl-test
          git fetch origin main --depth=8
          BASH
          git fetch origin main
"#;
        let root = yaml::parse(text).unwrap();
        let w = workflow::read(&root).unwrap();
        let job = &w.jobs[0];
        let inside = inside_head(job, |t| t.contains("head.repo"));
        let script = job.steps[2].script.as_ref().unwrap();
        let seen: Vec<(String, bool)> = script
            .commands
            .iter()
            .zip(&inside[2])
            .map(|(c, i)| {
                (
                    c.words
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                    *i,
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("docker exec -i flydsl_test bash <<BASH".to_owned(), false),
                ("cd /flydsl-test".to_owned(), true),
                ("git fetch origin main --depth=8".to_owned(), true),
                ("git fetch origin main".to_owned(), false),
            ]
        );
    }
}
