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

/// Reads a module; errors name the file as `<input>`.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    read::parse_module(src, "<input>")
}

/// Reads a module, naming `file` in errors.
pub fn parse_file(src: &str, file: &str) -> Result<Module, ParseError> {
    read::parse_module(src, file)
}
