//! The part of a script of shell functions that one call of it runs. A
//! CI script is often a library of functions whose first argument picks
//! the one to run: micropython's `tools/ci.sh unix_minimal_build` runs
//! `ci_unix_minimal_build` (through `ci_$1` in its dispatcher) and none
//! of the other hundred functions beside it. Read whole, the one function
//! with `git merge-base` (a commit-message check no workflow step of the
//! unix port calls) gave a `shallow-merge-base` finding in each of 24
//! jobs.
//!
//! So, when the script's arguments name functions it defines (`x.sh
//! build` with `build() {`, or `ci_build` where the script runs `ci_$1`),
//! only what can run is kept: the commands outside every function, the
//! named functions, and the functions those call, each once (a closure
//! over the script's own functions, so linear in the script). Whenever
//! that cannot be told, the script is kept whole, as before: no argument
//! names a function, a function is never closed, or a command that can
//! run is named by a variable lint cannot resolve (`$step`, `"$cmd"`:
//! it may call any function; `$root/bin/x` is a path: a program).

use std::collections::{BTreeMap, BTreeSet};

use super::{Command, assignment};

/// How a step runs a script: the words after its path, and, when it is
/// sourced (`source x.sh`, `. x.sh`), the names the step's commands run
/// (its functions then run when the step calls them).
#[derive(Debug, Clone, Copy, Default)]
pub struct Run<'a> {
    pub arguments: &'a [&'a str],
    pub sourced: bool,
    pub step_calls: Option<&'a BTreeSet<&'a str>>,
}

/// The most prefixes an argument may be run after (`ci_$1`, `test_$1`,
/// ...) before the script is read whole: each argument is looked up
/// after each prefix, so a stranger's script of thousands of `pN$1` lines
/// would cost arguments times lines on every step that runs it.
pub const MAX_PREFIXES: usize = 64;

/// The commands of a script (`commands`, as [`super::commands_with`]
/// reads it) that running it as `run` says can reach, in their order and
/// with their `parent` links renumbered; all of them when it cannot be
/// told.
pub fn reached(commands: Vec<Command>, run: &Run<'_>) -> Vec<Command> {
    let Some(owner) = owners(&commands) else {
        return commands;
    };
    let Some(keep) = kept(&commands, &owner, run) else {
        return commands;
    };
    let mut moved: Vec<Option<usize>> = Vec::with_capacity(commands.len());
    let mut out = Vec::with_capacity(commands.len());
    for (mut c, keep) in commands.into_iter().zip(keep) {
        if !keep {
            moved.push(None);
            continue;
        }
        moved.push(Some(out.len()));
        c.parent = c.parent.and_then(|p| moved.get(p).copied().flatten());
        out.push(c);
    }
    out
}

/// The function (its name) each command is part of, `None` outside every
/// function; `None` for the whole when the script defines none or leaves
/// one open (a shape not read: keep it whole).
fn owners(commands: &[Command]) -> Option<Vec<Option<&str>>> {
    let mut owner: Vec<Option<&str>> = Vec::with_capacity(commands.len());
    // The function open at the script's own level, and how many braces.
    let mut open: Option<(&str, usize)> = None;
    let mut pending: Option<&str> = None;
    let mut any = false;
    for c in commands {
        if c.script != 0 {
            // Nested (a substitution): part of what holds it.
            let of = c.parent.and_then(|p| owner.get(p).copied().flatten());
            owner.push(of);
            continue;
        }
        let opens = c.keywords.iter().filter(|k| *k == "{").count();
        let closes = c.keywords.iter().filter(|k| *k == "}").count();
        match open {
            Some((name, depth)) => {
                let nested = usize::from(definition(c).is_some_and(|(_, body)| body));
                let depth = depth
                    .saturating_add(opens)
                    .saturating_add(nested)
                    .saturating_sub(closes);
                owner.push(Some(name));
                open = (depth > 0).then_some((name, depth));
            }
            None => {
                if let Some(name) = pending.take().filter(|_| opens > 0) {
                    // `name()` then `{` on the next line.
                    owner.push(Some(name));
                    open = Some((name, opens.saturating_sub(closes))).filter(|o| o.1 > 0);
                } else if let Some((name, body)) = definition(c) {
                    any = true;
                    owner.push(Some(name));
                    if body {
                        open = Some((name, 1));
                    } else {
                        pending = Some(name);
                    }
                } else {
                    owner.push(None);
                }
            }
        }
    }
    (any && open.is_none()).then_some(owner)
}

