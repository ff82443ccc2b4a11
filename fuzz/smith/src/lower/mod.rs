//! Lowering a generated [`Program`] to a PTX module, built as IR, with every instruction checked
//! against the instruction table ([`ptx_ir_core::check::check`], the check
//! [`ptx_ir_core::build::FunctionBuilder::inst`] applies): a lowering that spells an instruction
//! no form takes panics at once, naming the instruction and the table's diagnosis.
//!
//! The kernel `k(.param .u64 in, .param .u64 out)`: every thread computes its global id,
//! initialises each register from the input pools (`pool[(gid * mul + add) & 15]`), runs the
//! body, and stores the output registers to its record of `out`. Divisions are preceded by a
//! guard that replaces a zero (and, for signed types, a -1) divisor by 1. Each region of the
//! structured body keeps the mask of its lanes in `%m<depth>`, computed with
//! `vote.sync.ballot` where the region starts, and warp-synchronous instructions use it as
//! their membermask.
//!
//! Kernels of the memory family also declare `.shared .b8 smem[SHARED_LEN]` (two buffers of
//! 16-byte slots per thread, then four 8-byte cells: [`crate::model::layout`]), fill each
//! thread's slots and cells 0 to 3 from `%rd0`..`%rd4` and wait at a barrier before the body;
//! their output buffer holds, after the records, an 8-byte global scratch word per thread and
//! four global cells. Generic accesses, `cvta` and `isspacep` convert those addresses (and that
//! of a `.local` array `lmem`) in `%tg0`/`%tg1` just before use. Kernels of the call family are
//! preceded by their device functions `f<k>` and, where called, the recursive `rp` (`.param`
//! parameters) and `rr` (`.reg` parameters).
//!
//! This module lowers the structure (prologue, branches, switches, loops, device functions,
//! epilogue) and hands each instruction to the file of its family. The kernel is assembled
//! from IR statements rather than through [`ptx_ir_core::build::FunctionBuilder`]: the builder
//! reserves the register names `%r<N>`, `%rd<N>`, `%f<N>`, `%p<N>` for its own allocation and
//! declares named registers one by one, so the kernels (whose text GPU batches recorded,
//! `corpus/fuzzhw/`) would read differently; each instruction still passes the builder's
//! check.

mod approx;
mod barrier;
mod bits;
mod call;
mod carry;
mod cmp;
mod cvt;
mod emit;
mod float;
mod generic;
mod half;
mod hint;
mod int;
mod logic;
mod mem;
mod warp;

pub use crate::model::layout::input;

use crate::model::layout::*;
use crate::model::*;
use emit::*;
use ptx_ir_core::{
    ArchSuffix, Cmp, Declarator, Flag, Function, FunctionKind, Guard, Item, Linkage, Modifier,
    Module, Name, Opcode, Operand, Param, Space, SpecialReg, Statement, Target as Arch, Type,
    VarDecl, Vector, Version,
};

