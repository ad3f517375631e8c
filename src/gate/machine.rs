//! What each job's two sides were measured on, as its compare report says
//! (`machine`, which compare fills from bench's fingerprints): one line per
//! job for the table, and whether its baseline came from another machine.
//! A matrix's jobs each compare on their own runner; one whose baseline was
//! measured on another GPU, driver or runtime (a reused artifact from
//! another runner, a driver upgraded since main's run) may show the
//! machine's change as the code's, so the gate marks it beside its verdict.
//!
//! Every string here is a stranger's (a fork's run may have written the
//! report): cut to a bound and shown as data.

use serde::Serialize;

use super::jobs::Job;
use crate::contract::fingerprint::measured_on_line;
use crate::runner::text::visible;

/// One side's machine as shown (bench cuts each field to 200 characters;
/// a side's line joins five of them).
const SIDE: usize = 300;
/// A difference's value as shown.
const VALUE: usize = 80;
/// Differences named; more are counted.
const DIFFERENCES: usize = 4;

/// What a job's report says its sides were measured on.
#[derive(Debug, Serialize)]
pub struct Measured {
    /// This run's machine in one line (`AMD Instinct MI355X / driver 6.8.5
    /// / ROCm 6.4.0 / ...`), when its fingerprint was known.
    pub current: Option<String>,
    /// The gate baseline's machine in one line.
    pub baseline: Option<String>,
    /// Both in one line: `measured on X; the baseline on Y`, or `both
    /// sides measured on X`.
    pub line: String,
    /// compare found fields that move performance differ: the baseline was
    /// measured on another machine.
    pub another_machine: bool,
    /// Those fields, `GPU AMD Instinct MI325X → AMD Instinct MI355X` (at
    /// most four, then how many more).
    pub differences: Vec<String>,
}

impl Measured {
    /// The table's cell: the line, led by what differs when the baseline
    /// came from another machine.
    pub fn cell(&self) -> String {
        if self.another_machine {
            format!(
                "baseline from another machine ({}): {}",
                self.differences.join(", "),
                self.line
            )
        } else {
            self.line.clone()
        }
    }
}

/// The job's machines; `None` when its report could not be read or knew
/// neither side's machine (a compare without bench's fingerprints).
pub fn of(job: &Job) -> Option<Measured> {
    let machine = &job.report.as_ref().ok()?.machine;
    let side = |s: Option<&str>| s.map(|s| visible(s, SIDE).into_owned());
    let current = side(machine.current_measured_on.as_deref());
    let baseline = side(machine.baseline_measured_on.as_deref());
    let line = measured_on_line(current.as_deref(), baseline.as_deref())?;
    let all = &machine.differences;
    let mut differences: Vec<String> = all
        .iter()
        .take(DIFFERENCES)
        .map(|d| {
            format!(
                "{} {} → {}",
                visible(&d.field, VALUE),
                visible(&d.baseline, VALUE),
                visible(&d.current, VALUE)
            )
        })
        .collect();
    if all.len() > DIFFERENCES {
        differences.push(format!(
            "and {} more",
            all.len().saturating_sub(DIFFERENCES)
        ));
    }
    Some(Measured {
        current,
        baseline,
        line,
        another_machine: !all.is_empty(),
        differences,
    })
}
