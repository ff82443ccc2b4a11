//! The builder: built modules print to text the reader reads back as the same module (after the
//! renumbering `finish` does), every form of the instruction table can be built, and misuse is
//! reported as an error, never as IR the reader would reject.

use ptx_ir::ir::build::{args, pair, BuildError, FunctionBuilder, ModuleBuilder, Reg, Sreg};
use ptx_ir::ir::form::OperandKind;
use ptx_ir::ir::visit::renumber_names;
use ptx_ir::ir::{
    Cmp, Flag, Init, Module, Op, Opcode, Operand, Rounding, Space, SpecialReg, Target, Type,
    Version,
};
use ptx_ir::text;

fn round_trip(m: &Module) -> String {
    let printed = text::print(m);
    let back = text::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(&back, m, "re-read module differs:\n{printed}");
    assert_eq!(text::print(&back), printed, "printing is not a fixpoint");
    // `finish` already renumbered: renumbering again changes nothing.
    let mut again = m.clone();
    renumber_names(&mut again).unwrap();
    assert_eq!(&again, m);
    printed
}

fn module() -> ModuleBuilder {
    ModuleBuilder::new(Version::new(8, 0), Target::sm(80))
}

/// `out[i] = a[i] + b[i]` for `i < n`.
fn vector_add(mb: &mut ModuleBuilder) -> Result<(), BuildError> {
    let mut f = mb.entry("vadd")?;
    let (pa, pb, pout, pn) = (
        f.param(Type::U64, "a")?,
        f.param(Type::U64, "b")?,
        f.param(Type::U64, "out")?,
        f.param(Type::U32, "n")?,
    );
    let [tid, ntid, ctaid, i, n] = f.regs(Type::U32)?;
    let p = f.reg(Type::Pred)?;
    let [a, b, out, off] = f.regs(Type::U64)?;
    let [x, y] = f.regs(Type::F32)?;
    let done = f.fresh_label();
    f.special(tid, Sreg::axis(SpecialReg::Tid, 0))?;
    f.special(ntid, Sreg::axis(SpecialReg::Ntid, 0))?;
    f.special(ctaid, Sreg::axis(SpecialReg::Ctaid, 0))?;
    f.mad((Flag::Lo, Type::S32), (i, ctaid, ntid, tid))?;
    f.ld((Space::Param, Type::U32), (n, pn.at(0)))?;
    f.setp((Cmp::Ge, Type::U32), (p, i, n))?;
    f.guard(p).bra((), done)?;
    f.ld((Space::Param, Type::U64), (a, pa.at(0)))?;
    f.ld((Space::Param, Type::U64), (b, pb.at(0)))?;
    f.ld((Space::Param, Type::U64), (out, pout.at(0)))?;
    f.cvta((Flag::To, Space::Global, Type::U64), (a, a))?;
    f.cvta((Flag::To, Space::Global, Type::U64), (b, b))?;
    f.cvta((Flag::To, Space::Global, Type::U64), (out, out))?;
    f.mul((Flag::Wide, Type::U32), (off, i, 4))?;
    f.add(Type::U64, (a, a, off))?;
    f.add(Type::U64, (b, b, off))?;
    f.add(Type::U64, (out, out, off))?;
    f.ld((Space::Global, Type::F32), (x, a.at(0)))?;
    f.ld((Space::Global, Type::F32), (y, b.at(0)))?;
    f.add(Type::F32, (x, x, y))?;
    f.st((Space::Global, Type::F32), (out.at(0), x))?;
    f.place(done)?;
    f.ret((), ())?;
    f.finish()?;
    Ok(())
}

#[test]
fn vector_add_round_trips_and_runs() {
    let mut mb = module();
    vector_add(&mut mb).unwrap();
    let m = mb.finish();
    let printed = round_trip(&m);
    assert!(printed.contains(".reg .b32 %r<5>;"), "{printed}");
    assert!(printed.contains("@%p0 bra $L__BB0_0;"), "{printed}");

    use ptx_ir::interp::{Arg, Program};
    let n = 37u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let prog = Program::load(&m).unwrap();
    let out = prog
        .launch("vadd")
        .grid([2, 1, 1])
        .block([32, 1, 1])
        .args([
            Arg::Buffer(bytes(&a)),
            Arg::Buffer(bytes(&b)),
            Arg::Buffer(vec![0; 4 * n as usize]),
            Arg::u32(n),
        ])
        .run()
        .unwrap();
    let got: Vec<f32> = out.buffers[2]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(got, want);
}