/// The kernel for `p`, with names renumbered into print order.
pub fn module(p: &Program) -> Module {
    let mut b = B {
        m: Module::new(
            Version { major: 8, minor: 7 },
            vec![Arch::Sm {
                arch: 90,
                suffix: ArchSuffix::None,
            }],
            Some(64),
        ),
        body: Vec::new(),
        labels: 0,
    };
    for (k, f) in p.funcs.iter().enumerate() {
        let item = func_item(&mut b, k, f);
        b.m.items.push(item);
    }
    if p.insts().iter().any(|i| uses_const(&i.op)) {
        let name = b.name("cdata");
        b.m.items.push(Item::Variable(Box::new(VarDecl {
            linkage: None,
            space: Space::Const,
            attributes: Vec::new(),
            align: Some(8),
            vector: None,
            ty: Type::B8,
            names: vec![Declarator {
                name,
                range: None,
                dims: std::iter::once(Some(16)).collect(),
                init: None,
            }]
            .into(),
        })));
    }
    if p.insts().iter().any(|i| uses_discard(&i.op)) {
        let name = b.name("dsc");
        b.m.items.push(Item::Variable(Box::new(VarDecl {
            linkage: None,
            space: Space::Global,
            attributes: Vec::new(),
            align: Some(128),
            vector: None,
            ty: Type::B8,
            names: vec![Declarator {
                name,
                range: None,
                dims: std::iter::once(Some(128)).collect(),
                init: None,
            }]
            .into(),
        })));
    }
    let maxnreg = p.insts().iter().any(|i| is_setmaxnreg(&i.op));
    if maxnreg {
        b.m.target = vec![Arch::Sm {
            arch: 90,
            suffix: ArchSuffix::A,
        }];
    }
    for reg in [false, true] {
        if p.insts().iter().any(|i| i.op == Op::Rec { reg }) {
            let item = call::rec_item(&mut b, reg);
            b.m.items.push(item);
        }
    }
    for c in Class::ALL {
        b.decl(class_type(c), c.prefix(), c.count() as u32);
    }
    b.decl(Type::B32, "%t", 8);
    b.decl(Type::B64, "%td", 5);
    b.decl(Type::Pred, "%tp", 2);
    b.decl(Type::B16, "%th", 2);
    b.decl(Type::B32, "%m", 6);
    b.decl(Type::B32, "%c", 4);
    b.decl(Type::Pred, "%q", 4);
    b.decl(Type::B32, "%ms", 16);
    b.decl(Type::B64, "%tq", 3);
    b.decl(Type::B32, "%tz", 2);
    let mem = p.uses_mem();
    if mem {
        b.decl(Type::B64, "%tm", 6);
        b.decl(Type::B64, "%tg", 2);
        let name = b.name("smem");
        b.body.push(Statement::Decl(Box::new(VarDecl {
            linkage: None,
            space: Space::Shared,
            attributes: Vec::new(),
            align: Some(16),
            vector: None,
            ty: Type::B8,
            names: vec![Declarator {
                name,
                range: None,
                dims: std::iter::once(Some(SHARED_LEN as u64)).collect(),
                init: None,
            }]
            .into(),
        })));
    }
    if p.insts().iter().any(|i| uses_local(&i.op)) {
        let name = b.name("lmem");
        b.body.push(Statement::Decl(Box::new(VarDecl {
            linkage: None,
            space: Space::Local,
            attributes: Vec::new(),
            align: Some(8),
            vector: None,
            ty: Type::B8,
            names: vec![Declarator {
                name,
                range: None,
                dims: std::iter::once(Some(16)).collect(),
                init: None,
            }]
            .into(),
        })));
    }
    prologue(&mut b, p);
    if mem {
        mem_prologue(&mut b, p);
    }
    let body = p.body.clone();
    nodes(&mut b, &body, 0);
    if let Some(c) = p.exit {
        let (pred, negated) = cond_pred(&mut b, c, 0);
        b.emit(Some(Guard { pred, negated }), Opcode::Exit, vec![], vec![]);
    }
    epilogue(&mut b, p);
    b.e(Opcode::Ret, vec![], vec![]);

    let param = |b: &mut B, s: &str| Param {
        space: Space::Param,
        align: None,
        vector: None,
        ty: Type::U64,
        ptr: None,
        name: b.name(s),
        dims: Default::default(),
    };
    let name = b.name("k");
    let params = vec![param(&mut b, "in"), param(&mut b, "out")];
    let body = std::mem::take(&mut b.body);
    b.m.items.push(Item::Function(Box::new(Function {
        linkage: Some(Linkage::Visible),
        kind: FunctionKind::Entry,
        attributes: Vec::new(),
        returns: None,
        name,
        params: Some(params),
        // ptxas asks for a launch bound with `setmaxnreg`.
        directives: if maxnreg {
            vec![ptx_ir_core::FuncDirective::MaxNtid(
                [p.block, 1, 1].into_iter().collect(),
            )]
        } else {
            Vec::new()
        },
        body: Some(ptx_ir_core::Body::from(body)),
    })));
    let _ = ptx_ir_core::visit::renumber_names(&mut b.m);
    b.m
}

