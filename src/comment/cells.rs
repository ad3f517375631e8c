//! The cells of compare's report as `comment` reads them: strings cut to
//! what the body shows as they are read ([`Cut`]), and a row's key
//! (`[[column, cell], ...]`) whatever its cells are written as ([`Key`]):
//! a stranger's report may hold a megabyte in one cell or a number where a
//! string should be.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A key cell is cut to this many characters (the body shows fewer).
pub const CELL: usize = 121;
/// A column name, the same.
pub const NAME: usize = 41;

/// A string cut to `N` characters as it is read.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cut<const N: usize>(pub String);

impl<const N: usize> Cut<N> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<const N: usize> std::ops::Deref for Cut<N> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

fn cut(mut s: String, n: usize) -> String {
    if let Some((at, _)) = s.char_indices().nth(n) {
        s.truncate(at);
    }
    s
}

impl<'de, const N: usize> Deserialize<'de> for Cut<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|s| Cut(cut(s, N)))
    }
}

/// A row's key cells in the report's order (a map would sort them), kept
/// while their joined text is within what the body shows.
#[derive(Debug, Default, Clone)]
pub struct Key(pub Vec<(String, String)>);

impl Key {
    /// The cells joined by spaces, as the dashboard shows a key.
    pub fn cells(&self) -> String {
        let cells: Vec<&str> = self.0.iter().map(|(_, v)| v.as_str()).collect();
        cells.join(" ")
    }
}

/// A key cell's value as text: a string (cut), a number or a boolean as
/// written; an array or object is not a cell, shown as `…`, never built.
struct CellText;

impl<'de> Visitor<'de> for CellText {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key cell")
    }
    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(v.chars().take(CELL).collect())
    }
    fn visit_string<E>(self, v: String) -> Result<String, E> {
        Ok(cut(v, CELL))
    }
    fn visit_bool<E>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_i64<E>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u64<E>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_f64<E>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_unit<E>(self) -> Result<String, E> {
        Ok("null".to_owned())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok("…".to_owned())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok("…".to_owned())
    }
}

impl<'de> Deserialize<'de> for CellValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CellText).map(CellValue)
    }
}

struct CellValue(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct Cells;
        impl<'de> Visitor<'de> for Cells {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of key cells")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Key, A::Error> {
                let (mut cells, mut shown) = (Vec::new(), 0usize);
                while let Some((k, v)) = map.next_entry::<Cut<NAME>, CellValue>()? {
                    if shown <= CELL {
                        shown = shown.saturating_add(v.0.chars().count()).saturating_add(1);
                        cells.push((k.0, v.0));
                    }
                }
                Ok(Key(cells))
            }
        }
        d.deserialize_map(Cells)
    }
}
