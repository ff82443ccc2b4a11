//! The independent reference semantics of `ptx-ir`'s fuzz oracles (`ptx-ir-oracles`): what a
//! generated kernel (`ptx-ir-smith`) must compute, written from the PTX ISA and the hardware's
//! measured rules in plain Rust. It shares no code with the interpreter (`ptx-ir-interp`),
//! which it checks, and does not depend on it.
//!
//! | module | evaluates |
//! | --- | --- |
//! | [`eval`] | a generated SIMT program, per warp and lane, to its output buffer |
//! | [`fref`] | error-free directed rounding of single, double and half precision |
//! | [`contract`] | which `mul`/`add` pairs ptxas fuses and which `neg`s it folds |
//! | [`hopper`] | the Hopper/Blackwell protocols (copies, mbarriers, clusters, matrix instructions, tensor memory), one file per family |

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod contract;
pub mod eval;
pub mod fref;
pub mod hopper;
