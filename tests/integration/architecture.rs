//! The map in `ARCHITECTURE.md`, checked: which layer may import which, no
//! import circle among a command's modules, and the rules doing no I/O.
//! Imports are read from the source (`crate::...` and `super::...` paths),
//! so a new module falls under the same checks without being listed here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::harness::repo_root;

/// Every `.rs` file under `dir`.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The source without comments and `#[cfg(test)]` modules (tests may use
/// anything; a doc link is not an import).
pub(crate) fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text,
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers right after `prefix` (`prefix{a, b::c}` gives a and b).
fn after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in text.match_indices(prefix) {
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let name = ident(item.trim());
                if !name.is_empty() {
                    found.insert(name);
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// `src/resolve/settle/base.rs` is in layer `resolve`, module `settle`.
fn place(path: &Path) -> (String, Option<String>) {
    let rel = path.strip_prefix(repo_root().join("src")).unwrap();
    let parts: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    let layer = parts[0].clone();
    let module = parts.get(1).filter(|m| *m != "mod").cloned();
    (layer, module)
}

/// The commands, each a folder of `src/` and an action.
const COMMANDS: [&str; 9] = [
    "resolve", "compare", "select", "lint", "comment", "trend", "bench", "convert", "gate",
];

#[test]
fn layers_import_only_downwards() {
    // What each layer may import besides itself.
    let allowed: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("runner", &[][..]),
        ("glob", &[][..]),
        ("validate", &["runner"][..]),
        // The checked-in benchmark description every command reads.
        ("config", &["runner", "glob"][..]),
        // The statistics of a series of runs (segments, fits, t quantiles) compare and trend read.
        ("series", &[][..]),
        // The GitHub client, the event payload and the network settings every online command takes.
        ("github", &["runner", "validate"][..]),
        // The data that passes between commands (resolution, selection, report).
        ("contract", &["runner", "config"][..]),
        // Work on at most one thread per core.
        ("parallel", &[][..]),
        // Results files: the table model, its reader, the files a pattern names.
        ("table", &["runner", "validate", "glob", "config"][..]),
        // The paired verdict: rounds of both sides in, each row decided (bench and compare ask it).
        (
            "paired",
            &["runner", "config", "contract", "series", "table"][..],
        ),
        ("resolve", &["runner", "validate", "glob", "github"][..]),
        (
            "compare",
            &[
                "runner", "validate", "glob", "config", "series", "contract", "table", "parallel",
                "paired",
            ][..],
        ),
        (
            "select",
            &["runner", "validate", "glob", "config", "contract"][..],
        ),
        ("lint", &["runner", "glob", "config"][..]),
        ("comment", &["runner", "validate", "github", "contract"][..]),
        (
            "trend",
            &[
                "runner", "validate", "config", "series", "table", "parallel", "contract",
            ][..],
        ),
        (
            "bench",
            &[
                "runner", "validate", "github", "contract", "config", "table", "paired",
            ][..],
        ),
        ("convert", &["runner", "config", "table"][..]),
        ("gate", &["runner", "glob", "contract"][..]),
        (
            "cli",
            &[
                "runner", "resolve", "compare", "select", "lint", "comment", "trend", "bench",
                "convert", "gate",
            ][..],
        ),
        ("lib", &[][..]),
        ("main", &[][..]),
    ]);
    for file in rust_files(&repo_root().join("src")) {
        let (layer, _) = place(&file);
        let ok = allowed
            .get(layer.as_str())
            .unwrap_or_else(|| panic!("{}: a layer ARCHITECTURE.md does not name", file.display()));
        for used in after(&code(&file), "crate::") {
            assert!(
                used == layer || ok.contains(&used.as_str()),
                "{}: layer {layer} imports {used}",
                file.display()
            );
        }
    }
}

/// The commands are siblings: each imports the ground floor, never another
/// command, so a change inside one cannot change another without a change
/// of the ground floor that both read. Only `cli` (the dispatcher) names
/// them all.
#[test]
fn commands_never_import_each_other() {
    for command in COMMANDS {
        for file in rust_files(&repo_root().join("src")) {
            let (layer, _) = place(&file);
            if layer == command || layer == "cli" {
                continue;
            }
            let text = code(&file);
            assert!(
                !text.contains(&format!("crate::{command}::"))
                    && !after(&text, "crate::").contains(command),
                "{}: names crate::{command} outside src/{command}/",
                file.display()
            );
        }
    }
}

