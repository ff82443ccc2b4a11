//! The kernel's frame around its body: the prologue (buffer addresses, the global thread id,
//! each used register's initial value from the input pools), the memory family's prologue
//! (shared slots and cells filled, a barrier), and the epilogue (the output registers stored to
//! the thread's record).

use super::emit::*;
use crate::model::layout::*;
use crate::model::*;
use ptx_ir_core::{Cmp, Flag, Guard, Modifier, Opcode, Operand, Space, SpecialReg, Type, Vector};

pub(super) fn prologue(b: &mut B, p: &Program) {
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
pub(super) fn mem_prologue(b: &mut B, p: &Program) {
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

pub(super) fn epilogue(b: &mut B, p: &Program) {
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
