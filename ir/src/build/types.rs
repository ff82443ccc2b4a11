//! The values builders take and give: registers, variables, labels, functions, special
//! registers and the build error. A leaf, so that the module and function builders and the
//! instruction helpers share them without importing each other.

use crate::inst::Compare;
use crate::names::Name;
use crate::operand::{Operand, Selector};
use crate::special::SpecialReg;
use crate::vocab::{Cmp, Space, Type};
use std::fmt;

/// Why a builder call failed. Nothing is added to the module when a call fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// No form of the opcode accepts the qualifiers and operands.
    Invalid {
        /// The instruction as spelled (`add.s32.rz`).
        inst: String,
        /// The table's diagnosis, as the reader would report it.
        message: String,
    },
    /// A name that is not a PTX identifier, or that is reserved.
    BadName {
        /// The name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A name declared twice in the same namespace.
    Duplicate {
        /// The name.
        name: String,
    },
    /// A label placed twice, or created and never placed.
    Label {
        /// The label.
        name: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// A guard set with [`FunctionBuilder::guard`](super::FunctionBuilder::guard) was not followed by an instruction.
    DanglingGuard,
    /// A call that does not fit what is being built (a return parameter on a kernel, a body
    /// on a declaration, an address size other than 32 or 64).
    Misuse {
        /// What is wrong.
        reason: &'static str,
    },
    /// No register class holds values of this type (`.b1024`, opaque types).
    NoRegisterClass(Type),
    /// An operand refers to a name outside the module's interner.
    ForeignName(usize),
    /// An operand names something the function has not declared (a register of another
    /// function, a name interned but never declared).
    Undeclared {
        /// The name.
        name: String,
    },
    /// The body does not fit a [`crate::Body`] (an instruction with too many operands).
    Body(crate::body::BodyError),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Invalid { inst, message } => write!(f, "invalid `{inst}`: {message}"),
            BuildError::BadName { name, reason } => write!(f, "bad name `{name}`: {reason}"),
            BuildError::Duplicate { name } => write!(f, "`{name}` is already declared"),
            BuildError::Label { name, problem } => write!(f, "label `{name}` {problem}"),
            BuildError::DanglingGuard => {
                write!(f, "a guard must be followed by the instruction it guards")
            }
            BuildError::Misuse { reason } => f.write_str(reason),
            BuildError::NoRegisterClass(t) => write!(f, "no register class holds `{t}` values"),
            BuildError::ForeignName(i) => {
                write!(f, "name #{i} does not belong to this module")
            }
            BuildError::Undeclared { name } => {
                write!(f, "`{name}` is not declared in this function or module")
            }
            BuildError::Body(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BuildError {}

/// A register allocated by [`FunctionBuilder::reg`](super::FunctionBuilder::reg) or declared with
/// [`FunctionBuilder::reg_named`](super::FunctionBuilder::reg_named). Converts into an [`Operand`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    /// Its name.
    pub name: Name,
    /// The type it was allocated for (its declaration may use the bit type of the same width).
    pub ty: Type,
}

impl Reg {
    /// The address operand `[reg+offset]`.
    pub fn at(self, offset: i64) -> Operand {
        Operand::addr(self.name, offset)
    }
}

impl std::ops::Not for Reg {
    type Output = Operand;

    /// The negated predicate operand `!p`, for the operands the ISA writes `{!}c` (`setp`,
    /// `set` and `vote` sources).
    fn not(self) -> Operand {
        Operand::Not(self.name)
    }
}

/// A range of registers declared by name with
/// [`FunctionBuilder::reg_range`](super::FunctionBuilder::reg_range) (`.reg .b32 %t<8>;`
/// declares `%t0` .. `%t7`); [`FunctionBuilder::reg_in`](super::FunctionBuilder::reg_in) names
/// one of them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegRange {
    /// The prefix (`%t`).
    pub prefix: Name,
    /// The registers' type.
    pub ty: Type,
    /// How many registers the range holds.
    pub count: u32,
}

/// A variable: a parameter, a module-scope variable or a scoped declaration. Converts into an
/// [`Operand`] naming it (its address, in `mov` and `cvta`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Var {
    /// Its name.
    pub name: Name,
    /// Its state space.
    pub space: Space,
    /// Its element type.
    pub ty: Type,
}

