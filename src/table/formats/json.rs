//! What the JSON formats share: telling them apart by their top-level
//! fields, Python's `NaN` and `Infinity` (which Python's json writes and
//! JSON has not), and errors that say where in the document they are.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use serde::de::{
    self, Deserialize, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess,
    SeqAccess, Visitor,
};

use super::Format;
pub use super::text::{Shown, Text};
use crate::table::TableError;

/// The JSON formats detection tries, for the message when none fits.
pub const TRIED: &str = "google-benchmark (context, benchmarks), pytest-benchmark (machine_info, benchmarks), nvbench (meta, devices, benchmarks), pyperf (version, benchmarks with runs), hyperfine (results with times), asv (commit_hash, results), benchmarkdotnet (HostEnvironmentInfo, Benchmarks), jmh (a list of benchmark, primaryMetric), custom (a list of name, unit, value), bmf (names to measures to value)";

/// Which kind a JSON value is, its content skipped.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Kind {
    #[default]
    Absent,
    Object,
    Array,
    Other,
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        let mut kind = Kind::Absent;
        d.deserialize_any(KindOf {
            stop_at: Kind::Absent,
            seen: &mut kind,
        })?;
        Ok(kind)
    }
}

/// Reads a value's kind into `seen`; a list or an object of the kind
/// `stop_at` is left unread (the read then stops with an error, and
/// `seen` says what it was).
struct KindOf<'k> {
    stop_at: Kind,
    seen: &'k mut Kind,
}

impl KindOf<'_> {
    fn other<E>(self) -> Result<(), E> {
        *self.seen = Kind::Other;
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for KindOf<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KindOf<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        *self.seen = Kind::Object;
        while self.stop_at != Kind::Object && map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some()
        {
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        *self.seen = Kind::Array;
        while self.stop_at != Kind::Array && seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.other()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.other()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.other()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.other()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.other()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.other()
    }
}

/// The top-level fields detection looks at.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct Probe {
    context: Kind,
    machine_info: Kind,
    benchmarks: Kind,
    results: Kind,
    version: Kind,
    metadata: Kind,
    commit_hash: Kind,
    meta: Kind,
    devices: Kind,
    #[serde(rename = "Benchmarks")]
    dotnet_benchmarks: Kind,
    #[serde(rename = "HostEnvironmentInfo")]
    dotnet_host: Kind,
    /// The first entry of `benchmarks` has `runs` (pyperf's).
    #[serde(skip)]
    runs: bool,
}

/// The fields of a list's first entry that detection looks at (JMH's
/// results and the peer action's custom JSON are lists).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct EntryProbe {
    benchmark: Kind,
    #[serde(rename = "primaryMetric")]
    primary_metric: Kind,
    name: Kind,
    unit: Kind,
    value: Kind,
}

/// A list's first entry, put in the option; the rest is left unread (the
/// read then stops with an error): the entry is all detection needs, and
/// the list, nearly all of the file, is read once, by its reader.
struct First<'f, T>(&'f mut Option<T>);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for First<'_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for First<'_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        *self.0 = seq.next_element::<T>()?;
        Ok(())
    }
}

/// A Bencher Metric Format measure, as detection sees it: its `value`.
#[derive(Debug, serde::Deserialize)]
struct MeasureProbe {
    #[allow(dead_code)]
    value: IgnoredAny,
}

/// A document as the Bencher Metric Format, read up to its first name
/// with measures (each an object with a `value`): `decided` is set there
/// and the read stops (with an error). The document, all of it results,
/// is not read through once more here (it was by [`probe`], which finds
/// no other format's fields in it, and is again by the reader, which
/// refuses what is wrong after that name, naming where).
struct BmfProbe<'p> {
    decided: &'p mut bool,
}

impl<'de> DeserializeSeed<'de> for BmfProbe<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BmfProbe<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("names to measures")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            if map.next_value::<Measures>()?.0 > 0 {
                *self.decided = true;
                return Err(de::Error::custom("decided"));
            }
        }
        Ok(())
    }
}

