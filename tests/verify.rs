//! The verifier: every corpus file verifies clean for its own target, each rule fires on a
//! small example, diagnostics point at source lines, and (when `ptxas` results are recorded)
//! the verifier agrees with `ptxas` on the mutants of `tools/verify_mutants`.

mod common;
#[path = "../tools/verify_mutants/mutate.rs"]
mod mutate;

use ptx_ir::ir::verify::{self, Options, Rule};
use ptx_ir::ir::{ArchSuffix, Target, Version};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    common::shared_dir("corpus")
}

#[test]
fn corpus_verifies_clean() {
    let files = mutate::read_corpus(&corpus_dir());
    assert!(
        files.len() >= 41,
        "expected the shared corpus at {}",
        corpus_dir().display()
    );
    let mut failures = Vec::new();
    for (name, text) in &files {
        let m = ptx_ir::text::parse(text).expect("corpus parses");
        let errors: Vec<String> = verify::verify(&m)
            .into_iter()
            .filter(|d| d.severity() == verify::Severity::Error)
            .map(|d| d.to_string())
            .collect();
        if !errors.is_empty() {
            failures.push(format!(
                "{name}: {} errors, first: {}",
                errors.len(),
                errors[0]
            ));
        }
        // The module's own requirements are met by its own target and version.
        let req = verify::requirements(&m);
        assert!(req.ptx <= m.version, "{name}: needs PTX {:?}", req.ptx);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// The rules the verifier reports for a kernel body (with a few registers declared).
fn rules(body: &str) -> Vec<Rule> {
    rules_in(HEAD, body, &Options::default())
}

fn rules_in(head: &str, body: &str, opts: &Options) -> Vec<Rule> {
    let src = format!(
        "{head}.shared .align 8 .b8 smem[64];\n.global .u32 gvar;\n\
         .visible .func (.param .b32 r) callee(.param .b32 a, .param .b64 b)\n{{\n\tret;\n}}\n\
         .visible .entry k(.param .u64 p)\n{{\n\t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\
         \t.reg .b32 %r<10>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n{body}\nL_end:\n\tret;\n}}\n"
    );
    let m = ptx_ir::text::parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let mut r: Vec<Rule> = verify::verify_with(&m, opts)
        .into_iter()
        .map(|d| d.rule)
        .collect();
    r.dedup();
    r
}

#[test]
fn clean_kernel() {
    assert_eq!(
        rules(
            "\tld.param.u64 %rd1, [p];\n\tadd.s32 %r1, %r2, 4;\n\tsetp.ne.s32 %p1, %r1, 0;\n\
             \t@%p1 bra L_end;\n\tmov.b64 %rd2, {%r1, %r2};\n\tld.shared.v2.u32 {%r3, %r4}, [smem];\n\
             \tcvt.u16.u32 %rs1, %r1;\n\tcvt.u32.u16 %r1, %rs1;\n\tld.global.u8 %r5, [%rd1];\n\
             \t{\n\t.reg .b32 %r1;\n\tmov.b32 %r1, 7;\n\t}\n\tmapa.shared::cluster.u64 %rd3, %rd2, %r1;\n\
             \t{\n\t.param .b32 a;\n\t.param .b64 b;\n\t.param .b32 r;\n\t@%p1 call (r), callee, (a, b);\n\
             \tld.param.b32 %r1, [r];\n\t}\n\t@%p1 ld.param.u64 %rd1, [p];\n\tcvt.rn.sat.f16.f32 %rs1, %f1;\n\
             \tred.global.add.noftz.f16x2 [%rd1], %r1;\n\tmov.u32 %r6, WARP_SZ;"
        ),
        vec![]
    );
}

#[test]
fn each_rule_fires() {
    let cases: &[(&str, Rule)] = &[
        ("\tadd.s32 %r1, %r2, %r12;", Rule::UndeclaredRegister),
        ("\tld.global.u32 %r1, [nosuch];", Rule::UndeclaredSymbol),
        ("\tbra L_nowhere;", Rule::UndeclaredLabel),
        ("\tcall.uni nosuch;", Rule::UndeclaredFunction),
        (
            "\t.reg .b32 %x;\n\t.reg .b32 %x;",
            Rule::DuplicateDeclaration,
        ),
        ("L_end:", Rule::DuplicateLabel),
        ("\tadd.s32 %r1, %r2, %f1;", Rule::OperandType),
        ("\tadd.f32 %f1, %f2, %rd1;", Rule::OperandType),
        ("\tsetp.eq.s32 %r1, %r2, 0;", Rule::OperandType),
        // An integer literal for a float operand (ptxas: "Arguments mismatch").
        ("\tadd.f32 %f1, %f2, 1;", Rule::OperandType),
        ("\tcvt.u32.u16 %rs1, %r1;", Rule::OperandType),
        ("\t@%r1 bra L_end;", Rule::OperandType),
        ("\tlop3.b32 %r1, %r2, %r3, %r4, 256;", Rule::ImmediateRange),
        ("\tbar.sync 16;", Rule::ImmediateRange),
        // ptxas: "value '256' out of range, expected to be in range [0..255]".
        ("\tbfe.u32 %r1, %r2, 256, 3;", Rule::ImmediateRange),
        ("\tbfi.b32 %r1, %r2, %r3, 3, 300;", Rule::ImmediateRange),
        ("\talloca.u64 %rd1, 16, 12;", Rule::ImmediateRange),
        (
            "\tcp.async.cg.shared.global [smem], [%rd1], 8;",
            Rule::ImmediateRange,
        ),
        ("\tadd.u16 %rs1, %rs2, 70000;", Rule::ImmediateWidth),
        (
            "\tld.global.v4.u32 {%r1, %r2, %r3}, [%rd1];",
            Rule::VectorWidth,
        ),
        (
            "\tld.global.v8.b16 {%rs1, %rs1, %rs1, %rs1, %rs1, %rs1, %rs1, %rs1}, [%rd1];",
            Rule::VectorWidth,
        ),
        ("\tbrx.idx %r1, L_end;", Rule::BranchTargets),
        ("\tcall.uni (%r1), callee, (%r2);", Rule::CallSignature),
        ("\tcall.uni (%r1), callee, (%r2, %r3);", Rule::CallSignature),
        ("\tcall.uni %rd1, (%r1);", Rule::CallTargets),
        ("\tld.global.u32 %r1, [smem];", Rule::StateSpace),
        ("\tst.shared.u32 [gvar], %r1;", Rule::StateSpace),
        (
            "\tmapa.shared::cluster.u64 %rd1, gvar, %r1;",
            Rule::StateSpace,
        ),
        ("\tcvta.shared.u64 %rd1, gvar;", Rule::StateSpace),
        (
            "\tmbarrier.arrive.release.cluster.shared::cluster.b64 %rd1, [%r1];",
            Rule::StateSpace,
        ),
        (
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], 48;",
            Rule::ImmediateRange,
        ),
        (
            "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 1024;",
            Rule::ImmediateRange,
        ),
        // Seed 000: with `.shared::cta`, both `addr` and `mbar` are in that space.
        (
            "\tclusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [gvar], [smem];",
            Rule::StateSpace,
        ),
        (
            "\tclusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [smem], [gvar];",
            Rule::StateSpace,
        ),
        // Seed 004: `[dst]` in `.shared::cta`; `nCols` unsigned 32-bit, `taddr` `.b32`.
        (
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [gvar], 32;",
            Rule::StateSpace,
        ),
        (
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], %rd1;",
            Rule::OperandType,
        ),
        (
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], %rs1;",
            Rule::OperandType,
        ),
        (
            "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %rd1, 32;",
            Rule::OperandType,
        ),
        (
            "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, %p1;",
            Rule::OperandType,
        ),
        ("\tadd.f32x2 %rd1, %rd2, %rd3;", Rule::TargetTooOld),
        ("\twgmma.fence.sync.aligned;", Rule::TargetUnsupported),
        (
            "\tst.async.release.gpu.global.u32 [%rd1], %r1;",
            Rule::PtxTooOld,
        ),
        ("\tshfl.up.b32 %r1, %r2, 1, 0;", Rule::RemovedInstruction),
        (
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], 32;\n\ttcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;",
            Rule::CtaGroupMismatch,
        ),
        (
            "\t{\n\t.param .b32 a;\n\t.param .b64 b;\n\t.param .b32 r;\n\t@%p1 call (r), callee, (a, b);\n\t@%p1 ld.param.b32 %r1, [r];\n\t}",
            Rule::PredicatedParamLoad,
        ),
        ("\tcvt.rn.sat.f16.bf16 %rs1, %rs2;", Rule::ModifierType),
        ("\tcvt.sat.f32.bf16 %f1, %rs2;", Rule::ModifierType),
        ("\tcvt.rn.sat.bf16.f32 %rs1, %f1;", Rule::ModifierType),
        (
            "\tred.global.add.noftz.f16x2 [%rd1], 3;",
            Rule::OperandType,
        ),
        (
            "\tatom.global.add.noftz.bf16 %rs1, [%rd1], 1;",
            Rule::OperandType,
        ),
    ];
    let mut failed = Vec::new();
    for (body, rule) in cases {
        let got = rules(body);
        if !got.contains(rule) {
            failed.push(format!("{body:?}: expected {rule}, got {got:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The operand spaces and types of seeds 000 and 004 accept what the seeds allow.
#[test]
fn seed_operands_clean() {
    let head = ".version 8.6\n.target sm_100a\n.address_size 64\n";
    for body in [
        "\tclusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [smem], [smem+8];",
        "\tclusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r2];",
        "\tclusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [%rd1], [%rd2];",
        "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], %r1;\n\
         \ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, %r1;",
        "\ttcgen05.alloc.cta_group::1.sync.aligned.b32 [%rd1], 64;\n\
         \ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %f1, 64;",
    ] {
        assert_eq!(rules_in(head, body, &Options::default()), vec![], "{body}");
    }
}

#[test]
fn alignment_of_built_ir() {
    // The reader refuses `.align 3`; IR built in memory can hold it.
    let src = format!("{HEAD}.global .align 4 .b32 g;\n");
    let mut m = ptx_ir::text::parse(&src).unwrap();
    if let ptx_ir::ir::Item::Variable(v) = &mut m.items[0] {
        v.align = Some(3);
    }
    let r: Vec<Rule> = verify::verify(&m).into_iter().map(|d| d.rule).collect();
    assert_eq!(r, vec![Rule::Alignment]);
}

#[test]
fn scopes() {
    // A register declared in a block is gone after it; a shadowing declaration is fine.
    assert_eq!(
        rules("\t{\n\t.reg .b32 %in;\n\t}\n\tmov.b32 %in, 1;"),
        vec![Rule::UndeclaredRegister]
    );
    assert_eq!(
        rules("\t{\n\t.reg .b64 %r1;\n\tmov.b64 %r1, 1;\n\t}"),
        vec![]
    );
    // `%r<10>` declares %r0 .. %r9, not %r10 nor %r01.
    assert_eq!(rules("\tmov.b32 %r9, 1;"), vec![]);
    assert_eq!(rules("\tmov.b32 %r10, 1;"), vec![Rule::UndeclaredRegister]);
    assert_eq!(rules("\tmov.b32 %r01, 1;"), vec![Rule::UndeclaredRegister]);
    // A range clashes with a name declared before it in the same scope, and only with one
    // of its members.
    for (body, want) in [
        (
            "\t.reg .b32 %x3;\n\t.reg .b32 %x<4>;",
            vec![Rule::DuplicateDeclaration],
        ),
        (
            "\t.reg .b32 %x9;\n\t.reg .b32 %x4;\n\t.reg .b32 %x<5>;",
            vec![Rule::DuplicateDeclaration],
        ),
        ("\t.reg .b32 %x4;\n\t.reg .b32 %x<4>;", vec![]),
        ("\t.reg .b32 %x04;\n\t.reg .b32 %x<9>;", vec![]),
        ("\t.reg .b32 %y1;\n\t.reg .b32 %x<9>;", vec![]),
        ("\t.reg .b32 %x1;\n\t{\n\t.reg .b32 %x<9>;\n\t}", vec![]),
        (
            "\t.reg .b32 %x<4>;\n\t.reg .b32 %x3;",
            vec![Rule::DuplicateDeclaration],
        ),
    ] {
        assert_eq!(rules(body), want, "{body}");
    }
    // `.branchtargets` must come before `brx.idx`, and name labels of this function.
    assert_eq!(
        rules("\tts: .branchtargets L_end, L_a;\n\tbrx.idx %r1, ts;\nL_a:"),
        vec![]
    );
    assert_eq!(
        rules("\tbrx.idx %r1, ts;\n\tts: .branchtargets L_end;"),
        vec![Rule::BranchTargets]
    );
    assert_eq!(
        rules("\tts: .branchtargets L_end, L_zz;\n\tbrx.idx %r1, ts;"),
        vec![Rule::UndeclaredLabel]
    );
    // The index is a `.u32` register (seed 001, 9.7.12.4; ptxas rejects a 16- or 64-bit one
    // and takes an immediate).
    for (index, want) in [
        ("%rd1", vec![Rule::OperandType]),
        ("%rs1", vec![Rule::OperandType]),
        ("%f1", vec![Rule::OperandType]),
        ("%r1", vec![]),
        ("0", vec![]),
    ] {
        let body = format!("\tts: .branchtargets L_end;\n\tbrx.idx {index}, ts;");
        assert_eq!(rules(&body), want, "{body}");
    }
    // Indirect calls through a prototype or a target list.
    assert_eq!(
        rules(
            "\tpr: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b64 _);\n\
               \tcall (%r1), %rd1, (%r2, %rd2), pr;"
        ),
        vec![]
    );
    assert_eq!(
        rules("\tct: .calltargets callee;\n\tcall (%r1), %rd1, (%r2, %rd2), ct;"),
        vec![]
    );
    // Call arguments are registers, immediates or `.param` variables (seed 001, 9.7.12.5).
    assert_eq!(rules("\tcall (%r1), callee, (7, %rd2);"), vec![]);
    assert_eq!(
        rules("\tcall (%r1), callee, (gvar, %rd2);"),
        vec![Rule::CallSignature]
    );
    assert_eq!(
        rules("\tcall (%r1), callee, (smem, %rd2);"),
        vec![Rule::CallSignature]
    );
}

/// Declarations cost the verifier time linear in their number: 100,000 single names and as
/// many ranges in one scope (each range used to be checked against every name before it).
#[test]
fn many_declarations_in_one_scope() {
    let mut body = String::new();
    for i in 0..100_000 {
        body += &format!("\t.reg .u64 x{i};\n\t.reg .b32 %q{i}_<2>;\n");
    }
    let t = std::time::Instant::now();
    assert_eq!(rules(&body), vec![]);
    // Quadratic, this took minutes; linear, well under a second.
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
}

#[test]
fn targets_and_versions() {
    let sm = |arch, suffix| Options {
        target: Some(Target::Sm { arch, suffix }),
        version: Some(Version { major: 9, minor: 0 }),
    };
    let wgmma = "\twgmma.fence.sync.aligned;";
    assert_eq!(rules_in(HEAD, wgmma, &sm(90, ArchSuffix::A)), vec![]);
    // sm_90a features are not forward-compatible.
    assert_eq!(
        rules_in(HEAD, wgmma, &sm(100, ArchSuffix::A)),
        vec![Rule::TargetUnsupported]
    );
    let tc = "\ttcgen05.fence::before_thread_sync;";
    for (arch, suffix, ok) in [
        (100, ArchSuffix::A, true),
        (100, ArchSuffix::F, true),
        (103, ArchSuffix::A, true),
        (103, ArchSuffix::F, true),
        (110, ArchSuffix::F, true),
        (101, ArchSuffix::A, true),
        (100, ArchSuffix::None, false),
        (120, ArchSuffix::A, false),
        (90, ArchSuffix::A, false),
    ] {
        let got = rules_in(HEAD, tc, &sm(arch, suffix));
        assert_eq!(
            got.is_empty(),
            ok,
            "tcgen05 on sm_{arch}{suffix:?}: {got:?}"
        );
    }
    // try_cancel is sm_100; its `.multicast::cluster::all` is a/f only.
    let cancel = "\tclusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [smem], [smem];";
    assert_eq!(rules_in(HEAD, cancel, &sm(100, ArchSuffix::None)), vec![]);
    let mc = "\tclusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [smem], [smem];";
    assert_eq!(
        rules_in(HEAD, mc, &sm(100, ArchSuffix::None)),
        vec![Rule::TargetUnsupported]
    );
    assert_eq!(rules_in(HEAD, mc, &sm(120, ArchSuffix::F)), vec![]);
    // The version: the module's own, or the one given.
    let v = |major, minor| Options {
        target: None,
        version: Some(Version { major, minor }),
    };
    assert_eq!(
        rules_in(HEAD, "\telect.sync %r1|%p1, 0xffffffff;", &v(7, 8)),
        vec![Rule::PtxTooOld]
    );
    assert_eq!(
        rules_in(HEAD, "", &v(7, 7)),
        vec![Rule::TargetNeedsNewerPtx]
    );
}

/// `sm_101*` is the spelling of PTX 8.6 to 8.9 (`sm_101f` from 8.8), `sm_110*` that of 9.0
/// (seeds 000 and 004, Target ISA Notes: "`sm_101a` (Renamed to `sm_110a` from PTX ISA version
/// 9.0)").
#[test]
fn renamed_target_spellings() {
    let at = |version: &str, target: &str| {
        rules_in(
            &format!(".version {version}\n.target {target}\n.address_size 64\n"),
            "\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
            &Options::default(),
        )
    };
    assert_eq!(at("8.6", "sm_101a"), vec![]);
    assert_eq!(at("8.6", "sm_101"), vec![Rule::TargetUnsupported]);
    assert_eq!(
        at("8.5", "sm_101a"),
        vec![Rule::TargetNeedsNewerPtx, Rule::PtxTooOld]
    );
    assert_eq!(at("8.8", "sm_101f"), vec![]);
    assert_eq!(at("8.7", "sm_101f"), vec![Rule::TargetNeedsNewerPtx]);
    assert_eq!(at("8.8", "sm_110a"), vec![Rule::TargetNeedsNewerPtx]);
    assert_eq!(at("8.8", "sm_110f"), vec![Rule::TargetNeedsNewerPtx]);
    assert_eq!(at("9.0", "sm_110a"), vec![]);
    assert_eq!(at("9.0", "sm_110f"), vec![]);
    // The message names the target as written.
    let src = ".version 8.5\n.target sm_101a\n.address_size 64\n";
    let m = ptx_ir::text::parse(src).unwrap();
    let d = verify::verify(&m);
    assert!(
        d[0].message.contains("`.target sm_101a` needs PTX ISA 8.6"),
        "{}",
        d[0]
    );
}

#[test]
fn requirements_of_a_module() {
    let src = format!("{HEAD}.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n\twgmma.fence.sync.aligned;\n\tret;\n}}\n");
    let m = ptx_ir::text::parse(&src).unwrap();
    let req = verify::requirements(&m);
    assert_eq!(
        req.target.map(|t| t.to_string()),
        Some("sm_90a".to_string())
    );
    assert_eq!(req.ptx, Version { major: 8, minor: 0 });
    let src = format!(
        "{HEAD}.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n\tadd.s32 %r1, %r2, %r3;\n\tret;\n}}\n"
    );
    let req = verify::requirements(&ptx_ir::text::parse(&src).unwrap());
    assert_eq!(req.target.map(|t| t.to_string()), Some("sm_10".to_string()));
}

#[test]
fn diagnostics_point_at_lines() {
    let src = format!(
        "{HEAD}.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n\t{{\n\tadd.s32 %r1, %r2, %r9;\n\t}}\n\tret;\n}}\n"
    );
    let (m, spans) = ptx_ir::text::parse_with_spans(&src, "t.ptx").unwrap();
    let d = verify::verify(&m);
    assert_eq!(d.len(), 1, "{d:?}");
    let loc = &d[0].location;
    let off = spans
        .statement(loc.item.unwrap(), loc.stmt.unwrap())
        .expect("statement offset");
    assert_eq!(ptx_ir::text::line_col(&src, off), (8, 2));
    assert_eq!(d[0].inst.as_deref(), Some("add.s32 %r1, %r2, %r9;"));
}

/// Agreement with `ptxas` on the mutants, when results are recorded.
#[test]
fn agreement_with_ptxas() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/verify/ptxas_results.tsv");
    let Ok(text) = std::fs::read_to_string(&results) else {
        eprintln!(
            "no {} yet: run tools/verify_mutants/run_ptxas.sh on the GPU machine",
            results.display()
        );
        return;
    };
    let recorded = mutate::read_results(&text);
    let cases = mutate::generate(&mutate::read_corpus(&corpus_dir()));
    let a = mutate::compare(&cases, &recorded);
    let (agree, total) = a.total();
    for (k, (ag, t, fp, fneg)) in &a.by_kind {
        eprintln!("{k:<26} {ag:>5}/{t:<5} verifier rejects what ptxas accepts: {fp}, accepts what ptxas rejects: {fneg}");
    }
    eprintln!("total {agree}/{total}, {} stale", a.stale);
    assert!(
        total >= 1000,
        "only {total} recorded cases match the generated ones"
    );
    assert!(
        agree * 100 >= total * 95,
        "agreement {agree}/{total} is below 95%:\n{}",
        a.disagreements.join("\n")
    );
}

/// Issue #24, seeds 002 and 003: operand types of `elect.sync` and of a TMA `ctaMask`,
/// `.im2col` needing 3d or more, `cp.async` src-size and bulk sizes, `.reqnctapercluster`
/// placement, and `fence.mbarrier_init` at PTX 8.0.
#[test]
fn seed_002_003_rules() {
    let tma = |dim: &str, mode: &str, coords: &str, mask: &str| {
        format!(
            "\tcp.async.bulk.tensor.{dim}.shared::cluster.global.{mode}.mbarrier::complete_tx::bytes.multicast::cluster [smem], [%rd1, {{{coords}}}], [smem], {mask};"
        )
    };
    let cases: &[(String, Vec<Rule>)] = &[
        ("\telect.sync %r1|%p1, 0xffffffff;".into(), vec![]),
        ("\telect.sync _|%p1, %r2;".into(), vec![]),
        (
            "\telect.sync %rd1|%p1, 0xffffffff;".into(),
            vec![Rule::OperandType],
        ),
        (
            "\telect.sync %r1|%r2, 0xffffffff;".into(),
            vec![Rule::OperandType],
        ),
        (
            "\telect.sync %r1|%p1, %rd1;".into(),
            vec![Rule::OperandType],
        ),
        (tma("2d", "tile", "%r1, %r2", "%rs1"), vec![]),
        (tma("2d", "tile", "%r1, %r2", "%r3"), vec![]),
        (
            tma("2d", "tile", "%r1, %r2", "%rd2"),
            vec![Rule::OperandType],
        ),
        (
            tma("3d", "im2col", "%r1, %r2, %r3", "{%rs1}, %rs2"),
            vec![],
        ),
        (
            tma("2d", "im2col", "%r1, %r2", "%rs2"),
            vec![Rule::ModifierType],
        ),
        (
            "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [smem], [%rd1], 64, [smem], %rd2;"
                .into(),
            vec![Rule::OperandType],
        ),
        (
            "\tcp.async.ca.shared.global [smem], [%rd1], 8, 4;".into(),
            vec![],
        ),
        (
            "\tcp.async.ca.shared.global [smem], [%rd1], 8, 12;".into(),
            vec![Rule::ImmediateRange],
        ),
        (
            "\tcp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem], 32;".into(),
            vec![],
        ),
        (
            "\tcp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem], 40;".into(),
            vec![Rule::ImmediateRange],
        ),
        (
            "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1], 8, [smem];"
                .into(),
            vec![Rule::ImmediateRange],
        ),
        (
            "\tcp.async.bulk.prefetch.L2.global [%rd1], 24;".into(),
            vec![Rule::ImmediateRange],
        ),
        ("\tfence.mbarrier_init.release.cluster;".into(), vec![]),
        // Seed 003's example: `.u32` with a 64-bit generic address, which ptxas rejects.
        (
            "\tgetctarank.shared::cluster.u32 %r1, %rd1;".into(),
            vec![Rule::OperandType],
        ),
        (
            "\tgetctarank.shared::cluster.u64 %r1, %rd1;".into(),
            vec![],
        ),
        (
            "\tgetctarank.shared::cluster.u32 %rd2, %rd1;".into(),
            vec![Rule::OperandType],
        ),
    ];
    let mut failed = Vec::new();
    for (body, want) in cases {
        let got = rules(body);
        if &got != want {
            failed.push(format!("{body:?}: expected {want:?}, got {got:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));

    // `fence.mbarrier_init.release.cluster` is PTX 8.0 (ptxas 13.0 takes it there).
    let m = ptx_ir::text::parse(&format!(
        "{HEAD}.visible .entry k()\n{{\n\tfence.mbarrier_init.release.cluster;\n\tret;\n}}\n"
    ))
    .unwrap();
    assert_eq!(verify::requirements(&m).ptx, Version { major: 8, minor: 0 });

    // `.reqnctapercluster`: kernel entries only, never with `.maxclusterrank`.
    let dirs = |kind: &str, dirs: &str| -> Vec<Rule> {
        let src = format!("{HEAD}.visible {kind} k() {dirs}\n{{\n\tret;\n}}\n");
        let m = ptx_ir::text::parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        verify::verify(&m).into_iter().map(|d| d.rule).collect()
    };
    assert_eq!(dirs(".entry", ".reqnctapercluster 2"), vec![]);
    assert_eq!(dirs(".entry", ".explicitcluster .maxclusterrank 8"), vec![]);
    assert_eq!(
        dirs(".func", ".reqnctapercluster 2"),
        vec![Rule::FunctionDirective]
    );
    assert_eq!(
        dirs(".entry", ".reqnctapercluster 2 .maxclusterrank 8"),
        vec![Rule::FunctionDirective]
    );
}

/// Seed 001 (9.7.12.5): "All functions must be declared prior to being referenced in a call
/// table initializer or .calltargets directive" (ptxas rejects a later one).
#[test]
fn call_table_functions_declared_before() {
    let module = |before: &str, after: &str, local: bool| {
        let table = ".global .u32 jmptbl[5] = { foo, bar };";
        let (module_table, body_table) = if local { ("", table) } else { (table, "") };
        format!(
            "{HEAD}{before}\n{module_table}\n{after}\n\
             .visible .entry k()\n{{\n\t{body_table}\n\t.reg .b64 %rd<2>;\n\
             \tmov.u64 %rd1, foo;\n\tcall %rd1, jmptbl;\n\tret;\n}}\n{}",
            if local { after } else { "" }
        )
    };
    let rules_of = |src: &str| -> Vec<Rule> {
        let m = ptx_ir::text::parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        verify::verify(&m).into_iter().map(|d| d.rule).collect()
    };
    let foo = ".func foo() { ret; }";
    let bar = ".func bar() { ret; }";
    let both = format!("{foo}\n{bar}");
    // Module scope: functions before the table, or declared (prototype) before it.
    assert_eq!(rules_of(&module(&both, "", false)), vec![]);
    assert_eq!(
        rules_of(&module(".func foo();\n.func bar();", &both, false)),
        vec![]
    );
    assert_eq!(rules_of(&module(foo, bar, false)), vec![Rule::CallTargets]);
    assert_eq!(
        rules_of(&module("", &both, false)),
        vec![Rule::CallTargets; 2]
    );
    // Function scope: declared before the function.
    assert_eq!(rules_of(&module(&both, "", true)), vec![]);
    let late = format!(
        "{HEAD}.func foo() {{ ret; }}\n.visible .entry k()\n{{\n\t.global .u32 t[2] = {{ foo, bar }};\n\
         \t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, foo;\n\tcall %rd1, t;\n\tret;\n}}\n.func bar() {{ ret; }}\n"
    );
    assert_eq!(rules_of(&late), vec![Rule::CallTargets]);
}

/// `cp.reduce.async.bulk` takes the operation and type pairs of the ISA's table (9.7.9.25.4.2),
/// not the cross product of its syntax block: the reader rejects the others, as ptxas does.
#[test]
fn bulk_reduction_pairs_follow_the_isa_table() {
    let module = |inst: &str| {
        format!(
            ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             \t.reg .b64 %rd<4>;\n\t.reg .b32 %r<2>;\n\t{inst}\n\tret;\n}}\n"
        )
    };
    let g = "cp.reduce.async.bulk.global.shared::cta.bulk_group";
    let c = "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes";
    for ok in [
        format!("{g}.xor.b32 [%rd1], [%rd2], %r1;"),
        format!("{g}.L2::cache_hint.and.b64 [%rd1], [%rd2], %r1, %rd3;"),
        format!("{g}.add.noftz.bf16 [%rd1], [%rd2], %r1;"),
        format!("{g}.min.s64 [%rd1], [%rd2], %r1;"),
        format!("{c}.inc.u32 [%rd1], [%rd2], %r1, [%rd3];"),
    ] {
        assert!(ptx_ir::text::parse(&module(&ok)).is_ok(), "{ok}");
    }
    for bad in [
        format!("{g}.L2::cache_hint.xor.s32 [%rd1], [%rd2], %r1, %rd3;"),
        format!("{g}.add.f16 [%rd1], [%rd2], %r1;"),
        format!("{g}.add.s64 [%rd1], [%rd2], %r1;"),
        format!("{g}.inc.s32 [%rd1], [%rd2], %r1;"),
        format!("{c}.and.b64 [%rd1], [%rd2], %r1, [%rd3];"),
        format!("{c}.add.f32 [%rd1], [%rd2], %r1, [%rd3];"),
    ] {
        let e = ptx_ir::text::parse(&module(&bad)).expect_err(&bad);
        let e = e.to_string();
        assert!(
            e.contains("cannot be combined") || e.contains("is missing .noftz"),
            "{bad}: {e}"
        );
    }
}
