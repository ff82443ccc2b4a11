//! `ptx-ir-binary`: a versioned, compact bytecode for the `ptx-ir` IR, and a decoder that is safe
//! on hostile input.
//!
//! ```
//! # use ptx_ir_core::{Module, Version, Target, ArchSuffix};
//! let m = Module::new(Version { major: 8, minor: 0 }, vec![Target::Sm { arch: 90, suffix: ArchSuffix::A }], Some(64));
//! let bytes = ptx_ir_binary::encode(&m).unwrap();
//! assert!(ptx_ir_binary::is_bytecode(&bytes));
//! assert_eq!(ptx_ir_binary::decode(&bytes).unwrap(), m);
//! assert!(ptx_ir_binary::decode(&bytes[..bytes.len() - 1]).is_err());
//! ```
//!
//! The layout, the compatibility rule and the measurements are in `binary/FORMAT.md`. In short:
//! a fixed 24-byte header (magic number, [`FORMAT_VERSION`], codec, [`table_fingerprint`],
//! CRC-32) followed by two sections, the string table and the module body, each the bincode 2
//! encoding (through the IR's serde derives; `FORMAT.md`, "Values") of its value, optionally compressed.
//!
//! Decoding any byte string returns `Ok` or a [`DecodeError`]; it never panics, allocates at most
//! a bounded multiple of the input size, and always terminates. The bounds are in
//! [`DecodeLimits`]; a decoded module also satisfies the invariants of [`validate`].

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod codec;
mod columns;
mod crc;
mod error;
mod guard;
mod items;
mod leb;
mod validate;
mod wire;

pub use codec::{release_thread_scratch, Codec};
pub use error::{DecodeError, EncodeError, Section};
pub use validate::{validate, Invalid, MAX_NESTING, MAX_SERDE_DEPTH};

use columns::state::Blob;
use ptx_ir_core::{ConcatError, Interner, Item, Module, Target, Version};
use serde::de::{Deserialize, DeserializeSeed, Deserializer, Error as _};
use serde::{Serialize, Serializer};
use std::borrow::Cow;

/// The first eight bytes of every bytecode file: `\x89PTXB\r\n\x1a`. The first byte is not
/// ASCII (and not valid UTF-8 at the start of text), so no PTX text file starts with it; the
/// `\r\n` and `\x1a` catch line-ending conversion and `type` on DOS, as in PNG.
pub const MAGIC: [u8; 8] = *b"\x89PTXB\r\n\x1a";

/// The format version this build writes and reads. Bump it for any change to the layout or to
/// the IR's serialized shape (see `FORMAT.md`).
pub const FORMAT_VERSION: u16 = 4;

/// Size of the fixed header.
pub const HEADER_LEN: usize = 24;

/// The largest section the format holds: a frame's stored length has 31 bits, and a stored
/// section's decoded size is its stored size. The default [`DecodeLimits`] admit it, so that the
/// encoder and the default decoder draw the line at the same place.
pub const MAX_SECTION: usize = (1 << 31) - 1;

/// Bounds on what decoding may do, all checked before the work or allocation they bound.
///
/// The encoder refuses exactly the modules the default limits would refuse ([`encode`]), or
/// those a given set would ([`encode_with_limits`]): every file it writes decodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Largest input accepted, in bytes.
    pub max_input: usize,
    /// Largest decoded (decompressed) size of one section, in bytes.
    pub max_section: usize,
    /// Largest ratio of a section's decoded size to its stored (compressed) size. The encoder
    /// stores a section uncompressed when it would compress better than the default, so every
    /// encoder output passes the default limits.
    pub max_expansion: u32,
    /// Deepest nesting of values (structs, sequences, enums, options) in a section.
    pub max_depth: u32,
    /// Whether to verify the CRC-32 of the sections. Turning it off is for fuzzing the decoder
    /// behind the checksum; the other limits still hold.
    pub verify_checksum: bool,
}

impl DecodeLimits {
    /// The default limits.
    pub const DEFAULT: DecodeLimits = DecodeLimits {
        // The largest file the format can express: the header and two frames of the largest
        // section. The memory a decode takes is bounded per input byte (FORMAT.md), so a
        // caller that wants a tighter bound lowers these.
        max_input: HEADER_LEN + 2 * (8 + MAX_SECTION),
        max_section: MAX_SECTION,
        max_expansion: 32,
        // Every valid module (the deepest expression in the deepest initialiser lists).
        max_depth: MAX_SERDE_DEPTH,
        verify_checksum: true,
    };
}

// bincode's own limit is a backstop above the largest section.
const _: () = assert!(MAX_SECTION < wire::BINCODE_LIMIT);

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits::DEFAULT
    }
}

