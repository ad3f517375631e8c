//! Each default lives in one place (`resolve::defaults`,
//! `compare::defaults`); the help text, the `action.yml` files and each
//! command's page in `docs/` repeat it for their readers, and this checks
//! that they all say the same, and that the exit codes agree too.

use std::process::Command;

use baseline_resolver::resolve::defaults;

use crate::action::action;
use crate::support::harness::repo_root;

/// `(flag, action input, docs default cell, the value)`.
fn defaults() -> Vec<(&'static str, &'static str, String)> {
    vec![
        ("--label", "label", defaults::LABEL.to_owned()),
        ("--mode", "mode", defaults::MODE.to_owned()),
        (
            "--tag-pattern",
            "tag-pattern",
            defaults::TAG_PATTERN.to_owned(),
        ),
        (
            "--timeout",
            "timeout",
            defaults::TIMEOUT_SECONDS.to_string(),
        ),
        ("--server-url", "", defaults::SERVER_URL.to_owned()),
        ("--api-url", "", defaults::API_URL.to_owned()),
    ]
}

/// The long help (of `command`) with its line wrapping undone.
pub(crate) fn help(command: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_baseline-resolver"))
        .args(command)
        .arg("--help")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a command states its interface: its `--help` (whitespace
/// collapsed), its `<command>/action.yml`, its `docs/<command>.md` and the
/// README.
struct Surfaces {
    help: String,
    action: serde_yaml_ng::Value,
    page: String,
    front: String,
}

fn surfaces(command: &str) -> Surfaces {
    let read = |path: &str| std::fs::read_to_string(repo_root().join(path)).unwrap();
    Surfaces {
        help: help(&[command]),
        action: crate::action::action_at(&format!("{command}/action.yml")),
        page: read(&format!("docs/{command}.md")),
        front: read("README.md"),
    }
}

/// The default cell of the docs table row whose first cell is `key`.
fn readme_default(readme: &str, section: &str, key: &str) -> String {
    let start = readme
        .find(section)
        .unwrap_or_else(|| panic!("docs have {section}"));
    readme[start..]
        .lines()
        .find(|l| l.starts_with(&format!("| `{key}`")))
        .and_then(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let column = if section.contains("Command-line") {
                3
            } else {
                2
            };
            cells.get(column).map(|c| c.trim_matches('`').to_owned())
        })
        .unwrap_or_else(|| panic!("docs {section} have no row for {key}"))
}

#[test]
fn help_action_yml_and_docs_state_the_same_defaults() {
    let help = help(&[]);
    let action = action();
    let readme = std::fs::read_to_string(repo_root().join("docs/resolve.md")).unwrap();
    for (flag, input, value) in defaults() {
        assert!(
            help.contains(&format!("[default: {value}]")),
            "--help states the default of {flag} as {value}"
        );
        assert_eq!(
            readme_default(&readme, "## Command-line inputs", flag),
            value,
            "docs/resolve.md command-line table, {flag}"
        );
        if input.is_empty() {
            continue;
        }
        assert_eq!(
            action["inputs"][input]["default"].as_str(),
            Some(value.as_str()),
            "action.yml input {input}"
        );
        assert_eq!(
            readme_default(&readme, "### Action inputs", input),
            value,
            "docs/resolve.md action inputs table, {input}"
        );
    }
}

#[test]
fn compare_states_its_defaults_alike_everywhere() {
    use baseline_resolver::compare::defaults as compare;
    let help = help(&["compare"]);
    let action = crate::action::action_at("compare/action.yml");
    let readme = std::fs::read_to_string(repo_root().join("docs/compare.md")).unwrap();
    for (input, value) in [
        ("fail-threshold", compare::FAIL_THRESHOLD_PCT.to_string()),
        ("warn-threshold", compare::WARN_THRESHOLD_PCT.to_string()),
    ] {
        assert!(
            help.contains(&format!("[default: {value}]")),
            "--{input} in compare --help"
        );
        assert_eq!(
            action["inputs"][input]["default"].as_str(),
            Some(value.as_str()),
            "{input}"
        );
        assert_eq!(
            readme_default(&readme, "## Comparing", input),
            value,
            "docs/compare.md, {input}"
        );
    }
    assert!(
        help.contains(&format!("key columns ({})", compare::KEYS.join(","))),
        "keys in compare --help"
    );
}

/// `compare`'s exit codes say the same in `--help` and its page's table:
/// each code there, and the rules that decide between them (each page
/// lists its command's codes, `front_door` checks; the README states what
/// they share).
#[test]
fn compare_exit_codes_agree_between_help_and_docs() {
    let out = Command::new(env!("CARGO_BIN_EXE_baseline-resolver"))
        .args(["compare", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let readme = std::fs::read_to_string(repo_root().join("docs/compare.md")).unwrap();
    let resolve = std::fs::read_to_string(repo_root().join("docs/resolve.md")).unwrap();
    assert!(resolve.contains("\n| 3 |"), "docs/resolve.md lists exit 3");
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let readme = flat(&readme);
    let code_row = |code: u8| -> String {
        let start = readme
            .find("## Comparing")
            .expect("docs/compare.md has a Comparing section");
        readme[start..]
            .split("| ")
            .skip_while(|c| c.trim() != code.to_string())
            .nth(1)
            .unwrap_or_default()
            .to_owned()
    };
    // Each code starts a line of its own: "  N  text", continued by
    // deeper-indented lines.
    let help_row = |code: u8| -> String {
        let at = help
            .find("Exit codes:")
            .expect("compare --help lists exit codes");
        let lines: Vec<&str> = help[at..].lines().collect();
        let start = lines
            .iter()
            .position(|l| l.starts_with(&format!("  {code}  ")))
            .unwrap_or_else(|| panic!("exit {code} in --help"));
        let mut row = lines[start].to_owned();
        for l in &lines[start + 1..] {
            if !l.starts_with("     ") {
                break;
            }
            row.push(' ');
            row.push_str(l.trim());
        }
        flat(&row)
    };
    for (code, phrases) in [
        (0u8, &["--strict", "no-gate", "still exit 1 and 2"][..]),
        (1, &["UTF-8", "64 MiB", "512 MiB", "1 MiB"][..]),
        (2, &["100 or more", "higher-is-better"][..]),
        (3, &["--strict"][..]),
        (4, &["lost"][..]),
    ] {
        let (h, r) = (help_row(code), code_row(code));
        for phrase in phrases {
            assert!(
                h.contains(phrase),
                "exit {code} in --help lacks {phrase:?}: {h}"
            );
            assert!(
                r.contains(phrase),
                "exit {code} in docs/compare.md lacks {phrase:?}: {r}"
            );
        }
    }
}

/// `select`'s inputs, outputs and exit codes say the same in `--help`,
/// `select/action.yml` and its page; the README's row.
#[test]
fn select_states_its_inputs_outputs_and_exits_alike_everywhere() {
    let Surfaces {
        help,
        action,
        page,
        front,
    } = surfaces("select");
    let inputs = action["inputs"].as_mapping().expect("select inputs");
    assert_eq!(inputs.len(), 5, "select/action.yml inputs");
    for (name, _) in inputs {
        let name = name.as_str().unwrap();
        let row = format!("| `{name}` |");
        assert!(page.contains(&row), "docs/select.md lacks input {name}");
        assert!(
            help.contains(&format!("--{name} <")),
            "select --help lacks --{name}"
        );
        assert!(
            help.contains(&format!("[env: INPUT_{}]", name.to_uppercase())),
            "select --help: INPUT_{} for {name}",
            name.to_uppercase()
        );
    }
    assert_eq!(
        readme_default(&page, "## Output", "repo"),
        action["inputs"]["repo"]["default"].as_str().unwrap()
    );
    let outputs = action["outputs"].as_mapping().expect("select outputs");
    for (name, _) in outputs {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` |")),
            "docs/select.md lacks output {name}"
        );
    }
    assert_eq!(outputs.len(), 5, "select/action.yml outputs");
    for code in 0..=2 {
        assert!(
            help.contains(&format!("{code} ")),
            "select --help lists exit {code}"
        );
        assert!(
            page.contains(&format!("| {code} |")),
            "docs/select.md lists exit {code}"
        );
    }
    // The README states 0, 1 and 2 once for every command.
    assert!(front.contains("Shared by every command: 0 done; 1 bad input"));
    assert!(front.contains("[docs/select.md](docs/select.md)"));
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    for phrase in [
        "no base commit given at all",
        "a revision starting with -",
        "has no [select] table",
    ] {
        assert!(help.contains(phrase), "select --help lacks {phrase:?}");
        assert!(
            flat(&page.replace('`', "")).contains(phrase),
            "docs/select.md lacks {phrase:?}"
        );
    }
}

/// `lint`'s rules (id and severity) as the code defines them, in `--help`
/// and docs/lint.md's table, the one table of them (the README links it).
#[test]
fn lint_states_its_rules_alike_everywhere() {
    use baseline_resolver::lint::finding::RULES;
    let help = help(&["lint"]);
    let page = std::fs::read_to_string(repo_root().join("docs/lint.md")).unwrap();
    let front = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let row_severity = |text: &str, id: &str| -> Option<String> {
        text.lines()
            .find(|l| l.starts_with(&format!("| `{id}` |")))
            .and_then(|l| l.split('|').nth(2).map(|c| c.trim().to_owned()))
    };
    for rule in RULES {
        let severity = rule.severity.name();
        assert!(
            help.contains(&format!("{} ({severity})", rule.id)),
            "lint --help: {} ({severity})",
            rule.id
        );
        assert_eq!(
            row_severity(&page, rule.id).as_deref(),
            Some(severity),
            "docs/lint.md's rule table: {}",
            rule.id
        );
    }
    let rows = |text: &str| {
        text.lines()
            .filter(|l| {
                l.starts_with("| `")
                    && RULES
                        .iter()
                        .any(|r| l.starts_with(&format!("| `{}` |", r.id)))
            })
            .count()
    };
    assert_eq!(
        rows(&front),
        0,
        "README: the rules are said once, in docs/lint.md"
    );
    assert!(front.contains("[docs/lint.md](docs/lint.md)"));
    assert_eq!(rows(&page), RULES.len(), "docs/lint.md: one row per rule");
}

/// `lint`'s inputs, outputs and exit codes in `lint/action.yml`, `--help`
/// and its page; the README's row.
#[test]
fn lint_states_its_inputs_and_exits_alike_everywhere() {
    let Surfaces {
        help,
        action,
        page,
        front,
    } = surfaces("lint");
    for (name, value) in action["inputs"].as_mapping().unwrap() {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` |")),
            "docs/lint.md input {name}"
        );
        let var = format!("INPUT_{}", name.to_uppercase().replace('-', "_"));
        assert!(help.contains(&var), "lint --help names {var}");
        if let Some(default) = value["default"].as_str().filter(|d| !d.is_empty()) {
            assert!(
                help.contains(&format!("[default: {default}]")),
                "--help default of {name}"
            );
            assert_eq!(
                readme_default(&page, "## Inputs and outputs", name),
                default
            );
        }
    }
    for (name, _) in action["outputs"].as_mapping().unwrap() {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` |")),
            "docs/lint.md output {name}"
        );
    }
    for (code, phrase) in [
        (0, "nothing at or above"),
        (1, "bad input"),
        (2, "usage"),
        (4, "findings at or above"),
    ] {
        assert!(
            help.contains(&format!("{code} {phrase}")),
            "lint --help exit {code}"
        );
        assert!(
            page.contains(&format!("| {code} | {phrase}")),
            "docs/lint.md exit {code}"
        );
    }
    assert!(
        front.contains("`OWNER/baseline-resolver/lint`"),
        "README's row"
    );
}

/// `comment`'s inputs, defaults, outputs and exit codes say the same in
/// `--help`, `comment/action.yml` and docs/comment.md; the README's row.
#[test]
fn comment_states_its_inputs_defaults_and_exits_alike_everywhere() {
    use baseline_resolver::comment::args::{AUTHOR_DEFAULT, MARKER_DEFAULT};
    let Surfaces {
        help,
        action,
        page,
        front,
    } = surfaces("comment");
    for (input, value) in [("marker", MARKER_DEFAULT), ("author", AUTHOR_DEFAULT)] {
        assert!(
            help.contains(&format!("[default: {value}]")),
            "--{input} in comment --help"
        );
        assert_eq!(
            action["inputs"][input]["default"].as_str(),
            Some(value),
            "{input}"
        );
        assert_eq!(
            readme_default(&page, "## Inputs and outputs", input),
            value,
            "docs/comment.md, {input}"
        );
    }
    for (name, _) in action["inputs"].as_mapping().unwrap() {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` |")),
            "docs/comment.md input {name}"
        );
        assert!(
            help.contains(&format!("--{name}")),
            "comment --help: --{name}"
        );
        assert!(
            help.contains(&format!("INPUT_{}", name.to_uppercase())),
            "comment --help: INPUT_ of {name}"
        );
    }
    for (name, _) in action["outputs"].as_mapping().unwrap() {
        let name = name.as_str().unwrap();
        assert!(
            page.contains(&format!("| `{name}` |")),
            "docs/comment.md output {name}"
        );
    }
    for (code, phrase) in [(0, "commented"), (1, "bad input"), (2, "usage")] {
        assert!(
            help.contains(&format!("{code} {phrase}")),
            "comment --help exit {code}"
        );
        assert!(
            page.contains(&format!("| {code} | {phrase}")),
            "docs/comment.md exit {code}"
        );
    }
    assert!(help.contains("--strict") && page.contains("`--strict` makes it exit 1"));
    assert!(
        front.contains("[docs/comment.md](docs/comment.md)"),
        "README's row of comment"
    );
}

/// `--results-format` is declared alike by every command that reads
/// results: found from the content unless named, the same words in the
/// help, an empty action input, and the docs table's default cell.
#[test]
fn results_format_is_declared_alike_by_every_command_that_reads_results() {
    for command in ["bench", "compare", "trend"] {
        let s = surfaces(command);
        assert!(
            s.help
                .contains("--results-format <NAME> The results format of")
                && s.help.contains(
                    "[default: found from each file's content] [env: INPUT_RESULTS_FORMAT]"
                ),
            "{command} --help"
        );
        assert_eq!(
            s.action["inputs"]["results-format"]["default"].as_str(),
            Some(""),
            "{command}/action.yml"
        );
        let row = s
            .page
            .lines()
            .find(|l| l.starts_with("| `results-format` |"))
            .unwrap_or_else(|| panic!("docs/{command}.md has a results-format row"));
        assert!(
            row.contains("found from each file's content"),
            "docs/{command}.md: {row}"
        );
    }
}