fn prologue(b: &mut B, p: &Program) {
    use Opcode::*;
    let (td0, td1, in_, out) = (b.r("%td0"), b.r("%td1"), b.name("in"), b.name("out"));
    b.e(
        Ld,
        vec![Modifier::Space(Space::Param), t(Type::U64)],
        vec![td0.clone(), Operand::addr(in_, 0)],
    );
    b.e(
        Ld,
        vec![Modifier::Space(Space::Param), t(Type::U64)],
        vec![td1.clone(), Operand::addr(out, 0)],
    );
    b.e(
        Cvta,
        vec![f(Flag::To), Modifier::Space(Space::Global), t(Type::U64)],
        vec![td0.clone(), td0.clone()],
    );
    b.e(
        Cvta,
        vec![f(Flag::To), Modifier::Space(Space::Global), t(Type::U64)],
        vec![td1.clone(), td1],
    );
    let (t0, t1, t2, t3) = (b.r("%t0"), b.r("%t1"), b.r("%t2"), b.r("%t3"));
    b.e(
        Mov,
        vec![t(Type::U32)],
        vec![t0.clone(), special(SpecialReg::Tid, true)],
    );
    b.e(
        Mov,
        vec![t(Type::U32)],
        vec![t1.clone(), special(SpecialReg::Ctaid, true)],
    );
    b.e(
        Mov,
        vec![t(Type::U32)],
        vec![t2.clone(), special(SpecialReg::Ntid, true)],
    );
    b.e(
        Mad,
        vec![f(Flag::Lo), t(Type::U32)],
        vec![t3.clone(), t1, t2, t0],
    );
    let m0 = b.r("%m0");
    b.e(Mov, vec![t(Type::B32)], vec![m0, Operand::Int(0xffff_ffff)]);
    let (t4, t5, td2) = (b.r("%t4"), b.r("%t5"), b.r("%td2"));
    let used = p.used();
    for &(r, mul, add) in p.init.iter().filter(|(r, ..)| used.contains(r)) {
        let (pool, size) = match r.class {
            Class::H => (0, 2),
            Class::P | Class::R => (1, 4),
            Class::D => (2, 8),
            Class::F => (3, 4),
            Class::Fd => (4, 8),
        };
        b.e(
            Mad,
            vec![f(Flag::Lo), t(Type::U32)],
            vec![
                t4.clone(),
                t3.clone(),
                Operand::Int(mul as i64),
                Operand::Int(add as i64),
            ],
        );
        b.e(
            And,
            vec![t(Type::B32)],
            vec![t4.clone(), t4.clone(), Operand::Int(15)],
        );
        b.e(
            Mul,
            vec![f(Flag::Wide), t(Type::U32)],
            vec![td2.clone(), t4.clone(), Operand::Int(size)],
        );
        let td0 = b.r("%td0");
        b.e(Add, vec![t(Type::S64)], vec![td2.clone(), td0, td2.clone()]);
        let base = b.name("%td2");
        let addr = Operand::addr(base, POOL_OFFSETS[pool] as i64);
        let ty = match r.class {
            Class::H => Type::B16,
            Class::P | Class::R => Type::B32,
            Class::D => Type::B64,
            Class::F => Type::F32,
            Class::Fd => Type::F64,
        };
        if r.class == Class::P {
            b.e(
                Ld,
                vec![Modifier::Space(Space::Global), t(ty)],
                vec![t5.clone(), addr],
            );
            b.e(
                And,
                vec![t(Type::B32)],
                vec![t5.clone(), t5.clone(), Operand::Int(1)],
            );
            let d = b.reg(r);
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Ne), t(Type::B32)],
                vec![d, t5.clone(), Operand::Int(0)],
            );
        } else {
            let d = b.reg(r);
            b.e(
                Ld,
                vec![Modifier::Space(Space::Global), t(ty)],
                vec![d, addr],
            );
        }
    }
}

