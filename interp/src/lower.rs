//! What ptxas makes of the PTX, where that changes results the ISA leaves open: the load step
//! marks the instructions that ptxas lowers differently from their one-by-one reading. None of
//! this applies to a module whose `.target` says `debug` (nvcc `-G`): ptxas then compiles
//! without optimisation (measured: no `FFMA` from `mul`+`add`, `div.full` by a constant through
//! `MUFU.RCP`, `neg` of `neg` as two `FADD`s).
//!
//! - **Contraction.** The ISA lets "mul/add sequences with no rounding modifiers" become one
//!   fused multiply-add, and ptxas (CUDA 13.0, sm_80 and sm_90a alike) does so under these
//!   rules, found from the SASS of the probes in `tools/hwvectors/contract_cases.py` and checked
//!   against the GPU (`corpus/vectors/contract.jsonl.xz`):
//!   - the `add`/`sub` and the `mul` are `.f32`, `.f64`, `.f16`, `.f16x2`, `.bf16` or
//!     `.bf16x2` of one type, neither has a rounding modifier, both have the same `.ftz`, the
//!     `mul` has no `.sat` (the `add` may: `FFMA.SAT`) and the `add` may be guarded;
//!   - the `mul` is not guarded, not a product of two constants (immediates, or registers
//!     whose only definition is a `mov` of one: ptxas folds those, rounding), and lies in the same basic
//!     block as the `add`, before it; the `add`'s operand is its result, directly or through
//!     unguarded `mov`s and `neg`s (not `neg.bf16x2`) in that block;
//!   - every use of the product (and of each `mov`/`neg` of it) is such an `add`/`sub` of that
//!     block that could take it: a product also multiplied, compared, stored, or read in
//!     another block is rounded on its own, and so is one read twice by one `add`; a `mov` of
//!     a register to itself and code whose result is written over unread are no uses (ptxas
//!     deletes them);
//!   - when both operands of an `add`/`sub` qualify, the product that fewer `add`s could take
//!     is fused (the first operand's on a tie), and a product is fused only where every `add`
//!     that could take it does; giving one up lets those `add`s take their other product
//!     (`.f16x2`/`.bf16x2`: decided `add` by `add` in program order, a product kept where
//!     taken even if a later `add` takes another);
//!   - the fused operation reads the `mul`'s operands as they were at the `mul`, and its
//!     negations leave a NaN operand's sign alone;
//!   - the blocks are those ptxas leaves: a branch over nothing but dead code
//!     (`dead_anywhere`, `skipped_branches`) is deleted with that code and splits nothing.
//! - **Bit fields with constant operands.** `bfe.s32` and `bfi.b32` whose position and length
//!   are constants follow ptxas's folding where they pass the register's width
//!   (`bit_field_folds`).
//! - **Division by a constant.** `div.full.f32`/`div.approx.f32` by a constant is a multiplication
//!   by the reciprocal rounded at compile time (`div_by_constant`).
//! - **NaN signs.** `neg` of a NaN through `FADD` gives the canonical NaN, but ptxas folds some
//!   `neg`s into a sign flip of the bits: `neg` of a `neg` (through moves, guarded or not) is
//!   the first one's operand as it was there, in every float type but `.bf16x2`; another
//!   guarded `neg.f32` becomes an `FSEL` with a negated operand, and `selp.f32` between `x` and
//!   `neg x` (the copysign idiom of libdevice's `cbrtf`) is an `FSEL` of `x` and `-x`
//!   (`corpus/vectors/fold.jsonl.xz`).
//!
//! One lowering depends on the target, not on optimisation, and applies to `debug` modules
//! too: **remote 64-bit bitwise and min/max atomics** on `sm_90` (`remote_rmw`).

use crate::code::{DInst, Fused, Lowering, MemBase, Opnd};
use ptx_ir_core::defuse::{roles, Role};
use ptx_ir_core::{Flag, Instruction, Opcode, Type};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

fn float_type(t: Type) -> bool {
    matches!(
        t,
        Type::F32 | Type::F64 | Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2
    )
}

/// The slot of a plain register operand.
fn reg(o: &Opnd) -> Option<u32> {
    match o {
        Opnd::Reg { slot, .. } => Some(*slot),
        _ => None,
    }
}

fn push_slots(o: &Opnd, out: &mut SmallVec<[u32; 8]>) {
    match o {
        Opnd::Reg { slot, bits } => {
            out.push(*slot);
            if *bits > 64 {
                out.push(*slot + 1);
            }
        }
        Opnd::Not(s) | Opnd::Selected(s, _) => out.push(*s),
        Opnd::Mem(MemBase::Reg(s), _) => out.push(*s),
        Opnd::Vec(v) | Opnd::Args(v) | Opnd::Tuple(v) => v.iter().for_each(|o| push_slots(o, out)),
        Opnd::Pair(p) => p.iter().for_each(|o| push_slots(o, out)),
        Opnd::Neg(o) => push_slots(o, out),
        _ => {}
    }
}

/// The registers an instruction writes and those it reads ([`defs_uses`]).
type DefsUses = (SmallVec<[u32; 8]>, SmallVec<[u32; 8]>);

