//! Shell scripts of the repository that a step runs (`bash
//! tests/deps/setup_dep.sh`, `./scripts/prepare.sh`, `source ci/env.sh`),
//! read as part of the step. A workflow often hands its work to such a
//! script: in a real workflow a benchmark's dependency was
//! cloned at its moving branch inside `setup_rejson.sh`, which the
//! workflow only names, so no rule could see the clone.
//!
//! Only what a rule can use is read, and only so far: a script named by a
//! plain relative path ending in `.sh` (no variable, no `..`), one level
//! (a script the script runs is not followed), a regular file of at most
//! [`SCRIPT_LIMIT`] bytes inside the repository once every symbolic link
//! on its way is followed, at most [`MAX_SCRIPTS`] of them a run. The
//! files are a stranger's: they are read, never run or written, and one
//! that cannot be read is no evidence. They are read in `lint::scripts_in`
//! (I/O, with the other files read beside the workflows); splicing their
//! commands into the step's is here, pure ([`splice`]).

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::shell::{self, Command, Vars, assignment, file_name, functions};
use super::yaml::Node;

/// The largest script read: a setup script is a few KiB.
pub const SCRIPT_LIMIT: u64 = 256 * 1024;
/// At most this many scripts are read for one lint run.
pub const MAX_SCRIPTS: usize = 64;
/// At most this many bytes of script are read into the steps of one
/// linted file, counting a script again each time a command runs it:
/// without it, 400,000 `bash a.sh` lines of a 256 KiB `a.sh` re-read
/// 100 GiB. Once spent, a later command's script adds nothing.
pub const MAX_SPLICED_BYTES: usize = 16 * 1024 * 1024;

/// The scripts read, by their path (the repository's root joined with the
/// path the step names).
#[derive(Debug, Default)]
pub struct Scripts(BTreeMap<PathBuf, String>);

impl Scripts {
    /// Keeps the text of the script at `file` (no more than
    /// [`MAX_SCRIPTS`]: a later one is dropped).
    pub fn insert(&mut self, file: PathBuf, text: String) {
        if self.0.len() < MAX_SCRIPTS {
            self.0.insert(file, text);
        }
    }

    /// Whether no more may be read, or `file` was read already.
    pub fn has(&self, file: &Path) -> bool {
        self.0.len() >= MAX_SCRIPTS || self.0.contains_key(file)
    }
}

/// The scripts of the repository whose root is `root`, as a workflow of it
/// is read.
pub struct Beside<'s> {
    pub scripts: &'s Scripts,
    pub root: PathBuf,
    /// Folders the file's jobs check the repository itself out into.
    own_dirs: Vec<String>,
    /// The bytes of script still to be spliced into this file's steps (of
    /// [`MAX_SPLICED_BYTES`]).
    left: Cell<usize>,
}

impl<'s> Beside<'s> {
    /// The scripts of the repository at `root`, for one linted file.
    pub fn new(scripts: &'s Scripts, root: PathBuf) -> Self {
        Beside {
            scripts,
            root,
            own_dirs: Vec::new(),
            left: Cell::new(MAX_SPLICED_BYTES),
        }
    }

    /// The same, where the file's jobs also check the repository out into
    /// `own_dirs` ([`own_checkout_dirs`]).
    pub fn with_own_dirs(mut self, own_dirs: Vec<String>) -> Self {
        self.own_dirs = own_dirs;
        self
    }

    /// The text of the script at `rel`, when it was read and the file's
    /// budget of spliced bytes still holds it (which it then spends).
    fn text(&self, rel: &str) -> Option<&str> {
        let text = in_repository(rel, &self.own_dirs)
            .find_map(|r| self.scripts.0.get(&self.root.join(r)))?;
        let left = self.left.get().checked_sub(text.len())?;
        self.left.set(left);
        Some(text)
    }
}

/// The most folders one file's jobs check the repository out into that
/// are looked through for a script (each is tried for every script).
pub const MAX_OWN_DIRS: usize = 16;

