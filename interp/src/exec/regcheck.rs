//! The `reg` check: an instruction that reads a register in a thread where no instruction of
//! that thread has written it since its function was entered.
//!
//! What an instruction reads and writes is found once per launch from the operand roles of the
//! instruction table ([`ptx_ir_core::defuse::roles`]): the guard is read by every lane of the
//! group, the sources (address bases included) by the lanes whose guard holds, and the
//! destinations are written by those lanes. Each warp keeps, per call depth and register
//! slot, the lanes that have written it ([`super::warp::Warp::reg_written`]): a read is one
//! mask test, a write one `or`. A call clears the callee's masks for the calling lanes, its
//! parameters and return values count as written. What the ISA ignores is not a read:
//! `selp`'s operand not selected in the lane, `wgmma`'s accumulator when `scale-d` is false,
//! the `prmt` source that no selector byte names, and a `mov` of a register to itself (which
//! ptxas deletes). The carry flag is not a register of the program and is not checked.

use super::ctx::{lanes, Ctx};
use super::warp::Warp;
use crate::code::{DInst, MemBase, Opnd};
use crate::load::{Func, Program};
use crate::regs::dense;
use ptx_ir_core::defuse::{roles, Role};
use ptx_ir_core::{Flag, Instruction, Opcode, Operand};
use smallvec::SmallVec;

type Slots = SmallVec<[u32; 6]>;

/// What one instruction reads and writes, as dense slots ([`crate::regs::dense`]).
#[derive(Clone, Debug, Default)]
pub struct RegIo {
    /// The guard predicate: read by every lane of the group.
    guard: Option<u32>,
    /// Read by the lanes whose guard holds.
    uses: Slots,
    /// Read only where operand `.0` is true (`.1`) and where it is false (`.2`).
    cond: Option<(usize, Slots, Slots)>,
    /// Written by the lanes whose guard holds.
    defs: Slots,
}

fn push(o: &Opnd, out: &mut Slots) {
    match o {
        Opnd::Reg { slot, bits } => {
            out.push(dense(*slot));
            if *bits > 64 {
                out.push(dense(*slot + 1));
            }
        }
        Opnd::Not(s) | Opnd::Selected(s, _) => out.push(dense(*s)),
        Opnd::Mem(MemBase::Reg(s), _) => out.push(dense(*s)),
        Opnd::Vec(v) | Opnd::Args(v) | Opnd::Tuple(v) => v.iter().for_each(|o| push(o, out)),
        Opnd::Pair(p) => p.iter().for_each(|o| push(o, out)),
        Opnd::Neg(o) => push(o, out),
        _ => {}
    }
}

/// Which of `prmt`'s sources `a`, `b` the selector `c` names (`None`: both may be read).
fn prmt_reads(d: &DInst) -> Option<(bool, bool)> {
    let modes = [
        Flag::F4e,
        Flag::B4e,
        Flag::Rc8,
        Flag::Ecl,
        Flag::Ecr,
        Flag::Rc16,
    ];
    match modes.iter().find(|f| d.flags.has(**f)) {
        // The other modes take bytes 0 to 3 only: `a`.
        Some(Flag::Rc8 | Flag::Ecl | Flag::Ecr | Flag::Rc16) => Some((true, false)),
        Some(_) => None,
        None => match d.opnds.get(3) {
            Some(Opnd::Imm(c)) => {
                let sels = (0..4).map(|i| (c >> (4 * i)) & 7);
                let (mut a, mut b) = (false, false);
                for s in sels {
                    if s < 4 {
                        a = true;
                    } else {
                        b = true;
                    }
                }
                Some((a, b))
            }
            _ => None,
        },
    }
}

