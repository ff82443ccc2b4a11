//! Loading a module from a file in either form — PTX text or bytecode, told apart by the
//! bytecode's magic number ([`crate::binary::MAGIC`]) — and the bytecode round-trip check.
//!
//! Every `ptx` command that reads modules (`check`, `fmt`, `encode`, `decode`, `roundtrip`)
//! goes through [`load_path`], so a command added later (`run`) accepts both forms by calling
//! it too.

use crate::binary::{self, DecodeError, DecodeLimits};
use crate::ir::Module;
use crate::text::{self, ParseError};
use std::fmt;
use std::path::Path;

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
    /// The file is neither bytecode nor UTF-8 text.
    NotUtf8 {
        /// The file.
        path: String,
        /// The decoding error.
        error: std::str::Utf8Error,
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
            LoadError::NotUtf8 { path, error } => {
                write!(
                    f,
                    "{path}: error: neither bytecode nor UTF-8 text ({error})"
                )
            }
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
    let src = std::str::from_utf8(bytes).map_err(|error| LoadError::NotUtf8 {
        path: name.to_string(),
        error,
    })?;
    let module = text::parse_file(src, name).map_err(LoadError::Parse)?;
    Ok(Loaded {
        module,
        form: Form::Text,
    })
}

/// Loads the module in the file at `path`, in either form.
pub fn load_path(path: &Path) -> Result<Loaded, LoadError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|error| LoadError::Io {
        path: name.clone(),
        error,
    })?;
    load_bytes(&bytes, &name)
}

/// Checks that `m` survives IR -> bytecode -> IR unchanged, that encoding is deterministic, and
/// that the decoded module prints the same text; `Err` says what broke.
pub fn check_bytecode(m: &Module) -> Result<(), String> {
    let bytes = binary::encode(m).map_err(|e| format!("bytecode: encoding failed: {e}"))?;
    let again = binary::encode(m).map_err(|e| format!("bytecode: encoding failed: {e}"))?;
    if bytes != again {
        return Err("bytecode: encoding is not deterministic".into());
    }
    let m2 = binary::decode(&bytes).map_err(|e| format!("bytecode: decoding failed: {e}"))?;
    if &m2 != m {
        return Err(format!(
            "bytecode: IR differs after decoding: {}",
            crate::roundtrip::first_difference(m, &m2)
        ));
    }
    if text::print(&m2) != text::print(m) {
        return Err("bytecode: decoded module prints differently".into());
    }
    Ok(())
}