/// The name a command defines as a function, and whether its body's `{`
/// is on the same line: `name() {`, `function name {`, `function name()
/// {`, each maybe with the body's first command after the brace, or
/// `name()`/`function name` alone (the brace on the next line).
fn definition(c: &Command) -> Option<(&str, bool)> {
    let words: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
    let (name, rest) = match words.as_slice() {
        ["function", name, rest @ ..] => (name.strip_suffix("()").unwrap_or(name), rest),
        [name, rest @ ..] => (name.strip_suffix("()")?, rest),
        [] => return None,
    };
    if !function_name(name) {
        return None;
    }
    match rest.first() {
        None => Some((name, false)),
        Some(&"{") => Some((name, true)),
        Some(_) => None,
    }
}

/// Which commands running the script as `run` says can reach: the ones
/// outside every function, and those of each function called from them,
/// named by an argument (or, sourced, called by the step), or called from
/// a function reached. `None` (read it whole) when the script is run,
/// not sourced, with no argument naming a function and does not run its
/// arguments (`"$@"`, `ci_$1`: what they pick is then unknown, and not
/// read), or when a command reached is named by a variable that is not
/// the script's own arguments.
fn kept(commands: &[Command], owner: &[Option<&str>], run: &Run<'_>) -> Option<Vec<bool>> {
    let mut bodies: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, of) in owner.iter().enumerate() {
        if let Some(name) = of {
            bodies.entry(name).or_default().push(i);
        }
    }
    let named = run.arguments.iter().filter(|a| function_name(a));
    let prefixes = dispatch_prefixes(commands)?;
    let mut todo: Vec<&str> = Vec::new();
    for a in named {
        for p in &prefixes {
            let name = format!("{p}{a}");
            if let Some((k, _)) = bodies.get_key_value(name.as_str()) {
                todo.push(k);
            }
        }
    }
    if let Some(calls) = run.step_calls.filter(|_| run.sourced) {
        // The script's functions the step calls, looked up in the step's
        // names (a set), so each sourcing costs what the script holds.
        todo.extend(bodies.keys().filter(|name| calls.contains(*name)));
    }
    let dispatches =
        prefixes.len() > 1 || commands.iter().any(|c| callee(c).is_some_and(positional));
    if todo.is_empty() && !run.sourced && !dispatches {
        return None;
    }
    let mut keep: Vec<bool> = owner.iter().map(Option::is_none).collect();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut runs: Vec<Vec<usize>> = vec![
        (0..commands.len())
            .filter(|&i| owner.get(i).is_some_and(Option::is_none))
            .collect(),
    ];
    for name in todo {
        if seen.insert(name) {
            runs.extend(bodies.get(name).cloned());
        }
    }
    while let Some(run) = runs.pop() {
        for i in run {
            let c = commands.get(i)?;
            if let Some(k) = keep.get_mut(i) {
                *k = true;
            }
            let Some(name) = callee(c) else {
                continue;
            };
            // A path (`$root/build/prog`) is a program, never a function.
            if name.contains('$') && !name.contains('/') && !positional(name) {
                return None;
            }
            if let Some((k, body)) = bodies.get_key_value(name)
                && seen.insert(k)
            {
                runs.push(body.clone());
            }
        }
    }
    Some(keep)
}

/// The word a command runs: its name (after a `case` arm's pattern,
/// `build)`, and the variables set for it, `CC=clang make`), or the
/// command `eval`, `exec`, `command`, `builtin` or `trap` is given.
fn callee(c: &Command) -> Option<&str> {
    let mut words = c.words.iter().map(|w| w.text.as_str());
    if definition(c).is_some_and(|(_, body)| body) {
        // `build() { helper; }`: the body's first command follows the brace.
        words.by_ref().find(|w| *w == "{")?;
    }
    let mut name = words.next()?;
    if name.ends_with(')') && !name.contains('(') {
        name = words.next()?;
    }
    while assignment(name) {
        name = words.next()?;
    }
    match name {
        "eval" | "exec" | "command" | "builtin" | "trap" => words.next(),
        _ => Some(name),
    }
}

