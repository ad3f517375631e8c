//! hyperfine's JSON (`--export-json FILE`): `results`, one per command. A
//! command is a row: `command` (the `--command-name` where one was given)
//! is the benchmark, its `parameters` (`--parameter-scan`,
//! `--parameter-list`) the params as `name=value` joined by `,`. Every run
//! in `times` is a sample of `time` in nanoseconds (hyperfine writes seconds) (without `times`, the row's
//! one value is `median`, then `mean`). A run whose exit code is not 0
//! (kept with `--ignore-failure`) makes the row failed. `user`, `system`
//! and the statistics are left out.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::collect::Collect;
use super::json::{Shown, Text};
use super::list::{self, At};
use super::{Format, json, time};
use crate::table::{Table, TableError};

/// One command's result, its strings borrowed from the file where they
/// hold no escape, read as the list is (`list::each`).
#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(borrow)]
    command: Cow<'a, str>,
    mean: Option<f64>,
    median: Option<f64>,
    times: Option<Vec<Option<f64>>>,
    exit_codes: Option<Vec<Option<i64>>>,
    #[serde(default, borrow)]
    parameters: BTreeMap<Text<'a>, Shown<'a>>,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Hyperfine;
    let text = json::python_json(bytes);
    let mut rows = Collect::new(path, format, vec![time("time")]);
    let mut params = String::new();
    list::each(
        path,
        format,
        &text,
        At::Field("results"),
        |i, entry: Entry<'_>| {
            params.clear();
            let pairs = entry.parameters.iter().map(|(k, v)| (&**k, &**v));
            super::text::push_pairs(&mut params, pairs);
            let line = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
            let row = rows.row(&entry.command, &params, line);
            let failed = entry
                .exit_codes
                .iter()
                .flatten()
                .enumerate()
                .find(|(_, c)| **c != Some(0));
            if let Some((run, code)) = failed {
                let code =
                    code.map_or_else(|| "none (killed by a signal)".to_owned(), |c| c.to_string());
                rows.fail(
                    row,
                    &format!("run {} exited with code {code}", run.saturating_add(1)),
                );
            }
            match (&entry.times, entry.median.or(entry.mean)) {
                (Some(times), _) if !times.is_empty() => {
                    for (k, v) in times.iter().enumerate() {
                        let Some(v) = v else { continue };
                        rows.sample(row, 0, *v * 1e9, || format!("at results[{i}].times[{k}]"))?;
                    }
                }
                (_, Some(v)) => {
                    rows.sample(row, 0, v * 1e9, || format!("at results[{i}].median"))?
                }
                _ => {}
            }
            Ok(())
        },
    )?;
    Ok(rows.finish())
}
