//! The report for a person, and the log of the github form: the verdict,
//! each baseline's dashboard block and counts, the rows that were not
//! compared with why, the re-run list and the warnings. Written through
//! the log writer line by line as it is formed.

use std::io;

use super::{REPORT_ONLY, Rerun, counts_line, cut, dashboard, history_line, verdict_line};
use crate::compare::report::Report;
use crate::compare::verdict::Class;
use crate::runner::log::LogSink;

pub fn write(report: &Report<'_>, out: &mut dyn LogSink) -> io::Result<()> {
    if let Some(sentence) = report.machine.sentence() {
        out.line(&format!("machine: {}", cut(&sentence)))?;
    }
    out.line(&verdict_line(report))?;
    if report.report_only {
        out.line(REPORT_ONLY)?;
    }
    for c in report.comparisons() {
        if let Some(why) = &c.unavailable {
            out.line(&format!("baseline {} unavailable: {}", c.label, cut(why)))?;
            continue;
        }
        dashboard::block(report, c, out)?;
        out.line(&counts_line(c))?;
        out.line(&format!(
            "  coverage: {}",
            crate::compare::coverage::of(c).text()
        ))?;
        if let Some(line) = history_line(report, c) {
            out.line(&line)?;
        }
        for row in c.rows_of(&[
            Class::Lost,
            Class::Skipped,
            Class::New,
            Class::Absent,
            Class::NotComparable,
        ]) {
            let key = row.key.describe(&report.config.keys);
            let reason = row
                .reason
                .as_deref()
                .map(|r| format!(" ({})", cut(r)))
                .unwrap_or_default();
            out.line(&format!("  {}: {key}{reason}", row.class.name()))?;
        }
        for row in c.rows_of(&[Class::Noisy]) {
            let key = row.key.describe(&report.config.keys);
            let reason = row.reason.as_deref().map(cut).unwrap_or_default();
            out.line(&format!("  noisy: {key} ({reason})"))?;
        }
    }
    let rerun = Rerun::of(report);
    if !rerun.groups.is_empty() {
        out.line(&format!(
            "rerun: {} (a re-run could change the verdict of the rows with this {}{})",
            rerun.output(),
            Rerun::column(report),
            Rerun::elsewhere(report)
        ))?;
    }
    if !rerun.baseline_groups.is_empty() {
        out.line(&format!(
            "rerun-baseline: {} (the baseline's run was itself off main's level: run the baseline again)",
            rerun.baseline_output()
        ))?;
    }
    for warning in &report.warnings {
        out.line(&format!("warning: {}", cut(warning)))?;
    }
    Ok(())
}