/// Instruction methods of the common families, scoped declarations, a call, `brx.idx`.
#[test]
fn every_helper_round_trips() {
    let mut mb = module();
    let table = mb
        .array(
            Space::Const,
            Type::U32,
            "table",
            4,
            Some(Init::Packed(
                vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0].into(),
            )),
        )
        .unwrap();
    let counter = mb.global(Space::Global, Type::U32, "counter").unwrap();

    let mut g = mb.func("twice").unwrap();
    let r = g.ret_param(Type::U32, "r").unwrap();
    let x = g.param(Type::U32, "x").unwrap();
    let v = g.reg(Type::U32).unwrap();
    g.ld((Space::Param, Type::U32), (v, x.at(0))).unwrap();
    g.shl(Type::B32, (v, v, 1)).unwrap();
    g.st((Space::Param, Type::U32), (r.at(0), v)).unwrap();
    g.ret((), ()).unwrap();
    let twice = g.finish().unwrap();

    let mut f = mb.entry("all").unwrap();
    let out = f.param(Type::U64, "out").unwrap();
    let [a, b, c] = f.regs(Type::U32).unwrap();
    let [s, t] = f.regs(Type::S32).unwrap();
    let [w, addr] = f.regs(Type::U64).unwrap();
    let [x, y, z] = f.regs(Type::F32).unwrap();
    let d = f.reg(Type::F64).unwrap();
    let h = f.reg(Type::U16).unwrap();
    let [p, q] = f.regs(Type::Pred).unwrap();
    let acc = f.reg_named(Type::U32, "%acc").unwrap();
    let (l0, l1, join) = (
        f.label("CASE0").unwrap(),
        f.label("CASE1").unwrap(),
        f.fresh_label(),
    );
    f.special(a, Sreg::from(SpecialReg::Laneid)).unwrap();
    f.mov(Type::U32, (b, 7)).unwrap();
    f.add(Type::U32, (c, a, b)).unwrap();
    f.sub(Type::S32, (s, -5, 3)).unwrap();
    f.mul((Flag::Lo, Type::U32), (c, c, b)).unwrap();
    f.mul((Flag::Hi, Type::S32), (t, s, s)).unwrap();
    f.mul((Flag::Wide, Type::U32), (w, a, b)).unwrap();
    f.mad((Flag::Lo, Type::U32), (acc, a, b, c)).unwrap();
    f.mad((Flag::Hi, Type::U32), (acc, a, b, acc)).unwrap();
    f.mad((Flag::Wide, Type::U32), (w, a, b, w)).unwrap();
    f.div(Type::U32, (c, c, 3)).unwrap();
    f.rem(Type::U32, (c, c, 3)).unwrap();
    f.min(Type::S32, (s, s, t)).unwrap();
    f.max(Type::S32, (s, s, t)).unwrap();
    f.abs(Type::S32, (s, s)).unwrap();
    f.neg(Type::S32, (s, s)).unwrap();
    f.cvt((Rounding::Rn, Type::F32, Type::U32), (x, a)).unwrap();
    f.mul(Type::F32, (y, x, 1.5f32)).unwrap();
    f.fma((Rounding::Rn, Type::F32), (z, x, y, 0.25f32))
        .unwrap();
    f.sqrt((Rounding::Rn, Type::F32), (z, z)).unwrap();
    f.cvt((Type::F64, Type::F32), (d, z)).unwrap();
    f.fma((Rounding::Rz, Type::F64), (d, d, d, 2.0f64)).unwrap();
    f.cvt((Rounding::Rzi, Type::S32, Type::F64), (s, d))
        .unwrap();
    f.cvt((Type::U16, Type::U32), (h, a)).unwrap();
    f.setp((Cmp::Lt, Type::S32), (pair(p, q), s, 0)).unwrap();
    f.setp((ptx_ir::ir::Compare::Hi, Type::U32), (p, a, b))
        .unwrap();
    f.selp(Type::U32, (c, a, b, p)).unwrap();
    f.and(Type::B32, (c, c, 0xff)).unwrap();
    f.or(Type::B32, (c, c, 1)).unwrap();
    f.xor(Type::B32, (c, c, a)).unwrap();
    f.not(Type::B32, (c, c)).unwrap();
    f.and(Type::Pred, (p, p, q)).unwrap();
    f.shr(Type::S32, (s, s, 2)).unwrap();
    f.mov(Type::U64, (addr, table)).unwrap();
    f.cvta((Space::Const, Type::U64), (addr, addr)).unwrap();
    f.ld(Type::U32, (c, addr.at(4))).unwrap();
    f.mov(Type::U64, (addr, counter)).unwrap();
    f.atom((Space::Global, Op::Add, Type::U32), (c, addr.at(0), 1))
        .unwrap();
    f.red((Space::Global, Op::Max, Type::U32), (addr.at(0), c))
        .unwrap();
    f.st(Type::U32, (addr.at(0), c)).unwrap();
    f.bar(Flag::Sync, 0).unwrap();
    f.block(|f| {
        let arg = f.local(Space::Param, Type::U32, "arg0")?;
        let ret = f.local(Space::Param, Type::U32, "ret0")?;
        f.st((Space::Param, Type::U32), (arg.at(0), a))?;
        f.call(Flag::Uni, (args(&[ret]), twice, args(&[arg])))?;
        f.ld((Space::Param, Type::U32), (b, ret.at(0)))
    })
    .unwrap();
    let ts = f.branch_targets("ts", &[l0, l1]).unwrap();
    f.and(Type::B32, (c, a, 1)).unwrap();
    f.guard_not(q).brx_idx((), (c, ts)).unwrap();
    f.place(l0).unwrap();
    f.ld((Space::Param, Type::U64), (w, out.at(0))).unwrap();
    f.st((Space::Global, Type::U32), (w.at(0), acc)).unwrap();
    f.bra((), join).unwrap();
    f.place(l1).unwrap();
    f.guard(p).trap((), ()).unwrap();
    f.guard(q).exit((), ()).unwrap();
    f.place(join).unwrap();
    f.ret((), ()).unwrap();
    f.finish().unwrap();
    let m = mb.finish();
    let printed = round_trip(&m);
    for needle in [
        "call.uni (ret0), twice, (arg0);",
        "setp.lt.s32 %p0|%p1, %r3, 0;",
        "setp.hi.u32 %p0, %r0, %r1;",
        "@!%p1 brx.idx %r2, ts;",
        "ts: .branchtargets CASE0, CASE1;",
        ".reg .u32 %acc;",
        "mov.u32 %r0, %laneid;",
        "cvt.rn.f32.u32 %f0, %r0;",
        "fma.rn.f32 %f2, %f0, %f1, 0f3E800000;",
    ] {
        assert!(printed.contains(needle), "missing `{needle}` in\n{printed}");
    }
}

