//! The instruction table against the PTX ISA 9.0 for the synchronization and communication,
//! warp-level MMA, warpgroup MMA and tcgen05 families: one concrete instance of every form of
//! every instruction of those families parses and round-trips (a test checks that no form is left
//! without an instance), and instances the ISA rules out are rejected with an error located on
//! the instruction's line.

use ptx_ir::ir::{Family, Item, Opcode, Statement};

/// The families this file covers.
const FAMILIES: &[Family] = &[
    Family::Sync,
    Family::WarpMma,
    Family::Wgmma,
    Family::Tcgen05,
];

/// Instances the ISA accepts, at least one per form.
const POSITIVE: &[&str] = &[
    // ---------------------------------------------------------------- bar, barrier
    "bar.sync 0;",
    "bar.cta.sync 1, 64;",
    "bar.arrive 1, 64;",
    "bar.red.popc.u32 %r1, 0, %p1;",
    "bar.red.popc.u32 %r1, 0, 32, !%p1;",
    "bar.red.and.pred %p2, 0, %p1;",
    "bar.cta.red.or.pred %p2, 1, 64, !%p1;",
    "barrier.sync.aligned 0;",
    "barrier.sync 2, %r1;",
    "barrier.cta.arrive.aligned 1, 64;",
    "barrier.red.popc.aligned.u32 %r1, 0, %p1;",
    "barrier.red.popc.u32 %r1, 0, 32, %p1;",
    "barrier.red.or.pred %p2, 0, !%p1;",
    "barrier.cta.red.and.aligned.pred %p2, 0, 32, %p1;",
    "bar.warp.sync 0xffffffff;",
    "barrier.cluster.arrive;",
    "barrier.cluster.arrive.relaxed.aligned;",
    "barrier.cluster.wait.acquire;",
    "barrier.cluster.wait.aligned;",
    // ---------------------------------------------------------------- membar, fence
    "membar.gl;",
    "membar.proxy.alias;",
    "membar.proxy.async.shared::cta;",
    "fence.sc.cluster;",
    "fence.cta;",
    "fence.acquire.sync_restrict::shared::cluster.cluster;",
    "fence.release.sync_restrict::shared::cta.cluster;",
    "fence.mbarrier_init.release.cluster;",
    "fence.proxy.async;",
    "fence.proxy.async.global;",
    "fence.proxy.tensormap::generic.release.gpu;",
    "fence.proxy.tensormap::generic.acquire.sys [%rd1], 128;",
    "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;",
    "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;",
    // ---------------------------------------------------------------- atom, red, red.async
    "atom.acquire.gpu.global.add.L2::cache_hint.u32 %r1, [%rd1], 1, %rd2;",
    "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;",
    "atom.shared::cluster.max.s64 _, [%r1], %rd2;",
    "atom.global.cas.b16 %rs1, [%rd1], %rs2, %rs3;",
    "atom.acq_rel.sys.global.cas.b128 %q1, [%rd1], %q2, %q3;",
    "atom.shared::cta.exch.L2::cache_hint.b128 %q1, [%r1], %q2, %rd2;",
    "atom.add.noftz.bf16x2 %r1, [%rd1], %r2;",
    "atom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};",
    "atom.global.v8.bf16.max.noftz {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, [%rd1], \
     {%h8, %h9, %h10, %h11, %h12, %h13, %h14, %h15};",
    "atom.relaxed.cta.global.v2.f16x2.min.noftz.L2::cache_hint {%r1, %r2}, [%rd1], {%r3, %r4}, %rd2;",
    "red.global.release.sys.and.b64 [%rd1], %rd2;",
    "red.shared::cluster.max.u32 [%r1+4], 0;",
    "red.shared::cta.add.noftz.f16 [%r1], %rs1;",
    "red.global.v2.f32.add.L2::cache_hint [%rd1], {%f1, %f2}, %rd2;",
    "red.relaxed.gpu.global.v8.f16.min.noftz [%rd1], {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7};",
    "red.global.v4.bf16x2.max.noftz [%rd1], {%r1, %r2, %r3, %r4};",
    "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [%r1], %r2, [%r3];",
    "red.async.relaxed.cluster.mbarrier::complete_tx::bytes.max.s32 [%rd1], %r2, [%rd3];",
    "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.xor.b32 [%r1], %r2, [%r3];",
    "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [%r1], %rd2, [%r3];",
    "red.async.release.gpu.global.add.u32 [%rd1], %r2;",
    "red.async.mmio.release.sys.global.add.s64 [%rd1], %rd2;",
    // ---------------------------------------------------------------- warp votes and friends
    "vote.all.pred %p1, %p2;",
    "vote.ballot.b32 %r1, !%p1;",
    "vote.sync.uni.pred %p1, %p2, 0xffffffff;",
    "vote.ballot.sync.b32 %r1, %p1, %r2;",
    "match.any.sync.b32 %r1, %r2, %r3;",
    "match.all.sync.b64 %r1|%p1, %rd1, 0xffffffff;",
    "activemask.b32 %r1;",
    "redux.sync.min.s32 %r1, %r2, 0xffffffff;",
    "redux.sync.xor.b32 %r1, %r2, %r3;",
    "redux.sync.max.abs.NaN.f32 %f1, %f2, %r1;",
    "griddepcontrol.launch_dependents;",
    "griddepcontrol.wait;",
    "elect.sync %r1|%p1, 0xffffffff;",
    "elect.sync _|%p1, %r2;",
    // ---------------------------------------------------------------- mbarrier
    "mbarrier.init.shared::cta.b64 [%r1], 32;",
    "mbarrier.init.b64 [%rd1], %r2;",
    "mbarrier.inval.shared.b64 [%rd1];",
    "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%r1], 256;",
    "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 256;",
    "mbarrier.arrive.shared.b64 %rd1, [%r1];",
    "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1], 2;",
    "mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 %rd1, [%r1], 1024;",
    "mbarrier.arrive.expect_tx.shared::cluster.b64 _, [%r1], 1024;",
    "mbarrier.arrive.noComplete.release.cta.shared.b64 %rd1, [%r1], 1;",
    "mbarrier.arrive_drop.relaxed.b64 %rd1, [%rd2], 4;",
    "mbarrier.arrive_drop.cluster.shared::cluster.b64 _, [%r1];",
    "mbarrier.arrive_drop.expect_tx.shared::cta.release.cta.b64 %rd1, [%r1], 64;",
    "mbarrier.arrive_drop.expect_tx.shared::cluster.relaxed.cluster.b64 _, [%r1], 64;",
    "mbarrier.arrive_drop.noComplete.b64 %rd1, [%rd2], 1;",
    "mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 %p1, [%r1], %r2;",
    "mbarrier.test_wait.b64 %p1, [%rd1], %rd2;",
    "mbarrier.try_wait.relaxed.cta.b64 %p1, [%rd1], %rd2, 1000;",
    "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;",
    "mbarrier.pending_count.b64 %r1, %rd1;",
    "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];",
    "cp.async.mbarrier.arrive.b64 [%rd1];",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned \
     [%rd1], [%r1], 128;",
    // ---------------------------------------------------------------- clusterlaunchcontrol
    "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%r1], [%r2];",
    "clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [%rd1], [%rd2];",
    "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %rq1;",
    "clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r1, %rq1;",
    "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r1, %r2, %r3, _}, %rq1;",
    // ---------------------------------------------------------------- wmma
    "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;",
    "wmma.load.b.sync.aligned.col.m8n32k16.bf16 {%r1, %r2}, [%rd1];",
    "wmma.load.c.sync.aligned.col.m32n8k16.shared.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%r1];",
    "wmma.load.b.sync.aligned.col.m16n16k8.tf32 {%r1, %r2, %r3, %r4}, [%rd1], 16;",
    "wmma.load.c.sync.aligned.row.m16n16k8.shared::cta.f32 {%f1, %f2, %f3, %f4}, [%r1];",
    "wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd1}, [%rd1];",
    "wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd1];",
    "wmma.load.b.sync.aligned.col.m8n8k32.global.u4 {%r1}, [%rd1], 32;",
    "wmma.load.a.sync.aligned.row.m8n8k128.b1 {%r1}, [%rd1];",
    "wmma.load.b.sync.aligned.col.m8n8k128.b1 {%r1}, [%rd1];",
    "wmma.load.c.sync.aligned.col.m8n8k32.s32 {%r1, %r2}, [%rd1];",
    "wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd1], {%r1, %r2, %r3, %r4}, %r5;",
    "wmma.store.d.sync.aligned.col.m8n8k128.s32 [%rd1], {%r1, %r2};",
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 [%rd1], {%f1, %f2, %f3, %f4};",
    "wmma.store.d.sync.aligned.row.m8n8k4.shared.f64 [%r1], {%fd1, %fd2};",
    "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16 {%f1, %f2}, {%r1, %r2}, {%r3, %r4}, {%r5, %r6};",
    "wmma.mma.sync.aligned.col.row.m8n32k16.s32.u8.s8.s32.satfinite {%r1}, {%r2}, {%r3}, {%r4};",
    "wmma.mma.sync.aligned.row.row.m32n8k16.f32.bf16.bf16.f32 {%f1}, {%r1}, {%r2}, {%f2};",
    "wmma.mma.sync.aligned.col.col.m16n16k8.f32.tf32.tf32.f32 {%f1}, {%r1}, {%r2}, {%f2};",
    "wmma.mma.sync.aligned.row.col.m8n8k4.rn.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};",
    "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
    "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
    // ---------------------------------------------------------------- mma
    "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2}, {%r3, %r4}, {%r5, %r6, %r7, %r8};",
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4}, {%r5}, {%r6, %r7};",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f5, %f6, %f7, %f8};",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f5, %f6, %f7, %f8};",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
    "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%r9, %r10};",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {0, 1}, %r8, {0, 1};",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {%h1, %h2}, %r8, {%h3, %h4};",
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {0, 1}, %r8, {0, 0};",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};",
    "mma.sync.aligned.m16n8k16.row.col.rz.f64.f64.f64.f64 {%fd1, %fd2, %fd3, %fd4}, {%fd5, %fd6, %fd7, %fd8}, {%fd9, %fd10}, {%fd11, %fd12, %fd13, %fd14};",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};",
    "mma.sync.aligned.m8n8k32.row.col.s32.u4.u4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
    "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};",
    "mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4}, {%r5, %r6}, {%r7, %r8}, %r9, 0x1;",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0;",
    "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0x1;",
    "mma.sp.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0;",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, {%r7, %r8, %r9, %r10}, {%r11, %r12}, %r13, 0;",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0, %r10, {2, 1}, %r11, {2, 3};",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0, %r10, {%h1, %h2}, %r11, {%h3, %h4};",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0, %r10, {0, 1}, %r11, {0, 1};",
    "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, %r8}, {%r9, %r10, %r11, %r12}, %r13, 0x1;",
    "mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.u4.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12}, {%r13, %r14, %r15, %r16}, %r17, 0x0;",
    // ---------------------------------------------------------------- ldmatrix, stmatrix, movmatrix
    "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];",
    "ldmatrix.sync.aligned.m8n16.x1.b8x16.b6x16_p32 {%r1}, [%r2];",
    "ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8x16.b4x16_p64 {%r1, %r2, %r3, %r4}, [%r5];",
    "stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [%r1], {%r2, %r3};",
    "stmatrix.sync.aligned.m8n8.x1.b16 [%rd1], {%r2};",
    "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;",
    // ---------------------------------------------------------------- wgmma
    "wgmma.fence.sync.aligned;",
    "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r1, %r2}, %rd1, %rd2, %p1, 1, -1, 0, 1;",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, %rd2, 1, -1, -1, 1;",
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
    "wgmma.mma_async.sync.aligned.m64n120k16.f32.bf16.bf16 {%f1, %f2}, {%r1, %r2, %r3, %r4}, %rd2, %p1, -1, -1, 0;",
    "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %rd1, %rd2, 0, -1, -1;",
    "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2 {%r1, %r2}, %rd1, %rd2, %p1, -1, 1;",
    "wgmma.mma_async.sync.aligned.m64n24k32.s32.s8.u8.satfinite {%r1, %r2}, {%r3, %r4, %r5, %r6}, %rd2, 1;",
    "wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc {%r1, %r2}, %rd1, %rd2, %p1;",
    "wgmma.mma_async.sp.sync.aligned.m64n8k32.f16.f16.f16 {%r1, %r2}, %rd1, %rd2, %r3, 0, %p1, 1, 1, 0, 0;",
    "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2}, {%r1, %r2, %r3, %r4}, %rd2, %r5, 1, %p1, 1, 1, 0;",
    "wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd2, %r1, 0, 1, -1, -1, 1, 1;",
    "wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.bf16.bf16 {%f1, %f2}, {%r1, %r2, %r3, %r4}, %rd2, %r5, 0, 1, -1, -1, 1;",
    "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1;",
    "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e5m2.e4m3 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, %rd2, %r5, 0, %p1, 1, -1;",
    "wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.u8.u8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %r5, 0, %p1;",
    "wgmma.commit_group.sync.aligned;",
    "wgmma.wait_group.sync.aligned 1;",
    // ---------------------------------------------------------------- tcgen05
    "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], 64;",
    "tcgen05.alloc.cta_group::1.sync.aligned.b32 [%rd1], %r2;",
    "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;",
    "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;",
    "tcgen05.ld.sync.aligned.16x64b.x2.pack::16b.b32 {%r1, %r2}, [%r3];",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r3];",
    "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r3], 8;",
    "tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.f32 {%f1, %f2}, %f3, [%r1];",
    "tcgen05.ld.red.sync.aligned.16x32bx2.x4.max.NaN.f32 {%f1, %f2, %f3, %f4}, %f5, [%r1], 16;",
    "tcgen05.ld.red.sync.aligned.32x32b.x2.u32.max {%r1, %r2}, %r3, [%r4];",
    "tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.s32 {%r1, %r2}, %r3, [%r4], 2;",
    "tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32 [%r1], {%r2};",
    "tcgen05.st.sync.aligned.16x32bx2.x2.b32 [%r1], 4, {%r2, %r3};",
    "tcgen05.wait::ld.sync.aligned;",
    "tcgen05.wait::st.sync.aligned;",
    "tcgen05.cp.cta_group::1.128x256b [%r1], %rd1;",
    "tcgen05.cp.cta_group::2.128x128b.b8x16.b6x16_p32 [%r1], %rd1;",
    "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%r1], %rd1;",
    "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23.b8x16.b4x16_p64 [%r1], %rd1;",
    "tcgen05.cp.cta_group::2.32x128b.warpx4 [%r1], %rd1;",
    "tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r1], %rd1;",
    "tcgen05.shift.cta_group::2.down [%r1];",
    "tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r2, {%r3, %r4, %r5, %r6}, %p1;",
    "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1, 2;",
    "tcgen05.mma.cta_group::2.kind::f16.ashift.collector::a::lastuse [%r1], [%r2], %rd2, %r3, %p1, 3;",
    "tcgen05.mma.cta_group::1.kind::i8.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1;",
    "tcgen05.mma.cta_group::1.kind::i8.ashift [%r1], [%r2], %rd2, %r3, {%r4, %r5, %r6, %r7}, %p1;",
    "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;",
    "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16.collector::a::use [%r1], [%r2], %rd2, %r3, [%r4], [%r5], 1;",
    "tcgen05.mma.sp.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, [%r2], %r3, %p1;",
    "tcgen05.mma.sp.cta_group::1.kind::f16.ashift [%r1], [%r2], %rd2, [%r3], %r4, {%r5, %r6, %r7, %r8}, %p1, 2;",
    "tcgen05.mma.sp.cta_group::2.kind::i8 [%r1], %rd1, %rd2, [%r2], %r3, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, %p1;",
    "tcgen05.mma.sp.cta_group::1.kind::i8.collector::a::discard [%r1], [%r2], %rd2, [%r3], %r4, %p1;",
    "tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd2, [%r2], %r3, [%r4], [%r5], %p1;",
    "tcgen05.mma.sp.cta_group::1.kind::mxf8f6f4.block_scale.block32 [%r1], [%r2], %rd2, [%r3], %r4, [%r5], [%r6], %p1;",
    "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b0::fill [%r1], %rd1, %rd2, %r2, %p1, %rd3;",
    "tcgen05.mma.ws.cta_group::1.kind::i8 [%r1], [%r2], %rd2, %r3, %p1;",
    "tcgen05.mma.ws.sp.cta_group::1.kind::f16.collector::b3::lastuse [%r1], %rd1, %rd2, [%r2], %r3, %p1, %rd3;",
    "tcgen05.mma.ws.sp.cta_group::1.kind::f8f6f4 [%r1], [%r2], %rd2, [%r3], %r4, %p1;",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r1], %rs1;",
    "tcgen05.commit.cta_group::2.mbarrier::arrive::one.b64 [%rd1];",
    "tcgen05.fence::before_thread_sync;",
    "tcgen05.fence::after_thread_sync;",
];

