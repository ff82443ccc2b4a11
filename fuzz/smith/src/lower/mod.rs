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
//! This module assembles the module (variables, device functions, the kernel); `frame.rs`
//! lowers the kernel's prologue and epilogue, `flow.rs` the structured body, handing each
//! instruction to the file of its family. The kernel is assembled
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
mod flow;
mod frame;
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
    ArchSuffix, Cmp, Declarator, Function, FunctionKind, Guard, Item, Linkage, Modifier, Module,
    Opcode, Operand, Param, Space, Statement, Target as Arch, Type, VarDecl, Version,
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
        if p.insts().iter().any(|i| i.op == Operation::Rec { reg }) {
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
    frame::prologue(&mut b, p);
    if mem {
        frame::mem_prologue(&mut b, p);
    }
    let body = p.body.clone();
    flow::nodes(&mut b, &body, 0);
    if let Some(c) = p.exit {
        let (pred, negated) = flow::cond_pred(&mut b, c, 0);
        b.emit(Some(Guard { pred, negated }), Opcode::Exit, vec![], vec![]);
    }
    frame::epilogue(&mut b, p);
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
    flow::nodes(b, &f.body, 1);
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

#[cfg(test)]
mod tests {
    use super::emit::B;
    use crate::gen::{Gen, Swarm};
    use crate::model::SimtFamily;
    use arbitrary::Unstructured;
    use ptx_ir_core::{Module, Opcode, Operand, Version};

    /// Every family's kernels lower: each instruction passes the table's check (or `emit`
    /// panics), and the functions hold instructions.
    #[test]
    fn every_family_lowers() {
        let mut src = crate::Bytes::new(0x5eed_0100);
        for fam in SimtFamily::ALL {
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
