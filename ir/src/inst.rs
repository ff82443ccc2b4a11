//! Instructions: opcode, typed modifiers, typed operands and an optional guard.

use crate::names::Name;
use crate::operand::{Operand, OperandList};
use crate::table::Opcode;
use crate::vocab::{CacheOp, Cmp, Flag, Modifier, Op, Rounding, Scope, Sem, Space, Type, Vector};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// The modifiers of an instruction, in source order, stored inline up to eight.
pub type Mods = SmallVec<[Modifier; 8]>;

/// A guard predicate `@p` or `@!p`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Guard {
    /// The predicate register.
    pub pred: Name,
    /// `@!p`
    pub negated: bool,
}

/// One PTX instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Instruction {
    /// `@p` / `@!p`, if present.
    pub guard: Option<Guard>,
    /// The instruction.
    pub opcode: Opcode,
    /// Its qualifiers, in source order; each is accepted by one of the opcode's forms.
    pub mods: Mods,
    /// Its operands, in order.
    pub operands: OperandList,
}

/// The comparison of `setp`/`set`/`slct`, including the unsigned `.lo`/`.hi` spellings that the
/// vocabulary keeps as [`Flag::Lo`]/[`Flag::Hi`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Compare {
    /// A comparison of [`Cmp`].
    Cmp(Cmp),
    /// `.lo`: unsigned lower.
    Lo,
    /// `.hi`: unsigned higher.
    Hi,
}

impl From<Compare> for crate::vocab::Modifier {
    fn from(c: Compare) -> Self {
        match c {
            Compare::Cmp(c) => c.into(),
            Compare::Lo => Flag::Lo.into(),
            Compare::Hi => Flag::Hi.into(),
        }
    }
}

impl Instruction {
    /// An unguarded instruction.
    pub fn new<M, O>(opcode: Opcode, mods: M, operands: O) -> Instruction
    where
        M: IntoIterator<Item = Modifier>,
        O: IntoIterator<Item = Operand>,
    {
        Instruction {
            guard: None,
            opcode,
            mods: mods.into_iter().collect(),
            operands: operands.into_iter().collect(),
        }
    }

    /// Whether the instruction carries modifier `m`.
    pub fn has(&self, m: impl Into<Modifier>) -> bool {
        let m = m.into();
        self.mods.contains(&m)
    }

    /// The types among the modifiers, in order (`cvt.f32.s32` gives `[F32, S32]`).
    pub fn types(&self) -> SmallVec<[Type; 4]> {
        self.mods
            .iter()
            .filter_map(|m| match m {
                Modifier::Type(t) => Some(*t),
                _ => None,
            })
            .collect()
    }

    /// The first type modifier: the instruction type for most instructions.
    pub fn ty(&self) -> Option<Type> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Type(t) => Some(*t),
            _ => None,
        })
    }

    /// The rounding modifier.
    pub fn rounding(&self) -> Option<Rounding> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Rounding(r) => Some(*r),
            _ => None,
        })
    }

    /// The first state-space modifier.
    pub fn space(&self) -> Option<Space> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Space(s) => Some(*s),
            _ => None,
        })
    }

    /// The state-space modifiers, in order (`cp.async.bulk.shared::cluster.global`).
    pub fn spaces(&self) -> SmallVec<[Space; 2]> {
        self.mods
            .iter()
            .filter_map(|m| match m {
                Modifier::Space(s) => Some(*s),
                _ => None,
            })
            .collect()
    }

    /// The scope modifier.
    pub fn scope(&self) -> Option<Scope> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Scope(s) => Some(*s),
            _ => None,
        })
    }

    /// The memory-semantics modifier.
    pub fn sem(&self) -> Option<Sem> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Sem(s) => Some(*s),
            _ => None,
        })
    }

    /// The cache operator.
    pub fn cache_op(&self) -> Option<CacheOp> {
        self.mods.iter().find_map(|m| match m {
            Modifier::CacheOp(c) => Some(*c),
            _ => None,
        })
    }

    /// The vector width.
    pub fn vector(&self) -> Option<Vector> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Vector(v) => Some(*v),
            _ => None,
        })
    }

    /// The operation modifiers (`.add`, `.and`, ...), in order.
    pub fn ops(&self) -> SmallVec<[Op; 2]> {
        self.mods
            .iter()
            .filter_map(|m| match m {
                Modifier::Op(o) => Some(*o),
                _ => None,
            })
            .collect()
    }

    /// The comparison operator of `setp`, `set`, `slct` and friends.
    pub fn compare(&self) -> Option<Compare> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Cmp(c) => Some(Compare::Cmp(*c)),
            Modifier::Flag(Flag::Lo) => Some(Compare::Lo),
            Modifier::Flag(Flag::Hi) => Some(Compare::Hi),
            _ => None,
        })
    }

    /// Calls `f` on every name the instruction mentions (guard first), in print order.
    pub fn for_each_name(&self, f: &mut impl FnMut(Name)) {
        self.for_each_name_ref(&mut |n: &Name| f(*n));
    }

    /// Calls `f` on a reference to every name (guard first), in print order.
    pub fn for_each_name_ref(&self, f: &mut impl FnMut(&Name)) {
        if let Some(g) = &self.guard {
            f(&g.pred);
        }
        for o in &self.operands {
            o.for_each_name_ref(f);
        }
    }

    /// Calls `f` on every name mutably (guard first), in print order.
    pub fn for_each_name_mut(&mut self, f: &mut impl FnMut(&mut Name)) {
        if let Some(g) = &mut self.guard {
            f(&mut g.pred);
        }
        for o in &mut self.operands {
            o.for_each_name_mut(f);
        }
    }
}
