//! `lint` on the shapes the thirty-eighth held-out set found wrongly
//! (issue 49; BENCHMARKS.md, "Mends after held-out 35 to 38"). The
//! fixture in `tests/fixtures/lint/heldout38/` is a real workflow's shape
//! cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in};

/// firewood's examples job runs on `${{ matrix.os || 'ubuntu-latest'
/// }}` over entries that give `macos-26` or nothing: GitHub's machines
/// either way, so its missing timeout costs nothing. The same job whose
/// one entry names a GPU machine holds it.
#[test]
fn a_matrix_value_with_a_fallback_is_each_value_and_the_fallback() {
    assert_eq!(
        lint_in("heldout38", "matrix-fallback.yml"),
        [at("long-timeout", 16)]
    );
}
