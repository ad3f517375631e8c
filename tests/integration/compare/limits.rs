//! `compare` refuses what is too big or out of range before it reads or
//! judges anything: a results file over 64 MiB, a config or resolution of
//! megabytes, a false-alarm rate outside (0, 50].

use crate::compare::{compare_seed, refused, write};
use crate::support::harness::Bin;

#[test]
fn a_file_over_64_mib_is_refused_before_it_is_read() {
    let r = Bin::new();
    let big = r.dir().join("big.csv");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(64 * 1024 * 1024 + 1).unwrap();
    let base = write(r.dir(), "main.csv", "op,shape,dtype,tflops\nx,1,bf16,1\n");
    let run = r
        .args(["compare", "--current"])
        .arg(&big)
        .arg("--baseline")
        .arg(format!("main={}", base.display()))
        .on_runner()
        .run();
    refused(
        &run,
        1,
        &["big.csv is 67108865 bytes, over the 67108864-byte limit"],
    );
}

/// A config or resolution file of megabytes is not one: refused by size,
/// before it is read into memory or parsed, naming the file.
#[test]
fn oversized_config_and_resolution_files_are_refused_by_size() {
    let big = "# padding\n".repeat(110_000);
    for flag in ["--config", "--resolution"] {
        let r = compare_seed();
        let file = write(r.dir(), "big.file", &big);
        let run = r.arg(flag).arg(&file).run();
        run.assert_code(1);
        assert!(
            run.stderr
                .contains("big.file is 1100000 bytes, over the 1048576-byte limit"),
            "{flag}: {}",
            run.stderr
        );
        assert!(
            run.stdout.is_empty(),
            "{flag}: nothing compared: {}",
            run.stdout
        );
    }
}

#[test]
fn a_false_alarm_rate_out_of_range_is_a_usage_error() {
    for bad in ["0", "60", "x", "-1"] {
        let run = Bin::new()
            .args(["compare", "--current", "c.csv", "--baseline", "main=b.csv"])
            .arg(format!("--false-alarms={bad}"))
            .run();
        run.assert_code(2);
        assert!(
            run.stderr.contains("--false-alarms") && run.stderr.contains("at most 50"),
            "{bad}: {}",
            run.stderr
        );
    }
}
