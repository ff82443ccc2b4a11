//! Lowering a generated [`Program`] to a PTX module (built directly as IR), and its input
//! buffer.
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
//! 16-byte slots per thread, then four 8-byte cells), fill each thread's slots and cells 0 to 3
//! from `%rd0`..`%rd4` and wait at a barrier before the body; their output buffer holds, after
//! the records, an 8-byte global scratch word per thread and four global cells. Generic
//! accesses, `cvta` and `isspacep` convert those addresses (and that of a `.local` array
//! `lmem`) in `%tg0`/`%tg1` just before use. Kernels of the call family are preceded by their
//! device functions `f<k>` and, where called, the recursive `rp` (`.param` parameters) and `rr`
//! (`.reg` parameters).

use super::prog::*;
use ptx_ir_core::{
    ArchSuffix, Cmp, Declarator, Flag, Function, FunctionKind, Guard, Instruction, Item, Linkage,
    Modifier, Module, Name, Op as MOp, Opcode, Operand, Param, Rounding, Selector, Space,
    SpecialReg, Statement, Target as Arch, Type, VarDecl, Vector, Version,
};

/// Byte offset of each pool (`H`, `R`, `D`, `F`, `Fd`) in the input buffer.
pub const POOL_OFFSETS: [u32; 5] = [0, 32, 96, 224, 288];
/// Bytes of one thread's slot in each shared buffer.
pub const SLOT: u32 = 16;
/// Byte offset of the second shared buffer (64 threads' slots per buffer).
pub const BUF1: u32 = 64 * SLOT;
/// Byte offset of the four shared 8-byte cells.
pub const CELLS: u32 = 2 * BUF1;
/// Size of the shared array `smem`.
pub const SHARED_LEN: u32 = CELLS + 32;
/// Size of the input buffer.
pub const INPUT_LEN: usize = 416;

/// The input buffer: the five pools, little-endian.
pub fn input(p: &Program) -> Vec<u8> {
    let mut b = vec![0u8; INPUT_LEN];
    let sizes = [2usize, 4, 8, 4, 8];
    for (k, pool) in p.pools.iter().enumerate() {
        for (i, v) in pool.iter().enumerate() {
            let at = POOL_OFFSETS[k] as usize + i * sizes[k];
            b[at..at + sizes[k]].copy_from_slice(&v.to_le_bytes()[..sizes[k]]);
        }
    }
    b
}

struct B {
    m: Module,
    body: Vec<Statement>,
    labels: u32,
}

fn it_type(t: It) -> Type {
    match (t.bits, t.signed) {
        (16, false) => Type::U16,
        (16, true) => Type::S16,
        (32, false) => Type::U32,
        (32, true) => Type::S32,
        (64, false) => Type::U64,
        _ => Type::S64,
    }
}

fn int_type(bits: u8, signed: bool) -> Type {
    match (bits, signed) {
        (8, false) => Type::U8,
        (8, true) => Type::S8,
        (b, s) => it_type(It { bits: b, signed: s }),
    }
}

fn bits_type(bits: u32) -> Type {
    match bits {
        16 => Type::B16,
        32 => Type::B32,
        _ => Type::B64,
    }
}

fn class_type(c: Class) -> Type {
    match c {
        Class::P => Type::Pred,
        Class::H => Type::B16,
        Class::R => Type::B32,
        Class::D => Type::B64,
        Class::F => Type::F32,
        Class::Fd => Type::F64,
    }
}

fn ft_type(f: Ft) -> Type {
    match f {
        Ft::F32 => Type::F32,
        Ft::F64 => Type::F64,
    }
}

fn rounding(r: Rnd) -> Rounding {
    match r {
        Rnd::Rn => Rounding::Rn,
        Rnd::Rz => Rounding::Rz,
        Rnd::Rm => Rounding::Rm,
        Rnd::Rp => Rounding::Rp,
    }
}

fn irounding(r: Rnd) -> Rounding {
    match r {
        Rnd::Rn => Rounding::Rni,
        Rnd::Rz => Rounding::Rzi,
        Rnd::Rm => Rounding::Rmi,
        Rnd::Rp => Rounding::Rpi,
    }
}

fn t(x: Type) -> Modifier {
    Modifier::Type(x)
}

/// The flags of a float `min`/`max` (before its type), shared by the single and half formats.
fn minmax_mods(ftz: bool, nan: bool, xorsign: bool) -> Vec<Modifier> {
    let mut m = vec![];
    if ftz {
        m.push(f(Flag::Ftz));
    }
    if nan {
        m.push(f(Flag::NaN));
    }
    if xorsign {
        m.push(f(Flag::XorSign));
        m.push(f(Flag::Abs));
    }
    m
}

fn f(x: Flag) -> Modifier {
    Modifier::Flag(x)
}

/// An integer immediate as the reader would produce it.
fn int_imm(v: i128) -> Operand {
    if let Ok(x) = i64::try_from(v) {
        Operand::Int(x)
    } else {
        Operand::Uint(v as u64)
    }
}

impl B {
    fn name(&mut self, s: &str) -> Name {
        self.m.names.intern(s)
    }

    fn r(&mut self, s: &str) -> Operand {
        Operand::reg(self.name(s))
    }

    fn reg(&mut self, r: Reg) -> Operand {
        let s = format!("{}{}", r.class.prefix(), r.idx);
        self.r(&s)
    }

    fn emit(&mut self, guard: Option<Guard>, op: Opcode, mods: Vec<Modifier>, ops: Vec<Operand>) {
        let mut i = Instruction::new(op, mods, ops);
        i.guard = guard;
        self.body.push(Statement::Inst(i));
    }

    fn e(&mut self, op: Opcode, mods: Vec<Modifier>, ops: Vec<Operand>) {
        self.emit(None, op, mods, ops);
    }

    fn label(&mut self, kind: &str) -> (Name, String) {
        self.labels += 1;
        let s = format!("$L_{kind}_{}", self.labels);
        (self.name(&s), s)
    }

    fn decl(&mut self, ty: Type, prefix: &str, n: u32) {
        let name = self.name(prefix);
        self.body.push(Statement::Decl(Box::new(VarDecl {
            linkage: None,
            space: Space::Reg,
            attributes: Vec::new(),
            align: None,
            vector: None,
            ty,
            names: vec![Declarator {
                name,
                range: Some(n),
                dims: Default::default(),
                init: None,
            }]
            .into(),
        })));
    }