/// Memory registers: `%tm0` the thread's own slot of buffer 0, `%tm1` its global scratch word,
/// `%tm2` the global cells, `%tm3` a peer's slot, `%tm4` `smem`, `%tm5` the thread's cell.
/// Fills the thread's slots of both buffers with `%rd0`..`%rd3` and (threads 0 to 3) cell
/// `tid` with `%rd4`, then waits at a barrier: shared memory starts undefined.
fn mem_prologue(b: &mut B, p: &Program) {
    use Opcode::*;
    let tm = |b: &mut B, k: u32| b.r(&format!("%tm{k}"));
    let (t0, t3) = (b.r("%t0"), b.r("%t3"));
    let smem = b.name("smem");
    let (tm0, tm1, tm2, tm4, tm5) = (tm(b, 0), tm(b, 1), tm(b, 2), tm(b, 4), tm(b, 5));
    b.e(
        Mov,
        vec![t(Type::U64)],
        vec![tm4.clone(), Operand::reg(smem)],
    );
    b.e(
        Mad,
        vec![f(Flag::Wide), t(Type::U32)],
        vec![
            tm0.clone(),
            t0.clone(),
            Operand::Int(SLOT as i64),
            tm4.clone(),
        ],
    );
    b.e(
        Mad,
        vec![f(Flag::Wide), t(Type::U32)],
        vec![tm5.clone(), t0.clone(), Operand::Int(8), tm4],
    );
    let (_, rec) = p.record_layout();
    let threads = p.block * p.grid;
    let td1 = b.r("%td1");
    b.e(
        Mad,
        vec![f(Flag::Wide), t(Type::U32)],
        vec![tm1.clone(), t3, Operand::Int(8), td1.clone()],
    );
    b.e(
        Add,
        vec![t(Type::S64)],
        vec![tm1.clone(), tm1, Operand::Int((rec * threads) as i64)],
    );
    b.e(
        Add,
        vec![t(Type::S64)],
        vec![tm2, td1, Operand::Int(((rec + 8) * threads) as i64)],
    );
    let d = |b: &mut B, k: u8| {
        b.reg(Reg {
            class: Class::D,
            idx: k,
        })
    };
    let base = b.name("%tm0");
    for (buf, k) in [(0, 0), (BUF1, 2)] {
        let v = Operand::vector([d(b, k), d(b, k + 1)]);
        b.e(
            St,
            vec![
                Modifier::Space(Space::Shared),
                Modifier::Vector(Vector::V2),
                t(Type::B64),
            ],
            vec![Operand::addr(base, buf as i64), v],
        );
    }
    let tp1 = b.r("%tp1");
    b.e(
        Setp,
        vec![Modifier::Cmp(Cmp::Lt), t(Type::U32)],
        vec![tp1, t0, Operand::Int(4)],
    );
    let cell = b.name("%tm5");
    let rd4 = d(b, 4);
    let pred = b.name("%tp1");
    b.emit(
        Some(Guard {
            pred,
            negated: false,
        }),
        St,
        vec![Modifier::Space(Space::Shared), t(Type::B64)],
        vec![Operand::addr(cell, CELLS as i64), rd4],
    );
    b.e(Bar, vec![f(Flag::Sync)], vec![Operand::Int(0)]);
}

fn epilogue(b: &mut B, p: &Program) {
    use Opcode::*;
    let (offs, rec) = p.record_layout();
    let (td3, t3, td1) = (b.r("%td3"), b.r("%t3"), b.r("%td1"));
    b.e(
        Mul,
        vec![f(Flag::Wide), t(Type::U32)],
        vec![td3.clone(), t3, Operand::Int(rec as i64)],
    );
    b.e(Add, vec![t(Type::S64)], vec![td3.clone(), td1, td3]);
    let base = b.name("%td3");
    let th0 = b.r("%th0");
    for (r, &o) in p.outputs.iter().zip(&offs) {
        let addr = Operand::addr(base, o as i64);
        let v = b.reg(*r);
        let g = Modifier::Space(Space::Global);
        match r.class {
            Class::P => {
                b.e(
                    Selp,
                    vec![t(Type::U16)],
                    vec![th0.clone(), Operand::Int(1), Operand::Int(0), v],
                );
                b.e(St, vec![g, t(Type::U8)], vec![addr, th0.clone()]);
            }
            c => b.e(St, vec![g, t(class_type(c))], vec![addr, v]),
        }
    }
}

/// The predicate (and its negation) that holds where `cond` does, computed into `%q<depth>`
/// unless `cond` names a predicate register.
fn cond_pred(b: &mut B, cond: Cond, depth: u32) -> (Name, bool) {
    use Opcode::*;
    let q = b.r(&format!("%q{depth}"));
    let qn = b.name(&format!("%q{depth}"));
    match cond {
        Cond::Pred(p, neg) => (b.name(&format!("%p{p}")), neg),
        Cond::LaneBelow(k) => {
            let t7 = lane_to_t7(b);
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Lt), t(Type::U32)],
                vec![q, t7, Operand::Int(k as i64)],
            );
            (qn, false)
        }
        Cond::Consumer => {
            let t0 = b.r("%t0");
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Ge), t(Type::U32)],
                vec![q, t0, Operand::Int(32)],
            );
            (qn, false)
        }
        Cond::LaneBit(k) => {
            let t7 = lane_to_t7(b);
            b.e(
                And,
                vec![t(Type::B32)],
                vec![t7.clone(), t7.clone(), Operand::Int(1 << k)],
            );
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Ne), t(Type::U32)],
                vec![q, t7, Operand::Int(0)],
            );
            (qn, false)
        }
    }
}

