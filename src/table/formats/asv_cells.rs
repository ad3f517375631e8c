//! asv's result entries read into only what the asv reader keeps (each
//! combination's result, the parameter lists, the samples), every other
//! column (`stats_*`, `version`, `started_at`, `profile`) skipped by the
//! parser without being built. asv 0.5 on writes an entry as a list in the
//! order `result_columns` names; asv's own order is [`COLUMNS`], read here
//! by position and checked against the file's `result_columns` once the
//! file is read (a file in another order is read again, as `Value`s). An
//! older entry is an object of those fields by name.
//!
//! Every reading is lenient as `serde_json::Value`'s accessors were: a
//! result that is not a number is no value, a parameter list that is not a
//! list has no values.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::json::{Shown, Text};

/// asv's own order of an entry's columns (`result_columns`).
pub const COLUMNS: [&str; 13] = [
    "result",
    "params",
    "version",
    "started_at",
    "duration",
    "stats_ci_99_a",
    "stats_ci_99_b",
    "stats_q_25",
    "stats_q_75",
    "stats_number",
    "stats_repeat",
    "samples",
    "profile",
];

/// Whether a file's `result_columns` put result, params and samples where
/// [`COLUMNS`] does.
pub fn in_asv_order(columns: &[Text<'_>]) -> bool {
    ["result", "params", "samples"].iter().all(|name| {
        columns.iter().position(|c| &**c == *name) == COLUMNS.iter().position(|c| c == name)
    })
}

/// One benchmark's result: a value per combination of its parameters
/// (`None`: not a number, failed or skipped), its parameter lists, and
/// per combination its samples when recorded.
#[derive(Default)]
pub struct Entry<'a> {
    /// Written as a list (asv 0.5 on), whose columns `result_columns` names.
    pub list: bool,
    pub result: Vec<Option<f64>>,
    pub params: Vec<Vec<Shown<'a>>>,
    pub samples: Vec<Option<Vec<Option<f64>>>>,
}

