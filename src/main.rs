use std::process::ExitCode;

fn main() -> ExitCode {
    let env = |name: &str| std::env::var(name).ok();
    baseline_resolver::runner::panic::install_hook(baseline_resolver::runner::on_runner(&env));
    baseline_resolver::cli::main(&env)
}
