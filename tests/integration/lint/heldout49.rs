//! `lint` on the shapes found wrongly in held-out set 49 at first sight
//! (issue 49; BENCHMARKS.md, "Mends after held-out 45 to 49"). Each
//! fixture in `tests/fixtures/lint/heldout49/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// pineapple's nightly sanitizer stress runs a script whose array of
/// fixtures holds a comment with `)` and `'` between two items: the
/// comment ends nothing, so `benchmarks:large_5000_config.json:5:4` is an
/// item, not a program named for benchmarking, and the 180-minute stress
/// job is no benchmark job. A job that runs `cargo bench` as long is one.
#[test]
fn a_comment_among_an_arrays_items_is_no_command() {
    assert_eq!(
        lint_in("heldout49", "sanitizer.yml"),
        [at("long-timeout", 15)]
    );
}

/// commonware's `publish` job downloads a benchmark's result, checks the
/// file is there and publishes it with github-action-benchmark, under a
/// job-level `always()`: a benchmark action named for sending is one of
/// the steps that send, so the job relays results measured elsewhere and
/// is no benchmark job. A job that measures and then publishes is one.
#[test]
fn a_benchmark_action_named_for_publishing_relays() {
    assert_eq!(lint_in("heldout49", "publish.yml"), [at("job-always", 30)]);
}
