//! Where main's history changed machine: a run whose fingerprint
//! (`contract::fingerprint`, beside its file) differs from the run before
//! it in a field that moves performance (another GPU, a driver or runtime
//! upgrade, clocks, power cap). A row whose level changed at that very run
//! moved with the machine: it is listed under the machine change, not
//! reported as a regression (or improvement) of the code there, and it
//! does not fail `--fail-on regression`. Pure: fingerprints and judged
//! rows in, machine changes out.

use super::report::RowTrend;
pub use super::report::{MachineChange, Moved};
use crate::contract::fingerprint::Fingerprint;

/// The runs where the machine changed, comparing each known fingerprint
/// with the last known one before it (a run without one says nothing).
pub fn changes(machines: &[Option<Fingerprint>]) -> Vec<MachineChange> {
    let mut out = Vec::new();
    let mut last: Option<&Fingerprint> = None;
    for (run, fp) in machines.iter().enumerate() {
        let Some(fp) = fp else { continue };
        if let Some(before) = last {
            let differences = before.differences(fp);
            if !differences.is_empty() {
                out.push(MachineChange {
                    run,
                    from: before.measured_on(),
                    to: fp.measured_on(),
                    differences,
                    rows: Vec::new(),
                });
            }
        }
        last = Some(fp);
    }
    out
}

/// Moves every row's change that starts at a machine change's run (a
/// step, not a drift) from the row to that machine change; `describe`
/// gives a row's key as the report shows it.
pub fn attribute(
    rows: &mut [RowTrend<'_>],
    machines: &mut [MachineChange],
    describe: impl Fn(&RowTrend<'_>) -> String,
) {
    if machines.is_empty() {
        return;
    }
    for row in rows.iter_mut() {
        let mut kept = Vec::with_capacity(row.judged.changes.len());
        for change in std::mem::take(&mut row.judged.changes) {
            let step = change.kind != super::changes::Kind::Drift;
            match machines.iter_mut().find(|m| step && m.run == change.run) {
                Some(m) => m.rows.push(Moved {
                    key: describe(row),
                    change: change.change,
                }),
                None => kept.push(change),
            }
        }
        row.judged.changes = kept;
    }
    for m in machines.iter_mut() {
        m.rows
            .sort_by(|a, b| b.change.abs().total_cmp(&a.change.abs()));
    }
}

/// `machine change at run R: X → Y (driver 535 → 550); 12 rows moved with
/// it, not counted as changes of the code`.
pub fn sentence(m: &MachineChange, run: &str) -> String {
    let what: Vec<String> = m
        .differences
        .iter()
        .map(|d| format!("{} {} → {}", d.field, d.baseline, d.current))
        .collect();
    format!(
        "machine change at run {run}: {} → {} ({}); {} moved with it, not counted as changes of the code",
        m.from,
        m.to,
        what.join(", "),
        crate::runner::text::counted(m.rows.len(), "row")
    )
}
