//! The builder's declarations beyond fresh registers: register ranges declared by name
//! (`.reg .b32 %t<8>;`), `.callprototype` and `.calltargets` statements, hand-built return
//! parameters, and scoped declarations released when their block closes. Each built module
//! prints to text the reader reads back as the same module, and the verifier finds no error in
//! it; each misuse is refused with a `BuildError`.

use ptx_ir::ir::build::{BuildError, FnRef, ModuleBuilder, RegRange};
use ptx_ir::ir::verify::{self, Severity};
use ptx_ir::ir::visit::renumber_names;
use ptx_ir::ir::{
    Modifier, Module, Name, Opcode, Operand, Param, Prototype, Space, Statement, Target, Type,
    Version,
};
use ptx_ir::text;

fn round_trip(m: &Module) -> String {
    let printed = text::print(m);
    let back = text::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(&back, m, "re-read module differs:\n{printed}");
    let mut again = m.clone();
    renumber_names(&mut again).unwrap();
    assert_eq!(&again, m);
    let errors: Vec<String> = verify::verify(m)
        .into_iter()
        .filter(|d| d.severity() == Severity::Error)
        .map(|d| d.message)
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{printed}");
    printed
}

fn module() -> ModuleBuilder {
    ModuleBuilder::new(Version::new(8, 7), Target::sm(90))
}

fn ty(t: Type) -> Modifier {
    Modifier::Type(t)
}

fn param(space: Space, t: Type, name: Name) -> Param {
    Param {
        space,
        align: None,
        vector: None,
        ty: t,
        ptr: None,
        name,
        dims: Default::default(),
    }
}

#[test]
fn register_ranges_are_declared_where_called() {
    let mut mb = module();
    let mut f = mb.entry("k").unwrap();
    let out = f.param(Type::U64, "out").unwrap();
    let t: RegRange = f.reg_range(Type::B32, "%t", 8).unwrap();
    assert_eq!((t.ty, t.count), (Type::B32, 8));
    let t7 = f.reg_in(t, 7).unwrap();
    let t0 = f.reg_in(t, 0).unwrap();
    f.inst(Opcode::Mov, [ty(Type::U32)], [t7.into(), Operand::Int(5)])
        .unwrap();
    // A range declared after an instruction is declared there, not at the top.
    let rd = f.reg_range(Type::B64, "%rd", 2).unwrap();
    let (rd0, rd1) = (f.reg_in(rd, 0).unwrap(), f.reg_in(rd, 1).unwrap());
    f.inst(
        Opcode::Ld,
        [Modifier::Space(Space::Param), ty(Type::U64)],
        [rd0.into(), out.at(0)],
    )
    .unwrap();
    f.inst(
        Opcode::Cvt,
        [ty(Type::U64), ty(Type::U32)],
        [rd1.into(), t7.into()],
    )
    .unwrap();
    // The names of a range are operands like any declared register, interned by spelling.
    let t3 = f.intern("%t3");
    f.inst(
        Opcode::Add,
        [ty(Type::U32)],
        [Operand::reg(t3), t7.into(), t0.into()],
    )
    .unwrap();
    f.inst(
        Opcode::St,
        [Modifier::Space(Space::Global), ty(Type::U32)],
        [rd0.at(0), Operand::reg(t3)],
    )
    .unwrap();
    f.inst(Opcode::Ret, [], []).unwrap();
    f.finish().unwrap();
    let printed = round_trip(&mb.finish());
    let body: Vec<&str> = printed
        .lines()
        .map(str::trim)
        .skip_while(|l| *l != "{")
        .collect();
    assert_eq!(body[1], ".reg .b32 %t<8>;", "{printed}");
    assert_eq!(body[2], "mov.u32 %t7, 5;", "{printed}");
    assert_eq!(body[3], ".reg .b64 %rd<2>;", "{printed}");
}