/// Registers an instruction writes and reads (a memory operand's base is read even in a
/// destination position; the guard is read).
fn defs_uses(inst: &Instruction, d: &DInst) -> DefsUses {
    let (mut defs, mut uses) = (SmallVec::new(), SmallVec::new());
    // A `mov` of a register to itself (guarded or not) does nothing, and ptxas drops it: it
    // neither ends a product's chain nor counts as a use.
    if d.op == Opcode::Mov
        && d.opnds.len() == 2
        && matches!(d.opnds[0], Opnd::Reg { .. })
        && d.opnds[0] == d.opnds[1]
    {
        return (defs, uses);
    }
    if let Some((g, _)) = d.guard {
        uses.push(g);
    }
    let rs = roles(inst);
    for (i, o) in d.opnds.iter().enumerate() {
        let role = rs.get(i).copied().unwrap_or(Role::Use);
        match (role, o) {
            (Role::Def | Role::UseDef, Opnd::Mem(..)) => push_slots(o, &mut uses),
            (Role::Def, _) => push_slots(o, &mut defs),
            (Role::UseDef, _) => {
                push_slots(o, &mut defs);
                push_slots(o, &mut uses);
            }
            (Role::Use | Role::Target, _) => push_slots(o, &mut uses),
        }
    }
    // `addc`/`.cc` carry and the like live in slot 0, which is not a register of the program.
    defs.retain(|s| *s != 0);
    uses.retain(|s| *s != 0);
    (defs, uses)
}

/// Instructions ptxas deletes as dead wherever they are: code without side effects whose
/// results nothing reads but such code (in a kernel, where no register is live at the exit).
/// Only its effect on the basic blocks is modelled (`skipped_branches`), measured on arms of a
/// dead `mov`, `add`, chain of `mul`/`add`/`and`, weak `ld`, and on `if`/`else` arms of dead
/// code (`contract.branch_join.*`); the other instructions listed have no effect either.
fn dead_anywhere(insts: &[Instruction], code: &[DInst], du: &[DefsUses]) -> Vec<bool> {
    let mut reads: FxHashMap<u32, u32> = FxHashMap::default();
    let mut writers: FxHashMap<u32, SmallVec<[u32; 2]>> = FxHashMap::default();
    for (i, (defs, uses)) in du.iter().enumerate() {
        for s in uses {
            *reads.entry(*s).or_insert(0) += 1;
        }
        for s in defs {
            writers.entry(*s).or_default().push(i as u32);
        }
    }
    // The carry of `.cc` is no operand here (slot 0 is left out of `defs_uses`), so an
    // instruction that sets it is never taken for dead.
    let pure = |i: usize| {
        // A weak load is deleted too (measured: `branch_join.dead_load`); one with memory
        // semantics or `.volatile` is an access the program asked for.
        let weak_load = code[i].op == Opcode::Ld
            && matches!(insts[i].sem(), None | Some(ptx_ir_core::Sem::Weak));
        weak_load
            || !insts[i].has(Flag::Cc)
                && matches!(
                    code[i].op,
                    Opcode::Mov
                        | Opcode::Neg
                        | Opcode::Abs
                        | Opcode::Add
                        | Opcode::Sub
                        | Opcode::Mul
                        | Opcode::Mad
                        | Opcode::Fma
                        | Opcode::Min
                        | Opcode::Max
                        | Opcode::And
                        | Opcode::Or
                        | Opcode::Xor
                        | Opcode::Not
                        | Opcode::Shl
                        | Opcode::Shr
                        | Opcode::Selp
                        | Opcode::Setp
                        | Opcode::Cvt
                )
    };
    let mut dead = vec![false; code.len()];
    // A worklist: deleting an instruction may leave its operands' definitions unread. A slot's
    // writers are queued once, when its last read goes, so the work is linear in the body.
    let mut work: Vec<u32> = (0..code.len() as u32).collect();
    while let Some(i) = work.pop() {
        let i = i as usize;
        let (defs, uses) = &du[i];
        if dead[i]
            || defs.is_empty()
            || !pure(i)
            || defs.iter().any(|s| reads.get(s).is_some_and(|n| *n > 0))
        {
            continue;
        }
        dead[i] = true;
        for s in uses {
            if let Some(n) = reads.get_mut(s) {
                *n -= 1;
                if *n == 0 {
                    work.extend(writers.get(s).into_iter().flatten().copied());
                }
            }
        }
    }
    dead
}

/// Forward branches over nothing but dead code (`dead_anywhere`) or other such branches: once
/// ptxas deletes that code the branch goes to the next instruction and is deleted too, so it
/// ends no basic block and its target starts none on its account (a `mul` before an arm of
/// dead code and an `add` after it are fused).
fn skipped_branches(code: &[DInst], dead: &[bool]) -> Vec<bool> {
    let n = code.len();
    let mut skip = vec![false; n];
    // The first instruction at or after each index that is neither dead nor such a branch, so
    // that each branch is decided in constant time (one backward pass).
    let mut next_live = vec![n; n + 1];
    for i in (0..n).rev() {
        if code[i].op == Opcode::Bra {
            if let Some(Opnd::Label(t)) = code[i].opnds.first() {
                let t = *t as usize;
                skip[i] = t > i && t <= n && next_live[i + 1] >= t;
            }
        }
        next_live[i] = if dead[i] || skip[i] {
            next_live[i + 1]
        } else {
            i
        };
    }
    skip
}

/// Basic-block leaders: branch targets and the instructions after a control transfer or call
/// (but not on account of a branch in `skipped`).
fn leaders(code: &[DInst], tables: &[Vec<u32>], skipped: &[bool]) -> Vec<bool> {
    let mut lead = vec![false; code.len() + 1];
    if let Some(l) = lead.first_mut() {
        *l = true;
    }
    for t in tables.iter().flatten() {
        if let Some(l) = lead.get_mut(*t as usize) {
            *l = true;
        }
    }
    for (i, d) in code.iter().enumerate() {
        if skipped[i] {
            continue;
        }
        for o in &d.opnds {
            if let Opnd::Label(t) = o {
                if let Some(l) = lead.get_mut(*t as usize) {
                    *l = true;
                }
            }
        }
        if matches!(
            d.op,
            Opcode::Bra | Opcode::BrxIdx | Opcode::Ret | Opcode::Exit | Opcode::Call | Opcode::Trap
        ) {
            lead[i + 1] = true;
        }
    }
    lead
}

