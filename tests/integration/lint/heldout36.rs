//! `lint` on the shapes the thirty-sixth held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 35 and 36"). Each
//! fixture in `tests/fixtures/lint/heldout36/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// microsoft/netperf's XDP job runs `tools/two-machine-perf.ps1` by its
/// path on a self-hosted lab machine with no timeout: a script named for
/// performance, so a benchmark job, whose tools are checked out at a
/// moving branch. A script named for setting up (`perf-setup.ps1`) runs
/// none. The checkout's commit falls back through an input to `'main'`,
/// as the real file's does (labelled `moving-fallback` there).
#[test]
fn a_script_named_for_performance_run_by_its_path_measures() {
    assert_eq!(
        lint_in("heldout36", "two-machine.yml"),
        [
            at("long-timeout", 4),
            at("unpinned-clone", 18),
            at("moving-fallback", 18)
        ]
    );
}

/// The lab's QUIC job is named for `secnetperf`, msquic's network
/// benchmark: a job named for a known benchmark program that runs one.
/// A job named for the lab (`netperf`) that runs a kernel
/// build-verification test is no benchmark job.
#[test]
fn a_job_named_for_a_network_benchmark_is_a_benchmark_job() {
    assert_eq!(
        lint_in("heldout36", "lab-callee.yml"),
        [at("long-timeout", 6)]
    );
}

/// netperf's eBPF job runs `sudo -E ./bpf_performance_runner` from
/// `build/bin`: the program after `sudo` and its flags is what runs, a
/// built program named for performance. `sudo ldconfig` measures
/// nothing.
#[test]
fn the_program_sudo_runs_is_read() {
    assert_eq!(
        lint_in("heldout36", "sudo-runner.yml"),
        [at("long-timeout", 4)]
    );
}