#[test]
fn register_ranges_refuse_clashes() {
    let mut mb = module();
    let mut f = mb.entry("k").unwrap();
    let t = f.reg_range(Type::B32, "%t", 4).unwrap();
    // Past the end, and names of no range, are undeclared.
    assert!(matches!(f.reg_in(t, 4), Err(BuildError::Undeclared { .. })));
    let t4 = f.intern("%t4");
    let t01 = f.intern("%t01");
    for bad in [t4, t01] {
        assert!(matches!(
            f.inst(
                Opcode::Mov,
                [ty(Type::U32)],
                [Operand::reg(bad), Operand::Int(0)]
            ),
            Err(BuildError::Undeclared { .. })
        ));
    }
    // The same prefix twice, a member or the prefix declared by name, a clash with a name.
    assert!(matches!(
        f.reg_range(Type::B32, "%t", 2),
        Err(BuildError::Duplicate { .. })
    ));
    assert!(matches!(
        f.reg_named(Type::U32, "%t2"),
        Err(BuildError::Duplicate { .. })
    ));
    assert!(matches!(
        f.local(Space::Local, Type::U32, "%t"),
        Err(BuildError::Duplicate { .. })
    ));
    f.reg_named(Type::U32, "%q5").unwrap();
    assert!(matches!(
        f.reg_range(Type::B32, "%q", 6),
        Err(BuildError::Duplicate { .. })
    ));
    // `%q<5>` stops below `%q5`, and `%t4` was never declared.
    f.reg_range(Type::B32, "%q", 5).unwrap();
    f.reg_named(Type::U32, "%t4").unwrap();
    // Malformed ranges.
    assert!(matches!(
        f.reg_range(Type::B32, "%u", 0),
        Err(BuildError::Misuse { .. })
    ));
    assert!(matches!(
        f.reg_range(Type::B32, "%u1", 2),
        Err(BuildError::BadName { .. })
    ));
    assert!(matches!(
        f.reg_range(Type::B32, "%tid", 2),
        Err(BuildError::BadName { .. })
    ));
    assert!(matches!(
        f.reg_range(Type::B1024, "%u", 2),
        Err(BuildError::NoRegisterClass(Type::B1024))
    ));
    // A range of the builder's own prefix, then `reg` of that class, is refused...
    f.reg_range(Type::B32, "%r", 3).unwrap();
    assert!(matches!(f.reg(Type::U32), Err(BuildError::BadName { .. })));
    // ... and so is the range after `reg` allocated from the class.
    f.reg(Type::U64).unwrap();
    assert!(matches!(
        f.reg_range(Type::B64, "%rd", 3),
        Err(BuildError::BadName { .. })
    ));
    f.inst(Opcode::Ret, [], []).unwrap();
    f.finish().unwrap();
    // Another function may use `%rd` as a range: the rule is per function.
    let mut g = mb.func("g").unwrap();
    let rd = g.reg_range(Type::B64, "%rd", 3).unwrap();
    let x = g.reg_in(rd, 2).unwrap();
    g.inst(Opcode::Mov, [ty(Type::U64)], [x.into(), Operand::Int(1)])
        .unwrap();
    g.inst(Opcode::Ret, [], []).unwrap();
    g.finish().unwrap();
    round_trip(&mb.finish());
}

#[test]
fn scoped_declarations_are_released_when_their_block_closes() {
    let mut mb = module();
    let mut f = mb.entry("k").unwrap();
    let t = f.reg_range(Type::B32, "%t", 2).unwrap();
    let t0 = f.reg_in(t, 0).unwrap();
    // Two sibling blocks each declare `a` and a range `%s`.
    for k in 0..2 {
        let (a, s) = f
            .block(|f| {
                let a = f.local(Space::Local, Type::U32, "a")?;
                let s = f.reg_range(Type::B32, "%s", 1)?;
                let s0 = f.reg_in(s, 0)?;
                f.inst(Opcode::Mov, [ty(Type::U32)], [s0.into(), Operand::Int(k)])?;
                f.inst(
                    Opcode::St,
                    [Modifier::Space(Space::Local), ty(Type::U32)],
                    [a.at(0), s0.into()],
                )?;
                Ok((a, s0))
            })
            .unwrap();
        // After the block, neither is declared.
        for n in [a.name, s.name] {
            assert!(matches!(
                f.inst(Opcode::Mov, [ty(Type::U32)], [t0.into(), Operand::reg(n)]),
                Err(BuildError::Undeclared { .. })
            ));
        }
    }
    // A failed block releases its names too.
    assert!(f
        .block(|f| {
            f.local(Space::Local, Type::U32, "b")?;
            f.inst(Opcode::Add, [], [])
        })
        .is_err());
    f.local(Space::Local, Type::U32, "b").unwrap();
    f.inst(Opcode::Ret, [], []).unwrap();
    f.finish().unwrap();
    let printed = round_trip(&mb.finish());
    assert_eq!(printed.matches(".local .u32 a;").count(), 2, "{printed}");
}