struct Info {
    defs: SmallVec<[u32; 8]>,
    uses: SmallVec<[u32; 8]>,
    block: u32,
}

/// What an instruction reads from a slot, within its block.
#[derive(Clone, Copy, PartialEq)]
enum Src {
    /// The value the block began with (no definition before it in the block).
    Entry,
    /// The unguarded definition at this index.
    Def(u32),
    /// The guarded definition at this index, whose result may be the older value.
    Guarded(u32),
}

/// A value a definition writes: its reads in the block, and the next definition of its slot
/// there (index, whether guarded), if any.
#[derive(Default)]
struct Value {
    reads: Vec<u32>,
    next: Option<(u32, bool)>,
}

/// Per-block def-use facts, from one forward pass (linear in the body).
#[derive(Default)]
struct Flow {
    /// Per instruction, per slot it reads: what it reads.
    reach: Vec<SmallVec<[(u32, Src); 4]>>,
    /// Per (definition, slot).
    values: FxHashMap<(u32, u32), Value>,
    /// The first definition of (block, slot) in the block.
    first_def: FxHashMap<(u32, u32), u32>,
    /// (block, slot) read in the block before any definition of it there.
    upward: rustc_hash::FxHashSet<(u32, u32)>,
    /// Per slot, the blocks that read it (up to four; `u32::MAX` for more).
    readers: FxHashMap<u32, SmallVec<[u32; 4]>>,
    /// Per instruction: a `mov`, or float `neg`, `abs`, `add`, `sub` or `mul` (guarded or not),
    /// whose result is written again in its block before anything but such dead code reads it.
    /// ptxas deletes such code, so its reads do not count as uses of a product.
    dead: Vec<bool>,
}

impl Flow {
    fn new(info: &[Info], code: &[DInst]) -> Flow {
        let mut f = Flow::default();
        let mut cur: FxHashMap<u32, Src> = FxHashMap::default();
        for (i, inf) in info.iter().enumerate() {
            if i > 0 && info[i - 1].block != inf.block {
                cur.clear();
            }
            let mut reach = SmallVec::new();
            for &s in &inf.uses {
                let src = cur.get(&s).copied().unwrap_or(Src::Entry);
                match src {
                    Src::Entry => {
                        f.upward.insert((inf.block, s));
                    }
                    Src::Def(d) | Src::Guarded(d) => {
                        if let Some(v) = f.values.get_mut(&(d, s)) {
                            if v.reads.last() != Some(&(i as u32)) {
                                v.reads.push(i as u32);
                            }
                        }
                    }
                }
                reach.push((s, src));
            }
            f.reach.push(reach);
            for &s in &inf.uses {
                let e = f.readers.entry(s).or_default();
                if !e.contains(&inf.block) {
                    if e.len() == 4 {
                        e[3] = u32::MAX;
                    } else {
                        e.push(inf.block);
                    }
                }
            }
            let guarded = code[i].guard.is_some();
            for &s in &inf.defs {
                match cur.get(&s) {
                    Some(Src::Def(d) | Src::Guarded(d)) => {
                        if let Some(v) = f.values.get_mut(&(*d, s)) {
                            v.next.get_or_insert((i as u32, guarded));
                        }
                    }
                    Some(Src::Entry) | None => {
                        f.first_def.entry((inf.block, s)).or_insert(i as u32);
                    }
                }
                let src = if guarded {
                    Src::Guarded(i as u32)
                } else {
                    Src::Def(i as u32)
                };
                cur.insert(s, src);
                f.values.insert((i as u32, s), Value::default());
            }
        }
        // Backwards, so that code read only by dead code is dead too (one pass: reads come
        // after their definition).
        f.dead = vec![false; info.len()];
        for i in (0..info.len()).rev() {
            let pure = code[i].op == Opcode::Mov
                || (matches!(
                    code[i].op,
                    Opcode::Neg | Opcode::Abs | Opcode::Add | Opcode::Sub | Opcode::Mul
                ) && code[i].ty.is_some_and(float_type));
            f.dead[i] = pure
                && info[i].defs.len() == 1
                && f.values.get(&(i as u32, info[i].defs[0])).is_some_and(|v| {
                    matches!(v.next, Some((_, false)))
                        && v.reads.iter().all(|&r| f.dead[r as usize])
                });
        }
        f
    }

    /// Whether `slot` is read in a block other than `b`.
    fn read_elsewhere(&self, slot: u32, b: u32) -> bool {
        self.readers
            .get(&slot)
            .is_some_and(|v| v.iter().any(|x| *x != b))
    }

    fn src(&self, at: usize, slot: u32) -> Src {
        self.reach[at]
            .iter()
            .find(|(s, _)| *s == slot)
            .map_or(Src::Entry, |(_, src)| *src)
    }
}

/// The instruction in the same block before `at` that last wrote `slot`, if it is the only
/// definition reaching `at` (unguarded, and in the block).
fn reaching(flow: &Flow, at: usize, slot: u32) -> Option<usize> {
    match flow.src(at, slot) {
        Src::Def(d) => Some(d as usize),
        _ => None,
    }
}

/// Whether `slot`, which `from` reads, holds at `to` the value `from` read: nothing from `from`
/// itself up to `to` writes it (same block).
fn unchanged(flow: &Flow, info: &[Info], from: usize, to: usize, slot: u32) -> bool {
    let next = match flow.src(from, slot) {
        Src::Def(d) | Src::Guarded(d) => flow
            .values
            .get(&(d, slot))
            .and_then(|v| v.next.map(|n| n.0)),
        Src::Entry => flow.first_def.get(&(info[from].block, slot)).copied(),
    };
    next.is_none_or(|n| n as usize >= to)
}

