//! Serde helpers that write byte arrays of the IR (packed initialisers) as byte strings, which binary formats copy whole, instead of as sequences of numbers decoded one
//! by one.

use crate::body::Blob;
use serde::{Deserialize, Deserializer, Serializer};

/// `#[serde(with = "crate::bytes::boxed")]` for `Box<[u8]>`.
pub(crate) mod boxed {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u8]>, D::Error> {
        Blob::deserialize(d).map(|b| b.0.into_owned().into_boxed_slice())
    }
}
