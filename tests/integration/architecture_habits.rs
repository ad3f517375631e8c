//! The guide's code habits that a reader cannot see at a glance, held over
//! every module of src/: no function over 80 lines, and one name for one
//! meaning.

use crate::architecture::{code, rust_files};
use crate::support::harness::repo_root;

/// The house rule of no function over 80 lines, held in every module of
/// src/: one that grows past it decides or does more than one thing.
/// Counted from the `fn` line (whatever its
/// visibility or qualifiers) to the brace that closes it at the same
/// indent.
#[test]
fn no_function_is_over_80_lines() {
    let mut long = Vec::new();
    for file in rust_files(&repo_root().join("src")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (at, line) in lines.iter().enumerate() {
            if !opens_fn(line) {
                continue;
            }
            let indent = &line[..line.len() - line.trim_start().len()];
            let close = format!("{indent}}}");
            if let Some(end) = lines[at..].iter().position(|l| *l == close)
                && end + 1 > 80
            {
                long.push(format!("{}:{} ({})", file.display(), at + 1, end + 1));
            }
        }
    }
    assert!(long.is_empty(), "functions over 80 lines: {long:?}");
}

/// Whether `line` starts a function with a body: `fn`, after any
/// `pub`/`pub(...)` and `const`/`async`/`unsafe` (not a trait's `fn ...;`).
fn opens_fn(line: &str) -> bool {
    let mut head = line.trim_start();
    if let Some(rest) = head.strip_prefix("pub") {
        head = match rest.strip_prefix('(') {
            Some(inner) => inner.split_once(") ").map_or(rest, |(_, after)| after),
            None => rest.trim_start(),
        };
    }
    for qualifier in ["const ", "async ", "unsafe "] {
        head = head.strip_prefix(qualifier).unwrap_or(head);
    }
    head.starts_with("fn ") && !line.trim_end().ends_with(';')
}

/// One name, one meaning: `repo` is a GitHub repository's name
/// (`RepoName`, OWNER/NAME) wherever it is a binding. A root path is a
/// `checkout` or `work_tree`, an opened git repository is `git`: a name
/// that held all three would make `git -C repo` and `git_url(server,
/// repo)` read alike and let a path pass where a name is meant. Nor is it a
/// module or a type: lint's survey of the files around the one it reads
/// is `Neighbours`.
#[test]
fn repo_never_names_a_path_or_an_opened_git_repository() {
    let mut found = Vec::new();
    let src = repo_root().join("src");
    for file in rust_files(&src) {
        let name = file.file_stem().and_then(|s| s.to_str());
        if name == Some("repo") {
            found.push(format!("{}: a module named repo", file.display()));
        }
        for line in code(&file).lines() {
            let names_a_type = ["struct Repo<", "struct Repo {", "mod repo;"]
                .iter()
                .any(|t| line.contains(t));
            if names_a_type || repo_holds_a_path_or_git(line) {
                found.push(format!("{}: {}", file.display(), line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "`repo` as a path or a git handle: {found:#?}"
    );
}

/// Whether `line` binds the word `repo` to a path or to a git2
/// repository: typed so, or made by `Repository::`, `open(`,
/// `discover(` or `.join(`.
fn repo_holds_a_path_or_git(line: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    line.match_indices("repo").any(|(at, _)| {
        let rest = &line[at + 4..];
        if word(line[..at].chars().next_back()) || word(rest.chars().next()) {
            return false;
        }
        let rest = rest.trim_start();
        let typed = [": &Path", ": PathBuf", ": &Repository", ": Repository"]
            .iter()
            .any(|t| rest.starts_with(t));
        let made = rest.starts_with("= ")
            && ["Repository::", "open(", "discover(", ".join("]
                .iter()
                .any(|m| rest.contains(m));
        typed || made
    })
}
