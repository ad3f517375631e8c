//! The custom JSON of the peer action (github-action-benchmark's
//! `customBiggerIsBetter` and `customSmallerIsBetter` tools): a list of
//! `name`, `unit`, `value`, with an optional `range` and `extra`. The two
//! tools share this one shape and the direction lives in that action's
//! `tool:` input, not in the file; so found from the content (`custom`)
//! the direction comes from the unit (a time, a size, a percentage: lower
//! is better; a rate such as `req/s` or `ops/sec`: higher), and
//! `--results-format customBiggerIsBetter` (or `customSmallerIsBetter`)
//! makes every value higher (or lower) is better, as that action did.
//! An entry is a row: `name` is the benchmark, with no params. Its metric
//! is named by its unit (`req/s`, `ns`, `Megabytes`; `value` when the
//! unit is empty), so that entries in different units are not mixed in
//! one column. The same name twice (runs appended to one file) gives the
//! row two samples. `range` (a text, `± 3%`, of no fixed shape) and
//! `extra` are left out.

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::json::Text;
use super::list::{self, At};
use super::{Format, by_unit, json};
use crate::config::{Direction, Metric};
use crate::table::{Table, TableError};

/// One entry, its strings borrowed from the file where they hold no
/// escape, read as the list is (`list::each`).
#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    unit: Text<'a>,
    value: Option<f64>,
}

/// The metric of `unit`: by the unit, or the direction the format's name
/// gives.
fn metric_of(unit: &str, format: Format) -> Metric {
    let column = if unit.is_empty() { "value" } else { unit };
    let direction = match format {
        Format::CustomBigger => Direction::Higher,
        Format::CustomSmaller => Direction::Lower,
        _ => by_unit(column, unit).direction,
    };
    Metric {
        column: column.to_owned(),
        unit: unit.to_owned(),
        direction,
    }
}

pub fn parse(path: &Path, bytes: &[u8], format: Format) -> Result<Table, TableError> {
    let text = json::python_json(bytes);
    let mut rows = Collect::new(path, format, Vec::new());
    list::each(path, format, &text, At::Document, |i, entry: Entry<'_>| {
        let line = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
        let row = rows.row(&entry.name, "", line);
        let column = if entry.unit.is_empty() {
            "value"
        } else {
            &entry.unit
        };
        let metric = rows.metric(|| metric_of(&entry.unit, format), column)?;
        let Some(value) = entry.value else {
            rows.fail(row, "no value");
            return Ok(());
        };
        rows.sample(row, metric, value, || format!("at [{i}].value"))
    })?;
    Ok(rows.finish())
}