/// A deterministic instance of every form of every opcode (first member of each required slot,
/// operands of the kinds the form asks for) is accepted by `inst` and round-trips.
#[test]
fn every_form_can_be_built() {
    let mut mb = ModuleBuilder::new(Version::new(9, 0), Target::sm_a(100));
    let mut f = mb.entry("forms").unwrap();
    let r = f.reg(Type::B32).unwrap();
    let p = f.reg(Type::Pred).unwrap();
    let l = f.fresh_label();
    f.place(l).unwrap();
    let mut built = 0;
    for &op in Opcode::ALL {
        for form in op.forms() {
            let mods: Vec<_> = form
                .slots
                .iter()
                .filter(|s| s.required)
                .map(|s| s.members[0])
                .collect();
            if form.match_mods(&mods).is_err() {
                continue; // an optional slot shadows a required one; other forms cover it
            }
            let operands = form
                .operands
                .iter()
                .map(|spec| operand(spec.kind, r, p, l.0));
            f.inst(op, mods.iter().copied(), operands)
                .unwrap_or_else(|e| panic!("{}: {e}", form.render(op.name())));
            built += 1;
        }
    }
    f.ret((), ()).unwrap();
    f.finish().unwrap();
    let m = mb.finish();
    round_trip(&m);
    assert!(built > 400, "{built} forms built");
}

