//! The command shapes of known harnesses that are not one program's
//! name: a program's `bench` subcommand or task (`make bench`, `npm run
//! bench`, `just bench-iai`), and a load generator run against a service
//! (`k6 run`, `locust --headless`). Part of [`super`]'s judgement of
//! whether a command runs benchmarks. Pure.

use crate::lint::names::chore;
use crate::lint::programs::own_program;

/// A program whose subcommand runs its benchmarks: `ix bench run`,
/// `make bench`, `just benchmark`, `npm run bench` (a package manager's
/// `run` and the script's name): the word right after the program (or its
/// `run`) is `bench` or `benchmark(s)`, not a flag's value nor a word of a
/// message, and not a compile-only form (`--no-run`).
pub fn bench_subcommand(base: &str, words: &[&str]) -> bool {
    if !own_program(base) || base == "git" || words.contains(&"--no-run") {
        return false;
    }
    // A package manager's or task runner's `run` (`npm run bench`, `vp
    // run bench`): the task after it.
    let at = if words.get(1) == Some(&"run") { 2 } else { 1 };
    words.get(at).is_some_and(|w| bench_target(w))
}

/// A subcommand or build target that runs the benchmarks: `bench`, or
/// one that begins with it, `bench-iai` (`just bench-iai`: physa-db's
/// iai-callgrind suite), `benchmark-json`, `bench:all`; not one that
/// names a chore after it, `bench-docs`, `bench-build`.
fn bench_target(word: &str) -> bool {
    // Besides the chores any name may say (`names::chore`), a target's
    // own: its docs, dependencies, checks, report, formatting.
    const TARGET_CHORES: &[&str] = &[
        "docs", "doc", "deps", "check", "report", "publish", "upload", "fmt", "format",
    ];
    let mut parts = word.split(['-', '_', ':']);
    parts
        .next()
        .is_some_and(|w| matches!(w, "bench" | "benchmark" | "benchmarks"))
        && parts.all(|p| !chore(p) && !TARGET_CHORES.contains(&p))
}

/// A load generator run against a service (`locust --headless`, `k6
/// run`, `wrk`, `vegeta attack`, `oha`, `ab -n`): it measures the
/// service's throughput and latency, as a benchmark does (aurora-pro-ai's
/// "Load Testing" step in its benchmark job). Not `locust` with its web
/// interface, which waits for a person.
pub fn load_generator(base: &str, words: &[&str]) -> bool {
    let has = |w: &str| words.contains(&w);
    match base {
        "locust" => has("--headless"),
        "k6" => words.get(1) == Some(&"run"),
        "vegeta" => words.get(1) == Some(&"attack"),
        "ab" => has("-n") || has("-t"),
        "wrk" | "wrk2" | "oha" => words.len() > 1,
        _ => false,
    }
}
