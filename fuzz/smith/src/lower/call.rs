//! The call family: call sites of the generated device functions (direct, through a
//! `.callprototype` or a `.calltargets` list), calls of the recursive functions, and those
//! recursive functions themselves.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::build::{FnRef, ModuleBuilder};
use ptx_ir_core::{Cmp, Flag, Guard, Modifier, Opcode, Operand, Param, Prototype, Space, Type};

/// A call site: a block declaring the `.param` arguments and return value, storing the
/// arguments, calling, and loading the result (a guard becomes a branch around it: `skip_unless`). An
/// indirect call takes the callee's address into `%td4` and names a `.callprototype` or a
/// `.calltargets` list.
pub(super) fn call(
    b: &mut B,
    k: u8,
    params: &[Class],
    ret: Class,
    via: Via,
    srcs: Vec<Operand>,
    dst: Operand,
) {
    use Opcode::*;
    b.block(|b| {
        for (j, &c) in params.iter().enumerate() {
            built(b.f.local(Space::Param, param_type(c), &format!("a{j}")));
        }
        built(b.f.local(Space::Param, param_type(ret), "r"));
        for (j, (&c, s)) in params.iter().zip(srcs).enumerate() {
            let a = b.name(&format!("a{j}"));
            b.e(
                St,
                vec![Modifier::Space(Space::Param), t(param_type(c))],
                vec![Operand::addr(a, 0), s],
            );
        }
        let args: Vec<Operand> = (0..params.len())
            .map(|j| {
                let a = b.name(&format!("a{j}"));
                Operand::reg(a)
            })
            .collect();
        let (r, fk) = (b.name("r"), b.name(&format!("f{k}")));
        let mut ops = vec![
            Operand::Args(Box::new(std::iter::once(Operand::reg(r)).collect())),
            Operand::reg(fk),
            Operand::Args(Box::new(args.into_iter().collect())),
        ];
        if via != Via::Direct {
            let td4 = b.r("%td4");
            b.e(Mov, vec![t(Type::U64)], vec![td4.clone(), Operand::reg(fk)]);
            ops[1] = td4;
            let label = b.label_name("callees");
            let list = if via == Via::Proto {
                let anon = |b: &mut B, c: Class| param(param_type(c), b.name("_"), Space::Param);
                let proto = Prototype {
                    returns: Some(vec![anon(b, ret)]),
                    params: Some(params.iter().map(|&c| anon(b, c)).collect()),
                    directives: Vec::new(),
                };
                built(b.f.call_prototype(&label, proto))
            } else {
                built(b.f.call_targets(&label, &[FnRef(fk)]))
            };
            ops.push(Operand::reg(list.0));
        }
        b.e(Call, vec![], ops);
        b.e(
            Ld,
            vec![Modifier::Space(Space::Param), t(param_type(ret))],
            vec![dst, Operand::addr(r, 0)],
        );
    });
}

/// A parameter `.<space> .<ty> name`.
fn param(ty: Type, name: ptx_ir_core::Name, space: Space) -> Param {
    Param {
        space,
        align: None,
        vector: None,
        ty,
        ptr: None,
        name,
        dims: Default::default(),
    }
}

/// Emits what `f` emits so that only the lanes where `guard` holds run it: a guarded call
/// site becomes a branch around an unguarded one, because ptxas rejects a predicated `ld.param`
/// of a call's return parameter ("Illegal to predicate instruction 'ld.param'", every such
/// kernel of a GPU batch); the lanes that skip keep their destination, as under a guard.
pub(super) fn skip_unless(b: &mut B, guard: Option<Guard>, f: impl FnOnce(&mut B)) {
    let Some(g) = guard else {
        return f(b);
    };
    let skip = b.label("skip");
    b.emit(
        Some(Guard {
            negated: !g.negated,
            ..g
        }),
        Opcode::Bra,
        vec![],
        vec![Operand::reg(skip)],
    );
    f(b);
    b.place(skip);
}

/// A call of the recursive function (`rp` with `.param`, `rr` with `.reg` parameters) with
/// depth `srcs[0] & 7` (into `%t6`) and value `srcs[1]`.
pub(super) fn rec_call(b: &mut B, reg: bool, srcs: Vec<Operand>, dst: Operand) {
    use Opcode::*;
    let t6 = b.r("%t6");
    let mut srcs = srcs.into_iter();
    let (depth, x) = (srcs.next().expect("depth"), srcs.next().expect("value"));
    b.e(
        And,
        vec![t(Type::B32)],
        vec![t6.clone(), depth, Operand::Int(7)],
    );
    let args = |v: Vec<Operand>| Operand::Args(Box::new(v.into_iter().collect()));
    if reg {
        let f = b.name("rr");
        b.e(
            Call,
            vec![],
            vec![args(vec![dst]), Operand::reg(f), args(vec![t6, x])],
        );
        return;
    }
    b.block(|b| {
        let names = ["a0", "a1", "r"].map(|n| built(b.f.local(Space::Param, Type::B32, n)).name);
        for (a, v) in names[..2].iter().zip([t6, x]) {
            b.e(
                St,
                vec![Modifier::Space(Space::Param), t(Type::B32)],
                vec![Operand::addr(*a, 0), v],
            );
        }
        let f = b.name("rp");
        b.e(
            Call,
            vec![],
            vec![
                args(vec![Operand::reg(names[2])]),
                Operand::reg(f),
                args(vec![Operand::reg(names[0]), Operand::reg(names[1])]),
            ],
        );
        b.e(
            Ld,
            vec![Modifier::Space(Space::Param), t(Type::B32)],
            vec![dst, Operand::addr(names[2], 0)],
        );
    });
}

