//! docs/config.md is the reference of `bench.toml`: its complete example is
//! a config every command accepts, and it names every key the reader knows.

use baseline_resolver::config::Direction;
use baseline_resolver::config::load::parse;

use crate::support::harness::repo_root;

fn page() -> String {
    std::fs::read_to_string(repo_root().join("docs/config.md")).unwrap()
}

#[test]
fn the_complete_example_is_a_config_as_documented() {
    let page = page();
    let start = page.find("```toml\n").expect("a TOML example") + "```toml\n".len();
    let end = start + page[start..].find("```").unwrap();
    let config = parse(&page[start..end]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.keys, ["op", "shape", "dtype"]);
    assert_eq!(config.metrics.len(), 3);
    assert_eq!(config.metrics[2].direction, Direction::Lower);
    assert_eq!(config.rules.len(), 4);
    assert!(config.rules[3].ignore);
    let select = config.select.expect("[select]");
    assert_eq!(select.groups.len(), 2);
    assert_eq!(config.lint.expect("[lint]").benchmark_jobs.len(), 2);
}

#[test]
fn every_key_the_reader_knows_has_a_row() {
    let page = page();
    for key in [
        "keys",
        "metrics",
        "rules",
        "select",
        "lint",
        "column",
        "unit",
        "direction",
        "match",
        "fail-threshold",
        "warn-threshold",
        "floor",
        "ignore",
        "all",
        "max-files",
        "groups",
        "benchmark-jobs",
        "benchmark-workflows",
    ] {
        assert!(
            page.contains(&format!("| `{key}` |")),
            "docs/config.md lacks {key}"
        );
    }
    // An unknown key is refused, as the page says.
    assert!(parse("[[metrics]]\ncolumn = \"x\"\nunit = \"u\"\ncolour = 1\n").is_err());
}
