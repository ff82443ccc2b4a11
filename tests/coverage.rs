//! The README's coverage table: every instruction of the PTX ISA 9.0 instruction chapter
//! (section 9.7), the opcode that represents it, the number of forms, an example that must
//! parse and round-trip, and whether the interpreter executes every form: each instance of
//! `tests/common/forms.rs` (one or more per form) runs in a CTA of 128 threads with its
//! registers declared for it, and counts as executing when it runs or stops with an error that
//! names what went wrong (undefined behaviour, a fault, a trap); `no` when it answers
//! `Unsupported`. The table between the `coverage` markers in README.md is generated from this
//! list and the instruction table; run with `PTX_BLESS=1` to rewrite it.

mod common;

use ptx_ir::ir::{Instruction, Opcode, Operand, Statement};
use ptx_ir_interp::{Error, Program};
use std::collections::{BTreeMap, BTreeSet};

/// (ISA section, instruction as the ISA names it, an instance).
const ISA: &[(&str, &str, &str)] = &[
    ("9.7.1 Integer", "add", "add.s32 %r1, %r2, %r3;"),
    ("9.7.1 Integer", "sub", "sub.u64 %rd1, %rd2, 1;"),
    ("9.7.1 Integer", "mul", "mul.wide.s32 %rd1, %r2, %r3;"),
    ("9.7.1 Integer", "mad", "mad.lo.s32 %r1, %r2, %r3, %r4;"),
    ("9.7.1 Integer", "mul24", "mul24.lo.u32 %r1, %r2, %r3;"),
    ("9.7.1 Integer", "mad24", "mad24.hi.s32 %r1, %r2, %r3, %r4;"),
    ("9.7.1 Integer", "sad", "sad.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.1 Integer", "div", "div.s32 %r1, %r2, %r3;"),
    ("9.7.1 Integer", "rem", "rem.u32 %r1, %r2, %r3;"),
    ("9.7.1 Integer", "abs", "abs.s32 %r1, %r2;"),
    ("9.7.1 Integer", "neg", "neg.s64 %rd1, %rd2;"),
    ("9.7.1 Integer", "min", "min.u32 %r1, %r2, %r3;"),
    ("9.7.1 Integer", "max", "max.relu.s32 %r1, %r2, %r3;"),
    ("9.7.1 Integer", "popc", "popc.b64 %r1, %rd2;"),
    ("9.7.1 Integer", "clz", "clz.b32 %r1, %r2;"),
    ("9.7.1 Integer", "bfind", "bfind.shiftamt.u32 %r1, %r2;"),
    ("9.7.1 Integer", "fns", "fns.b32 %r1, %r2, %r3, 1;"),
    ("9.7.1 Integer", "brev", "brev.b32 %r1, %r2;"),
    ("9.7.1 Integer", "bfe", "bfe.u32 %r1, %r2, 8, 4;"),
    ("9.7.1 Integer", "bfi", "bfi.b32 %r1, %r2, %r3, 8, 4;"),
    ("9.7.1 Integer", "szext", "szext.clamp.s32 %r1, %r2, %r3;"),
    ("9.7.1 Integer", "bmsk", "bmsk.wrap.b32 %r1, %r2, %r3;"),
    ("9.7.1 Integer", "dp4a", "dp4a.u32.s32 %r1, %r2, %r3, %r4;"),
    ("9.7.1 Integer", "dp2a", "dp2a.lo.s32.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.2 Extended precision", "add.cc", "add.cc.u32 %r1, %r2, %r3;"),
    ("9.7.2 Extended precision", "addc", "addc.cc.u32 %r1, %r2, %r3;"),
    ("9.7.2 Extended precision", "sub.cc", "sub.cc.u32 %r1, %r2, %r3;"),
    ("9.7.2 Extended precision", "subc", "subc.u32 %r1, %r2, %r3;"),
    ("9.7.2 Extended precision", "mad.cc", "mad.lo.cc.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.2 Extended precision", "madc", "madc.hi.cc.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.3 Floating point", "testp", "testp.finite.f32 %p1, %f1;"),
    ("9.7.3 Floating point", "copysign", "copysign.f64 %fd1, %fd2, %fd3;"),
    ("9.7.3 Floating point", "add", "add.rz.ftz.f32 %f1, %f2, %f3;"),
    ("9.7.3 Floating point", "sub", "sub.rn.f64 %fd1, %fd2, %fd3;"),
    ("9.7.3 Floating point", "mul", "mul.rm.f32 %f1, %f2, %f3;"),
    ("9.7.3 Floating point", "fma", "fma.rn.sat.f32 %f1, %f2, %f3, %f4;"),
    ("9.7.3 Floating point", "mad", "mad.rn.f64 %fd1, %fd2, %fd3, %fd4;"),
    ("9.7.3 Floating point", "div", "div.full.ftz.f32 %f1, %f2, %f3;"),
    ("9.7.3 Floating point", "abs", "abs.ftz.f32 %f1, %f2;"),
    ("9.7.3 Floating point", "neg", "neg.f64 %fd1, %fd2;"),
    ("9.7.3 Floating point", "min", "min.NaN.xorsign.abs.f32 %f1, %f2, %f3;"),
    ("9.7.3 Floating point", "max", "max.ftz.f32 %f1, %f2, %f3;"),
    ("9.7.3 Floating point", "rcp", "rcp.rn.f64 %fd1, %fd2;"),
    ("9.7.3 Floating point", "rcp.approx.ftz.f64", "rcp.approx.ftz.f64 %fd1, %fd2;"),
    ("9.7.3 Floating point", "sqrt", "sqrt.approx.ftz.f32 %f1, %f2;"),
    ("9.7.3 Floating point", "rsqrt", "rsqrt.approx.f32 %f1, %f2;"),
    ("9.7.3 Floating point", "rsqrt.approx.ftz.f64", "rsqrt.approx.ftz.f64 %fd1, %fd2;"),
    ("9.7.3 Floating point", "sin", "sin.approx.ftz.f32 %f1, %f2;"),
    ("9.7.3 Floating point", "cos", "cos.approx.f32 %f1, %f2;"),
    ("9.7.3 Floating point", "lg2", "lg2.approx.ftz.f32 %f1, %f2;"),
    ("9.7.3 Floating point", "ex2", "ex2.approx.ftz.f32 %f1, %f2;"),
    ("9.7.3 Floating point", "tanh", "tanh.approx.f32 %f1, %f2;"),
    ("9.7.4 Half precision", "add", "add.rn.f16x2 %r1, %r2, %r3;"),
    ("9.7.4 Half precision", "sub", "sub.bf16 %h1, %h2, %h3;"),
    ("9.7.4 Half precision", "mul", "mul.ftz.sat.f16 %h1, %h2, %h3;"),
    ("9.7.4 Half precision", "fma", "fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;"),
    ("9.7.4 Half precision", "neg", "neg.f16x2 %r1, %r2;"),
    ("9.7.4 Half precision", "abs", "abs.bf16 %h1, %h2;"),
    ("9.7.4 Half precision", "min", "min.NaN.f16 %h1, %h2, %h3;"),
    ("9.7.4 Half precision", "max", "max.xorsign.abs.bf16x2 %r1, %r2, %r3;"),
    ("9.7.4 Half precision", "tanh", "tanh.approx.f16x2 %r1, %r2;"),
    ("9.7.4 Half precision", "ex2", "ex2.approx.ftz.bf16 %h1, %h2;"),
    ("9.7.5 Mixed precision", "add", "add.rn.f32.f16 %f1, %h2, %f3;"),
    ("9.7.5 Mixed precision", "sub", "sub.rz.sat.f32.bf16 %f1, %h2, %f3;"),
    ("9.7.5 Mixed precision", "fma", "fma.rn.f32.bf16 %f1, %h2, %h3, %f4;"),
    ("9.7.6 Comparison and selection", "set", "set.lt.and.u32.f32 %r1, %f2, %f3, %p1;"),
    ("9.7.6 Comparison and selection", "setp", "setp.ne.s32 %p1|%p2, %r1, %r2;"),
    ("9.7.6 Comparison and selection", "selp", "selp.b32 %r1, %r2, %r3, %p1;"),
    ("9.7.6 Comparison and selection", "slct", "slct.s32.f32 %r1, %r2, %r3, %f1;"),
    ("9.7.7 Half comparison", "set", "set.gt.u32.f16x2 %r1, %r2, %r3;"),
    ("9.7.7 Half comparison", "setp", "setp.geu.bf16x2 %p1|%p2, %r1, %r2;"),
    ("9.7.8 Logic and shift", "and", "and.pred %p1, %p2, %p3;"),
    ("9.7.8 Logic and shift", "or", "or.b64 %rd1, %rd2, %rd3;"),
    ("9.7.8 Logic and shift", "xor", "xor.b32 %r1, %r2, %r3;"),
    ("9.7.8 Logic and shift", "not", "not.b16 %rs1, %rs2;"),
    ("9.7.8 Logic and shift", "cnot", "cnot.b32 %r1, %r2;"),
    ("9.7.8 Logic and shift", "lop3", "lop3.b32 %r1, %r2, %r3, %r4, 0x96;"),
    ("9.7.8 Logic and shift", "shf", "shf.l.wrap.b32 %r1, %r2, %r3, %r4;"),
    ("9.7.8 Logic and shift", "shl", "shl.b64 %rd1, %rd2, 3;"),
    ("9.7.8 Logic and shift", "shr", "shr.s32 %r1, %r2, %r3;"),
    ("9.7.9 Data movement", "mov", "mov.u32 %r1, %tid.x;"),
    ("9.7.9 Data movement", "shfl (deprecated)", "shfl.bfly.b32 %r1, %r2, 1, 31;"),
    ("9.7.9 Data movement", "shfl.sync", "shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;"),
    ("9.7.9 Data movement", "prmt", "prmt.b32.f4e %r1, %r2, %r3, %r4;"),
    ("9.7.9 Data movement", "ld", "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];"),
    ("9.7.9 Data movement", "ld.global.nc", "ld.global.nc.L1::evict_last.u32 %r1, [%rd1];"),
    ("9.7.9 Data movement", "ldu", "ldu.global.f32 %f1, [%rd1];"),
    ("9.7.9 Data movement", "st", "st.shared.relaxed.cta.b32 [%r1], %r2;"),
    ("9.7.9 Data movement", "st.async", "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];"),
    ("9.7.9 Data movement", "st.bulk", "st.bulk.weak.shared::cta [%r1], %r2, 0;"),
    ("9.7.9 Data movement", "multimem.ld_reduce", "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];"),
    ("9.7.9 Data movement", "multimem.st", "multimem.st.relaxed.sys.global.f32 [%rd1], %f1;"),
    ("9.7.9 Data movement", "multimem.red", "multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;"),
    ("9.7.9 Data movement", "prefetch", "prefetch.global.L2::evict_last [%rd1];"),
    ("9.7.9 Data movement", "prefetchu", "prefetchu.L1 [%rd1];"),
    ("9.7.9 Data movement", "applypriority", "applypriority.global.L2::evict_normal [%rd1], 128;"),
    ("9.7.9 Data movement", "discard", "discard.global.L2 [%rd1], 128;"),
    ("9.7.9 Data movement", "createpolicy", "createpolicy.fractional.L2::evict_last.b64 %rd1, 0.5;"),
    ("9.7.9 Data movement", "isspacep", "isspacep.shared::cluster %p1, %rd1;"),
    ("9.7.9 Data movement", "cvta", "cvta.to.global.u64 %rd1, %rd2;"),
    ("9.7.9 Data movement", "cvt", "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;"),
    ("9.7.9 Data movement", "cvt.pack", "cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;"),
    ("9.7.9 Data movement", "mapa", "mapa.shared::cluster.u64 %rd1, %rd2, %r1;"),
    ("9.7.9 Data movement", "getctarank", "getctarank.shared::cluster.u64 %r1, %rd1;"),
    ("9.7.9 Async copy", "cp.async", "cp.async.ca.shared.global.L2::128B [%r1], [%rd1], 8;"),
    ("9.7.9 Async copy", "cp.async.commit_group", "cp.async.commit_group;"),
    ("9.7.9 Async copy", "cp.async.wait_group", "cp.async.wait_group 1;"),
    ("9.7.9 Async copy", "cp.async.wait_all", "cp.async.wait_all;"),
    ("9.7.9 Async copy", "cp.async.bulk", "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 256;"),
    ("9.7.9 Async copy", "cp.reduce.async.bulk", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], 256;"),
    ("9.7.9 Async copy", "cp.async.bulk.prefetch", "cp.async.bulk.prefetch.L2.global [%rd1], 256;"),
    ("9.7.9 Async copy", "cp.async.bulk.tensor", "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2}], [%r3];"),
    ("9.7.9 Async copy", "cp.reduce.async.bulk.tensor", "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r2}], [%r3];"),
    ("9.7.9 Async copy", "cp.async.bulk.prefetch.tensor", "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];"),
    ("9.7.9 Async copy", "cp.async.bulk.commit_group", "cp.async.bulk.commit_group;"),
    ("9.7.9 Async copy", "cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read 0;"),
    ("9.7.9 Async copy", "tensormap.replace", "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;"),
    ("9.7.10 Texture", "tex", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex_a, {%f5, %f6}];"),
    ("9.7.10 Texture", "tld4", "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex_a, {%f5, %f6}];"),
    ("9.7.10 Texture", "txq", "txq.width.b32 %r1, [tex_a];"),
    ("9.7.10 Texture", "istypep", "istypep.texref %p1, tex_a;"),
    ("9.7.11 Surface", "suld", "suld.b.2d.v2.b32.trap {%r1, %r2}, [surf_a, {%r3, %r4}];"),
    ("9.7.11 Surface", "sust", "sust.b.1d.b32.clamp [surf_a, {%r1}], %r2;"),
    ("9.7.11 Surface", "sured", "sured.b.add.1d.u32.zero [surf_a, {%r1}], %r2;"),
    ("9.7.11 Surface", "suq", "suq.width.b32 %r1, [surf_a];"),
    ("9.7.12 Control flow", "bra", "bra.uni L1;"),
    ("9.7.12 Control flow", "brx.idx", "brx.idx %r1, tlist;"),
    ("9.7.12 Control flow", "call", "call.uni (%r1), f, (%r2, %r3);"),
    ("9.7.12 Control flow", "ret", "ret.uni;"),
    ("9.7.12 Control flow", "exit", "exit;"),
    ("9.7.13 Synchronization", "bar", "bar.sync 1, 64;"),
    ("9.7.13 Synchronization", "barrier", "barrier.red.popc.aligned.u32 %r1, 0, %p1;"),
    ("9.7.13 Synchronization", "bar.warp.sync", "bar.warp.sync -1;"),
    ("9.7.13 Synchronization", "barrier.cluster", "barrier.cluster.arrive.relaxed.aligned;"),
    ("9.7.13 Synchronization", "membar", "membar.gl;"),
    ("9.7.13 Synchronization", "fence", "fence.proxy.async.shared::cta;"),
    ("9.7.13 Synchronization", "atom", "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;"),
    ("9.7.13 Synchronization", "red", "red.shared::cluster.add.u32 [%r1], %r2;"),
    ("9.7.13 Synchronization", "red.async", "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];"),
    ("9.7.13 Synchronization", "vote (deprecated)", "vote.ballot.b32 %r1, %p1;"),
    ("9.7.13 Synchronization", "vote.sync", "vote.sync.all.pred %p1, !%p2, -1;"),
    ("9.7.13 Synchronization", "match.sync", "match.all.sync.b64 %r1|%p1, %rd1, -1;"),
    ("9.7.13 Synchronization", "activemask", "activemask.b32 %r1;"),
    ("9.7.13 Synchronization", "redux.sync", "redux.sync.add.u32 %r1, %r2, -1;"),
    ("9.7.13 Synchronization", "griddepcontrol", "griddepcontrol.wait;"),
    ("9.7.13 Synchronization", "elect.sync", "elect.sync _|%p1, -1;"),
    ("9.7.13 Synchronization", "mbarrier.init", "mbarrier.init.shared::cta.b64 [%r1], 32;"),
    ("9.7.13 Synchronization", "mbarrier.inval", "mbarrier.inval.shared.b64 [%r1];"),
    ("9.7.13 Synchronization", "mbarrier.expect_tx", "mbarrier.expect_tx.relaxed.cluster.shared::cta.b64 [%r1], 512;"),
    ("9.7.13 Synchronization", "mbarrier.complete_tx", "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 512;"),
    ("9.7.13 Synchronization", "mbarrier.arrive", "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1];"),
    ("9.7.13 Synchronization", "mbarrier.arrive_drop", "mbarrier.arrive_drop.shared.b64 %rd1, [%r1];"),
    ("9.7.13 Synchronization", "cp.async.mbarrier.arrive", "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];"),
    ("9.7.13 Synchronization", "mbarrier.test_wait", "mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r1], %r2;"),
    ("9.7.13 Synchronization", "mbarrier.try_wait", "mbarrier.try_wait.acquire.cluster.shared::cta.b64 %p1, [%r1], %rd1, 1000;"),
    ("9.7.13 Synchronization", "mbarrier.pending_count", "mbarrier.pending_count.b64 %r1, %rd1;"),
    ("9.7.13 Synchronization", "tensormap.cp_fenceproxy", "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;"),
    ("9.7.13 Synchronization", "clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r2];"),
    ("9.7.13 Synchronization", "clusterlaunchcontrol.query_cancel", "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %q1;"),
    ("9.7.14 Warp MMA", "wmma.load", "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], 16;"),
    ("9.7.14 Warp MMA", "wmma.store", "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, 16;"),
    ("9.7.14 Warp MMA", "wmma.mma", "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16};"),
    ("9.7.14 Warp MMA", "mma", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};"),
    ("9.7.14 Warp MMA", "mma.sp", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0;"),
    ("9.7.14 Warp MMA", "ldmatrix", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];"),
    ("9.7.14 Warp MMA", "stmatrix", "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r2, %r3};"),
    ("9.7.14 Warp MMA", "movmatrix", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;"),
    ("9.7.15 Warpgroup MMA", "wgmma.mma_async", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 1;"),
    ("9.7.15 Warpgroup MMA", "wgmma.mma_async.sp", "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0;"),
    ("9.7.15 Warpgroup MMA", "wgmma.fence", "wgmma.fence.sync.aligned;"),
    ("9.7.15 Warpgroup MMA", "wgmma.commit_group", "wgmma.commit_group.sync.aligned;"),
    ("9.7.15 Warpgroup MMA", "wgmma.wait_group", "wgmma.wait_group.sync.aligned 1;"),
    ("9.7.16 tcgen05", "tcgen05.alloc", "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;"),
    ("9.7.16 tcgen05", "tcgen05.dealloc", "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;"),
    ("9.7.16 tcgen05", "tcgen05.relinquish_alloc_permit", "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;"),
    ("9.7.16 tcgen05", "tcgen05.ld", "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];"),
    ("9.7.16 tcgen05", "tcgen05.st", "tcgen05.st.sync.aligned.16x64b.x1.b32 [%r1], {%r2};"),
    ("9.7.16 tcgen05", "tcgen05.wait", "tcgen05.wait::ld.sync.aligned;"),
    ("9.7.16 tcgen05", "tcgen05.wait", "tcgen05.wait::st.sync.aligned;"),
    ("9.7.16 tcgen05", "tcgen05.cp", "tcgen05.cp.cta_group::1.128x256b [%r1], %rd1;"),
    ("9.7.16 tcgen05", "tcgen05.shift", "tcgen05.shift.cta_group::1.down [%r1];"),
    ("9.7.16 tcgen05", "tcgen05.mma", "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;"),
    ("9.7.16 tcgen05", "tcgen05.mma.sp", "tcgen05.mma.sp.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, [%r3], %r2, %p1;"),
    ("9.7.16 tcgen05", "tcgen05.mma.ws", "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;"),
    ("9.7.16 tcgen05", "tcgen05.mma.ws.sp", "tcgen05.mma.ws.sp.cta_group::1.kind::i8 [%r1], %rd1, %rd2, [%r3], %r2, %p1;"),
    ("9.7.16 tcgen05", "tcgen05.commit", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd1];"),
    ("9.7.16 tcgen05", "tcgen05.fence", "tcgen05.fence::before_thread_sync;"),
    ("9.7.16 tcgen05", "tcgen05.fence", "tcgen05.fence::after_thread_sync;"),
    ("9.7.17 Stack manipulation", "stacksave", "stacksave.u64 %rd1;"),
    ("9.7.17 Stack manipulation", "stackrestore", "stackrestore.u64 %rd1;"),
    ("9.7.17 Stack manipulation", "alloca", "alloca.u64 %rd1, %rd2, 8;"),
    ("9.7.18 Video", "vadd", "vadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h1, %r4;"),
    ("9.7.18 Video", "vsub", "vsub.u32.u32.u32 %r1, %r2, %r3;"),
    ("9.7.18 Video", "vabsdiff", "vabsdiff.u32.u32.u32.add %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vmin", "vmin.s32.s32.s32 %r1, %r2, %r3;"),
    ("9.7.18 Video", "vmax", "vmax.u32.u32.u32.max %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vshl", "vshl.u32.u32.u32.clamp %r1, %r2, %r3;"),
    ("9.7.18 Video", "vshr", "vshr.s32.s32.u32.wrap %r1, %r2, %r3;"),
    ("9.7.18 Video", "vmad", "vmad.s32.s32.s32.shr15 %r1, -%r2, %r3, %r4;"),
    ("9.7.18 Video", "vset", "vset.s32.u32.lt %r1, %r2, %r3;"),
    ("9.7.18 Video", "vadd2", "vadd2.s32.s32.u32.sat %r1.h10, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vsub2", "vsub2.u32.u32.u32.add %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vavrg2", "vavrg2.s32.s32.s32 %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vabsdiff2", "vabsdiff2.u32.u32.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vmin2", "vmin2.s32.s32.s32 %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vmax2", "vmax2.u32.u32.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vset2", "vset2.u32.u32.ne %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vadd4", "vadd4.s32.s32.s32.sat %r1.b3210, %r2.b3210, %r3.b7654, %r4;"),
    ("9.7.18 Video", "vsub4", "vsub4.u32.u32.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vavrg4", "vavrg4.u32.u32.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vabsdiff4", "vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vmin4", "vmin4.s32.s32.s32 %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vmax4", "vmax4.u32.u32.u32 %r1, %r2, %r3, %r4;"),
    ("9.7.18 Video", "vset4", "vset4.u32.u32.eq %r1, %r2, %r3, %r4;"),
    ("9.7.19 Miscellaneous", "brkpt", "brkpt;"),
    ("9.7.19 Miscellaneous", "nanosleep", "nanosleep.u32 100;"),
    ("9.7.19 Miscellaneous", "pmevent", "pmevent.mask 3;"),
    ("9.7.19 Miscellaneous", "trap", "trap;"),
    ("9.7.19 Miscellaneous", "setmaxnreg", "setmaxnreg.dec.sync.aligned.u32 40;"),
];

fn parse_one(inst: &str) -> Result<Opcode, String> {
    let src = format!(
        ".version 9.0\n.target sm_100a\n.address_size 64\n.entry k()\n{{\nL1:\n\t{inst}\n}}\n"
    );
    let m =
        ptx_ir::roundtrip::check_text(&src, "coverage").map_err(|e| format!("`{inst}`: {e}"))?;
    let f = m.functions().next().ok_or("no function")?;
    f.statements()
        .and_then(|b| {
            b.iter().find_map(|s| match s {
                Statement::Inst(i) => Some(i.opcode),
                _ => None,
            })
        })
        .ok_or_else(|| format!("`{inst}`: no instruction"))
}

/// What the interpreter made of one form instance.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Run {
    /// It executed, or stopped with an error that names what went wrong (undefined behaviour,
    /// a memory fault, a trap): the instruction has semantics.
    Executes,
    /// `Unsupported`, with the interpreter's message.
    Unsupported(String),
    /// The harness could not build a program around it (the message says why).
    Harness(String),
}

/// The registers, predicates, labels and variables an instance names, so that the harness can
/// declare them.
#[derive(Default)]
struct Names {
    regs: BTreeSet<String>,
    preds: BTreeSet<String>,
    labels: BTreeSet<String>,
    vars: BTreeSet<String>,
    /// `brx.idx` target lists.
    tables: BTreeSet<String>,
}

fn collect(m: &ptx_ir::ir::Module, o: &Operand, pred: bool, n: &mut Names) {
    let name = |x| m.names.get(x).to_string();
    match o {
        Operand::Reg { name: x, .. } if pred => {
            n.preds.insert(name(*x));
        }
        Operand::Reg { name: x, .. } => {
            n.regs.insert(name(*x));
        }
        Operand::Not(x) => {
            n.preds.insert(name(*x));
        }
        Operand::Sym { name: x, .. } => {
            n.vars.insert(name(*x));
        }
        Operand::Addr { base: Some(x), .. } => {
            n.regs.insert(name(*x));
        }
        Operand::Pair(p) => {
            collect(m, &p[0], true, n);
            collect(m, &p[1], true, n);
        }
        Operand::Vector(l) | Operand::Tuple(l) | Operand::Args(l) => {
            for x in l.iter() {
                collect(m, x, false, n);
            }
        }
        Operand::Neg(x) => collect(m, x, pred, n),
        _ => {}
    }
}

fn names_of(m: &ptx_ir::ir::Module, body: &[Statement], n: &mut Names) {
    for s in body {
        match s {
            Statement::Inst(i) => names_of_inst(m, i, n),
            Statement::Block(b) => names_of(m, b, n),
            _ => {}
        }
    }
}

fn names_of_inst(m: &ptx_ir::ir::Module, i: &Instruction, n: &mut Names) {
    if let Some(g) = &i.guard {
        n.preds.insert(m.names.get(g.pred).to_string());
    }
    // A branch names a label; a predicate position of the matching form, a predicate.
    let form = i
        .opcode
        .forms()
        .iter()
        .find(|f| f.match_mods(&i.mods).is_ok() && f.match_operands(&i.operands));
    for (k, o) in i.operands.iter().enumerate() {
        let kind = form.and_then(|f| f.operands.get(k)).map(|s| s.kind);
        match (i.opcode, o) {
            (Opcode::Bra, Operand::Reg { name, .. }) => {
                n.labels.insert(m.names.get(*name).to_string());
            }
            (Opcode::BrxIdx, Operand::Reg { name, .. }) if k == 1 => {
                n.tables.insert(m.names.get(*name).to_string());
            }
            _ => collect(m, o, kind == Some(ptx_ir::ir::form::OperandKind::Pred), n),
        }
    }
}

/// Runs one instance (a function body) in a CTA of 128 threads: every register it names is
/// declared with one width (64-bit ones pointing at a global scratch buffer), predicates as
/// `.pred`, variables as global buffers, and branch targets as labels after it. The widths
/// are tried in turn (an instance's registers need not all be 64 bits), and the first that
/// executes counts.
fn run_instance(body: &str) -> Run {
    let head = ".version 9.0\n.target sm_100a\n.address_size 64\n";
    let m = match ptx_ir::text::parse(&format!("{head}.visible .entry k()\n{{\n{body}\n}}\n")) {
        Ok(m) => m,
        Err(e) => return Run::Harness(format!("does not parse: {e}")),
    };
    let mut n = Names::default();
    if let Some(b) = m.functions().next().and_then(|f| f.statements()) {
        names_of(&m, b, &mut n);
        for s in b {
            if let Statement::Label(l) = s {
                n.labels.remove(m.names.get(*l));
            }
        }
    }
    let regs: Vec<&String> = n.regs.iter().filter(|r| !n.preds.contains(*r)).collect();
    let mut last = String::new();
    let mut unsupported = None;
    for bits in [64, 32, 16, 128] {
        let mut src = format!("{head}.global .align 256 .b8 gscratch[65536];\n");
        for v in &n.vars {
            src.push_str(&format!(".global .align 256 .b8 {v}[4096];\n"));
        }
        src.push_str(".visible .entry k()\n{\n.shared .align 256 .b8 sscratch[16384];\n");
        for p in &n.preds {
            src.push_str(&format!(".reg .pred {p};\n"));
        }
        for r in &regs {
            src.push_str(&format!(".reg .b{bits} {r};\n"));
            if bits == 64 {
                src.push_str(&format!("mov.u64 {r}, gscratch;\n"));
            }
        }
        for t in &n.tables {
            src.push_str(&format!("{t}: .branchtargets {t}_end;\n"));
        }
        // A warpgroup MMA needs a fence before it (else it stops, undefined, before its
        // semantics run).
        if body.contains("wgmma.mma_async") {
            src.push_str("wgmma.fence.sync.aligned;\n");
        }
        src.push_str(body);
        src.push_str("\nret;\n");
        for l in &n.labels {
            src.push_str(&format!("{l}: ret;\n"));
        }
        for t in &n.tables {
            src.push_str(&format!("{t}_end: ret;\n"));
        }
        src.push_str("}\n");
        let m = match ptx_ir::text::parse(&src) {
            Ok(m) => m,
            Err(e) => {
                last = format!("does not parse with {bits}-bit registers: {e}");
                continue;
            }
        };
        let p = match Program::load(&m) {
            Ok(p) => p,
            Err(e) => {
                last = format!("does not load with {bits}-bit registers: {e}");
                continue;
            }
        };
        match p.launch("k").block([128, 1, 1]).fuel(100_000).run() {
            Ok(_) => return Run::Executes,
            Err(f) => match f.error {
                Error::Unsupported { what, .. } => unsupported = Some(what),
                Error::Load { message, .. } => last = message,
                _ => return Run::Executes,
            },
        }
    }
    match unsupported {
        Some(what) => Run::Unsupported(what),
        None => Run::Harness(last),
    }
}

/// Every form instance of `tests/common/forms.rs` through the interpreter: per opcode, the
/// instances that answer `Unsupported` (an opcode with none is `yes`), and those the harness
/// could not run.
fn interpreter_column() -> (BTreeMap<Opcode, Vec<String>>, Vec<String>) {
    let mut unsupported: BTreeMap<Opcode, Vec<String>> = BTreeMap::new();
    let mut harness = Vec::new();
    for body in common::forms::CORE.iter().chain(common::forms::SYNC) {
        let Ok(m) = ptx_ir::text::parse(&format!(
            ".version 9.0\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n{body}\n}}\n"
        )) else {
            harness.push(format!("`{body}`: does not parse"));
            continue;
        };
        let mut ops = BTreeSet::new();
        let mut n = Names::default();
        if let Some(b) = m.functions().next().and_then(|f| f.statements()) {
            names_of(&m, b, &mut n);
            collect_ops(b, &mut ops);
        }
        match run_instance(body) {
            Run::Executes => {
                for op in ops {
                    unsupported.entry(op).or_default();
                }
            }
            Run::Unsupported(what) => {
                for op in ops {
                    unsupported
                        .entry(op)
                        .or_default()
                        .push(format!("`{body}`: {what}"));
                }
            }
            Run::Harness(why) => harness.push(format!("`{body}`: {why}")),
        }
    }
    (unsupported, harness)
}

fn collect_ops(body: &[Statement], ops: &mut BTreeSet<Opcode>) {
    for s in body {
        match s {
            Statement::Inst(i) => {
                ops.insert(i.opcode);
            }
            Statement::Block(b) => collect_ops(b, ops),
            _ => {}
        }
    }
}

/// The opcodes whose instances the interpreter still answers `Unsupported` for, and why. Issue
/// #28 is done when this list is empty; the test below fails on any other `no`, on an entry
/// that has become `yes`, and on an instance the harness cannot run.
const GAPS: &[(&str, &str)] = &[];

#[test]
fn interpreter_column_has_no_unlisted_gap() {
    let (unsupported, harness) = interpreter_column();
    let mut failures: Vec<String> = harness
        .iter()
        .map(|h| format!("the harness cannot run {h}"))
        .collect();
    for (op, v) in &unsupported {
        let listed = GAPS.iter().any(|(name, _)| *name == op.name());
        if !v.is_empty() && !listed {
            failures.push(format!(
                "`{}` answers Unsupported: {}",
                op.name(),
                v.join("; ")
            ));
        }
        if v.is_empty() && listed {
            failures.push(format!("`{}` executes now: remove it from GAPS", op.name()));
        }
    }
    for op in Opcode::ALL {
        if !unsupported.contains_key(op) {
            failures.push(format!(
                "`{}` has no instance in tests/common/forms.rs",
                op.name()
            ));
        }
    }
    let yes = unsupported.values().filter(|v| v.is_empty()).count();
    println!(
        "interpreter: {yes} of {} opcodes execute every instance",
        unsupported.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn table() -> Result<String, String> {
    let (unsupported, _) = interpreter_column();
    let mut out = String::from(
        "| ISA section | instruction | IR opcode | family | forms | reader/printer | interpreter |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mut seen = std::collections::BTreeSet::new();
    for (section, name, inst) in ISA {
        let op = parse_one(inst)?;
        seen.insert(op);
        let interp = match unsupported.get(&op) {
            Some(v) if v.is_empty() => "yes".to_string(),
            Some(v) => format!("no ({} of its instances)", v.len()),
            None => "untested".to_string(),
        };
        out.push_str(&format!(
            "| {section} | `{name}` | `{}` | {} | {} | yes | {interp} |\n",
            op.name(),
            op.family().name(),
            op.forms().len()
        ));
    }
    let missing: Vec<_> = Opcode::ALL
        .iter()
        .filter(|o| !seen.contains(o))
        .map(|o| o.name())
        .collect();
    if !missing.is_empty() {
        return Err(format!("opcodes without an ISA row: {missing:?}"));
    }
    let yes = unsupported.values().filter(|v| v.is_empty()).count();
    out.push_str(&format!(
        "\n{} ISA instructions, {} opcodes, {} forms. The interpreter executes every instance \
         of {yes} of the {} opcodes.\n",
        ISA.len(),
        Opcode::ALL.len(),
        Opcode::ALL.iter().map(|o| o.forms().len()).sum::<usize>(),
        Opcode::ALL.len()
    ));
    Ok(out)
}

#[test]
fn readme_coverage_table_is_current() {
    let generated = table().unwrap_or_else(|e| panic!("{e}"));
    let readme_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let (begin, end) = ("<!-- coverage:begin -->\n", "<!-- coverage:end -->");
    let (Some(b), Some(e)) = (readme.find(begin), readme.find(end)) else {
        panic!("README.md lacks the coverage markers");
    };
    let current = &readme[b + begin.len()..e];
    if current != generated {
        if std::env::var_os("PTX_BLESS").is_some() {
            let new = format!("{}{generated}{}", &readme[..b + begin.len()], &readme[e..]);
            std::fs::write(&readme_path, new).unwrap();
        } else {
            panic!("README coverage table is out of date; run with PTX_BLESS=1");
        }
    }
}
