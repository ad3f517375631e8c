//! Issue 47: `--print-log SIDE`. bench relays the harness's lines behind
//! `[current] `, so a dashboard that parses the harness's own table from
//! the job log (the seed's `parse_bench.py`, played by
//! `tests/fixtures/flydsl/parse_bench.sh`) found nothing there and every
//! such workflow printed the log file again in a shell step. With
//! `--print-log current` bench prints it once, unprefixed, after the
//! run; a line made to look like a workflow command is still not one.

use super::{Project, quiet};
use crate::support::seed::dashboard;

const TABLE: &str = r#"printf 'op shape dtype TB/s TFLOPS\nsoftmax 4096x4096 bf16 - %s\n::error::from the harness\n' "$(cat value)"; bash bench.sh {out} {groups}"#;

#[test]
fn print_log_gives_the_dashboard_the_current_table_and_no_command() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let plain = p.bench_with(&p.resolution(&p.base), TABLE).run();
    plain.assert_code(0);
    let log = format!("{}{}", plain.stdout, plain.stderr);
    assert!(dashboard(&log).is_empty(), "{log}");

    let run = p
        .bench_with(&p.resolution(&p.base), TABLE)
        .args(["--print-log", "current"])
        .run();
    run.assert_code(0);
    let log = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(dashboard(&log), ["softmax 4096x4096 bf16 - 90"], "{log}");
    assert!(
        run.stderr
            .contains("::group::The harness's output (current), as it printed it\nop shape dtype TB/s TFLOPS\nsoftmax 4096x4096 bf16 - 90\n\\::error::from the harness\n"),
        "{}",
        run.stderr
    );
    assert!(
        !log.lines().any(|l| l.starts_with("::error::")),
        "no line of the harness is a command:\n{log}"
    );
}

#[test]
fn print_log_of_a_side_that_is_no_side_is_refused() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let run = p
        .bench(&p.resolution(&p.base))
        .args(["--print-log", "all"])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("expected current, baseline, both or none"),
        "{}",
        run.stderr
    );
}