/// Whether `bytes` starts with the bytecode magic number (and so is not PTX text).
pub fn is_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// The header's table fingerprint: which numbering of opcodes ([`Opcode::code`]), modifiers
/// ([`Modifier::code`]) and special registers the file uses. Numbers are only ever appended
/// (`binary/tests/numbering.txt` pins every one, and its test fails on a changed number), so a
/// file written before an instruction, qualifier or register was added still decodes; a file
/// with another fingerprint is rejected ([`DecodeError::TableMismatch`]) instead of decoding to
/// the wrong instructions.
///
/// [`Opcode::code`]: ptx_ir_core::Opcode::code
/// [`Modifier::code`]: ptx_ir_core::Modifier::code
pub fn table_fingerprint() -> u64 {
    // FNV-1a, 64 bit, of the numbering's name: changed only by a renumbering, which the
    // numbering test forbids.
    const NUMBERING: &str = "ptx-ir stable numbering 1";
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in NUMBERING.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The encoded body: the module without its string table.
#[derive(Serialize)]
struct BodyRef<'a> {
    version: &'a Version,
    target: &'a [Target],
    address_size: &'a Option<u32>,
    #[serde(with = "items")]
    items: &'a [Item],
}

#[derive(serde::Deserialize)]
struct Body {
    version: Version,
    target: Vec<Target>,
    address_size: Option<u32>,
    #[serde(with = "items")]
    items: Vec<Item>,
}

/// The string table: the length of each name (LEB128, in name order), then every name's bytes
/// end to end, as two byte strings.
struct Strings<'a>(&'a Interner);

impl Serialize for Strings<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut lens = Vec::with_capacity(self.0.len());
        let mut bytes = Vec::new();
        for (_, name) in self.0.iter() {
            leb::put(&mut lens, name.len() as u64);
            bytes.extend_from_slice(name.as_bytes());
        }
        (Blob(Cow::Owned(lens)), Blob(Cow::Owned(bytes))).serialize(s)
    }
}

/// Decodes the string table straight into an interner: one UTF-8 check for all the bytes and
/// one hash per name (for duplicates), and each name's spelling checked as the reader reads
/// one while the bytes are at hand. Also says whether a name is one no operand may hold (a
/// section name or `_`).
struct StringsSeed;

impl<'de> DeserializeSeed<'de> for StringsSeed {
    type Value = (Interner, bool);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(Interner, bool), D::Error> {
        let (lens, bytes) = <(Blob<'de>, Blob<'de>)>::deserialize(d)?;
        // Every length takes at least a byte, so `ends` is bounded by the section's size.
        let mut ends = Vec::with_capacity(lens.0.len());
        let (mut end, mut i) = (0usize, 0usize);
        let lens = &lens.0[..];
        while i < lens.len() {
            let Some(n) = leb::get(lens, &mut i).and_then(|n| usize::try_from(n).ok()) else {
                return Err(D::Error::custom(format!(
                    "a bad length for name {} in the string table",
                    ends.len()
                )));
            };
            end = end.saturating_add(n);
            ends.push(end);
        }
        let text = String::from_utf8(bytes.0.into_owned())
            .map_err(|e| D::Error::custom(format!("a name is not UTF-8: {e}")))?;
        let mut odd = false;
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            let Some(name) = text.as_bytes().get(start..end) else {
                break; // The interner reports the bad lengths.
            };
            odd |= name.first() == Some(&b'.') || name == b"_";
            if !validate::is_name(name) {
                return Err(D::Error::custom(format!(
                    "name {i} ({:?}) is not an identifier or a section name",
                    String::from_utf8_lossy(name)
                )));
            }
            start = end;
        }
        let names = Interner::from_concatenated(text, ends).map_err(|e| match e {
            ConcatError::Duplicate(i) => {
                D::Error::custom(format!("duplicate name {i} in the string table"))
            }
            e => D::Error::custom(format!("the string table's lengths: {e}")),
        })?;
        Ok((names, odd))
    }
}

/// Deserializes `T` (the seed the wire module wraps in the guard).
struct Plain<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Plain<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

fn plain<T>() -> Plain<T> {
    Plain(std::marker::PhantomData)
}

/// Encodes `m` with the default codec ([`Codec::DEFAULT`]).
pub fn encode(m: &Module) -> Result<Vec<u8>, EncodeError> {
    encode_with(m, Codec::DEFAULT)
}

/// Encodes `m` with `codec`. The same module and codec always give the same bytes.
pub fn encode_with(m: &Module, codec: Codec) -> Result<Vec<u8>, EncodeError> {
    encode_with_limits(m, codec, &DecodeLimits::DEFAULT)
}

