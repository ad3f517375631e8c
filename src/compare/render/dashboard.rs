//! The block the dashboard parses, per baseline: a header line
//! `=== Benchmark: current vs LABEL ===` and one fixed-format line per
//! compared row, exactly as the shell comparison scripts it replaces printed
//! them. No other line of the log looks like a row (none has `ratio=`);
//! the exact `repo@sha` of a baseline is on a line of its own.

use std::fmt::Write as _;
use std::io;

use crate::compare::report::Report;
use crate::compare::verdict::{Comparison, Medians};
use crate::parallel;
use crate::runner::log::{LogSink, LogText};
use crate::series;

/// One dashboard line (with its line break): exactly the format a
/// hand-written comparison script prints and a dashboard parses from the log,
/// `  {op:>18} {shape:>34} {dtype:>8}  LABEL={base:9.3} {unit:<6}  current={cur:9.3} {unit:<6}  ratio={ratio:6.3}x  delta={delta:+9.3} ({pct:+6.1}%)`.
/// Key cells are shown with control characters escaped (see `Key`), and
/// the log writer neutralises anything a runner would read as a command.
/// Written piece by piece: a block can have a hundred thousand lines.
pub fn line(out: &mut String, label: &str, row: &Medians<'_>, unit: &str) {
    let (base, cur) = (row.baseline, row.current);
    // `op`, `shape` and `dtype` (or the configured key columns: the first
    // two, then the rest).
    let (op, shape, dtype) = row.key.dashboard_fields();
    let ratio = series::bounded(cur / base);
    out.push_str("  ");
    pad_left(out, &op, 18);
    out.push(' ');
    pad_left(out, &shape, 34);
    out.push(' ');
    pad_left(out, &dtype, 8);
    out.push_str("  ");
    out.push_str(label);
    out.push('=');
    fixed(out, base, 9, 3, false);
    out.push(' ');
    pad_right(out, unit, 6);
    out.push_str("  current=");
    fixed(out, cur, 9, 3, false);
    out.push(' ');
    pad_right(out, unit, 6);
    out.push_str("  ratio=");
    fixed(out, ratio, 6, 3, false);
    out.push_str("x  delta=");
    fixed(out, cur - base, 9, 3, true);
    out.push_str(" (");
    fixed(out, (ratio - 1.0) * 100.0, 6, 1, true);
    out.push_str("%)\n");
}

/// `{text:>width}`.
fn pad_left(out: &mut String, text: &str, width: usize) {
    spaces(out, width.saturating_sub(chars(text)));
    out.push_str(text);
}

/// `{text:<width}`.
fn pad_right(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    spaces(out, width.saturating_sub(chars(text)));
}

