//! The instruction methods, one per line of the instruction table and named after it
//! (`add`, `mul24`, `cp_async_bulk_tensor`, `tcgen05_mma`, `r#match`): each takes the
//! qualifiers ([`Mods`]) and the operands ([`Operands`]) in PTX order and hands them to
//! [`FunctionBuilder::inst`], which checks them against the line's forms. Generated from the
//! table ([`crate::table::for_each_instruction`]), so a new line brings its method.
//!
//! `f.mul((Flag::Wide, Type::U32), (off, tid, 4))?` is `mul.wide.u32 off, tid, 4;`.

use super::args::{Mods, Operands};
use super::function::FunctionBuilder;
use super::types::{BuildError, Sreg};
use crate::operand::Operand;
use crate::table::{for_each_instruction, Opcode};
use smallvec::SmallVec;

macro_rules! builder_methods {
    ( $( $(#[$m:meta])* $var:ident = $code:literal, $name:literal, $fam:ident,
         ptx($major:literal, $minor:literal), $sm:expr,
         [ $( $form:literal ),* $(,)? ]; )* ) => {
        impl FunctionBuilder<'_> {
            $( pastey::paste! {
                #[doc = concat!("`", $name, "`, checked against the table's forms of it:")]
                #[doc = ""]
                $( #[doc = concat!("- `", $name, $form, "`")] )*
                #[doc = ""]
                #[doc = "(notation: [`crate::form`])."]
                pub fn [< # $var:snake >](
                    &mut self,
                    mods: impl Mods,
                    operands: impl Operands,
                ) -> Result<(), BuildError> {
                    self.op(Opcode::$var, mods, operands)
                }
            } )*
        }
    };
}

for_each_instruction!(builder_methods);

impl FunctionBuilder<'_> {
    /// Checks and appends `op` with the qualifiers and operands in PTX order: what every
    /// instruction method calls.
    fn op(
        &mut self,
        op: Opcode,
        mods: impl Mods,
        operands: impl Operands,
    ) -> Result<(), BuildError> {
        let mut m = SmallVec::new();
        mods.push_mods(&mut m);
        let mut o = Vec::new();
        operands.push_operands(&mut o);
        self.inst(op, m, o)
    }

    /// `mov.<t> d, %sreg`: reads a special register at its own type (`.u32` for `%tid.x`,
    /// `.u64` for `%clock64`).
    pub fn special(
        &mut self,
        d: impl Into<Operand>,
        reg: impl Into<Sreg>,
    ) -> Result<(), BuildError> {
        let s = reg.into();
        self.op(Opcode::Mov, s.ty(), (d, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::ModuleBuilder;
    use crate::module::{Item, Target, Version};
    use crate::vocab::{Flag, Modifier, Space, Type};

    macro_rules! by_method {
        ( $( $(#[$m:meta])* $var:ident = $code:literal, $name:literal, $fam:ident,
             ptx($major:literal, $minor:literal), $sm:expr,
             [ $( $form:literal ),* $(,)? ]; )* ) => {
            /// Calls the method generated for `op`.
            fn by_method(f: &mut FunctionBuilder<'_>, op: Opcode) -> Result<(), BuildError> {
                match op {
                    $( Opcode::$var => pastey::paste! { f.[< # $var:snake >]((), ()) }, )*
                }
            }
        };
    }
    for_each_instruction!(by_method);

    /// Each method builds its own line's opcode: with no qualifiers and no operands it either
    /// appends that opcode (`ret`, `exit`, `nop`, ...) or is refused naming it.
    #[test]
    fn every_method_builds_its_opcode() {
        for &op in Opcode::ALL {
            let mut mb = ModuleBuilder::new(Version::new(9, 0), Target::sm(90));
            let mut f = mb.entry("k").unwrap();
            match by_method(&mut f, op) {
                Ok(()) => {
                    f.finish().unwrap();
                    let m = mb.finish();
                    let Some(Item::Function(func)) = m.items.last() else {
                        panic!("{op:?}: no function");
                    };
                    let body = func.statements().unwrap();
                    assert!(
                        matches!(body.last(), Some(crate::module::Statement::Inst(i)) if i.opcode == op),
                        "{op:?}: the method appended something else"
                    );
                }
                Err(BuildError::Invalid { inst, .. }) => assert_eq!(inst, op.name(), "{op:?}"),
                Err(e) => panic!("{op:?}: {e:?}"),
            }
        }
    }

    /// The argument lists: single values, options, tuples, vectors and `()` in PTX order.
    #[test]
    fn argument_lists_keep_ptx_order() {
        let mut mb = ModuleBuilder::new(Version::new(9, 0), Target::sm(90));
        let mut f = mb.entry("k").unwrap();
        let [d, a] = f.regs(Type::U64).unwrap();
        let w = f.reg(Type::U32).unwrap();
        f.mul((Flag::Wide, Type::U32), (d, w, 4)).unwrap();
        f.cvta((Flag::To, Space::Global, Type::U64), (a, d))
            .unwrap();
        f.cvt((None::<Flag>, Type::U64, Type::U32), (d, w)).unwrap();
        f.ld(
            vec![Modifier::Space(Space::Global), Type::U32.into()],
            vec![w.into(), a.at(8)],
        )
        .unwrap();
        f.exit((), ()).unwrap();
        f.finish().unwrap();
        let m = mb.finish();
        let Some(Item::Function(func)) = m.items.last() else {
            panic!("no function");
        };
        let spelled: Vec<String> = func
            .statements()
            .unwrap()
            .iter()
            .filter_map(|s| match s {
                crate::module::Statement::Inst(i) => Some(crate::check::spell(i.opcode, &i.mods)),
                _ => None,
            })
            .collect();
        assert_eq!(
            spelled,
            [
                "mul.wide.u32",
                "cvta.to.global.u64",
                "cvt.u64.u32",
                "ld.global.u32",
                "exit"
            ]
        );
    }
}
