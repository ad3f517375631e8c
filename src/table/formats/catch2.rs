//! Catch2's XML (`--reporter xml --out FILE`, Catch2 v3's
//! `<Catch2TestRun>` and v2's `<Catch>`): each `BenchmarkResults` inside
//! a `TestCase` is a row: the test case's `name` is the benchmark, the
//! benchmark's own `name` (`BENCHMARK("fib 20")`) the params, so that two
//! test cases' benchmarks of one name stay apart. The metric is `time`,
//! the `mean` element's `value` in nanoseconds (Catch2 writes "All values
//! in nano seconds"). Catch2's XML reporter writes its statistics, not the
//! samples it took, so a row has one value; `standardDeviation`,
//! `outliers` and the bounds are left out. A `failed` element inside the
//! benchmark makes its row failed, with its `message`.
//!
//! The XML is read as a stream of elements (quick-xml, no recursion, no
//! entity but XML's five and character references): a document nested
//! however deep costs no stack.

use std::borrow::Cow;
use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::collect::Collect;
use super::{Format, time};
use crate::table::{Table, TableError};

/// Whether `bytes` is Catch2's XML: its root element is Catch2's.
pub fn looks_like(bytes: &[u8]) -> bool {
    let head = bytes.get(..bytes.len().min(4096)).unwrap_or_default();
    memchr::memmem::find(head, b"<Catch2TestRun").is_some()
        || memchr::memmem::find(head, b"<Catch ").is_some()
}

/// The element's attribute `name`, its escapes undone (copied only where
/// it holds one); `None` when absent.
fn attribute<'e>(e: &'e BytesStart<'_>, name: &str) -> Option<Cow<'e, str>> {
    let a = e.try_get_attribute(name).ok().flatten()?;
    let v = a
        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
        .ok()?;
    Some(v)
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Table, TableError> {
    let format = Format::Catch2;
    let mut rows = Collect::new(path, format, vec![time("time")]);
    let text = rows.text(bytes)?;
    let mut reader = Reader::from_str(text);
    let mut test_case = String::new();
    let mut current: Option<u32> = None;
    let mut count = 0u32;
    loop {
        let at = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| rows.error(format!("byte {}", reader.error_position()), e.to_string()))?;
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e), false),
            Event::Empty(e) => (Some(e), true),
            Event::End(e) => {
                if e.name().into_inner() == "BenchmarkResults" {
                    current = None;
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let Some(e) = start else { continue };
        match e.name().into_inner() {
            "TestCase" => {
                test_case.clear();
                test_case.push_str(&attribute(e, "name").unwrap_or_default());
            }
            "BenchmarkResults" => {
                count = count.saturating_add(1);
                let name = attribute(e, "name").unwrap_or_default();
                let row = rows.row(&test_case, &name, count);
                current = (!empty).then_some(row);
            }
            "mean" => {
                let Some(row) = current else { continue };
                let value = attribute(e, "value").unwrap_or_default();
                let Ok(v) = value.trim().parse::<f64>() else {
                    return Err(rows.error(
                        format!("byte {at}, the mean's value"),
                        format!("{:?} is not a number", crate::runner::shown(&value)),
                    ));
                };
                rows.sample(row, 0, v, || format!("byte {at}, the mean's value"))?;
            }
            "failed" => {
                let Some(row) = current else { continue };
                let why = attribute(e, "message").unwrap_or_default();
                rows.fail(row, &format!("failed: {why}"));
            }
            _ => {}
        }
    }
    Ok(rows.finish())
}