fn operand(kind: OperandKind, r: Reg, p: Reg, label: ptx_ir::ir::Name) -> Operand {
    let v = || Operand::vector([r.into(), r.into()]);
    match kind {
        OperandKind::Dst | OperandKind::Src | OperandKind::Any => r.into(),
        OperandKind::Pred => p.into(),
        OperandKind::Mem | OperandKind::Tuple => r.at(8),
        OperandKind::Label => Operand::reg(label),
        OperandKind::Vector => v(),
        OperandKind::Args => Operand::Args(Box::new([r.into()].into_iter().collect())),
        OperandKind::Imm => Operand::Int(1),
    }
}

#[test]
fn names_in_any_order_round_trip() {
    // Names interned out of print order, and interned but unused, are renumbered by `finish`.
    let mut mb = module();
    let _unused = mb.intern("zzz_unused");
    let late = mb.intern("late_label_name");
    let mut f = mb.entry("k").unwrap();
    let regs: Vec<Reg> = (0..5).map(|_| f.reg(Type::U64).unwrap()).collect();
    let l = f.label("late_label_name").unwrap();
    assert_eq!(l.0, late);
    f.bra((), l).unwrap();
    f.place(l).unwrap();
    for w in regs.windows(2).rev() {
        f.mov(Type::U64, (w[0], w[1])).unwrap();
    }
    f.ret((), ()).unwrap();
    f.finish().unwrap();
    let m = mb.finish();
    assert!(m.names.find("zzz_unused").is_none());
    round_trip(&m);
}

fn entry_with(
    body: impl FnOnce(&mut FunctionBuilder) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let mut mb = module();
    let mut f = mb.entry("k")?;
    body(&mut f)?;
    f.finish().map(|_| ())
}

