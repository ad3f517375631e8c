//! ARCHITECTURE.md kept true (issue 50): its code map names every module
//! of `src/`, everything it names exists, and each command has the short
//! section a newcomer reads first (what it reads, decides, writes, its
//! exit codes). `architecture.rs` checks the import rules the map states.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::harness::repo_root;

/// The commands, each a folder of `src/` and a section of the map.
const COMMANDS: [&str; 9] = [
    "resolve", "select", "bench", "compare", "comment", "gate", "trend", "lint", "convert",
];

fn map() -> String {
    std::fs::read_to_string(repo_root().join("ARCHITECTURE.md")).unwrap()
}

/// The text of `text` from the line `heading` to the next heading of the
/// same or a higher level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let level = heading.split(' ').next().unwrap().len();
    let start = text
        .find(&format!("\n{heading}"))
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no {heading:?}"))
        + 1;
    let body = &text[start..];
    let end = body
        .match_indices("\n#")
        .map(|(at, _)| at)
        .find(|&at| {
            let hashes = body[at + 1..].chars().take_while(|c| *c == '#').count();
            hashes <= level && body[at + 1 + hashes..].starts_with(' ')
        })
        .unwrap_or(body.len());
    &body[..end]
}

/// Every word (identifier) of the Rust sources under the given folders.
fn words(dirs: &[&str]) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for dir in dirs {
        let mut files = Vec::new();
        rust_files(&repo_root().join(dir), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if !word.is_empty() {
                    all.insert(word.to_owned());
                }
            }
        }
    }
    all
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code-map section of a layer: from the `### ` heading naming
/// `src/<layer>` to the next one.
fn layer_section<'a>(code_map: &'a str, layer: &str) -> Option<&'a str> {
    let needle = format!("`src/{layer}");
    let (at, _) = code_map.match_indices("\n### ").find(|(at, _)| {
        code_map[at + 1..]
            .lines()
            .next()
            .is_some_and(|l| l.contains(&needle))
    })?;
    let body = &code_map[at + 1..];
    let end = body[1..].find("\n### ").map_or(body.len(), |e| e + 1);
    Some(&body[..end])
}

/// Every module of `src/` is named, in backquotes, in its layer's section
/// of the code map (a file of a module's tests excepted).
#[test]
fn the_code_map_names_every_module_of_src() {
    let text = map();
    let code_map = section(&text, "## Code map");
    let src = repo_root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut missing = Vec::new();
    for path in &files {
        let file = path.strip_prefix(&src).unwrap().to_string_lossy();
        let parts: Vec<&str> = file.trim_end_matches(".rs").split('/').collect();
        let stem = *parts.last().unwrap();
        if stem == "tests" || stem.ends_with("_tests") {
            continue;
        }
        let Some(layer_text) = layer_section(code_map, parts[0]) else {
            missing.push(format!("src/{file}: no section"));
            continue;
        };
        if parts.len() == 1 || (parts.len() == 2 && stem == "mod") {
            continue;
        }
        let name = if stem == "mod" {
            parts[parts.len() - 2]
        } else {
            stem
        };
        let named = [
            format!("`{name}`"),
            format!("`{name}/`"),
            format!("`{name}` ("),
            format!("::{name}`"),
            format!("`{name}::"),
            format!("`{name}.rs`"),
        ]
        .iter()
        .any(|n| layer_text.contains(n.as_str()));
        if !named {
            missing.push(format!("src/{file}"));
        }
    }
    assert!(
        missing.is_empty(),
        "modules the code map does not name:\n{}",
        missing.join("\n")
    );
}

/// What the map names exists: every `src/`, `tests/`, `scripts/` or
/// `benches/` path, and every backquoted Rust path or type name is a word
/// of the sources (the library's or the tests').
#[test]
fn everything_the_map_names_exists() {
    let text = map();
    let known = words(&["src", "tests", "benches"]);
    let mut stale = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let path = quoted.trim_end_matches(['.', ',']);
        let is_path = ["src/", "tests/", "scripts/", "benches/"]
            .iter()
            .any(|p| path.starts_with(p))
            && !path.contains(['<', '*', ' ']);
        if is_path {
            if !repo_root().join(path).exists() {
                stale.push(path.to_owned());
            }
            continue;
        }
        let rust_path = quoted.contains("::")
            && quoted
                .split("::")
                .all(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'));
        let type_name = quoted.len() > 1
            && quoted.starts_with(|c: char| c.is_ascii_uppercase())
            && quoted.chars().all(|c| c.is_alphanumeric())
            && quoted.chars().any(|c| c.is_ascii_lowercase());
        if rust_path || type_name {
            for part in quoted.split("::").filter(|p| *p != "crate") {
                if !known.contains(part) {
                    stale.push(quoted.to_owned());
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "ARCHITECTURE.md names what is not there:\n{}",
        stale.join("\n")
    );
}

/// Each command has its short section: what it reads, what it decides,
/// what it writes, its exit codes; and each exit code its `exit` module
/// adds is named there.
#[test]
fn each_command_has_a_section_a_newcomer_reads_first() {
    let text = map();
    let commands = section(&text, "## The commands, one at a time");
    for command in COMMANDS {
        let own = section(commands, &format!("### {command}:"));
        for part in ["**Reads**", "**Decides**", "**Writes**", "**Exits**"] {
            assert!(own.contains(part), "{command}'s section lacks {part}");
        }
        let source = std::fs::read_to_string(repo_root().join(format!("src/{command}/mod.rs")))
            .unwrap_or_default();
        let exit = source
            .split("pub mod exit {")
            .nth(1)
            .and_then(|m| m.split("\n}").next())
            .unwrap_or_default();
        for line in exit.lines() {
            let Some(rest) = line.trim().strip_prefix("pub const ") else {
                continue;
            };
            let name = rest.split(':').next().unwrap();
            let value = rest.split('=').nth(1).unwrap().trim().trim_end_matches(';');
            assert!(
                own.contains(&format!("{value} `{command}::exit::{name}`")),
                "{command}'s section names exit {value} {command}::exit::{name}"
            );
        }
    }
}