/// The folders a workflow's jobs check the repository itself out into
/// (`actions/checkout` with no `repository:`, and a `path:`): a script
/// under one (`./actions/scripts/run_benchmarks.sh` after a checkout
/// with `path: actions`, LoAT's benchmark jobs) is the repository's
/// `scripts/run_benchmarks.sh`. Plain relative paths only, at most
/// [`MAX_OWN_DIRS`].
pub fn own_checkout_dirs(root: &Node) -> Vec<String> {
    let jobs = root.get("jobs").map(Node::entries).unwrap_or_default();
    let steps = jobs
        .iter()
        .flat_map(|(_, job)| job.get("steps").map(Node::items).unwrap_or_default());
    let mut dirs: Vec<String> = Vec::new();
    for step in steps {
        let checkout = step
            .get("uses")
            .and_then(Node::str)
            .is_some_and(|u| u.starts_with("actions/checkout@"));
        let with = step.get("with");
        let path = with.and_then(|w| w.get("path")).and_then(Node::str);
        let (true, None, Some(path)) = (checkout, with.and_then(|w| w.get("repository")), path)
        else {
            continue;
        };
        if let Some(dir) = plain_path(path).filter(|d| !dirs.contains(d)) {
            dirs.push(dir);
        }
        if dirs.len() >= MAX_OWN_DIRS {
            break;
        }
    }
    dirs
}

/// `rel`, then `rel` without one of `own_dirs` in front of it: where the
/// repository's own file may be.
pub fn in_repository<'r>(rel: &'r str, own_dirs: &'r [String]) -> impl Iterator<Item = &'r str> {
    std::iter::once(rel).chain(own_dirs.iter().filter_map(move |d| {
        rel.strip_prefix(d.as_str())
            .and_then(|r| r.strip_prefix('/'))
            .filter(|r| !r.is_empty())
    }))
}

/// A plain relative path (a file's or a folder's) without its `./` parts
/// and a trailing `/`: none with `..`, a variable or an expression.
fn plain_path(path: &str) -> Option<String> {
    let odd = |c: char| matches!(c, '$' | '{' | '}' | '~' | '\\' | '*' | '?' | '`');
    if path.starts_with('/') || path.contains(odd) {
        return None;
    }
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    (!parts.is_empty() && !parts.contains(&"..")).then(|| parts.join("/"))
}

/// The root of the repository a workflow at `workflow` belongs to: the
/// folder holding its `.github/workflows`, else the working directory
/// (where lint runs).
pub fn checkout_root(workflow: &Path) -> PathBuf {
    let dir = workflow.parent().unwrap_or(Path::new(""));
    if dir.ends_with(".github/workflows") {
        let root = dir.parent().and_then(Path::parent).unwrap_or(Path::new(""));
        if !root.as_os_str().is_empty() {
            return root.to_path_buf();
        }
    }
    PathBuf::from(".")
}

/// The repository path of the shell script `c` runs, from the step's
/// `working-directory` `wd`: `bash x.sh`, `sh -e x.sh`, `source x.sh`,
/// `. x.sh`, `./x.sh`, `dir/x.sh`. `None` for anything else, for a
/// script given options (they choose what it runs), and for a
/// path that is absolute, climbs (`..`), or holds a variable or an
/// expression (its value is not known here).
pub fn script_path(c: &Command, wd: Option<&str>) -> Option<String> {
    let (word, _) = script_word(c)?;
    let path = match wd.map(str::trim).filter(|w| !w.is_empty() && *w != ".") {
        Some(dir) => format!("{}/{}", dir.trim_end_matches('/'), word),
        None => word.to_owned(),
    };
    plain(&path)
}

/// Where a container's command is one of the repository's scripts, run in
/// the workspace it mounts: `docker run --mount=type=bind,src=$PWD,...
/// IMAGE ./experimental/mmperf/run_mmperf.sh DIR` (openxla-benchmark's
/// GPU benchmarks). Only `docker` or `podman` `run`, and only a word
/// written as a relative path to a `.sh` after the image (`./x.sh`, or
/// `dir/x.sh` after a wrapper: valkey-search's `... IMAGE sudo -E
/// scripts/benchmark/run_endurance_test.sh`), the first such word; not a
/// mount's `src:dst` nor an option's `key=value`.
fn container_script(words: &[&str]) -> Option<usize> {
    let [engine, "run", ..] = words else {
        return None;
    };
    if !matches!(file_name(engine), "docker" | "podman") {
        return None;
    }
    let relative =
        |w: &str| w.starts_with("./") || w.contains('/') && !w.starts_with(['/', '-', '~']);
    words
        .iter()
        .position(|w| relative(w) && w.ends_with(".sh") && !w.contains([':', '=', '$']))
}