/// Whether `name` may name a shell function: letters, digits, `_`, `-`,
/// `.` and `:` (`build-docs`, `ci.build`), as a definition is read and
/// an argument looked up.
fn function_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// Whether `word` is one of the script's own arguments run as a command
/// (`$1`, `${1}`, `$@`, `$*`), maybe after a fixed prefix (`ci_$1`).
fn positional(word: &str) -> bool {
    let Some(at) = word.find('$') else {
        return false;
    };
    let (prefix, var) = word.split_at(at);
    prefix
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && matches!(var, "$1" | "${1}" | "$@" | "${@}" | "$*" | "${*}")
}

/// The prefixes an argument is run after: `""` always (an argument names
/// a function itself), and `ci_` where the script runs `ci_$1`; `None`
/// (read the script whole) past [`MAX_PREFIXES`].
fn dispatch_prefixes(commands: &[Command]) -> Option<BTreeSet<&str>> {
    let mut out = BTreeSet::from([""]);
    for c in commands {
        if let Some(word) = callee(c).filter(|w| positional(w)) {
            out.insert(word.split('$').next().unwrap_or_default());
            if out.len() > MAX_PREFIXES {
                return None;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::shell::commands;

    fn names(script: &str, arguments: &[&str]) -> Vec<String> {
        let run = Run {
            arguments,
            ..Run::default()
        };
        reached(commands(script).unwrap(), &run)
            .iter()
            .filter_map(|c| c.name().map(str::to_owned))
            .collect()
    }

    const LIBRARY: &str = "\
ulimit -n 1024
function ci_check {
    git merge-base HEAD^1 HEAD^2
}
function ci_build {
    helper VARIANT=minimal
}
helper() {
    make \"$@\"
}
function _main {
    case \"$1\" in
        (-h) echo help ;;
        (*) ci_$1 ;;
    esac
}
_main \"$@\"
";

    #[test]
    fn an_argument_through_a_dispatcher_reads_its_function_and_its_calls() {
        let got = names(LIBRARY, &["build"]);
        assert!(!got.iter().any(|n| n == "git"), "{got:?}");
        for want in ["ulimit", "make", "helper", "_main"] {
            assert!(got.iter().any(|n| n == want), "{want} in {got:?}");
        }
        let defined = got.iter().filter(|n| *n == "function").count();
        assert_eq!(defined, 2, "ci_build and _main, not ci_check: {got:?}");
        assert!(names(LIBRARY, &["check"]).iter().any(|n| n == "git"));
    }

    #[test]
    fn a_script_kept_whole_when_it_cannot_be_told() {
        let whole = names(LIBRARY, &[]).len();
        assert!(names(LIBRARY, &["nothing"]).len() == whole);
        let variable = format!("{LIBRARY}$step\n");
        assert!(names(&variable, &["build"]).iter().any(|n| n == "git"));
        let open = "build() {\n  make\ngit fetch\n";
        assert_eq!(names(open, &["build"]), ["build()", "make", "git"]);
    }

    #[test]
    fn a_one_line_body_calls_and_a_name_with_a_hyphen_is_an_argument() {
        let script = "build() { helper; }\nhelper() {\n  git merge-base a b\n}\n\"$@\"\n";
        let got = names(script, &["build"]);
        assert!(got.iter().any(|n| n == "git"), "helper reached: {got:?}");
        let script = "build-docs() {\n  git merge-base a b\n}\nother() {\n  make\n}\n\"$@\"\n";
        let got = names(script, &["build-docs"]);
        assert!(got.iter().any(|n| n == "git"), "build-docs read: {got:?}");
        assert!(!got.iter().any(|n| n == "make"), "other not read: {got:?}");
    }

    #[test]
    fn many_dispatch_prefixes_keep_the_script_whole() {
        let mut script = String::from("check() {\n  git merge-base a b\n}\n");
        for i in 0..=MAX_PREFIXES {
            script.push_str(&format!("p{i}$1\n"));
        }
        assert!(names(&script, &["x"]).iter().any(|n| n == "git"));
    }

    #[test]
    fn one_line_and_next_line_bodies_and_nested_commands() {
        let script = "a() { git fetch; }\nb()\n{\n  echo $(git log)\n}\n\"$@\"\n";
        let got = names(script, &["b"]);
        assert_eq!(got, ["b()", "echo", "git", "$@"]);
        let run = Run {
            arguments: &["b"],
            ..Run::default()
        };
        let kept = reached(commands(script).unwrap(), &run);
        let at = |name: &str| kept.iter().position(|c| c.name() == Some(name));
        assert_eq!(kept[at("git").unwrap()].parent, at("echo"));
    }
}