fn nodes(b: &mut B, ns: &[Node], depth: u32) {
    use Opcode::*;
    for n in ns {
        match n {
            Node::Inst(i) => inst(b, i, depth),
            Node::Barrier(k) => barrier::barrier(b, *k),
            Node::Switch { sel, arms } => {
                // The arm index into %t7; each arm's mask (a ballot while the region is still
                // converged) into %ms<4 * depth + arm>; then `brx.idx` through a target list.
                let t7 = b.r("%t7");
                let src = match *sel {
                    Sel::Lane => lane_to_t7(b),
                    Sel::Reg(r) => b.reg(Reg {
                        class: Class::R,
                        idx: r,
                    }),
                };
                b.e(
                    Rem,
                    vec![t(Type::U32)],
                    vec![t7.clone(), src, Operand::Int(arms.len() as i64)],
                );
                let q = b.r(&format!("%q{depth}"));
                let mo = mask_reg(b, depth);
                for k in 0..arms.len() {
                    let ms = b.r(&format!("%ms{}", 4 * depth as usize + k));
                    b.e(
                        Setp,
                        vec![Modifier::Cmp(Cmp::Eq), t(Type::U32)],
                        vec![q.clone(), t7.clone(), Operand::Int(k as i64)],
                    );
                    b.e(
                        Vote,
                        vec![f(Flag::Sync), f(Flag::Ballot), t(Type::B32)],
                        vec![ms, q.clone(), mo.clone()],
                    );
                }
                let targets: Vec<Name> = (0..arms.len()).map(|_| b.label("arm").0).collect();
                let (list, _) = b.label("targets");
                let (end_l, _) = b.label("end");
                b.body.push(Statement::BranchTargets {
                    label: list,
                    targets: targets.clone(),
                });
                b.e(BrxIdx, vec![], vec![t7, Operand::reg(list)]);
                for (k, (arm, &lab)) in arms.iter().zip(&targets).enumerate() {
                    b.body.push(Statement::Label(lab));
                    let mi = mask_reg(b, depth + 1);
                    let ms = b.r(&format!("%ms{}", 4 * depth as usize + k));
                    b.e(Mov, vec![t(Type::B32)], vec![mi, ms]);
                    nodes(b, arm, depth + 1);
                    b.e(Bra, vec![], vec![Operand::reg(end_l)]);
                }
                b.body.push(Statement::Label(end_l));
            }
            Node::If { cond, then, els } => {
                let (pred, neg) = cond_pred(b, *cond, depth);
                let (mo, mi) = (mask_reg(b, depth), mask_reg(b, depth + 1));
                let c = if neg {
                    Operand::Not(pred)
                } else {
                    Operand::reg(pred)
                };
                b.e(
                    Vote,
                    vec![f(Flag::Sync), f(Flag::Ballot), t(Type::B32)],
                    vec![mi.clone(), c, mo.clone()],
                );
                let (else_l, _) = b.label("else");
                let (end_l, _) = b.label("end");
                b.emit(
                    Some(Guard {
                        pred,
                        negated: !neg,
                    }),
                    Bra,
                    vec![],
                    vec![Operand::reg(else_l)],
                );
                nodes(b, then, depth + 1);
                b.e(Bra, vec![], vec![Operand::reg(end_l)]);
                b.body.push(Statement::Label(else_l));
                b.e(Not, vec![t(Type::B32)], vec![mi.clone(), mi.clone()]);
                b.e(And, vec![t(Type::B32)], vec![mi.clone(), mi, mo]);
                nodes(b, els, depth + 1);
                b.body.push(Statement::Label(end_l));
            }
            Node::Loop { trips, body } => {
                let c = b.r(&format!("%c{depth}"));
                match *trips {
                    Trips::Const(k) => b.e(
                        Mov,
                        vec![t(Type::U32)],
                        vec![c.clone(), Operand::Int(k as i64)],
                    ),
                    Trips::Reg(r, k) => {
                        let src = b.reg(Reg {
                            class: Class::R,
                            idx: r,
                        });
                        b.e(
                            And,
                            vec![t(Type::B32)],
                            vec![c.clone(), src, Operand::Int(3)],
                        );
                        b.e(
                            Add,
                            vec![t(Type::U32)],
                            vec![c.clone(), c.clone(), Operand::Int(k as i64)],
                        );
                    }
                    Trips::Lane(k) => {
                        b.e(
                            Mov,
                            vec![t(Type::U32)],
                            vec![c.clone(), special(SpecialReg::Laneid, false)],
                        );
                        b.e(
                            And,
                            vec![t(Type::B32)],
                            vec![c.clone(), c.clone(), Operand::Int(3)],
                        );
                        b.e(
                            Add,
                            vec![t(Type::U32)],
                            vec![c.clone(), c.clone(), Operand::Int(k as i64)],
                        );
                    }
                }
                let uni = matches!(trips, Trips::Const(_));
                let (mo, mi) = (mask_reg(b, depth), mask_reg(b, depth + 1));
                b.e(Mov, vec![t(Type::B32)], vec![mi.clone(), mo]);
                let (head, _) = b.label("head");
                let (done, _) = b.label("done");
                b.body.push(Statement::Label(head));
                let qn = b.name(&format!("%q{depth}"));
                let q = Operand::reg(qn);
                b.e(
                    Setp,
                    vec![Modifier::Cmp(Cmp::Ne), t(Type::U32)],
                    vec![q.clone(), c.clone(), Operand::Int(0)],
                );
                b.e(
                    Vote,
                    vec![f(Flag::Sync), f(Flag::Ballot), t(Type::B32)],
                    vec![mi.clone(), q, mi.clone()],
                );
                let uni_mods = if uni { vec![f(Flag::Uni)] } else { vec![] };
                b.emit(
                    Some(Guard {
                        pred: qn,
                        negated: true,
                    }),
                    Bra,
                    uni_mods.clone(),
                    vec![Operand::reg(done)],
                );
                nodes(b, body, depth + 1);
                b.e(Sub, vec![t(Type::U32)], vec![c.clone(), c, Operand::Int(1)]);
                b.e(Bra, uni_mods, vec![Operand::reg(head)]);
                b.body.push(Statement::Label(done));
            }
        }
    }
}

