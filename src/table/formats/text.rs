//! Strings of a JSON document as the readers keep them: borrowed from the
//! file's text where they hold no escape, so that a name costs no copy.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A string of the document (an object's key, a name), borrowed from the
/// text where it holds no escape. serde's own `Cow<str>` borrows only as a
/// struct's field of exactly that type (`Option<Cow<str>>` always copies);
/// this borrows wherever it is, so a reader's optional names cost no
/// allocation.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Text<'a>(pub Cow<'a, str>);

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text<'a>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// Any value shown as text: a string as it is (borrowed where it holds
/// no escape), anything else as its JSON (`16`, `1.5`, `true`, `null`).
/// Harnesses write parameters either way (hyperfine's, nvbench's axes).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shown<'a>(pub Cow<'a, str>);

impl std::ops::Deref for Shown<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Shown<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shown<'a>, D::Error> {
        d.deserialize_any(ShownVisitor)
    }
}

struct ShownVisitor;

impl ShownVisitor {
    fn json<'a>(value: &serde_json::Value) -> Shown<'a> {
        Shown(Cow::Owned(value.to_string()))
    }
}

impl<'de> Visitor<'de> for ShownVisitor {
    type Value = Shown<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Shown<'de>, E> {
        Ok(Shown(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Shown<'de>, E> {
        Ok(Shown(Cow::Owned(v.to_owned())))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Shown<'de>, E> {
        Ok(Self::json(&v.into()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Shown<'de>, E> {
        Ok(Self::json(&v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Shown<'de>, E> {
        Ok(Self::json(&v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Shown<'de>, E> {
        Ok(Self::json(&v.into()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Shown<'de>, E> {
        Ok(Self::json(&serde_json::Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Shown<'de>, A::Error> {
        let v = serde_json::Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(Self::json(&v))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Shown<'de>, A::Error> {
        let v = serde_json::Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(Self::json(&v))
    }
}

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

/// `name=value` pairs joined by `,` (hyperfine's parameters, JMH's
/// `@Param`s, nvbench's axes), appended to `out`, which one reader keeps
/// from row to row so that a row's params cost no allocation.
pub fn push_pairs<'p>(out: &mut String, pairs: impl IntoIterator<Item = (&'p str, &'p str)>) {
    for (name, value) in pairs {
        if !out.is_empty() {
            out.push(',');
        }
        out.extend([name, "=", value]);
    }
}