#[test]
fn no_import_circle_among_a_commands_modules() {
    for command in COMMANDS {
        let dir = repo_root().join("src").join(command);
        if !dir.exists() {
            continue;
        }
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in rust_files(&dir) {
            let (_, Some(module)) = place(&file) else {
                continue; // the command's mod.rs ties everything together
            };
            let text = code(&file);
            let mut uses = after(&text, &format!("crate::{command}::"));
            // `super::x` from `src/CMD/m.rs` or `src/CMD/m/mod.rs` is a sibling.
            let nested = file.parent() != Some(dir.as_path());
            let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
            if !nested || is_mod {
                uses.extend(after(&text, "super::"));
            }
            uses.remove(&module);
            graph.entry(module).or_default().extend(uses);
        }
        // Depth-first search for a cycle.
        fn visit(
            node: &str,
            graph: &BTreeMap<String, BTreeSet<String>>,
            path: &mut Vec<String>,
            done: &mut BTreeSet<String>,
        ) {
            if done.contains(node) {
                return;
            }
            if let Some(at) = path.iter().position(|n| n == node) {
                panic!("import circle: {} -> {node}", path[at..].join(" -> "));
            }
            path.push(node.to_owned());
            for next in graph.get(node).into_iter().flatten() {
                if graph.contains_key(next) {
                    visit(next, graph, path, done);
                }
            }
            path.pop();
            done.insert(node.to_owned());
        }
        let mut done = BTreeSet::new();
        for node in graph.keys() {
            visit(node, &graph, &mut Vec::new(), &mut done);
        }
    }
}

/// What a pure module may not touch: files, the network, processes, the
/// environment, the runner's reading and writing.
const IO: [&str; 10] = [
    "std::fs",
    "std::net",
    "std::process",
    "std::env",
    "tokio",
    "git2",
    "reqwest",
    "runner::read",
    "runner::write",
    "File::",
];

/// Checks that `files` use no I/O and import, within `command` (through
/// `crate::` paths, and `super::` ones when `siblings`), only `allowed`.
fn assert_pure(files: &[PathBuf], command: &str, allowed: &[&str], siblings: bool, what: &str) {
    assert!(!files.is_empty(), "{what}: no file found");
    for file in files {
        let text = code(file);
        let mut used = after(&text, &format!("crate::{command}::"));
        if siblings {
            used.extend(after(&text, "super::"));
        }
        for module in used {
            assert!(
                allowed.contains(&module.as_str()),
                "{}: {what} imports {module}",
                file.display()
            );
        }
        for io in IO {
            assert!(!text.contains(io), "{}: {what} uses {io}", file.display());
        }
    }
}

/// The rules are the contract: payload in, decision out, nothing else.
#[test]
fn the_rules_do_no_io() {
    let files = rust_files(&repo_root().join("src/resolve/rules"));
    assert_pure(&files, "resolve", &["event", "rules"], false, "the rules");
}

/// The verdict is pure too: joined tables in, classes out. The table and
/// config models it reads are apart from their readers.
#[test]
fn the_verdict_does_no_io() {
    let src = repo_root().join("src/compare");
    let mut files = vec![
        src.join("join.rs"),
        src.join("noise.rs"),
        repo_root().join("src/contract/class.rs"),
        repo_root().join("src/parallel.rs"),
        repo_root().join("src/table/mod.rs"),
        repo_root().join("src/config/mod.rs"),
        repo_root().join("src/config/defaults.rs"),
    ];
    files.extend(rust_files(&src.join("verdict")));
    let allowed = [
        "class",
        "config",
        "defaults",
        "join",
        "noise",
        "parallel",
        "table",
        "verdict",
        "history",
        "row",
        "samples",
        "suite",
        "two_sample",
        // What `verdict/mod.rs` gives its files.
        "BASELINE",
        "CURRENT",
        "HISTORY",
        "Applied",
        "Comparison",
        "Origin",
        "RowResult",
        "Rows",
        "Samples",
        "Bounds",
        "each_change",
    ];
    assert_pure(&files, "compare", &allowed, true, "the verdict");
}

/// The statistics of a series are arithmetic only: numbers in, numbers out.
#[test]
fn the_series_statistics_do_no_io() {
    let files = rust_files(&repo_root().join("src/series"));
    let allowed = ["segment", "fit", "student", "median_of", "robust"];
    assert_pure(&files, "series", &allowed, true, "the series statistics");
}

/// The paired verdict is pure: rounds in, decisions out, whoever asks.
#[test]
fn the_paired_verdict_does_no_io() {
    let files = rust_files(&repo_root().join("src/paired"));
    let allowed = [
        "effects",
        "schedule",
        "tables",
        "Decision",
        "RowRounds",
        "Settings",
        "decide",
    ];
    assert_pure(&files, "paired", &allowed, true, "the paired verdict");
}

/// The selection's decision is pure: changed paths and the config in,
/// groups out. Listing the changes (git2) is apart from it.
#[test]
fn the_selection_does_no_io() {
    let src = repo_root().join("src/select");
    let files = [src.join("decide.rs"), src.join("index.rs")];
    let allowed = ["changes", "decide", "index"];
    assert_pure(&files, "select", &allowed, true, "the selection");
}

