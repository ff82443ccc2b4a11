//! The call family: call sites of the generated device functions (direct, through a
//! `.callprototype` or a `.calltargets` list), calls of the recursive functions, and those
//! recursive functions themselves.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{
    Cmp, Declarator, Flag, Function, FunctionKind, Guard, Item, Modifier, Opcode, Operand, Param,
    Space, Statement, Type, VarDecl,
};

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
    let outer = std::mem::take(&mut b.body);
    let decl = |b: &mut B, name: &str, c: Class| {
        let name = b.name(name);
        b.body.push(Statement::Decl(Box::new(VarDecl {
            linkage: None,
            space: Space::Param,
            attributes: Vec::new(),
            align: None,
            vector: None,
            ty: param_type(c),
            names: vec![Declarator {
                name,
                range: None,
                dims: Default::default(),
                init: None,
            }]
            .into(),
        })));
    };
    for (j, &c) in params.iter().enumerate() {
        decl(b, &format!("a{j}"), c);
    }
    decl(b, "r", ret);
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
        let (label, _) = b.label("callees");
        let st = if via == Via::Proto {
            let anon = |b: &mut B, c: Class| Param {
                name: b.name("_"),
                ..param_decl(b, "_", c)
            };
            Statement::CallPrototype {
                label,
                proto: Box::new(ptx_ir_core::Prototype {
                    returns: Some(vec![anon(b, ret)]),
                    params: Some(params.iter().map(|&c| anon(b, c)).collect()),
                    directives: Vec::new(),
                }),
            }
        } else {
            Statement::CallTargets {
                label,
                targets: vec![fk],
            }
        };
        b.body.push(st);
        ops.push(Operand::reg(label));
    }
    b.e(Call, vec![], ops);
    b.e(
        Ld,
        vec![Modifier::Space(Space::Param), t(param_type(ret))],
        vec![dst, Operand::addr(r, 0)],
    );
    let inner = std::mem::replace(&mut b.body, outer);
    b.body.push(Statement::Block(inner));
}

/// Emits what `f` emits so that only the lanes where `guard` holds run it: a guarded call
/// site becomes a branch around an unguarded one, because ptxas rejects a predicated `ld.param`
/// of a call's return parameter ("Illegal to predicate instruction 'ld.param'", every such
/// kernel of a GPU batch); the lanes that skip keep their destination, as under a guard.
pub(super) fn skip_unless(b: &mut B, guard: Option<Guard>, f: impl FnOnce(&mut B)) {
    let Some(g) = guard else {
        return f(b);
    };
    let (skip, _) = b.label("skip");
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
    b.body.push(Statement::Label(skip));
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
    let outer = std::mem::take(&mut b.body);
    let names = ["a0", "a1", "r"].map(|n| b.name(n));
    for n in ["a0", "a1", "r"] {
        let p = param_decl(b, n, Class::R);
        b.body.push(Statement::Decl(Box::new(VarDecl {
            linkage: None,
            space: Space::Param,
            attributes: Vec::new(),
            align: None,
            vector: None,
            ty: p.ty,
            names: vec![Declarator {
                name: p.name,
                range: None,
                dims: Default::default(),
                init: None,
            }]
            .into(),
        })));
    }
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
    let inner = std::mem::replace(&mut b.body, outer);
    b.body.push(Statement::Block(inner));
}

/// The recursive function `rp` (`.param` parameters) or `rr` (`.reg` parameters):
/// `rec(n, x) = n == 0 ? x : rec(n - 1, 3x + n) ^ n`, keeping `n` in a register across the
/// recursive call.
pub(super) fn rec_item(b: &mut B, reg: bool) -> Item {
    use Opcode::*;
    let outer = std::mem::take(&mut b.body);
    b.decl(Type::B32, "%r", 5);
    b.decl(Type::Pred, "%p", 1);
    let r = |b: &mut B, k: u32| b.r(&format!("%r{k}"));
    let (r0, r1, r2, r3, r4) = (r(b, 0), r(b, 1), r(b, 2), r(b, 3), r(b, 4));
    let (a0, a1, ret) = (b.name("a0"), b.name("a1"), b.name("r"));
    let fname = b.name(if reg { "rr" } else { "rp" });
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
    let (base, _) = b.label("base");
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
        let outer2 = std::mem::take(&mut b.body);
        let names = ["c0", "c1", "cr"].map(|n| b.name(n));
        for n in names {
            b.body.push(Statement::Decl(Box::new(VarDecl {
                linkage: None,
                space: Space::Param,
                attributes: Vec::new(),
                align: None,
                vector: None,
                ty: Type::B32,
                names: vec![Declarator {
                    name: n,
                    range: None,
                    dims: Default::default(),
                    init: None,
                }]
                .into(),
            })));
        }
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
            vec![r4.clone(), Operand::addr(names[2], 0)],
        );
        let inner = std::mem::replace(&mut b.body, outer2);
        b.body.push(Statement::Block(inner));
    }
    b.e(Xor, vec![t(Type::B32)], vec![r1.clone(), r4, r0]);
    b.body.push(Statement::Label(base));
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
    let body = std::mem::replace(&mut b.body, outer);
    let space = if reg { Space::Reg } else { Space::Param };
    let p = |b: &mut B, n: &str| Param {
        space,
        ..param_decl(b, n, Class::R)
    };
    let params = vec![p(b, "a0"), p(b, "a1")];
    let returns = vec![p(b, "r")];
    Item::Function(Box::new(Function {
        linkage: None,
        kind: FunctionKind::Func,
        attributes: Vec::new(),
        returns: Some(returns),
        name: fname,
        params: Some(params),
        directives: Vec::new(),
        body: Some(ptx_ir_core::Body::from(body)),
    }))
}
