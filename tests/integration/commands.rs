//! No workflow command from data. Every input position a stranger can
//! write (a CSV cell, a header, a file name, an `INPUT_*` value, the
//! config's text, the resolution, an event payload, an API error message)
//! is filled with hostile strings, the binary runs in every output form,
//! and stdout and stderr are read as the runner reads them
//! (`support::workflow_commands`). The commands found must be exactly those
//! the same run makes with a harmless value in the same place.

use serde_json::json;

use crate::compare::{HEADER, csv, line, suite, write};
use crate::resolve::online::{REPO, online, repo_json};
use crate::support::harness::{Bin, Run};
use crate::support::mock_github::{MockGitHub, error};
use crate::support::workflow_commands::commands;

/// Strings that would be commands if a line carried them raw.
const HOSTILE: [&str; 12] = [
    "::warning::injected",
    "  ::error title=x::injected",
    "::add-mask::injected",
    "::stop-commands::tok",
    "##[error]injected",
    "a ##[add-mask]injected",
    "x##[stop-commands]y",
    "##vso[task.setvariable variable=x]1",
    "a\r::set-output name=x::injected",
    "a\r\n::error::injected",
    "\u{a0}\u{3000}\u{feff}::warning::injected",
    "%0A::warning::injected",
];

/// A value that takes the same path as the hostile ones (refused where
/// they are refused) but holds nothing a runner would read.
const HARMLESS: &str = "harm less";

/// Every command in both streams of a run.
fn all(run: &Run) -> Vec<String> {
    let mut c = commands(&run.stdout);
    c.extend(commands(&run.stderr));
    c
}

/// Runs `make` with a harmless value and with each hostile one, in each
/// form, and checks that the hostile runs recognise exactly the harmless
/// run's commands.
fn check(position: &str, make: impl Fn(&str) -> Bin) {
    for format in ["github", "text", "json"] {
        let run = |value: &str| {
            let r = make(value).args(["--format", format]);
            if format == "github" { r.on_runner() } else { r }.run()
        };
        let expected = all(&run(HARMLESS));
        for hostile in HOSTILE {
            let got = run(hostile);
            assert_eq!(
                all(&got),
                expected,
                "{position}, --format {format}, value {hostile:?}\nstdout:\n{}\nstderr:\n{}",
                got.stdout,
                got.stderr
            );
        }
    }
}

/// `compare` on a small suite, with `cell` in one cell of one row of both
/// files (`column` 0-2 keys, 5 status, 4 a metric) and row 3 made slower,
/// row 4 lost, so every line form (dashboard, lost, new, not comparable,
/// annotations) is written.
fn compare_with_cell(column: usize, cell: &str) -> Bin {
    compare_with(column, cell, false)
}

