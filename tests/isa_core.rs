//! PTX ISA 9.0 coverage of the core instruction families (integer, extended precision, floating
//! point, comparison, logic, data movement and conversion, asynchronous copies, texture, surface,
//! control flow, stack, video, miscellaneous).
//!
//! Every instance below is one function body; each must parse and round-trip. Mostly the ISA's
//! own examples, adapted where the manual uses placeholders (`cache-policy`) or has typos. A
//! coverage check then demands at least one instance for every form of every opcode of these
//! families, so a form added to the table without an instance here fails the test.
//!
//! The negative cases must be rejected with an error located on the instruction's line.

mod common;

use ptx_ir::ir::{Family, Opcode, Statement};
use ptx_ir::roundtrip::check_module;
use std::collections::HashSet;

const HEAD: &str = ".version 9.0\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n";
/// The line of the first body statement in `wrap`'s output.
const BODY_LINE: usize = 6;

fn wrap(body: &str) -> String {
    format!("{HEAD}    {body}\n}}\n")
}

/// The families this test covers (the others have their own suites).
fn covered(f: Family) -> bool {
    !matches!(
        f,
        Family::Sync | Family::WarpMma | Family::Wgmma | Family::Tcgen05
    )
}

/// Instances the reader must reject, with an error located on the instruction's line.
const INVALID: &[&str] = &[
    // unknown instruction / unknown qualifier
    "foo.u32 a, b;",
    "add.foo.u32 d, a, b;",
    "prmt.b32.f8e r1, r2, r3, r4;",
    "cvt.rn.f16.f3 d, a;",
    // qualifiers of no form of the instruction
    "add.trans.u32 d, a, b;",
    "sub.u16x2 d, a, b;",
    "abs.s16x2 d, a;",
    "testp.nan.f32 p, a;",
    "multimem.red.inc.u32 [a], b;",
    "alloca.local.u32 ptr, size;",
    "bra.sync L;",
    "setmaxnreg.inc.sync.aligned.u64 64;",
    "isspacep.param::func p, a;",
    "prefetch.shared.L1 [a];",
    "vset.s32.s32.lo d, a, b;",
    "setp.lt.b32 p, a, b;",
    "setp.lo.s32 p, a, b;",
    "setp.equ.u32 p, a, b;",
    "setp.num.s32 p, a, b;",
    "setp.lo.f32 p, a, b;",
    "setp.eq.ftz.f64 p, a, b;",
    "setp.eq.ftz.u32 p, a, b;",
    "set.lt.u32.b32 d, a, b;",
    "set.eq.ftz.f32.f64 d, a, b;",
    // missing required qualifiers
    "add d, a, b;",
    "mov d, a;",
    "mul.u32 d, a, b;",
    "fma.f32 d, a, b, c;",
    "div.f32 d, a, b;",
    "sin.f32 d, a;",
    "setp.u32 p, a, b;",
    "shf.l.b32 d, a, b, c;",
    "testp.f32 p, a;",
    "cvta.u64 d, a;",
    "cvt.f32 d, a;",
    "dp2a.u32.u32 d, a, b, c;",
    "ld.relaxed.u32 d, [a];",
    "cp.async.shared.global [a], [b], 16;",
    "cp.async.bulk.tensor.shared::cluster.global.mbarrier::complete_tx::bytes [a], [t, {x}], [m];",
    "tex.2d.v4.f32 {a, b, c, d}, [t, {x, y}];",
    "sured.b.add.2d.u32 [s, {x, y}], r;",
    "setmaxnreg.inc.u32 64;",
    "vadd.s32.s32 d, a, b;",
    "tensormap.replace.tile.b1024.b32 [a], v;",
    // qualifiers that belong to another form
    "add.sat.u32 d, a, b;",
    "add.ftz.f64 d, a, b;",
    "add.rz.f16 d, a, b;",
    "add.ftz.bf16 d, a, b;",
    "add.sat.f32x2 d, a, b;",
    "min.abs.f32 d, a, b;",
    "min.xorsign.f32 d, a, b;",
    "min.xorsign.abs.f32 d, a, b, c;",
    "min.relu.u32 d, a, b;",
    "min.ftz.bf16 d, a, b;",
    "max.NaN.f64 d, a, b;",
    "fma.rz.f16 d, a, b, c;",
    "fma.rn.sat.relu.f16 d, a, b, c;",
    "fma.rn.ftz.relu.bf16 d, a, b, c;",
    "mad.lo.sat.s32 d, a, b, c;",
    "mul24.wide.s32 d, a, b;",
    "mul.wide.u64 d, a, b;",
    "mad.wide.s64 d, a, b, c;",
    "suld.b.1d.b32 r1, [surf, {r2}];",
    "sust.p.1d.b32 [surf, {r1}], r2;",
    "st.async.weak.cluster.shared::cluster.mbarrier::complete_tx::bytes.u32 [a], b, [m];",
    "st.async.shared::cluster.u32 [a], b, [m];",
    "rcp.approx.f64 d, a;",
    "ex2.approx.ftz.f16 d, a;",
    "ex2.approx.bf16 d, a;",
    "set.eq.ftz.bf16.f32 d, a, b;",
    "setp.eq.ftz.bf16 p, a, b;",
    "setp.lo.f16 p, a, b;",
    "lop3.xor.b32 d|p, a, b, c, 0x3f, q;",
    "ld.global.nc.lu.u32 d, [a];",
    "ld.volatile.global.L2::cache_hint.u32 d, [a], pol;",
    "ld.global.ca.L1::evict_last.u32 d, [a];",
    "ldu.global.v8.u32 {a, b, c, d, e, f, g, h}, [p];",
    "st.global.ca.u32 [a], b;",
    "st.const.u32 [a], b;",
    "st.async.release.gpu.global.v2.u32 [a], {b, c};",
    "st.async.mmio.cluster.shared::cluster.mbarrier::complete_tx::bytes.u32 [a], b, [m];",
    "multimem.red.min.f32 [a], b;",
    "multimem.ld_reduce.add.acc::f32.u32 d, [a];",
    "multimem.st.v2.u32 [a], {b, c};",
    "cvt.rn.satfinite.e4m3x2.bf16x2 d, a;", // PTX 9.1
    "multimem.ld_reduce.weak.relaxed.add.u32 d, [a];",
    "multimem.st.weak.gpu.b32 [a], b;",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.cp_mask [a], [b], n, [m];",
    "vadd2.s32.s32.s32.min d, a, b, c;",
    "cvt.rs.f16.f32 d, a, b, r;",
    "cvt.rm.ue8m0x2.f32 d, a, b;",
    "cvt.pack.sat.u8.s32 d, a, b;",
    "createpolicy.fractional.L2::evict_last.L2::evict_normal.b64 p, 0.5;",
    "mapa.shared::cta.u32 d, a, b;",
    "shfl.sync.up.b64 d, a, b, c, m;",
    "cp.async.cg.shared::cluster.global [a], [b], 16;",
    "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster [a], [b], n, [m], mask;",
    "cp.async.bulk.tensor.2d.global.shared::cta.tile::gather4.bulk_group [t, {x, y}], [s];",
    "cp.async.bulk.tensor.2d.shared::cta.global.tile::scatter4.mbarrier::complete_tx::bytes [s], [t, {x, y}], [m];",
    "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.im2col.bulk_group [t, {x, y}], [s];",
    "tex.2d.v2.f32.f32 {a, b}, [t, {x, y}];",
    "tld4.r.3d.v4.f32.f32 {a, b, c, d}, [t, {x, y, z, w}];",
    "txq.level.filter_mode.b32 d, [t], l;",
    "suld.b.2d.lu.b32 d, [s, {x, y}];",
    "sust.p.a1d.b32 [s, {i, x}], r;",
    "vadd2.s32.s32.s32.sat.add d, a, b, c;",
    "vshl.u32.u32.s32.clamp d, a, b;",
    "vmad.s32.s32.s32.add d, a, b, c;",
    "vset4.u32.u32.ne.max r1, r2, r3, r0;",
    // wrong operands
    "add.s32 d, a;",
    "add.s32 d, a, b, c;",
    "setp.eq.s32 p, a, b, q;",
    "setp.eq.and.s32 p, a, b;",
    "mad.lo.s32 d, a, b;",
    "lop3.b32 d, a, b, c;",
    "lop3.or.b32 d|p, a, b, c, 0x3f;",
    "set.eq.and.u32.u32 d, a, b;",
    "cvt.rz.ue8m0x2.bf16x2 d, a, b;",
    "txq.level.num_samples.b32 d, [t], l;",
    "lop3.b32 d, a, b, c, lut;",
    "ld.global.u32 d;",
    "ld.global.u32 d, a;",
    "st.global.u32 [a];",
    "cvt.rn.f16x2.f32 d, a;",
    "cvt.rs.satfinite.e2m1x4.f32 d, a, rbits;",
    "cvt.pack.sat.u8.s32.b32 d, a, b;",
    "cvt.pack.sat.s16.s32 d, a, b, c;",
    "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [a], [b], 16;",
    "cp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes [s], [t, {x}], [m], mask, policy;",
    "tensormap.replace.tile.box_dim.b1024.b32 [a], v;",
    "tensormap.replace.tile.rank.b1024.b32 [a], 1, v;",
    "tensormap.replace.tile.fill_mode.b1024.b32 [a], v;",
    "txq.width.b32 d, [t], lod;",
    "tex.level.2d.v4.f32.f32 {a, b, c, d}, [t, {x, y}];",
    "vadd2.s32.s32.s32 d, a, b;",
    "vset.s32.s32.lt.add d, a, b;",
    "bra;",
    "call f, (a), (b);",
    "exit 1;",
    "nanosleep.u32;",
    "pmevent r1;",
    "st.bulk [a], n, v;",
    "cp.async.wait_group r;",
    "alloca.u32 ptr, size, align;",
];

