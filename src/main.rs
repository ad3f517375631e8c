use std::process::ExitCode;

use baseline_resolver::cli::Cli;
use clap::Parser;

fn main() -> ExitCode {
    let args = Cli::parse().into_resolve();
    baseline_resolver::main_with(&args, &|name| std::env::var(name).ok())
}
