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

use std::io::Write as _;

use serde::ser::{self, Impossible, Serialize};
use serde::Deserialize;
use serde_json::Error;

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
    /// `value` as compact JSON text.
    pub fn of<T: ?Sized + Serialize>(value: &T) -> RawJson {
        let text = to_vec(value)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        RawJson(text.map_or_else(|| Box::from("null"), String::into_boxed_str))
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

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that JSON must escape (below 0x20, `"` or `\`),
/// and possibly of bytes above such a byte; zero when there is none ("Bit Twiddling
/// Hacks": exact for whether any byte is one).
#[inline]
fn escapes(w: u64) -> u64 {
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGHS
}

/// The eight bytes of `bytes` from `at` as one word.
#[inline]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Four bytes of `bytes` from `at` as the low half of a word, the high half spaces
/// (which need no escaping).
#[inline]
fn half_word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u64::from(u32::from_le_bytes(w)) | 0x2020_2020_0000_0000
}

/// Whether `text` has a byte JSON must escape: a control character, `"` or `\`.
#[inline]
fn needs_escaping(text: &[u8]) -> bool {
    let n = text.len();
    if n >= 8 {
        // Whole words, the last one overlapping the one before it.
        let mut at = 0;
        while at + 8 < n {
            if escapes(word(text, at)) != 0 {
                return true;
            }
            at += 8;
        }
        escapes(word(text, n - 8)) != 0
    } else if n >= 4 {
        escapes(half_word(text, 0)) | escapes(half_word(text, n - 4)) != 0
    } else {
        text.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
    }
}

/// `text` as a JSON string.
#[inline]
fn write_str(out: &mut Vec<u8>, text: &str) -> Result<(), Error> {
    let bytes = text.as_bytes();
    if needs_escaping(bytes) {
        return ser::Serializer::serialize_str(&mut serde_json::Serializer::new(out), text);
    }
    write_plain(out, bytes);
    Ok(())
}

/// `bytes`, which need no escaping, in quotes. Up to 16 bytes are copied as two words
/// (the second overlapping the first), not by a call to `memcpy`.
#[inline]
fn write_plain(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    out.reserve(n + 2);
    out.push(b'"');
    if (8..=16).contains(&n) {
        let start = out.len();
        out.extend_from_slice(&word(bytes, 0).to_le_bytes());
        out.truncate(start + n - 8);
        out.extend_from_slice(&word(bytes, n - 8).to_le_bytes());
    } else if (4..8).contains(&n) {
        let start = out.len();
        out.extend_from_slice(&bytes[..4]);
        out.truncate(start + n - 4);
        out.extend_from_slice(&bytes[n - 4..]);
    } else {
        out.extend_from_slice(bytes);
    }
    out.push(b'"');
}

#[inline]
fn write_integer<I: itoa::Integer>(out: &mut Vec<u8>, value: I) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

/// `value` in decimal; one or two digits (most of a game's numbers) without `itoa`.
#[inline]
fn write_unsigned(out: &mut Vec<u8>, value: u64) {
    if value < 10 {
        out.push(b'0' + value as u8);
    } else if value < 100 {
        out.extend_from_slice(&[b'0' + (value / 10) as u8, b'0' + (value % 10) as u8]);
    } else {
        write_integer(out, value);
    }
}

/// `,` unless `first`, then `key` and `:`.
#[inline]
fn write_key(out: &mut Vec<u8>, first: &mut bool, key: &str) -> Result<(), Error> {
    if !std::mem::replace(first, false) {
        out.push(b',');
    }
    write_str(out, key)?;
    out.push(b':');
    Ok(())
}

/// `Serializer` methods for integers, each handing its value to `$with(self, value)`.
macro_rules! integers {
    ($with:path; $($method:ident($ty:ty)),*) => {
        $(
            fn $method(self, v: $ty) -> Result<(), Error> {
                $with(self, v)
            }
        )*
    };
}

/// The `Serializer` methods of text, the same for values and keys: a char, a string,
/// a unit variant (its name) and a newtype struct (its content).
macro_rules! strings {
    () => {
        fn serialize_char(self, v: char) -> Result<(), Error> {
            write_str(self.out, v.encode_utf8(&mut [0u8; 4]))
        }
        fn serialize_str(self, v: &str) -> Result<(), Error> {
            write_str(self.out, v)
        }
        fn serialize_unit_variant(
            self,
            _name: &'static str,
            _index: u32,
            variant: &'static str,
        ) -> Result<(), Error> {
            write_str(self.out, variant)
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _name: &'static str,
            value: &T,
        ) -> Result<(), Error> {
            value.serialize(self)
        }
    };
}

/// The serializer: writes into `out`.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

/// An array, an object, or JSON text embedded as it is.
enum Compound<'a> {
    /// An array or object, inside `{"variant":…}` when `variant`.
    Open {
        out: &'a mut Vec<u8>,
        first: bool,
        /// `]` or `}`.
        close: u8,
        /// Whether a variant's `}` follows.
        variant: bool,
    },
    Raw {
        out: &'a mut Vec<u8>,
    },
}

impl<'a> Writer<'a> {
    fn unsigned(self, v: impl Into<u64>) -> Result<(), Error> {
        write_unsigned(self.out, v.into());
        Ok(())
    }

    fn signed(self, v: impl Into<i64>) -> Result<(), Error> {
        let v = v.into();
        match u64::try_from(v) {
            Ok(v) => write_unsigned(self.out, v),
            Err(_) => write_integer(self.out, v),
        }
        Ok(())
    }

    fn wide(self, v: impl itoa::Integer) -> Result<(), Error> {
        write_integer(self.out, v);
        Ok(())
    }

    #[inline]
    fn open(self, start: u8, close: u8, variant: bool) -> Compound<'a> {
        self.out.push(start);
        Compound::Open {
            out: self.out,
            first: true,
            close,
            variant,
        }
    }

    /// `{"variant":` then `start`.
    fn open_variant(self, variant: &str, start: u8, close: u8) -> Result<Compound<'a>, Error> {
        self.out.push(b'{');
        write_str(self.out, variant)?;
        self.out.push(b':');
        Ok(self.open(start, close, true))
    }
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    integers! { Writer::signed;
        serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64)
    }
    integers! { Writer::unsigned;
        serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64)
    }
    integers! { Writer::wide; serialize_i128(i128), serialize_u128(u128) }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        ser::Serializer::serialize_f32(&mut serde_json::Serializer::new(self.out), v)
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        ser::Serializer::serialize_f64(&mut serde_json::Serializer::new(self.out), v)
    }
    strings!();
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        ser::Serializer::serialize_bytes(&mut serde_json::Serializer::new(self.out), v)
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.out.push(b'{');
        write_str(self.out, variant)?;
        self.out.push(b':');
        value.serialize(Writer {
            out: &mut *self.out,
        })?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open(b'[', b']', false))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open(b'[', b']', false))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(self.open(b'[', b']', false))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.open_variant(variant, b'[', b']')
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open(b'{', b'}', false))
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Compound<'a>, Error> {
        if name == RAW_TOKEN {
            return Ok(Compound::Raw { out: self.out });
        }
        Ok(self.open(b'{', b'}', false))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.open_variant(variant, b'{', b'}')
    }
}