/// Instances the ISA rules out, with the reason.
const NEGATIVE: &[(&str, &str)] = &[
    ("bar.red.popc.u32 %r1, 0;", "the predicate operand c is required"),
    ("bar.sync.aligned 0;", "`bar` takes no `.aligned` (`barrier` does)"),
    ("bar.warp.sync;", "membermask is required"),
    ("barrier.cluster.arrive.acquire;", "arrive is `.release` or `.relaxed`"),
    ("barrier.cluster.wait.release;", "wait is `.acquire` only"),
    ("membar.gpu;", "membar levels are .cta, .gl, .sys"),
    ("fence.acquire.sync_restrict::shared::cta.cluster;", "::shared::cta restricts a release"),
    ("fence.release.sync_restrict::shared::cluster.gpu;", "sync_restrict requires .cluster"),
    ("fence.mbarrier_init.acquire.cluster;", "op_restrict is release only"),
    ("fence.proxy.tensormap::generic.acquire.gpu [%rd1], %r1;", "size is an immediate"),
    ("fence.proxy.async::generic.release.sync_restrict::shared::cluster.cluster;", "release restricts ::shared::cta"),
    ("atom.global.v8.f32.add {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};", ".v8 is for 16-bit types"),
    ("atom.shared.v2.f32.add {%f1, %f2}, [%r1], {%f3, %f4};", "vector atom is .global only"),
    ("atom.global.add.f16 %rs1, [%rd1], %rs2;", "f16 add requires .noftz"),
    ("red.global.add.u32 %r1, [%rd1], 1;", "red has no destination"),
    ("red.acq_rel.global.add.u32 [%rd1], 1;", "red is .relaxed or .release"),
    ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s64 [%r1], %rd2, [%r3];", "relaxed add is .u32, .s32, .u64"),
    ("red.async.release.gpu.global.add.u32 [%rd1], %r2, [%rd3];", "the release form takes no mbarrier"),
    ("red.async.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [%r1], %r2, [%r3];", ".sem and .scope are required"),
    ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.and.b64 [%r1], %rd2, [%r3];", "and/or/xor are .b32"),
    ("vote.all.pred %p1, %p2, 0xffffffff;", "membermask only with .sync"),
    ("vote.sync.all.pred %p1, %p2;", "vote.sync requires membermask"),
    ("match.any.sync.b16 %r1, %r2, %r3;", "match is .b32 or .b64"),
    ("redux.sync.add.f32 %f1, %f2, %r1;", "f32 redux is min/max"),
    ("elect.sync %p1;", "membermask is required"),
    ("activemask.b64 %rd1;", "activemask is .b32"),
    ("griddepcontrol.launch;", "not an action"),
    ("mbarrier.arrive.noComplete.relaxed.b64 %rd1, [%r1], 1;", ".noComplete is .release only"),
    ("mbarrier.arrive.expect_tx.b64 %rd1, [%r1];", "txCount is required"),
    ("mbarrier.test_wait.b64 %p1, [%rd1], %rd2, 100;", "test_wait has no suspend hint"),
    ("mbarrier.init.shared::cluster.b64 [%r1], 1;", "init is .shared or .shared::cta"),
    ("mbarrier.expect_tx.acquire.b64 [%r1], 1;", "expect_tx is .relaxed only"),
    ("cp.async.mbarrier.arrive.shared::cluster.b64 [%r1];", "state space is .shared{::cta}"),
    ("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], %r2;", "size is an immediate"),
    ("clusterlaunchcontrol.try_cancel.async.shared::cta.b128 [%r1], [%r2];", "the completion mechanism is required"),
    ("clusterlaunchcontrol.query_cancel.get_first_ctaid::x.v4.b32.b128 {%r1, %r2, %r3, %r4}, %rq1;", "::x extracts one coordinate"),
    ("wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r1}, [%rd1];", "sub-byte A is row-major"),
    ("wmma.load.a.sync.aligned.row.m16n16k16.f32 {%f1}, [%rd1];", "f32 is a C type"),
    ("wmma.load.a.sync.aligned.row.m16n16k16.f16 %r1, [%rd1];", "the fragment is a vector"),
    ("wmma.store.d.sync.aligned.row.m16n16k8.s32 [%rd1], {%r1};", "m16n16k8 stores f32"),
    (
        "wmma.mma.sync.aligned.row.row.m8n8k32.s32.s4.s4.s32 {%r1}, {%r2}, {%r3}, {%r4};",
        "sub-byte is row.col",
    ),
    (
        "mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2};",
        "only m8n8k4 takes layouts other than row.col",
    ),
    ("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2};", "sparse takes metadata and selector"),
    ("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2}, %r3, %r4;", "the selector is a constant"),
    ("mma.sp.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32 {%f1}, {%r1}, {%r2}, {%f2}, %r3, 0;", "kind::f8f6f4 sparse needs sp::ordered_metadata"),
    ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f1}, {%r1}, {%r2}, {%f2}, %r3, {0, 0}, %r4, {0, 0};", "mxf4nvf4 needs .scale_vec"),
    ("mma.sync.aligned.m16n8k8.row.col.f32.e4m3.e4m3.f32 {%f1}, {%r1}, {%r2}, {%f2};", "fp8 shapes are m16n8k16/m16n8k32"),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 %r1, [%r2];", "the destination is a vector"),
    ("ldmatrix.sync.aligned.m8n16.x1.trans.b8x16.b6x16_p32 {%r1}, [%r2];", "m8n16 has no .trans"),
    ("ldmatrix.sync.aligned.m8n8.x8.b16 {%r1}, [%r2];", ".num is x1, x2, x4"),
    ("stmatrix.sync.aligned.m16n16.x1.b16 [%r1], {%r2};", "stmatrix shapes are m8n8, m16n8"),
    ("movmatrix.sync.aligned.m8n8.b16 %r1, %r2;", ".trans is required"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1}, %rd1, %rd2, %p1, 1, 1;", "f16 with descriptors takes imm-trans-a/b"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.bf16 {%f1}, %rd1, %rd2, %p1, 1, 1, 0, 0;", "A and B types agree"),
    ("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r1}, %rd1, %rd2, %p1;", "N = 40 is not an integer shape"),
    ("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1}, %rd1, %rd2, %p1, 1, 1;", "integer takes no scale immediates"),
    ("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1}, %rd1, %rd2, %r1, %r2, %p1, 1, 1, 0, 0;", "sp-sel is a constant"),
    ("wgmma.mma_async.sync.m64n8k16.f32.f16.f16 {%f1}, %rd1, %rd2, %p1, 1, 1, 0, 0;", ".aligned is required"),
    ("wgmma.wait_group.sync.aligned %r1;", "N is an immediate"),
    ("tcgen05.alloc.cta_group::3.sync.aligned.b32 [%r1], 32;", "no such cta_group"),
    ("tcgen05.dealloc.cta_group::1.sync.aligned.b32 [%r1], 32;", "taddr is a register"),
    ("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r2];", "16x32bx2 takes immHalfSplitoff"),
    ("tcgen05.ld.red.sync.aligned.16x64b.x2.min.u32 {%r1, %r2}, %r3, [%r4];", "red shapes are 32x32b, 16x32bx2"),
    ("tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [%r1], {%r2};", "st unpacks"),
    ("tcgen05.cp.cta_group::1.64x128b [%r1], %rd1;", "64x128b requires .warpx2"),
    ("tcgen05.cp.cta_group::1.128x256b.b6x16_p32 [%r1], %rd1;", "the source format needs the destination format"),
    ("tcgen05.shift.cta_group::1.up [%r1];", "shift is .down"),
    ("tcgen05.mma.cta_group::1.kind::f16.ashift [%r1], %rd1, %rd2, %r2, %p1;", ".ashift needs A in tensor memory"),
    ("tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1, 3;", "i8 takes no scale-input-d"),
    ("tcgen05.mma.ws.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;", ".ws is cta_group::1 only"),
    ("tcgen05.mma.cta_group::1.kind::f16.collector::b0::fill [%r1], %rd1, %rd2, %r2, %p1;", "b0-b3 collectors are .ws only"),
    ("tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd2, %r2, %p1;", "block scaling takes the scale matrices"),
    ("tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;", ".sp takes sp-meta-tmem"),
    ("tcgen05.commit.cta_group::1.b64 [%r1];", "the completion mechanism is required"),
    ("tcgen05.fence::before_thread_sync.sync;", "no qualifiers"),
    ("tcgen05.wait.sync.aligned;", "the wait is `::ld` or `::st`"),
];

