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

pub use error::ParseError;
pub use print::{print, write_module};
use ptx_ir_core::Module;

/// Frees the scratch memory the reader keeps on the calling thread between modules (its
/// function-body builder and name caches: a few hundred KiB, at most 8 MiB after a very large
/// function). Reading keeps them so that the next module does not fault in fresh pages; a
/// long-lived thread that is done reading can give them back.
pub fn release_thread_scratch() {
    read::release_spare();
}

/// Reads a module; errors name the file as `<input>`.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    read::parse_module(src, "<input>")
}

/// Reads a module, naming `file` in errors.
pub fn parse_file(src: &str, file: &str) -> Result<Module, ParseError> {
    read::parse_module(src, file)
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

/// Statement offsets of a module read by [`parse_with_spans`].
///
/// For each module item, in order, the byte offsets of the statements of its body in pre-order
/// (a `{ }` block comes before the statements inside it), which is the order
/// `ptx_ir_core::verify` numbers statements in. Items without a body have no offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    items: Vec<Vec<u32>>,
}

impl Spans {
    /// Byte offset of statement `stmt` (pre-order index) of the body of module item `item`.
    pub fn statement(&self, item: usize, stmt: usize) -> Option<usize> {
        self.items.get(item)?.get(stmt).map(|&o| o as usize)
    }
}

/// 1-based line and column (in characters) of byte `offset` of `src`.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let e = ParseError::new("", src, offset, "");
    (e.line, e.col)
}