/// Encodes `m` with `codec` without checking it against [`validate`] or the default limits
/// beyond what the format can express: for testing the decoder on modules it must refuse (the
/// file may not decode). Use [`encode`] otherwise.
pub fn encode_unvalidated(m: &Module, codec: Codec) -> Result<Vec<u8>, EncodeError> {
    write(m, codec, &DecodeLimits::DEFAULT)
}

/// Encodes `m` with `codec` into a file that [`decode_with`] accepts under `limits`, or refuses
/// it. Names are written numbered in order of first use, as the reader numbers them (a module
/// whose interner holds them in another order, or holds unused ones, decodes renumbered). It
/// refuses a module that breaks an invariant of [`validate`] (nesting past the reader's bounds
/// included), a section larger than `limits.max_section` or a file larger than
/// `limits.max_input`. Sections that would expand past `limits.max_expansion` are stored.
/// (`limits.max_depth` below the default can still refuse a module that validates.)
pub fn encode_with_limits(
    m: &Module,
    codec: Codec,
    limits: &DecodeLimits,
) -> Result<Vec<u8>, EncodeError> {
    validate(m).map_err(|e| EncodeError::Invalid {
        detail: e.detail,
        path: e.path,
    })?;
    // The decoder requires names numbered as the reader numbers them (so that a decoded module
    // reads back from its text); a module built otherwise is written renumbered.
    if validate::names_in_reading_order(m).is_err() {
        let mut m = m.clone();
        if ptx_ir_core::visit::renumber_names(&mut m).is_err() {
            return Err(EncodeError::Invalid {
                detail: "a name outside the string table".into(),
                path: "names".into(),
            });
        }
        return write(&m, codec, limits);
    }
    write(m, codec, limits)
}