#[test]
fn indirect_calls_through_prototypes_and_target_lists() {
    let mut mb = module();
    // `.func (.param .b32 r) f0(.param .b32 a0)` and `.func (.reg .b32 r) rr(.reg .b32 a0)`.
    let mut g = mb.func("f0").unwrap();
    let r = g.ret_param(Type::B32, "r").unwrap();
    let a0 = g.param(Type::B32, "a0").unwrap();
    let v = g.reg(Type::U32).unwrap();
    g.inst(
        Opcode::Ld,
        [Modifier::Space(Space::Param), ty(Type::B32)],
        [v.into(), a0.at(0)],
    )
    .unwrap();
    g.inst(
        Opcode::St,
        [Modifier::Space(Space::Param), ty(Type::B32)],
        [r.at(0), v.into()],
    )
    .unwrap();
    g.inst(Opcode::Ret, [], []).unwrap();
    let f0 = g.finish().unwrap();
    let (rp, ap) = (
        param(Space::Reg, Type::B32, mb.intern("r")),
        param(Space::Reg, Type::B32, mb.intern("a0")),
    );
    let mut g = mb.func("rr").unwrap();
    let r = g.ret_param_decl(rp).unwrap();
    let a0 = g.param_decl(ap).unwrap();
    assert_eq!(r.space, Space::Reg);
    g.inst(Opcode::Mov, [ty(Type::B32)], [r.into(), a0.into()])
        .unwrap();
    g.inst(Opcode::Ret, [], []).unwrap();
    g.finish().unwrap();

    let mut f = mb.entry("k").unwrap();
    let p = param(Space::Param, Type::B32, f.intern("x"));
    assert!(matches!(
        f.ret_param_decl(p),
        Err(BuildError::Misuse { .. })
    ));
    let [fp, x] = [f.reg(Type::U64).unwrap(), f.reg(Type::U32).unwrap()];
    f.inst(Opcode::Mov, [ty(Type::U64)], [fp.into(), f0.into()])
        .unwrap();
    for via_proto in [true, false] {
        f.block(|f| {
            let a = f.local(Space::Param, Type::B32, "a")?;
            let r = f.local(Space::Param, Type::B32, "r")?;
            let list = if via_proto {
                let anon = f.intern("_");
                let proto = Prototype {
                    returns: Some(vec![param(Space::Param, Type::B32, anon)]),
                    params: Some(vec![param(Space::Param, Type::B32, anon)]),
                    directives: Vec::new(),
                };
                f.call_prototype("proto", proto)?
            } else {
                f.call_targets("callees", &[f0])?
            };
            f.inst(
                Opcode::St,
                [Modifier::Space(Space::Param), ty(Type::B32)],
                [a.at(0), x.into()],
            )?;
            f.inst(
                Opcode::Call,
                [],
                [
                    Operand::Args(Box::new([r.into()].into_iter().collect())),
                    fp.into(),
                    Operand::Args(Box::new([a.into()].into_iter().collect())),
                    list.into(),
                ],
            )?;
            f.inst(
                Opcode::Ld,
                [Modifier::Space(Space::Param), ty(Type::B32)],
                [x.into(), r.at(0)],
            )
        })
        .unwrap();
    }
    // Target lists name functions of the module; labels are fresh.
    let stray = FnRef(f.intern("nowhere"));
    assert!(matches!(
        f.call_targets("t2", &[stray]),
        Err(BuildError::Undeclared { .. })
    ));
    assert!(matches!(
        f.call_targets("proto", &[f0]),
        Err(BuildError::Duplicate { .. })
    ));
    // A prototype's parameter names are identifiers or `_`.
    let bad = f.intern("1x");
    let proto = Prototype {
        returns: None,
        params: Some(vec![param(Space::Param, Type::B32, bad)]),
        directives: Vec::new(),
    };
    assert!(matches!(
        f.call_prototype("p2", proto),
        Err(BuildError::BadName { .. })
    ));
    // Neither may follow a pending guard.
    let q = f.reg(Type::Pred).unwrap();
    assert_eq!(
        f.guard(q).call_targets("t3", &[f0]),
        Err(BuildError::DanglingGuard)
    );
    f.inst(Opcode::Ret, [], []).unwrap();
    f.finish().unwrap();
    let m = mb.finish();
    let printed = round_trip(&m);
    assert!(
        printed.contains(".func (.reg .b32 r) rr(.reg .b32 a0)"),
        "{printed}"
    );
    assert!(
        printed.contains("proto: .callprototype (.param .b32 _) _ (.param .b32 _);"),
        "{printed}"
    );
    assert!(printed.contains("callees: .calltargets f0;"), "{printed}");
    let k = m.function("k").unwrap();
    let stmts = k.statements().unwrap();
    let blocks = stmts
        .iter()
        .filter(|s| matches!(s, Statement::Block(_)))
        .count();
    assert_eq!(blocks, 2);
}