impl Var {
    /// The address operand `[var+offset]`.
    pub fn at(self, offset: i64) -> Operand {
        Operand::addr(self.name, offset)
    }
}

/// A label of the function being built; place it with [`FunctionBuilder::place`](super::FunctionBuilder::place).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label(pub Name);

/// A function of the module, as returned by [`FunctionBuilder::finish`](super::FunctionBuilder::finish); the target of
/// [`FunctionBuilder::call`](super::FunctionBuilder::call).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FnRef(pub Name);

/// A special register with an optional component, for [`FunctionBuilder::special`](super::FunctionBuilder::special) and as an
/// operand: `Sreg::from(SpecialReg::Laneid)`, `Sreg::axis(SpecialReg::Tid, 0)` for `%tid.x`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sreg {
    /// The register.
    pub reg: SpecialReg,
    /// The component selector ([`Selector::NONE`] for scalar registers).
    pub sel: Selector,
}

impl Sreg {
    /// Component `axis` (0 = `.x`, 1 = `.y`, 2 = `.z`) of a vector special register.
    pub fn axis(reg: SpecialReg, axis: u8) -> Sreg {
        Sreg {
            reg,
            sel: Selector::component(axis.min(3)).unwrap_or_default(),
        }
    }

    /// The register's value type (`.u32`, `.u64`, `.pred`, ...).
    pub fn ty(self) -> Type {
        let (t, _) = self.reg.ty();
        match crate::vocab::Modifier::lookup(t.as_bytes()) {
            Some(crate::vocab::Modifier::Type(t)) => t,
            _ => Type::U32,
        }
    }
}

impl From<SpecialReg> for Sreg {
    fn from(reg: SpecialReg) -> Sreg {
        Sreg {
            reg,
            sel: Selector::NONE,
        }
    }
}

impl From<Sreg> for Operand {
    fn from(s: Sreg) -> Operand {
        Operand::Special {
            reg: s.reg,
            sel: s.sel,
        }
    }
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Operand {
        Operand::reg(r.name)
    }
}

impl From<Var> for Operand {
    fn from(v: Var) -> Operand {
        Operand::reg(v.name)
    }
}

impl From<Label> for Operand {
    fn from(l: Label) -> Operand {
        Operand::reg(l.0)
    }
}

impl From<FnRef> for Operand {
    fn from(f: FnRef) -> Operand {
        Operand::reg(f.0)
    }
}

impl From<i32> for Operand {
    fn from(v: i32) -> Operand {
        Operand::Int(v.into())
    }
}

impl From<i64> for Operand {
    fn from(v: i64) -> Operand {
        Operand::Int(v)
    }
}

impl From<u32> for Operand {
    fn from(v: u32) -> Operand {
        Operand::Int(v.into())
    }
}

impl From<u64> for Operand {
    /// Values above `i64::MAX` become [`Operand::Uint`] (printed with the `U` suffix).
    fn from(v: u64) -> Operand {
        i64::try_from(v).map_or(Operand::Uint(v), Operand::Int)
    }
}

impl From<f32> for Operand {
    /// The exact bits, printed as `0fXXXXXXXX`.
    fn from(v: f32) -> Operand {
        Operand::F32(v.to_bits())
    }
}

impl From<f64> for Operand {
    /// The exact bits, printed as `0dXXXXXXXXXXXXXXXX`.
    fn from(v: f64) -> Operand {
        Operand::F64(v.to_bits())
    }
}

impl From<Cmp> for Compare {
    fn from(c: Cmp) -> Compare {
        Compare::Cmp(c)
    }
}