/// The uses of the value `at` writes to `slot`: the instructions that read it (with the
/// operand positions), or `None` when the value may be read outside its block.
fn value_uses(
    flow: &Flow,
    info: &[Info],
    code: &[DInst],
    at: usize,
    slot: u32,
) -> Option<Vec<(usize, SmallVec<[u8; 2]>)>> {
    let b = info[at].block;
    let v = flow.values.get(&(at as u32, slot))?;
    // A guarded redefinition leaves the value live after it, unless the redefinition is dead
    // code (then everything that reads the merged value is dead too): look past such ones.
    let mut next = v.next;
    while let Some((g, true)) = next {
        if !flow.dead[g as usize] {
            return None;
        }
        next = flow.values.get(&(g, slot)).and_then(|w| w.next);
    }
    match next {
        Some(_) => {}
        // Live at the end of the block: read elsewhere means read in another block, or, around
        // a loop, in this one before any definition of it (a read that sees the value coming in).
        None => {
            if flow.upward.contains(&(b, slot)) || flow.read_elsewhere(slot, b) {
                return None;
            }
        }
    }
    let mut out = Vec::with_capacity(v.reads.len());
    for &i in &v.reads {
        let i = i as usize;
        if flow.dead[i] {
            continue;
        }
        // Plain operand positions; a read of any other kind (guard, address, vector,
        // destination) is marked u8::MAX.
        let mut pos: SmallVec<[u8; 2]> = SmallVec::new();
        let mut all: SmallVec<[u32; 8]> = SmallVec::new();
        if let Some((g, _)) = code[i].guard {
            all.push(g);
        }
        for (k, o) in code[i].opnds.iter().enumerate() {
            if k == 0 && matches!(o, Opnd::Reg { .. }) {
                continue; // the destination
            }
            push_slots(o, &mut all);
            if k > 0 && reg(o) == Some(slot) {
                pos.push(k as u8);
            }
        }
        if all.iter().filter(|s| **s == slot).count() != pos.len() || pos.is_empty() {
            pos.push(u8::MAX);
        }
        out.push((i, pos));
    }
    Some(out)
}

/// A product candidate: the `mul` (or `div`) and whether a `neg` negates it on the way.
#[derive(Clone, Copy, PartialEq)]
struct Product {
    mul: usize,
    neg: bool,
    kind: Kind,
}

/// What makes the product.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `mul a, b`
    Mul,
    /// `div.full`/`div.approx` by a constant: `a * k`, `k` the reciprocal's bits.
    DivConst(u32),
    /// `div.full` (`true`) or `div.approx` by a register: `a' * rcp(b')`.
    Div(bool),
}

fn modes_match(a: &Instruction, b: &Instruction) -> bool {
    a.has(Flag::Ftz) == b.has(Flag::Ftz)
}

/// What the contraction analysis reads.
struct Cx<'a> {
    constant: &'a dyn Fn(&Opnd) -> bool,
    constant_value: &'a dyn Fn(&Opnd) -> Option<u64>,
    insts: &'a [Instruction],
    code: &'a [DInst],
    flow: &'a Flow,
}

/// A qualifying operand of an `add`/`sub`: its position, the product, and the chain's links.
type Qualifying = (u8, Product, Vec<(usize, u32)>);

/// Follows `slot` as read at `at` back through unguarded `mov`/`neg` to a fusable `mul` (or
/// `div`), collecting the chain's links (for the use check).
fn product_of(
    cx: &Cx<'_>,
    add: usize,
    mut at: usize,
    mut slot: u32,
    links: &mut Vec<(usize, u32)>,
) -> Option<Product> {
    let (constant, insts, code) = (cx.constant, cx.insts, cx.code);
    let ty = code[add].ty?;
    let mut neg = false;
    for _ in 0..8 {
        let def = reaching(cx.flow, at, slot)?;
        let d = &code[def];
        let inst = &insts[def];
        let same_width_mov =
            d.op == Opcode::Mov && d.ty.is_some_and(|t| t.is_bits() && t.bits() == ty.bits());
        if (d.ty != Some(ty) && !same_width_mov) || d.opnds.len() < 2 {
            return None;
        }
        match d.op {
            Opcode::Mul => {
                let ok = inst.rounding().is_none()
                    && !inst.has(Flag::Sat)
                    && modes_match(inst, &insts[add])
                    && d.opnds.len() == 3
                    && !(constant(&d.opnds[1]) && constant(&d.opnds[2]))
                    && inst.types().len() == 1;
                links.push((def, slot));
                return ok.then_some(Product {
                    mul: def,
                    neg,
                    kind: Kind::Mul,
                });
            }
            Opcode::Div if ty == Type::F32 => {
                let full = inst.has(Flag::Full);
                if !(full || inst.has(Flag::Approx))
                    || !modes_match(inst, &insts[add])
                    || d.opnds.len() != 3
                {
                    return None;
                }
                links.push((def, slot));
                let kind = match (cx.constant_value)(&d.opnds[2]) {
                    // Out of the normal range the dividend is scaled first: not fused.
                    Some(c) => match div_constant(c as u32, full)? {
                        (None, k) => Kind::DivConst(k),
                        (Some(_), _) => return None,
                    },
                    None => Kind::Div(full),
                };
                return Some(Product {
                    mul: def,
                    neg,
                    kind,
                });
            }
            Opcode::Mov | Opcode::Neg => {
                if d.op == Opcode::Neg {
                    if ty == Type::Bf16x2 || inst.has(Flag::Ftz) {
                        return None;
                    }
                    neg = !neg;
                }
                links.push((def, slot));
                slot = reg(&d.opnds[1])?;
                at = def;
            }
            _ => return None,
        }
    }
    None
}