/// The recursive function `rp` (`.param` parameters) or `rr` (`.reg` parameters):
/// `rec(n, x) = n == 0 ? x : rec(n - 1, 3x + n) ^ n`, keeping `n` in a register across the
/// recursive call.
pub(super) fn rec_func(mb: &mut ModuleBuilder, labels: &mut u32, reg: bool) {
    use Opcode::*;
    let space = if reg { Space::Reg } else { Space::Param };
    let mut fb = built(mb.func(if reg { "rr" } else { "rp" }));
    let p = |fb: &mut ptx_ir_core::build::FunctionBuilder, n: &str| {
        let name = fb.intern(n);
        param(Type::B32, name, space)
    };
    let ret = p(&mut fb, "r");
    built(fb.ret_param_decl(ret));
    for n in ["a0", "a1"] {
        let a = p(&mut fb, n);
        built(fb.param_decl(a));
    }
    let fname = fb.name().0;
    let b = &mut B { f: &mut fb, labels };
    b.decl(Type::B32, "%r", 5);
    b.decl(Type::Pred, "%p", 1);
    let r = |b: &mut B, k: u32| b.r(&format!("%r{k}"));
    let (r0, r1, r2, r3, r4) = (r(b, 0), r(b, 1), r(b, 2), r(b, 3), r(b, 4));
    let (a0, a1, ret) = (b.name("a0"), b.name("a1"), b.name("r"));
    if reg {
        b.e(Mov, vec![t(Type::B32)], vec![r0.clone(), Operand::reg(a0)]);
        b.e(Mov, vec![t(Type::B32)], vec![r1.clone(), Operand::reg(a1)]);
    } else {
        for (d, a) in [(&r0, a0), (&r1, a1)] {
            b.e(
                Ld,
                vec![Modifier::Space(Space::Param), t(Type::B32)],
                vec![d.clone(), Operand::addr(a, 0)],
            );
        }
    }
    let p0 = b.r("%p0");
    b.e(
        Setp,
        vec![Modifier::Cmp(Cmp::Eq), t(Type::U32)],
        vec![p0, r0.clone(), Operand::Int(0)],
    );
    let base = b.label("base");
    let pn = b.name("%p0");
    b.emit(
        Some(Guard {
            pred: pn,
            negated: false,
        }),
        Bra,
        vec![],
        vec![Operand::reg(base)],
    );
    b.e(
        Sub,
        vec![t(Type::U32)],
        vec![r2.clone(), r0.clone(), Operand::Int(1)],
    );
    b.e(
        Mad,
        vec![f(Flag::Lo), t(Type::U32)],
        vec![r3.clone(), r1.clone(), Operand::Int(3), r0.clone()],
    );
    let args = |v: Vec<Operand>| Operand::Args(Box::new(v.into_iter().collect()));
    if reg {
        b.e(
            Call,
            vec![],
            vec![
                args(vec![r4.clone()]),
                Operand::reg(fname),
                args(vec![r2, r3]),
            ],
        );
    } else {
        let r4 = r4.clone();
        b.block(|b| {
            let names =
                ["c0", "c1", "cr"].map(|n| built(b.f.local(Space::Param, Type::B32, n)).name);
            for (a, v) in names[..2].iter().zip([r2, r3]) {
                b.e(
                    St,
                    vec![Modifier::Space(Space::Param), t(Type::B32)],
                    vec![Operand::addr(*a, 0), v],
                );
            }
            b.e(
                Call,
                vec![],
                vec![
                    args(vec![Operand::reg(names[2])]),
                    Operand::reg(fname),
                    args(vec![Operand::reg(names[0]), Operand::reg(names[1])]),
                ],
            );
            b.e(
                Ld,
                vec![Modifier::Space(Space::Param), t(Type::B32)],
                vec![r4, Operand::addr(names[2], 0)],
            );
        });
    }
    b.e(Xor, vec![t(Type::B32)], vec![r1.clone(), r4, r0]);
    b.place(base);
    if reg {
        b.e(Mov, vec![t(Type::B32)], vec![Operand::reg(ret), r1]);
    } else {
        b.e(
            St,
            vec![Modifier::Space(Space::Param), t(Type::B32)],
            vec![Operand::addr(ret, 0), r1],
        );
    }
    b.e(Ret, vec![], vec![]);
    built(fb.finish());
}