impl Compound<'_> {
    /// `,` unless first, then `value`.
    #[inline]
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        match self {
            Compound::Open { out, first, .. } => {
                if !std::mem::replace(first, false) {
                    out.push(b',');
                }
                value.serialize(Writer { out })
            }
            Compound::Raw { .. } => Err(ser::Error::custom("embedded JSON text has one part")),
        }
    }

    /// `,` unless first, then `"key":value`.
    #[inline]
    fn field<T: ?Sized + Serialize>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        match self {
            Compound::Open { out, first, .. } => {
                write_key(out, first, key)?;
                value.serialize(Writer { out })
            }
            Compound::Raw { out } => value.serialize(RawText { out }),
        }
    }

    #[inline]
    fn close(self) -> Result<(), Error> {
        if let Compound::Open {
            out,
            close,
            variant,
            ..
        } = self
        {
            out.push(close);
            if variant {
                out.push(b'}');
            }
        }
        Ok(())
    }
}

/// The traits of sequences (arrays) for [`Compound`]: each element written by
/// [`Compound::element`].
macro_rules! sequence {
    ($($trait:ident::$method:ident),*) => {
        $(
            impl ser::$trait for Compound<'_> {
                type Ok = ();
                type Error = Error;
                fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
                    self.element(value)
                }
                fn end(self) -> Result<(), Error> {
                    self.close()
                }
            }
        )*
    };
}

