//! The interpreter's one table of instructions: for each opcode (and the qualifiers that change
//! what it reads), the handler that executes it, the operands that handler reads ([`Arity`]),
//! which lanes it runs for ([`Lanes`]) and, for the commonest, how its warp-wide form is picked
//! ([`Form`], `lanewise.rs`).
//!
//! [`semantics`] is one exhaustive `match` on [`Opcode`] with no wildcard arm, so a line added
//! to the instruction table stops this crate compiling until its arm is written here (its
//! semantics, or an explicit `Unsupported`). Both consumers read the same arm through a
//! [`Visit`]: the load step reads the arity to check every instruction once ([`arity_of`]) and
//! the warp-wide form ([`lanewise_of`]), and the dispatcher runs the handler ([`run`]); the
//! visitor is inlined, so a step costs the same `match` it would with the handlers called
//! directly.

use super::ctx::Ctx;
use super::flow::Flow;
use super::{
    arith, async_copy, bulk, cluster, control, matrix, mbarrier, memops, mma, multimem, proxy,
    stack, tcgen05, tensor, texture, tmem, umma, video, warpgroup, warpops, wgmma, wmma,
};
use crate::arity::{Arity, Need};
use crate::code::DInst;
use crate::error::Error;
use crate::lanewise::{self, Form, Lanewise};
use ptx_ir_core::{Flag, Opcode, Space};

/// A handler: executes the instruction in `Ctx` for its executing lanes.
pub type Handler = fn(&mut Ctx<'_, '_>) -> Result<Flow, Error>;

/// Which lanes a handler runs for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// The lanes whose guard holds; when none does, the instruction is skipped.
    Guarded,
    /// As [`Lanes::Guarded`], but the lanes whose guard is false are first split off into a
    /// group of their own that goes on to the next instruction, so that the executing group is
    /// exactly the executing lanes: for barriers and warp collectives, which block or read the
    /// group's lanes.
    Split,
    /// Run even when no lane's guard holds: branches, calls, returns and `exit` move the group
    /// whichever lanes take them.
    Always,
}

/// What the table says about one instruction.
#[derive(Clone, Copy)]
pub struct Semantics {
    /// Executes it.
    pub run: Handler,
    /// The operands `run` reads.
    pub arity: Arity,
    /// The lanes `run` runs for.
    pub lanes: Lanes,
    /// How its warp-wide form's operation is picked, where it may have one.
    pub form: Option<Form>,
}

/// What a consumer does with an instruction's [`Semantics`].
pub trait Visit {
    /// What it gives back.
    type Out;
    /// Uses the semantics.
    fn visit(self, s: Semantics) -> Self::Out;
}

/// Reads the arity.
struct ReadArity;

impl Visit for ReadArity {
    type Out = Arity;
    #[inline]
    fn visit(self, s: Semantics) -> Arity {
        s.arity
    }
}

/// Reads how the warp-wide form is picked.
struct ReadForm;

impl Visit for ReadForm {
    type Out = Option<Form>;
    #[inline]
    fn visit(self, s: Semantics) -> Option<Form> {
        s.form
    }
}

/// Runs the handler for the context's lanes, of which at least one executes.
struct Run<'x, 'a, 'p>(&'x mut Ctx<'a, 'p>);

impl Visit for Run<'_, '_, '_> {
    type Out = Result<Flow, Error>;
    #[inline(always)]
    fn visit(self, s: Semantics) -> Result<Flow, Error> {
        let x = self.0;
        if s.lanes == Lanes::Split {
            x.split_guard();
        }
        (s.run)(x)
    }
}

/// Runs the handler when no lane's guard holds: only those that run [`Lanes::Always`] do.
struct RunNone<'x, 'a, 'p>(&'x mut Ctx<'a, 'p>);

impl Visit for RunNone<'_, '_, '_> {
    type Out = Result<Flow, Error>;
    fn visit(self, s: Semantics) -> Result<Flow, Error> {
        match s.lanes {
            Lanes::Always => (s.run)(self.0),
            Lanes::Guarded | Lanes::Split => Ok(Flow::Next),
        }
    }
}

/// The operands instruction `d`'s handler reads, which the load step checks.
pub fn arity_of(d: &DInst) -> Arity {
    semantics(d, ReadArity)
}

/// The warp-wide form of instruction `d` ([`crate::lanewise`]), where its arm names one and its
/// operands and qualifiers allow it.
pub fn lanewise_of(d: &DInst) -> Option<Lanewise> {
    lanewise::select(d, semantics(d, ReadForm)?)
}

