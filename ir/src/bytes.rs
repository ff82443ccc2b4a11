//! Serde helpers that write byte arrays of the IR (packed initialisers, debug-section bytes) as
//! byte strings, which binary formats copy whole, instead of as sequences of numbers decoded one
//! by one.

use crate::body::Blob;
use serde::{Deserialize, Deserializer, Serializer};
use smallvec::SmallVec;

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

/// `#[serde(with = "crate::bytes::small")]` for `SmallVec<[u8; 16]>`.
pub(crate) mod small {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<SmallVec<[u8; 16]>, D::Error> {
        Blob::deserialize(d).map(|b| SmallVec::from_slice(&b.0))
    }
}
