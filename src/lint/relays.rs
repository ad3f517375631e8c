//! A job that only passes on results another run measured: it downloads
//! them and sends them on (to a dashboard, a database, a results
//! repository). Such a job measures nothing, whatever its names say, so
//! no benchmark rule looks at it. Split from [`super::evidence`]. Pure.

use super::names::{sends_word, words};
use super::programs::benchmark_command;
use super::programs::{invoked, own_program};
use super::shell::Command;
use super::workflow::{Job, Step};

/// Whether `job` only passes on results another job measured: it
/// downloads an artifact, and each of its steps that runs a program
/// sends ([`step_sends`]); `runs_a_program` says which steps run one
/// (the evidence's own judgement, passed in so neither module imports the
/// other). test-infra's reusable
/// `upload_benchmark_results.yml` downloads the caller's results and runs
/// `upload_benchmark_results.py` on them, a script named for benchmarking
/// that measures nothing. A job that also
/// runs a step not so named ("Run benchmarks") is not one, nor one any of
/// whose steps runs a benchmark command, whatever it is named ("Run
/// benchmarks and upload results" running `cargo bench && ./upload.sh`):
/// a name never outweighs what a script runs. A benchmark command itself
/// named for sending (`python upload_benchmark_results.py`) still relays.
pub fn relays_results(job: &Job<'_>, runs_a_program: fn(&Step<'_>) -> bool) -> bool {
    let measures = job.steps.iter().any(|s| {
        s.script.as_ref().is_some_and(|script| {
            script
                .commands
                .iter()
                .any(|c| benchmark_command(c) && !sends(c))
        })
    });
    let downloads = super::kept::downloads_artifacts(job);
    let mut programs = job.steps.iter().filter(|s| runs_a_program(s)).peekable();
    downloads && !measures && programs.peek().is_some() && programs.all(step_sends)
}

/// Whether a step that runs a program sends what it was given: its name
/// says so ("Upload benchmark results"), or each of its commands that
/// runs a program says so ([`says_sending`]: `python3
/// .github/scripts/benchmark_clickhouse.py upload "$ARTIFACT_DIR"`, a
/// step named "Ingest source comparison" that puts stored results into a
/// database, read on foundry's ingest job).
fn step_sends(step: &Step<'_>) -> bool {
    // A name that begins by comparing ("Compare and post results",
    // databricks' diff of the pull request's results with main's) compares
    // before it sends: it measures the change against its baseline.
    let compares_first = |n: &str| words(n).next().is_some_and(|w| w.starts_with("compar"));
    if step
        .text("name")
        .is_some_and(|n| words(n).any(|w| sends_word(&w)) && !compares_first(n))
    {
        return true;
    }
    let Some(script) = &step.script else {
        return false;
    };
    let mut programs = script
        .commands
        .iter()
        .filter(|c| invoked(c).is_some_and(|(n, _)| own_program(n)))
        .peekable();
    programs.peek().is_some() && programs.all(says_sending)
}

/// Whether a command says it sends by what it runs: its program's or
/// script's name (`./upload_results.sh`, `python3 push_metrics.py`) or a
/// subcommand that is a sending word (`benchmark_store.py upload DIR`).
/// Not a flag (`run_bench.py --upload`: a benchmark run that also
/// uploads measures), nor a file it is given (`--output report.md`).
fn says_sending(c: &Command) -> bool {
    invoked(c).is_some_and(|(_, said)| {
        let script = said.get(1).filter(|w| {
            [".py", ".sh", ".js", ".rb", ".pl"]
                .iter()
                .any(|e| w.ends_with(e))
        });
        let named = said.first().into_iter().chain(script).any(|w| {
            let file = w.rsplit('/').next().unwrap_or(w);
            words(file).any(|x| sends_word(&x))
        });
        named
            || said
                .iter()
                .skip(1)
                .any(|w| sends_word(&w.to_ascii_lowercase()))
    })
}

/// Whether a command says it sends in any of its words, flags among them
/// (`--upload-results`): a benchmark command that does is taken to relay.
fn sends(c: &Command) -> bool {
    invoked(c).is_some_and(|(_, said)| said.iter().any(|w| words(w).any(|x| sends_word(&x))))
}
