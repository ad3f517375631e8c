//! libtest's `cargo bench` text (the `#[bench]` harness, nightly's
//! `test::Bencher`; what `cargo bench` prints with it). Each line
//! `test path::bench_name ... bench:   1,234 ns/iter (+/- 56)` is one
//! sample: the test's path is the benchmark (no params), the time per
//! iteration is `time` in nanoseconds (another unit, `cycles/iter` or `MS/s`,
//! is a metric of that name, a rate higher is better), and a trailing
//! `= 200 MB/s` is `throughput` in MB/s (higher is better). The `(+/- N)` spread is left
//! out (it is the range of the harness's own samples, which it does not
//! print). The same test on several lines (runs appended) gives several
//! samples. Other lines are left out.

use std::path::Path;

use super::collect::Collect;
use super::{Format, by_unit, nanos_per, time};
use crate::table::{Table, TableError};

/// A metric's name, unit and value.
type Measured<'l> = (&'l str, &'l str, f64);

/// `(name, [(metric, unit, value)])` of a `... bench:` line: the time per
/// iteration in nanoseconds, or the line's own unit (`cycles/iter`, `MS/s`),
/// and a trailing `= N MB/s`.
fn result(line: &str) -> Option<(&str, Vec<Measured<'_>>)> {
    let rest = line.trim_start().strip_prefix("test ")?;
    let (name, rest) = rest.split_once(" ... bench:")?;
    let mut words = rest.split_ascii_whitespace();
    let number = words.next()?.replace(',', "").parse::<f64>().ok()?;
    let unit = words.next()?;
    let mut found = match unit.strip_suffix("/iter").and_then(nanos_per) {
        Some(scale) => vec![("time", "ns", number * scale)],
        None => vec![(unit, unit, number)],
    };
    let rate = rest
        .split_once('=')
        .and_then(|(_, r)| r.trim().strip_suffix("MB/s"))
        .and_then(|r| r.trim().replace(',', "").parse::<f64>().ok());
    if let Some(rate) = rate {
        found.push(("throughput", "MB/s", rate));
    }
    Some((name.trim(), found))
}

/// Whether some line of `bytes` is a `... bench:` result.
pub fn looks_like(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b" ... bench:").is_some()
        && String::from_utf8_lossy(bytes)
            .lines()
            .any(|l| result(l).is_some())
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::CargoBench;
    let mut rows = Collect::new(path, format, vec![time("time")]);
    let text = rows.text(bytes)?;
    for (n, line) in text.lines().enumerate() {
        let Some((name, found)) = result(line) else {
            continue;
        };
        let number = u32::try_from(n).unwrap_or(u32::MAX).saturating_add(1);
        let row = rows.row(name, "", number);
        for (column, unit, value) in found {
            let metric = rows.metric(|| by_unit(column, unit), column)?;
            rows.sample(row, metric, value, || format!("line {number}"))?;
        }
    }
    Ok(rows.finish())
}
