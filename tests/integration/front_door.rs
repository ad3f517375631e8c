//! The pages a newcomer reads first (issue 50): the README stays a front
//! door (the commands, a minimal workflow, links) and each command's detail
//! lives once, on its own page, where these tests look for it.

use crate::support::harness::repo_root;

/// The commands in the order a pull request's job runs them, then the
/// others: the order of the README's table.
const COMMANDS: [&str; 9] = [
    "resolve", "select", "bench", "compare", "comment", "gate", "trend", "lint", "convert",
];

fn read(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `baseline-resolver COMMAND --help` as printed.
fn help(command: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_baseline-resolver"))
        .args(command)
        .arg("--help")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The commands `baseline-resolver --help` lists, in its order.
fn listed_commands() -> Vec<String> {
    let help = help(&[]);
    let at = help.find("Commands:").expect("--help lists the commands");
    help[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// The README's command table and `--help`'s list of commands: one row per
/// command the binary has, in the order a workflow runs them, each row
/// linking the command's own page.
#[test]
fn the_readme_lists_every_command_once_in_workflow_order_with_its_page() {
    let front = read("README.md");
    let rows: Vec<&str> = front
        .lines()
        .filter(|l| l.starts_with("| `") && l.contains("| [docs/"))
        .collect();
    let named: Vec<String> = rows
        .iter()
        .map(|r| r[3..].split('`').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(named, COMMANDS, "the README's command table");
    assert_eq!(
        listed_commands(),
        COMMANDS,
        "the commands --help lists, in the README's order"
    );
    for (row, command) in rows.iter().zip(COMMANDS) {
        let page = format!("docs/{command}.md");
        assert!(
            row.ends_with(&format!("[{page}]({page}) |")),
            "{command}'s row links {page}: {row}"
        );
        assert!(repo_root().join(&page).is_file(), "{page} exists");
    }
}

/// The README opens with the two commands a newcomer runs on a fresh
/// machine (the dry run, the tests), the tests being what CI runs; and it
/// stays a front door, the detail on the pages it links.
#[test]
fn the_readme_opens_with_the_dry_run_and_the_tests_and_stays_short() {
    let front = read("README.md");
    let first = front
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a first shell block");
    let lines: Vec<&str> = first.lines().collect();
    assert_eq!(lines.len(), 2, "two commands: {first}");
    assert!(
        lines[0].contains("resolve --event examples/events/") && lines[0].contains("--offline")
    );
    assert_eq!(lines[1], "cargo test");
    assert!(
        read(".ci/run").contains("cargo test --locked -- --include-ignored"),
        "CI runs the README's test command"
    );
    assert!(front.contains("`cargo test -- --include-ignored`"));
    let count = front.lines().count();
    assert!(
        count <= 200,
        "README.md is {count} lines: move detail to docs/"
    );
}

/// Each command's page lists every exit code its `--help` lists (the
/// README states only what they share), and the shared meaning of 3 holds:
/// `--strict` and no answer.
#[test]
fn each_command_page_lists_the_exit_codes_of_its_help() {
    let front = read("README.md");
    assert!(front.contains("Shared by every command: 0 done; 1 bad input"));
    assert!(front.contains("3 is `--strict` with no answer"));
    for command in COMMANDS {
        let help = help(&[command]);
        let page = read(&format!("docs/{command}.md"));
        let at = help
            .find("\nExit codes:\n")
            .unwrap_or_else(|| panic!("{command} --help lists its exit codes"));
        let codes: Vec<&str> = help[at..]
            .lines()
            .filter_map(|l| l.strip_prefix("  "))
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .filter_map(|l| l.split("  ").next())
            .collect();
        assert!(codes.len() >= 3, "{command}: {codes:?}");
        for code in codes {
            assert!(
                page.contains(&format!("\n| {code} |")),
                "docs/{command}.md lacks exit {code}"
            );
            if code == "3" {
                let line = help[at..].lines().find(|l| l.starts_with("  3  ")).unwrap();
                assert!(line.contains("--strict"), "{command}: {line}");
            }
        }
    }
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The text outside fenced blocks (a link in a code block is not a link).
fn prose(text: &str) -> String {
    text.split("```").step_by(2).collect::<Vec<_>>().join("\n")
}

/// Every relative link of the README, the top-level pages and docs/ leads
/// to a file that exists, and a `#anchor` into a page to one of its
/// headings: moving a section must not leave a reader at a dead end.
#[test]
fn every_relative_link_of_the_docs_leads_somewhere() {
    let mut pages = vec![
        "README.md".to_owned(),
        "SECURITY.md".to_owned(),
        "ARCHITECTURE.md".to_owned(),
    ];
    for entry in std::fs::read_dir(repo_root().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    let mut dead = Vec::new();
    for page in &pages {
        let text = prose(&read(page));
        let dir = std::path::Path::new(page).parent().unwrap();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find([')', ' ']).unwrap_or(rest.len())];
            if target.contains(':') || target.is_empty() {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file = if path.is_empty() {
                repo_root().join(page)
            } else {
                repo_root().join(dir).join(path)
            };
            if !file.exists() {
                dead.push(format!("{page}: {target}"));
                continue;
            }
            if anchor.is_empty() || !path.ends_with(".md") && !path.is_empty() {
                continue;
            }
            let body = prose(&std::fs::read_to_string(&file).unwrap());
            let found = body
                .lines()
                .filter_map(|l| l.strip_prefix('#'))
                .map(|l| slug(l.trim_start_matches('#')))
                .any(|s| s == anchor);
            if !found {
                dead.push(format!("{page}: {target} (no such heading)"));
            }
        }
    }
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}
