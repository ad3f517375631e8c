//! Each input is declared once in its command's `args.rs` (flag, `INPUT_*`
//! variable, default, help); `--help` is made from it, and this checks
//! that each command's `action.yml` and docs table say the same: every
//! declared `INPUT_*` variable is an action input of that name with the
//! declared default (`false` for a switch, empty or a `${{ }}` expression
//! where none is declared), every action input is declared, and the docs table has a row
//! for each, stating the declared default.

use baseline_resolver::runner::Declared;
use baseline_resolver::runner::declare::{Default, Input, Shape};

use crate::action::action_at;
use crate::support::harness::repo_root;

/// The cells of the docs table row that names the input `name` (a cell
/// that starts with `` `name` ``).
fn docs_row(page: &str, name: &str) -> Option<Vec<String>> {
    let cell = format!("`{name}`");
    page.lines().filter(|l| l.starts_with('|')).find_map(|row| {
        let cells: Vec<String> = row.split('|').map(|c| c.trim().to_owned()).collect();
        cells.iter().any(|c| c.starts_with(&cell)).then_some(cells)
    })
}

/// Whether a cell states `value`: `` `10` ``, or `` `0` (any number) ``.
fn states(cell: &str, value: &str) -> bool {
    let plain = cell.replace('`', "");
    plain == value || plain.starts_with(&format!("{value} "))
}

fn check(command: &str, inputs: &[Input]) {
    // resolve, the first command, is the repository's root action.
    let action = match command {
        "resolve" => action_at("action.yml"),
        _ => action_at(&format!("{command}/action.yml")),
    };
    let page = std::fs::read_to_string(repo_root().join(format!("docs/{command}.md"))).unwrap();
    let declared: Vec<(String, &Input)> = inputs
        .iter()
        .filter_map(|i| i.action_input().map(|name| (name, i)))
        .collect();
    for (name, input) in &declared {
        let yml = &action["inputs"][name.as_str()];
        assert!(
            !yml.is_null(),
            "{command}/action.yml lacks the declared input {name}"
        );
        let default = yml["default"].as_str().unwrap_or("");
        let want = match (input.default, input.shape) {
            (Default::Value(v), _) => v,
            (_, Shape::Switch) => "false",
            (Default::Said(_) | Default::None, _) => "",
        };
        // An expression (`${{ github.token }}`) is the runner's value of
        // what the binary would otherwise read from the environment.
        if !(want.is_empty() && default.starts_with("${{")) {
            assert_eq!(default, want, "{command}/action.yml default of {name}");
        }
        let row = docs_row(&page, name)
            .unwrap_or_else(|| panic!("docs/{command}.md has no row for input {name}"));
        if let Default::Value(_) = input.default {
            assert!(
                row.iter().any(|c| states(c, want)),
                "docs/{command}.md states the default of {name}, {want}: {row:?}"
            );
        }
    }
    for (name, _) in action["inputs"].as_mapping().unwrap() {
        let name = name.as_str().unwrap();
        assert!(
            declared.iter().any(|(d, _)| d == name),
            "{command}/action.yml input {name} is declared in src/{command}/args.rs"
        );
    }
}

/// Every command with an action: its action and docs page against its
/// declarations (`convert` has no action).
#[test]
fn each_action_yml_and_docs_page_say_what_the_command_declares() {
    use baseline_resolver::{bench, comment, compare, gate, lint, resolve, select, trend};
    for (command, inputs) in [
        ("resolve", resolve::args::Resolve::INPUTS),
        ("select", select::args::Select::INPUTS),
        ("bench", bench::args::Bench::INPUTS),
        ("compare", compare::args::Compare::INPUTS),
        ("gate", gate::args::Gate::INPUTS),
        ("comment", comment::args::Comment::INPUTS),
        ("trend", trend::args::Trend::INPUTS),
        ("lint", lint::args::Lint::INPUTS),
    ] {
        check(command, inputs);
    }
}
