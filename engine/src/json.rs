//! Compact JSON text of any `Serialize` value, byte for byte what `serde_json::to_vec`
//! writes, in fewer instructions.
//!
//! A game's view is mostly short strings: the field names of its state and the names of
//! its enums. serde_json looks up every byte of every string in an escape table and
//! writes each string in several pieces; writing a six-colour Mens-erger-je-niet view
//! spent a fifth of its time there. [`to_vec`] checks that a string needs no escaping
//! and copies it in machine words (one or two for up to 16 bytes, eight bytes at a time
//! beyond); a string that does need escaping, a float and a byte array are written by
//! serde_json itself, so the text is the same.
//!
//! [`RawJson`] is JSON text kept as text (a game's state, its legal moves) and written
//! as it is into a larger text, by [`to_vec`] or by serde_json: it serialises the way
//! `serde_json::value::RawValue` does, without that type's parse on construction.
//!
//! The serializer is [`writer`] (arrays, objects, and embedded text), with map keys in
//! [`key`]; both write strings and numbers through [`text`].

#[macro_use]
mod methods;
mod key;
mod text;
mod writer;

use serde::ser::{self, Serialize};
use serde::Deserialize;
use serde_json::Error;

use writer::Writer;

/// The struct name by which serde_json recognises JSON text to embed as it is (what
/// `serde_json::value::RawValue` serialises as; `tests::raw_json_is_embedded_by_serde_json`
/// pins it).
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// `value` as compact JSON text, the bytes `serde_json::to_vec(value)` gives.
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(256);
    value.serialize(Writer { out: &mut out })?;
    Ok(out)
}

/// Valid JSON text, written into larger texts as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawJson(Box<str>);

impl RawJson {
    /// `value` as compact JSON text, or why `value`'s `Serialize` failed.
    pub fn of<T: ?Sized + Serialize>(value: &T) -> Result<RawJson, Error> {
        let text = String::from_utf8(to_vec(value)?).map_err(ser::Error::custom)?;
        Ok(RawJson(text.into_boxed_str()))
    }

    /// `text` if it is JSON (checked by serde_json), or `None`.
    pub fn from_text(text: String) -> Option<RawJson> {
        serde_json::value::RawValue::from_string(text)
            .ok()
            .map(|raw| RawJson(raw.into()))
    }

    /// The text.
    pub fn get(&self) -> &str {
        &self.0
    }
}

/// Read as serde_json reads a `RawValue`: the text checked, kept as it is.
impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(deserializer)?;
        Ok(RawJson(raw.into()))
    }
}

impl Serialize for RawJson {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeStruct as _;
        let mut s = serializer.serialize_struct(RAW_TOKEN, 1)?;
        s.serialize_field(RAW_TOKEN, &*self.0)?;
        s.end()
    }
}

#[cfg(test)]
mod tests;