fn is_candidate_add(inst: &Instruction, d: &DInst) -> bool {
    matches!(d.op, Opcode::Add | Opcode::Sub)
        && d.ty.is_some_and(float_type)
        && inst.rounding().is_none()
        && inst.types().len() == 1
        && d.opnds.len() == 3
}

/// Marks `code` with the lowerings ptxas applies; `nslots` grows by the slots that fused
/// `mul`s save their operands in.
pub fn lower(
    insts: &[Instruction],
    code: &mut [DInst],
    tables: &[Vec<u32>],
    nslots: &mut crate::regs::Slots,
    kernel: bool,
) {
    let n = code.len();
    if n == 0 {
        return;
    }
    let du: Vec<_> = (0..n).map(|i| defs_uses(&insts[i], &code[i])).collect();
    let skipped = if kernel {
        skipped_branches(code, &dead_anywhere(insts, code, &du))
    } else {
        vec![false; n]
    };
    let lead = leaders(code, tables, &skipped);
    let mut info = Vec::with_capacity(n);
    let mut block = 0u32;
    for (i, (defs, uses)) in du.into_iter().enumerate() {
        if lead[i] && i > 0 {
            block += 1;
        }
        info.push(Info { defs, uses, block });
    }
    let flow = Flow::new(&info, code);

    // Registers whose only definition is a `mov` of an immediate: ptxas propagates them, and
    // folds a product of two constants (rounding it).
    let mut def_count: rustc_hash::FxHashMap<u32, (u32, bool)> = Default::default();
    for (i, inf) in info.iter().enumerate() {
        let imm_mov = code[i].op == Opcode::Mov
            && code[i].guard.is_none()
            && matches!(code[i].opnds.get(1), Some(Opnd::Imm(_)));
        for s in &inf.defs {
            let e = def_count.entry(*s).or_insert((0, true));
            e.0 += 1;
            e.1 &= imm_mov;
        }
    }
    let constant = |o: &Opnd| match o {
        Opnd::Imm(_) => true,
        Opnd::Reg { slot, .. } => def_count.get(slot).is_some_and(|&(n, m)| n == 1 && m),
        _ => false,
    };
    // The value of a constant operand.
    let mut imm_of: rustc_hash::FxHashMap<u32, u64> = Default::default();
    for d in code.iter() {
        if let (Opcode::Mov, Some(Opnd::Reg { slot, .. }), Some(Opnd::Imm(v))) =
            (d.op, d.opnds.first(), d.opnds.get(1))
        {
            imm_of.insert(*slot, *v);
        }
    }
    let constant_value = |o: &Opnd| match o {
        Opnd::Imm(v) => Some(*v),
        Opnd::Reg { slot, .. } if constant(o) => imm_of.get(slot).copied(),
        _ => None,
    };
    contract(
        &constant,
        &constant_value,
        insts,
        code,
        &info,
        &flow,
        nslots,
    );
    div_by_constant(&constant_value, insts, code);
    bit_field_folds(&constant_value, code, &flow);
    nan_folds(insts, code, &info, &flow, nslots);
}

/// `bfe.s32` and `bfi.b32` whose position and length are both constants (immediates, or
/// registers whose definition reaching the instruction in its block is a `mov` of one): ptxas
/// computes them at compile time by rules of its own where the operands pass the register's
/// width (`corpus/vectors/bitfold.jsonl.xz`, every position and length of `gen.py --family
/// bitfold` as immediates, as `mov`s, and with either one read at run time; only constant
/// pairs differ from the ISA):
/// - `bfe.s32` with a position (low 8 bits) of 32 or more and a length that is not 0 is all
///   ones, whatever the sign of the field the ISA replicates;
/// - `bfi.b32` with a position below 32 that is not a multiple of 8 and a length of 32 or
///   more inserts `len % 32` bits (a length of 32 leaves `b` as it is).
///
/// `bfe.u32`, `bfe.u64`, `bfe.s64` and `bfi.b64` keep the ISA's meaning.
fn bit_field_folds(constant_value: &dyn Fn(&Opnd) -> Option<u64>, code: &mut [DInst], flow: &Flow) {
    for i in 0..code.len() {
        let d = &code[i];
        let wanted = match (d.op, d.ty) {
            (Opcode::Bfe, Some(Type::S32)) => d.opnds.len() == 4,
            (Opcode::Bfi, Some(Type::B32)) => d.opnds.len() == 5,
            _ => false,
        };
        if !wanted || d.lower.is_some() {
            continue;
        }
        let at = |o: &Opnd| {
            constant_value(o).or_else(|| {
                let j = reaching(flow, i, reg(o)?)?;
                match (code[j].op, code[j].guard, code[j].opnds.get(1)) {
                    (Opcode::Mov, None, Some(Opnd::Imm(v))) => Some(*v),
                    _ => None,
                }
            })
        };
        let n = d.opnds.len();
        let (Some(pos), Some(len)) = (at(&d.opnds[n - 2]), at(&d.opnds[n - 1])) else {
            continue;
        };
        let (pos, len) = (pos & 0xff, len & 0xff);
        if d.op == Opcode::Bfe {
            if pos >= 32 && len != 0 {
                code[i].lower = Some(Box::new(Lowering::Copy(Opnd::Imm(0xffff_ffff))));
            }
        } else if pos < 32 && pos % 8 != 0 && len >= 32 {
            code[i].opnds[n - 1] = Opnd::Imm(len % 32);
        }
    }
}