    /// A source operand of an instruction whose operand has `class` and, for integer
    /// immediates, type `ty` (signed immediates are written sign-extended).
    fn src(&mut self, s: Src, class: Class, signed: bool) -> Operand {
        match s {
            Src::Reg(r) => self.reg(r),
            Src::Lane => Operand::Special {
                reg: SpecialReg::Laneid,
                sel: Selector::NONE,
            },
            Src::Imm(v) => match class {
                Class::F => Operand::F32(v as u32),
                Class::Fd => Operand::F64(v),
                c => {
                    let bits = c.bits();
                    let v = v & super::eval::mask(bits);
                    if signed {
                        let sh = 128 - bits;
                        int_imm(((v as i128) << sh) >> sh)
                    } else {
                        int_imm(v as i128)
                    }
                }
            },
        }
    }
}

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
            let item = rec_item(&mut b, reg);
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

fn special(r: SpecialReg, x: bool) -> Operand {
    Operand::Special {
        reg: r,
        sel: if x {
            Selector::component(0).unwrap_or_default()
        } else {
            Selector::NONE
        },
    }
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

fn mask_reg(b: &mut B, depth: u32) -> Operand {
    b.r(&format!("%m{depth}"))
}

/// `mov.u32 %t7, %laneid` (special registers are read with `mov`); returns `%t7`.
fn lane_to_t7(b: &mut B) -> Operand {
    let t7 = b.r("%t7");
    b.e(
        Opcode::Mov,
        vec![t(Type::U32)],
        vec![t7.clone(), special(SpecialReg::Laneid, false)],
    );
    t7
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
            Node::Barrier(k) => barrier(b, *k),
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

/// A CTA barrier. `bar.sync ID, COUNT` takes the CTA's size from `%ntid.x` (`%t2`).
fn barrier(b: &mut B, k: Bar) {
    match k {
        Bar::Sync => b.e(Opcode::Bar, vec![f(Flag::Sync)], vec![Operand::Int(0)]),
        Bar::SyncId {
            id,
            barrier,
            aligned,
            count,
        } => {
            let mut m = vec![f(Flag::Sync)];
            if aligned {
                m.push(f(Flag::Aligned));
            }
            let mut ops = vec![Operand::Int(id as i64)];
            if count {
                ops.push(b.r("%t2"));
            }
            b.e(
                if barrier {
                    Opcode::Barrier
                } else {
                    Opcode::Bar
                },
                m,
                ops,
            );
        }
        Bar::Arrive { id } => {
            // The first warp arrives, the others wait; the count is the whole CTA.
            let tp0 = b.r("%tp0");
            let t0 = b.r("%t0");
            b.e(
                Opcode::Setp,
                vec![Modifier::Cmp(Cmp::Lt), t(Type::U32)],
                vec![tp0, t0, Operand::Int(32)],
            );
            let pred = b.name("%tp0");
            for (negated, flag) in [(false, Flag::Arrive), (true, Flag::Sync)] {
                let ntid = b.r("%t2");
                b.emit(
                    Some(Guard { pred, negated }),
                    Opcode::Bar,
                    vec![f(flag)],
                    vec![Operand::Int(id as i64), ntid],
                );
            }
        }
        Bar::Red { op, id, d, p, neg } => {
            let (m, ty, dc) = match op {
                BarRed::Popc => (MOp::Popc, Type::U32, Class::R),
                BarRed::And => (MOp::And, Type::Pred, Class::P),
                BarRed::Or => (MOp::Or, Type::Pred, Class::P),
            };
            let d = b.reg(Reg { class: dc, idx: d });
            let pn = b.name(&format!("%p{p}"));
            let src = if neg {
                Operand::Not(pn)
            } else {
                Operand::reg(pn)
            };
            b.e(
                Opcode::Bar,
                vec![f(Flag::Red), Modifier::Op(m), t(ty)],
                vec![d, Operand::Int(id as i64), src],
            );
        }
    }
}

/// The temporary register of `class` used by division guards.
fn guard_temp(class: Class) -> &'static str {
    match class {
        Class::H => "%th1",
        Class::R => "%t6",
        _ => "%td4",
    }
}

fn inst(b: &mut B, i: &Inst, depth: u32) {
    use Opcode::*;
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
        skip_unless(b, guard, |b| {
            call(b, k, &params[..n as usize], ret, via, srcs, dst)
        });
        return;
    }
    if let Op::Rec { reg } = i.op {
        skip_unless(b, guard, |b| rec_call(b, reg, srcs, dst));
        return;
    }
    let mut ops = vec![dst];
    let (op, mods): (Opcode, Vec<Modifier>) = match i.op {
        Op::Add(x) => (Add, vec![t(it_type(x))]),
        Op::Sub(x) => (Sub, vec![t(it_type(x))]),
        Op::AddSat(sub) => (
            if sub { Sub } else { Add },
            vec![f(Flag::Sat), t(Type::S32)],
        ),
        Op::MulLo(x) => (Mul, vec![f(Flag::Lo), t(it_type(x))]),
        Op::MulHi(x) => (Mul, vec![f(Flag::Hi), t(it_type(x))]),
        Op::MulWide(x) => (Mul, vec![f(Flag::Wide), t(it_type(x))]),
        Op::MadLo(x) => (Mad, vec![f(Flag::Lo), t(it_type(x))]),
        Op::MadHi(x) => (Mad, vec![f(Flag::Hi), t(it_type(x))]),
        Op::MadWide(x) => (Mad, vec![f(Flag::Wide), t(it_type(x))]),
        Op::MadHiSat => (Mad, vec![f(Flag::Hi), f(Flag::Sat), t(Type::S32)]),
        Op::Mul24 { hi, signed } | Op::Mad24 { hi, signed } => (
            if matches!(i.op, Op::Mul24 { .. }) {
                Mul24
            } else {
                Mad24
            },
            vec![
                f(if hi { Flag::Hi } else { Flag::Lo }),
                t(if signed { Type::S32 } else { Type::U32 }),
            ],
        ),
        Op::Sad(x) => (Sad, vec![t(it_type(x))]),
        Op::Div(x) | Op::Rem(x) => {
            // Guard the divisor: 0 -> 1 and, for signed types, -1 -> 1.
            let class = Class::int(x.bits);
            let bt = bits_type(x.bits as u32);
            let tg = b.r(guard_temp(class));
            let tp = b.r("%tp0");
            let dv = srcs[1].clone();
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Eq), t(bt)],
                vec![tp.clone(), dv.clone(), Operand::Int(0)],
            );
            b.e(
                Selp,
                vec![t(bt)],
                vec![tg.clone(), Operand::Int(1), dv, tp.clone()],
            );
            if x.signed {
                let ones = int_imm(super::eval::mask(x.bits as u32) as i128);
                b.e(
                    Setp,
                    vec![Modifier::Cmp(Cmp::Eq), t(bt)],
                    vec![tp.clone(), tg.clone(), ones],
                );
                b.e(
                    Selp,
                    vec![t(bt)],
                    vec![tg.clone(), Operand::Int(1), tg.clone(), tp],
                );
            }
            srcs[1] = tg;
            (
                if matches!(i.op, Op::Div(_)) { Div } else { Rem },
                vec![t(it_type(x))],
            )
        }
        Op::Abs(x) => (Abs, vec![t(it_type(x))]),
        Op::Neg(x) => (Neg, vec![t(it_type(x))]),
        Op::Min(x) => (Min, vec![t(it_type(x))]),
        Op::Max(x) => (Max, vec![t(it_type(x))]),
        Op::Relu { max } => (
            if max { Max } else { Min },
            vec![f(Flag::Relu), t(Type::S32)],
        ),
        Op::Popc(w) => (Popc, vec![t(bits_type(w as u32))]),
        Op::Clz(w) => (Clz, vec![t(bits_type(w as u32))]),
        Op::Brev(w) => (Brev, vec![t(bits_type(w as u32))]),
        Op::Bfind { t: x, shiftamt } => {
            let mut m = vec![];
            if shiftamt {
                m.push(f(Flag::ShiftAmt));
            }
            m.push(t(it_type(x)));
            (Bfind, m)
        }
        Op::Bfe(x) => (Bfe, vec![t(it_type(x))]),
        Op::Bfi(w) => (Bfi, vec![t(bits_type(w as u32))]),
        Op::Dp4a { sa, sb } => (
            Dp4a,
            vec![
                t(if sa { Type::S32 } else { Type::U32 }),
                t(if sb { Type::S32 } else { Type::U32 }),
            ],
        ),
        Op::Dp2a { hi, sa, sb } => (
            Dp2a,
            vec![
                f(if hi { Flag::Hi } else { Flag::Lo }),
                t(if sa { Type::S32 } else { Type::U32 }),
                t(if sb { Type::S32 } else { Type::U32 }),
            ],
        ),
        Op::Prmt(mode) => {
            let mut m = vec![t(Type::B32)];
            let fl = match mode {
                PrmtMode::Default => None,
                PrmtMode::F4e => Some(Flag::F4e),
                PrmtMode::B4e => Some(Flag::B4e),
                PrmtMode::Rc8 => Some(Flag::Rc8),
                PrmtMode::Ecl => Some(Flag::Ecl),
                PrmtMode::Ecr => Some(Flag::Ecr),
                PrmtMode::Rc16 => Some(Flag::Rc16),
            };
            m.extend(fl.map(f));
            (Prmt, m)
        }
        Op::Bmsk { clamp } => (
            Bmsk,
            vec![
                f(if clamp { Flag::Clamp } else { Flag::Wrap }),
                t(Type::B32),
            ],
        ),
        Op::Szext { clamp, signed } => (
            Szext,
            vec![
                f(if clamp { Flag::Clamp } else { Flag::Wrap }),
                t(if signed { Type::S32 } else { Type::U32 }),
            ],
        ),
        Op::Fns => (Fns, vec![t(Type::B32)]),
        Op::AddCc {
            sub,
            cin,
            cout,
            t: x,
        } => {
            let mut m = vec![];
            if cout {
                m.push(f(Flag::Cc));
            }
            m.push(t(it_type(x)));
            let op = match (sub, cin) {
                (false, false) => Add,
                (false, true) => Addc,
                (true, false) => Sub,
                (true, true) => Subc,
            };
            (op, m)
        }
        Op::MadCc {
            hi,
            cin,
            cout,
            t: x,
        } => {
            let mut m = vec![f(if hi { Flag::Hi } else { Flag::Lo })];
            if cout {
                m.push(f(Flag::Cc));
            }
            m.push(t(it_type(x)));
            (if cin { Madc } else { Mad }, m)
        }
        Op::And(c) => (And, vec![t(class_type(c))]),
        Op::Or(c) => (Or, vec![t(class_type(c))]),
        Op::Xor(c) => (Xor, vec![t(class_type(c))]),
        Op::Not(c) => (Not, vec![t(class_type(c))]),
        Op::Cnot(c) => (Cnot, vec![t(class_type(c))]),
        Op::Lop3(lut) => {
            srcs.push(Operand::Int(lut as i64));
            (Lop3, vec![t(Type::B32)])
        }
        Op::Shf { left, clamp } => (
            Shf,
            vec![
                f(if left { Flag::L } else { Flag::R }),
                f(if clamp { Flag::Clamp } else { Flag::Wrap }),
                t(Type::B32),
            ],
        ),
        Op::Shl(c) => (Shl, vec![t(class_type(c))]),
        Op::Shr(x) => (Shr, vec![t(it_type(x))]),
        Op::Setp {
            cmp,
            lohi,
            t: ct,
            bop,
            ftz,
        } => {
            let mut m = vec![cmp_mod(cmp, lohi)];
            if let Some(o) = bop {
                m.push(bop_mod(o));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(cmp_type(ct)));
            (Setp, m)
        }
        Op::Set {
            cmp,
            t: ct,
            d: dt,
            bop,
            ftz,
        } => {
            let mut m = vec![cmp_mod(cmp, false)];
            if let Some(o) = bop {
                m.push(bop_mod(o));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(match dt {
                SetD::U32 => Type::U32,
                SetD::S32 => Type::S32,
                SetD::F32 => Type::F32,
            }));
            m.push(t(cmp_type(ct)));
            (Set, m)
        }
        Op::Selp(c) => (Selp, vec![t(class_type(c))]),
        Op::Slct(c) => (Slct, vec![t(class_type(c)), t(Type::S32)]),
        Op::Fbin {
            op,
            ft,
            rnd,
            ftz,
            sat,
        } => {
            let mut m = vec![];
            if let Some(r) = rnd {
                m.push(Modifier::Rounding(rounding(r)));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(ft_type(ft)));
            (
                match op {
                    Fop::Add => Add,
                    Fop::Sub => Sub,
                    Fop::Mul => Mul,
                    Fop::Div => Div,
                },
                m,
            )
        }
        Op::Fma {
            ft,
            rnd,
            ftz,
            sat,
            mad,
        } => {
            let mut m = vec![Modifier::Rounding(rounding(rnd))];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(ft_type(ft)));
            (if mad { Mad } else { Fma }, m)
        }
        Op::Rcp { ft, rnd, ftz } | Op::Sqrt { ft, rnd, ftz } => {
            let mut m = vec![Modifier::Rounding(rounding(rnd))];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(ft_type(ft)));
            (
                if matches!(i.op, Op::Rcp { .. }) {
                    Rcp
                } else {
                    Sqrt
                },
                m,
            )
        }
        Op::Fabs { ft, ftz } | Op::Fneg { ft, ftz } => {
            let mut m = vec![];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(ft_type(ft)));
            (
                if matches!(i.op, Op::Fabs { .. }) {
                    Abs
                } else {
                    Neg
                },
                m,
            )
        }
        Op::Fminmax {
            ft,
            max,
            ftz,
            nan,
            xorsign,
        } => {
            let mut m = minmax_mods(ftz, nan, xorsign);
            m.push(t(ft_type(ft)));
            (if max { Max } else { Min }, m)
        }
        Op::Copysign(ft) => (Copysign, vec![t(ft_type(ft))]),
        Op::Testp { ft, class } => (
            Testp,
            vec![
                f([
                    Flag::Finite,
                    Flag::Infinite,
                    Flag::Number,
                    Flag::NotANumber,
                    Flag::Normal,
                    Flag::Subnormal,
                ][class as usize % 6]),
                t(ft_type(ft)),
            ],
        ),
        Op::Approx { kind, ftz } => {
            let opc = match kind {
                Approx::Sin => Sin,
                Approx::Cos => Cos,
                Approx::Ex2 => Ex2,
                Approx::Lg2 => Lg2,
                Approx::Rcp => Rcp,
                Approx::Sqrt => Sqrt,
                Approx::Rsqrt => Rsqrt,
                Approx::Tanh => Tanh,
                Approx::Div | Approx::DivFull => Div,
            };
            let mut m = vec![f(if kind == Approx::DivFull {
                Flag::Full
            } else {
                Flag::Approx
            })];
            if ftz && kind != Approx::Tanh {
                m.push(f(Flag::Ftz));
            }
            m.push(t(Type::F32));
            (opc, m)
        }
        Op::Cvt {
            d: dt,
            s: st,
            rnd,
            ftz,
            sat,
        } => {
            let mut m = vec![];
            match rnd {
                Some(CvtRnd::F(r)) => m.push(Modifier::Rounding(rounding(r))),
                Some(CvtRnd::I(r)) => m.push(Modifier::Rounding(irounding(r))),
                None => {}
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(cvt_type(dt)));
            m.push(t(cvt_type(st)));
            (Cvt, m)
        }
        Op::Mov(c) => (Mov, vec![t(class_type(c))]),
        Op::Call { .. } | Op::Rec { .. } => unreachable!("calls are lowered by `call`"),
        Op::Isspacep { space, ptr } => {
            let tg1 = b.r("%tg1");
            win_base(b, ptr, &tg1);
            b.e(
                Cvta,
                vec![Modifier::Space(win_space(ptr)), t(Type::U64)],
                vec![tg1.clone(), tg1.clone()],
            );
            srcs = vec![tg1];
            (Isspacep, vec![Modifier::Space(win_space(space))])
        }
        Op::CvtaRound { space } => {
            let (tg0, tg1) = (b.r("%tg0"), b.r("%tg1"));
            win_base(b, space, &tg0);
            let sp = Modifier::Space(win_space(space));
            b.e(Cvta, vec![sp, t(Type::U64)], vec![tg1.clone(), tg0.clone()]);
            b.e(
                Cvta,
                vec![f(Flag::To), sp, t(Type::U64)],
                vec![tg1.clone(), tg1.clone()],
            );
            b.e(Sub, vec![t(Type::S64)], vec![tg1.clone(), tg1.clone(), tg0]);
            srcs.push(tg1);
            (Add, vec![t(Type::S64)])
        }
        Op::Ld {
            buf,
            peer,
            vec,
            class,
            off,
            addr: kind,
        } => {
            let addr = slot_addr(b, buf, peer, off);
            let (space, addr) = generic_addr(b, kind, Space::Shared, addr);
            ops = vec![vec_regs(b, class, i.dst.idx, vec)];
            srcs = vec![addr];
            (Ld, mem_mods(space, vec, class_type(class)))
        }
        Op::St {
            buf,
            vec,
            class,
            off,
            addr: kind,
        } => {
            let addr = slot_addr(b, buf, 0, off);
            let (space, addr) = generic_addr(b, kind, Space::Shared, addr);
            let first = match i.srcs[0] {
                Src::Reg(r) => r.idx,
                _ => 0,
            };
            ops = vec![addr];
            srcs = vec![vec_regs(b, class, first, vec)];
            (St, mem_mods(space, vec, class_type(class)))
        }
        Op::Atom {
            op,
            t: at,
            target,
            red,
            sem,
            scope,
            addr: kind,
        } => {
            let (space, addr) = match target {
                Target::Own { buf, off } => (Space::Shared, slot_addr(b, buf, 0, off)),
                Target::Cell(j) => (
                    Space::Shared,
                    Operand::addr(b.name("smem"), (CELLS + 8 * j as u32) as i64),
                ),
                Target::GlobalOwn => (Space::Global, Operand::addr(b.name("%tm1"), 0)),
                Target::GlobalCell(j) => {
                    (Space::Global, Operand::addr(b.name("%tm2"), 8 * j as i64))
                }
            };
            let (space, addr) = generic_addr(b, kind, space, addr);
            if red {
                ops = vec![addr];
            } else {
                ops.push(addr);
            }
            let ty = match at {
                AtomT::Int(x) => it_type(x),
                AtomT::Bits(w) => bits_type(w as u32),
                AtomT::F32 => Type::F32,
                AtomT::F64 => Type::F64,
                AtomT::Half(hf, x2) => half_type(hf, x2),
            };
            let o = match op {
                AtomOp::Add => MOp::Add,
                AtomOp::Min => MOp::Min,
                AtomOp::Max => MOp::Max,
                AtomOp::And => MOp::And,
                AtomOp::Or => MOp::Or,
                AtomOp::Xor => MOp::Xor,
                AtomOp::Inc => MOp::Inc,
                AtomOp::Dec => MOp::Dec,
                AtomOp::Exch => MOp::Exch,
                AtomOp::Cas => MOp::Cas,
            };
            let sem = sem.map(|x| {
                Modifier::Sem(match x {
                    Sem::Relaxed => ptx_ir_core::Sem::Relaxed,
                    Sem::Acquire => ptx_ir_core::Sem::Acquire,
                    Sem::Release => ptx_ir_core::Sem::Release,
                    Sem::AcqRel => ptx_ir_core::Sem::AcqRel,
                })
            });
            let scope = scope.map(|x| {
                Modifier::Scope(match x {
                    Scope::Cta => ptx_ir_core::Scope::Cta,
                    Scope::Cluster => ptx_ir_core::Scope::Cluster,
                    Scope::Gpu => ptx_ir_core::Scope::Gpu,
                    Scope::Sys => ptx_ir_core::Scope::Sys,
                })
            });
            let space = space.map(Modifier::Space);
            // The table's orders: `atom{.sem}{.scope}{.space}`, `red{.space}{.sem}{.scope}`.
            let mut m: Vec<Modifier> = if red {
                space.into_iter().chain(sem).chain(scope).collect()
            } else {
                sem.into_iter().chain(scope).chain(space).collect()
            };
            m.push(Modifier::Op(o));
            if matches!(at, AtomT::Half(..)) {
                m.push(f(Flag::NoFtz));
            }
            m.push(t(ty));
            (if red { Red } else { Atom }, m)
        }
        Op::Hbin {
            op,
            hf,
            x2,
            rn,
            ftz,
            sat,
        } => {
            let mut m = vec![];
            if rn {
                m.push(Modifier::Rounding(Rounding::Rn));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(half_type(hf, x2)));
            (
                match op {
                    Fop::Add => Add,
                    Fop::Sub => Sub,
                    _ => Mul,
                },
                m,
            )
        }
        Op::Hfma {
            hf,
            x2,
            ftz,
            sat,
            relu,
        } => {
            let mut m = vec![Modifier::Rounding(Rounding::Rn)];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            if relu {
                m.push(f(Flag::Relu));
            }
            m.push(t(half_type(hf, x2)));
            (Fma, m)
        }
        Op::Hsetp {
            cmp,
            hf,
            x2,
            ftz,
            bop,
        } => {
            let mut m = vec![cmp_mod(cmp, false)];
            if let Some(o) = bop {
                m.push(bop_mod(o));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(half_type(hf, x2)));
            (Setp, m)
        }
        Op::Hset {
            cmp,
            hf,
            x2,
            d,
            ftz,
            bop,
        } => {
            let mut m = vec![cmp_mod(cmp, false)];
            if let Some(o) = bop {
                m.push(bop_mod(o));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(match d {
                HSetD::Half => half_type(hf, x2),
                HSetD::U16 => Type::U16,
                HSetD::S16 => Type::S16,
                HSetD::U32 => Type::U32,
                HSetD::S32 => Type::S32,
            }));
            m.push(t(half_type(hf, x2)));
            (Set, m)
        }
        Op::CvtHalfX {
            hf,
            peer,
            to_half,
            rnd,
            sat,
        } => {
            let mut m = vec![];
            match rnd {
                Some(CvtRnd::F(r)) => m.push(Modifier::Rounding(rounding(r))),
                Some(CvtRnd::I(r)) => m.push(Modifier::Rounding(irounding(r))),
                None => {}
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            let h = half_type(hf, false);
            let other = match peer {
                HPeer::Int(bits, signed) => int_type(bits, signed),
                HPeer::F64 => Type::F64,
                HPeer::Half => half_type(if hf == Hf::F16 { Hf::Bf16 } else { Hf::F16 }, false),
            };
            if to_half {
                m.extend([t(h), t(other)]);
            } else {
                m.extend([t(other), t(h)]);
            }
            (Cvt, m)
        }
        Op::Hsign { abs, hf, x2, ftz } => {
            let mut m = vec![];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(half_type(hf, x2)));
            (if abs { Abs } else { Neg }, m)
        }
        Op::Hminmax {
            hf,
            x2,
            max,
            ftz,
            nan,
            xorsign,
        } => {
            let mut m = minmax_mods(ftz, nan, xorsign);
            m.push(t(half_type(hf, x2)));
            (if max { Max } else { Min }, m)
        }
        Op::CvtToHalf {
            hf,
            rnd,
            ftz,
            sat,
            relu,
            satfinite,
        } => {
            let mut m = vec![Modifier::Rounding(rounding(rnd))];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            if relu {
                m.push(f(Flag::Relu));
            }
            if satfinite {
                m.push(f(Flag::SatFinite));
            }
            m.push(t(half_type(hf, false)));
            m.push(t(Type::F32));
            (Cvt, m)
        }
        Op::CvtFromHalf { hf, ftz } => {
            let mut m = vec![];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(Type::F32));
            m.push(t(half_type(hf, false)));
            (Cvt, m)
        }
        Op::CvtPack {
            hf,
            rz,
            relu,
            satfinite,
        } => {
            let mut m = vec![Modifier::Rounding(if rz {
                Rounding::Rz
            } else {
                Rounding::Rn
            })];
            if relu {
                m.push(f(Flag::Relu));
            }
            if satfinite {
                m.push(f(Flag::SatFinite));
            }
            m.push(t(half_type(hf, true)));
            m.push(t(Type::F32));
            (Cvt, m)
        }
        Op::Shfl { mode, c } => {
            srcs.push(Operand::Int(c as i64));
            srcs.push(mask_reg(b, depth));
            (
                Shfl,
                vec![
                    f(Flag::Sync),
                    f(match mode {
                        ShflMode::Up => Flag::Up,
                        ShflMode::Down => Flag::Down,
                        ShflMode::Bfly => Flag::Bfly,
                        ShflMode::Idx => Flag::Idx,
                    }),
                    t(Type::B32),
                ],
            )
        }
        Op::Vote { mode, .. } => {
            srcs.push(mask_reg(b, depth));
            let (fl, ty) = match mode {
                VoteMode::All => (Flag::All, Type::Pred),
                VoteMode::Any => (Flag::Any, Type::Pred),
                VoteMode::Uni => (Flag::Uni, Type::Pred),
                VoteMode::Ballot => (Flag::Ballot, Type::B32),
            };
            (Vote, vec![f(Flag::Sync), f(fl), t(ty)])
        }
        Op::Redux { op, signed } => {
            srcs.push(mask_reg(b, depth));
            let (o, ty) = match op {
                ReduxOp::Add => (MOp::Add, if signed { Type::S32 } else { Type::U32 }),
                ReduxOp::Min => (MOp::Min, if signed { Type::S32 } else { Type::U32 }),
                ReduxOp::Max => (MOp::Max, if signed { Type::S32 } else { Type::U32 }),
                ReduxOp::And => (MOp::And, Type::B32),
                ReduxOp::Or => (MOp::Or, Type::B32),
                ReduxOp::Xor => (MOp::Xor, Type::B32),
            };
            (Redux, vec![f(Flag::Sync), Modifier::Op(o), t(ty)])
        }
        Op::Activemask => (Activemask, vec![t(Type::B32)]),
        Op::WarpSync => {
            let m = mask_reg(b, depth);
            b.e(BarWarpSync, vec![], vec![m]);
            (Mov, vec![t(Type::B32)])
        }
        Op::PackSat(pt) => {
            let ty = match pt {
                PackT::U16 => Type::U16,
                PackT::S16 => Type::S16,
                PackT::U8 => Type::U8,
                PackT::S8 => Type::S8,
                PackT::U4 => Type::U4,
                PackT::S4 => Type::S4,
                PackT::U2 => Type::U2,
                PackT::S2 => Type::S2,
            };
            let mut m = vec![f(Flag::Sat), t(ty), t(Type::S32)];
            if pt.with_c() {
                m.push(t(Type::B32));
            }
            (CvtPack, m)
        }
        Op::LdIn {
            how,
            class,
            slot,
            vec,
        } => {
            let (op, m, src) = ld_in(b, guard, how, class, slot, vec);
            ops = vec![vec_regs(b, class, i.dst.idx, vec)];
            srcs = src;
            (op, m)
        }
        Op::Hint(h) => {
            hint(b, guard, h);
            (Mov, vec![t(Type::B32)])
        }
        Op::Alloca {
            size,
            lane_size,
            align,
            restore,
            generic,
        } => {
            let (tq0, tq1, tq2) = (b.r("%tq0"), b.r("%tq1"), b.r("%tq2"));
            let (tz0, tz1, t3) = (b.r("%tz0"), b.r("%tz1"), b.r("%t3"));
            let u64t = || vec![t(Type::U64)];
            // Saved and restored in every thread, whatever the guard: on the H100 a guarded
            // `stacksave`/`stackrestore` pair in a divergent loop, followed by another
            // `alloca`, stopped the kernel with an illegal instruction (the skipped threads'
            // saved value was never written; the hardware seems to keep one stack pointer per
            // warp). Unguarded, the pair leaves a skipped thread's pointer as it was.
            if restore {
                b.e(Stacksave, u64t(), vec![tq1.clone()]);
            }
            let sz = if lane_size {
                b.e(
                    And,
                    vec![t(Type::B32)],
                    vec![tz0.clone(), t3, Operand::Int(31)],
                );
                b.e(
                    Add,
                    vec![t(Type::U32)],
                    vec![tz0.clone(), tz0.clone(), Operand::Int(4)],
                );
                b.e(
                    Cvt,
                    vec![t(Type::U64), t(Type::U32)],
                    vec![tq2.clone(), tz0.clone()],
                );
                tq2
            } else {
                Operand::Int(size as i64)
            };
            let mut ops = vec![tq0.clone(), sz];
            ops.extend(align.map(|a| Operand::Int(a as i64)));
            b.emit(guard, Alloca, u64t(), ops);
            let a = align.unwrap_or(8) as i64;
            b.emit(
                guard,
                Cvt,
                vec![t(Type::U32), t(Type::U64)],
                vec![tz0.clone(), tq0.clone()],
            );
            b.emit(
                guard,
                And,
                vec![t(Type::B32)],
                vec![tz0.clone(), tz0.clone(), Operand::Int(a - 1)],
            );
            let space = if generic {
                b.emit(
                    guard,
                    Cvta,
                    vec![Modifier::Space(Space::Local), t(Type::U64)],
                    vec![tq0.clone(), tq0.clone()],
                );
                None
            } else {
                Some(Space::Local)
            };
            let at = Operand::addr(b.name("%tq0"), 0);
            b.emit(
                guard,
                St,
                mem_mods(space, 1, Type::B32),
                vec![at.clone(), srcs[0].clone()],
            );
            b.emit(
                guard,
                Ld,
                mem_mods(space, 1, Type::B32),
                vec![tz1.clone(), at],
            );
            if restore {
                b.e(Stackrestore, u64t(), vec![tq1]);
            }
            srcs = vec![tz1, tz0];
            (Add, vec![t(Type::U32)])
        }
        Op::Match { all, wide } => {
            srcs.push(mask_reg(b, depth));
            (
                Match,
                vec![
                    f(if all { Flag::All } else { Flag::Any }),
                    f(Flag::Sync),
                    t(if wide { Type::B64 } else { Type::B32 }),
                ],
            )
        }
    };
    ops.extend(srcs);
    b.emit(guard, op, mods, ops);
}

