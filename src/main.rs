use std::process::ExitCode;

use baseline_resolver::cli::Cli;
use clap::Parser;

fn main() -> ExitCode {
    let on_runner = std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true");
    baseline_resolver::error::install_panic_hook(on_runner);
    let args = Cli::parse().into_resolve();
    baseline_resolver::main_with(&args, &|name| std::env::var(name).ok())
}