fn inst(b: &mut B, i: &Inst, depth: u32) {
    let guard = i.guard.map(|(p, neg)| Guard {
        pred: b.name(&format!("%p{p}")),
        negated: neg,
    });
    let sig = signature(&i.op);
    let signed = op_signed(&i.op);
    // `%laneid` goes through a register.
    if i.srcs.contains(&Src::Lane) {
        lane_to_t7(b);
    }
    let mut srcs: Vec<Operand> = Vec::with_capacity(i.srcs.len() + 2);
    for (k, (&s, &c)) in i.srcs.iter().zip(&sig.srcs).enumerate() {
        // Shift amounts and bit positions are unsigned whatever the operation's type.
        let sgn = signed && !(matches!(i.op, Op::Shr(_) | Op::Bfe(_)) && k > 0);
        let o = match s {
            Src::Lane => b.r("%t7"),
            s => b.src(s, c, sgn),
        };
        srcs.push(o);
    }
    if sig.pred_src && i.neg_pred {
        if let Some(Operand::Reg { name, .. }) = srcs.last().cloned() {
            *srcs.last_mut().expect("a predicate source") = Operand::Not(name);
        }
    }
    let d = b.reg(i.dst);
    let dst = match i.dst2 {
        Some(d2) => {
            let q = b.reg(d2);
            Operand::Pair(Box::new([d, q]))
        }
        None => d,
    };
    if let Op::Call {
        f: k,
        n,
        params,
        ret,
        via,
    } = i.op
    {
        call::skip_unless(b, guard, |b| {
            call::call(b, k, &params[..n as usize], ret, via, srcs, dst)
        });
        return;
    }
    if let Op::Rec { reg } = i.op {
        call::skip_unless(b, guard, |b| call::rec_call(b, reg, srcs, dst));
        return;
    }
    let mut cx = Parts {
        guard,
        ops: vec![dst],
        srcs,
        depth,
    };
    let (op, mods): (Opcode, Vec<Modifier>) = match i.op {
        Op::Add(_)
        | Op::Sub(_)
        | Op::AddSat(_)
        | Op::MulLo(_)
        | Op::MulHi(_)
        | Op::MulWide(_)
        | Op::MadLo(_)
        | Op::MadHi(_)
        | Op::MadWide(_)
        | Op::MadHiSat
        | Op::Mul24 { .. }
        | Op::Mad24 { .. }
        | Op::Sad(_)
        | Op::Div(_)
        | Op::Rem(_)
        | Op::Abs(_)
        | Op::Neg(_)
        | Op::Min(_)
        | Op::Max(_)
        | Op::Relu { .. } => int::lower(b, i, &mut cx),
        Op::Popc(_)
        | Op::Clz(_)
        | Op::Brev(_)
        | Op::Bfind { .. }
        | Op::Bfe(_)
        | Op::Bfi(_)
        | Op::Dp4a { .. }
        | Op::Dp2a { .. }
        | Op::Prmt(_)
        | Op::Bmsk { .. }
        | Op::Szext { .. }
        | Op::Fns => bits::lower(i.op),
        Op::AddCc { .. } | Op::MadCc { .. } => carry::lower(i.op),
        Op::And(_)
        | Op::Or(_)
        | Op::Xor(_)
        | Op::Not(_)
        | Op::Cnot(_)
        | Op::Lop3(_)
        | Op::Shf { .. }
        | Op::Shl(_)
        | Op::Shr(_) => logic::lower(b, i, &mut cx),
        Op::Setp { .. } | Op::Set { .. } | Op::Selp(_) | Op::Slct(_) => cmp::lower(i.op),
        Op::Fbin { .. }
        | Op::Fma { .. }
        | Op::Rcp { .. }
        | Op::Sqrt { .. }
        | Op::Fabs { .. }
        | Op::Fneg { .. }
        | Op::Fminmax { .. }
        | Op::Copysign(_)
        | Op::Testp { .. } => float::lower(i.op),
        Op::Approx { .. } => approx::lower(i.op),
        Op::Cvt { .. } | Op::Mov(_) => cvt::lower(i.op),
        Op::Isspacep { .. } | Op::CvtaRound { .. } => generic::lower(b, i, &mut cx),
        Op::Ld { .. } | Op::St { .. } | Op::Atom { .. } => mem::lower(b, i, &mut cx),
        Op::Hbin { .. }
        | Op::Hfma { .. }
        | Op::Hsetp { .. }
        | Op::Hset { .. }
        | Op::CvtHalfX { .. }
        | Op::Hsign { .. }
        | Op::Hminmax { .. }
        | Op::CvtToHalf { .. }
        | Op::CvtFromHalf { .. }
        | Op::CvtPack { .. } => half::lower(i.op),
        Op::Shfl { .. }
        | Op::Vote { .. }
        | Op::Redux { .. }
        | Op::Activemask
        | Op::WarpSync
        | Op::Match { .. } => warp::lower(b, i, &mut cx),
        Op::PackSat(_) | Op::LdIn { .. } | Op::Hint(_) | Op::Alloca { .. } => {
            hint::lower(b, i, &mut cx)
        }
        Op::Call { .. } | Op::Rec { .. } => unreachable!("calls are lowered above"),
    };
    cx.ops.extend(cx.srcs);
    b.emit(cx.guard, op, mods, cx.ops);
}

