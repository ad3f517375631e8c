//! The values that say how rows are judged (the thresholds, the
//! false-alarm rate, the rounds, the floor) reach a verdict three ways:
//! given to bench (which judges its rounds between looks), given to
//! compare, or carried by bench's manifest into compare. Two parsers of
//! one value had drifted (bench refused `--fail-threshold 0`, compare took
//! it; a manifest's look schedule was not checked at all): each value must
//! be taken, or refused in the same words, whichever way it comes.

use std::path::Path;

use serde_json::json;

use crate::support::harness::Bin;

/// One row, lower is better (a time), on each side.
fn files(dir: &Path) {
    std::fs::write(dir.join("c.csv"), "op,shape,dtype,time\na,1,f,10\n").unwrap();
    std::fs::write(dir.join("b.csv"), "op,shape,dtype,time\na,1,f,10.5\n").unwrap();
}

/// What a command said of `flag`: `Ok` when it went on to a verdict (or
/// ran), else the error's words after the flag's name.
fn said(command: &str, code: i32, stderr: &str, label: &str) -> Result<(), String> {
    if [0, 3, 4].contains(&code) {
        return Ok(());
    }
    let prefix = format!("{label}: ");
    let line = stderr
        .lines()
        .find_map(|l| l.split_once(&prefix).map(|(_, rest)| rest.to_owned()))
        .unwrap_or_else(|| panic!("{command} exit {code} without naming {label}: {stderr}"));
    Err(line)
}

/// bench, only the change's side, its harness copying the one file.
fn bench(flag: &str, value: &str) -> Result<(), String> {
    let bin = Bin::new();
    let dir = bin.dir().to_owned();
    files(&dir);
    let run = bin
        .env("GITHUB_WORKSPACE", &dir)
        .args(["bench", "--side", "current", "--metric", "time:lower"])
        .args(["--out-dir", "out", "--command"])
        .arg(format!("cp {} {{out}}", dir.join("c.csv").display()))
        .arg(format!("--{flag}={value}"))
        .args(first_look(flag))
        .run();
    said("bench", run.code, &run.stderr, &format!("--{flag}"))
}

/// A cap is tried against a first look of one round (at the default of
/// three, a cap of one is refused for being below it).
fn first_look(flag: &str) -> &'static [&'static str] {
    if flag == "max-rounds" {
        &["--rounds=1"]
    } else {
        &[]
    }
}

/// compare of the two files (paired rounds, for the rounds' inputs).
fn compare(flag: &str, value: &str) -> Result<(), String> {
    let bin = Bin::new();
    files(bin.dir());
    let paired: &[&str] = if flag.contains("rounds") {
        &["--paired"]
    } else {
        &[]
    };
    let run = bin
        .args(["compare", "--current", "c.csv", "--baseline", "main=b.csv"])
        .args(["--metric", "time:lower"])
        .args(paired)
        .arg(format!("--{flag}={value}"))
        .args(first_look(flag))
        .run();
    said("compare", run.code, &run.stderr, &format!("--{flag}"))
}

/// compare of a manifest of one round whose `field` is `value` (`judged`'s
/// field, or the look schedule's); the error's words after `its WHAT: `.
fn manifest(field: &str, value: serde_json::Value, what: &str) -> Result<(), String> {
    let bin = Bin::new();
    let dir = bin.dir().to_owned();
    files(&dir);
    let mut m = json!({
        "schema": 1, "label": "main", "seed": 1, "first_look": 1, "max_rounds": 160,
        "rounds": [{"round": 1, "current": dir.join("c.csv"), "baseline": dir.join("b.csv")}],
        "judged": {"metric": "time:lower"},
    });
    match field {
        "first_look" | "max_rounds" => m[field] = value,
        _ => m["judged"][field] = value,
    }
    std::fs::write(dir.join("rounds.json"), m.to_string()).unwrap();
    let run = bin.args(["compare", "--manifest", "rounds.json"]).run();
    said(
        "compare --manifest",
        run.code,
        &run.stderr,
        &format!("its {what}"),
    )
}

/// The words of a refusal before the value it quotes (a manifest holds a
/// fraction, shown as the percentage it is).
fn words(said: &Result<(), String>) -> Option<&str> {
    said.as_ref()
        .err()
        .map(|e| e.split(", got").next().unwrap_or(e))
}

/// Each value given to bench, to compare and in a manifest: all take it,
/// or all refuse it in the same words.
fn agree(
    flag: &str,
    field: &str,
    what: &str,
    values: &[(&str, bool)],
    as_json: fn(&str) -> serde_json::Value,
) {
    for (value, taken) in values {
        let b = bench(flag, value);
        let c = compare(flag, value);
        let m = manifest(field, as_json(value), what);
        assert_eq!(b.is_ok(), *taken, "bench --{flag} {value}: {b:?}");
        assert_eq!(c.is_ok(), *taken, "compare --{flag} {value}: {c:?}");
        assert_eq!(m.is_ok(), *taken, "manifest {field} {value}: {m:?}");
        assert_eq!(words(&b), numeric(&c), "--{flag} {value}");
        assert_eq!(words(&b), words(&m), "--{flag} {value}");
        if !taken && flag != "fail-threshold" {
            assert_eq!(b, c, "bench and compare quote --{flag} {value} alike");
        }
    }
}