/// Writes the file of `m`, refusing sections and files past `limits`.
fn write(m: &Module, codec: Codec, limits: &DecodeLimits) -> Result<Vec<u8>, EncodeError> {
    let mut strings = Vec::new();
    wire::encode_into(&Strings(&m.names), &mut strings).map_err(EncodeError::Wire)?;
    let mut body = Vec::with_capacity(m.instruction_count() * 12 + 64);
    wire::encode_into(
        &BodyRef {
            version: &m.version,
            target: &m.target,
            address_size: &m.address_size,
            items: &m.items,
        },
        &mut body,
    )
    .map_err(EncodeError::Wire)?;

    let mut out = Vec::with_capacity(HEADER_LEN + 16 + strings.len() + body.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(codec.id());
    out.push(0);
    out.extend_from_slice(&table_fingerprint().to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    for (section, raw) in [(Section::Strings, &strings), (Section::Body, &body)] {
        let limit = limits.max_section.min(MAX_SECTION);
        if raw.len() > limit {
            return Err(EncodeError::TooLarge {
                what: "section",
                section,
                len: raw.len(),
                limit,
            });
        }
        // Below 2^31 (MAX_SECTION), and the stored bytes are at most as many.
        let raw_len = raw.len() as u32;
        let at = out.len();
        out.extend_from_slice(&raw_len.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        let used = codec::compress(codec, raw, &mut out, limits.max_expansion);
        let stored = (out.len() - at - 8) as u32;
        let flag = if used { 0 } else { 1 << 31 };
        out[at + 4..at + 8].copy_from_slice(&(stored | flag).to_le_bytes());
    }
    if out.len() > limits.max_input {
        return Err(EncodeError::TooLarge {
            what: "file",
            section: Section::Body,
            len: out.len(),
            limit: limits.max_input,
        });
    }
    let crc = checksum(&out);
    out[20..24].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// The CRC-32 of a file: every byte but the checksum field itself.
fn checksum(file: &[u8]) -> u32 {
    crc::crc32(&[&file[..20], &file[HEADER_LEN..]])
}

/// Decodes a module with the default limits.
pub fn decode(bytes: &[u8]) -> Result<Module, DecodeError> {
    decode_with(bytes, &DecodeLimits::DEFAULT)
}

/// Decodes a module under `limits`.
pub fn decode_with(bytes: &[u8], limits: &DecodeLimits) -> Result<Module, DecodeError> {
    let truncated = |needed: usize| DecodeError::Truncated {
        section: Section::Header,
        offset: bytes.len(),
        needed,
        path: String::new(),
    };
    // Magic: a strict prefix of it is a truncated file, anything else is not bytecode.
    let n = bytes.len().min(MAGIC.len());
    if bytes[..n] != MAGIC[..n] {
        return Err(DecodeError::BadMagic);
    }
    if bytes.len() > limits.max_input {
        return Err(DecodeError::LimitExceeded {
            what: "input size",
            limit: limits.max_input as u64,
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(truncated(HEADER_LEN - bytes.len()));
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != FORMAT_VERSION {
        return Err(DecodeError::UnsupportedVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    let codec = Codec::from_id(bytes[10]).ok_or(DecodeError::UnsupportedHeader {
        what: "codec",
        value: bytes[10],
    })?;
    if bytes[11] != 0 {
        return Err(DecodeError::UnsupportedHeader {
            what: "reserved byte",
            value: bytes[11],
        });
    }
    let fp = u64::from_le_bytes(bytes[12..20].try_into().unwrap_or_default());
    if fp != table_fingerprint() {
        return Err(DecodeError::TableMismatch {
            found: fp,
            expected: table_fingerprint(),
        });
    }
    let stored_crc = u32::from_le_bytes(bytes[20..24].try_into().unwrap_or_default());

    // Section frames: check every length against the input before reading or allocating.
    let mut pos = HEADER_LEN;
    let mut frames = [(0usize, 0usize, 0usize, false); 2];
    for (k, section) in [Section::Strings, Section::Body].into_iter().enumerate() {
        if bytes.len() - pos < 8 {
            return Err(DecodeError::Truncated {
                section,
                offset: bytes.len(),
                needed: 8 - (bytes.len() - pos),
                path: String::new(),
            });
        }
        let raw = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap_or_default()) as usize;
        let word = u32::from_le_bytes(bytes[pos + 4..pos + 8].try_into().unwrap_or_default());
        let stored = (word & !(1 << 31)) as usize;
        let compressed = word & (1 << 31) == 0 && codec != Codec::Stored;
        pos += 8;
        if bytes.len() - pos < stored {
            return Err(DecodeError::Truncated {
                section,
                offset: bytes.len(),
                needed: stored - (bytes.len() - pos),
                path: String::new(),
            });
        }
        if raw > limits.max_section {
            return Err(DecodeError::LimitExceeded {
                what: "decoded section size",
                limit: limits.max_section as u64,
            });
        }
        if !compressed && raw != stored {
            return Err(DecodeError::Invalid {
                section,
                detail: format!("stored section of {stored} bytes declares {raw} decoded bytes"),
                path: String::new(),
            });
        }
        if compressed && raw as u64 > stored as u64 * limits.max_expansion as u64 {
            return Err(DecodeError::LimitExceeded {
                what: "section expansion ratio",
                limit: limits.max_expansion as u64,
            });
        }
        frames[k] = (pos, stored, raw, compressed);
        pos += stored;
    }
    if pos != bytes.len() {
        return Err(DecodeError::TrailingBytes {
            section: Section::Body,
            offset: pos,
            count: bytes.len() - pos,
        });
    }
    if limits.verify_checksum {
        let computed = checksum(bytes);
        if computed != stored_crc {
            return Err(DecodeError::Checksum {
                stored: stored_crc,
                computed,
            });
        }
    }

    let mut scratch = codec::take_scratch();
    let (src, base) = section(bytes, frames[0], codec, Section::Strings, &mut scratch)?;
    let (names, odd_names) =
        wire::decode(StringsSeed, src, Section::Strings, base, limits.max_depth)?;
    let (src, base) = section(bytes, frames[1], codec, Section::Body, &mut scratch)?;
    // Bodies are checked as they are decoded, so that validation need not walk them again.
    let body: Body = columns::with_decode_bounds(
        names.len(),
        ptx_ir_core::limits::MAX_OPERAND_DEPTH,
        ptx_ir_core::limits::MAX_SCOPE_DEPTH,
        validate::body_entry,
        || wire::decode(plain::<Body>(), src, Section::Body, base, limits.max_depth),
    )?;
    codec::keep_scratch(scratch);
    let m = Module {
        names,
        version: body.version,
        target: body.target,
        address_size: body.address_size,
        items: body.items,
    };
    validate::validate_decoded(&m, odd_names).map_err(|e| DecodeError::InvalidIr {
        detail: e.detail,
        path: e.path,
    })?;
    Ok(m)
}

/// The decoded bytes of one section and their offset in the file (0 when decompressed).
fn section<'a>(
    bytes: &'a [u8],
    (at, stored, raw, compressed): (usize, usize, usize, bool),
    codec: Codec,
    section: Section,
    scratch: &'a mut Vec<u8>,
) -> Result<(&'a [u8], usize), DecodeError> {
    let src = &bytes[at..at + stored];
    if !compressed {
        return Ok((src, at));
    }
    codec::decompress_into(codec, src, raw, scratch)
        .map_err(|detail| DecodeError::Corrupt { section, detail })?;
    Ok((&scratch[..], 0))
}
