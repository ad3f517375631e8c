//! `lint` on the shapes the seventeenth held-out set found missed (issue
//! 49; BENCHMARKS.md, "Mends after held-out 17"). The fixture in
//! `tests/fixtures/lint/heldout17/` is a real workflow's shape cut down
//! and written anew, with a look-alike beside it that must stay as it was.

use super::heldout5::{at, lint_in};

/// openvdb's ccache: a step writes the time of the run
/// (`date -u +%Y-%m-%dT%H:%M:%SZ`) and the cache key ends in it, so every
/// run, a pull request's among them, saves a copy of its own on the
/// larger runner: found at the cache's `uses:`. A key ending in a
/// toolchain's `runtime-version` output (a word, `runtime`, not the time)
/// is stable: no finding. A job whose `if:` runs it on pushes and on
/// pull requests that are no drafts (`github.event_name == 'push' ||
/// (github.event_name == 'pull_request' && ...)`) is not kept from pull
/// requests: its clock-keyed cache is found; a step limited to
/// `github.event_name != 'pull_request'` is.
#[test]
fn a_key_read_from_the_clock_is_one_per_run() {
    assert_eq!(
        lint_in("heldout17", "ccache.yml"),
        [at("cache-discipline", 15), at("cache-discipline", 38)]
    );
}
