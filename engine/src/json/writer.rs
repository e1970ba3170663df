//! The serializer of [`super::to_vec`]: values, arrays and objects, and JSON text
//! embedded as it is (a [`super::RawJson`]).

use std::io::Write as _;

use serde::ser::{self, Impossible, Serialize};
use serde_json::Error;

use super::key::Key;
use super::text::{write_integer, write_str, write_unsigned};
use super::RAW_TOKEN;

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

/// The serializer: writes into `out`.
pub(super) struct Writer<'a> {
    pub(super) out: &'a mut Vec<u8>,
}

/// An array, an object, or JSON text embedded as it is.
pub(super) enum Compound<'a> {
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

fn not_text() -> Error {
    ser::Error::custom("embedded JSON text must be a string")
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