/// `vec` consecutive registers of `class` from index `first` (cyclically): one register, or a
/// vector operand.
fn vec_regs(b: &mut B, class: Class, first: u8, vec: u8) -> Operand {
    let regs: Vec<Operand> = (0..vec)
        .map(|k| {
            b.reg(Reg {
                class,
                idx: (first + k) % class.count(),
            })
        })
        .collect();
    if vec == 1 {
        regs[0].clone()
    } else {
        Operand::vector(regs)
    }
}

/// The eviction priority `k` of `createpolicy` (0 `evict_last`, 1 `evict_normal`,
/// 2 `evict_first`, 3 `evict_unchanged`) and the optional secondary one.
fn policy_mods(primary: u8, secondary: Option<bool>) -> Vec<Modifier> {
    use ptx_ir_core::Cache;
    let mut m = vec![Modifier::Cache(match primary {
        0 => Cache::L2EvictLast,
        1 => Cache::L2EvictNormal,
        2 => Cache::L2EvictFirst,
        _ => Cache::L2EvictUnchanged,
    })];
    if let Some(unchanged) = secondary {
        m.push(Modifier::Cache(if unchanged {
            Cache::L2EvictUnchanged
        } else {
            Cache::L2EvictFirst
        }));
    }
    m
}

/// The instructions before an input-pool load that `how` asks for, and the load's opcode,
/// qualifiers and address operands: `[%td0+offset]` (the input buffer) and, with a cache
/// policy, the policy register.
fn ld_in(
    b: &mut B,
    guard: Option<Guard>,
    how: LdHow,
    class: Class,
    slot: u8,
    vec: u8,
) -> (Opcode, Vec<Modifier>, Vec<Operand>) {
    use ptx_ir_core::Cache;
    let pool = match class {
        Class::H => 0,
        Class::P | Class::R => 1,
        Class::D => 2,
        Class::F => 3,
        Class::Fd => 4,
    };
    let off = POOL_OFFSETS[pool] + slot as u32 * class.bits() / 8;
    let td0 = b.name("%td0");
    let addr = Operand::addr(td0, off as i64);
    let g = Modifier::Space(Space::Global);
    let ty = class_type(class);
    let plain = |extra: Vec<Modifier>| {
        let mut m = vec![g];
        m.extend(extra);
        m.extend(mem_mods(None, vec, ty));
        m
    };
    match how {
        LdHow::Ldu => (
            Opcode::Ldu,
            mem_mods(Some(Space::Global), vec, ty),
            vec![addr],
        ),
        LdHow::Nc(k) => {
            let mut extra = vec![f(Flag::Nc)];
            match k {
                1 => extra.push(Modifier::Cache(Cache::L1EvictLast)),
                2 => extra.push(Modifier::Cache(Cache::L1NoAllocate)),
                3 => extra.push(Modifier::Cache(Cache::L2B256)),
                _ => {}
            }
            (Opcode::Ld, plain(extra), vec![addr])
        }
        LdHow::Policy(pol) => {
            let tq0 = b.r("%tq0");
            match pol {
                Policy::Fractional {
                    primary,
                    secondary,
                    fraction,
                } => {
                    let mut m = vec![f(Flag::CreatePolicyFractional)];
                    m.extend(policy_mods(primary, secondary));
                    m.push(t(Type::B64));
                    let mut ops = vec![tq0.clone()];
                    ops.extend(fraction.map(Operand::F32));
                    b.e(Opcode::Createpolicy, m, ops);
                }
                Policy::Range {
                    primary,
                    secondary,
                    size,
                    total,
                } => {
                    let mut m = vec![f(Flag::Range), g];
                    m.extend(policy_mods(primary, secondary));
                    m.push(t(Type::B64));
                    b.e(
                        Opcode::Createpolicy,
                        m,
                        vec![
                            tq0.clone(),
                            Operand::addr(td0, 0),
                            Operand::Int(size as i64),
                            Operand::Int(total as i64),
                        ],
                    );
                }
            }
            (
                Opcode::Ld,
                plain(vec![Modifier::Cache(Cache::L2CacheHint)]),
                vec![addr, tq0],
            )
        }
        LdHow::Prefetch(pf) => {
            let generic = matches!(pf, Pf::GenericL2 | Pf::Uniform);
            let at = if generic {
                let tq1 = b.r("%tq1");
                b.e(
                    Opcode::Cvta,
                    vec![g, t(Type::U64)],
                    vec![tq1, Operand::reg(td0)],
                );
                Operand::addr(b.name("%tq1"), off as i64)
            } else {
                addr.clone()
            };
            let (op, m) = match pf {
                Pf::GlobalL1 => (Opcode::Prefetch, vec![g, Modifier::Cache(Cache::L1)]),
                Pf::GlobalL2 => (Opcode::Prefetch, vec![g, Modifier::Cache(Cache::L2)]),
                Pf::EvictLast => (
                    Opcode::Prefetch,
                    vec![g, Modifier::Cache(Cache::L2EvictLast)],
                ),
                Pf::EvictNormal => (
                    Opcode::Prefetch,
                    vec![g, Modifier::Cache(Cache::L2EvictNormal)],
                ),
                Pf::GenericL2 => (Opcode::Prefetch, vec![Modifier::Cache(Cache::L2)]),
                Pf::Uniform => (Opcode::Prefetchu, vec![Modifier::Cache(Cache::L1)]),
            };
            b.emit(guard, op, m, vec![at]);
            (Opcode::Ld, plain(vec![]), vec![addr])
        }
        LdHow::Applypriority => {
            b.emit(
                guard,
                Opcode::Applypriority,
                vec![g, Modifier::Cache(Cache::L2EvictNormal)],
                vec![Operand::addr(td0, 0), Operand::Int(128)],
            );
            (Opcode::Ld, plain(vec![]), vec![addr])
        }
    }
}

