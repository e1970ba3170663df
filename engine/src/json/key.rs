//! A map's key, written as serde_json writes keys: a string, or a number or
//! `true`/`false` as a string.

use serde::ser::{self, Impossible, Serialize};
use serde_json::Error;

use super::text::{write_plain, write_str};

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

/// A map's key: a string, or a number or `true`/`false` written as one (as serde_json
/// writes keys).
pub(super) struct Key<'a> {
    pub(super) out: &'a mut Vec<u8>,
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