/// Where the command a wrapper runs starts in `words`: after `nix
/// develop`'s or `nix shell`'s `--command` (`nix develop '.#bench'
/// --command ./scripts/ci-bench.sh out.json`: charon's benchmarks run in
/// its flake's shell), or after a prefix that runs the rest as it is
/// (`sudo`, `time`, `nohup`, `env`, with their options and, for `env`,
/// the variables it sets). 0 when `words` is no such wrapper.
fn wrapped_from(words: &[&str]) -> usize {
    const PREFIXES: &[&str] = &["sudo", "time", "nohup", "env"];
    match words {
        ["nix", "develop" | "shell", rest @ ..] => rest
            .iter()
            .position(|w| *w == "--command" || *w == "-c")
            .map_or(0, |p| p.saturating_add(3)),
        [first, rest @ ..] if PREFIXES.contains(&file_name(first)) => rest
            .iter()
            .position(|w| !w.starts_with('-') && !assignment(w))
            .map_or(0, |p| p.saturating_add(1)),
        _ => 0,
    }
}

/// The word of `c` that names the script it runs, and the words after it
/// (the script's arguments), as [`script_path`] takes them.
fn script_word(c: &Command) -> Option<(&str, Vec<&str>)> {
    // Variables set for the one command come first: `MACHINE_TYPE=x
    // ./run.sh` runs `./run.sh`.
    let words: Vec<&str> = c
        .words
        .iter()
        .map(|w| w.text.as_str())
        .skip_while(|w| assignment(w))
        .collect();
    let words = words.get(wrapped_from(&words)..).unwrap_or_default();
    let name = *words.first()?;
    let at = if shell::SHELLS.contains(&file_name(name)) {
        words
            .iter()
            .skip(1)
            .position(|w| !w.starts_with('-'))?
            .saturating_add(1)
    } else if name == "source" || name == "." {
        1
    } else if name.contains('/') {
        0
    } else {
        container_script(words)?
    };
    let word = *words.get(at)?;
    // Options choose among a script's modes (`setenv.sh --nightly`
    // installs wheels, `--source` clones), which lint does not evaluate:
    // read whole, it would report what the step never runs.
    if words
        .iter()
        .skip(at.saturating_add(1))
        .any(|w| w.starts_with('-'))
    {
        return None;
    }
    Some((
        word,
        words
            .get(at.saturating_add(1)..)
            .unwrap_or_default()
            .to_vec(),
    ))
}

/// `path` without its `./` parts when it is a plain relative path to a
/// `.sh` file.
fn plain(path: &str) -> Option<String> {
    path.ends_with(".sh").then(|| plain_path(path)).flatten()
}

