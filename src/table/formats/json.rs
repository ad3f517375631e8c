//! What the JSON formats share: telling them apart by their top-level
//! fields, Python's `NaN` and `Infinity` (which Python's json writes and
//! JSON has not), and errors that say where in the document they are.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::de::{
    self, Deserialize, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess,
    SeqAccess, Visitor,
};

use super::Format;
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
            lists: true,
            seen: &mut kind,
        })?;
        Ok(kind)
    }
}

/// Reads a value's kind into `seen`; `lists: false` leaves a list's
/// entries unread (the read then stops with an error, and `seen` says
/// it was a list).
struct KindOf<'k> {
    lists: bool,
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
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        *self.seen = Kind::Object;
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        *self.seen = Kind::Array;
        while self.lists && seq.next_element::<IgnoredAny>()?.is_some() {}
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

/// A file whose results are its `benchmarks` list (Google Benchmark,
/// pytest-benchmark).
#[derive(Debug, serde::Deserialize)]
pub struct Benchmarks<E> {
    pub benchmarks: Vec<E>,
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

/// A list's first entry, the rest skipped without being kept.
struct First<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for First<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<First<T>, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = First<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<First<T>, A::Error> {
                let first = seq.next_element::<T>()?;
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(First(first))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

/// A Bencher Metric Format measure, as detection sees it: its `value`.
#[derive(Debug, serde::Deserialize)]
struct MeasureProbe {
    #[allow(dead_code)]
    value: IgnoredAny,
}

/// The JSON format of `bytes`, by its top-level fields;
/// [`Format::Csv`] (refused by the caller, naming what was tried) when it
/// is none of them or not JSON.
pub fn detect(bytes: &[u8]) -> Format {
    let text = python_json(bytes);
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        return detect_list(&text);
    }
    let Some(probe) = probe(&text) else {
        return Format::Csv;
    };
    let has = |k: Kind| k != Kind::Absent;
    match probe.benchmarks {
        Kind::Array if has(probe.context) => Format::GoogleBenchmark,
        Kind::Array if has(probe.machine_info) => Format::PytestBenchmark,
        Kind::Array if has(probe.meta) && has(probe.devices) => Format::Nvbench,
        Kind::Array if has(probe.version) || has(probe.metadata) => Format::Pyperf,
        _ if probe.results == Kind::Array => Format::Hyperfine,
        _ if probe.results == Kind::Object && has(probe.commit_hash) => Format::Asv,
        _ if probe.dotnet_benchmarks == Kind::Array && has(probe.dotnet_host) => {
            Format::BenchmarkDotNet
        }
        // Bencher's format has no field of its own: names to measures,
        // each an object with a `value`.
        _ => {
            match serde_json::from_slice::<BTreeMap<String, BTreeMap<String, MeasureProbe>>>(&text)
            {
                Ok(map) if !map.is_empty() && map.values().any(|m| !m.is_empty()) => Format::Bmf,
                _ => Format::Csv,
            }
        }
    }
}

/// The top-level fields of `text`; `None` when it is not a JSON object.
/// Google Benchmark and pytest-benchmark write their `context` or
/// `machine_info` before `benchmarks`: once the list is reached after
/// one of them the format is decided, and the list (nearly all of the
/// file) is not read twice, here and again by the reader, which refuses
/// what is wrong in it, naming where.
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

/// Fills a [`Probe`] field by field, stopping at a decided `benchmarks`.
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
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let field = match key.as_ref() {
                "benchmarks" if p.context != Kind::Absent || p.machine_info != Kind::Absent => {
                    // A list is all this needs to know: its entries are
                    // left unread, which ends the read with an error.
                    let read = map.next_value_seed(KindOf {
                        lists: false,
                        seen: &mut p.benchmarks,
                    });
                    *self.decided = p.benchmarks == Kind::Array;
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
            *field = map.next_value::<Kind>()?;
        }
        Ok(())
    }
}

/// An object's key, borrowed from the text where it holds no escape.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// The format of a JSON list, by its first entry's fields: JMH's
/// `benchmark` and `primaryMetric`, the custom JSON's `name`, `unit` and
/// `value`.
fn detect_list(text: &[u8]) -> Format {
    let Ok(First(Some(e))) = serde_json::from_slice::<First<EntryProbe>>(text) else {
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
pub fn python_json(bytes: &[u8]) -> Cow<'_, [u8]> {
    let finder = |n: &[u8]| memchr::memmem::find(bytes, n).is_some();
    if !finder(b"NaN") && !finder(b"Infinity") {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let (mut in_string, mut escaped, mut i) = (false, false, 0usize);
    while let Some(&b) = bytes.get(i) {
        if in_string {
            out.push(b);
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            i = i.saturating_add(1);
            continue;
        }
        let rest = bytes.get(i..).unwrap_or_default();
        let token = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        if let Some(t) = token {
            out.extend_from_slice(b"null");
            i = i.saturating_add(t.len());
            continue;
        }
        in_string = b == b'"';
        out.push(b);
        i = i.saturating_add(1);
    }
    Cow::Owned(out)
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

/// Reads the entries of a `benchmarks` list (Google Benchmark,
/// pytest-benchmark) one at a time into `each`, with their index, rather
/// than into a list first: a large file's entries are never all held at
/// once. A file that is not JSON, or whose entries are not `E`, is read
/// again by [`parse_text`] for the message naming where.
pub fn each<'de, E: Deserialize<'de>>(
    path: &Path,
    format: Format,
    text: &'de [u8],
    mut each: impl FnMut(usize, E) -> Result<(), TableError>,
) -> Result<(), TableError> {
    let mut failed = None;
    let mut de = serde_json::Deserializer::from_slice(text);
    let read = de
        .deserialize_map(Each {
            each: &mut each,
            failed: &mut failed,
            entry: std::marker::PhantomData,
        })
        .and_then(|()| de.end());
    if let Some(e) = failed {
        return Err(e);
    }
    match read {
        Ok(()) => Ok(()),
        Err(e) => {
            parse_text::<Benchmarks<E>>(path, format, text)?;
            Err(TableError::Format {
                path: path.to_owned(),
                format: format.name(),
                at: format!("line {} column {}", e.line(), e.column()),
                message: e.to_string(),
            })
        }
    }
}

/// The top-level object for [`each`]: `benchmarks` read entry by entry,
/// every other field skipped.
struct Each<'f, F, E> {
    each: &'f mut F,
    failed: &'f mut Option<TableError>,
    entry: std::marker::PhantomData<E>,
}

impl<'de, F, E> Visitor<'de> for Each<'_, F, E>
where
    F: FnMut(usize, E) -> Result<(), TableError>,
    E: Deserialize<'de>,
{
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with a benchmarks list")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if key != "benchmarks" {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if seen {
                return Err(de::Error::duplicate_field("benchmarks"));
            }
            seen = true;
            map.next_value_seed(Each {
                each: &mut *self.each,
                failed: &mut *self.failed,
                entry: self.entry,
            })?;
        }
        if seen {
            Ok(())
        } else {
            Err(de::Error::missing_field("benchmarks"))
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while let Some(entry) = seq.next_element::<E>()? {
            if let Err(e) = (self.each)(i, entry) {
                *self.failed = Some(e);
                return Err(de::Error::custom("refused"));
            }
            i = i.saturating_add(1);
        }
        Ok(())
    }
}

impl<'de, F, E> DeserializeSeed<'de> for Each<'_, F, E>
where
    F: FnMut(usize, E) -> Result<(), TableError>,
    E: Deserialize<'de>,
{
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}
