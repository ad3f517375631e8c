//! Simulated pull requests for the noise-aware verdict, with a fixed seed:
//! a suite of rows with the motivating repository's noise mix (70% quiet,
//! 0.5-1.5% run to run; 20% medium, 2-5%; 10% wild, 10-25%), one current
//! and one baseline run per pull request, and ten history runs of main.
//! Noise is multiplicative (log-normal), so values stay positive. The
//! comparison is the library's own (`compare::verdict`), on tables parsed
//! from CSV text as the binary parses them. Used by the test suite (few
//! pull requests, asserting the targets) and by the bench (many, for
//! BENCHMARKS.md).

use std::path::Path;

use baseline_resolver::compare::verdict::{Sides, compare};
use baseline_resolver::config::{Config, FailThreshold, Thresholds};
use baseline_resolver::contract::class::{Class, Verdict};
use baseline_resolver::table::Table;
use baseline_resolver::table::read::parse;

/// Rows per suite (the motivating repository's MI355 runner has 65).
pub const ROWS: usize = 65;
/// History runs of main per pull request.
pub const HISTORY: usize = 10;

/// xorshift64* with Box-Muller normals: deterministic for a seed.
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Random {
        Random(seed | 1)
    }

    pub fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    pub fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// One suite: each row's true value and run-to-run noise (a fraction).
pub struct Suite {
    pub values: Vec<f64>,
    pub noise: Vec<f64>,
}

impl Suite {
    pub fn draw(r: &mut Random) -> Suite {
        let mut values = Vec::with_capacity(ROWS);
        let mut noise = Vec::with_capacity(ROWS);
        for _ in 0..ROWS {
            values.push(r.between(1.0, 900.0));
            let kind = r.uniform();
            noise.push(if kind < 0.7 {
                r.between(0.005, 0.015)
            } else if kind < 0.9 {
                r.between(0.02, 0.05)
            } else {
                r.between(0.10, 0.25)
            });
        }
        Suite { values, noise }
    }

    /// A quiet row (noise at most `max`).
    pub fn quiet_row(&self, r: &mut Random, max: f64) -> Option<usize> {
        let quiet: Vec<usize> = (0..ROWS).filter(|i| self.noise[*i] <= max).collect();
        if quiet.is_empty() {
            return None;
        }
        let pick = ((r.uniform() * quiet.len() as f64) as usize).min(quiet.len() - 1);
        Some(quiet[pick])
    }

    /// One run: every row measured once; `slower` makes one row slower by
    /// a fraction.
    pub fn run(&self, r: &mut Random, slower: Option<(usize, f64)>) -> Table {
        let mut text = String::from("op,shape,dtype,tflops,status\n");
        for i in 0..ROWS {
            let factor = match slower {
                Some((row, by)) if row == i => 1.0 - by,
                _ => 1.0,
            };
            let v = self.values[i] * factor * (self.noise[i] * r.normal()).exp();
            text.push_str(&format!("op{i},{i}x8192,bf16,{v:.6},ok\n"));
        }
        let config = Config::default();
        parse(
            Path::new("sim.csv"),
            text.as_bytes(),
            &config.keys,
            &config.metrics,
        )
        .unwrap()
    }
}

/// What one simulated pull request's comparison decided.
pub struct Outcome {
    pub verdict: Verdict,
    /// The rows that regressed, by number.
    pub regressed: Vec<usize>,
}

/// One pull request: a history, a baseline run and a current run (with the
/// slowdown, if any), compared under `fail`; no history when `history` is
/// false.
pub fn pull_request(
    suite: &Suite,
    r: &mut Random,
    slower: Option<(usize, f64)>,
    fail: FailThreshold,
    history: bool,
) -> Outcome {
    let past: Vec<Table> = if history {
        (0..HISTORY).map(|_| suite.run(r, None)).collect()
    } else {
        Vec::new()
    };
    let base = [suite.run(r, None)];
    let cur = [suite.run(r, slower)];
    let config = Config::default();
    let thresholds = Thresholds {
        fail,
        fail_given: true,
        ..Thresholds::default()
    };
    let sides = Sides {
        label: "main".to_owned(),
        baseline: &base,
        current: &cur,
        history: &past,
        unselected: &[],
        unavailable: None,
        paired: None,
    };
    let comparison = compare(sides, &config, thresholds);
    let regressed = comparison
        .rows_of(&[Class::Regressed])
        .filter_map(|row| {
            row.key
                .first()
                .strip_prefix("op")
                .and_then(|n| n.parse().ok())
        })
        .collect();
    Outcome {
        verdict: comparison.verdict(),
        regressed,
    }
}

/// One scenario's result over `n` pull requests.
pub struct Rate {
    pub name: &'static str,
    pub hits: usize,
    pub n: usize,
}

impl Rate {
    pub fn fraction(&self) -> f64 {
        self.hits as f64 / self.n as f64
    }
}

/// The scenarios of BENCHMARKS.md section 8, over `n` pull requests each,
/// from `seed`.
pub fn scenarios(n: usize, seed: u64) -> Vec<Rate> {
    let mut r = Random::new(seed);
    let mut rates = Vec::new();
    let mut run = |name, r: &mut Random, f: &dyn Fn(&Suite, &mut Random) -> bool| {
        let mut hits = 0;
        for _ in 0..n {
            let suite = Suite::draw(r);
            if f(&suite, r) {
                hits += 1;
            }
        }
        rates.push(Rate { name, hits, n });
    };
    let fixed = |pct: f64| FailThreshold::Fixed(pct / 100.0);
    run(
        "no change, 10% without history: false alarms",
        &mut r,
        &|s, r| pull_request(s, r, None, fixed(10.0), false).verdict == Verdict::Regression,
    );
    run(
        "no change, 3% without history: false alarms",
        &mut r,
        &|s, r| pull_request(s, r, None, fixed(3.0), false).verdict == Verdict::Regression,
    );
    run(
        "no change, 10% with history: false alarms",
        &mut r,
        &|s, r| pull_request(s, r, None, fixed(10.0), true).verdict == Verdict::Regression,
    );
    run(
        "one quiet row 20% slower, 10% with history: caught and named",
        &mut r,
        &|s, r| {
            let Some(row) = s.quiet_row(r, 0.015) else {
                return false;
            };
            let o = pull_request(s, r, Some((row, 0.20)), fixed(10.0), true);
            o.verdict == Verdict::Regression && o.regressed.contains(&row)
        },
    );
    run(
        "no change, auto with history: false alarms",
        &mut r,
        &|s, r| pull_request(s, r, None, FailThreshold::Auto, true).verdict == Verdict::Regression,
    );
    run(
        "one very quiet row (noise <= 0.8%) 8% slower, auto: caught and named",
        &mut r,
        &|s, r| {
            let Some(row) = s.quiet_row(r, 0.015) else {
                return false;
            };
            let mut suite = Suite {
                values: s.values.clone(),
                noise: s.noise.clone(),
            };
            suite.noise[row] = r.between(0.005, 0.008);
            let o = pull_request(&suite, r, Some((row, 0.08)), FailThreshold::Auto, true);
            o.verdict == Verdict::Regression && o.regressed.contains(&row)
        },
    );
    rates
}
