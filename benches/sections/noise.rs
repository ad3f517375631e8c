//! Section 8: the noise-aware verdict on simulated pull requests (fixed
//! seed): false alarms with and without history, and regressions caught,
//! with the targets beside them. The same simulation runs, smaller, in the
//! test suite (`tests/integration/compare/noise.rs`).

use std::fmt::Write as _;
use std::time::Instant;

use super::simulation;

pub fn simulating(report: &mut String) {
    let started = Instant::now();
    let n = 2000;
    let rates = simulation::scenarios(n, 0x5eed_2026);
    let targets = [
        "(reported)",
        "(reported)",
        "at most 2%",
        "at least 95%",
        "at most 2%",
        "at least 90%",
    ];
    let mut rows = String::new();
    for (rate, target) in rates.iter().zip(targets) {
        let _ = writeln!(
            rows,
            "| {} | **{:.2}%** ({} of {}) | {target} |",
            rate.name,
            rate.fraction() * 100.0,
            rate.hits,
            rate.n
        );
    }
    let _ = writeln!(
        report,
        "## 8. Noise: thresholds learned from main's history\n\n\
         {n} simulated pull requests per scenario (seed 0x5eed2026; {:.1} s): suites of {} rows with ROCm/FlyDSL's \
         noise mix (70% of rows 0.5-1.5% run to run, 20% 2-5%, 10% 10-25%; log-normal), one current and \
         one baseline run per pull request, and {} history runs of main (`--history`). A row's fail threshold is the \
         larger of the configured one and its band: gross outliers (over {} robust deviations) dropped, the \
         history split at its change points, the spread within levels pooled and moderated across the suite's \
         rows, Student's t at the row's share of a {}% false-alarm rate per pull request, against main's level \
         with the baseline on it (`src/compare/noise.rs`); with `--fail-threshold auto`, the band alone, never \
         below {}%. A pull request fails when any row regressed or was lost.\n\n\
         | scenario | rate | target |\n|---|---|---|\n{rows}",
        started.elapsed().as_secs_f64(),
        simulation::ROWS,
        simulation::HISTORY,
        baseline_resolver::series::fit::CUT,
        baseline_resolver::compare::defaults::FALSE_ALARMS_PCT,
        baseline_resolver::compare::defaults::AUTO_FLOOR * 100.0
    );
}