fn contract(
    constant: &dyn Fn(&Opnd) -> bool,
    constant_value: &dyn Fn(&Opnd) -> Option<u64>,
    insts: &[Instruction],
    code: &mut [DInst],
    info: &[Info],
    flow: &Flow,
    nslots: &mut crate::regs::Slots,
) {
    let n = code.len();
    // For each candidate add: its qualifying operands, in order, with their product chains.
    struct Cand {
        add: usize,
        options: SmallVec<[Qualifying; 2]>,
        pick: Option<usize>,
    }
    let mut cands: Vec<Cand> = Vec::new();
    for i in 0..n {
        if !is_candidate_add(&insts[i], &code[i]) || flow.dead[i] {
            continue;
        }
        let mut options = SmallVec::new();
        for k in 1..=2u8 {
            let Some(slot) = reg(&code[i].opnds[k as usize]) else {
                continue;
            };
            let mut links = Vec::new();
            let cx = Cx {
                constant,
                constant_value,
                insts,
                code,
                flow,
            };
            if let Some(p) = product_of(&cx, i, i, slot, &mut links) {
                options.push((k, p, links));
            }
        }
        if !options.is_empty() {
            cands.push(Cand {
                add: i,
                options,
                pick: None,
            });
        }
    }
    if cands.is_empty() {
        return;
    }
    // The adds that have each product as an option, and through which operand (u8::MAX: both,
    // which is a double read).
    let mut takes: FxHashMap<(usize, usize), u8> = FxHashMap::default();
    let mut users: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    for (ci, c) in cands.iter().enumerate() {
        for (k, p, _) in &c.options {
            takes
                .entry((c.add, p.mul))
                .and_modify(|v| *v = u8::MAX)
                .or_insert(*k);
            users.entry(p.mul).or_default().push(ci);
        }
    }
    // A product is eligible when every use of every link of its chains is another link of one
    // of them (ptxas sees through the copies) or an add that could take it through that
    // operand. Each link is checked once.
    let mut link_of: FxHashMap<usize, usize> = FxHashMap::default();
    for c in &cands {
        for (_, prod, links) in &c.options {
            for (d, _) in links {
                link_of.insert(*d, prod.mul);
            }
        }
    }
    let mut ineligible: rustc_hash::FxHashSet<usize> = Default::default();
    let mut link_ok: FxHashMap<(usize, u32), bool> = FxHashMap::default();
    for c in &cands {
        for (_, prod, links) in &c.options {
            let m = prod.mul;
            if ineligible.contains(&m) {
                continue;
            }
            let ok = links.iter().all(|&(def, slot)| {
                *link_ok.entry((def, slot)).or_insert_with(|| {
                    let Some(uses) = value_uses(flow, info, code, def, slot) else {
                        return false;
                    };
                    uses.iter().all(|(u, pos)| {
                        pos.len() == 1
                            && pos[0] != u8::MAX
                            && (link_of.get(u) == Some(&m) || takes.get(&(*u, m)) == Some(&pos[0]))
                    })
                })
            });
            if !ok {
                ineligible.insert(m);
            }
        }
    }
    let packed = |c: &Cand| matches!(code[c.add].ty, Some(Type::F16x2 | Type::Bf16x2));
    // Each add takes the eligible product with the fewest adds taking it, the first operand's
    // on a tie (`choose`, among the products not in `out`).
    let count = |m: usize| users.get(&m).map_or(0, |u| u.len());
    let choose = |c: &Cand, out: &rustc_hash::FxHashSet<usize>| {
        c.options
            .iter()
            .enumerate()
            .filter(|(_, (_, p, _))| !ineligible.contains(&p.mul) && !out.contains(&p.mul))
            .min_by_key(|(_, (_, p, _))| count(p.mul))
            .map(|(j, _)| j)
    };
    // Scalar types: a product is fused when every add that could take it does. Fixing one
    // rules out (`out`) the other options of its adds, which then take what remains (a
    // worklist: each product is fixed or ruled out once, each add changes its pick at most
    // once).
    let mut out: rustc_hash::FxHashSet<usize> = Default::default();
    let mut chosen: FxHashMap<usize, usize> = FxHashMap::default();
    for c in cands.iter_mut().filter(|c| !packed(c)) {
        c.pick = choose(c, &out);
        if let Some(j) = c.pick {
            *chosen.entry(c.options[j].1.mul).or_default() += 1;
        }
    }
    let mut work: Vec<usize> = chosen
        .iter()
        .filter(|&(&m, &n)| n == count(m))
        .map(|(&m, _)| m)
        .collect();
    let mut fixed: rustc_hash::FxHashSet<usize> = Default::default();
    while let Some(m) = work.pop() {
        if out.contains(&m) || fixed.contains(&m) || chosen.get(&m) != Some(&count(m)) {
            continue;
        }
        fixed.insert(m);
        for &ci in &users[&m] {
            let others: SmallVec<[usize; 2]> = cands[ci]
                .options
                .iter()
                .map(|(_, p, _)| p.mul)
                .filter(|&q| q != m)
                .collect();
            for q in others {
                if fixed.contains(&q) || !out.insert(q) {
                    continue;
                }
                for &cj in &users[&q] {
                    let c = &mut cands[cj];
                    if c.pick.is_none_or(|j| c.options[j].1.mul != q) {
                        continue;
                    }
                    c.pick = choose(c, &out);
                    if let Some(j) = c.pick {
                        let r = c.options[j].1.mul;
                        let n = chosen.entry(r).or_default();
                        *n += 1;
                        if *n == count(r) {
                            work.push(r);
                        }
                    }
                }
            }
        }
    }
    for c in cands.iter_mut().filter(|c| !packed(c)) {
        if c.pick.is_some_and(|j| !fixed.contains(&c.options[j].1.mul)) {
            c.pick = None;
        }
    }
    // Packed types (`HFMA2` from `f16x2`/`bf16x2`) are decided add by add in program order:
    // each takes its preferred eligible product none of whose adds decided for another (those
    // are `out`), and keeps it even when a later add takes something else (ptxas then
    // computes that product twice, fused and rounded).
    for c in cands.iter_mut().filter(|c| packed(c)) {
        c.pick = choose(c, &out);
        for (j, (_, p, _)) in c.options.iter().enumerate() {
            if c.pick != Some(j) {
                out.insert(p.mul);
            }
        }
    }
    let mut saves: rustc_hash::FxHashMap<usize, [Option<u32>; 2]> = Default::default();
    for c in &cands {
        let Some(p) = c.pick else { continue };
        let (k, prod, _) = &c.options[p];
        let slots = *saves.entry(prod.mul).or_insert_with(|| {
            let mut s = [None, None];
            for (j, o) in code[prod.mul].opnds[1..3].iter().enumerate() {
                if let Opnd::Reg { bits, .. } = o {
                    s[j] = Some(nslots.alloc(*bits, 1));
                }
            }
            s
        });
        let factor = |j: usize| match (j, prod.kind, slots[j]) {
            (1, Kind::DivConst(k), _) => Opnd::Imm(k as u64),
            (_, _, s) => match s {
                Some(slot) => Opnd::Reg {
                    slot,
                    bits: match &code[prod.mul].opnds[j + 1] {
                        Opnd::Reg { bits, .. } => *bits,
                        _ => 64,
                    },
                },
                None => code[prod.mul].opnds[j + 1].clone(),
            },
        };
        let sub = code[c.add].op == Opcode::Sub;
        let fused = Fused {
            a: factor(0),
            b: factor(1),
            // `sub c, p` negates the product, `sub p, c` the addend.
            neg_product: prod.neg ^ (sub && *k == 2),
            neg_addend: sub && *k == 1,
            product_operand: *k,
            mul: prod.mul as u32,
            div: match prod.kind {
                Kind::Div(full) => Some(full),
                _ => None,
            },
        };
        code[c.add].lower = Some(Box::new(Lowering::Fused(Box::new(fused))));
    }
    for (mul, s) in saves {
        code[mul].lower = Some(Box::new(Lowering::Save(s)));
    }
}

