//! The report in each output form: the log for a person and for the
//! dashboard ([`text`], with the [`dashboard`] block), the job summary
//! ([`summary`]), JSON ([`json`]); here, what a runner gets besides:
//! annotations and step outputs, and what several forms share (the verdict
//! line, the counts, the re-run list).
//!
//! Every value from a results file is shown bounded: key cells at most
//! [`SHOWN_CELL`] characters, messages at most [`SHOWN_MESSAGE`], each
//! step output at most [`OUTPUT_LIMIT`] bytes, cut with a visible marker
//! (`--format json` on stdout keeps them whole).

pub mod dashboard;
pub mod json;
pub mod summary;
pub mod text;

use std::io;

use crate::compare::noise::NoBand;
use crate::compare::report::Report;
use crate::compare::verdict::{Class, Comparison, Origin, RowResult, Verdict};
use crate::config::{FailThreshold, Source};
use crate::runner::file_command::{self, EncodeError};
use crate::runner::log::{LogSink, LogText};
use crate::runner::text::{quantity, visible};
use crate::runner::{Forms, Rendered};
use crate::table::SHOWN_CELL;

/// Annotations per kind: GitHub shows ten per step anyway.
const ANNOTATIONS: usize = 10;
/// Rows per baseline in the `json` step output (`--format json` has all).
const OUTPUT_ROWS: usize = 100;
/// The most one step output holds (the runner layer's limit).
pub use crate::runner::write::OUTPUT_LIMIT;
/// The most characters of a message (a reason, a warning) in outputs,
/// annotations and the summary.
pub const SHOWN_MESSAGE: usize = 400;
/// Distinct groups the `rerun` output names before it says "and more".
const RERUN_GROUPS: usize = 200;

/// A message cut to [`SHOWN_MESSAGE`] characters, control characters made
/// visible.
pub fn cut(message: &str) -> String {
    visible(message, SHOWN_MESSAGE).into_owned()
}

/// The fail threshold as a person reads it.
pub fn fail_text(report: &Report<'_>) -> String {
    match report.thresholds.fail {
        FailThreshold::Fixed(f) => format!("{}%", f * 100.0),
        FailThreshold::Auto => "auto (each row's noise band from the history)".to_owned(),
    }
}

/// The fail thresholds the config's rules set, as the verdict line names
/// them: ` (rules: 15% for op=allreduce*, auto for op=softmax)` (at most
/// three, then how many more), empty without such rules: the default is
/// not what judges those rows.
pub fn rules_text(report: &Report<'_>) -> String {
    let set: Vec<String> = report
        .config
        .rules
        .iter()
        .filter(|r| !r.ignore)
        .filter_map(|r| {
            let fail = match r.fail? {
                FailThreshold::Fixed(f) => format!("{}%", f * 100.0),
                FailThreshold::Auto => "auto".to_owned(),
            };
            let at: Vec<&str> = r.patterns.iter().map(|p| p.text.as_str()).collect();
            Some(format!("{fail} for {}", cut(&at.join(" "))))
        })
        .collect();
    match set.len() {
        0 => String::new(),
        n if n <= 3 => format!(" (rules: {})", set.join(", ")),
        n => format!(
            " (rules: {} and {} more)",
            set.get(..3).unwrap_or_default().join(", "),
            n.saturating_sub(3)
        ),
    }
}

