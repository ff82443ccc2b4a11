//! Typed instruction helpers. Each picks the opcode and qualifiers and hands them to
//! [`FunctionBuilder::inst`], which checks them; arguments run destination first, then sources,
//! as in PTX. Operands are anything that converts into an [`Operand`]: [`Reg`](super::Reg),
//! [`Var`](super::Var), [`Sreg`], integer and float literals, `reg.at(offset)` addresses.
//! Instructions without a helper go through [`FunctionBuilder::inst`] directly.

use super::function::FunctionBuilder;
use super::types::{BuildError, FnRef, Label, Sreg, Var};
use crate::inst::Compare;
use crate::operand::Operand;
use crate::table::Opcode;
use crate::vocab::{Flag, Modifier, Op, Rounding, Space, Type};

type R = Result<(), BuildError>;

fn ops<const N: usize>(v: [Operand; N]) -> [Operand; N] {
    v
}

impl FunctionBuilder<'_> {
    // ------------------------------------------------------------ integer and float arithmetic

    /// `add.<ty> d, a, b`
    pub fn add(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Add,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `sub.<ty> d, a, b`
    pub fn sub(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Sub,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `mul.<ty> d, a, b` for floating-point types (integers take [`Self::mul_lo`],
    /// [`Self::mul_hi`] or [`Self::mul_wide`]).
    pub fn mul(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Mul,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `mul.lo.<ty> d, a, b`: the low half of the product.
    pub fn mul_lo(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Mul,
            [Flag::Lo.into(), ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `mul.hi.<ty> d, a, b`: the high half of the product.
    pub fn mul_hi(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Mul,
            [Flag::Hi.into(), ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `mul.wide.<ty> d, a, b`: the full product, twice as wide as `ty` (the source type).
    pub fn mul_wide(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Mul,
            [Flag::Wide.into(), ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `mad.lo.<ty> d, a, b, c`: `d = lo(a * b) + c`.
    pub fn mad_lo(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Mad,
            [Flag::Lo.into(), ty.into()],
            ops([d.into(), a.into(), b.into(), c.into()]),
        )
    }

    /// `mad.hi.<ty> d, a, b, c`: `d = hi(a * b) + c`.
    pub fn mad_hi(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Mad,
            [Flag::Hi.into(), ty.into()],
            ops([d.into(), a.into(), b.into(), c.into()]),
        )
    }

    /// `mad.wide.<ty> d, a, b, c`: the full product of `ty` sources plus a double-width `c`.
    pub fn mad_wide(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Mad,
            [Flag::Wide.into(), ty.into()],
            ops([d.into(), a.into(), b.into(), c.into()]),
        )
    }

    /// `fma.<rnd>.<ty> d, a, b, c`: fused multiply-add with one rounding.
    pub fn fma(
        &mut self,
        rnd: Rounding,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Fma,
            [rnd.into(), ty.into()],
            ops([d.into(), a.into(), b.into(), c.into()]),
        )
    }

    /// `div.<ty> d, a, b` for integer types (floating-point division needs `.approx`, `.full`
    /// or a rounding: use [`Self::inst`]).
    pub fn div(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Div,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `rem.<ty> d, a, b`
    pub fn rem(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Rem,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `min.<ty> d, a, b`
    pub fn min(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Min,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `max.<ty> d, a, b`
    pub fn max(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Max,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `abs.<ty> d, a`
    pub fn abs(&mut self, ty: Type, d: impl Into<Operand>, a: impl Into<Operand>) -> R {
        self.inst(Opcode::Abs, [ty.into()], ops([d.into(), a.into()]))
    }

    /// `neg.<ty> d, a`
    pub fn neg(&mut self, ty: Type, d: impl Into<Operand>, a: impl Into<Operand>) -> R {
        self.inst(Opcode::Neg, [ty.into()], ops([d.into(), a.into()]))
    }

    /// `sqrt.<rnd>.<ty> d, a`: correctly rounded square root.
    pub fn sqrt(
        &mut self,
        rnd: Rounding,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Sqrt,
            [rnd.into(), ty.into()],
            ops([d.into(), a.into()]),
        )
    }

    // ------------------------------------------------------------ comparison and selection

    /// `setp.<cmp>.<ty> p, a, b`; `cmp` is a [`crate::Cmp`] or a [`Compare`] (for `.lo`/`.hi`).
    pub fn setp(
        &mut self,
        cmp: impl Into<Compare>,
        ty: Type,
        p: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        let c: Modifier = match cmp.into() {
            Compare::Cmp(c) => c.into(),
            Compare::Lo => Flag::Lo.into(),
            Compare::Hi => Flag::Hi.into(),
        };
        self.inst(
            Opcode::Setp,
            [c, ty.into()],
            ops([p.into(), a.into(), b.into()]),
        )
    }

    /// `selp.<ty> d, a, b, p`: `d = p ? a : b`.
    pub fn selp(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        p: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Selp,
            [ty.into()],
            ops([d.into(), a.into(), b.into(), p.into()]),
        )
    }

    // ------------------------------------------------------------ logic and shift

    /// `and.<ty> d, a, b`
    pub fn and(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::And,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `or.<ty> d, a, b`
    pub fn or(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(Opcode::Or, [ty.into()], ops([d.into(), a.into(), b.into()]))
    }

    /// `xor.<ty> d, a, b`
    pub fn xor(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Xor,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `not.<ty> d, a`
    pub fn not(&mut self, ty: Type, d: impl Into<Operand>, a: impl Into<Operand>) -> R {
        self.inst(Opcode::Not, [ty.into()], ops([d.into(), a.into()]))
    }

    /// `shl.<ty> d, a, b`
    pub fn shl(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Shl,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    /// `shr.<ty> d, a, b` (arithmetic for signed types).
    pub fn shr(
        &mut self,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Shr,
            [ty.into()],
            ops([d.into(), a.into(), b.into()]),
        )
    }

    // ------------------------------------------------------------ data movement and conversion

    /// `mov.<ty> d, a`
    pub fn mov(&mut self, ty: Type, d: impl Into<Operand>, a: impl Into<Operand>) -> R {
        self.inst(Opcode::Mov, [ty.into()], ops([d.into(), a.into()]))
    }

    /// `mov.<t> d, %sreg`: reads a special register, at its own type (`.u32` for `%tid.x`).
    pub fn special(&mut self, d: impl Into<Operand>, reg: impl Into<Sreg>) -> R {
        let s = reg.into();
        self.inst(Opcode::Mov, [s.ty().into()], ops([d.into(), s.into()]))
    }

    /// `ld.<space>.<ty> d, [addr]`
    pub fn ld(
        &mut self,
        space: Space,
        ty: Type,
        d: impl Into<Operand>,
        addr: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Ld,
            [space.into(), ty.into()],
            ops([d.into(), addr.into()]),
        )
    }

    /// `ld.<ty> d, [addr]` through a generic address.
    pub fn ld_generic(&mut self, ty: Type, d: impl Into<Operand>, addr: impl Into<Operand>) -> R {
        self.inst(Opcode::Ld, [ty.into()], ops([d.into(), addr.into()]))
    }

    /// `st.<space>.<ty> [addr], v`
    pub fn st(
        &mut self,
        space: Space,
        ty: Type,
        addr: impl Into<Operand>,
        v: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::St,
            [space.into(), ty.into()],
            ops([addr.into(), v.into()]),
        )
    }

    /// `st.<ty> [addr], v` through a generic address.
    pub fn st_generic(&mut self, ty: Type, addr: impl Into<Operand>, v: impl Into<Operand>) -> R {
        self.inst(Opcode::St, [ty.into()], ops([addr.into(), v.into()]))
    }

    /// `cvt{.rnd}.<dst>.<src> d, a`. Conversions that can lose precision (float to narrower
    /// float, float to integer, integer to float) need a rounding for `ptxas`.
    pub fn cvt(
        &mut self,
        rnd: Option<Rounding>,
        dst: Type,
        src: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
    ) -> R {
        let mods = rnd
            .map(Modifier::from)
            .into_iter()
            .chain([dst.into(), src.into()]);
        self.inst(Opcode::Cvt, mods, ops([d.into(), a.into()]))
    }

    /// `cvta.<space>.<ty> d, a`: a `space` address to a generic one (`ty` is `.u32`/`.u64`).
    pub fn cvta(
        &mut self,
        space: Space,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Cvta,
            [space.into(), ty.into()],
            ops([d.into(), a.into()]),
        )
    }

    /// `cvta.to.<space>.<ty> d, a`: a generic address to a `space` one.
    pub fn cvta_to(
        &mut self,
        space: Space,
        ty: Type,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Cvta,
            [Flag::To.into(), space.into(), ty.into()],
            ops([d.into(), a.into()]),
        )
    }

    // ------------------------------------------------------------ control flow

    /// `bra label`
    pub fn bra(&mut self, label: Label) -> R {
        self.inst(Opcode::Bra, [], ops([label.into()]))
    }

    /// `brx.idx index, targets`: an indirect branch through a
    /// [`branch_targets`](Self::branch_targets) list.
    pub fn brx_idx(&mut self, index: impl Into<Operand>, targets: Label) -> R {
        self.inst(Opcode::BrxIdx, [], ops([index.into(), targets.into()]))
    }

    /// `call.uni (rets), func, (args)`: `rets` and `args` are `.param` variables, declared in
    /// an enclosing [`block`](Self::block) with [`local`](Self::local).
    pub fn call(&mut self, func: FnRef, rets: &[Var], args: &[Var]) -> R {
        let list =
            |vs: &[Var]| Operand::Args(Box::new(vs.iter().map(|&v| Operand::from(v)).collect()));
        let mut operands = Vec::with_capacity(3);
        if !rets.is_empty() {
            operands.push(list(rets));
        }
        operands.push(func.into());
        if !args.is_empty() {
            operands.push(list(args));
        }
        self.inst(Opcode::Call, [Flag::Uni.into()], operands)
    }

    /// `ret`
    pub fn ret(&mut self) -> R {
        self.inst(Opcode::Ret, [], [])
    }

    /// `exit`
    pub fn exit(&mut self) -> R {
        self.inst(Opcode::Exit, [], [])
    }

    /// `trap`
    pub fn trap(&mut self) -> R {
        self.inst(Opcode::Trap, [], [])
    }

    // ------------------------------------------------------------ synchronization

    /// `bar.sync id`: waits for every thread of the CTA at barrier `id`.
    pub fn bar_sync(&mut self, id: impl Into<Operand>) -> R {
        self.inst(Opcode::Bar, [Flag::Sync.into()], ops([id.into()]))
    }

    /// `atom.<space>.<op>.<ty> d, [addr], v`: `d` receives the old value.
    pub fn atom(
        &mut self,
        space: Space,
        op: Op,
        ty: Type,
        d: impl Into<Operand>,
        addr: impl Into<Operand>,
        v: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Atom,
            [space.into(), op.into(), ty.into()],
            ops([d.into(), addr.into(), v.into()]),
        )
    }

    /// `red.<space>.<op>.<ty> [addr], v`: an atomic update without a result.
    pub fn red(
        &mut self,
        space: Space,
        op: Op,
        ty: Type,
        addr: impl Into<Operand>,
        v: impl Into<Operand>,
    ) -> R {
        self.inst(
            Opcode::Red,
            [space.into(), op.into(), ty.into()],
            ops([addr.into(), v.into()]),
        )
    }
}