#[test]
fn every_form_of_the_core_families_parses_and_round_trips() {
    let mut seen: HashSet<(Opcode, usize)> = HashSet::new();
    let mut failures = Vec::new();
    for body in common::forms::CORE {
        let src = wrap(body);
        let m = match ptx_ir::text::parse(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("`{body}`: {e}"));
                continue;
            }
        };
        if let Err(e) = check_module(&m) {
            failures.push(format!("`{body}`: round trip: {e}"));
        }
        let f = m.function("k").expect("the wrapper's function");
        let mut stack: Vec<&Statement> = f.statements().unwrap().iter().collect();
        while let Some(s) = stack.pop() {
            match s {
                Statement::Inst(i) => {
                    for (k, form) in i.opcode.forms().iter().enumerate() {
                        if form.match_mods(&i.mods).is_ok() && form.match_operands(&i.operands) {
                            seen.insert((i.opcode, k));
                        }
                    }
                }
                Statement::Block(b) => stack.extend(b.iter()),
                _ => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} instances failed:\n{}",
        failures.len(),
        common::forms::CORE.len(),
        failures.join("\n")
    );
    let mut missing = Vec::new();
    for &op in Opcode::ALL.iter().filter(|op| covered(op.family())) {
        for (k, text) in op.form_texts().iter().enumerate() {
            if !seen.contains(&(op, k)) {
                missing.push(format!("{} `{}`", op.name(), text));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "forms without an instance:\n{}",
        missing.join("\n")
    );
}

#[test]
fn invalid_instances_are_rejected_with_a_location() {
    let mut failures = Vec::new();
    for body in INVALID {
        let src = wrap(body);
        match ptx_ir::text::parse(&src) {
            Ok(_) => failures.push(format!("`{body}` was accepted")),
            Err(e) => {
                if e.line != BODY_LINE || e.col < 5 || e.message.is_empty() {
                    failures.push(format!(
                        "`{body}`: error at {}:{}, expected on line {BODY_LINE}: {e}",
                        e.line, e.col
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} invalid instances misjudged:\n{}",
        failures.len(),
        INVALID.len(),
        failures.join("\n")
    );
}
