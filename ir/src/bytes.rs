//! Serde helpers that write byte arrays of the IR (packed initialisers, section byte lines) as
//! byte strings, which binary formats copy whole, instead of as sequences of numbers decoded one
//! by one.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serializer};
use std::fmt;

/// A byte string read through serde: from `deserialize_bytes` when the format has byte
/// strings, or from a sequence of numbers (JSON).
pub(crate) struct Blob(pub(crate) Vec<u8>);

impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Blob, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Blob;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Blob, E> {
                Ok(Blob(v.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Blob, E> {
                Ok(Blob(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Blob, A::Error> {
                let mut v = Vec::new();
                while let Some(b) = a.next_element::<u8>()? {
                    v.push(b);
                }
                Ok(Blob(v))
            }
        }
        d.deserialize_bytes(V)
    }
}

/// `#[serde(with = "crate::bytes::boxed")]` for `Box<[u8]>`.
pub(crate) mod boxed {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u8]>, D::Error> {
        Blob::deserialize(d).map(|b| b.0.into_boxed_slice())
    }
}