/// A name's measures, counted.
struct Measures(usize);

impl<'de> Deserialize<'de> for Measures {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Measures, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Measures;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("measures")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Measures, A::Error> {
                let mut n = 0usize;
                while map.next_key::<IgnoredAny>()?.is_some() {
                    map.next_value::<MeasureProbe>()?;
                    n = n.saturating_add(1);
                }
                Ok(Measures(n))
            }
        }
        d.deserialize_map(V)
    }
}

/// The JSON format of `bytes`, by its top-level fields;
/// [`Format::Csv`] (refused by the caller, naming what was tried) when it
/// is none of them or not JSON.
///
/// The bytes are probed as they are first, and made JSON
/// ([`python_json`]) only when that fails: a probe that decides a format
/// read no `NaN` on its way (it would have stopped there), so the answer
/// is the same, and the search through the whole file for Python's words
/// is made once, by the reader, not twice.
pub fn detect(bytes: &[u8]) -> Format {
    match detect_text(bytes) {
        Format::Csv => detect_text(&python_json(bytes)),
        found => found,
    }
}

/// [`detect`] of a text as it is.
fn detect_text(text: &[u8]) -> Format {
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        return detect_list(text);
    }
    let Some(probe) = probe(text) else {
        return bmf(text);
    };
    let has = |k: Kind| k != Kind::Absent;
    match probe.benchmarks {
        Kind::Array if has(probe.context) => Format::GoogleBenchmark,
        Kind::Array if has(probe.machine_info) => Format::PytestBenchmark,
        Kind::Array if has(probe.meta) && has(probe.devices) => Format::Nvbench,
        Kind::Array if has(probe.version) || has(probe.metadata) || probe.runs => Format::Pyperf,
        _ if probe.results == Kind::Array => Format::Hyperfine,
        _ if probe.results == Kind::Object && has(probe.commit_hash) => Format::Asv,
        _ if probe.dotnet_benchmarks == Kind::Array && has(probe.dotnet_host) => {
            Format::BenchmarkDotNet
        }
        _ => bmf(text),
    }
}

/// [`Format::Bmf`] when `text` begins as the Bencher Metric Format, which
/// has no field of its own: names to measures, each an object with a
/// `value`, up to the first name with measures (a mistake after it is the
/// reader's to name); [`Format::Csv`] otherwise.
fn bmf(text: &[u8]) -> Format {
    let mut decided = false;
    let mut de = serde_json::Deserializer::from_slice(text);
    let _ = BmfProbe {
        decided: &mut decided,
    }
    .deserialize(&mut de);
    if decided { Format::Bmf } else { Format::Csv }
}

/// The top-level fields of `text`; `None` when it is not a JSON object.
/// The results list or object is nearly all of a file; where the fields
/// before it already decide the format (Google Benchmark's `context`,
/// pytest-benchmark's `machine_info`, nvbench's `meta` and `devices`
/// before `benchmarks`; BenchmarkDotNet's `HostEnvironmentInfo` before
/// `Benchmarks`; asv's `commit_hash` before `results`; hyperfine's
/// `results` list with no `benchmarks` before it; pyperf's `benchmarks`
/// whose first entry has `runs`), the read stops there, so that the
/// results are not read twice, here and again by the reader, which
/// refuses what is wrong in them, naming where.
fn probe(text: &[u8]) -> Option<Probe> {
    let mut probe = Probe::default();
    let mut decided = false;
    let mut de = serde_json::Deserializer::from_slice(text);
    let read = de.deserialize_map(ProbeVisitor {
        probe: &mut probe,
        decided: &mut decided,
    });
    match read {
        _ if decided => Some(probe),
        Ok(()) => de.end().ok().map(|()| probe),
        Err(_) => None,
    }
}

/// Fills a [`Probe`] field by field, stopping where the format is decided.
struct ProbeVisitor<'p> {
    probe: &'p mut Probe,
    decided: &'p mut bool,
}