/// For the `neg` at `i` (guarded or not) whose operand an unguarded `neg` of the block wrote,
/// directly or through unguarded moves: the first one's operand as it was there, which the
/// second one copies. Where that operand changes in between, the first `neg` keeps it in a
/// slot of its own (`Save`). Not for `neg.bf16x2`, an `HFMA2` with `-0` that makes a NaN
/// canonical.
fn neg_of_neg(
    insts: &[Instruction],
    code: &mut [DInst],
    info: &[Info],
    flow: &Flow,
    nslots: &mut crate::regs::Slots,
    i: usize,
) -> Option<Opnd> {
    let width = code[i].ty.map(|t| t.bits());
    let mut def = reaching(flow, i, reg(code[i].opnds.get(1)?)?)?;
    for _ in 0..8 {
        let m = &code[def];
        if m.op != Opcode::Mov || m.guard.is_some() || m.ty.map(|t| t.bits()) != width {
            break;
        }
        def = reaching(flow, def, reg(m.opnds.get(1)?)?)?;
    }
    let d = &code[def];
    let first_ok = matches!(d.lower.as_deref(), None | Some(Lowering::Save(_)));
    if d.op != Opcode::Neg
        || d.ty != code[i].ty
        || d.ty == Some(Type::Bf16x2)
        || insts[def].has(Flag::Ftz)
        || !first_ok
    {
        return None;
    }
    let x = reg(d.opnds.get(1)?)?;
    let in_place = d.opnds.first().and_then(reg) == Some(x);
    if unchanged(flow, info, def, i, x) && !in_place {
        return Some(d.opnds[1].clone());
    }
    let Opnd::Reg { bits, .. } = d.opnds[1] else {
        return None;
    };
    let slot = match d.lower.as_deref() {
        Some(Lowering::Save([Some(slot), _])) => *slot,
        _ => {
            let slot = nslots.alloc(bits, 1);
            code[def].lower = Some(Box::new(Lowering::Save([Some(slot), None])));
            slot
        }
    };
    Some(Opnd::Reg { slot, bits })
}

fn nan_folds(
    insts: &[Instruction],
    code: &mut [DInst],
    info: &[Info],
    flow: &Flow,
    nslots: &mut crate::regs::Slots,
) {
    // The sign flips are `.f32` only (guarded `.f64`/`.f16` `neg`s stay `DADD`/`HADD2`, which
    // make NaNs canonical); `neg` of `neg` folds in every float type but `.bf16x2`.
    for i in 0..code.len() {
        let f32 = code[i].ty == Some(Type::F32);
        if code[i].lower.is_some() || !code[i].ty.is_some_and(float_type) {
            continue;
        }
        match code[i].op {
            Opcode::Neg if !insts[i].has(Flag::Ftz) => {
                // A guarded `neg.f32` that is no `neg` of a `neg` is an `FSEL` of `-x`.
                code[i].lower = match neg_of_neg(insts, code, info, flow, nslots, i) {
                    Some(src) => Some(Box::new(Lowering::Copy(src))),
                    None if code[i].guard.is_some() && f32 => Some(Box::new(Lowering::SignFlip)),
                    None => None,
                };
            }
            Opcode::Selp if f32 && code[i].opnds.len() == 4 => {
                let (Some(p), Some(q)) = (reg(&code[i].opnds[1]), reg(&code[i].opnds[2])) else {
                    continue;
                };
                for (k, negslot, other) in [(1u8, p, q), (2u8, q, p)] {
                    let Some(def) = reaching(flow, i, negslot) else {
                        continue;
                    };
                    let d = &code[def];
                    if d.op == Opcode::Neg
                        && d.ty == code[i].ty
                        && !insts[def].has(Flag::Ftz)
                        && d.lower.is_none()
                        && d.opnds.get(1).and_then(reg) == Some(other)
                        && unchanged(flow, info, def, i, other)
                    {
                        code[i].lower = Some(Box::new(Lowering::SelectNeg {
                            neg_operand: k,
                            src: code[i].opnds[3 - k as usize].clone(),
                        }));
                        break;
                    }
                }
            }
            _ => {}
        }
    }
}