/// The line of the instruction in [`wrap`]'s module.
const INSTRUCTION_LINE: usize = 6;

fn wrap(inst: &str) -> String {
    format!(
        ".version 9.0\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n\t{inst}\n}}\n"
    )
}

fn the_instruction(m: &ptx_ir::ir::Module) -> Option<&ptx_ir::ir::Instruction> {
    m.items.iter().find_map(|it| match it {
        Item::Function(f) => f.statements()?.iter().find_map(|s| match s {
            Statement::Inst(i) => Some(i),
            _ => None,
        }),
        _ => None,
    })
}

#[test]
fn every_form_has_a_parsing_instance() {
    let mut failures = Vec::new();
    let mut covered: std::collections::HashSet<(Opcode, usize)> = Default::default();
    for src in POSITIVE {
        let text = wrap(src);
        let m = match ptx_ir::text::parse(&text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("`{src}`: {e}"));
                continue;
            }
        };
        if let Err(e) = ptx_ir::roundtrip::check_module(&m) {
            failures.push(format!("`{src}`: round trip: {e}"));
        }
        let Some(inst) = the_instruction(&m) else {
            failures.push(format!("`{src}`: no instruction read"));
            continue;
        };
        if !FAMILIES.contains(&inst.opcode.family()) {
            failures.push(format!("`{src}`: not in the families under test"));
        }
        for (k, f) in inst.opcode.forms().iter().enumerate() {
            if f.match_mods(&inst.mods).is_ok() && f.match_operands(&inst.operands) {
                covered.insert((inst.opcode, k));
            }
        }
    }
    for &op in Opcode::ALL {
        if !FAMILIES.contains(&op.family()) {
            continue;
        }
        for (k, text) in op.form_texts().iter().enumerate() {
            if !covered.contains(&(op, k)) {
                failures.push(format!("no instance of `{}` form `{text}`", op.name()));
            }
        }
    }
    println!(
        "{} instances, {} forms covered",
        POSITIVE.len(),
        covered.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ruled_out_instances_are_rejected_where_they_are() {
    let mut failures = Vec::new();
    for (src, why) in NEGATIVE {
        match ptx_ir::text::parse(&wrap(src)) {
            Ok(_) => failures.push(format!("`{src}` was accepted ({why})")),
            Err(e) if e.line != INSTRUCTION_LINE || e.col < 2 || e.message.is_empty() => failures
                .push(format!(
                    "`{src}`: error not located on the instruction ({why}):\n{e}"
                )),
            Err(e) => println!("{src}\n    -> {}:{}: {}", e.line, e.col, e.message),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn hyphenated_operand_names() {
    use ptx_ir::ir::Operand;
    // The ISA writes operand names such as `cache-policy`; `x-4` stays a symbol and an offset.
    let m = ptx_ir::text::parse(&wrap(
        "createpolicy.fractional.L2::evict_last.b64 cache-policy, 0.25;",
    ))
    .unwrap();
    let inst = the_instruction(&m).unwrap();
    match &inst.operands[0] {
        Operand::Reg { name, .. } => assert_eq!(m.names.get(*name), "cache-policy"),
        o => panic!("read {o:?}"),
    }
    ptx_ir::roundtrip::check_module(&m).unwrap();
    let m = ptx_ir::text::parse(&wrap("mov.u32 %r1, x-4;")).unwrap();
    match &the_instruction(&m).unwrap().operands[1] {
        Operand::Sym { name, offset } => {
            assert_eq!((m.names.get(*name), *offset), ("x", -4));
        }
        o => panic!("read {o:?}"),
    }
    // With spaces, `a - b` is a symbol minus a symbol: not a constant offset.
    let e = ptx_ir::text::parse(&wrap("mov.u32 %r1, a - b;")).unwrap_err();
    assert_eq!(e.line, INSTRUCTION_LINE);
}
