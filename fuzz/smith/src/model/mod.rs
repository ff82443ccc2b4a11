//! The program model: a typed, structured kernel body over a fixed register file, which the
//! generator ([`crate::gen`]) draws, the lowering ([`crate::lower`]) turns into IR and the
//! reference semantics (`ptx-ir-refsem`) evaluates.
//!
//! Each part is a leaf module importing only the parts below it, so that every side of the
//! fuzzer can use the model without importing the others:
//!
//! | module | holds |
//! | --- | --- |
//! | [`reg`] | register classes, registers, source operands, bit helpers |
//! | [`types`] | the qualifiers of operations: the model's own types and the IR vocabulary the generator draws from |
//! | [`op`] | [`Operation`], the semantic operation of an instruction |
//! | [`sig`] | operand classes of each operation, resources it uses |
//! | [`contract`] | the operations ptxas contracts and folds |
//! | [`program`] | instructions, structured nodes, device functions, [`Program`], [`SimtFamily`] |
//! | [`layout`] | the input buffer and the shared array's layout |

pub mod contract;
pub mod layout;
pub mod op;
pub mod program;
pub mod reg;
pub mod sig;
pub mod types;

pub use contract::{add_of, mul_of, neg_of, sign_bits};
pub use op::Operation;
pub use program::*;
pub use reg::*;
pub use sig::*;
pub use types::*;
