//! What each opcode's handler requires of its operands: how many (fewest and most) and, at the
//! positions where the handler needs one, what kind (a destination, a memory address).
//!
//! Each opcode's arity is written beside its handler in the interpreter's table
//! (`exec/semantics.rs`). The load step checks every instruction against it and reports a
//! mismatch as a load error naming the function and the instruction, so that a handler takes its
//! operands as a fixed-size array (`Ctx::ops` in `exec/ctx.rs`) with no count check of its own,
//! and an operand past the fewest as an `Option`. For IR that matches a form of the instruction
//! table the forms already guarantee the counts and kinds; a test there fits every form to its
//! opcode's arity, so a disagreement between the table and a handler fails it.

use crate::code::Opnd;

/// What an operand position needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A destination: a register (with or without a selector), a vector, a pair or `_`.
    Dst,
    /// A memory address `[...]`.
    Mem,
    /// Any operand (the handler checks its kind where it reads it: a value, a label, a list).
    Any,
}

/// The operands an opcode's handler reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arity {
    /// Fewest operands: the handler reads these without checking that they are there.
    pub min: u8,
    /// Most operands.
    pub max: u8,
    /// What each position needs, for the first `needs.len()` positions (`max` of them, or none
    /// for [`Arity::ANY`]).
    pub needs: &'static [Need],
}

impl Arity {
    /// These operands, the ones past the first `min` optional.
    pub const fn opt(min: u8, needs: &'static [Need]) -> Arity {
        Arity {
            min,
            max: needs.len() as u8,
            needs,
        }
    }

    /// Why `opnds` do not fit, if they do not.
    pub fn check(&self, opnds: &[Opnd]) -> Result<(), String> {
        let n = opnds.len();
        if n < self.min as usize || n > self.max as usize {
            let want = if self.min == self.max {
                format!("{}", self.min)
            } else {
                format!("{} to {}", self.min, self.max)
            };
            return Err(format!("{n} operands where {want} are expected"));
        }
        for (k, (o, need)) in opnds.iter().zip(self.needs).enumerate() {
            let ok = match need {
                Need::Dst => matches!(
                    o,
                    Opnd::Reg { .. }
                        | Opnd::Selected(..)
                        | Opnd::Vec(_)
                        | Opnd::Pair(_)
                        | Opnd::Sink
                ),
                Need::Mem => matches!(o, Opnd::Mem(..)),
                Need::Any => true,
            };
            if !ok {
                let what = match need {
                    Need::Dst => "a destination register, vector or `_`",
                    _ => "a memory address `[...]`",
                };
                return Err(format!("operand {k} is not {what}"));
            }
        }
        Ok(())
    }
}
