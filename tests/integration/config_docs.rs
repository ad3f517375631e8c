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
    assert_eq!((config.rerun.key, config.rerun.join), (0, ","));
}

/// `[rerun]` names the column and the joiner of compare's `rerun` output
/// (the harness's own flag, not one harness's `--only a,b`); a column that
/// is not a key and an unknown joiner are errors naming the line.
#[test]
fn rerun_takes_its_column_and_joiner_from_the_config() {
    let bin = crate::support::harness::Bin::new();
    let dir = bin.dir().to_owned();
    std::fs::write(
        dir.join("bench.toml"),
        "keys = [\"op\", \"shape\"]\n[rerun]\nkey = \"shape\"\njoin = \"or\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.csv"),
        "op,shape,tflops\ngemm,a b,100\nsoftmax,c,100\nrms,d,100\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pr.csv"),
        "op,shape,tflops\ngemm,a b,70\nsoftmax,c,70\nrms,d,100\n",
    )
    .unwrap();
    let run = bin
        .on_runner()
        .args([
            "compare",
            "--current",
            "pr.csv",
            "--baseline",
            "main=main.csv",
            "--config",
            "bench.toml",
        ])
        .run();
    run.assert_code(4);
    assert_eq!(run.outputs()["rerun"], "a_b or c");
    for (bad, says) in [
        (
            "[rerun]\nkey = \"tflops\"\n",
            "line 1: rerun: key \"tflops\" is not one of the key columns",
        ),
        (
            "[rerun]\njoin = \"semicolon\"\n",
            "is not comma, space, lines or or",
        ),
    ] {
        let e = parse(bad).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
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
        "key",
        "join",
    ] {
        assert!(
            page.contains(&format!("| `{key}` |")),
            "docs/config.md lacks {key}"
        );
    }
    // An unknown key is refused, as the page says.
    assert!(parse("[[metrics]]\ncolumn = \"x\"\nunit = \"u\"\ncolour = 1\n").is_err());
}
