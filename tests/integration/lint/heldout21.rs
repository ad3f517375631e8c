//! `lint` on the shapes the twenty-first held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 21"). Each fixture in
//! `tests/fixtures/lint/heldout21/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it that must still be found.

use super::heldout5::{at, lint_in};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout21", file)
}

/// qdrant's benchmarks: `set +e`, and the benchmarks' failure written to
/// the step's outputs (`failed=error`), which the next step reads and
/// fails on: acted on, no finding. The same step whose outputs a later
/// step only copies is found.
#[test]
fn a_status_handed_on_through_outputs_is_acted_on() {
    assert_eq!(lint("handed-on.yml"), [at("silent-baseline", 30)]);
}

/// qdrant's machines are torn down on any outcome with
/// `continue-on-error`: a step named for tearing down or cleaning up
/// makes, reads and compares no results. The comparison's own
/// `continue-on-error` is found.
#[test]
fn a_teardown_step_hides_no_comparison() {
    assert_eq!(lint("teardown.yml"), [at("silent-baseline", 22)]);
}

/// op-succinct's tests ask RunsOn for a 64-CPU machine through
/// `fromJSON(format('["runs-on","runner=64cpu-linux-x64","run-id={0}"]',
/// github.run_id))`: one list of a provider's labels, a hosted machine as
/// the same labels written out are, so a job-level `always()` there is no
/// finding. A GPU machine asked for that way is.
#[test]
fn a_providers_labels_from_json_are_one_hosted_machine() {
    assert_eq!(lint("runs-on-list.yml"), [at("job-always", 24)]);
}
