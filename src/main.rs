use std::process::ExitCode;

fn main() -> ExitCode {
    skip_ca_loading_for_select();
    let env = |name: &str| std::env::var(name).ok();
    baseline_resolver::runner::panic::install_hook(baseline_resolver::runner::on_runner(&env));
    baseline_resolver::cli::main(&env)
}

/// `select` reads two trees of a local repository and never opens a
/// connection, but libgit2's global init loads the system's CA bundle
/// (5 ms, a fifth of a 10,000-file selection: BENCHMARKS.md, section 9).
/// OpenSSL reads the bundle's path from `SSL_CERT_FILE`; for `select` it
/// names nothing (whatever it named: nothing here verifies a certificate).
/// Here, before any thread exists, setting it is sound.
fn skip_ca_loading_for_select() {
    if std::env::args_os().nth(1).is_some_and(|a| a == "select") {
        // SAFETY: single-threaded: nothing else reads the environment yet.
        unsafe { std::env::set_var("SSL_CERT_FILE", "/dev/null") };
    }
}
