//! Loading a module from a file in either form — PTX text or bytecode, told apart by the
//! bytecode's magic number ([`crate::binary::MAGIC`]) — and the bytecode round-trip check.
//!
//! Every `ptx` command that reads modules (`check`, `fmt`, `encode`, `decode`, `roundtrip`,
//! `run`) goes through [`read_input`] (most through [`load_path`]), so every one reads at most
//! [`DEFAULT_MAX_INPUT`] bytes of a file unless told otherwise (`--max-input`): a device such as
//! `/dev/zero` or an endless pipe fails at the limit instead of filling memory.

use crate::binary::{self, DecodeError, DecodeLimits};
use crate::ir::Module;
use crate::roundtrip::RoundTripError;
use crate::text::{self, ParseError};
use std::fmt;
use std::io::Read;
use std::path::Path;

/// The most bytes of a file that [`load_path`] and [`read_input`] read by default: 1 GiB, ten
/// times the largest PTX file seen (NCCL's, 110 MB). The bytecode decoder's limits are sized to
/// agree with it.
pub const DEFAULT_MAX_INPUT: u64 = 1 << 30;

/// The form a module was read from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// PTX text.
    Text,
    /// Bytecode (`.ptxb`).
    Bytecode,
}

/// A loaded module and the form it came in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// The module.
    pub module: Module,
    /// Its form on disk.
    pub form: Form,
}

/// Why a file could not be loaded. Displays as `FILE: error: ...` (text errors as
/// `FILE:LINE:COL: ...`).
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read.
    Io {
        /// The file.
        path: String,
        /// The error.
        error: std::io::Error,
    },
    /// The file is longer than the input limit.
    TooLarge {
        /// The file.
        path: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The text does not parse.
    Parse(ParseError),
    /// The bytecode does not decode.
    Decode {
        /// The file.
        path: String,
        /// The error.
        error: DecodeError,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io { path, error } => write!(f, "{path}: error: {error}"),
            LoadError::TooLarge { path, limit } => write!(
                f,
                "{path}: error: input larger than the limit of {limit} bytes"
            ),
            LoadError::Parse(e) => write!(f, "{e}"),
            LoadError::Decode { path, error } => {
                write!(f, "{path}: error: bad bytecode: {error}")
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// Loads a module from the contents of a file named `name` (used in messages): bytecode if the
/// bytes start with the magic number, PTX text otherwise. Bytecode is decoded under the default
/// [`DecodeLimits`].
pub fn load_bytes(bytes: &[u8], name: &str) -> Result<Loaded, LoadError> {
    load_bytes_with(bytes, name, &DecodeLimits::DEFAULT)
}

/// [`load_bytes`] with explicit decoder limits.
pub fn load_bytes_with(
    bytes: &[u8],
    name: &str,
    limits: &DecodeLimits,
) -> Result<Loaded, LoadError> {
    if binary::is_bytecode(bytes) {
        let module = binary::decode_with(bytes, limits).map_err(|error| LoadError::Decode {
            path: name.to_string(),
            error,
        })?;
        return Ok(Loaded {
            module,
            form: Form::Bytecode,
        });
    }
    let module = text::parse_bytes(bytes, name).map_err(LoadError::Parse)?;
    Ok(Loaded {
        module,
        form: Form::Text,
    })
}

/// Loads the module in the file at `path`, in either form, reading at most
/// [`DEFAULT_MAX_INPUT`] bytes.
pub fn load_path(path: &Path) -> Result<Loaded, LoadError> {
    load_path_with(path, DEFAULT_MAX_INPUT, &DecodeLimits::DEFAULT)
}

/// [`load_path`] with an explicit input limit (in bytes) and decoder limits.
pub fn load_path_with(
    path: &Path,
    max_input: u64,
    limits: &DecodeLimits,
) -> Result<Loaded, LoadError> {
    let name = path.display().to_string();
    let bytes = read_input(path, max_input)?;
    load_bytes_with(&bytes, &name, limits)
}

/// The bytes of the file at `path`, at most `max_input` of them: a longer file (or device, or
/// pipe) is [`LoadError::TooLarge`] after reading one byte past the limit, or before reading
/// anything when its size is known.
pub fn read_input(path: &Path, max_input: u64) -> Result<Vec<u8>, LoadError> {
    let name = || path.display().to_string();
    let io = |error| LoadError::Io {
        path: name(),
        error,
    };
    let too_large = || LoadError::TooLarge {
        path: name(),
        limit: max_input,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    // A regular file's length is known (a device's or a pipe's reads 0): refuse it unread, and
    // read it into one allocation of its size.
    let known = file.metadata().map(|m| m.len()).unwrap_or(0);
    if known > max_input {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(known).unwrap_or(0));
    file.take(max_input.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max_input {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Checks that `m` survives IR -> bytecode -> IR unchanged, that encoding is deterministic, and
/// that the decoded module prints the same text.
pub fn check_bytecode(m: &Module) -> Result<(), RoundTripError> {
    let bytes = binary::encode(m).map_err(RoundTripError::Encode)?;
    let again = binary::encode(m).map_err(RoundTripError::Encode)?;
    if bytes != again {
        return Err(RoundTripError::NotDeterministic);
    }
    let m2 = binary::decode(&bytes).map_err(RoundTripError::Decode)?;
    if &m2 != m {
        return Err(RoundTripError::DecodedDiffers(
            crate::roundtrip::first_difference(m, &m2),
        ));
    }
    if text::print(&m2) != text::print(m) {
        return Err(RoundTripError::DecodedPrintsDifferently);
    }
    Ok(())
}