/// The same, with the edited row missing from current when `lost`.
fn compare_with(column: usize, cell: &str, lost: bool) -> Bin {
    let r = Bin::new();
    let dir = r.dir().to_owned();
    let rows = suite();
    let edit = |text: String| -> String {
        text.lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 2 {
                    let mut cells: Vec<String> = l.split(',').map(str::to_owned).collect();
                    cells[column] = cell.replace(',', ";");
                    cells.join(",")
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    let base = edit(csv(&rows, |_, b| Some(line(b, Some(b.value), "ok"))));
    let cur = edit(csv(&rows, |i, b| match i {
        1 if lost => Some(line(b, None, "failed")),
        3 => Some(line(b, Some(b.value * 0.5), "ok")),
        4 => None,
        _ => Some(line(b, Some(b.value), "ok")),
    }));
    let (b, c) = (write(&dir, "base.csv", &base), write(&dir, "cur.csv", &cur));
    r.args(["compare", "--current"])
        .arg(c)
        .arg("--baseline")
        .arg(format!("main={}", b.display()))
}

#[test]
fn csv_cells_never_become_commands() {
    for (column, what) in [
        (0, "op"),
        (1, "shape"),
        (2, "dtype"),
        (4, "tflops"),
        (5, "status"),
    ] {
        check(&format!("the {what} cell"), |v| {
            compare_with_cell(column, v)
        });
    }
    check("the key of a lost row", |v| compare_with(0, v, true));
}

#[test]
fn error_messages_on_stderr_never_become_commands() {
    // A header naming no key column, and a key twice.
    check("a header cell", |v| {
        let r = Bin::new();
        let f = write(
            r.dir(),
            "cur.csv",
            &format!("{},shape,dtype,tflops\n", v.replace(',', ";")),
        );
        r.args(["compare", "--current"])
            .arg(&f)
            .arg("--baseline")
            .arg(format!("main={}", f.display()))
    });
    check("a duplicate key", |v| {
        let r = Bin::new();
        let key = v.replace(',', ";");
        let f = write(
            r.dir(),
            "cur.csv",
            &format!("{HEADER}{key},1,b,-,1,ok\n{key},1,b,-,2,ok\n"),
        );
        r.args(["compare", "--current"])
            .arg(&f)
            .arg("--baseline")
            .arg(format!("main={}", f.display()))
    });
}

#[test]
fn file_names_and_input_values_never_become_commands() {
    let csv_text = format!("{HEADER}x,1,b,-,1,ok\n");
    check("a --current file name", |v| {
        let r = Bin::new();
        let name = r.dir().join(v.replace('/', "_"));
        r.args(["compare", "--current"])
            .arg(name)
            .args(["--baseline", "main=absent.csv"])
    });
    check("a baseline file name", |v| {
        let r = Bin::new();
        let c = write(r.dir(), "c.csv", &csv_text);
        let base = r.dir().join(v.replace('/', "_"));
        r.args(["compare", "--current"])
            .arg(&c)
            .arg("--baseline")
            .arg(format!("main={}", base.display()))
    });
    check("INPUT_CONFIG", |v| {
        let r = Bin::new();
        let c = write(r.dir(), "c.csv", &csv_text);
        r.args(["compare", "--current"])
            .arg(&c)
            .arg("--baseline")
            .arg(format!("main={}", c.display()))
            .env("INPUT_CONFIG", format!("x{v}"))
    });
    check("INPUT_FAIL_THRESHOLD", |v| {
        let r = Bin::new();
        let c = write(r.dir(), "c.csv", &csv_text);
        r.args(["compare", "--current"])
            .arg(&c)
            .arg("--baseline")
            .arg(format!("main={}", c.display()))
            .env("INPUT_FAIL_THRESHOLD", v)
    });
    check("a history file", |v| {
        let r = Bin::new();
        let c = write(r.dir(), "c.csv", &csv_text);
        let history = r.dir().join(v.replace('/', "_"));
        r.args(["compare", "--current"])
            .arg(&c)
            .arg("--baseline")
            .arg(format!("main={}", c.display()))
            .arg("--history")
            .arg(history)
    });
    check("an unknown argument", |v| Bin::new().args(["compare", v]));
}

#[test]
fn config_text_never_becomes_a_command() {
    check("the config's text", |v| {
        let r = Bin::new();
        let c = write(r.dir(), "c.csv", &format!("{HEADER}x,1,b,-,1,ok\n"));
        let config = write(
            r.dir(),
            "c.toml",
            &format!("keys = [\"{}\", 1]\n", v.replace('"', "'")),
        );
        r.args(["compare", "--current"])
            .arg(&c)
            .arg("--baseline")
            .arg(format!("main={}", c.display()))
            .arg("--config")
            .arg(config)
    });
    check("a rule pattern", |v| {
        let r = Bin::new();
        let c = write(r.dir(), "c.csv", &format!("{HEADER}x,1,b,-,1,ok\n"));
        let config = write(
            r.dir(),
            "c.toml",
            &format!("[[rules]]\nmatch = [{}]\n", json!(v)),
        );
        r.args(["compare", "--current"])
            .arg(&c)
            .arg("--baseline")
            .arg(format!("main={}", c.display()))
            .arg("--config")
            .arg(config)
    });
}

#[test]
fn the_resolution_never_becomes_a_command() {
    for field in [
        "base_repo",
        "base_sha",
        "base_source",
        "tag",
        "label",
        "skip_reason",
    ] {
        check(&format!("the resolution's {field}"), |v| {
            let r = compare_with_cell(0, "softmax");
            let mut resolution = json!({
                "label": "main", "base_repo": "ROCm/FlyDSL", "base_sha": "a".repeat(40),
                "base_source": "pr-base", "base_available": true, "skip": field == "skip_reason",
                "tag": "v1", "tag_sha": "b".repeat(40),
            });
            resolution[field] = json!(v);
            r.arg("--resolution").arg(resolution.to_string())
        });
    }
}

#[test]
fn event_payloads_never_become_commands() {
    // Values the rules refuse are named in the error on stderr.
    check("a payload's base SHA", |v| {
        let payload = json!({"pull_request": {"base": {"sha": v, "repo": {"full_name": REPO}}, "head": {"sha": "a".repeat(40), "repo": {"full_name": REPO}}}, "repository": repo_json()});
        Bin::new()
            .payload(&payload.to_string(), "pull_request")
            .arg("--offline")
    });
    check("an event file name", |v| {
        let r = Bin::new();
        let path = r.dir().join(v.replace('/', "_"));
        r.event(path, "push").arg("--offline")
    });
    check("INPUT_LABEL", |v| {
        Bin::new()
            .payload("{}", "push")
            .arg("--offline")
            .env("INPUT_LABEL", v)
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_messages_never_become_commands() {
    for hostile in HOSTILE {
        let mock = MockGitHub::start().await;
        wiremock::Mock::given(wiremock::matchers::method("GET"))
            .respond_with(error(422, hostile))
            .mount(&mock.server)
            .await;
        let payload = json!({"ref": "refs/heads/main", "repository": repo_json()});
        let run = online(&mock, &payload, "workflow_dispatch")
            .env("RUNNER_DEBUG", "1")
            .on_runner()
            .run_async()
            .await;
        let names = all(&run);
        assert!(
            names
                .iter()
                .all(|n| ["warning", "debug", "group", "endgroup"].contains(&n.as_str())),
            "{hostile:?}: {names:?}\n{}",
            run.stdout
        );
        assert!(run.stdout.contains("HTTP 422"), "{}", run.stdout);
    }
}

#[test]
fn the_runner_rules_in_this_test_find_what_they_should() {
    assert_eq!(commands("  ::warning::x"), ["warning"]);
    assert_eq!(commands("a\r::error::x"), ["error"]);
    assert_eq!(commands("x ##[add-mask]y"), ["##[add-mask"]);
    assert_eq!(commands("\u{3000}::debug::x"), ["debug"]);
    assert!(commands("  \\::warning::x").is_empty());
}
