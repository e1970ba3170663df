//! Macros that write the methods a `Serializer` shares: integers, text, and the
//! refusals of a serializer that takes one kind of scalar. They name `Error`,
//! `Serialize`, `Impossible` and `write_str` as the module that uses them imports them.

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
