//! What each opcode's handler requires of its operands: how many (fewest and most) and, at the
//! positions where the handler needs one, what kind (a destination, a memory address).
//!
//! The load step checks every instruction against its [`Arity`] and reports a mismatch as a load
//! error naming the function and the instruction, so that a handler takes its operands as a
//! fixed-size array (`Ctx::ops` in `exec/ctx.rs`) with no count check of its own, and an operand
//! past the fewest as an `Option`. For IR that matches a form of the instruction table, the
//! forms already guarantee the counts and kinds; `tests` checks that every form fits its
//! opcode's arity, so a disagreement between the table and a handler fails there. The match is
//! exhaustive like the dispatcher's: a new opcode needs an arity before the crate compiles.

use crate::code::{DInst, Opnd};
use ptx_ir_core::{Flag, Opcode, Space};

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

use Need::{Any as X, Dst as D, Mem as M};

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
    /// Exactly these operands.
    const fn exact(needs: &'static [Need]) -> Arity {
        Arity {
            min: needs.len() as u8,
            max: needs.len() as u8,
            needs,
        }
    }

    /// These operands, the ones past the first `min` optional.
    const fn opt(min: u8, needs: &'static [Need]) -> Arity {
        Arity {
            min,
            max: needs.len() as u8,
            needs,
        }
    }

    /// No requirement: the instructions the interpreter does not model, whose handler reads no
    /// operand.
    pub const ANY: Arity = Arity {
        min: 0,
        max: u8::MAX,
        needs: &[],
    };

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

