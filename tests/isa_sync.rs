//! The instruction table against the PTX ISA 9.0 for the synchronization and communication,
//! warp-level MMA, warpgroup MMA and tcgen05 families: one concrete instance of every form of
//! every instruction of those families parses and round-trips (a test checks that no form is left
//! without an instance), and instances the ISA rules out are rejected with an error located on
//! the instruction's line.

mod common;

use ptx_ir::ir::{Family, Item, Opcode, Statement};

/// The families this file covers.
const FAMILIES: &[Family] = &[
    Family::Sync,
    Family::WarpMma,
    Family::Wgmma,
    Family::Tcgen05,
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
    for src in common::forms::SYNC {
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
        common::forms::SYNC.len(),
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
