//! `lint` on the shapes behind the fifth held-out set's wrong findings
//! and misses (issue 49; BENCHMARKS.md, "Fifth held-out set" and "mends
//! after held-out 5"). Each fixture in `tests/fixtures/lint/heldout5/` is
//! a real workflow's shape cut down, with a look-alike beside it that
//! must still be found (or stay silent).

use super::calls::{findings, text_findings};
use crate::support::harness::{Bin, repo_root};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout5", file)
}

/// The findings of linting one fixture file of `tests/fixtures/lint/<set>/`,
/// as (rule, line), from the fixture repository's root as a user runs it;
/// the exit is 4 when there are findings and 0 when there are none.
pub(crate) fn lint_in(set: &str, file: &str) -> Vec<(String, u64)> {
    lint_with(set, file, &[])
}

/// [`lint_in`] with more options (`--repository OWNER/NAME`, as the
/// action passes it).
pub(crate) fn lint_with(set: &str, file: &str, options: &[&str]) -> Vec<(String, u64)> {
    let root = repo_root().join("tests/fixtures/lint").join(set);
    let path = format!(".github/workflows/{file}");
    let mut args = vec!["lint", &path, "--fail-on", "note", "--format", "json"];
    args.extend_from_slice(options);
    let run = Bin::new().in_dir(&root).args(args).run();
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("one JSON object ({e}): {}", run.stdout));
    let found: Vec<(String, u64)> = findings(&v)
        .into_iter()
        .map(|(_, rule, line)| (rule, line))
        .collect();
    let code = if found.is_empty() { 0 } else { 4 };
    assert_eq!(run.code, code, "{}\n{}", run.stdout, run.stderr);
    found
}

pub(crate) fn at(rule: &str, line: u64) -> (String, u64) {
    (rule.to_owned(), line)
}

/// VectorChord's licence check: awk's `/^$/` in a variable compared in a
/// loop, sed's and grep's patterns in a loop, are regular expressions;
/// `main~$((i))` and `main^$n` in a loop are still walks.
#[test]
fn a_caret_in_a_regular_expression_is_not_a_commit_counted_back() {
    assert_eq!(
        lint("licence-check.yml"),
        [at("baseline-walk", 38), at("baseline-walk", 42)]
    );
}

/// tt-xla's uplift: a container given `--device=/dev/net/tun` (a VPN's
/// tunnel) on a hosted runner holds no accelerator, so its `always()`
/// and its missing timeout are no findings; containers given a
/// Tenstorrent card or AMD's GPU devices still are expensive.
#[test]
fn only_an_accelerator_device_makes_a_container_expensive() {
    assert_eq!(
        lint("uplift.yml"),
        [
            at("long-timeout", 9),
            at("long-timeout", 27),
            at("job-always", 29)
        ]
    );
}

/// lancedb's CI: `ubuntu-2404-8x-x64` is one of GitHub's larger runners
/// (its size in its name), so the group main's pushes share cancels a
/// paid run; GitHub's standard images, `x86_64` and `macos-m2-15`, are
/// not sizes.
#[test]
fn a_runner_named_by_its_size_is_a_larger_runner() {
    assert_eq!(lint("sized-runners.yml"), [at("cancel-main", 11)]);
    assert_eq!(lint("standard-runners.yml"), []);
}

/// RediSearch's micro-benchmarks: a job with no `timeout-minutes` whose
/// benchmark step is allowed 300 is one cost, found once at the step; an
/// unbounded benchmark step before a long one (the seed's shape) keeps
/// the job's 360 minutes a finding of its own.
#[test]
fn a_jobs_allowance_bounded_at_its_benchmark_step_is_one_finding() {
    assert_eq!(
        lint("micro-benchmarks.yml"),
        [
            at("long-timeout", 15),
            at("long-timeout", 19),
            at("long-timeout", 25),
            at("long-timeout", 27)
        ]
    );
}

/// asv-runner: pandas checked out at its tip and then at the commit
/// chosen (`git checkout $sha` inside it) is pinned, and a job that only
/// publishes results ("Publish ASV Benchmarks", "Process ASV Results")
/// measures nothing; a job measuring pandas' tip is still found.
#[test]
fn a_checkout_pinned_later_or_in_a_publishing_job_measures_no_moving_tip() {
    assert_eq!(lint("run-asv.yml"), [at("unpinned-clone", 38)]);
    assert_eq!(lint("process-results.yml"), []);
}

/// tfhe-rs: the results sender checked out at its default branch before
/// the GPU benchmark and used only by `data_sender.py` after it is not
/// measured code; a harness checked out the same way and run is.
#[test]
fn a_checkout_used_only_to_send_results_is_not_measured_code() {
    assert_eq!(lint("slab-sender.yml"), [at("unpinned-clone", 22)]);
}

/// Genesis's alarm: `set +e` before the regression comparison in a
/// script that never exits non-zero after it is the script's own
/// `continue-on-error`; a script that fails on the other statuses, or
/// says the failure, handles it.
#[test]
fn set_plus_e_around_a_comparison_that_never_fails_is_silent() {
    assert_eq!(lint("alarm.yml"), [at("silent-baseline", 16)]);
}

/// All the shapes above, as a user reads them in the text output.
#[test]
fn the_fifth_sets_shapes_read_as_a_user_sees_them() {
    let root = repo_root().join("tests/fixtures/lint/heldout5");
    insta::assert_snapshot!("lint_heldout5_shapes", text_findings(&root));
}
