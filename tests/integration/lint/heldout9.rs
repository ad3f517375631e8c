//! `lint` on the shapes the ninth and tenth held-out sets found missed or
//! wrongly found (issue 49; BENCHMARKS.md, "Mends after held-out 9 and
//! 10"). Each fixture in `tests/fixtures/lint/heldout9/` is a real
//! workflow's shape cut down and written anew, with a look-alike beside it
//! that must stay as it was.

use super::calls::findings;
use super::heldout5::{at, lint_in};
use crate::support::harness::{Bin, repo_root};

fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout9", file)
}

/// The exit code and findings of `file` of the fixture set `set` with
/// `env` set (as the action sets `INPUT_*`) and `flag` given.
pub(crate) fn lint_given(
    set: &str,
    file: &str,
    env: &[(&str, &str)],
    flag: &[&str],
) -> (i32, Vec<(String, u64)>) {
    let mut bin = Bin::new().in_dir(&repo_root().join("tests/fixtures/lint").join(set));
    for (key, value) in env {
        bin = bin.env(key, value);
    }
    let path = format!(".github/workflows/{file}");
    let run = bin
        .args(["lint", &path, "--format", "json"])
        .args(flag)
        .run();
    let found = serde_json::from_str(run.stdout.trim())
        .map(|v| findings(&v).into_iter().map(|(_, r, l)| (r, l)).collect())
        .unwrap_or_default();
    (run.code, found)
}

/// SHARK-TestSuite checks itself out by name (`repository:
/// nod-ai/SHARK-TestSuite`) and test-infra its own `pytorch/test-infra`:
/// once lint knows the repository (`--repository`, the action's
/// `github.repository`), its own checkout by name with no `ref:` (the
/// event's commit) is no dependency; another project's checkout, its own
/// default branch by name (wasmtime's baseline at `ref: main`) and a clone
/// of its tip still are. With no repository given, a name is a name. A value that is no
/// `owner/name` is refused by name.
#[test]
fn the_repository_given_is_its_own_code_when_named() {
    let unknown = vec![
        at("unpinned-clone", 18),
        at("unpinned-clone", 22),
        at("unpinned-clone", 27),
        at("unpinned-clone", 29),
    ];
    assert_eq!(lint("own-repository.yml"), unknown);
    let still = [&unknown[1..]].concat();
    let own = (4, still);
    let flag = ["--repository", "example-org/Example-TestSuite"];
    assert_eq!(
        lint_given("heldout9", "own-repository.yml", &[], &flag),
        own
    );
    let from_action = [("INPUT_REPOSITORY", "example-org/Example-TestSuite")];
    assert_eq!(
        lint_given("heldout9", "own-repository.yml", &from_action, &[]),
        own
    );
    // Empty or spaces, as the action passes when the event names none:
    // not given, never refused.
    for empty in ["", "   "] {
        let flag = ["--repository", empty];
        assert_eq!(
            lint_given("heldout9", "own-repository.yml", &[], &flag),
            (4, unknown.clone()),
            "{empty:?}"
        );
    }
    let other = [("INPUT_REPOSITORY", "example-org/other")];
    assert_eq!(
        lint_given("heldout9", "own-repository.yml", &other, &[]),
        (4, unknown)
    );
    let run = Bin::new()
        .in_dir(&repo_root().join("tests/fixtures/lint/heldout9"))
        .env("INPUT_REPOSITORY", "o/r\n::error::x")
        .args(["lint", ".github/workflows/own-repository.yml"])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("INPUT_REPOSITORY: expected owner/name of at most 140 bytes"),
        "{}",
        run.stderr
    );
}

/// slang's compile-perf and nightly sweeps check out `${{
/// env.PERF_RESULTS_REPO }}` (`shader-slang/slang-compile-perf`) before
/// the sweep: a repository whose variable's name says results is a store
/// of what was measured, as a literal name that says so is. A dependency
/// named by another variable at `main` is still found.
#[test]
fn a_results_store_named_by_its_variable_is_no_dependency() {
    assert_eq!(lint("results-variable.yml"), [at("unpinned-clone", 27)]);
}

/// xet-core's "Check benchmarks compile" on a custom runner group with no
/// timeout: `cargo bench --no-run` compiles the benchmarks and runs none
/// (as `cargo check --benches`), so the job's name alone makes it no
/// benchmark job. A job that runs `cargo bench` on the same group is one.
#[test]
fn cargo_bench_no_run_compiles_and_runs_no_benchmark() {
    assert_eq!(lint("bench-no-run.yml"), [at("long-timeout", 20)]);
}

/// highway's multiarch builds on `ubuntu-26.04` and `ubuntu-26.04-arm`,
/// GitHub's standard images (its runner-images list), with a cancelling
/// group of the ref: an ordinary CI workflow, no expensive runner. An
/// organisation's larger runner named like one (`ubuntu-26.04-arm-16core`)
/// is still expensive, and its main runs' cancelling is found.
#[test]
fn githubs_arm64_image_of_26_04_is_a_standard_runner() {
    assert_eq!(lint("arm-image.yml"), []);
    assert_eq!(lint("arm-image-larger.yml"), [at("cancel-main", 12)]);
}
