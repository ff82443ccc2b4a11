//! `ptx-ir`: a toolkit for NVIDIA PTX — a compact typed IR ([`ir`]), a reader and printer for
//! PTX text ([`text`]), and the `ptx` command-line tool.
//!
//! ```
//! use ptx_ir::{ir::Opcode, text};
//!
//! let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
//!            .visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\
//!            \tadd.s32 %r1, %r2, 1;\n\tret;\n}\n";
//! let m = text::parse(src).unwrap();
//! let f = m.function("k").unwrap();
//! let body = f.body.as_ref().unwrap();
//! let adds = body.iter().filter(|s| matches!(s, ptx_ir::ir::Statement::Inst(i) if i.opcode == Opcode::Add));
//! assert_eq!(adds.count(), 1);
//! assert_eq!(text::parse(&text::print(&m)).unwrap(), m);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod roundtrip;

/// The typed IR (re-export of `ptx-ir-core`).
pub use ptx_ir_core as ir;
/// The reader and printer (re-export of `ptx-ir-text`).
pub use ptx_ir_text as text;