/// Executes the instruction of `x`.
#[inline]
pub fn run(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let d = x.d;
    if x.emask == 0 {
        return semantics(d, RunNone(x));
    }
    if let Some(l) = &d.lower {
        if let Some(flow) = arith::lowered(x, l)? {
            return Ok(flow);
        }
    }
    semantics(d, Run(x))
}

use Need::{Any as X, Dst as D, Mem as M};

/// Exactly these operands.
const fn exact(needs: &'static [Need]) -> Arity {
    Arity::opt(needs.len() as u8, needs)
}

/// These operands, those past the first `min` optional.
const fn opt(min: u8, needs: &'static [Need]) -> Arity {
    Arity::opt(min, needs)
}

/// Runs for the lanes whose guard holds.
#[inline(always)]
fn guarded<V: Visit>(v: V, run: Handler, arity: Arity) -> V::Out {
    v.visit(Semantics {
        run,
        arity,
        lanes: Lanes::Guarded,
        form: None,
    })
}

/// Runs for the lanes whose guard holds, and has a warp-wide form picked by `form`.
#[inline(always)]
fn warp_wide<V: Visit>(v: V, run: Handler, arity: Arity, form: Form) -> V::Out {
    v.visit(Semantics {
        run,
        arity,
        lanes: Lanes::Guarded,
        form: Some(form),
    })
}

/// Runs for exactly the lanes whose guard holds, as a group of their own.
#[inline(always)]
fn split<V: Visit>(v: V, run: Handler, arity: Arity) -> V::Out {
    v.visit(Semantics {
        run,
        arity,
        lanes: Lanes::Split,
        form: None,
    })
}

/// Runs whether or not any lane's guard holds.
#[inline(always)]
fn always<V: Visit>(v: V, run: Handler, arity: Arity) -> V::Out {
    v.visit(Semantics {
        run,
        arity,
        lanes: Lanes::Always,
        form: None,
    })
}

/// Moves every lane on: instructions with no effect the interpreter models (hints, waits on
/// what is always complete here).
fn next(_: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    Ok(Flow::Next)
}