/// `commands` with the commands of each repository script one of them
/// runs (read in `beside`) after it, as if the step held them: each at
/// the command that runs it (a finding in the script is reported there),
/// inside it (`parent`, as a `bash -c` body is) and in a script of its
/// own (its `cd` moves nothing after it), read with the step's `vars`. A
/// script the shell reader refuses adds nothing.
pub fn splice(
    commands: Vec<Command>,
    beside: &Beside<'_>,
    wd: Option<&str>,
    vars: &Vars,
) -> Vec<Command> {
    let mut next_script = commands
        .iter()
        .map(|c| c.script)
        .max()
        .unwrap_or(0)
        .saturating_add(1);
    // What the step runs by name: a sourced script's functions it calls.
    let names: Vec<String> = commands
        .iter()
        .filter_map(|c| c.name().map(str::to_owned))
        .collect();
    let step_calls: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    let mut moved: Vec<usize> = Vec::with_capacity(commands.len());
    let mut out: Vec<Command> = Vec::with_capacity(commands.len());
    for mut c in commands {
        c.parent = c.parent.and_then(|p| moved.get(p).copied());
        let here = out.len();
        moved.push(here);
        let arguments = script_word(&c).map(|(_, a)| a).unwrap_or_default();
        let run = functions::Run {
            arguments: &arguments,
            sourced: matches!(c.name(), Some("source" | ".")),
            step_calls: Some(&step_calls),
        };
        let inner = script_path(&c, wd)
            .and_then(|rel| beside.text(&rel))
            .and_then(|text| shell::commands_with(text, vars).ok())
            .map(|all| functions::reached(all, &run))
            .unwrap_or_default();
        let (start, at, loops) = (c.start, c.at(), c.loops);
        out.push(c);
        let base = out.len();
        let mut used = 0usize;
        for mut ic in inner {
            used = used.max(ic.script);
            ic.start = start;
            for w in &mut ic.words {
                w.at = at;
            }
            ic.loops = ic.loops.saturating_add(loops);
            ic.nested = true;
            ic.parent = Some(ic.parent.map_or(here, |p| base.saturating_add(p)));
            ic.script = next_script.saturating_add(ic.script);
            out.push(ic);
        }
        if base < out.len() {
            next_script = next_script.saturating_add(used).saturating_add(1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(script: &str) -> Command {
        shell::commands(script).unwrap().remove(0)
    }

    #[test]
    fn the_forms_that_run_a_repository_script() {
        for (line, want) in [
            ("bash tests/deps/setup.sh arg", Some("tests/deps/setup.sh")),
            ("bash scripts/setenv.sh --nightly", None),
            ("sh -e ./ci/run.sh", Some("ci/run.sh")),
            ("source ci/env.sh", Some("ci/env.sh")),
            (". ./ci/env.sh", Some("ci/env.sh")),
            ("./scripts/x.sh fast", Some("scripts/x.sh")),
            ("scripts/x.sh", Some("scripts/x.sh")),
            ("bash /etc/x.sh", None),
            ("bash ../x.sh", None),
            ("bash $SCRIPT", None),
            ("bash ci/${{ matrix.os }}.sh", None),
            ("python3 tools/run.py", None),
            ("x.sh", None),
            ("make bench", None),
            // Run by a wrapper.
            (
                "nix develop '.#bench' --command ./scripts/ci.sh out.json",
                Some("scripts/ci.sh"),
            ),
            ("nix shell nixpkgs#jq -c bash ci/x.sh", Some("ci/x.sh")),
            ("sudo -E ./ci/setup.sh", Some("ci/setup.sh")),
            ("env A=1 B=2 bash ci/x.sh", Some("ci/x.sh")),
            ("time ./bench.sh", Some("bench.sh")),
            ("nix build .#bench", None),
        ] {
            assert_eq!(script_path(&first(line), None).as_deref(), want, "{line}");
        }
        assert_eq!(
            script_path(&first("./run.sh"), Some("bench/")).as_deref(),
            Some("bench/run.sh")
        );
    }

    #[test]
    fn a_script_under_a_folder_the_repository_is_checked_out_into_is_its_own() {
        let root = crate::lint::yaml::parse(
            "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          path: ./actions/\n      - uses: actions/checkout@v4\n        with:\n          repository: o/other\n          path: other\n      - uses: actions/checkout@v4\n        with:\n          path: ../up\n",
        )
        .unwrap();
        let dirs = own_checkout_dirs(&root);
        assert_eq!(dirs, ["actions"]);
        let places: Vec<&str> = in_repository("actions/scripts/x.sh", &dirs).collect();
        assert_eq!(places, ["actions/scripts/x.sh", "scripts/x.sh"]);
        let places: Vec<&str> = in_repository("other/x.sh", &dirs).collect();
        assert_eq!(places, ["other/x.sh"]);
    }

    #[test]
    fn a_scripts_commands_follow_the_command_that_runs_it_and_stand_at_it() {
        let mut scripts = Scripts::default();
        scripts.insert(
            PathBuf::from("./ci/dep.sh"),
            "cd /tmp\ngit clone https://x/dep.git\n".to_owned(),
        );
        let beside = Beside::new(&scripts, PathBuf::from("."));
        let step = "echo $(date)\nbash ci/dep.sh\nmake";
        let cmds = shell::commands(step).unwrap();
        let at = cmds.get(2).map(Command::at).unwrap();
        let out = splice(cmds, &beside, None, &Vars::default());
        let names: Vec<&str> = out.iter().filter_map(Command::name).collect();
        assert_eq!(names, ["echo", "date", "bash", "cd", "git", "make"]);
        let clone = &out[4];
        assert_eq!(
            (clone.at(), clone.parent, clone.nested),
            (at, Some(2), true)
        );
        assert_ne!(clone.script, out[5].script, "its cd moves nothing after it");
        assert_eq!(out[1].parent, Some(0));
        assert_eq!(out[5].parent, None);
    }

    #[test]
    fn a_files_steps_splice_at_most_max_spliced_bytes_of_script() {
        // A 1 MiB script of one command, run by 40 commands: only the
        // first 16 (16 MiB) are spliced, in this step or any later one.
        let mut scripts = Scripts::default();
        let text = format!("true\n#{}\n", "x".repeat(1024 * 1024 - 7));
        assert_eq!(text.len(), 1024 * 1024);
        scripts.insert(PathBuf::from("./a.sh"), text);
        let beside = Beside::new(&scripts, PathBuf::from("."));
        let step = "bash a.sh\n".repeat(40);
        let out = splice(
            shell::commands(&step).unwrap(),
            &beside,
            None,
            &Vars::default(),
        );
        let spliced = out.iter().filter(|c| c.name() == Some("true")).count();
        assert_eq!(spliced, MAX_SPLICED_BYTES / (1024 * 1024));
        let again = splice(
            shell::commands("bash a.sh").unwrap(),
            &beside,
            None,
            &Vars::default(),
        );
        assert_eq!(again.len(), 1, "the budget is the file's, not the step's");
    }
}
