//! `lint` on the shapes the twenty-seventh held-out set found wrongly or
//! missed (issue 49; BENCHMARKS.md, "Mends after held-out 27, 28 and 29").
//! Each fixture in `tests/fixtures/lint/heldout27/` is a real workflow's
//! shape cut down and written anew, with a look-alike beside it.

use super::heldout5::{at, lint_in, lint_with};

/// pyperf-bench's "Build CPython and run pyperformance benchmarks" says
/// it runs the benchmarks, a chore said before it notwithstanding: its
/// self-hosted job needs a timeout. "Detect if running on perf hardware"
/// (past a preposition) and "Run build benches" (a chore between) run
/// none.
#[test]
fn running_named_benchmarks_a_few_words_on_is_running_them() {
    assert_eq!(lint_in("heldout27", "pystats.yml"), [at("long-timeout", 5)]);
}

/// zenfs's nightly ZBDBench job: `zbdbench` is a known benchmark
/// program's name, so the workflow named for it holds a benchmark job,
/// whose day-long timeout and unpinned harness clone are found. A
/// project named only with a word ending in `bench` (TorchBench's tests)
/// is still no benchmark.
#[test]
fn a_known_storage_benchmark_names_its_workflow() {
    assert_eq!(
        lint_in("heldout27", "zbdbench.yml"),
        [at("long-timeout", 8), at("unpinned-clone", 11)]
    );
    assert_eq!(lint_in("heldout27", "torchbench.yml"), []);
}

/// timefold's and hydration-node's build jobs upload what they built for
/// the benchmark job (`benchmarks-baseline.jar`, "Upload the binaries";
/// "Upload benchmarks CLI" of `target/release/node`): no results, so no
/// benchmark job, and their checkout at `main` and custom runner are no
/// findings. The self-hosted job that runs them is found.
#[test]
fn an_upload_of_built_programs_is_no_benchmark_evidence() {
    assert_eq!(
        lint_with(
            "heldout27",
            "build-binaries.yml",
            &["--repository", "acme/solver-benchmarks"]
        ),
        [at("long-timeout", 35)]
    );
}

/// timefold's `ref: ${{ ... && 'main' || '1.x' }}`: an expression whose
/// fallback is a maintenance branch written out moves. One that falls
/// back to a version tag (`|| 'v1.9.3'`) is pinned.
#[test]
fn an_expression_falling_back_to_any_branch_moves() {
    assert_eq!(
        lint_in("heldout27", "branch-expression.yml"),
        [at("unpinned-clone", 18)]
    );
}

/// tempo's `resolve-refs` job, in a workflow named for benchmarking,
/// runs `git`, `mktemp` and a `{ ...; } >> "$GITHUB_OUTPUT"` group: no
/// program of its own (a redirection is no command), so its checkout of
/// `main` to read refs is no finding. The benchmark job's harness at
/// `main` is.
#[test]
fn a_redirected_group_and_mktemp_run_no_program() {
    assert_eq!(
        lint_in("heldout27", "resolve-refs.yml"),
        [at("unpinned-clone", 32)]
    );
}

/// charon's benchmarks run in its flake's shell, `nix develop '.#bench'
/// --command ./scripts/ci-bench.sh`, whose loop reads each crate with
/// `read -r url dir <<< "..."` (a here-string, no heredoc) and clones it
/// at its default branch: found at the step.
#[test]
fn a_script_run_in_a_nix_shell_after_a_here_string_is_read() {
    assert_eq!(
        lint_in("heldout27", "nix-bench.yml"),
        [at("unpinned-clone", 13)]
    );
}
