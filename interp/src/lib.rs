//! `ptx-ir-interp`: the reference interpreter of `ptx-ir`.
//!
//! A [`Program`] is compiled once from a [`ptx_ir_core::Module`] (names resolved, bodies
//! flattened, operands decoded, variables laid out) and launched any number of times:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use ptx_ir_interp::{Arg, Program};
//! let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
//!     .visible .entry k(.param .u64 out) {\n\
//!       .reg .b32 %r<2>; .reg .b64 %rd<3>;\n\
//!       ld.param.u64 %rd1, [out];\n\
//!       mov.u32 %r1, %tid.x;\n\
//!       mul.wide.u32 %rd2, %r1, 4;\n\
//!       add.s64 %rd1, %rd1, %rd2;\n\
//!       st.global.u32 [%rd1], %r1;\n\
//!       ret;\n\
//!     }\n";
//! let module = ptx_ir_text::parse(src)?;
//! let program = Program::load(&module)?;
//! let out = program
//!     .launch("k")
//!     .grid([1, 1, 1])
//!     .block([4, 1, 1])
//!     .arg(Arg::Buffer(vec![0; 16]))
//!     .run()?;
//! assert_eq!(out.buffers[0], [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
//! # Ok(()) }
//! ```
//!
//! Execution is SIMT: warps of 32 lanes with reconvergence for any number of paths, CTA and
//! cluster barriers, warp-synchronous instructions that honour their membermasks, checked memory
//! in every state space ([`mem`]), and bit-exact arithmetic ([`float`] holds the IEEE and
//! approximate operations). Anything the interpreter cannot answer for certain is an
//! [`Error`], never a panic or a guess. docs/INTERP.md describes the model and its internals.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod aniso;
mod arity;
pub mod check;
mod code;
mod cvt;
pub mod error;
mod exec;
pub mod float;
mod fmt;
mod int;
mod lanewise;
mod load;
pub mod lod;
mod lower;
pub mod mem;
mod mx;
pub mod narrow;
mod progress;
mod regs;
mod tc;
pub mod texture;
pub mod tmap;

pub use check::{Checks, Finding};
pub use error::{Error, FaultKind, Site, SpecError, Thread};
pub use exec::{Arg, Contraction, ContractionDiff, Failure, Launch, Outcome, Spec, Stats};
pub use load::{OpaqueVar, Program};
pub use progress::Progress;
pub use regs::Slots;