/// compare's refusal of a fail threshold names `auto`, which it takes
/// (bench does not, and a manifest or config rule holds a number): the
/// range said before it is the one the others say.
fn numeric(said: &Result<(), String>) -> Option<&str> {
    words(said).map(|w| w.strip_suffix(" or auto").unwrap_or(w))
}

fn percent(text: &str) -> serde_json::Value {
    json!(text.parse::<f64>().unwrap() / 100.0)
}

fn number(text: &str) -> serde_json::Value {
    json!(text.parse::<f64>().unwrap())
}

fn whole(text: &str) -> serde_json::Value {
    json!(text.parse::<u64>().unwrap())
}

#[test]
fn a_zero_fail_threshold_fails_any_slowdown_however_it_is_given() {
    let values = [
        ("0", true),
        ("10", true),
        ("1000", true),
        ("1001", false),
        ("-1", false),
    ];
    agree("fail-threshold", "fail", "fail threshold", &values, percent);
    // compare's help reads PCT|auto, and so does its refusal; bench
    // refuses auto by name, so its refusal says the range alone.
    assert_eq!(
        compare("fail-threshold", "-1"),
        Err("expected a percentage from 0 to 1000 or auto, got \"-1\"".to_owned())
    );
    assert_eq!(
        words_of(bench("fail-threshold", "-1")),
        "expected a percentage from 0 to 1000"
    );
}

fn words_of(said: Result<(), String>) -> String {
    words(&said).unwrap_or("taken").to_owned()
}

#[test]
fn the_warn_threshold_and_the_false_alarm_rate_are_one_range_each() {
    let warn = [
        ("0", true),
        ("3", true),
        ("1000", true),
        ("1001", false),
        ("-1", false),
    ];
    agree("warn-threshold", "warn", "warn threshold", &warn, percent);
    let rate = [("0", false), ("1", true), ("50", true), ("51", false)];
    agree(
        "false-alarms",
        "false_alarms",
        "false-alarm rate",
        &rate,
        percent,
    );
    assert_eq!(
        words_of(bench("false-alarms", "0")),
        "expected a percentage above 0 and at most 50"
    );
}

#[test]
fn a_floor_is_zero_or_more_however_it_is_given() {
    let values = [("0", true), ("2.5", true), ("-1", false)];
    agree("floor", "floor", "floor", &values, number);
}

#[test]
fn the_rounds_and_their_cap_are_one_range_however_they_are_given() {
    let counts = [("0", false), ("1", true), ("160", true), ("161", false)];
    agree("rounds", "first_look", "first_look", &counts, whole);
    agree("max-rounds", "max_rounds", "max_rounds", &counts, whole);
    assert_eq!(
        words_of(compare("rounds", "0")),
        "expected a whole number of rounds from 1 to 160"
    );
}

/// A cap below the first look: bench refused it, compare quietly looked
/// once, and a manifest that said it was judged at looks bench never had.
#[test]
fn a_cap_below_the_first_look_is_refused_however_it_is_given() {
    let cap = |command: &str| {
        let bin = Bin::new();
        let dir = bin.dir().to_owned();
        files(&dir);
        let bin = match command {
            "bench" => bin
                .env("GITHUB_WORKSPACE", &dir)
                .args(["bench", "--side", "current", "--out-dir", "out"])
                .args(["--command", "cp c.csv {out}"]),
            _ => bin.args([
                "compare",
                "--current",
                "c.csv",
                "--baseline",
                "main=b.csv",
                "--paired",
            ]),
        };
        let run = bin
            .args([
                "--metric",
                "time:lower",
                "--rounds",
                "6",
                "--max-rounds",
                "3",
            ])
            .run();
        said(command, run.code, &run.stderr, "INPUT_MAX_ROUNDS")
    };
    let words = Err("--max-rounds 3 is below --rounds 6".to_owned());
    assert_eq!(cap("bench"), words);
    assert_eq!(cap("compare"), words);
    let run = looked(6, 3, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("its look schedule (bench's --max-rounds 3 is below --rounds 6)"),
        "{}",
        run.stderr
    );
}

/// compare of a manifest of one round that bench looked at from
/// `first_look` up to `max_rounds`, with `given` inputs beside it.
fn looked(first_look: usize, max_rounds: usize, given: &[&str]) -> crate::support::harness::Run {
    let bin = Bin::new();
    let dir = bin.dir().to_owned();
    files(&dir);
    let m = json!({
        "schema": 1, "label": "main", "seed": 1,
        "first_look": first_look, "max_rounds": max_rounds,
        "judged": {"metric": "time:lower"},
        "rounds": [{"round": 1, "current": dir.join("c.csv"), "baseline": dir.join("b.csv")}],
    });
    std::fs::write(dir.join("rounds.json"), m.to_string()).unwrap();
    bin.args(["compare", "--manifest", "rounds.json"])
        .args(given)
        .run()
}