/// lint's checks are pure: a parsed workflow in, findings out. Reading
/// files and writing findings are apart from them.
#[test]
fn the_lint_rules_do_no_io() {
    let src = repo_root().join("src/lint");
    let mut files = rust_files(&src.join("rules"));
    files.extend(rust_files(&src.join("shell")));
    files.extend(
        [
            "workflow.rs",
            "yaml.rs",
            "finding.rs",
            "suppress.rs",
            "env.rs",
            "places.rs",
            "evidence.rs",
            "names.rs",
            "calls.rs",
            "scripts.rs",
            "runners.rs",
            "candidates.rs",
            "programs.rs",
            "programs/harnesses.rs",
            "sides.rs",
            "picks.rs",
            "relays.rs",
            "kept.rs",
        ]
        .map(|f| src.join(f)),
    );
    // Modules, and the helpers `rules/mod.rs` gives its files.
    let allowed = [
        "rules",
        "shell",
        // What `shell/mod.rs` gives its files (`tokens` reads words,
        // separators and nested scripts into commands).
        "vars",
        "Command",
        "Nested",
        "SHELLS",
        "Sep",
        "Word",
        "assignment",
        "workflow",
        "yaml",
        "finding",
        "jobs",
        "git",
        "later",
        "loops",
        "expressions",
        "group",
        "results",
        "env",
        "places",
        "evidence",
        "names",
        "calls",
        "scripts",
        "runners",
        "candidates",
        "programs",
        "sides",
        "picks",
        "relays",
        "kept",
        "checkouts",
        "status",
        "cache",
        "acted",
        "handed",
        "pwsh",
        "hit",
        "hit_at",
        "pinned_ref",
        "shell_default",
        "positionals",
        "about_baseline",
        "about_benchmarks",
        "is_sha",
        "measuring_steps",
        "clone_dir",
    ];
    assert_pure(&files, "lint", &allowed, true, "the lint checks");
}

/// The comment's body is pure: the report in, Markdown out.
#[test]
fn the_comment_body_does_no_io() {
    let src = repo_root().join("src/comment");
    assert_pure(
        &[src.join("body.rs")],
        "comment",
        &["report"],
        true,
        "the comment body",
    );
}

/// Text reaches stdout and stderr only through the runner's log writer,
/// which makes every line safe from being read as a workflow command
/// (`runner::log`): nothing else prints or opens the streams. clippy holds
/// the rule (`disallowed-macros` and `disallowed-methods` in clippy.toml,
/// `cargo clippy -- -D warnings` in CI); this checks that the rule stays
/// configured and that the writer is the only file of src/ exempt from it.
#[test]
fn only_the_log_writer_prints() {
    let config = std::fs::read_to_string(repo_root().join("clippy.toml")).unwrap();
    for path in [
        "std::print",
        "std::println",
        "std::eprint",
        "std::eprintln",
        "std::dbg",
        "std::io::stdout",
        "std::io::stderr",
    ] {
        assert!(
            config.contains(&format!("path = \"{path}\"")),
            "clippy.toml no longer disallows {path}"
        );
    }
    let writer = repo_root().join("src/runner/write.rs");
    for file in rust_files(&repo_root().join("src")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let exempt = text.contains("clippy::disallowed_macros")
            || text.contains("clippy::disallowed_methods");
        assert!(
            !exempt || file == writer,
            "{}: exempt from the print rule; write through runner::write and runner::log",
            file.display()
        );
    }
}

/// trend's judgement is pure: series in, changes out, ordered.
#[test]
fn the_trend_judgement_does_no_io() {
    let src = repo_root().join("src/trend");
    let files = [
        src.join("changes.rs"),
        src.join("report.rs"),
        src.join("machine.rs"),
    ];
    let allowed = ["changes", "history", "report"];
    assert_pure(&files, "trend", &allowed, true, "trend's judgement");
}

/// gate's judgement is pure: reports read in, verdicts and an exit code out.
#[test]
fn the_gate_judgement_does_no_io() {
    let files = [repo_root().join("src/gate/judge.rs")];
    assert_pure(&files, "gate", &["jobs", "exit"], true, "gate's judgement");
}

/// bench's plan is pure: the resolution, the selection and what was
/// downloaded in, what each side does out; no process, no file.
#[test]
fn the_bench_plan_does_no_io() {
    let src = repo_root().join("src/bench");
    assert_pure(
        &[src.join("plan.rs"), src.join("values.rs")],
        "bench",
        &["plan", "values"],
        true,
        "bench's plan",
    );
}

/// No file of the source or the tests over 600 lines: a module that grows
/// past it holds more than one responsibility (split it by what it holds).
#[test]
fn no_rust_file_is_over_600_lines() {
    let root = repo_root();
    let mut long = Vec::new();
    for dir in ["src", "tests", "benches"] {
        for file in rust_files(&root.join(dir)) {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > 600 {
                long.push(format!("{} ({lines})", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "over 600 lines: {long:?}");
}
