//! Lowering a generated [`Program`] to a PTX module through the IR builder
//! ([`ptx_ir_core::build`]): the module's variables and functions through
//! [`ModuleBuilder`], each function through a [`FunctionBuilder`] (parameters, register
//! ranges, labels, `.branchtargets`, `.calltargets` and `.callprototype` lists, call blocks),
//! and every instruction through [`FunctionBuilder::push`], which checks it against the
//! instruction table and checks that every name it uses is declared. A lowering that builds
//! something the builder refuses has a bug: it panics at once with the builder's diagnosis.
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
//! This module builds the module (variables, device functions, the kernel); `frame.rs`
//! lowers the kernel's prologue and epilogue, `flow.rs` the structured body, handing each
//! instruction to the file of its family, `call.rs` the call blocks and the recursive
//! functions. The register file and the scratch registers are declared as named ranges
//! ([`FunctionBuilder::reg_range`]: `.reg .b32 %r<8>;`, `.reg .b32 %t<8>;`, ...) where the
//! kernel declares them, rather than allocated by [`FunctionBuilder::reg`]: the model names
//! its registers (`%r3` is register 3 of class `R`), and the kernels' text, which GPU batches
//! recorded (`corpus/fuzzhw/`), stays as it was.

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
use ptx_ir_core::build::{FunctionBuilder, ModuleBuilder};
use ptx_ir_core::{
    ArchSuffix, Cmp, Declarator, FuncDirective, Guard, Modifier, Module, Opcode, Operand, Space,
    Target, Type, VarDecl, Version,
};

/// The kernel for `p`, with names renumbered into print order.
pub fn module(p: &Program) -> Module {
    // ptxas asks for `sm_90a` and a launch bound with `setmaxnreg`.
    let maxnreg = p.insts().iter().any(|i| is_setmaxnreg(&i.op));
    let target = Target::Sm {
        arch: 90,
        suffix: if maxnreg {
            ArchSuffix::A
        } else {
            ArchSuffix::None
        },
    };
    let mut mb = ModuleBuilder::new(Version { major: 8, minor: 7 }, target);
    let mut labels = 0;
    for (k, f) in p.funcs.iter().enumerate() {
        func(&mut mb, &mut labels, k, f);
    }
    if p.insts().iter().any(|i| uses_const(&i.op)) {
        let name = mb.intern("cdata");
        built(mb.variable(array(Space::Const, 8, name, 16)));
    }
    if p.insts().iter().any(|i| uses_discard(&i.op)) {
        let name = mb.intern("dsc");
        built(mb.variable(array(Space::Global, 128, name, 128)));
    }
    for reg in [false, true] {
        if p.insts().iter().any(|i| i.op == Operation::Rec { reg }) {
            call::rec_func(&mut mb, &mut labels, reg);
        }
    }
    let mut f = built(mb.entry("k"));
    if maxnreg {
        f.directive(FuncDirective::MaxNtid(
            [p.block, 1, 1].into_iter().collect(),
        ));
    }
    built(f.param(Type::U64, "in"));
    built(f.param(Type::U64, "out"));
    let b = &mut B {
        f: &mut f,
        labels: &mut labels,
    };
    common_decls(b);
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
        built(b.f.declare(array(Space::Shared, 16, name, SHARED_LEN as u64)));
    }
    if p.insts().iter().any(|i| uses_local(&i.op)) {
        let name = b.name("lmem");
        built(b.f.declare(array(Space::Local, 8, name, 16)));
    }
    frame::prologue(b, p);
    if mem {
        frame::mem_prologue(b, p);
    }
    flow::nodes(b, &p.body, 0);
    if let Some(c) = p.exit {
        let (pred, negated) = flow::cond_pred(b, c, 0);
        b.emit(Some(Guard { pred, negated }), Opcode::Exit, vec![], vec![]);
    }
    frame::epilogue(b, p);
    b.e(Opcode::Ret, vec![], vec![]);
    built(f.finish());
    mb.finish()
}

/// `.<space> .align <align> .b8 <name>[<len>]`, a byte array.
fn array(space: Space, align: u32, name: ptx_ir_core::Name, len: u64) -> VarDecl {
    VarDecl {
        linkage: None,
        space,
        attributes: Vec::new(),
        align: Some(align),
        vector: None,
        ty: Type::B8,
        names: vec![Declarator {
            name,
            range: None,
            dims: std::iter::once(Some(len)).collect(),
            init: None,
        }]
        .into(),
    }
}

/// Declares the registers every function of the program has: each class's file, and the
/// scratch registers `%t`, `%td`, `%tp`, `%th` and the region masks `%m`.
fn common_decls(b: &mut B) {
    for c in Class::ALL {
        b.decl(class_type(c), c.prefix(), c.count() as u32);
    }
    b.decl(Type::B32, "%t", 8);
    b.decl(Type::B64, "%td", 5);
    b.decl(Type::Pred, "%tp", 2);
    b.decl(Type::B16, "%th", 2);
    b.decl(Type::B32, "%m", 6);
}

/// The device function `f<k>`: loads its parameters, sets its other registers, runs its body
/// and stores its result.
fn func(mb: &mut ModuleBuilder, labels: &mut u32, k: usize, f: &Func) {
    use Opcode::*;
    let mut fb: FunctionBuilder = built(mb.func(&format!("f{k}")));
    built(fb.ret_param(param_type(f.result.class), "r"));
    for (j, &c) in f.params.iter().enumerate() {
        built(fb.param(param_type(c), &format!("a{j}")));
    }
    let b = &mut B { f: &mut fb, labels };
    common_decls(b);
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
    built(fb.finish());
}

#[cfg(test)]
mod tests {
    use super::emit::B;
    use crate::gen::{Gen, Swarm};
    use crate::model::SimtFamily;
    use arbitrary::Unstructured;
    use ptx_ir_core::build::ModuleBuilder;
    use ptx_ir_core::{ArchSuffix, Opcode, Operand, Target, Type, Version};

    /// Every family's kernels lower: each instruction passes the builder's checks (or `emit`
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

    /// Lowers `lower` into a kernel whose registers `%r<8>` are declared.
    fn lower_into(lower: impl FnOnce(&mut B)) {
        let target = Target::Sm {
            arch: 90,
            suffix: ArchSuffix::None,
        };
        let mut mb = ModuleBuilder::new(Version { major: 8, minor: 7 }, target);
        let mut f = mb.entry("k").expect("a kernel");
        let mut labels = 0;
        let b = &mut B {
            f: &mut f,
            labels: &mut labels,
        };
        b.decl(Type::B32, "%r", 8);
        lower(b);
    }

    /// An instruction no form takes (`add` without a type) stops the lowering.
    #[test]
    #[should_panic(expected = "the builder refuses: invalid `add`")]
    fn a_malformed_instruction_panics() {
        lower_into(|b| {
            let r = b.r("%r0");
            b.e(Opcode::Add, Vec::new(), vec![r.clone(), r, Operand::Int(1)]);
        });
    }

    /// So does an instruction naming a register the function does not declare.
    #[test]
    #[should_panic(expected = "the builder refuses: `%r8` is not declared")]
    fn an_undeclared_register_panics() {
        lower_into(|b| {
            let (r0, r8) = (b.r("%r0"), b.r("%r8"));
            b.e(Opcode::Mov, vec![super::emit::t(Type::U32)], vec![r8, r0]);
        });
    }
}