/// The semantics of `d` (its opcode and the qualifiers that change what its handler reads: a
/// copy's direction and `.multicast::cluster` or `.cp_mask`, `setp`'s boolean combination,
/// `.red`, `.sync`), given to `v`.
#[inline(always)]
pub fn semantics<V: Visit>(d: &DInst, v: V) -> V::Out {
    use Opcode::*;
    // Read only in the arms of the opcodes they concern.
    let flags = &d.flags;
    let to_global = || d.space == Some(Space::Global);
    let multicast = || flags.has(Flag::MulticastCluster);
    match d.op {
        // integer arithmetic: `d, a{, b{, c...}}`
        Add | Sub => warp_wide(v, arith::add_sub, exact(&[D, X, X]), lanewise::add_sub),
        Addc | Subc => guarded(v, arith::add_sub, exact(&[D, X, X])),
        Mul => warp_wide(v, arith::mul, exact(&[D, X, X]), lanewise::mul),
        Mad => warp_wide(v, arith::mad, exact(&[D, X, X, X]), lanewise::mad),
        Madc => guarded(v, arith::mad, exact(&[D, X, X, X])),
        Mul24 => guarded(v, arith::mul24, exact(&[D, X, X])),
        Mad24 => guarded(v, arith::mul24, exact(&[D, X, X, X])),
        Sad => guarded(v, arith::sad, exact(&[D, X, X, X])),
        Div => guarded(v, arith::div, exact(&[D, X, X])),
        Rem => guarded(v, arith::rem, exact(&[D, X, X])),
        Abs | Neg => warp_wide(v, arith::abs_neg, exact(&[D, X]), lanewise::abs_neg),
        // three-input `min`/`max`
        Min | Max => warp_wide(v, arith::min_max, opt(3, &[D, X, X, X]), lanewise::min_max),
        Popc | Clz | Brev => guarded(v, arith::bit_unary, exact(&[D, X])),
        Bfind => guarded(v, arith::bfind, exact(&[D, X])),
        Fns => guarded(v, arith::fns, exact(&[D, X, X, X])),
        Bfe => guarded(v, arith::bfe, exact(&[D, X, X, X])),
        Bfi => guarded(v, arith::bfi, exact(&[D, X, X, X, X])),
        Szext => guarded(v, arith::szext, exact(&[D, X, X])),
        Bmsk => guarded(v, arith::bmsk, exact(&[D, X, X])),
        Dp4a | Dp2a => guarded(v, arith::dot, exact(&[D, X, X, X])),
        // floating point
        Testp => guarded(v, arith::testp, exact(&[D, X])),
        Copysign => guarded(v, arith::copysign, exact(&[D, X, X])),
        Fma => warp_wide(v, arith::fma, exact(&[D, X, X, X]), lanewise::fma),
        Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => {
            guarded(v, arith::float_unary, exact(&[D, X]))
        }
        // comparison and selection; the boolean combination takes a predicate:
        // `setp.lt.and.s32 p, a, b, c`
        Set | Setp if d.oper.is_some() => guarded(v, arith::setp, exact(&[D, X, X, X])),
        Setp => warp_wide(v, arith::setp, exact(&[D, X, X]), lanewise::setp),
        Set => guarded(v, arith::setp, exact(&[D, X, X])),
        Selp => warp_wide(v, arith::selp, exact(&[D, X, X, X]), lanewise::selp),
        Slct => guarded(v, arith::slct, exact(&[D, X, X, X])),
        // logic and shift
        And | Or | Xor => warp_wide(v, arith::logic, exact(&[D, X, X]), lanewise::logic),
        Not | Cnot => warp_wide(v, arith::logic, exact(&[D, X]), lanewise::logic),
        // `lop3`'s predicate output takes a second source predicate
        Lop3 => guarded(v, arith::lop3, opt(5, &[D, X, X, X, X, X])),
        Shf => guarded(v, arith::shf, exact(&[D, X, X, X])),
        Shl | Shr => warp_wide(v, arith::shift, exact(&[D, X, X]), lanewise::shift),
        // conversion: a second source (`cvt.f16x2.f32 d, a, b`), random bits (`.rs`)
        Cvt => warp_wide(v, arith::cvt, opt(2, &[D, X, X, X]), lanewise::cvt),
        CvtPack => guarded(v, arith::cvt_pack, opt(3, &[D, X, X, X])),
        // data movement
        Mov => warp_wide(v, memops::mov, exact(&[D, X]), lanewise::mov),
        Shfl if flags.has(Flag::Sync) => split(v, warpops::shfl, exact(&[D, X, X, X, X])),
        Shfl => split(v, warpops::shfl, opt(4, &[D, X, X, X, X])),
        Prmt => guarded(v, arith::prmt, exact(&[D, X, X, X])),
        // an optional cache policy
        Ld => guarded(v, memops::ld, opt(2, &[D, M, X])),
        Ldu => guarded(v, memops::ld, exact(&[D, M])),
        St => guarded(v, memops::st, opt(2, &[M, X, X])),
        Prefetch | Prefetchu => guarded(v, next, exact(&[M])),
        Applypriority | Discard => guarded(v, next, exact(&[M, X])),
        Createpolicy => guarded(v, memops::createpolicy, opt(1, &[D, X, X, X])),
        Isspacep => guarded(v, memops::isspacep, exact(&[D, X])),
        Cvta => guarded(v, memops::cvta, exact(&[D, X])),
        Mapa => guarded(v, memops::mapa, exact(&[D, X, X])),
        Getctarank => guarded(v, memops::getctarank, exact(&[D, X])),
        // `[mbar]` for the complete-tx forms
        StAsync | RedAsync => guarded(v, memops::store_async, opt(2, &[M, X, M])),
        // `[a], size, initval`
        StBulk => guarded(v, memops::st_bulk, exact(&[M, X, X])),
        // `d, [a]`; `[a], b`
        MultimemLdReduce => guarded(v, multimem::multimem, exact(&[D, M])),
        MultimemSt | MultimemRed => guarded(v, multimem::multimem, exact(&[M, X])),
        // asynchronous copies: `[dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}`
        CpAsync => guarded(v, async_copy::cp_async, opt(3, &[M, M, X, X, X])),
        CpAsyncCommitGroup | CpAsyncWaitAll => guarded(v, async_copy::group, exact(&[])),
        CpAsyncWaitGroup => guarded(v, async_copy::group, exact(&[X])),
        // to global: `[dst], [src], size{, cache-policy}{, byteMask}`; to shared: `[dst], [src],
        // size, [mbar]{, ctaMask}{, cache-policy}`
        CpAsyncBulk | CpReduceAsyncBulk if to_global() && flags.has(Flag::CpMask) => {
            guarded(v, bulk::bulk, opt(4, &[M, M, X, X, X]))
        }
        CpAsyncBulk | CpReduceAsyncBulk if to_global() => {
            guarded(v, bulk::bulk, opt(3, &[M, M, X, X, X]))
        }
        CpAsyncBulk | CpReduceAsyncBulk if multicast() => {
            guarded(v, bulk::bulk, opt(5, &[M, M, X, M, X, X]))
        }
        CpAsyncBulk | CpReduceAsyncBulk => guarded(v, bulk::bulk, opt(4, &[M, M, X, M, X, X])),
        CpAsyncBulkPrefetch => guarded(v, bulk::prefetch, opt(2, &[M, X, X])),
        CpAsyncBulkCommitGroup => guarded(v, bulk::group, exact(&[])),
        CpAsyncBulkWaitGroup => guarded(v, bulk::group, exact(&[X])),
        // to global: `[tensorMap, coords], [src]{, cache-policy}`; to shared: `[dst],
        // [tensorMap, coords], [mbar]{, im2colInfo}{, ctaMask}{, cache-policy}`
        CpAsyncBulkTensor | CpReduceAsyncBulkTensor if to_global() => {
            guarded(v, tensor::tensor, opt(2, &[X, M, X]))
        }
        CpAsyncBulkTensor | CpReduceAsyncBulkTensor if multicast() => {
            guarded(v, tensor::tensor, opt(4, &[M, X, M, X, X, X]))
        }
        CpAsyncBulkTensor | CpReduceAsyncBulkTensor => {
            guarded(v, tensor::tensor, opt(3, &[M, X, M, X, X, X]))
        }
        CpAsyncBulkPrefetchTensor => guarded(v, tensor::prefetch, opt(1, &[X, X, X])),
        // `[addr], {ord,} new_val`
        TensormapReplace => guarded(v, tensor::replace, opt(2, &[M, X, X])),
        // textures and surfaces
        // `d{|p}, [a, {b,} c]{, lod | dPdx, dPdy}{, e}{, f}`
        Tex => guarded(v, texture::tex, opt(2, &[D, X, X, X, X, X])),
        Tld4 => guarded(v, texture::tld4, opt(2, &[D, X, X, X])),
        Txq => guarded(v, texture::txq, opt(2, &[D, X, X])),
        Istypep => guarded(v, texture::istypep, exact(&[D, X])),
        Suld => guarded(v, texture::suld, exact(&[D, X])),
        Sust => guarded(v, texture::sust, exact(&[X, X])),
        Sured => guarded(v, texture::sured, exact(&[X, X])),
        Suq => guarded(v, texture::suq, exact(&[D, X])),
        // control flow: a call is `(returns), target, (params), list-or-_` after loading
        Bra => always(v, control::bra, exact(&[X])),
        BrxIdx => always(v, control::brx, exact(&[X, X])),
        Call => always(v, control::call, exact(&[X, X, X, X])),
        Ret => always(v, control::ret, exact(&[])),
        Exit => always(v, |x| Ok(Flow::Exit(x.emask)), exact(&[])),
        // barriers: `a{, b}`, `bar.red`: `d, a{, b}, p`
        Bar | Barrier if flags.has(Flag::Red) => guarded(v, control::bar, opt(3, &[D, X, X, X])),
        Bar | Barrier => guarded(v, control::bar, opt(1, &[X, X])),
        BarWarpSync => split(v, warpops::bar_warp_sync, exact(&[X])),
        BarrierCluster => split(v, control::barrier_cluster, exact(&[])),
        // One instruction at a time in program order is sequentially consistent across proxies
        // too, and a dependent grid never runs concurrently with this one. Proxy fences between
        // the generic and the async proxy are recorded (`proxy`).
        Membar | Griddepcontrol => guarded(v, proxy::fence_instruction, exact(&[])),
        // `fence.proxy.tensormap::generic.acquire [addr], size`
        Fence => guarded(v, proxy::fence_instruction, opt(0, &[M, X])),
        // atomics: `d, [a], b{, c}` (`c`: `.cas`), reductions `[a], b`; then a cache policy
        Atom => guarded(v, memops::atom, opt(3, &[D, M, X, X])),
        Red => guarded(v, memops::atom, opt(2, &[M, X, X])),
        // warp-level: the `.sync` forms end in a membermask
        Vote if flags.has(Flag::Sync) => split(v, warpops::vote, exact(&[D, X, X])),
        Vote => split(v, warpops::vote, opt(2, &[D, X, X])),
        Match => split(v, warpops::match_sync, exact(&[D, X, X])),
        Redux => split(v, warpops::redux, exact(&[D, X, X])),
        Elect => split(v, warpops::elect, exact(&[D, X])),
        Activemask => guarded(v, warpops::activemask, exact(&[D])),
        // mbarrier
        MbarrierInit | MbarrierExpectTx | MbarrierCompleteTx => {
            guarded(v, mbarrier::mbarrier, exact(&[M, X]))
        }
        MbarrierInval => guarded(v, mbarrier::mbarrier, exact(&[M])),
        MbarrierArrive | MbarrierArriveDrop => guarded(v, mbarrier::mbarrier, opt(2, &[D, M, X])),
        MbarrierTestWait => guarded(v, mbarrier::mbarrier, exact(&[D, M, X])),
        MbarrierTryWait => guarded(v, mbarrier::mbarrier, opt(3, &[D, M, X, X])),
        MbarrierPendingCount => guarded(v, mbarrier::mbarrier, exact(&[D, X])),
        CpAsyncMbarrierArrive => guarded(v, async_copy::mbarrier_arrive, exact(&[M])),
        TensormapCpFenceproxy => guarded(v, tensor::cp_fenceproxy, exact(&[M, M, X])),
        ClusterlaunchcontrolTryCancel => guarded(v, cluster::try_cancel, exact(&[M, M])),
        ClusterlaunchcontrolQueryCancel => guarded(v, cluster::query_cancel, exact(&[D, X])),
        // matrix instructions: `d, a, b, c` (the sparse and block-scaled forms' further operands
        // are not modelled)
        // `v, [p]{, stride}`; `[p], v{, stride}`; `d, a, b, c`
        WmmaLoad => split(v, wmma::load, opt(2, &[D, M, X])),
        WmmaStore => split(v, wmma::store, opt(2, &[M, X, X])),
        WmmaMma => split(v, wmma::mma, exact(&[D, X, X, X])),
        Mma => split(v, mma::mma, opt(4, &[D, X, X, X, X, X, X, X, X, X])),
        Ldmatrix => split(v, matrix::matrix, exact(&[D, M])),
        Stmatrix => split(v, matrix::matrix, exact(&[M, X])),
        Movmatrix => split(v, matrix::matrix, exact(&[D, X])),
        // `d, a-desc-or-regs, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans...}}`
        WgmmaMmaAsync => split(v, wgmma::wgmma, opt(4, &[D, X, X, X, X, X, X, X, X, X])),
        WgmmaFence | WgmmaCommitGroup => split(v, wgmma::wgmma, exact(&[])),
        WgmmaWaitGroup => split(v, wgmma::wgmma, exact(&[X])),
        Tcgen05Alloc => split(v, tmem::tmem, exact(&[M, X])),
        Tcgen05Dealloc => split(v, tmem::tmem, exact(&[X, X])),
        Tcgen05RelinquishAllocPermit => split(v, tmem::tmem, exact(&[])),
        Tcgen05FenceBeforeThreadSync | Tcgen05FenceAfterThreadSync => guarded(v, next, exact(&[])),
        // `v, [taddr]{, off}` (`.red`: `v, d, [taddr]{, off}`); `[taddr]{, off}, v`
        Tcgen05Ld => split(v, tcgen05::ld_st, opt(2, &[D, X, X, X])),
        Tcgen05St => split(v, tcgen05::ld_st, opt(2, &[M, X, X])),
        Tcgen05WaitLd | Tcgen05WaitSt => split(v, tcgen05::wait, exact(&[])),
        Tcgen05Shift => guarded(v, tcgen05::shift, exact(&[M])),
        Tcgen05Commit => guarded(v, tcgen05::commit, opt(1, &[M, X])),
        Tcgen05Cp => guarded(v, tcgen05::cp, exact(&[M, X])),
        // `[d], a, b{, [sp-meta]}, idesc{, [scale-A], [scale-B]}{, {disable}}, enable-d
        // {, scale-d | zero-column-mask}`
        Tcgen05Mma => guarded(v, umma::mma, opt(5, &[M, X, X, X, X, X, X, X])),
        // stack: `alloca d, size{, immAlign}`
        Stacksave => guarded(v, stack::stacksave, exact(&[D])),
        Stackrestore => guarded(v, stack::stackrestore, exact(&[X])),
        Alloca => guarded(v, stack::alloca, opt(2, &[D, X, X])),
        // video
        Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vset => {
            guarded(v, video::scalar, opt(3, &[D, X, X, X]))
        }
        Vmad => guarded(v, video::vmad, exact(&[D, X, X, X])),
        Vadd2 | Vsub2 | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2 | Vadd4 | Vsub4 | Vavrg4
        | Vabsdiff4 | Vmin4 | Vmax4 | Vset4 => guarded(v, video::simd, exact(&[D, X, X, X])),
        // miscellaneous
        Brkpt | Trap => guarded(v, control::trap, exact(&[])),
        Nanosleep | Pmevent => guarded(v, next, exact(&[X])),
        Setmaxnreg => split(v, warpgroup::setmaxnreg, exact(&[X])),
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
                    let a = arity_of(&q);
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