sequence!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        match self {
            Compound::Open { out, first, .. } => {
                if !std::mem::replace(first, false) {
                    out.push(b',');
                }
                key.serialize(Key { out })?;
                out.push(b':');
                Ok(())
            }
            Compound::Raw { .. } => Err(ser::Error::custom("embedded JSON text has no keys")),
        }
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        match self {
            Compound::Open { out, .. } => value.serialize(Writer { out }),
            Compound::Raw { .. } => Err(ser::Error::custom("embedded JSON text has no keys")),
        }
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

/// The traits of structs for [`Compound`]: each field written by [`Compound::field`].
macro_rules! structure {
    ($($trait:ident),*) => {
        $(
            impl ser::$trait for Compound<'_> {
                type Ok = ();
                type Error = Error;
                fn serialize_field<T: ?Sized + Serialize>(
                    &mut self,
                    key: &'static str,
                    value: &T,
                ) -> Result<(), Error> {
                    self.field(key, value)
                }
                fn end(self) -> Result<(), Error> {
                    self.close()
                }
            }
        )*
    };
}

structure!(SerializeStruct, SerializeStructVariant);

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

fn not_text() -> Error {
    ser::Error::custom("embedded JSON text must be a string")
}

/// Methods of a `Serializer` (named with their argument types) that refuse what they are
/// given with `$error`.
macro_rules! refuse {
    ($error:expr; $($method:ident($($ty:ty),*);)*) => {
        $(
            fn $method(self, $(_: $ty),*) -> Result<(), Error> {
                Err($error)
            }
        )*
    };
}

/// The types and compound methods of a `Serializer` of one scalar whose compounds are
/// `Impossible`, refusing with `$error`.
macro_rules! refuse_compounds {
    ($error:expr) => {
        type Ok = ();
        type Error = Error;
        type SerializeSeq = Impossible<(), Error>;
        type SerializeTuple = Impossible<(), Error>;
        type SerializeTupleStruct = Impossible<(), Error>;
        type SerializeTupleVariant = Impossible<(), Error>;
        type SerializeMap = Impossible<(), Error>;
        type SerializeStruct = Impossible<(), Error>;
        type SerializeStructVariant = Impossible<(), Error>;

        fn serialize_seq(self, _: Option<usize>) -> Result<Impossible<(), Error>, Error> {
            Err($error)
        }
        fn serialize_tuple(self, _: usize) -> Result<Impossible<(), Error>, Error> {
            Err($error)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Impossible<(), Error>, Error> {
            Err($error)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Impossible<(), Error>, Error> {
            Err($error)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Impossible<(), Error>, Error> {
            Err($error)
        }
        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Impossible<(), Error>, Error> {
            Err($error)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Impossible<(), Error>, Error> {
            Err($error)
        }
        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Error> {
            Err($error)
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), Error> {
            Err($error)
        }
    };
}

/// A map's key: a string, or a number or `true`/`false` written as one (as serde_json
/// writes keys).
struct Key<'a> {
    out: &'a mut Vec<u8>,
}

impl Key<'_> {
    fn integer<I: itoa::Integer>(self, value: I) -> Result<(), Error> {
        write_plain(self.out, itoa::Buffer::new().format(value).as_bytes());
        Ok(())
    }

    /// A finite float, quoted.
    fn float(
        self,
        finite: bool,
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if !finite {
            return Err(ser::Error::custom(
                "float key must be finite (got NaN or +/-inf)",
            ));
        }
        self.out.push(b'"');
        write(self.out)?;
        self.out.push(b'"');
        Ok(())
    }
}

impl ser::Serializer for Key<'_> {
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        write_plain(self.out, if v { b"true" } else { b"false" });
        Ok(())
    }
    integers! { Key::integer;
        serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64),
        serialize_i128(i128), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
        serialize_u64(u64), serialize_u128(u128)
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.float(v.is_finite(), |out| {
            ser::Serializer::serialize_f32(&mut serde_json::Serializer::new(out), v)
        })
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.float(v.is_finite(), |out| {
            ser::Serializer::serialize_f64(&mut serde_json::Serializer::new(out), v)
        })
    }
    strings!();

    refuse! { key_must_be_a_string();
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
    }
    refuse_compounds!(key_must_be_a_string());
}

/// The one field of embedded JSON text: the text, written as it is.
struct RawText<'a> {
    out: &'a mut Vec<u8>,
}

impl ser::Serializer for RawText<'_> {
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.out.write_all(v.as_bytes()).map_err(Error::io)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(not_text())
    }

    refuse! { not_text();
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    refuse_compounds!(not_text());
}

#[cfg(test)]
mod tests;