/// What ptxas multiplies the dividend by for a division by the constant `c`: a first scaling
/// (`div.full` only, outside the normal range) and the reciprocal rounded to nearest; `None`
/// where it does not fold (a NaN; `div.approx` outside the normal range).
fn div_constant(c: u32, full: bool) -> Option<(Option<u32>, u32)> {
    use crate::float::{self, BinOp, Fmt, Mode};
    let rn = Mode {
        rnd: None,
        ftz: false,
        sat: false,
        relu: false,
    };
    let mag = c & 0x7fff_ffff;
    if mag > 0x7f80_0000 {
        return None;
    }
    let pre = if mag > 0x7e80_0000 {
        Some(0x3e80_0000u32) // 0.25
    } else if mag < 0x0080_0000 {
        Some(0x4b80_0000u32) // 2^24
    } else {
        None
    };
    if pre.is_some() && !full {
        return None;
    }
    let scaled = match pre {
        Some(p) => float::bin(BinOp::Mul, Fmt::F32, c as u64, p as u64, rn),
        None => c as u64,
    };
    let k = float::bin(BinOp::Div, Fmt::F32, float::one(Fmt::F32), scaled, rn) as u32;
    if !full && (k & 0x7f80_0000 == 0 || k & 0x7f80_0000 == 0x7f80_0000) {
        return None;
    }
    Some((pre, k))
}

/// `div.full.f32`/`div.approx.f32` by a constant divisor `c` (an immediate, or a register set
/// once by `mov` of one): ptxas emits `x * RN(1/c)` (`FMUL`, `.FTZ` kept), for `div.full`
/// scaling first as the run-time `div.full` does: by 1/4 when `|c| > 2^126` (infinity
/// included: the reciprocal is then 0) and by 2^24 when `c` is subnormal or zero (the
/// reciprocal infinite). `div.approx` is folded only where `c` and `1/c` are normal.
/// Measured from the SASS of `tools/hwvectors/probes/contract_shapes.py`'s `div` shapes.
fn div_by_constant(
    constant_value: &dyn Fn(&Opnd) -> Option<u64>,
    insts: &[Instruction],
    code: &mut [DInst],
) {
    for i in 0..code.len() {
        let d = &code[i];
        let inst = &insts[i];
        let full = inst.has(Flag::Full);
        if d.op != Opcode::Div
            || d.ty != Some(Type::F32)
            || !(full || inst.has(Flag::Approx))
            || d.opnds.len() != 3
            || code[i].lower.is_some()
        {
            continue;
        }
        let Some(c) = constant_value(&d.opnds[2]) else {
            continue;
        };
        let Some((pre, k)) = div_constant(c as u32, full) else {
            continue;
        };
        code[i].lower = Some(Box::new(Lowering::MulConst { pre, k }));
    }
}

/// Marks the atomics that ptxas (CUDA 13.0) compiles, for `sm_90` and `sm_90a`, into a
/// read-modify-write that is not atomic when the word is in another CTA's shared memory:
/// `atom`/`red` on `.shared::cluster` or a generic address with `.and`, `.or`, `.xor`, `.min` or
/// `.max` on a 64-bit type. Their SASS is a generic `ATOM.E.<op>.64`, which does not complete on distributed
/// shared memory, then a CAS loop on `ATOMS` for the CTA's own shared memory (`QSPC.E.S`) and a
/// plain `LD.E.64`, `LOP3`/`IMNMX`, `ST.E.64` for another CTA's (`tools/hwvectors/dsmem_sass.py`,
/// with any `.sem`). On the H200, 64 threads of one CTA updating one word of the next CTA
/// lose updates with these operations (in 650 to 800 of 800 runs and CTAs each) and never with
/// 64-bit `.add`, `.exch`, `.cas` or 32-bit operations (`hopper_probe.py --repeat 200`: `corpus/vectors/dsmem_repeat.jsonl`);
/// one thread per word gives the atomic result with all of them (`dsword.*` in
/// `corpus/vectors/hopper_probe.jsonl.xz`).
pub fn remote_rmw(code: &mut [DInst]) {
    use ptx_ir_core::{Op, Space};
    for d in code.iter_mut() {
        if matches!(d.op, Opcode::Atom | Opcode::Red)
            && matches!(d.space, Some(Space::SharedCluster) | None)
            && d.vector.is_none()
            && matches!(d.ty, Some(Type::B64 | Type::U64 | Type::S64))
            && matches!(d.oper, Some(Op::And | Op::Or | Op::Xor | Op::Min | Op::Max))
            && d.lower.is_none()
        {
            d.lower = Some(Box::new(Lowering::RemoteRmw));
        }
    }
}
