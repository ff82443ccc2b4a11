//! The wire format: how one serde value becomes bytes and back. This is the only module that
//! knows the format is bincode 2; swapping it (for postcard, say) means rewriting this file and
//! bumping [`crate::FORMAT_VERSION`].
//!
//! Configuration: bincode 2's standard configuration — little endian, variable-length integers
//! (values below 251 take one byte; `u16`/`u32`/`u64` values above take 3, 5 or 9 bytes; signed
//! integers are zig-zag encoded first), enum tags as varint `u32` variant indices, sequence
//! lengths as varint `u64`, strings as a length and UTF-8 bytes — plus a byte limit (bincode's
//! limit is a compile-time constant, [`BINCODE_LIMIT`]; the run-time limits are enforced around
//! it, see the crate's guard module and [`crate::DecodeLimits`]).

use crate::columns::state::{take_fault, Fault};
use crate::error::{DecodeError, Section};
use crate::guard::{Guarded, State, Stop};
use bincode::config::{self, Configuration, LittleEndian, Varint};
use serde::de::DeserializeSeed;
use serde::Serialize;

/// bincode's own limit on the bytes one decode may claim. bincode counts every decoded primitive
/// at its in-memory size (an `i64` claims 8 bytes even when its varint took one) and checks every
/// string length against it before reading, so this is a backstop above anything the default
/// [`crate::DecodeLimits`] admit (sections of at most 64 MiB, claiming at most 8 bytes per byte);
/// the bounds that matter are enforced at run time by the guard and the container.
pub const BINCODE_LIMIT: usize = 1 << 31;

type Config = Configuration<LittleEndian, Varint, config::Limit<BINCODE_LIMIT>>;

const CONFIG: Config = config::standard().with_limit::<BINCODE_LIMIT>();

/// Appends the encoding of `value` to `out`.
pub fn encode_into<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), String> {
    bincode::serde::encode_into_std_write(value, out, CONFIG)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Decodes one value from all of `bytes` through `seed`, under the guard (depth limit, length
/// budget, borrowed strings). `base` is the offset of `bytes` in the file, for error messages.
pub fn decode<'de, S: DeserializeSeed<'de>>(
    seed: S,
    bytes: &'de [u8],
    section: Section,
    base: usize,
    max_depth: u32,
) -> Result<S::Value, DecodeError> {
    let st = State::new(bytes.len(), max_depth);
    match bincode::serde::seed_decode_from_slice(Guarded::new(seed, &st), bytes, CONFIG) {
        Ok((v, used)) if used == bytes.len() => Ok(v),
        Ok((_, used)) => Err(DecodeError::TrailingBytes {
            section,
            offset: base + used,
            count: bytes.len() - used,
        }),
        Err(e) => Err(map_error(e, &st, section, base + bytes.len())),
    }
}

fn map_error(
    e: bincode::error::DecodeError,
    st: &State,
    section: Section,
    end: usize,
) -> DecodeError {
    use bincode::error::DecodeError as B;
    let path = st.path();
    // The columns' faults are kept typed beside serde's string error.
    if let Some(f) = take_fault() {
        return match f {
            Fault::TooDeep { limit, .. } => DecodeError::TooDeep {
                section,
                limit,
                path,
            },
            Fault::Invalid(detail) => DecodeError::Invalid {
                section,
                detail,
                path,
            },
        };
    }
    if let Some(stop) = st.stop() {
        return match stop {
            Stop::TooDeep { limit } => DecodeError::TooDeep {
                section,
                limit,
                path,
            },
            Stop::TooLong { len, budget } => DecodeError::LengthTooLarge {
                section,
                len,
                budget,
                path,
            },
            Stop::BadTag { ty, found, count } => DecodeError::InvalidTag {
                section,
                ty,
                found: found.into(),
                count,
                path,
            },
        };
    }
    match e {
        B::UnexpectedEnd { additional } => DecodeError::Truncated {
            section,
            offset: end,
            needed: additional,
            path,
        },
        B::UnexpectedVariant {
            type_name, found, ..
        } => DecodeError::InvalidTag {
            section,
            ty: type_name,
            found: found.into(),
            count: 2,
            path,
        },
        B::InvalidBooleanValue(b) => DecodeError::InvalidTag {
            section,
            ty: "bool",
            found: b.into(),
            count: 2,
            path,
        },
        B::OutsideUsizeRange(len) => DecodeError::LengthTooLarge {
            section,
            len,
            budget: u64::MAX,
            path,
        },
        B::LimitExceeded => DecodeError::LimitExceeded {
            what: "bincode byte limit",
            limit: BINCODE_LIMIT as u64,
        },
        B::Utf8 { .. } => DecodeError::Invalid {
            section,
            detail: "string is not valid UTF-8".into(),
            path,
        },
        B::InvalidIntegerType { .. } => DecodeError::Invalid {
            section,
            detail: "malformed variable-length integer".into(),
            path,
        },
        B::OtherString(detail) => DecodeError::Invalid {
            section,
            detail,
            path,
        },
        other => DecodeError::Invalid {
            section,
            detail: other.to_string(),
            path,
        },
    }
}