/// Where a row's fail threshold came from, as JSON and the summary name it.
pub fn threshold_source(row: &RowResult<'_>) -> &'static str {
    let configured = |s: Source| match s {
        Source::Default => "default",
        Source::Input => "input",
        Source::Rule(_) => "rule",
    };
    match row.applied.map(|a| a.origin) {
        Some(Origin::Learned(_)) => "learned",
        Some(Origin::NoBand {
            why: NoBand::TooFew { .. },
            ..
        }) => "too-little-history",
        Some(Origin::NoBand {
            why: NoBand::Unusable { .. } | NoBand::TwoLevels { .. },
            ..
        }) => "history-unusable",
        Some(Origin::Configured(s) | Origin::Level { source: s, .. }) => configured(s),
        None => configured(row.policy.fail_source),
    }
}

/// The threshold a row was judged by, in words: `10% (default)`,
/// `+-14.2% learned from 10 runs`, `10% (too little history: 3 runs)`.
pub fn threshold_words(row: &RowResult<'_>) -> String {
    let Some(applied) = row.applied else {
        return String::new();
    };
    let pct = applied.fail * 100.0;
    match applied.origin {
        Origin::Learned(b) => format!(
            "{pct:.1}% (noise -{:.1}%/+{:.1}% learned from {} runs)",
            b.fall() * 100.0,
            b.rise() * 100.0,
            b.runs
        ),
        Origin::NoBand {
            why: NoBand::TooFew { runs },
            ..
        } => format!("{pct:.1}% (configured: too little history, {runs} runs)"),
        Origin::NoBand {
            why: why @ (NoBand::Unusable { .. } | NoBand::TwoLevels { .. }),
            ..
        } => format!(
            "{pct:.1}% (configured: history unusable, {})",
            unusable(why)
        ),
        Origin::Level { source, runs } => format!(
            "{pct:.1}% ({}; the runs tested against main's level over {runs} runs)",
            match (row.policy.fail, source) {
                (FailThreshold::Auto, _) => "auto's floor".to_owned(),
                (_, Source::Rule(i)) => format!("rules[{i}]"),
                (_, Source::Input) => "--fail-threshold".to_owned(),
                (_, Source::Default) => "default".to_owned(),
            }
        ),
        Origin::Configured(Source::Rule(i)) => format!("{pct:.1}% (rules[{i}])"),
        Origin::Configured(Source::Input) => format!("{pct:.1}% (--fail-threshold)"),
        Origin::Configured(Source::Default) => format!("{pct:.1}% (default)"),
    }
}

/// Why a history cannot judge a row, in words: `two levels 100 and 60
/// over 10 runs`, `a band of +-2681%, with which the row could never fail,
/// over 10 runs`.
pub fn unusable(why: NoBand) -> String {
    match why {
        NoBand::TwoLevels { runs, low, high } => {
            format!(
                "two levels {} and {} over {runs} runs",
                number(high),
                number(low)
            )
        }
        NoBand::Unusable { runs, band } => {
            let width = if band.is_finite() {
                format!("+-{:.0}%", band * 100.0)
            } else {
                "more than any finite factor".to_owned()
            };
            format!("a band of {width}, with which the row could never fail, over {runs} runs")
        }
        NoBand::TooFew { runs } => format!("too little history, {runs} runs"),
    }
}

/// A value as a person reads it: four significant digits.
fn number(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e4 || v.abs() < 1e-3) {
        return format!("{v:.3e}");
    }
    #[allow(clippy::cast_possible_truncation, reason = "a small exponent")]
    let magnitude = if v == 0.0 {
        0
    } else {
        v.abs().log10().floor() as i64
    };
    let digits = usize::try_from(3i64.saturating_sub(magnitude).clamp(0, 6)).unwrap_or(0);
    format!("{v:.digits$}")
}

/// How the gate's bands were learned, when they were: the history, and
/// the false-alarm rate they share among the rows.
pub fn history_line(report: &Report<'_>, c: &Comparison<'_>) -> Option<String> {
    if !c.has_history() || !report.is_gate(c) {
        return None;
    }
    Some(format!(
        "bands learned from main's history: a pull request of noise alone fails with a chance of {}% (--false-alarms), {:.2e} per row",
        report.thresholds.false_alarms * 100.0,
        c.row_rate()
    ))
}

/// What a re-run could change, over the gate: noisy rows, and rows that
/// regressed on one sample per side.
pub struct Rerun {
    /// The `[rerun] key` column's values (the first key column by
    /// default), distinct, in order.
    pub groups: Vec<String>,
    /// `[rerun] join`: what goes between two values in the outputs.
    pub join: &'static str,
    /// How many rows.
    pub rows: usize,
    /// The groups whose baseline run was itself off its level: the
    /// baseline is what to run again.
    pub baseline_groups: Vec<String>,
}

