//! Faults the review of the relay and set-up readings found: a job's name
//! or a folder's name must never outweigh what its steps run.

use crate::support::harness::Bin;

use super::calls::findings;

/// `lint --format json` on `text` as `.github/workflows/w.yml` of a fresh
/// checkout: its findings as (rule, line), the exit asserted.
fn lint_one(text: &str, code: i32) -> Vec<(String, u64)> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".github/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("w.yml"), text).unwrap();
    let (_, v) = Bin::new()
        .in_dir(tmp.path())
        .args(["lint", ".github/workflows/w.yml", "--fail-on", "note"])
        .json_code(code);
    findings(&v).into_iter().map(|(_, r, l)| (r, l)).collect()
}

#[test]
fn a_job_that_downloads_and_runs_cargo_bench_in_an_upload_step_is_no_relay() {
    // Its step is named for sending, but its script runs `cargo bench`:
    // the benchmark runs here, on a self-hosted runner, 360 minutes.
    let text = "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    steps:\n      - uses: actions/download-artifact@v4\n      - name: Run benchmarks and upload results\n        run: cargo bench && ./upload.sh\n";
    assert_eq!(lint_one(text, 4), [("long-timeout".to_owned(), 3)]);
}

#[test]
fn a_local_action_for_setting_up_and_running_benchmarks_is_no_set_up() {
    // `setup-and-run-bench` runs the benchmarks: a job of it and an echo
    // is no status shim, and `always()` holds the GPU runner.
    let text = "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    if: always()\n    timeout-minutes: 20\n    steps:\n      - uses: actions/checkout@v4\n      - uses: ./.github/actions/setup-and-run-bench\n      - run: echo done\n";
    assert_eq!(lint_one(text, 4), [("job-always".to_owned(), 5)]);
}

#[test]
fn a_job_that_downloads_and_runs_an_upload_script_named_for_benchmarks_still_relays() {
    // test-infra's `upload_benchmark_results.yml`: its script is named for
    // benchmarks, and for sending: it measures nothing.
    let text = "on: push\njobs:\n  upload:\n    runs-on: [self-hosted, gpu]\n    steps:\n      - uses: actions/download-artifact@v4\n      - name: Upload benchmark results\n        run: python3 .github/scripts/upload_benchmark_results.py --dir results\n";
    assert_eq!(lint_one(text, 0), []);
}