/// The device function `f<k>`: loads its parameters, sets its other registers, runs its body
/// and stores its result.
fn func_item(b: &mut B, k: usize, f: &Func) -> Item {
    use Opcode::*;
    let outer = std::mem::take(&mut b.body);
    for c in Class::ALL {
        b.decl(class_type(c), c.prefix(), c.count() as u32);
    }
    b.decl(Type::B32, "%t", 8);
    b.decl(Type::B64, "%td", 5);
    b.decl(Type::Pred, "%tp", 2);
    b.decl(Type::B16, "%th", 2);
    b.decl(Type::B32, "%m", 6);
    let used = f.used();
    for (j, &c) in f.params.iter().enumerate() {
        let idx = f.params[..j].iter().filter(|&&x| x == c).count() as u8;
        let d = b.reg(Reg { class: c, idx });
        let a = b.name(&format!("a{j}"));
        b.e(
            Ld,
            vec![Modifier::Space(Space::Param), t(param_type(c))],
            vec![d, Operand::addr(a, 0)],
        );
    }
    for &(r, v) in f.init.iter().filter(|(r, _)| used.contains(r)) {
        let d = b.reg(r);
        match r.class {
            Class::P => {
                let t0 = b.r("%t0");
                b.e(
                    Mov,
                    vec![t(Type::U32)],
                    vec![t0.clone(), Operand::Int(v as i64 & 1)],
                );
                b.e(
                    Setp,
                    vec![Modifier::Cmp(Cmp::Ne), t(Type::U32)],
                    vec![d, t0, Operand::Int(0)],
                );
            }
            c => {
                // Bit moves, so that NaN payloads arrive unchanged.
                let ty = bits_type(c.bits());
                b.e(Mov, vec![t(ty)], vec![d, int_imm(v as i128)]);
            }
        }
    }
    nodes(b, &f.body, 1);
    let (res, r) = (b.reg(f.result), b.name("r"));
    b.e(
        St,
        vec![Modifier::Space(Space::Param), t(param_type(f.result.class))],
        vec![Operand::addr(r, 0), res],
    );
    b.e(Ret, vec![], vec![]);
    let body = std::mem::replace(&mut b.body, outer);
    let params = (0..f.params.len())
        .map(|j| param_decl(b, &format!("a{j}"), f.params[j]))
        .collect();
    let returns = vec![param_decl(b, "r", f.result.class)];
    Item::Function(Box::new(Function {
        linkage: None,
        kind: FunctionKind::Func,
        attributes: Vec::new(),
        returns: Some(returns),
        name: b.name(&format!("f{k}")),
        params: Some(params),
        directives: Vec::new(),
        body: Some(ptx_ir_core::Body::from(body)),
    }))
}