fn io_of(inst: &Instruction, d: &DInst) -> RegIo {
    let mut io = RegIo::default();
    // A `mov` of a register to itself does nothing (ptxas deletes it).
    if d.op == Opcode::Mov
        && d.opnds.len() == 2
        && matches!(d.opnds[0], Opnd::Reg { .. })
        && d.opnds[0] == d.opnds[1]
    {
        return io;
    }
    io.guard = d.guard.map(|(g, _)| dense(g));
    let rs = roles(inst);
    let prmt = if d.op == Opcode::Prmt {
        prmt_reads(d)
    } else {
        None
    };
    let mut on = Slots::new();
    let mut off = Slots::new();
    for (i, o) in d.opnds.iter().enumerate() {
        let role = rs.get(i).copied().unwrap_or(Role::Use);
        match (role, o) {
            (Role::Def | Role::UseDef, Opnd::Mem(..)) => push(o, &mut io.uses),
            (Role::Def, _) => push(o, &mut io.defs),
            // The accumulator is read only where `scale-d` (operand 3) is true.
            (Role::UseDef, _) if d.op == Opcode::WgmmaMmaAsync => {
                push(o, &mut io.defs);
                push(o, &mut on);
            }
            (Role::UseDef, _) => {
                push(o, &mut io.defs);
                push(o, &mut io.uses);
            }
            _ if d.op == Opcode::Selp && i == 1 => push(o, &mut on),
            _ if d.op == Opcode::Selp && i == 2 => push(o, &mut off),
            _ if i == 1 && prmt.is_some_and(|(a, _)| !a) => {}
            _ if i == 2 && prmt.is_some_and(|(_, b)| !b) => {}
            _ => push(o, &mut io.uses),
        }
    }
    if !on.is_empty() || !off.is_empty() {
        io.cond = Some((3, on, off));
    }
    // The carry flag (narrow slot 0) is not a register of the program.
    io.uses.retain(|s| *s != 0);
    io.defs.retain(|s| *s != 0);
    io
}

/// Each function's instructions' reads and writes.
pub fn table(prog: &Program) -> Vec<Vec<RegIo>> {
    prog.funcs
        .iter()
        .map(|f| {
            f.insts
                .iter()
                .zip(&f.code)
                .map(|(i, d)| io_of(i, d))
                .collect()
        })
        .collect()
}

/// The slots of the register file of `f` ([`Warp::reg_written`]'s length).
pub fn len(f: &Func) -> usize {
    2 * f.slots.narrow.max(f.slots.wide) as usize + 2
}

/// The first (lanes, slot) of `io` (instruction `d`) that reads a register some of those lanes
/// have not written, for a group of lanes `gmask` whose guard holds in `emask`.
#[inline]
fn unwritten(
    io: &RegIo,
    d: &DInst,
    w: &Warp,
    depth: usize,
    gmask: u32,
    emask: u32,
) -> Option<(u32, u32)> {
    let written = w.reg_written.get(depth)?;
    let miss = |s: u32, m: u32| {
        let have = written.get(s as usize).copied().unwrap_or(u32::MAX);
        (have & m != m).then_some((m & !have, s))
    };
    if let Some(g) = io.guard {
        if let Some(r) = miss(g, gmask) {
            return Some(r);
        }
    }
    if emask == 0 {
        return None;
    }
    for &s in &io.uses {
        if let Some(r) = miss(s, emask) {
            return Some(r);
        }
    }
    if let Some((k, on, off)) = &io.cond {
        let regs = w.regs.get(depth)?;
        // The lanes where the condition holds (it was checked written above).
        let mut t = 0u32;
        for l in lanes(emask) {
            let v = match d.opnds.get(*k) {
                Some(Opnd::Reg { slot, .. }) => regs.try_get(*slot, l).unwrap_or(0) != 0,
                Some(Opnd::Not(slot)) => regs.try_get(*slot, l).unwrap_or(0) & 1 == 0,
                Some(Opnd::Imm(v)) => *v != 0,
                _ => true,
            };
            t |= u32::from(v) << l;
        }
        for &s in on {
            if emask & t != 0 {
                if let Some(r) = miss(s, emask & t) {
                    return Some(r);
                }
            }
        }
        for &s in off {
            if emask & !t != 0 {
                if let Some(r) = miss(s, emask & !t) {
                    return Some(r);
                }
            }
        }
    }
    None
}

/// Marks the registers `io` writes written in `emask`.
#[inline]
fn wrote(io: &RegIo, w: &mut Warp, depth: usize, emask: u32) {
    if let Some(written) = w.reg_written.get_mut(depth) {
        for &s in &io.defs {
            if let Some(m) = written.get_mut(s as usize) {
                *m |= emask;
            }
        }
    }
}

