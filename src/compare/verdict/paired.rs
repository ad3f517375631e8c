//! A row of paired rounds, as compare shows it: the ground floor's
//! decision (`crate::paired`) turned into the row's class, change,
//! interval and reason. Pure.

use super::{Applied, BASELINE, CURRENT, Comparison, Origin, RowResult, Samples};
use crate::contract::class::Class;
use crate::paired::{Decision, Judged};
use crate::table::Key;

/// What the rounds said of a row: how many were used, the interval for
/// its change (a fraction, negative worse, low to high), the chance of so
/// much worse if nothing changed, and whether more rounds could decide it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedRow {
    pub rounds: usize,
    pub interval: Option<(f64, f64)>,
    pub p_worse: f64,
    pub rerun: bool,
}

impl<'t> Comparison<'t> {
    /// Classifies a measured row from its paired rounds.
    pub(super) fn paired_row(&self, out: &mut RowResult<'t>, judged: &Judged, slot: usize) {
        let fail = out.policy.fail.configured();
        out.applied = Some(Applied {
            fail,
            origin: Origin::Configured(out.policy.fail_source),
        });
        let found = judged
            .position(out.key.joined())
            .and_then(|i| Some((*judged.decisions.get(i)?, judged.metrics.get(i)?.1)));
        let Some((decision, direction)) = found else {
            out.class = Class::Noisy;
            out.reason = Some("no round measured both sides of this row".to_owned());
            out.paired = Some(PairedRow {
                rounds: 0,
                interval: None,
                p_worse: 1.0,
                rerun: true,
            });
            return;
        };
        let change = Judged::change(direction, decision.estimate);
        let interval = decision.interval.map(|(low, high)| {
            let (a, b) = (
                Judged::change(direction, low),
                Judged::change(direction, high),
            );
            (a.min(b), a.max(b))
        });
        // Each side's rounds shown are the ones the change was made from.
        if let Some((base, current)) = out.metric.and_then(|m| self.decided(slot, out.key, m)) {
            out.baseline = Some(base);
            out.current = Some(current);
        }
        let medians = out
            .baseline
            .as_ref()
            .zip(out.current.as_ref())
            .map(|(b, c)| b.change_to(c, direction));
        out.class = decision.class;
        out.change = Some(change);
        let why = reason(&decision, interval, fail, &self.label);
        out.reason = Some(match medians.filter(|m| other_way(*m, change)) {
            Some(m) => format!("{}; {why}", medians_note(m)),
            None => why,
        });
        out.paired = Some(PairedRow {
            rounds: decision.rounds,
            interval,
            p_worse: decision.p_worse,
            rerun: decision.rerun,
        });
    }
}

impl<'t> Comparison<'t> {
    /// Each side's values over the rounds a paired row's decision used:
    /// the medians its row shows and the dashboard line's (one source, so
    /// the two never disagree). `None` unpaired, or where no round
    /// measured both sides of the row.
    pub(super) fn decided(
        &self,
        slot: usize,
        key: Key<'t>,
        metric: usize,
    ) -> Option<(Samples, Samples)> {
        let judged = self.paired.as_ref()?;
        let rounds = judged.decisions.get(judged.position(key.joined())?)?.rounds;
        self.used(slot, metric, rounds)
    }

    /// Each side's values in the first `rounds` rounds that measured the
    /// row on both sides, as the ground floor pairs them
    /// ([`crate::paired::judge`]): the rounds a decision of that many
    /// rounds was made from. A row decided at the first look while its
    /// group ran again shows its first look's rounds, not the later ones.
    fn used(&self, slot: usize, metric: usize, rounds: usize) -> Option<(Samples, Samples)> {
        let (base, current): (Vec<f64>, Vec<f64>) = self
            .join
            .cells(slot, BASELINE)
            .zip(self.join.cells(slot, CURRENT))
            .filter_map(|(b, c)| {
                let (m, b) = b?.measure()?;
                let c = c?.value(metric).filter(|v| *v > 0.0)?;
                (m == metric).then_some((b, c))
            })
            .take(rounds)
            .unzip();
        Some((Samples::of(&base)?, Samples::of(&current)?))
    }
}

/// The two changes point opposite ways, each at least 0.05% (shown as at
/// least 0.1%): a table that shows the medians beside the paired change
/// would read as a contradiction unless the row says it.
fn other_way(medians: f64, paired: f64) -> bool {
    const SHOWN: f64 = 0.0005;
    medians * paired < 0.0 && medians.abs() >= SHOWN && paired.abs() >= SHOWN
}

/// What a row whose medians point the other way says first: the change is
/// each round's current against that round's baseline (what moved a whole
/// round taken out), which the two sides' medians over different rounds
/// are not.
fn medians_note(medians: f64) -> String {
    format!(
        "the medians alone: {:+.1}% (the change pairs each round's runs)",
        medians * 100.0
    )
}

/// The row's rounds in words: the interval, and for a row in doubt why.
fn reason(decision: &Decision, interval: Option<(f64, f64)>, fail: f64, label: &str) -> String {
    let rounds = match decision.rounds {
        1 => "1 round".to_owned(),
        n => format!("{n} rounds"),
    };
    let Some((low, high)) = interval else {
        return format!("{rounds} against {label}: too few to know the spread");
    };
    let span = format!(
        "{rounds} against {label}, 90% interval {:+.1}% to {:+.1}%",
        low * 100.0,
        high * 100.0
    );
    // A row in doubt either still holds no change, or is worse at 90% but
    // not yet at the share of the false-alarm rate this look gives a row
    // (spread over the suite's rows and the looks): the second must not
    // read as the first.
    let doubt = if high < 0.0 {
        format!(
            "worse at 90%, not yet at the false-alarm rate this look allows (this much worse by chance: p = {:.2e})",
            decision.p_worse
        )
    } else {
        format!(
            "it holds both no change and a change beyond -{:.1}%",
            fail * 100.0
        )
    };
    match decision.class {
        Class::Regressed => format!(
            "{span}; this much worse by chance: p = {:.2e}",
            decision.p_worse
        ),
        Class::Noisy if decision.rerun => format!("{span}: {doubt}; more rounds can decide"),
        Class::Noisy => format!("{span}: still in doubt at the most rounds ({doubt})"),
        _ => span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Direction;

    #[test]
    fn a_row_worse_at_ninety_percent_but_in_doubt_does_not_read_as_holding_no_change() {
        let decision = Decision {
            class: Class::Noisy,
            estimate: 0.19,
            interval: None,
            rounds: 3,
            p_worse: 0.004,
            rerun: true,
        };
        let worse = reason(&decision, Some((-0.321, -0.043)), 0.10, "main");
        assert!(
            worse.contains("worse at 90%, not yet at the false-alarm rate"),
            "{worse}"
        );
        assert!(!worse.contains("holds both no change"), "{worse}");
        let open = reason(&decision, Some((-0.255, 0.222)), 0.10, "main");
        assert!(
            open.contains("it holds both no change and a change beyond -10.0%"),
            "{open}"
        );
    }

    #[test]
    fn a_ten_percent_slower_time_reads_as_minus_ten() {
        let worse = (1.1f64).ln();
        assert!((Judged::change(Direction::Lower, worse) + 0.1).abs() < 1e-12);
        let worse = -(0.9f64).ln();
        assert!((Judged::change(Direction::Higher, worse) + 0.1).abs() < 1e-12);
    }
}
