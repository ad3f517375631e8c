//! `--keys`, `--metric` and `--ignore`: a CSV with its own columns (the
//! allreduce benchmark's: a row per rank and an aggregate row per shape,
//! `avg_time_us` lower is better) compared without a config file.

use crate::compare::write;
use crate::support::harness::Bin;

const HEADER: &str = "rank,shape,dtype,world_size,mode,avg_time_us,bw_gbps\n";

/// Rank 1 of the small shape triples (a per-rank row, ignored), its
/// aggregate is 5% slower but by 1 us (under the 10 us floor: unchanged),
/// the large shape's aggregate 30% slower (a regression at 15%).
fn allreduce(dir: &std::path::Path) -> (String, String) {
    let base = "0,2x7168,fp16,8,cudagraph,20.0,1\n1,2x7168,fp16,8,cudagraph,20.0,1\n\
                aggregate,2x7168,fp16,8,cudagraph,20.0,1\naggregate,1024x7168,bf16,8,cudagraph,200.0,1\n";
    let cur = "0,2x7168,fp16,8,cudagraph,20.0,1\n1,2x7168,fp16,8,cudagraph,60.0,1\n\
               aggregate,2x7168,fp16,8,cudagraph,21.0,1\naggregate,1024x7168,bf16,8,cudagraph,260.0,1\n";
    let c = write(dir, "current.csv", &format!("{HEADER}{cur}"));
    let b = write(dir, "main.csv", &format!("{HEADER}{base}"));
    (c.display().to_string(), format!("main={}", b.display()))
}

#[test]
fn an_allreduce_csv_is_judged_on_its_own_columns_without_a_config() {
    let r = Bin::new();
    let (current, baseline) = allreduce(r.dir());
    let run = r
        .args(["compare", "--current", &current, "--baseline", &baseline])
        .args(["--metric", "avg_time_us:lower", "--fail-threshold", "15"])
        .args(["--floor", "10"])
        .env("INPUT_KEYS", "rank,shape,dtype")
        .env("INPUT_IGNORE", "rank=?\n")
        .run();
    run.assert_code(4);
    insta::assert_snapshot!("allreduce_keys_metric_ignore", run.stdout);
}

#[test]
fn without_them_the_allreduce_csv_is_refused_naming_the_missing_key() {
    let r = Bin::new();
    let (current, baseline) = allreduce(r.dir());
    let run = r
        .args(["compare", "--current", &current, "--baseline", &baseline])
        .run();
    run.assert_code(1);
    assert!(run.stderr.contains("no key column op"), "{}", run.stderr);
}

#[test]
fn bad_keys_metric_or_ignore_are_usage_errors_naming_the_input() {
    for (args, says) in [
        (
            vec!["--keys", "rank,,dtype"],
            "--keys: a column name is 1 to 64",
        ),
        (vec!["--keys", "rank,rank"], "named twice"),
        (
            vec!["--metric", "avg_time_us:faster"],
            "--metric: expected COLUMN:higher",
        ),
        (
            vec!["--keys", "rank,shape,dtype", "--ignore", "op=?"],
            "--ignore",
        ),
        (
            vec!["--floor=-1"],
            "--floor: expected a number of 0 or more",
        ),
    ] {
        let r = Bin::new();
        let (current, baseline) = allreduce(r.dir());
        let run = r
            .args(["compare", "--current", &current, "--baseline", &baseline])
            .args(args.iter().copied())
            .run();
        run.assert_code(2);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: nothing compared");
    }
}

#[test]
fn keys_beside_a_config_with_rules_are_refused() {
    let r = Bin::new();
    let (current, baseline) = allreduce(r.dir());
    let config = write(
        r.dir(),
        "c.toml",
        "[[rules]]\nmatch = [\"op=x\"]\nignore = true\n",
    );
    let run = r
        .args(["compare", "--current", &current, "--baseline", &baseline])
        .args(["--keys", "rank,shape,dtype", "--config"])
        .arg(&config)
        .run();
    run.assert_code(2);
    assert!(
        run.stderr.contains("--keys: the config has rules"),
        "{}",
        run.stderr
    );
}