#[test]
fn misuse_is_an_error_with_a_diagnosis() {
    // Qualifiers no form accepts: the reader's message.
    let e = entry_with(|f| {
        let r = f.reg(Type::S32)?;
        f.inst(
            Opcode::Add,
            [Type::S32.into(), Rounding::Rz.into()],
            [r.into(), r.into(), r.into()],
        )
    })
    .unwrap_err();
    match &e {
        BuildError::Invalid { inst, message } => {
            assert_eq!(inst, "add.s32.rz");
            assert!(message.contains("cannot be combined"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // Integer `mul` without `.lo`/`.hi`/`.wide`.
    let e = entry_with(|f| {
        let r = f.reg(Type::U32)?;
        f.mul(Type::U32, (r, r, r))
    })
    .unwrap_err();
    assert!(e.to_string().contains("missing"), "{e}");
    // Wrong operand count and kinds.
    let e = entry_with(|f| {
        let r = f.reg(Type::U32)?;
        f.inst(Opcode::Add, [Type::U32.into()], [r.into(), r.into()])
    })
    .unwrap_err();
    assert!(e.to_string().contains("takes 3 operands"), "{e}");
    let e = entry_with(|f| {
        let r = f.reg(Type::U32)?;
        f.ld((Space::Global, Type::U32), (r, r))
    })
    .unwrap_err();
    assert!(e.to_string().contains("memory address"), "{e}");
    // Labels: never placed, placed twice.
    let e = entry_with(|f| {
        let l = f.label("L")?;
        f.bra((), l)
    })
    .unwrap_err();
    assert_eq!(
        e,
        BuildError::Label {
            name: "L".into(),
            problem: "is never placed"
        }
    );
    let e = entry_with(|f| {
        let l = f.fresh_label();
        f.place(l)?;
        f.place(l)
    })
    .unwrap_err();
    assert!(
        matches!(
            e,
            BuildError::Label {
                problem: "is placed twice",
                ..
            }
        ),
        "{e:?}"
    );
    // A guard must be followed by an instruction.
    let e = entry_with(|f| {
        let p = f.reg(Type::Pred)?;
        let l = f.fresh_label();
        f.guard(p);
        f.place(l)
    })
    .unwrap_err();
    assert_eq!(e, BuildError::DanglingGuard);
    let e = entry_with(|f| {
        let p = f.reg(Type::Pred)?;
        f.guard(p);
        Ok(())
    })
    .unwrap_err();
    assert_eq!(e, BuildError::DanglingGuard);
    // Names: not identifiers, special registers, reserved fresh names, duplicates.
    for bad in ["1x", "a.b", "%tid", "%r3", "%rd", ""] {
        let e = entry_with(|f| f.reg_named(Type::U32, bad).map(|_| ())).unwrap_err();
        assert!(matches!(e, BuildError::BadName { .. }), "{bad}: {e:?}");
    }
    let e = entry_with(|f| {
        f.param(Type::U32, "x")?;
        f.reg_named(Type::U32, "x").map(|_| ())
    })
    .unwrap_err();
    assert_eq!(e, BuildError::Duplicate { name: "x".into() });
    let mut mb = module();
    mb.global(Space::Global, Type::U32, "g").unwrap();
    assert!(mb.global(Space::Shared, Type::U32, "g").is_err());
    let mut f = mb.entry("k").unwrap();
    assert!(
        f.reg_named(Type::U32, "g").is_err(),
        "locals may not shadow module names"
    );
    assert!(
        f.ret_param(Type::U32, "r").is_err(),
        "kernels return nothing"
    );
    assert!(f.reg(Type::B1024).is_err());
    drop(f);
    assert!(mb.address_size(Some(48)).is_err());
    // A failed call adds nothing.
    let mut f = mb.entry("k2").unwrap();
    let r = f.reg(Type::U32).unwrap();
    assert!(f
        .block(|f| {
            f.add(Type::U32, (r, r, 1))?;
            f.mul(Type::U32, (r, r, r))
        })
        .is_err());
    f.ret((), ()).unwrap();
    f.finish().unwrap();
    let m = mb.finish();
    assert_eq!(m.function("k2").unwrap().statements().unwrap().len(), 2);
    round_trip(&m);
}

#[test]
fn modifiers_can_be_given_in_any_class_order() {
    // `inst` takes qualifiers as written; the table matches them order-free.
    let mut mb = module();
    let mut f = mb.entry("k").unwrap();
    let x = f.reg(Type::F32).unwrap();
    f.inst(
        Opcode::Ex2,
        [Flag::Approx.into(), Type::F32.into(), Flag::Ftz.into()],
        [x.into(), x.into()],
    )
    .unwrap();
    f.ret((), ()).unwrap();
    f.finish().unwrap();
    let printed = round_trip(&mb.finish());
    assert!(
        printed.contains("ex2.approx.f32.ftz %f0, %f0;"),
        "{printed}"
    );
}

#[test]
fn declarations_and_undeclared_names() {
    let mut mb = module();
    // An external device function: a declaration, then a call to it.
    let mut d = mb.func("ext_fn").unwrap();
    d.linkage(Some(ptx_ir::ir::Linkage::Extern));
    d.ret_param(Type::B32, "r").unwrap();
    d.param(Type::B64, "p").unwrap();
    let ext = d.finish_declaration().unwrap();
    let mut g = mb.entry("other").unwrap();
    let foreign = g.reg(Type::U32).unwrap();
    g.ret((), ()).unwrap();
    g.finish().unwrap();

    let mut f = mb.entry("k").unwrap();
    let ptr = f.reg(Type::U64).unwrap();
    f.mov(Type::U64, (ptr, 0)).unwrap();
    f.block(|f| {
        let (a, r) = (
            f.local(Space::Param, Type::B64, "a")?,
            f.local(Space::Param, Type::B32, "r")?,
        );
        f.st((Space::Param, Type::B64), (a.at(0), ptr))?;
        f.call(Flag::Uni, (args(&[r]), ext, args(&[a])))
    })
    .unwrap();
    // `%r0` of `other` is not a register of `k` (it would not be declared there).
    let r = f.reg(Type::U64).unwrap();
    assert_eq!(
        f.mov(Type::U32, (foreign, 1)),
        Err(BuildError::Undeclared { name: "%r0".into() })
    );
    // An interned name that was never declared.
    let stray = f.intern("stray");
    assert_eq!(
        f.mov(Type::U64, (r, Operand::reg(stray))),
        Err(BuildError::Undeclared {
            name: "stray".into()
        })
    );
    f.ret((), ()).unwrap();
    f.finish().unwrap();
    // A declaration with a body is refused.
    let mut bad = mb.func("bad_decl").unwrap();
    bad.ret((), ()).unwrap();
    assert!(bad.finish_declaration().is_err());
    let m = mb.finish();
    let printed = round_trip(&m);
    assert!(
        printed.contains(".extern .func (.param .b32 r) ext_fn(.param .b64 p);"),
        "{printed}"
    );
    assert!(printed.contains("call.uni (r), ext_fn, (a);"), "{printed}");
}