/// A fail threshold of 100% or more can never fail a higher-is-better row
/// (it falls at most to zero): compare refused it, bench took it and ran
/// every round, and then compare refused the manifest that carried it.
/// bench now refuses it before anything runs, in compare's words.
#[test]
fn a_fail_threshold_no_row_can_reach_is_refused_before_bench_runs() {
    for (metric, taken) in [("time:higher", false), ("time:lower", true)] {
        let bin = Bin::new();
        let dir = bin.dir().to_owned();
        files(&dir);
        let run = bin
            .env("GITHUB_WORKSPACE", &dir)
            .args(["bench", "--side", "current", "--metric", metric])
            .args(["--out-dir", "out", "--command", "cp c.csv {out}"])
            .arg("--fail-threshold=150")
            .run();
        let benched = said("bench", run.code, &run.stderr, "INPUT_FAIL_THRESHOLD");
        assert_eq!(benched.is_ok(), taken, "{metric}: {benched:?}");
        // The harness ran only where the threshold was taken.
        assert_eq!(
            run.stdout.contains("current: ok"),
            taken,
            "{metric}: {}",
            run.stdout
        );
        let c = Bin::new();
        files(c.dir());
        let compared = c
            .args(["compare", "--current", "c.csv", "--baseline", "main=b.csv"])
            .args(["--metric", metric, "--fail-threshold=150"])
            .run();
        let words = |s: &Result<(), String>| {
            s.as_ref()
                .err()
                .map(|e| e.split(". ").next().unwrap_or(e).to_owned())
        };
        let compared = said(
            "compare",
            compared.code,
            &compared.stderr,
            "--fail-threshold",
        );
        assert_eq!(words(&benched), words(&compared), "{metric}");
    }
}

/// A config rule's thresholds and floor are the same values again, from
/// bench.toml: held to the same ranges, refused in the same words (a rule's
/// `fail-threshold = 5000` was taken where `--fail-threshold 5000` was not).
#[test]
fn a_config_rules_thresholds_are_held_to_the_inputs_ranges() {
    for (key, flag, value, taken) in [
        ("fail-threshold", "fail-threshold", "0", true),
        ("fail-threshold", "fail-threshold", "1000", true),
        ("fail-threshold", "fail-threshold", "5000", false),
        ("warn-threshold", "warn-threshold", "1001", false),
        ("warn-threshold", "warn-threshold", "-1", false),
        ("floor", "floor", "-1", false),
    ] {
        let bin = Bin::new();
        files(bin.dir());
        let rule = format!(
            "[[metrics]]\ncolumn = \"time\"\nunit = \"s\"\ndirection = \"lower\"\n\
             [[rules]]\nmatch = [\"op=a\"]\n{key} = {value}\n"
        );
        std::fs::write(bin.dir().join("c.toml"), rule).unwrap();
        let run = bin
            .args(["compare", "--current", "c.csv", "--baseline", "main=b.csv"])
            .args(["--config", "c.toml"])
            .run();
        let configured = said("compare --config", run.code, &run.stderr, key);
        assert_eq!(configured.is_ok(), taken, "{key} = {value}: {configured:?}");
        assert_eq!(
            words(&configured),
            numeric(&compare(flag, value)),
            "{key} = {value}"
        );
    }
}

/// compare's `--rounds`/`--max-rounds` given beside a manifest whose own
/// schedule is sound: a cap below the first look is the user's input at
/// fault (exit 2, on `--max-rounds`, in the words it has without a
/// manifest), never the manifest's (it was reported as a bad rounds.json).
#[test]
fn a_given_cap_below_the_first_look_is_the_inputs_fault_beside_a_manifest() {
    let run = |given: &[&str]| looked(6, 20, given);
    for (given, words) in [
        (
            &["--max-rounds", "3"][..],
            "--max-rounds 3 is below --rounds 6",
        ),
        (
            &["--rounds", "8", "--max-rounds", "4"][..],
            "--max-rounds 4 is below --rounds 8",
        ),
    ] {
        let run = run(given);
        assert_eq!(run.code, 2, "{given:?}: {}", run.stderr);
        assert!(!run.stderr.contains("rounds.json"), "{}", run.stderr);
        let said = said(
            "compare --manifest",
            run.code,
            &run.stderr,
            "INPUT_MAX_ROUNDS",
        );
        assert_eq!(said, Err(words.to_owned()), "{given:?}");
    }
    // Without a manifest, the same words on the same input.
    let bin = Bin::new();
    files(bin.dir());
    let run = bin
        .args(["compare", "--current", "c.csv", "--baseline", "main=b.csv"])
        .args(["--metric", "time:lower", "--paired"])
        .args(["--rounds", "8", "--max-rounds", "4"])
        .run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    let said = said("compare", run.code, &run.stderr, "INPUT_MAX_ROUNDS");
    assert_eq!(said, Err("--max-rounds 4 is below --rounds 8".to_owned()));
}
