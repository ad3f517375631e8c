//! `lint` on the shapes the eighth held-out set found missed or wrongly
//! found (issue 49; BENCHMARKS.md, "Mends after held-out 8"). Each
//! fixture in `tests/fixtures/lint/heldout8/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it that must stay
//! as it was.

use super::heldout5::{at, lint_in};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout8", file)
}

/// redb's trailer check (`git log "$BASE_SHA".."$HEAD_SHA"`, quoted
/// sides) and OLMo-core's release comments (`git log
/// "${last_tag}..${current_tag}"` in a script the step runs, each side a
/// variable holding a command): a loop over a range's commits walks no
/// baseline. `git rev-list --first-parent main` and a range from
/// `HEAD~8` still do.
#[test]
fn a_loop_over_a_ranges_commits_walks_no_baseline() {
    assert_eq!(
        lint("ranges.yml"),
        [at("baseline-walk", 41), at("baseline-walk", 44)]
    );
}

/// oneDNN's aarch64 performance check: a comparison that continues on
/// error carries its verdict in its outputs, and the next step (`if:
/// steps.perf.outputs.pass != 'True'`) says it as a `::warning`: acted on
/// and said. A comparison whose outputs only reach the summary is still
/// silent.
#[test]
fn a_later_step_that_says_a_comparisons_outputs_acts_on_it() {
    assert_eq!(lint("perf-said.yml"), [at("silent-baseline", 24)]);
}
