//! PTX text for the `ptx-ir` IR: a nom-based reader with located diagnostics and a printer that
//! produces canonical PTX.
//!
//! ```
//! let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
//!            .visible .entry k() { ret; }\n";
//! let module = ptx_ir_text::parse(src).unwrap();
//! let printed = ptx_ir_text::print(&module);
//! assert_eq!(ptx_ir_text::parse(&printed).unwrap(), module);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod error;
mod lex;
mod print;
mod read;
mod spans;

pub use error::ParseError;
pub use print::{print, write_module};
use ptx_ir_core::Module;
pub use spans::Spans;

/// Frees the scratch memory the reader keeps on the calling thread between modules (its
/// function-body builder and name caches: a few hundred KiB, at most 8 MiB after a very large
/// function). Reading keeps them so that the next module does not fault in fresh pages; a
/// long-lived thread that is done reading can give them back.
pub fn release_thread_scratch() {
    read::release_spare();
}

/// Reads a module; errors name the file as `<input>`. Text with a byte that is not ASCII, or a
/// NUL byte, is refused (see [`as_text`]).
pub fn parse(src: &str) -> Result<Module, ParseError> {
    read::parse_module(src, "<input>")
}

/// Reads a module, naming `file` in errors.
pub fn parse_file(src: &str, file: &str) -> Result<Module, ParseError> {
    read::parse_module(src, file)
}

/// The bytes of a PTX file as text: `Err` locates the first byte that is not ASCII or is NUL
/// (`FILE:LINE:COL: error: non-ASCII byte 0xFF (PTX is ASCII text)`; a UTF-8 byte-order mark
/// is named as such), which ptxas refuses too, in comments and strings alike.
pub fn as_text<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str, ParseError> {
    if !lex::is_text(bytes) {
        return Err(read::not_text(file, bytes));
    }
    // ASCII is UTF-8; the conversion's own check cannot fail.
    std::str::from_utf8(bytes).map_err(|_| read::not_text(file, bytes))
}

/// Reads a module from the bytes of a file, naming `file` in errors, as [`parse_file`] reads
/// text: a byte that is not PTX text is refused where it is (as [`as_text`] would).
pub fn parse_bytes(bytes: &[u8], file: &str) -> Result<Module, ParseError> {
    let src = utf8(bytes, file)?;
    read::parse_text(src, file, false).map(|(m, _)| m)
}

/// The bytes as `&str` when they are UTF-8 (one pass; the reader checks for ASCII as it goes),
/// else the error that locates their first byte that is not text.
fn utf8<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str, ParseError> {
    std::str::from_utf8(bytes).map_err(|_| read::not_text(file, bytes))
}

/// [`parse_with_spans`] of the bytes of a file (see [`parse_bytes`]).
pub fn parse_bytes_with_spans<'a>(
    bytes: &'a [u8],
    file: &str,
) -> Result<(&'a str, Module, Spans), ParseError> {
    let src = utf8(bytes, file)?;
    let (m, spans) = read::parse_text(src, file, true)?;
    Ok((src, m, spans))
}

/// Reads a module with the reader's fast paths off (plain declarations; names, literals,
/// addresses and register lists as operands), through the general paths they must agree with:
/// the same module, or the same error, as [`parse`]. For fuzzing (feature `general-paths`).
#[cfg(feature = "general-paths")]
pub fn parse_general_only(src: &str) -> Result<Module, ParseError> {
    read::with_general_paths(|| read::parse_module(src, "<input>"))
}

/// Reads a module together with the byte offset of every statement of every function body, so
/// that tools (the verifier's diagnostics) can point at source lines without the IR carrying
/// spans.
pub fn parse_with_spans(src: &str, file: &str) -> Result<(Module, Spans), ParseError> {
    read::parse_module_spans(src, file, true)
}

/// 1-based line and column (in characters) of byte `offset` of `src`.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let e = ParseError::new("", src, offset, "");
    (e.line, e.col)
}