/// Characters in `text` (its length when it is ASCII, the common case).
fn chars(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

fn spaces(out: &mut String, n: usize) {
    const SPACES: &str = "                                        ";
    let mut left = n;
    while left > 0 {
        let take = left.min(SPACES.len());
        out.push_str(SPACES.get(..take).unwrap_or_default());
        left = left.saturating_sub(take);
    }
}

/// `value` as `{value:width.precision}` (`{value:+width.precision}` with
/// `plus`) writes it: exactly, and about five times quicker. The value is
/// scaled and rounded in binary; when that cannot be told from a tie of the
/// exact decimal value (or the value is out of range), `format!` decides.
fn fixed(out: &mut String, value: f64, width: usize, precision: usize, plus: bool) {
    let scale = match precision {
        1 => 10.0,
        3 => 1000.0,
        _ => 0.0,
    };
    let scaled = value * scale;
    let fraction = (scaled - scaled.trunc()).abs();
    let clear =
        scale > 0.0 && value.is_finite() && scaled.abs() < 1e15 && (fraction - 0.5).abs() > 1e-3;
    if !clear {
        let _ = if plus {
            write!(out, "{value:+width$.precision$}")
        } else {
            write!(out, "{value:width$.precision$}")
        };
        return;
    }
    // Exact below 2^53: the scaled value is an integer after rounding.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "|scaled| < 1e15 < 2^53"
    )]
    let mut units = scaled.round().abs() as u64;
    // Digits from the right into a stack buffer: `int.frac`, at least one
    // digit before the point.
    let mut buffer = [b'0'; 32];
    let mut at = buffer.len();
    let mut written = 0;
    while units > 0 || written <= precision {
        if written == precision && precision > 0 {
            at = at.saturating_sub(1);
            if let Some(b) = buffer.get_mut(at) {
                *b = b'.';
            }
        }
        at = at.saturating_sub(1);
        if let Some(b) = buffer.get_mut(at) {
            *b = b'0'.saturating_add(u8::try_from(units % 10).unwrap_or(0));
        }
        units /= 10;
        written = written.saturating_add(1);
    }
    let sign = if value.is_sign_negative() {
        "-"
    } else if plus {
        "+"
    } else {
        ""
    };
    let digits = std::str::from_utf8(buffer.get(at..).unwrap_or_default()).unwrap_or_default();
    spaces(
        out,
        width.saturating_sub(sign.len().saturating_add(digits.len())),
    );
    out.push_str(sign);
    out.push_str(digits);
}

/// The dashboard block of one baseline, written line by line through the
/// log writer (which leaves an ordinary line byte for byte as it is).
pub fn block(
    report: &Report<'_>,
    comparison: &Comparison<'_>,
    out: &mut dyn LogSink,
) -> io::Result<()> {
    let label = &comparison.label;
    if let Some(source) = report.provenance.as_ref().and_then(|p| p.describe(label)) {
        out.line(&format!("baseline {label} = {source}"))?;
    }
    out.line(&format!("=== Benchmark: current vs {label} ==="))?;
    // Batches of rows, each formatted by all cores at once, written in
    // order: the block is never held whole.
    const BATCH: usize = 1 << 15;
    let mut start = 0;
    while start < comparison.len() {
        let end = start.saturating_add(BATCH).min(comparison.len());
        let parts = parallel::ranges(end.saturating_sub(start), |range| {
            let mut lines = LogText::new();
            let mut text = String::with_capacity(256);
            let slots = range.start.saturating_add(start)..range.end.saturating_add(start);
            for row in comparison.medians_in(slots) {
                text.clear();
                line(&mut text, label, &row, report.unit(Some(row.metric)));
                lines.push_line(text.trim_end_matches('\n'));
            }
            lines
        });
        for part in &parts {
            out.append(part)?;
        }
        start = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::fixed;

    /// The quick formatting is byte for byte what `format!` writes.
    #[test]
    fn fixed_matches_format_exactly() {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [
            0.0,
            -0.0,
            0.0005,
            -0.0005,
            0.00049,
            1.0625,
            -1.0625,
            2.5e-4,
            999.9995,
            1e20,
            f64::NAN,
            f64::INFINITY,
            -12.05,
            0.05,
            -0.05,
        ];
        let mut values: Vec<f64> = specials.to_vec();
        for _ in 0..200_000 {
            let bits = next();
            let magnitude = 10f64.powi(((bits >> 8) % 12) as i32 - 4);
            let v = ((bits >> 20) as f64 / (1u64 << 44) as f64 - 0.5) * magnitude;
            values.push(v);
            values.push((v * 1000.0).round() / 1000.0 + 0.0005);
        }
        for v in values {
            for (width, precision, plus) in
                [(9, 3, false), (9, 3, true), (6, 3, false), (6, 1, true)]
            {
                let mut quick = String::new();
                fixed(&mut quick, v, width, precision, plus);
                let exact = if plus {
                    format!("{v:+width$.precision$}")
                } else {
                    format!("{v:width$.precision$}")
                };
                assert_eq!(quick, exact, "{v:e} {width}.{precision} {plus}");
            }
        }
    }
}