impl<'de> Visitor<'de> for ProbeVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let p = self.probe;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let has = |k: Kind| k != Kind::Absent;
            // The kind of the value that would decide the format here.
            let stop_at = match key.as_ref() {
                "benchmarks" if has(p.context) || has(p.machine_info) => Kind::Array,
                "benchmarks" if has(p.meta) && has(p.devices) => Kind::Array,
                "Benchmarks" if has(p.dotnet_host) => Kind::Array,
                "results" if has(p.commit_hash) => Kind::Object,
                "results" if !has(p.benchmarks) => Kind::Array,
                _ => Kind::Absent,
            };
            let field = match key.as_ref() {
                "benchmarks" if stop_at == Kind::Absent => {
                    let read = map.next_value_seed(FirstRuns {
                        seen: &mut p.benchmarks,
                        runs: &mut p.runs,
                    });
                    *self.decided = p.runs;
                    read?;
                    continue;
                }
                "benchmarks" => &mut p.benchmarks,
                "context" => &mut p.context,
                "machine_info" => &mut p.machine_info,
                "results" => &mut p.results,
                "version" => &mut p.version,
                "metadata" => &mut p.metadata,
                "commit_hash" => &mut p.commit_hash,
                "meta" => &mut p.meta,
                "devices" => &mut p.devices,
                "Benchmarks" => &mut p.dotnet_benchmarks,
                "HostEnvironmentInfo" => &mut p.dotnet_host,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let read = map.next_value_seed(KindOf {
                stop_at,
                seen: field,
            });
            if stop_at != Kind::Absent && *field == stop_at {
                *self.decided = true;
            }
            read?;
        }
        Ok(())
    }
}

/// A `benchmarks` value's kind; a list whose first entry has `runs` (pyperf
/// writes its keys sorted, `benchmarks` before `metadata` and `version`)
/// is left unread after that entry, `runs` set.
struct FirstRuns<'k> {
    seen: &'k mut Kind,
    runs: &'k mut bool,
}

/// The field of a list's first entry that says pyperf.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct RunsProbe {
    runs: Kind,
}

impl<'de> DeserializeSeed<'de> for FirstRuns<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FirstRuns<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        *self.seen = Kind::Array;
        let first = seq.next_element::<RunsProbe>()?;
        if first.is_some_and(|e| e.runs == Kind::Array) {
            *self.runs = true;
            return Ok(());
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        KindOf {
            stop_at: Kind::Absent,
            seen: self.seen,
        }
        .visit_map(map)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        *self.seen = Kind::Other;
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.visit_bool(true)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.visit_bool(true)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.visit_bool(true)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.visit_bool(true)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_bool(true)
    }
}

/// The format of a JSON list, by its first entry's fields: JMH's
/// `benchmark` and `primaryMetric`, the custom JSON's `name`, `unit` and
/// `value`. What follows the first entry is left to the reader, which
/// refuses what is wrong in it, naming where.
fn detect_list(text: &[u8]) -> Format {
    let mut first = None;
    let mut de = serde_json::Deserializer::from_slice(text);
    let _ = First::<EntryProbe>(&mut first).deserialize(&mut de);
    let Some(e) = first else {
        return Format::Csv;
    };
    let has = |k: Kind| k != Kind::Absent;
    if has(e.benchmark) && e.primary_metric == Kind::Object {
        Format::Jmh
    } else if has(e.name) && has(e.unit) && has(e.value) {
        Format::Custom
    } else {
        Format::Csv
    }
}

/// Why `bytes` is no JSON format detection knows: the parser's error
/// (with its line and column) when it is not JSON at all.
pub fn why_unknown(bytes: &[u8]) -> String {
    match serde_json::from_slice::<Probe>(&python_json(bytes)) {
        Err(e) => format!("not JSON: {e}"),
        Ok(_) => "a JSON document whose fields are none of theirs".to_owned(),
    }
}