impl<'a> Entry<'a> {
    /// The entry of a `Value` (a file whose columns are in another order),
    /// `columns` naming a list's columns.
    pub fn of_value(value: &Value, columns: Option<&[Text<'_>]>) -> Entry<'a> {
        let field = |name: &str| -> Option<&Value> {
            match (value, columns) {
                (Value::Array(cells), Some(cols)) => {
                    cells.get(cols.iter().position(|c| &**c == name)?)
                }
                (Value::Object(map), _) => map.get(name),
                _ => None,
            }
        };
        let (result, params, samples) = match value {
            Value::Array(_) | Value::Object(_) => {
                (field("result"), field("params"), field("samples"))
            }
            other => (Some(other), None, None),
        };
        let numbers = |v: &Value| -> Vec<Option<f64>> {
            match v {
                Value::Array(items) => items.iter().map(Value::as_f64).collect(),
                other => vec![other.as_f64()],
            }
        };
        let list = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
        let shown = |v: &Value| -> Shown<'a> {
            match v {
                Value::String(s) => Shown(s.clone().into()),
                other => Shown(other.to_string().into()),
            }
        };
        Entry {
            list: value.is_array(),
            result: numbers(result.unwrap_or(&Value::Null)),
            params: list(params)
                .iter()
                .map(|l| l.as_array().map(|vs| vs.iter().map(shown).collect()))
                .map(Option::unwrap_or_default)
                .collect(),
            samples: list(samples)
                .iter()
                .map(|s| {
                    s.as_array()
                        .map(|vs| vs.iter().map(Value::as_f64).collect())
                })
                .collect(),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Entry<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entry<'a>, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an asv result")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry<'de>, A::Error> {
        let mut entry = Entry {
            list: true,
            ..Entry::default()
        };
        let mut column = 0usize;
        loop {
            let read = match COLUMNS.get(column).copied() {
                Some("result") => seq.next_element::<Numbers>()?.map(|n| entry.result = n.0),
                Some("params") => seq
                    .next_element::<Params<'de>>()?
                    .map(|p| entry.params = p.0),
                Some("samples") => seq.next_element::<Samples>()?.map(|s| entry.samples = s.0),
                _ => seq.next_element::<IgnoredAny>()?.map(|_| ()),
            };
            if read.is_none() {
                break;
            }
            column = column.saturating_add(1);
        }
        if column == 0 {
            entry.result = vec![None];
        }
        Ok(entry)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry<'de>, A::Error> {
        let mut entry = Entry {
            result: vec![None],
            ..Entry::default()
        };
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match &*key {
                "result" => entry.result = map.next_value::<Numbers>()?.0,
                "params" => entry.params = map.next_value::<Params<'de>>()?.0,
                "samples" => entry.samples = map.next_value::<Samples>()?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(entry)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Entry<'de>, E> {
        Ok(Entry {
            result: vec![Some(v)],
            ..Entry::default()
        })
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Entry<'de>, E> {
        self.visit_f64(v as f64)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Entry<'de>, E> {
        self.visit_f64(v as f64)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Entry<'de>, E> {
        Ok(Entry {
            result: vec![None],
            ..Entry::default()
        })
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Entry<'de>, E> {
        self.visit_unit()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Entry<'de>, E> {
        self.visit_unit()
    }
}

/// A number, or `None` for anything else (skipped unbuilt).
struct Number(Option<f64>);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        d.deserialize_any(NumberVisitor)
    }
}

struct NumberVisitor;

impl<'de> Visitor<'de> for NumberVisitor {
    type Value = Number;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
        Ok(Number(Some(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
        Ok(Number(Some(v as f64)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
        Ok(Number(Some(v as f64)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Number, E> {
        Ok(Number(None))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Number, E> {
        Ok(Number(None))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Number, E> {
        Ok(Number(None))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Number, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Number(None))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Number, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Number(None))
    }
}

/// A result: a list of numbers, or one value (a list of one).
struct Numbers(Vec<Option<f64>>);

impl<'de> Deserialize<'de> for Numbers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Numbers, D::Error> {
        let read = d.deserialize_any(NumberList)?;
        Ok(Numbers(read.unwrap_or_else(|one| vec![one])))
    }
}

/// A list of numbers, or `None` for anything else.
struct MaybeNumbers(Option<Vec<Option<f64>>>);

impl<'de> Deserialize<'de> for MaybeNumbers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MaybeNumbers, D::Error> {
        Ok(MaybeNumbers(d.deserialize_any(NumberList)?.ok()))
    }
}

/// A list's values as numbers, or (`Err`) the one value that is not a
/// list, as a number.
struct NumberList;

type Listed = Result<Vec<Option<f64>>, Option<f64>>;

impl<'de> Visitor<'de> for NumberList {
    type Value = Listed;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Listed, A::Error> {
        let mut values = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(Number(v)) = seq.next_element::<Number>()? {
            values.push(v);
        }
        Ok(Ok(values))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Listed, E> {
        Ok(Err(Some(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Listed, E> {
        Ok(Err(Some(v as f64)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Listed, E> {
        Ok(Err(Some(v as f64)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Listed, E> {
        Ok(Err(None))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Listed, E> {
        Ok(Err(None))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Listed, E> {
        Ok(Err(None))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Listed, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Err(None))
    }
}

/// Per combination, its samples (`None`: none recorded); nothing when the
/// field is not a list.
struct Samples(Vec<Option<Vec<Option<f64>>>>);

impl<'de> Deserialize<'de> for Samples {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Samples, D::Error> {
        Ok(Samples(
            AnyList::<MaybeNumbers>::deserialize(d)?
                .0
                .into_iter()
                .map(|m| m.0)
                .collect(),
        ))
    }
}

/// The parameter lists, each value shown as text; a list that is not a
/// list has no values, and a field that is not a list no lists.
struct Params<'a>(Vec<Vec<Shown<'a>>>);

impl<'de: 'a, 'a> Deserialize<'de> for Params<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Params<'a>, D::Error> {
        let lists = AnyList::<AnyList<Shown<'a>>>::deserialize(d)?;
        Ok(Params(lists.0.into_iter().map(|l| l.0).collect()))
    }
}

/// A list of `T`, or an empty one for any value that is not a list.
struct AnyList<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for AnyList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AnyList<T>, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = AnyList<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AnyList<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<T>()? {
                    out.push(v);
                }
                Ok(AnyList(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyList<T>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyList(Vec::new()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<AnyList<T>, E> {
                Ok(AnyList(Vec::new()))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<AnyList<T>, E> {
                Ok(AnyList(Vec::new()))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<AnyList<T>, E> {
                Ok(AnyList(Vec::new()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<AnyList<T>, E> {
                Ok(AnyList(Vec::new()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<AnyList<T>, E> {
                Ok(AnyList(Vec::new()))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<AnyList<T>, E> {
                Ok(AnyList(Vec::new()))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}
