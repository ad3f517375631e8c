//! A results list read one entry at a time: Google Benchmark's and
//! pytest-benchmark's `benchmarks`, hyperfine's `results`,
//! BenchmarkDotNet's `Benchmarks`, JMH's and the custom JSON's document
//! itself. Each entry is handed to the reader as it is parsed, so a large
//! file's entries are never all held at once, and every field the entry's
//! type does not name is skipped by the parser without being built. A file
//! that is refused is walked again, its entries dropped, for the JSON path
//! and line its message names (the fast walk keeps no path: keeping one
//! costs more than the reading).

use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::Format;
use super::json::Text;
use crate::table::TableError;

/// Where the list is: a top-level field's value, or the document itself.
#[derive(Debug, Clone, Copy)]
pub enum At {
    Field(&'static str),
    Document,
}

/// Reads the entries of the list `at` of `text` (made JSON already,
/// `json::python_json`) one at a time into `each`, with their index.
/// Every other top-level field is skipped; an entry that is not an `E`
/// refuses the file, naming where.
pub fn each<'de, E: Deserialize<'de>>(
    path: &Path,
    format: Format,
    text: &'de [u8],
    at: At,
    mut each: impl FnMut(usize, E) -> Result<(), TableError>,
) -> Result<(), TableError> {
    let mut failed = None;
    let mut de = serde_json::Deserializer::from_slice(text);
    let read = Each {
        at,
        each: &mut each,
        failed: &mut failed,
        entry: std::marker::PhantomData,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    if let Some(e) = failed {
        return Err(e);
    }
    let Err(error) = read else {
        return Ok(());
    };
    Err(refusal(path, format, text, at, &error, |_, _: E| Ok(())))
}

/// [`each`] of the `benchmarks` list (Google Benchmark, pytest-benchmark).
pub fn benchmarks<'de, E: Deserialize<'de>>(
    path: &Path,
    format: Format,
    text: &'de [u8],
    each: impl FnMut(usize, E) -> Result<(), TableError>,
) -> Result<(), TableError> {
    self::each(path, format, text, At::Field("benchmarks"), each)
}

/// The error for a file [`each`] could not read: the same walk again
/// through serde_path_to_error, its entries dropped, for the path.
fn refusal<'de, E: Deserialize<'de>>(
    path: &Path,
    format: Format,
    text: &'de [u8],
    at: At,
    error: &serde_json::Error,
    mut drop: impl FnMut(usize, E) -> Result<(), TableError>,
) -> TableError {
    let mut de = serde_json::Deserializer::from_slice(text);
    let mut track = serde_path_to_error::Track::new();
    let walk = Each {
        at,
        each: &mut drop,
        failed: &mut None,
        entry: std::marker::PhantomData,
    }
    .deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track));
    let (at, message) = match walk {
        Err(inner) => (
            format!(
                "at {} (line {} column {})",
                track.path(),
                inner.line(),
                inner.column()
            ),
            inner.to_string(),
        ),
        Ok(()) => (
            format!("line {} column {}", error.line(), error.column()),
            error.to_string(),
        ),
    };
    TableError::Format {
        path: path.to_owned(),
        format: format.name(),
        at,
        message,
    }
}

/// The walk for [`each`]: the top-level object with its list field, or
/// the list itself.
struct Each<'f, F, E> {
    at: At,
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
        match self.at {
            At::Field(name) => write!(f, "an object with a {name} list"),
            At::Document => f.write_str("a list"),
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let At::Field(name) = self.at else {
            return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
        };
        let mut seen = false;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if key != name {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if seen {
                return Err(de::Error::duplicate_field(name));
            }
            seen = true;
            map.next_value_seed(Each {
                at: At::Document,
                each: &mut *self.each,
                failed: &mut *self.failed,
                entry: self.entry,
            })?;
        }
        if seen {
            Ok(())
        } else {
            Err(de::Error::missing_field(name))
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if let At::Field(_) = self.at {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
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
        match self.at {
            At::Field(_) => d.deserialize_map(self),
            At::Document => d.deserialize_seq(self),
        }
    }
}
