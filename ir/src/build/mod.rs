//! Building modules in memory: [`ModuleBuilder`] for the header, variables and functions,
//! [`FunctionBuilder`] for parameters, registers, labels, scopes, guards and instructions.
//!
//! Every instruction goes through [`FunctionBuilder::inst`], which checks it against the
//! instruction table ([`crate::check::check`]) exactly as the reader does, so a built module
//! always prints to text the reader accepts. Every line of the table has a method of its name
//! (`add`, `ld`, `setp`, `bra`, `cp_async_bulk_tensor`, ...; generated from the table) that
//! takes the qualifiers and the operands in PTX order, a tuple for several
//! (`f.mul((Flag::Wide, Type::U32), (off, tid, 4))` is `mul.wide.u32 off, tid, 4;`), `()` for
//! none. Registers come from fresh-name allocation per register class (`%r0`, `%r1`, ... declared
//! as `.reg .b32 %r<N>;` at the top of the body); labels must be placed exactly once.
//! [`ModuleBuilder::finish`] renumbers names into print order
//! ([`crate::visit::renumber_names`]), so the result equals the module obtained by printing and
//! re-reading it.
//!
//! ```
//! use ptx_ir_core::build::{ModuleBuilder, Sreg};
//! use ptx_ir_core::{Cmp, Flag, Space, SpecialReg, Target, Type, Version};
//!
//! # fn main() -> Result<(), ptx_ir_core::build::BuildError> {
//! let mut mb = ModuleBuilder::new(Version::new(8, 0), Target::sm(80));
//! let mut f = mb.entry("fill")?;
//! let out = f.param(Type::U64, "out")?;
//! let n = f.param(Type::U32, "n")?;
//! let (tid, lim, p) = (f.reg(Type::U32)?, f.reg(Type::U32)?, f.reg(Type::Pred)?);
//! let (base, off) = (f.reg(Type::U64)?, f.reg(Type::U64)?);
//! let done = f.fresh_label();
//! f.special(tid, Sreg::axis(SpecialReg::Tid, 0))?;
//! f.ld((Space::Param, Type::U32), (lim, n.at(0)))?;
//! f.setp((Cmp::Ge, Type::U32), (p, tid, lim))?;
//! f.guard(p).bra((), done)?;
//! f.ld((Space::Param, Type::U64), (base, out.at(0)))?;
//! f.cvta((Flag::To, Space::Global, Type::U64), (base, base))?;
//! f.mul((Flag::Wide, Type::U32), (off, tid, 4))?;
//! f.add(Type::U64, (base, base, off))?;
//! f.st((Space::Global, Type::U32), (base.at(0), tid))?;
//! f.place(done)?;
//! f.ret((), ())?;
//! f.finish()?;
//! let module = mb.finish();
//! assert_eq!(module.instruction_count(), 10);
//! # Ok(()) }
//! ```

mod args;
mod function;
mod module;
mod names;
mod ops;

pub use args::{args, Mods, Operands, Single};
pub use function::FunctionBuilder;
pub use module::ModuleBuilder;

mod types;
pub use types::*;

use crate::operand::Operand;

/// The pair operand `a|b` (`setp`'s two predicate results, `shfl`'s value and predicate).
pub fn pair(a: impl Into<Operand>, b: impl Into<Operand>) -> Operand {
    Operand::Pair(Box::new([a.into(), b.into()]))
}

/// The sink operand `_` (a destination whose value is discarded).
pub fn sink() -> Operand {
    Operand::Sink
}

impl crate::module::Version {
    /// PTX ISA version `major.minor`.
    pub const fn new(major: u8, minor: u8) -> Self {
        crate::module::Version { major, minor }
    }
}

impl crate::module::Target {
    /// The plain target `sm_<arch>` (`Target::sm(90)` is `sm_90`).
    pub const fn sm(arch: u16) -> Self {
        crate::module::Target::Sm {
            arch,
            suffix: crate::module::ArchSuffix::None,
        }
    }

    /// The architecture-specific target `sm_<arch>a` (`sm_90a`).
    pub const fn sm_a(arch: u16) -> Self {
        crate::module::Target::Sm {
            arch,
            suffix: crate::module::ArchSuffix::A,
        }
    }
}