impl Rerun {
    pub fn of(report: &Report<'_>) -> Rerun {
        let mut out = Rerun {
            groups: Vec::new(),
            join: report.config.rerun.join,
            rows: 0,
            baseline_groups: Vec::new(),
        };
        let Some(gate) = &report.gate else {
            return out;
        };
        let mut seen = rustc_hash::FxHashSet::default();
        let mut seen_baseline = rustc_hash::FxHashSet::default();
        for row in gate
            .rows_of(&[Class::Regressed, Class::Noisy])
            .filter(RowResult::worth_rerun)
        {
            let first = row.key.cell(report.config.rerun.key);
            if row.rerun_baseline && !seen_baseline.contains(first.as_ref()) {
                seen_baseline.insert(first.clone().into_owned());
                out.baseline_groups.push(first.clone().into_owned());
            }
            if !seen.contains(first.as_ref()) {
                seen.insert(first.clone().into_owned());
                out.groups.push(first.into_owned());
            }
            out.rows = out.rows.saturating_add(1);
        }
        out
    }

    /// What to add to the advice when the whole suite moved.
    pub fn elsewhere(report: &Report<'_>) -> &'static str {
        match report.gate.as_ref().and_then(Comparison::shift) {
            Some(_) => "; the whole suite moved together: re-run on another machine",
            None => "",
        }
    }

    /// The key column the groups are values of (`op`), shown: the hint
    /// names rows, never one project's harness or flag.
    pub fn column(report: &Report<'_>) -> String {
        report
            .config
            .keys
            .get(report.config.rerun.key)
            .map_or_else(String::new, |k| crate::runner::shown(k))
    }

    /// The baseline's groups to run again, as `output` gives them.
    pub fn baseline_output(&self) -> String {
        Rerun {
            groups: self.baseline_groups.clone(),
            join: self.join,
            rows: 0,
            baseline_groups: Vec::new(),
        }
        .output()
    }

    /// Every row's whole key (`op=...,shape=...`), at most `limit`.
    pub fn keys(report: &Report<'_>, limit: usize) -> Vec<String> {
        report.gate.as_ref().map_or_else(Vec::new, |gate| {
            gate.rows_of(&[Class::Regressed, Class::Noisy])
                .filter(RowResult::worth_rerun)
                .take(limit)
                .map(|r| r.key.describe(&report.config.keys))
                .collect()
        })
    }

    /// The groups; cut (for outputs) to values without `,` or control
    /// characters (nor spaces, when the joiner has one), at most
    /// [`RERUN_GROUPS`].
    pub fn shown_groups(&self, cut: bool) -> Vec<String> {
        if !cut {
            return self.groups.clone();
        }
        self.groups
            .iter()
            .map(|g| {
                let g = visible(g, SHOWN_CELL).replace(',', "_");
                if self.join.contains(' ') {
                    g.replace(' ', "_")
                } else {
                    g
                }
            })
            .take(RERUN_GROUPS)
            .collect()
    }

    /// `softmax,moe` (what `run_benchmark.sh --only` takes), or joined as
    /// `[rerun] join` says.
    pub fn output(&self) -> String {
        self.shown_groups(true).join(self.join)
    }
}

pub fn verdict_line(report: &Report<'_>) -> String {
    let gate = report.gate.as_ref().map_or("?", |g| g.label.as_str());
    let what = match (report.verdict(), &report.gate) {
        (Verdict::Inconclusive, Some(g)) if g.unavailable.is_some() => {
            format!(
                "its baseline is unavailable: {}",
                cut(g.unavailable.as_deref().unwrap_or_default())
            )
        }
        (Verdict::Inconclusive, Some(g)) if report.machine.inconclusive() => format!(
            "the baseline was measured on another machine (--fingerprint strict); {} regressed, {} lost of {} compared",
            g.count(Class::Regressed),
            g.count(Class::Lost),
            g.compared()
        ),
        (Verdict::Inconclusive, _) => "no row was compared".to_owned(),
        (_, Some(g)) => format!(
            "{} regressed, {} lost of {} compared",
            g.count(Class::Regressed),
            g.count(Class::Lost),
            g.compared()
        ),
        (_, None) => String::new(),
    };
    format!(
        "compare: {} against {gate}: {what} (fail: worse by more than {}{}, warn: {}%)",
        report.verdict().name().to_uppercase(),
        fail_text(report),
        rules_text(report),
        report.thresholds.warn * 100.0
    )
}

pub const REPORT_ONLY: &str =
    "REPORT-ONLY (--no-gate): the verdict is reported, and the step passes whatever it is";

pub fn counts_line(c: &Comparison<'_>) -> String {
    let compared: Vec<String> = Class::ALL
        .iter()
        .filter(|k| k.compared())
        .map(|k| format!("{} {}", c.count(*k), k.name()))
        .collect();
    // `not-selected` only exists with a selection, `absent` only beside a
    // baseline run that stopped: no noise without them.
    let rest: Vec<String> = Class::ALL
        .iter()
        .filter(|k| {
            !k.compared() && (!matches!(k, Class::NotSelected | Class::Absent) || c.count(**k) > 0)
        })
        .map(|k| format!("{} {}", c.count(*k), k.name()))
        .collect();
    format!(
        "{}: {} compared ({}); {}",
        c.label,
        c.compared(),
        compared.join(", "),
        rest.join(", ")
    )
}

pub fn row_message(report: &Report<'_>, c: &Comparison<'_>, row: &RowResult<'_>) -> String {
    let key = row.key.describe(&report.config.keys);
    match (row.change, &row.baseline, &row.current) {
        (Some(change), Some(b), Some(cur)) => format!(
            "{key}: {:+.1}%{} against {} ({}{} -> {}; fail at {})",
            change * 100.0,
            if row.paired.is_some() { " paired" } else { "" },
            c.label,
            // A paired change is not the medians' ratio: they are named so.
            if row.paired.is_some() { "medians " } else { "" },
            quantity(b.median, ""),
            quantity(cur.median, report.unit(row.metric)),
            threshold_words(row)
        ),
        _ => format!(
            "{key}: {} against {}{}",
            row.class.name(),
            c.label,
            row.reason
                .as_deref()
                .map(|r| format!(" ({})", cut(r)))
                .unwrap_or_default()
        ),
    }
}

/// Annotations: for the gate, `::error` for up to ten regressed or lost
/// rows (`::warning` under `--no-gate`), `::warning` for up to ten more and
/// one line for the rest; skipped rows and unavailable baselines warn.
fn annotations(report: &Report<'_>, out: &mut LogText) {
    for warning in &report.warnings {
        out.push_command(
            "warning",
            &[("title", "Benchmark baseline unavailable")],
            &cut(warning),
        );
    }
    let Some(gate) = &report.gate else { return };
    let first = if report.report_only {
        "warning"
    } else {
        "error"
    };
    let failing = gate
        .count(Class::Regressed)
        .saturating_add(gate.count(Class::Lost));
    for (i, row) in gate
        .rows_of(&[Class::Regressed, Class::Lost])
        .take(2 * ANNOTATIONS)
        .enumerate()
    {
        let kind = if i < ANNOTATIONS { first } else { "warning" };
        out.push_command(
            kind,
            &[("title", "Benchmark regression")],
            &row_message(report, gate, &row),
        );
    }
    if let Some(more) = failing.checked_sub(2 * ANNOTATIONS).filter(|m| *m > 0) {
        let message = format!(
            "{more} more regressed or lost rows against {}: see the job summary",
            gate.label
        );
        out.push_command("warning", &[("title", "Benchmark regression")], &message);
    }
    for row in gate.rows_of(&[Class::Skipped]).take(ANNOTATIONS) {
        out.push_command(
            "warning",
            &[("title", "Benchmark skipped")],
            &row_message(report, gate, &row),
        );
    }
    if report.verdict() == Verdict::Inconclusive {
        out.push_command(
            "warning",
            &[("title", "Benchmark comparison inconclusive")],
            &verdict_line(report),
        );
    }
}

/// The step outputs, in order; `compare/action.yml` declares exactly these.
pub fn step_outputs(report: &Report<'_>) -> Vec<(&'static str, String)> {
    let gate = report.gate.as_ref();
    let count = |class| gate.map_or(0, |g| g.count(class)).to_string();
    let worst = gate.and_then(Comparison::worst);
    vec![
        ("verdict", report.verdict().name().to_owned()),
        ("report-only", report.report_only.to_string()),
        ("compared", gate.map_or(0, Comparison::compared).to_string()),
        ("regressed", count(Class::Regressed)),
        ("warned", count(Class::Warned)),
        ("improved", count(Class::Improved)),
        ("lost", count(Class::Lost)),
        ("new", count(Class::New)),
        ("noisy", count(Class::Noisy)),
        ("not-selected", count(Class::NotSelected)),
        (
            "coverage",
            gate.map(crate::compare::coverage::output)
                .unwrap_or_default(),
        ),
        (
            "worst-key",
            worst
                .as_ref()
                .map(|r| r.key.describe(&report.config.keys))
                .unwrap_or_default(),
        ),
        (
            "worst-change-pct",
            worst
                .and_then(|r| r.change)
                .map(|c| format!("{:.1}", c * 100.0))
                .unwrap_or_default(),
        ),
        ("rerun", Rerun::of(report).output()),
        ("rerun-baseline", Rerun::of(report).baseline_output()),
        (
            "suite-shift",
            gate.and_then(Comparison::shift)
                .map(|s| format!("{:.1}", s.change * 100.0))
                .unwrap_or_default(),
        ),
        (
            "undecided",
            gate.and_then(Comparison::undecided)
                .map(|n| n.to_string())
                .unwrap_or_default(),
        ),
        ("json", fitted_json(report)),
    ]
}

/// The `json` step output: fewer rows until it fits [`OUTPUT_LIMIT`].
fn fitted_json(report: &Report<'_>) -> String {
    crate::runner::write::fewer_rows_to_fit(OUTPUT_ROWS, |rows| json::json(report, Some(rows)))
}

/// Any step output over [`OUTPUT_LIMIT`], cut at a character boundary
/// with a marker: a last resort, the outputs above are bounded already.
fn fit(value: String) -> String {
    const MARKER: &str = "... (cut: over the 1 MiB step output limit)";
    if value.len() <= OUTPUT_LIMIT {
        return value;
    }
    let mut end = OUTPUT_LIMIT.saturating_sub(MARKER.len());
    while !value.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    format!("{}{MARKER}", value.get(..end).unwrap_or_default())
}

/// For a runner: the outputs, the job summary, and the annotations; the
/// rest of the log is [`text::write`], written after them.
pub fn actions(report: &Report<'_>) -> Result<Rendered, EncodeError> {
    let outputs =
        file_command::encode_all(step_outputs(report).into_iter().map(|(n, v)| (n, fit(v))))?;
    let mut stdout = LogText::new();
    annotations(report, &mut stdout);
    Ok(Rendered {
        outputs,
        summary: summary::summary(report),
        stdout,
    })
}

impl Forms for Report<'_> {
    fn json(&self) -> String {
        json::json(self, None)
    }

    /// The text held whole, as a test reads it; `--format text` and the
    /// log stream it ([`Forms::write_text`]).
    fn text(&self) -> LogText {
        let mut out = LogText::new();
        let _ = text::write(self, &mut out);
        out
    }

    /// Streamed: a report of millions of rows is never held whole as text.
    fn write_text(&self, log: &mut dyn LogSink) -> io::Result<()> {
        text::write(self, log)
    }

    fn actions(&self) -> Result<Rendered, EncodeError> {
        actions(self)
    }
}
