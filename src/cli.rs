//! The command line: which command runs, with which arguments, and the
//! front door (`baseline-resolver --help`), which introduces the whole tool
//! and how its commands follow each other. No subcommand means `resolve`, so
//! `baseline-resolver --event ...` (and every workflow written before there
//! were several commands) keeps working.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::runner::log::{LogSink as _, LogText};
use crate::runner::{Env, exit, finish, write};
use crate::{bench, comment, compare, convert, gate, lint, resolve, select, trend};

/// One line for the whole tool (`-h`), said the same in Cargo.toml's description.
const ABOUT: &str = "Benchmark baselines a maintainer can trust in GitHub Actions: resolve the one \
    baseline, run both sides, compare into a verdict, post it.";

/// `--help`: the commands in the order a workflow runs them, then what runs
/// without one.
const LONG_ABOUT: &str = "Benchmark baselines a maintainer can trust in GitHub Actions: whether a change \
    made the benchmarks slower, against the right baseline, said out loud.\n\n\
    A pull request's benchmark job runs the commands in this order:\n  \
    resolve   the one baseline: the base repository (never the fork), its exact commit, the latest tag\n  \
    select    the benchmark groups the change can affect (all of them when unsure)\n  \
    bench     the suite on the change and on that baseline, each bounded in time\n  \
    compare   both results into a verdict: regressions, improvements, what was not compared\n  \
    comment   the verdict on the pull request, one comment updated in place\n  \
    gate      the verdicts of every job of a matrix as one required check, in a job after them\n\n\
    On pushes to main, trend finds the change points in main's own history (and comment posts them on an \
    issue); lint checks the workflows themselves for the patterns that waste GPU hours or hide a missing \
    comparison; convert writes a harness's own results (Google Benchmark, pytest-benchmark, ...) as one \
    CSV, for dashboards (the other commands read those files directly). \
    `baseline-resolver COMMAND --help` tells more of each.\n\n\
    Without a command, resolve runs, and the options below are resolve's: it reads the event payload \
    (GITHUB_EVENT_PATH, GITHUB_EVENT_NAME) and answers the base repository, the base commit and where that \
    answer came from; a missing baseline is always a warning, never a quiet skip.";

#[derive(Debug, Parser)]
#[command(
    name = "baseline-resolver",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = "Run with --help for examples and exit codes.",
    after_long_help = resolve::args::after_long_help(),
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// `resolve` is what runs without a subcommand.
    #[command(flatten)]
    pub resolve: resolve::args::ResolveArgs,
}

/// In the order a pull request's job runs them (`--help` lists them so).
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant, reason = "parsed once per process")]
pub enum Command {
    /// Resolve the baseline for one event (the default command).
    #[command(about = resolve::args::ABOUT, long_about = resolve::args::LONG_ABOUT, after_long_help = resolve::args::after_long_help())]
    Resolve(resolve::args::ResolveArgs),
    /// Select the benchmark groups the change can affect (failing safe to all).
    #[command(long_about = select::args::ABOUT, after_long_help = select::args::after_long_help())]
    Select(select::args::SelectArgs),
    /// Run the suite on the change and on the one baseline, in paired rounds.
    #[command(long_about = bench::args::ABOUT, after_long_help = bench::args::after_long_help())]
    Bench(bench::args::BenchArgs),
    /// Compare benchmark results of the change with the baseline's: a verdict.
    #[command(long_about = compare::args::ABOUT, after_long_help = compare::args::after_long_help())]
    Compare(compare::args::CompareArgs),
    /// Post the verdict on the pull request: one comment, updated in place.
    #[command(long_about = comment::args::ABOUT, after_long_help = comment::args::after_long_help())]
    Comment(comment::args::CommentArgs),
    /// One verdict over every benchmark job's compare report (a matrix's gate job).
    #[command(long_about = gate::args::ABOUT, after_long_help = gate::args::after_long_help())]
    Gate(gate::args::GateArgs),
    /// Find the change points in main's own benchmark history.
    #[command(long_about = trend::args::ABOUT, after_long_help = trend::args::after_long_help())]
    Trend(trend::args::TrendArgs),
    /// Find the benchmark-CI anti-patterns in workflow files.
    #[command(long_about = lint::args::ABOUT, after_long_help = lint::args::after_long_help())]
    Lint(lint::args::LintArgs),
    /// Write a harness's results (Google Benchmark, pyperf, criterion, ...) as the CSV.
    #[command(long_about = convert::args::ABOUT, after_long_help = convert::args::after_long_help())]
    Convert(convert::args::ConvertArgs),
}

impl Cli {
    pub fn command(self) -> Command {
        match self.command {
            Some(command) => command,
            None => Command::Resolve(self.resolve),
        }
    }
}

/// Parses the command line and runs the command. A usage error (exit 2),
/// `--help` and `--version` are clap's text, written line by line through
/// the log writer: an argument it quotes back cannot become a workflow
/// command either.
pub fn main(env: Env<'_>) -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let mut text = LogText::new();
            for line in err.render().to_string().lines() {
                text.push_line(line);
            }
            if err.use_stderr() {
                write::stderr(&text);
            } else {
                let _ = write::stdout(|log| log.append(&text));
            }
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(exit::USAGE));
        }
    };
    let code = match cli.command() {
        Command::Resolve(args) => finish("baseline-resolver", env, resolve::run(&args, env)),
        Command::Compare(args) => {
            finish("baseline-resolver compare", env, compare::run(&args, env))
        }
        Command::Select(args) => finish("baseline-resolver select", env, select::run(&args, env)),
        Command::Gate(args) => finish("baseline-resolver gate", env, gate::run(&args, env)),
        Command::Lint(args) => finish("baseline-resolver lint", env, lint::run(&args, env)),
        Command::Comment(args) => {
            finish("baseline-resolver comment", env, comment::run(&args, env))
        }
        Command::Trend(args) => finish("baseline-resolver trend", env, trend::run(&args, env)),
        Command::Bench(args) => finish("baseline-resolver bench", env, bench::run(&args, env)),
        Command::Convert(args) => {
            finish("baseline-resolver convert", env, convert::run(&args, env))
        }
    };
    ExitCode::from(code)
}
