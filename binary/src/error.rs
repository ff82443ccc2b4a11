//! Decoding and encoding errors.

use std::fmt;

/// The part of a bytecode file an error is in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    /// The fixed header (magic, version, codec, fingerprint, checksum).
    Header,
    /// The string table.
    Strings,
    /// The module body.
    Body,
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Section::Header => "header",
            Section::Strings => "string table",
            Section::Body => "module body",
        })
    }
}

/// Why a byte string is not a valid bytecode module. Offsets are byte offsets in the file for
/// [`Section::Header`] and in the section's decoded bytes otherwise (they are the same bytes
/// when the file is stored uncompressed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input does not start with the bytecode magic number.
    #[error("not ptx-ir bytecode (bad magic number)")]
    BadMagic,
    /// The format version is not the one this build reads.
    #[error("unsupported bytecode format version {found} (this build reads version {supported})")]
    UnsupportedVersion {
        /// The version in the file.
        found: u16,
        /// The version this build reads and writes.
        supported: u16,
    },
    /// The file numbers opcodes, modifiers and special registers differently from this build
    /// (see [`crate::table_fingerprint`]).
    #[error(
        "bytecode written for a different instruction table (fingerprint {found:#018x}, \
         this build has {expected:#018x}); re-encode it from the PTX text"
    )]
    TableMismatch {
        /// The fingerprint in the file.
        found: u64,
        /// This build's fingerprint.
        expected: u64,
    },
    /// An unknown compression codec or a non-zero reserved header byte.
    #[error("unsupported {what} {value} in the header")]
    UnsupportedHeader {
        /// Which header field.
        what: &'static str,
        /// Its value.
        value: u8,
    },
    /// The input ends early.
    #[error(
        "truncated at offset {offset} ({section}: {needed} more bytes needed{})",
        at(path)
    )]
    Truncated {
        /// The section being read.
        section: Section,
        /// Where the input ends.
        offset: usize,
        /// How many more bytes the read that failed needed.
        needed: usize,
        /// Where in the IR (empty outside the IR).
        path: String,
    },
    /// Bytes after the end of a section's value or of the file.
    #[error("{count} trailing bytes at offset {offset} after the {section}")]
    TrailingBytes {
        /// The section they follow.
        section: Section,
        /// Where they start.
        offset: usize,
        /// How many.
        count: usize,
    },
    /// The stored checksum does not match the contents.
    #[error(
        "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file is corrupt"
    )]
    Checksum {
        /// The checksum in the header.
        stored: u32,
        /// The checksum of the contents.
        computed: u32,
    },
    /// A length (sequence, string, section) larger than what remains of the input.
    #[error(
        "length {len} too large in the {section} (at most {budget} possible){}",
        at(path)
    )]
    LengthTooLarge {
        /// The section.
        section: Section,
        /// The length in the file.
        len: u64,
        /// The most it could be.
        budget: u64,
        /// Where in the IR.
        path: String,
    },
    /// A configured limit ([`crate::DecodeLimits`]) is exceeded.
    #[error("{what} exceeds the decoder limit of {limit}")]
    LimitExceeded {
        /// Which limit.
        what: &'static str,
        /// Its value.
        limit: u64,
    },
    /// Values nest deeper than [`crate::DecodeLimits::max_depth`].
    #[error("nesting deeper than {limit} levels in the {section}{}", at(path))]
    TooDeep {
        /// The section.
        section: Section,
        /// The limit.
        limit: u32,
        /// Where in the IR.
        path: String,
    },
    /// An enum tag (opcode, modifier, statement kind, ...) outside its enum.
    #[error(
        "invalid tag {found} for {ty} (it has {count} variants) in the {section}{}",
        at(path)
    )]
    InvalidTag {
        /// The section.
        section: Section,
        /// The enum.
        ty: &'static str,
        /// The tag in the file.
        found: u64,
        /// How many variants the enum has.
        count: usize,
        /// Where in the IR.
        path: String,
    },
    /// A compressed section does not decompress.
    #[error("corrupt compressed {section}: {detail}")]
    Corrupt {
        /// The section.
        section: Section,
        /// The decompressor's message.
        detail: String,
    },
    /// Any other malformed value (bad UTF-8, a zero name, a duplicate string, ...).
    #[error("invalid {section}: {detail}{}", at(path))]
    Invalid {
        /// The section.
        section: Section,
        /// What is wrong.
        detail: String,
        /// Where in the IR.
        path: String,
    },
    /// The module decodes but breaks an IR invariant (see [`crate::validate`]).
    #[error("invalid module: {detail} at {path}")]
    InvalidIr {
        /// What is wrong.
        detail: String,
        /// Where in the module.
        path: String,
    },
}

fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" at {path}")
    }
}

/// Why a module could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// A section or the file is larger than the decoder's limits allow
    /// ([`crate::DecodeLimits::max_section`], [`crate::DecodeLimits::max_input`]; by default the
    /// format's own, [`crate::MAX_SECTION`]).
    #[error("the {what} ({section}) would be {len} bytes, above the decoder's limit of {limit}")]
    TooLarge {
        /// `"section"` or `"file"`.
        what: &'static str,
        /// The section (the body for the file).
        section: Section,
        /// Its size.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// The module breaks an invariant the decoder checks ([`crate::validate`]), so its
    /// bytecode would not decode.
    #[error("invalid module: {detail} at {path}")]
    Invalid {
        /// What is wrong.
        detail: String,
        /// Where in the module.
        path: String,
    },
    /// The wire format failed (does not happen when writing to memory).
    #[error("encoding failed: {0}")]
    Wire(String),
}
