//! `--container NAME`: the harness runs inside a container already
//! started by the workflow (`docker run -dt --name NAME -v HOST:INSIDE`).
//! Every command bench runs for a side (setup, list, harness, stop) becomes
//! `docker exec [-e VAR]... -w TREE NAME bash -c 'SCRIPT'`, TREE being the
//! tree as the container sees it. A workflow wrote that line by hand in
//! each command, with `cd {tree}` and the quoting of a script inside
//! single quotes, and a mistake there runs the harness in the wrong tree.
//! Pure: the name and the variables are checked here, the line is built
//! here, nothing is run.

/// The container and the variables passed into it by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub name: String,
    /// Names only: `docker exec -e NAME` passes the step's own value.
    pub env: Vec<String>,
}

/// A container name as docker accepts it: a letter or digit, then letters,
/// digits, `_`, `.` and `-`. Never an option (no leading `-`), never a
/// word the shell splits.
pub fn name(text: &str) -> Result<String, String> {
    let text = text.trim();
    let mut chars = text.chars();
    let first = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    if first
        && text.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "{:?} is not a container name (a letter or digit, then letters, digits, _ . -; at most 128)",
            crate::runner::shown(text)
        ))
    }
}

/// Variable names split at white space and commas, each a shell name.
pub fn env(text: &str) -> Result<Vec<String>, String> {
    let names: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    for n in &names {
        let mut chars = n.chars();
        let ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            return Err(format!(
                "{:?} is not a variable name (letters, digits and _, not starting with a digit)",
                crate::runner::shown(n)
            ));
        }
    }
    if names.len() > 64 {
        return Err(format!("{} variables; at most 64", names.len()));
    }
    Ok(names)
}

/// `text` inside single quotes for `bash -c`, each `'` in it written `'\''`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl Container {
    fn exec(&self, tree: Option<&str>) -> String {
        let mut line = String::from("exec docker exec");
        for var in &self.env {
            line.push_str(" -e ");
            line.push_str(var);
        }
        if let Some(tree) = tree {
            line.push_str(" -w ");
            line.push_str(tree);
        }
        line.push(' ');
        line.push_str(&self.name);
        line
    }

    /// `script` (placeholders already filled) as the host's `bash -c`
    /// runs it: through `docker exec` in `tree` (the container's path, a
    /// plain word, checked with the placeholders). Inside, the script runs
    /// as a job of its own process group (`set -m`) whose id goes to
    /// `pidfile`: stopping the `docker` client does not reach into the
    /// container, so [`Container::stop`] ends that group there. Job
    /// control is off again before the wait (the job keeps its group), or
    /// bash would print `[1]+ Done ...` into the harness's output, where a
    /// dashboard parsing its table would meet it between two rows. The
    /// pidfile goes once the script has ended (its exit status kept), so a
    /// long-lived container does not gather one per side and run.
    pub fn wrap(&self, script: &str, tree: &str, pidfile: &str) -> String {
        let inner = format!(
            "set -m; bash -c {} & p=$!; echo $p > {pidfile}; set +m; wait $p; s=$?; rm -f {pidfile}; exit $s",
            quoted(script)
        );
        format!("{} bash -c {}", self.exec(Some(tree)), quoted(&inner))
    }

    /// Ends, inside the container, the process group [`Container::wrap`]
    /// wrote to `pidfile`: TERM, then KILL after 10 seconds if any of it
    /// is left. The file is in the container, where the harness could
    /// rewrite it: anything but a process number above 1 ends nothing.
    pub fn stop(&self, pidfile: &str) -> String {
        let inner = format!(
            "p=$(cat {pidfile}) || exit 0; case $p in ''|*[!0-9]*|0|1) exit 0 ;; esac; \
             kill -TERM -- -$p 2>/dev/null || exit 0; \
             for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1; kill -0 -- -$p 2>/dev/null || exit 0; done; \
             kill -KILL -- -$p"
        );
        format!("{} bash -c {}", self.exec(None), quoted(&inner))
    }
}

/// Where the process group of a side's running command is written inside
/// the container: bench's own pid and the side, so two bench steps in one
/// container do not share it. A plain word.
pub fn pidfile(side: &str) -> String {
    format!("/tmp/baseline-resolver-{}-{side}.pid", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_with_quotes_runs_as_written_in_the_tree() {
        let c = Container {
            name: "flydsl_test".into(),
            env: env("ROCM_PATH, HIP_VISIBLE_DEVICES").unwrap(),
        };
        let line = c.wrap(
            "echo 'a b' && ./run --out /x/out.csv",
            "/flydsl-test",
            "/tmp/p.pid",
        );
        assert!(
            line.starts_with(
                "exec docker exec -e ROCM_PATH -e HIP_VISIBLE_DEVICES -w /flydsl-test flydsl_test bash -c '"
            ),
            "{line}"
        );
        // What docker would hand to the container's bash, run here.
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("p.pid");
        let inner = line
            .replace(
                "exec docker exec -e ROCM_PATH -e HIP_VISIBLE_DEVICES -w /flydsl-test flydsl_test ",
                "exec ",
            )
            .replace("/tmp/p.pid", &pidfile.display().to_string());
        let seen = dir.path().join("seen");
        let script = format!(
            "until [ -s {0} ]; do sleep 0.05; done; cp {0} {1}; echo ran; exit 3",
            pidfile.display(),
            seen.display()
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &inner.replace("./run --out /x/out.csv", &script)])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a b\nran\n");
        assert_eq!(out.status.code(), Some(3), "the script's exit status kept");
        // Written while it ran (for the stop), gone once it ended.
        assert!(
            std::fs::read_to_string(&seen)
                .unwrap()
                .trim()
                .parse::<u32>()
                .is_ok()
        );
        assert!(!pidfile.exists(), "the pidfile is removed");
        assert!(c.stop("/tmp/p.pid").starts_with(
            "exec docker exec -e ROCM_PATH -e HIP_VISIBLE_DEVICES flydsl_test bash -c '"
        ));
    }

    #[test]
    fn names_that_could_be_options_or_words_are_refused() {
        for bad in ["-it", "", "a b", "a;b", "$(x)", "_x"] {
            assert!(name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(name(" flydsl_test ").unwrap(), "flydsl_test");
        for bad in ["1A", "A-B", "-e", "A=1"] {
            assert!(env(bad).is_err(), "{bad:?}");
        }
        assert_eq!(env("").unwrap(), Vec::<String>::new());
    }
}