/// For the warp-wide path (`step.rs`): whether instruction `pc` of `fid` reads only written
/// registers (then its writes are marked); `false` sends it to [`check`] to be reported.
#[inline]
pub fn clean(
    table: &[Vec<RegIo>],
    d: &DInst,
    w: &mut Warp,
    (fid, pc, depth): (u32, u32, usize),
    gmask: u32,
    emask: u32,
) -> bool {
    let Some(io) = table.get(fid as usize).and_then(|f| f.get(pc as usize)) else {
        return true;
    };
    if unwritten(io, d, w, depth, gmask, emask).is_some() {
        return false;
    }
    wrote(io, w, depth, emask);
    true
}

/// The check of the instruction of `x`: a finding for each lane that reads a register it has
/// not written, then its writes marked.
pub fn check(x: &mut Ctx<'_, '_>) {
    let (fid, pc, depth) = (x.fid, x.pc, x.depth);
    let table = std::mem::take(&mut x.m.reg_io);
    if let Some(io) = table.get(fid as usize).and_then(|f| f.get(pc as usize)) {
        if let Some((miss, slot)) = unwritten(io, x.d, x.w, depth, x.gmask, x.emask) {
            report(x, miss, slot);
        }
        wrote(io, x.w, depth, x.emask);
    }
    x.m.reg_io = table;
}

fn report(x: &mut Ctx<'_, '_>, miss: u32, slot: u32) {
    use crate::check::{Class, Finding};
    let (fid, pc) = (x.fid, x.pc);
    for l in lanes(miss) {
        if x.m.findings.repeat(Class::Reg, fid, pc) {
            continue;
        }
        let name = reg_name(x.m.prog, x.f, slot);
        let finding = Finding {
            class: Class::Reg,
            what: format!(
                "read of register {name}, which no instruction of the thread has written since `{}` was entered",
                x.f.name
            ),
            site: x.site(),
            threads: vec![x.thread(l)],
            space: None,
            addr: None,
            count: 1,
        };
        x.m.findings.add(Class::Reg, fid, pc, || finding);
    }
}

/// The name of the register of dense slot `slot` in `f`, from an operand that names it.
fn reg_name(prog: &Program, f: &Func, slot: u32) -> String {
    fn find(o: &Operand, d: &Opnd, slot: u32, out: &mut Option<ptx_ir_core::Name>) {
        match (o, d) {
            (Operand::Reg { name, .. }, Opnd::Reg { slot: s, .. } | Opnd::Selected(s, _))
            | (Operand::Not(name), Opnd::Not(s))
            | (
                Operand::Addr {
                    base: Some(name), ..
                },
                Opnd::Mem(MemBase::Reg(s), _),
            ) if dense(*s) == slot => *out = Some(*name),
            (Operand::Reg { name, .. }, Opnd::Reg { slot: s, bits })
                if *bits > 64 && dense(*s + 1) == slot =>
            {
                *out = Some(*name)
            }
            (
                Operand::Vector(l) | Operand::Tuple(l) | Operand::Args(l),
                Opnd::Vec(v) | Opnd::Tuple(v) | Opnd::Args(v),
            ) => l
                .iter()
                .zip(v.iter())
                .for_each(|(o, d)| find(o, d, slot, out)),
            (Operand::Pair(p), Opnd::Pair(q)) => p
                .iter()
                .zip(q.iter())
                .for_each(|(o, d)| find(o, d, slot, out)),
            (Operand::Neg(o), Opnd::Neg(d)) => find(o, d, slot, out),
            _ => {}
        }
    }
    let mut out = None;
    for (i, d) in f.insts.iter().zip(&f.code) {
        if let Some(g) = i.guard {
            if d.guard.is_some_and(|(s, _)| dense(s) == slot) {
                out = Some(g.pred);
            }
        }
        for (o, d) in i.operands.iter().zip(d.opnds.iter()) {
            find(o, d, slot, &mut out);
        }
        if out.is_some() {
            break;
        }
    }
    out.map(|n| prog.names.get(n).to_string())
        .unwrap_or_else(|| format!("(slot {slot})"))
}