/// `bytes` with Python's `NaN`, `Infinity` and `-Infinity` outside strings
/// made `null` (a value that is not there), so that the file parses; the
/// bytes themselves when there are none (the usual case, no copy).
///
/// The scan jumps from one byte that matters to the next (memchr): outside
/// a string only `"`, `N` and `I` (JSON's own words are lower case and its
/// numbers hold neither), inside one only `"` and `\`. A file that holds
/// the word `NaN` only in its strings (JMH writes `"scoreError" : "NaN"`)
/// is scanned once and not copied.
pub fn python_json(bytes: &[u8]) -> Cow<'_, [u8]> {
    let finder = |n: &[u8]| memchr::memmem::find(bytes, n).is_some();
    if !finder(b"NaN") && !finder(b"Infinity") {
        return Cow::Borrowed(bytes);
    }
    let mut out: Option<Vec<u8>> = None;
    // `bytes[..copied]` is in `out` already.
    let mut copied = 0usize;
    let mut i = 0usize;
    let rest = |i: usize| bytes.get(i..).unwrap_or_default();
    while let Some(found) = memchr::memchr3(b'"', b'N', b'I', rest(i)) {
        let at = i.saturating_add(found);
        let token = [&b"Infinity"[..], b"NaN"]
            .into_iter()
            .find(|t| rest(at).starts_with(t));
        let Some(token) = token else {
            // A string: to its closing quote, over escaped characters.
            i = at.saturating_add(1);
            if bytes.get(at) == Some(&b'"') {
                i = string_end(bytes, i);
            }
            continue;
        };
        let minus = at > 0 && bytes.get(at.saturating_sub(1)) == Some(&b'-');
        let start = if minus { at.saturating_sub(1) } else { at };
        let buf = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
        buf.extend_from_slice(bytes.get(copied..start).unwrap_or_default());
        buf.extend_from_slice(b"null");
        i = at.saturating_add(token.len());
        copied = i;
    }
    match out {
        None => Cow::Borrowed(bytes),
        Some(mut buf) => {
            buf.extend_from_slice(rest(copied));
            Cow::Owned(buf)
        }
    }
}

/// Where the string whose content starts at `from` ends: just past its
/// closing quote, or the end of `bytes` when it is not closed.
fn string_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(found) = memchr::memchr2(b'"', b'\\', bytes.get(i..).unwrap_or_default()) {
        let at = i.saturating_add(found);
        if bytes.get(at) == Some(&b'"') {
            return at.saturating_add(1);
        }
        i = at.saturating_add(2);
    }
    bytes.len()
}

/// `bytes` as `T`, an error naming the JSON path and line where it failed.
pub fn parse<T: DeserializeOwned>(
    path: &Path,
    format: Format,
    bytes: &[u8],
) -> Result<T, TableError> {
    let text = python_json(bytes);
    parse_text(path, format, &text)
}

/// [`parse`] of a text already made JSON ([`python_json`]), whose strings
/// `T` may borrow rather than copy (`Cow<str>` fields with
/// `#[serde(borrow)]`): a string with no escape in it is not allocated.
pub fn parse_text<'de, T: Deserialize<'de>>(
    path: &Path,
    format: Format,
    text: &'de [u8],
) -> Result<T, TableError> {
    // The fast read first: serde_path_to_error keeps each object's keys as
    // owned strings while it reads, which cost more than the reading
    // itself; only a file that is refused is read again with it, for the
    // path its message names.
    if let Ok(value) = serde_json::from_slice::<T>(text) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let inner = e.inner();
        let at = format!(
            "at {} (line {} column {})",
            e.path(),
            inner.line(),
            inner.column()
        );
        TableError::Format {
            path: path.to_owned(),
            format: format.name(),
            at,
            message: inner.to_string(),
        }
    })?;
    de.end().map_err(|e| TableError::Format {
        path: path.to_owned(),
        format: format.name(),
        at: format!("line {} column {}", e.line(), e.column()),
        message: e.to_string(),
    })?;
    Ok(value)
}