/// The arity of `op`'s handler for an instruction with qualifiers `q`, some of which change the
/// operands it reads: a copy's direction and `.multicast::cluster` or `.cp_mask`, `setp`'s
/// boolean combination, `.red`, `.sync`.
pub fn arity(q: &DInst) -> Arity {
    let op = q.op;
    use Opcode::*;
    let flags = q.flags;
    let to_global = q.space == Some(Space::Global);
    let multicast = flags.has(Flag::MulticastCluster);
    match op {
        // integer and floating-point arithmetic, comparison, logic: `d, a{, b{, c...}}`
        Abs | Neg | Popc | Clz | Brev | Bfind | Testp | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2
        | Ex2 | Tanh | Not | Cnot => Arity::exact(&[D, X]),
        Add | Sub | Addc | Subc | Mul | Mul24 | Div | Rem | Copysign | Szext | Bmsk | And | Or
        | Xor | Shl | Shr => Arity::exact(&[D, X, X]),
        Mad | Madc | Mad24 | Sad | Fns | Bfe | Dp4a | Dp2a | Fma | Shf | Prmt | Selp | Slct => {
            Arity::exact(&[D, X, X, X])
        }
        Bfi => Arity::exact(&[D, X, X, X, X]),
        // three-input `min`/`max`
        Min | Max => Arity::opt(3, &[D, X, X, X]),
        // the boolean combination takes a predicate: `setp.lt.and.s32 p, a, b, c`
        Set | Setp if q.oper.is_some() => Arity::exact(&[D, X, X, X]),
        Set | Setp => Arity::exact(&[D, X, X]),
        // `lop3`'s predicate output takes a second source predicate
        Lop3 => Arity::opt(5, &[D, X, X, X, X, X]),
        // a second source (`cvt.f16x2.f32 d, a, b`), random bits (`.rs`)
        Cvt => Arity::opt(2, &[D, X, X, X]),
        CvtPack => Arity::opt(3, &[D, X, X, X]),
        // data movement
        Mov | Isspacep | Cvta | Getctarank | Movmatrix => Arity::exact(&[D, X]),
        Mapa => Arity::exact(&[D, X, X]),
        Shfl if flags.has(Flag::Sync) => Arity::exact(&[D, X, X, X, X]),
        Shfl => Arity::opt(4, &[D, X, X, X, X]),
        // an optional cache policy
        Ld => Arity::opt(2, &[D, M, X]),
        Ldu => Arity::exact(&[D, M]),
        St => Arity::opt(2, &[M, X, X]),
        // `[mbar]` for the complete-tx forms
        StAsync | RedAsync => Arity::opt(2, &[M, X, M]),
        Prefetch | Prefetchu => Arity::exact(&[M]),
        Applypriority | Discard => Arity::exact(&[M, X]),
        Createpolicy => Arity::opt(1, &[D, X, X, X]),
        StBulk | MultimemLdReduce | MultimemSt | MultimemRed => Arity::ANY,
        // asynchronous copies: `[dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}`
        CpAsync => Arity::opt(3, &[M, M, X, X, X]),
        CpAsyncCommitGroup | CpAsyncWaitAll | CpAsyncBulkCommitGroup => Arity::exact(&[]),
        CpAsyncWaitGroup | CpAsyncBulkWaitGroup => Arity::exact(&[X]),
        // to global: `[dst], [src], size{, cache-policy}{, byteMask}`; to shared: `[dst], [src],
        // size, [mbar]{, ctaMask}{, cache-policy}`
        CpAsyncBulk | CpReduceAsyncBulk if to_global && flags.has(Flag::CpMask) => {
            Arity::opt(4, &[M, M, X, X, X])
        }
        CpAsyncBulk | CpReduceAsyncBulk if to_global => Arity::opt(3, &[M, M, X, X, X]),
        CpAsyncBulk | CpReduceAsyncBulk if multicast => Arity::opt(5, &[M, M, X, M, X, X]),
        CpAsyncBulk | CpReduceAsyncBulk => Arity::opt(4, &[M, M, X, M, X, X]),
        CpAsyncBulkPrefetch => Arity::opt(2, &[M, X, X]),
        // to global: `[tensorMap, coords], [src]{, cache-policy}`; to shared: `[dst],
        // [tensorMap, coords], [mbar]{, im2colInfo}{, ctaMask}{, cache-policy}`
        CpAsyncBulkTensor | CpReduceAsyncBulkTensor if to_global => Arity::opt(2, &[X, M, X]),
        CpAsyncBulkTensor | CpReduceAsyncBulkTensor if multicast => {
            Arity::opt(4, &[M, X, M, X, X, X])
        }
        CpAsyncBulkTensor | CpReduceAsyncBulkTensor => Arity::opt(3, &[M, X, M, X, X, X]),
        CpAsyncBulkPrefetchTensor => Arity::opt(1, &[X, X, X]),
        TensormapReplace => Arity::ANY,
        // textures and surfaces
        Tex | Tld4 | Txq | Istypep | Suld | Sust | Sured | Suq => Arity::ANY,
        // control flow: a call is `(returns), target, (params), list-or-_` after loading
        Bra => Arity::exact(&[X]),
        BrxIdx => Arity::exact(&[X, X]),
        Call => Arity::exact(&[X, X, X, X]),
        Ret | Exit | Brkpt | Trap => Arity::exact(&[]),
        // barriers: `a{, b}`, `bar.red`: `d, a{, b}, p`
        Bar | Barrier if flags.has(Flag::Red) => Arity::opt(3, &[D, X, X, X]),
        Bar | Barrier => Arity::opt(1, &[X, X]),
        BarWarpSync | Nanosleep | Pmevent | Setmaxnreg | Stackrestore => Arity::exact(&[X]),
        BarrierCluster | Membar | Griddepcontrol => Arity::exact(&[]),
        // `fence.proxy.tensormap::generic.acquire [addr], size`
        Fence => Arity::opt(0, &[M, X]),
        // atomics: `d, [a], b{, c}` (`c`: `.cas`), reductions `[a], b`; then a cache policy
        Atom => Arity::opt(3, &[D, M, X, X]),
        Red => Arity::opt(2, &[M, X, X]),
        // warp-level: the `.sync` forms end in a membermask
        Vote if flags.has(Flag::Sync) => Arity::exact(&[D, X, X]),
        Vote => Arity::opt(2, &[D, X, X]),
        Match | Redux => Arity::exact(&[D, X, X]),
        Elect => Arity::exact(&[D, X]),
        Activemask | Stacksave => Arity::exact(&[D]),
        // mbarrier
        MbarrierInit | MbarrierExpectTx | MbarrierCompleteTx => Arity::exact(&[M, X]),
        MbarrierInval | CpAsyncMbarrierArrive => Arity::exact(&[M]),
        MbarrierArrive | MbarrierArriveDrop => Arity::opt(2, &[D, M, X]),
        MbarrierTestWait => Arity::exact(&[D, M, X]),
        MbarrierTryWait => Arity::opt(3, &[D, M, X, X]),
        MbarrierPendingCount => Arity::exact(&[D, X]),
        TensormapCpFenceproxy => Arity::ANY,
        ClusterlaunchcontrolTryCancel => Arity::exact(&[M, M]),
        ClusterlaunchcontrolQueryCancel => Arity::exact(&[D, X]),
        // matrix instructions: `d, a, b, c` (the sparse and block-scaled forms' further operands
        // are not modelled)
        WmmaLoad | WmmaStore | WmmaMma => Arity::ANY,
        Mma => Arity::opt(4, &[D, X, X, X, X, X, X, X, X, X]),
        Ldmatrix => Arity::exact(&[D, M]),
        Stmatrix => Arity::exact(&[M, X]),
        // `d, a-desc-or-regs, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans...}}`
        WgmmaMmaAsync => Arity::opt(4, &[D, X, X, X, X, X, X, X, X, X]),
        WgmmaFence | WgmmaCommitGroup => Arity::exact(&[]),
        WgmmaWaitGroup => Arity::exact(&[X]),
        Tcgen05Alloc => Arity::exact(&[M, X]),
        Tcgen05Dealloc => Arity::exact(&[X, X]),
        Tcgen05RelinquishAllocPermit
        | Tcgen05FenceBeforeThreadSync
        | Tcgen05FenceAfterThreadSync => Arity::exact(&[]),
        Tcgen05Ld | Tcgen05St | Tcgen05WaitLd | Tcgen05WaitSt | Tcgen05Cp | Tcgen05Shift
        | Tcgen05Mma | Tcgen05Commit => Arity::ANY,
        // stack: `alloca d, size{, immAlign}`
        Alloca => Arity::opt(2, &[D, X, X]),
        // video
        Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset | Vadd2 | Vsub2
        | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2 | Vadd4 | Vsub4 | Vavrg4 | Vabsdiff4
        | Vmin4 | Vmax4 | Vset4 => Arity::ANY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_ir_core::form::OperandKind;
    use ptx_ir_core::Modifier;

    fn fits(need: Need, kind: OperandKind) -> bool {
        match need {
            Need::Dst => matches!(kind, OperandKind::Dst | OperandKind::Vector),
            Need::Mem => kind == OperandKind::Mem,
            Need::Any => true,
        }
    }

    /// Every form of the instruction table fits its opcode's arity: with its required
    /// qualifiers (any member of each) its required operands are enough, with any one optional
    /// qualifier added all its operands are, and no form has more operands than the handler
    /// takes or an operand of another kind where the handler needs a destination or an address.
    #[test]
    fn every_table_form_fits_its_arity() {
        let mut bad = Vec::new();
        for &op in Opcode::ALL {
            // A call's operands are normalised at load to four.
            if op == Opcode::Call {
                continue;
            }
            for f in op.forms() {
                let base: Vec<Modifier> = f
                    .slots
                    .iter()
                    .filter(|s| s.required)
                    .map(|s| s.members[0])
                    .collect();
                let required = f.operands.iter().filter(|o| !o.optional).count();
                let total = f.operands.len();
                // (qualifiers, operand count they must accept)
                let mut cases: Vec<(Vec<Modifier>, usize)> = vec![(base.clone(), required)];
                let mut k = 0;
                for s in &f.slots {
                    for &m in &s.members {
                        let mut mods = base.clone();
                        if s.required {
                            mods[k] = m;
                            cases.push((mods, required));
                        } else {
                            mods.push(m);
                            cases.push((mods, total));
                        }
                    }
                    if s.required {
                        k += 1;
                    }
                }
                for (mods, n) in cases {
                    let q = DInst::new(op, None, &mods, Default::default()).expect("types fit");
                    let a = arity(&q);
                    let kinds_ok = f
                        .operands
                        .iter()
                        .zip(a.needs)
                        .all(|(o, &need)| fits(need, o.kind));
                    if n < a.min as usize || total > a.max as usize || !kinds_ok {
                        bad.push(format!(
                            "{} `{}` with {:?}: {n}..{total} operands, arity {}..{} {:?}",
                            op.name(),
                            f.text,
                            mods.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
                            a.min,
                            a.max,
                            a.needs
                        ));
                    }
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}