/// Emits the instruction of `h` (under `guard`).
fn hint(b: &mut B, guard: Option<Guard>, h: HintOp) {
    use ptx_ir_core::{Cache, Scope, Sem};
    let scope = |k: u8| {
        Modifier::Scope(match k {
            0 => Scope::Cta,
            1 => Scope::Cluster,
            2 => Scope::Gpu,
            _ => Scope::Sys,
        })
    };
    let (op, m, ops) = match h {
        HintOp::Membar(k) => (
            Opcode::Membar,
            vec![Modifier::Scope(match k {
                0 => Scope::Cta,
                1 => Scope::Gl,
                _ => Scope::Sys,
            })],
            vec![],
        ),
        HintOp::Fence { sem, scope: sc } => {
            let mut m = match sem {
                1 => vec![Modifier::Sem(Sem::Sc)],
                2 => vec![Modifier::Sem(Sem::AcqRel)],
                _ => vec![],
            };
            m.push(scope(sc));
            (Opcode::Fence, m, vec![])
        }
        HintOp::Proxy(k) => {
            let (op, tail) = match k {
                0 => (Opcode::Fence, vec![f(Flag::Alias)]),
                1 => (Opcode::Fence, vec![f(Flag::Async)]),
                2 => (
                    Opcode::Fence,
                    vec![f(Flag::Async), Modifier::Space(Space::Global)],
                ),
                3 => (
                    Opcode::Fence,
                    vec![f(Flag::Async), Modifier::Space(Space::SharedCta)],
                ),
                _ => (Opcode::Membar, vec![f(Flag::Alias)]),
            };
            let mut m = vec![f(Flag::Proxy)];
            m.extend(tail);
            (op, m, vec![])
        }
        HintOp::Sleep(ns) => (
            Opcode::Nanosleep,
            vec![t(Type::U32)],
            vec![Operand::Int(ns as i64)],
        ),
        HintOp::SleepReg => {
            // A different time per thread: `gid & 255` nanoseconds.
            let (tz, t3) = (b.r("%tz0"), b.r("%t3"));
            b.e(
                Opcode::And,
                vec![t(Type::B32)],
                vec![tz.clone(), t3, Operand::Int(255)],
            );
            (Opcode::Nanosleep, vec![t(Type::U32)], vec![tz])
        }
        HintOp::Pmevent(k) => (Opcode::Pmevent, vec![], vec![Operand::Int(k as i64)]),
        HintOp::PmeventMask(k) => (
            Opcode::Pmevent,
            vec![f(Flag::Mask)],
            vec![Operand::Int(k as i64)],
        ),
        HintOp::Griddep(wait) => (
            Opcode::Griddepcontrol,
            vec![f(if wait {
                Flag::Wait
            } else {
                Flag::LaunchDependents
            })],
            vec![],
        ),
        HintOp::Discard => (
            Opcode::Discard,
            vec![Modifier::Space(Space::Global), Modifier::Cache(Cache::L2)],
            vec![Operand::addr(b.name("dsc"), 0), Operand::Int(128)],
        ),
        HintOp::Setmaxnreg { inc, n } => {
            // "Must synchronize all warpgroup warps before issuing another setmaxnreg" (seed
            // 003): a CTA barrier first (setmaxnreg is drawn only where the whole CTA runs).
            b.e(Opcode::Bar, vec![f(Flag::Sync)], vec![Operand::Int(0)]);
            (
                Opcode::Setmaxnreg,
                vec![
                    Modifier::Op(if inc { MOp::Inc } else { MOp::Dec }),
                    f(Flag::Sync),
                    f(Flag::Aligned),
                    t(Type::U32),
                ],
                vec![Operand::Int(n as i64)],
            )
        }
    };
    b.emit(guard, op, m, ops);
}

