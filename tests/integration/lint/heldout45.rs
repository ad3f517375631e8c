//! `lint` on the shapes missed in held-out set 45 at first sight (issue
//! 49; BENCHMARKS.md, "Mends after held-out 45 to 49"). Each fixture in
//! `tests/fixtures/lint/heldout45/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// onediff's CUDA examples run on a schedule every 6 hours (`0 */6 * *
/// *`) in a group of `github.ref`: a run outlasts its longest job (the
/// jobs it needs, the wait for a self-hosted runner), so the next
/// scheduled run can meet it and cancel it. Every 12 hours cannot.
#[test]
fn a_schedule_every_six_hours_meets_its_earlier_run() {
    assert_eq!(
        lint_in("heldout45", "six-hourly.yml"),
        [at("cancel-main", 8)]
    );
    assert_eq!(lint_in("heldout45", "twelve-hourly.yml"), []);
}

/// onediff's ComfyUI job runs `docker exec -w .../benchmarks box bash
/// scripts/run_all_tests.sh`: the script's path is relative to the
/// container's working directory, a benchmarks folder, so the job runs
/// benchmarks on a self-hosted CUDA runner with no timeout. The same
/// script in a tests folder runs none.
#[test]
fn a_script_run_in_a_containers_benchmarks_folder_runs_benchmarks() {
    assert_eq!(
        lint_in("heldout45", "container-workdir.yml"),
        [at("long-timeout", 5)]
    );
}

/// pacx compares BenchmarkDotNet's results in PowerShell: `if (-not
/// (Test-Path $baselineDir) -or -not (Test-Path $prDir)) { Write-Host ...;
/// exit 0 }` passes a comparison that never ran. A step (PowerShell by
/// its Windows runner's default) that says `Write-Warning` first is
/// said.
#[test]
fn a_powershell_exit_where_the_results_are_missing_is_found() {
    assert_eq!(
        lint_in("heldout45", "pwsh-missing.yml"),
        [at("silent-baseline", 19)]
    );
}
