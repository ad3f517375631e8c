//! The verdict of each job and of the whole gate (pure): compare's rules,
//! read from its report. A job fails when its gate baseline regressed or
//! lost rows (whatever `--no-gate` made of its own step) or when its report
//! cannot be read; it is inconclusive when compare said so (no baseline,
//! nothing compared, coverage below `--min-coverage`, a baseline from
//! another machine under `--fingerprint strict`) or when paired rows
//! are still undecided. Anything the gate does not recognise is never a
//! pass.

use super::jobs::{Job, gate};
use crate::contract::REPORT_SCHEMA;
use crate::contract::class::Class;

/// A job's verdict, worst last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Pass,
    Inconclusive,
    /// Fewer reports than `--expect-jobs`: a runner left none.
    Missing,
    /// The report could not be read: the job fails.
    Unreadable,
    Regression,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Missing => "missing",
            Verdict::Unreadable => "unreadable",
            Verdict::Regression => "regression",
        }
    }

    pub fn fails(self) -> bool {
        matches!(
            self,
            Verdict::Missing | Verdict::Unreadable | Verdict::Regression
        )
    }
}

/// A job's verdict and, when it is not a pass, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    pub verdict: Verdict,
    pub why: Option<String>,
}

fn judged(verdict: Verdict, why: impl Into<String>) -> Judged {
    Judged {
        verdict,
        why: Some(why.into()),
    }
}

/// One job, by compare's rules.
pub fn job(job: &Job) -> Judged {
    let report = match &job.report {
        Ok(report) => report,
        Err(why) => return judged(Verdict::Unreadable, why.clone()),
    };
    if report.schema > REPORT_SCHEMA {
        return judged(
            Verdict::Unreadable,
            format!(
                "its schema {} is newer than this gate reads ({REPORT_SCHEMA}): update the gate action to compare's version",
                report.schema
            ),
        );
    }
    let Some(base) = gate(report) else {
        // compare always writes its gate baseline, available or not.
        return judged(
            Verdict::Unreadable,
            "it has no gate baseline (compare always writes one)",
        );
    };
    let failing = base
        .counts
        .of(Class::Regressed)
        .saturating_add(base.counts.of(Class::Lost));
    let verdict = report.verdict.as_deref().or(base.verdict.as_deref());
    match verdict {
        Some("regression") => judged(Verdict::Regression, "rows regressed or were lost"),
        _ if failing > 0 => judged(Verdict::Regression, "rows regressed or were lost"),
        Some("inconclusive") => judged(Verdict::Inconclusive, inconclusive_why(job)),
        Some("pass") => match base.paired.map(|p| p.undecided) {
            Some(n) if n > 0 => judged(
                Verdict::Inconclusive,
                format!(
                    "{} still undecided (noisy)",
                    crate::runner::text::counted(n, "paired row")
                ),
            ),
            _ => Judged {
                verdict: Verdict::Pass,
                why: None,
            },
        },
        Some(other) => judged(
            Verdict::Unreadable,
            format!(
                "its verdict {:?} is not one compare writes",
                crate::runner::shown(other)
            ),
        ),
        None => judged(Verdict::Unreadable, "it has no verdict"),
    }
}

/// Why compare found the job inconclusive, from its gate baseline.
fn inconclusive_why(job: &Job) -> String {
    let Some(base) = job.report.as_ref().ok().and_then(gate) else {
        return "no gate baseline in the report".to_owned();
    };
    if !base.available {
        let reason = base
            .unavailable_reason
            .as_deref()
            .unwrap_or("no reason given");
        return format!("baseline {} unavailable: {reason}", base.label);
    }
    let strict_machine = job.report.as_ref().is_ok_and(|r| r.machine.inconclusive);
    match &base.coverage {
        Some(c) if c.compared == 0 => "nothing compared".to_owned(),
        Some(c) if c.pct.is_some_and(|p| p < c.min_pct) => format!(
            "coverage {:.1}% below the minimum {:.1}%",
            c.pct.unwrap_or(0.0),
            c.min_pct
        ),
        _ if strict_machine => {
            "the baseline was measured on another machine (compare --fingerprint strict)".to_owned()
        }
        _ => "compare found it inconclusive (see its job summary)".to_owned(),
    }
}

/// The gate over every job: the worst verdict; `missing` reports (fewer
/// than expected) fail it as a job would.
pub fn overall(verdicts: &[Judged], missing: usize) -> Verdict {
    let worst = verdicts
        .iter()
        .map(|j| j.verdict)
        .max()
        .unwrap_or(Verdict::Missing);
    if missing > 0 {
        worst.max(Verdict::Missing)
    } else {
        worst
    }
}

/// The exit code: 4 when a job regressed, 1 when a report could not be
/// read or is missing, 3 under `--strict` when a job is inconclusive,
/// else 0.
pub fn exit_code(verdicts: &[Judged], missing: usize, strict: bool) -> u8 {
    match overall(verdicts, missing) {
        Verdict::Regression => super::exit::REGRESSION,
        Verdict::Unreadable | Verdict::Missing => super::exit::BAD_INPUT,
        Verdict::Inconclusive if strict => super::exit::INCONCLUSIVE,
        Verdict::Inconclusive | Verdict::Pass => super::exit::OK,
    }
}