fn cmp_mod(c: Cmp, lohi: bool) -> Modifier {
    match (c, lohi) {
        (Cmp::Lt, true) => f(Flag::Lo),
        (Cmp::Gt, true) => f(Flag::Hi),
        _ => Modifier::Cmp(c),
    }
}

fn bop_mod(o: Bop) -> Modifier {
    Modifier::Op(match o {
        Bop::And => MOp::And,
        Bop::Or => MOp::Or,
        Bop::Xor => MOp::Xor,
    })
}

fn cmp_type(t: CmpT) -> Type {
    match t {
        CmpT::Int(x) => it_type(x),
        CmpT::Bits(b) => bits_type(b as u32),
        CmpT::F(f) => ft_type(f),
    }
}

/// The `.param` type of a value of class `c`.
fn param_type(c: Class) -> Type {
    match c {
        Class::D => Type::B64,
        Class::F => Type::F32,
        _ => Type::B32,
    }
}

fn param_decl(b: &mut B, name: &str, c: Class) -> Param {
    Param {
        space: Space::Param,
        align: None,
        vector: None,
        ty: param_type(c),
        ptr: None,
        name: b.name(name),
        dims: Default::default(),
    }
}

/// A call site: a block declaring the `.param` arguments and return value, storing the
/// arguments, calling, and loading the result (a guard becomes a branch around it: `skip_unless`). An
/// indirect call takes the callee's address into `%td4` and names a `.callprototype` or a
/// `.calltargets` list.
fn call(
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
fn skip_unless(b: &mut B, guard: Option<Guard>, f: impl FnOnce(&mut B)) {
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
fn rec_call(b: &mut B, reg: bool, srcs: Vec<Operand>, dst: Operand) {
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
fn rec_item(b: &mut B, reg: bool) -> Item {
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

fn mem_mods(space: Option<Space>, vec: u8, ty: Type) -> Vec<Modifier> {
    let mut m: Vec<Modifier> = space.map(Modifier::Space).into_iter().collect();
    match vec {
        2 => m.push(Modifier::Vector(Vector::V2)),
        4 => m.push(Modifier::Vector(Vector::V4)),
        _ => {}
    }
    m.push(t(ty));
    m
}

/// The address `addr` (a register plus displacement) of `space` with the space qualifier
/// `kind` asks for, or, for [`AddrKind::Generic`], the same location as a generic address: the
/// register is converted with `cvta` into `%tg0` (no space qualifier on the access then).
fn generic_addr(
    b: &mut B,
    kind: AddrKind,
    space: Space,
    addr: Operand,
) -> (Option<Space>, Operand) {
    match (kind, space) {
        (AddrKind::Generic, _) => {}
        (AddrKind::Cta, Space::Shared) => return (Some(Space::SharedCta), addr),
        (AddrKind::Cluster, Space::Shared) => return (Some(Space::SharedCluster), addr),
        _ => return (Some(space), addr),
    }
    let (base, disp) = match addr {
        Operand::Addr {
            base: Some(base),
            offset,
            ..
        } => (base, offset),
        a => unreachable!("memory operands are register plus offset: {a:?}"),
    };
    let tg0 = b.r("%tg0");
    // A `smem` operand is the array's shared address: bring it into a register first.
    b.e(
        Opcode::Mov,
        vec![t(Type::U64)],
        vec![tg0.clone(), Operand::reg(base)],
    );
    b.e(
        Opcode::Cvta,
        vec![Modifier::Space(space), t(Type::U64)],
        vec![tg0.clone(), tg0],
    );
    (None, Operand::addr(b.name("%tg0"), disp))
}

/// The address of byte `off` of a slot of shared buffer `buf`: the thread's own (`peer` 0) or
/// that of thread `(tid + peer) % ntid`, computed into `%tm3`.
fn slot_addr(b: &mut B, buf: u8, peer: u8, off: u8) -> Operand {
    use Opcode::*;
    let disp = (buf as u32 * BUF1 + off as u32) as i64;
    if peer == 0 {
        return Operand::addr(b.name("%tm0"), disp);
    }
    let (t7, t0, t2, tm3, tm4) = (b.r("%t7"), b.r("%t0"), b.r("%t2"), b.r("%tm3"), b.r("%tm4"));
    b.e(
        Add,
        vec![t(Type::U32)],
        vec![t7.clone(), t0, Operand::Int(peer as i64)],
    );
    b.e(Rem, vec![t(Type::U32)], vec![t7.clone(), t7.clone(), t2]);
    b.e(
        Mad,
        vec![f(Flag::Wide), t(Type::U32)],
        vec![tm3, t7, Operand::Int(SLOT as i64), tm4],
    );
    Operand::addr(b.name("%tm3"), disp)
}

fn win_space(w: Win) -> Space {
    match w {
        Win::Global => Space::Global,
        Win::Shared => Space::Shared,
        Win::SharedCta => Space::SharedCta,
        Win::SharedCluster => Space::SharedCluster,
        Win::Local => Space::Local,
        Win::Const => Space::Const,
        Win::Param => Space::Param,
    }
}

/// Moves into `d` the thread's own address in `w`'s space: its shared slot (`%tm0`), its
/// global scratch word (`%tm1`), the `.local` array `lmem`, the module's `.const` array `cdata`
/// or the kernel parameter `in`.
fn win_base(b: &mut B, w: Win, d: &Operand) {
    let src = match w {
        Win::Global => b.r("%tm1"),
        Win::Local => b.r("lmem"),
        Win::Const => b.r("cdata"),
        Win::Param => b.r("in"),
        _ => b.r("%tm0"),
    };
    b.e(Opcode::Mov, vec![t(Type::U64)], vec![d.clone(), src]);
}

fn half_type(hf: Hf, x2: bool) -> Type {
    match (hf, x2) {
        (Hf::F16, false) => Type::F16,
        (Hf::F16, true) => Type::F16x2,
        (Hf::Bf16, false) => Type::Bf16,
        (Hf::Bf16, true) => Type::Bf16x2,
    }
}

fn cvt_type(t: CvtT) -> Type {
    match t {
        CvtT::Int(b, s) => int_type(b, s),
        CvtT::F(f) => ft_type(f),
    }
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