/// Whether integer immediates of `op` are written signed.
fn op_signed(op: &Op) -> bool {
    match op {
        Op::Add(t)
        | Op::Sub(t)
        | Op::MulLo(t)
        | Op::MulHi(t)
        | Op::MulWide(t)
        | Op::MadLo(t)
        | Op::MadHi(t)
        | Op::MadWide(t)
        | Op::Sad(t)
        | Op::Div(t)
        | Op::Rem(t)
        | Op::Abs(t)
        | Op::Neg(t)
        | Op::Min(t)
        | Op::Max(t)
        | Op::Bfe(t)
        | Op::Shr(t)
        | Op::AddCc { t, .. }
        | Op::MadCc { t, .. } => t.signed,
        // `fns`'s offset is `.s32`.
        Op::Fns => true,
        // `a` and `b` are `.s32` (`c`, `.b32`, is a register).
        Op::PackSat(_) => true,
        Op::AddSat(_) | Op::MadHiSat | Op::Relu { .. } => true,
        Op::Setp {
            t: CmpT::Int(x), ..
        }
        | Op::Set {
            t: CmpT::Int(x), ..
        } => x.signed,
        Op::Cvt {
            s: CvtT::Int(_, s), ..
        } => *s,
        Op::CvtHalfX {
            peer: HPeer::Int(_, s),
            to_half: true,
            ..
        } => *s,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::emit::B;
    use crate::gen::{Gen, Swarm};
    use crate::model::Family;
    use arbitrary::Unstructured;
    use ptx_ir_core::{Module, Opcode, Operand, Version};

    /// Every family's kernels lower: each instruction passes the table's check (or `emit`
    /// panics), and the functions hold instructions.
    #[test]
    fn every_family_lowers() {
        let mut src = crate::Bytes::new(0x5eed_0100);
        for fam in Family::ALL {
            let mut lowered = 0;
            for _ in 0..60 {
                let data = src.fill(4096);
                let mut u = Unstructured::new(&data);
                let Ok(swarm) = Swarm::arbitrary(&mut u, &[fam]) else {
                    continue;
                };
                let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                    continue;
                };
                lowered += (super::module(&p).instruction_count() > 0) as usize;
            }
            assert!(lowered >= 30, "{fam:?}: {lowered} of 60 kernels lowered");
        }
    }

    /// An instruction no form takes (`add` without a type) stops the lowering.
    #[test]
    #[should_panic(expected = "the table refuses")]
    fn a_malformed_instruction_panics() {
        let mut b = B {
            m: Module::new(Version { major: 8, minor: 7 }, Vec::new(), Some(64)),
            body: Vec::new(),
            labels: 0,
        };
        let r = b.r("%r0");
        b.e(Opcode::Add, Vec::new(), vec![r.clone(), r, Operand::Int(1)]);
    }
}
