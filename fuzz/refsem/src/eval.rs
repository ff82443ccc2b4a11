//! The reference evaluator: runs a generated [`Program`] per warp, lane by lane, with Rust's
//! native integer operations, the host's floats and the error-free directed rounding of
//! [`crate::fref`]. It shares no code with the interpreter; it follows the PTX ISA's pseudocode
//! for each instruction and the hardware's measured NaN rules.
//!
//! Control flow is the program's structure: an `If` runs its arms with the lanes where the
//! condition holds or fails, a `Loop` runs its body with the lanes whose trip count is not
//! exhausted; warp instructions see exactly the lanes of their region.

use crate::contract::{Plan, Plans};
use crate::fref::{self, flush32, nan32, nan64, sat32, Rnd, F32_NAN, F64_NAN};
use ptx_ir_core::{Cmp, Flag, Op, Rounding, Type};
use ptx_ir_smith::model::layout::{BUF1, CELLS, SHARED_LEN, SLOT};
use ptx_ir_smith::model::*;
use std::cmp::Ordering;

/// Per-lane registers: `[class][index]`, each value masked to its class width, and whether
/// the reference knows it (values computed from approximate functions are unknown).
#[derive(Clone, Debug, Default)]
pub struct Regs {
    v: [[u64; 8]; 6],
    k: [[bool; 8]; 6],
    /// The carry flag (`CC.CF`) and whether it is known: unknown until a `.cc` instruction
    /// writes it, since PTX leaves its initial value undefined.
    cf: Option<bool>,
    /// The operands of the last execution of each fused `mul` (by its id in the
    /// [`crate::contract::Plans`]), if known.
    saved: Vec<(u32, Option<[u64; 2]>)>,
}

impl Regs {
    /// The value of `r`.
    pub fn get(&self, r: Reg) -> u64 {
        self.v[ci(r.class)][r.idx as usize]
    }

    /// Whether the value of `r` is known.
    pub fn known(&self, r: Reg) -> bool {
        self.k[ci(r.class)][r.idx as usize]
    }

    /// Sets `r` (masking to its width) to a known value.
    pub fn set(&mut self, r: Reg, v: u64) {
        self.v[ci(r.class)][r.idx as usize] = v & mask(r.class.bits());
        self.k[ci(r.class)][r.idx as usize] = true;
    }

    /// Marks `r` unknown.
    pub fn forget(&mut self, r: Reg) {
        self.k[ci(r.class)][r.idx as usize] = false;
    }

    /// Keeps the operands of fused `mul` `id`.
    fn save(&mut self, id: u32, v: Option<[u64; 2]>) {
        match self.saved.iter_mut().find(|(k, _)| *k == id) {
            Some(e) => e.1 = v,
            None => self.saved.push((id, v)),
        }
    }

    /// The operands fused `mul` `id` last read, if known.
    fn saved(&self, id: u32) -> Option<[u64; 2]> {
        self.saved.iter().find(|(k, _)| *k == id).and_then(|e| e.1)
    }
}

fn sx(v: u64, bits: u32) -> i128 {
    let s = 128 - bits;
    ((v as i128) << s) >> s
}

fn zx(v: u64, bits: u32) -> i128 {
    (v & mask(bits)) as i128
}

fn val(v: u64, t: It) -> i128 {
    if t.signed {
        sx(v, t.bits as u32)
    } else {
        zx(v, t.bits as u32)
    }
}

fn tr(v: i128, bits: u32) -> u64 {
    (v as u64) & mask(bits)
}

fn clamp(v: i128, bits: u32, signed: bool) -> i128 {
    let (lo, hi) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    v.clamp(lo, hi)
}

/// The initial value of every register for thread `gid`.
pub fn initial(p: &Program, gid: u32) -> Regs {
    let mut regs = Regs::default();
    for c in Class::ALL {
        for idx in 0..c.count() {
            // Registers the program never touches: known zero (they are not stored either).
            regs.set(Reg { class: c, idx }, 0);
        }
    }
    let used = p.used();
    for &(r, mul, add) in p.init.iter().filter(|(r, ..)| used.contains(r)) {
        let k = (gid.wrapping_mul(mul).wrapping_add(add) & 15) as usize;
        let v = match r.class {
            Class::P => p.pools[1][k] & 1,
            Class::H => p.pools[0][k],
            Class::R => p.pools[1][k],
            Class::D => p.pools[2][k],
            Class::F => p.pools[3][k],
            Class::Fd => p.pools[4][k],
        };
        regs.set(r, v);
    }
    regs
}

/// The reference's answer: the output buffer and, per byte, whether the reference knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The output buffer.
    pub bytes: Vec<u8>,
    /// Whether each byte is known.
    pub known: Vec<bool>,
}

/// Why the reference has no answer for an instruction: it carries a member of an IR vocabulary
/// type (a rounding, a boolean or atomic operation, a comparison, ...) that the generator never
/// draws. The model's operations hold IR values, whose types have more members than the
/// generator uses (`ptx_ir_smith::model::types` lists what it draws); the results of such an
/// instruction are unknown rather than guessed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NotGenerated(pub &'static str);

/// Runs the program for every thread as ptxas compiles it (`mul`/`add` pairs contracted where
/// [`contract`] says) and returns the expected output buffer, or `None` when a branch depends
/// on a value the reference does not know or shared-memory accesses race.
pub fn run(p: &Program) -> Option<Expected> {
    run_mode(p, true)
}

/// As [`run`], with every instruction rounding on its own (the interpreter's
/// `Contraction::Never`); the `neg` folds still apply.
pub fn run_never(p: &Program) -> Option<Expected> {
    run_mode(p, false)
}

/// [`run`] (`contract`) or [`run_never`].
///
/// The warps of a CTA run one after the other up to each top-level barrier (a segment), with
/// the CTA's shared memory; the generator keeps segments race-free (threads write only their
/// own slots, read other threads' slots from the buffer the previous segment wrote, and only
/// one commutative operation reaches a cell), and [`Mem`] checks it.
pub fn run_mode(p: &Program, contract: bool) -> Option<Expected> {
    let plans = Plans::of(p);
    let (offs, rec) = p.record_layout();
    let threads = p.block * p.grid;
    let out_len = p.out_len() as usize;
    let mut out = vec![0u8; out_len];
    let mut known = vec![false; out_len];
    let uses = p.uses_mem();
    let mut mem = Mem::new(p.block, threads);
    // Uniform loops with barriers run as their bodies repeated; the kernel is then a sequence
    // of segments, each ended by a barrier (or the end).
    let mut flat = Vec::new();
    flatten(&p.body, &mut flat);
    let mut segments: Vec<(&[&Node], Option<Bar>)> = Vec::new();
    let mut start = 0;
    for (k, n) in flat.iter().enumerate() {
        if let Node::Barrier(b) = *n {
            segments.push((&flat[start..k], Some(*b)));
            start = k + 1;
        }
    }
    segments.push((&flat[start..], None));
    for cta in 0..p.grid {
        let base = cta * p.block;
        let mut warps: Vec<Vec<Regs>> = (0..p.block / 32)
            .map(|w| (0..32).map(|l| initial(p, base + w * 32 + l)).collect())
            .collect();
        mem.reset_shared();
        if uses {
            for (w, lanes) in warps.iter().enumerate() {
                for (l, regs) in lanes.iter().enumerate() {
                    mem.init_thread(w as u32 * 32 + l as u32, regs);
                }
            }
        }
        for &(seg, bar) in &segments {
            mem.begin_segment();
            for (w, lanes) in warps.iter_mut().enumerate() {
                let mut cx = Cx {
                    mem: &mut mem,
                    tid0: w as u32 * 32,
                    gid0: base + w as u32 * 32,
                    funcs: &p.funcs,
                    pools: &p.pools,
                    plans: &plans,
                    contract,
                };
                for n in seg {
                    exec(std::slice::from_ref(*n), u32::MAX, lanes, &mut cx)?;
                }
            }
            if mem.race {
                return None;
            }
            if let Some(Bar::Red { op, p: pi, neg, .. }) = bar {
                bar_red(op, pi, neg, bar.and_then(Bar::regs), &mut warps);
            }
        }
        for (w, lanes) in warps.iter().enumerate() {
            for (l, regs) in lanes.iter().enumerate() {
                let th = base + w as u32 * 32 + l as u32;
                let at0 = (th * rec) as usize;
                // A thread that exits before the stores leaves its record zero.
                let exits = match p.exit {
                    None => Some(false),
                    Some(Cond::Pred(i, neg)) => {
                        let r = Reg {
                            class: Class::P,
                            idx: i,
                        };
                        regs.known(r).then(|| (regs.get(r) != 0) != neg)
                    }
                    Some(Cond::LaneBelow(k)) => Some((l as u32) < k),
                    Some(Cond::LaneBit(k)) => Some((l >> k) & 1 != 0),
                    Some(Cond::Consumer) => Some(w > 0),
                };
                if exits != Some(false) {
                    let n = rec as usize;
                    out[at0..at0 + n].fill(0);
                    known[at0..at0 + n].fill(exits.is_some());
                    continue;
                }
                for (r, &o) in p.outputs.iter().zip(&offs) {
                    let v = regs.get(*r);
                    let n = match r.class {
                        Class::P => 1,
                        c => (c.bits() / 8) as usize,
                    };
                    let at = at0 + o as usize;
                    out[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
                    known[at..at + n].fill(regs.known(*r));
                }
            }
        }
    }
    if uses {
        let tail = (rec * threads) as usize;
        out[tail..].copy_from_slice(&mem.global);
        known[tail..].copy_from_slice(&mem.gknown);
    }
    Some(Expected { bytes: out, known })
}

/// The nodes of `ns` with every loop of constant trip count that holds a barrier replaced by
/// that many copies of its body (those loops are uniform over the CTA, so this is how it
/// runs).
fn flatten<'a>(ns: &'a [Node], out: &mut Vec<&'a Node>) {
    fn barrier(ns: &[Node]) -> bool {
        ns.iter().any(|n| match n {
            Node::Barrier(_) => true,
            Node::Loop { body, .. } => barrier(body),
            _ => false,
        })
    }
    for n in ns {
        match n {
            Node::Loop {
                trips: Trips::Const(k),
                body,
            } if barrier(body) => {
                for _ in 0..*k {
                    flatten(body, out);
                }
            }
            n => out.push(n),
        }
    }
}

/// `bar.red`: every thread of the CTA gets the reduction of all the CTA's predicates (each
/// negated if `neg`), unknown if any of them is.
fn bar_red(op: BarRed, p: u8, neg: bool, regs: Option<(Reg, Reg)>, warps: &mut [Vec<Regs>]) {
    let Some((d, _)) = regs else { return };
    let pr = Reg {
        class: Class::P,
        idx: p,
    };
    let all = warps.iter().flatten();
    let known = all.clone().all(|r| r.known(pr));
    let count = all.clone().filter(|r| (r.get(pr) != 0) != neg).count() as u64;
    let n = warps.iter().map(|w| w.len()).sum::<usize>() as u64;
    let v = match op {
        BarRed::Popc => count,
        BarRed::And => (count == n) as u64,
        BarRed::Or => (count > 0) as u64,
    };
    for r in warps.iter_mut().flatten() {
        if known {
            r.set(d, v);
        } else {
            r.forget(d);
        }
    }
}

/// The reference's memory: the current CTA's shared array and the global scratch area (the
/// output buffer after the records), each byte with whether its value is known, and per
/// shared byte the threads that wrote, read or atomically updated it in the current segment.
pub struct Mem {
    shared: Vec<u8>,
    sknown: Vec<bool>,
    wr: Vec<u64>,
    rd: Vec<u64>,
    awr: Vec<u64>,
    /// Whether two threads' accesses in one segment conflict (the result would depend on
    /// their order).
    pub race: bool,
    ntid: u32,
    global: Vec<u8>,
    gknown: Vec<bool>,
}

/// What an instruction needs besides its lane's registers.
pub struct Cx<'m> {
    mem: &'m mut Mem,
    /// `%tid.x` of lane 0.
    tid0: u32,
    /// Global thread id of lane 0.
    gid0: u32,
    /// The program's device functions.
    funcs: &'m [Func],
    /// The input pools (what [`Operation::LdIn`] reads).
    pools: &'m [[u64; 16]; 5],
    /// How ptxas compiles the program's instructions.
    plans: &'m Plans,
    /// Whether `mul`/`add` pairs contract (`false`: the one-by-one reading).
    contract: bool,
}

impl Mem {
    fn new(ntid: u32, threads: u32) -> Mem {
        let n = SHARED_LEN as usize;
        let g = (8 * threads + 32) as usize;
        Mem {
            shared: vec![0; n],
            sknown: vec![false; n],
            wr: vec![0; n],
            rd: vec![0; n],
            awr: vec![0; n],
            race: false,
            ntid,
            // The output buffer starts zeroed.
            global: vec![0; g],
            gknown: vec![true; g],
        }
    }

    /// A new CTA: shared memory undefined.
    fn reset_shared(&mut self) {
        self.shared.fill(0);
        self.sknown.fill(false);
    }

    /// What the kernel's prologue stores for thread `tid` (see `lower::mem_prologue`).
    fn init_thread(&mut self, tid: u32, regs: &Regs) {
        let d = |k: u8| {
            regs.get(Reg {
                class: Class::D,
                idx: k,
            })
        };
        let slot = |buf: u32| (buf * BUF1 + tid * SLOT) as usize;
        for (buf, k) in [(0, 0), (1, 2)] {
            let at = slot(buf);
            self.shared[at..at + 8].copy_from_slice(&d(k).to_le_bytes());
            self.shared[at + 8..at + 16].copy_from_slice(&d(k + 1).to_le_bytes());
            self.sknown[at..at + 16].fill(true);
        }
        if tid < 4 {
            let at = (CELLS + 8 * tid) as usize;
            self.shared[at..at + 8].copy_from_slice(&d(4).to_le_bytes());
            self.sknown[at..at + 8].fill(true);
        }
    }

    fn begin_segment(&mut self) {
        self.wr.fill(0);
        self.rd.fill(0);
        self.awr.fill(0);
    }

    /// Records an access by `tid` to shared bytes `at..at + n`: `read`, `write` (plain or
    /// the thread's own atomic), or `cell` (an atomic update another thread may also make).
    fn track(&mut self, tid: u32, at: usize, n: usize, read: bool, write: bool, cell: bool) {
        let me = 1u64 << tid;
        for x in at..at + n {
            let others = !me;
            if read && (self.wr[x] | self.awr[x]) & others != 0 {
                self.race = true;
            }
            if write && (self.rd[x] | self.wr[x] | self.awr[x]) & others != 0 {
                self.race = true;
            }
            if cell && (self.rd[x] | self.wr[x]) & others != 0 {
                self.race = true;
            }
            if read {
                self.rd[x] |= me;
            }
            if write {
                self.wr[x] |= me;
            }
            if cell {
                self.awr[x] |= me;
            }
        }
    }

    fn load(&self, global: bool, at: usize, n: usize) -> (u64, bool) {
        let (b, k) = if global {
            (&self.global, &self.gknown)
        } else {
            (&self.shared, &self.sknown)
        };
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(&b[at..at + n]);
        (u64::from_le_bytes(w), k[at..at + n].iter().all(|&x| x))
    }

    fn store(&mut self, global: bool, at: usize, n: usize, v: u64, known: bool) {
        let (b, k) = if global {
            (&mut self.global, &mut self.gknown)
        } else {
            (&mut self.shared, &mut self.sknown)
        };
        b[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
        k[at..at + n].fill(known);
    }
}

/// One lane of a memory instruction; `sure` is false when its guard is unknown (then what it
/// writes becomes unknown).
fn mem_lane(i: &Inst, lane: u32, regs: &mut Regs, cx: &mut Cx, sure: bool) {
    let tid = cx.tid0 + lane;
    let slot = |buf: u8, t: u32, off: u8| (buf as u32 * BUF1 + t * SLOT + off as u32) as usize;
    match i.op {
        // Generic accesses reach the same bytes: the reference ignores how the address is
        // written (the invariant under test: `cvta` of a shared or global address names the
        // same location).
        Operation::St {
            buf,
            vec,
            class,
            off,
            ..
        } => {
            let first = match i.srcs[0] {
                Src::Reg(r) => r.idx,
                _ => 0,
            };
            let n = (class.bits() / 8) as usize;
            for k in 0..vec {
                let r = Reg {
                    class,
                    idx: (first + k) % class.count(),
                };
                let at = slot(buf, tid, off) + k as usize * n;
                cx.mem.track(tid, at, n, false, true, false);
                cx.mem
                    .store(false, at, n, regs.get(r), sure && regs.known(r));
            }
        }
        Operation::Ld {
            buf,
            peer,
            vec,
            class,
            off,
            ..
        } => {
            let from = (tid + peer as u32) % cx.mem.ntid;
            let n = (class.bits() / 8) as usize;
            for k in 0..vec {
                let r = Reg {
                    class,
                    idx: (i.dst.idx + k) % class.count(),
                };
                let at = slot(buf, from, off) + k as usize * n;
                cx.mem.track(tid, at, n, true, false, false);
                let (v, known) = cx.mem.load(false, at, n);
                if known && sure {
                    regs.set(r, v);
                } else {
                    regs.forget(r);
                }
            }
        }
        Operation::Atom {
            op, t, target, red, ..
        } => {
            let s: Vec<u64> = i.srcs.iter().map(|&x| src(x, lane, regs)).collect();
            let ops_known = sure && srcs_known(i, regs);
            let n = (t.bits() / 8) as usize;
            // `common`: an address other threads update too.
            let (global, at, common) = match target {
                AtomTarget::Own { buf, off } => (false, slot(buf, tid, off), false),
                AtomTarget::Cell(j) => (false, (CELLS + 8 * j as u32) as usize, true),
                AtomTarget::GlobalOwn => (true, 8 * (cx.gid0 + lane) as usize, false),
                AtomTarget::GlobalCell(j) => {
                    (true, cx.mem.global.len() - 32 + 8 * j as usize, true)
                }
            };
            if !global {
                cx.mem.track(tid, at, n, !common, !common, common);
            }
            let (old, old_known) = cx.mem.load(global, at, n);
            let (new, ok) = atom_apply(op, t, old, s[0], s.get(1).copied().unwrap_or(0));
            cx.mem
                .store(global, at, n, new, old_known && ops_known && ok);
            // Where several threads update one address, the value each gets back depends on
            // their order: not compared.
            if red || common || !sure || !old_known {
                if !red {
                    regs.forget(i.dst);
                }
            } else {
                regs.set(i.dst, old);
            }
        }
        _ => unreachable!("not a memory instruction"),
    }
}

/// An atomic operation on `old` with operands `b` (and `c` for `cas`): the new value and
/// whether the reference knows it. `atom.add.f32` rounds to nearest even and flushes
/// subnormal inputs and results (the ISA); with a NaN the result is left unknown.
fn atom_apply(op: Op, t: AtomT, old: u64, b: u64, c: u64) -> (u64, bool) {
    let w = t.bits();
    let m = mask(w);
    let (old, b, c) = (old & m, b & m, c & m);
    let key = |x: u64| match t {
        AtomT::Int(it) => val(x, it),
        _ => x as i128,
    };
    let v = match op {
        Op::Add => {
            if let AtomT::Half(hf, x2) = t {
                // `.noftz`: round to nearest even, subnormals kept; a NaN leaves it unknown.
                let Ok(fmt) = hfmt(hf) else {
                    return (0, false);
                };
                let parts = [old, b].map(|v| [v & 0xffff, (v >> 16) & 0xffff]);
                let n = 1 + x2 as usize;
                if (0..n).any(|k| fmt.nan(parts[0][k]) || fmt.nan(parts[1][k])) {
                    return (0, false);
                }
                let r = halves(x2, &[old, b], 2, |h| {
                    half_arith(fmt, h, false, false, false, |v| sum2(v[0], v[1]))
                });
                if (0..n).any(|k| fmt.nan((r >> (16 * k)) & 0xffff)) {
                    return (0, false);
                }
                r
            } else if t == AtomT::F64 {
                if nan64(old) || nan64(b) {
                    return (0, false);
                }
                let r = (f64v(old) + f64v(b)).to_bits();
                if nan64(r) {
                    return (0, false);
                }
                r
            } else if t == AtomT::F32 {
                let (x, y) = (flush32(old), flush32(b));
                if nan32(x) || nan32(y) {
                    return (0, false);
                }
                let r = (f32v(x) + f32v(y)).to_bits() as u64;
                if nan32(r) {
                    return (0, false);
                }
                flush32(r)
            } else {
                old.wrapping_add(b) & m
            }
        }
        Op::Min => {
            if key(b) < key(old) {
                b
            } else {
                old
            }
        }
        Op::Max => {
            if key(b) > key(old) {
                b
            } else {
                old
            }
        }
        Op::And => old & b,
        Op::Or => old | b,
        Op::Xor => old ^ b,
        Op::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        Op::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        Op::Exch => b,
        Op::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        // Not generated (`ptx_ir_smith::model::ATOM_OPS`): unknown.
        _ => return (0, false),
    };
    (v, true)
}

fn lanes_of(m: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| m & (1 << l) != 0)
}

fn srcs_known(i: &Inst, regs: &Regs) -> bool {
    i.srcs.iter().all(|s| match s {
        Src::Reg(r) => regs.known(*r),
        _ => true,
    })
}

fn forget_dsts(i: &Inst, regs: &mut Regs) {
    if carry_flags(&i.op).1 {
        regs.cf = None;
    }
    regs.forget(i.dst);
    if let Some(d2) = i.dst2 {
        regs.forget(d2);
    }
}

fn exec(nodes: &[Node], active: u32, lanes: &mut [Regs], cx: &mut Cx) -> Option<()> {
    for n in nodes {
        match n {
            Node::Inst(i) => {
                if is_warp(&i.op) {
                    if lanes_of(active).all(|l| srcs_known(i, &lanes[l])) {
                        warp(i, active, lanes);
                    } else {
                        for l in lanes_of(active) {
                            forget_dsts(i, &mut lanes[l]);
                        }
                    }
                } else if let Operation::Call { f, n, params, .. } = i.op {
                    call(i, f, &params[..n as usize], active, lanes, cx)?;
                } else {
                    let plan = cx.plans.get(i).filter(|pl| {
                        cx.contract || !matches!(pl, Plan::Fused { .. } | Plan::Unsure)
                    });
                    for l in lanes_of(active) {
                        let mut sure = true;
                        if let Some((p, neg)) = i.guard {
                            let g = Reg {
                                class: Class::P,
                                idx: p,
                            };
                            if !lanes[l].known(g) {
                                sure = false;
                            } else if (lanes[l].get(g) != 0) == neg {
                                continue;
                            }
                        }
                        if let Some(pl) = plan {
                            if planned(i, pl, l as u32, &mut lanes[l], sure) {
                                continue;
                            }
                        }
                        if is_mem(&i.op) {
                            mem_lane(i, l as u32, &mut lanes[l], cx, sure);
                            continue;
                        }
                        if let Operation::LdIn {
                            class, slot, vec, ..
                        } = i.op
                        {
                            // The input buffer holds the pools, and nothing writes it.
                            let pool = &cx.pools[pool_index(class)];
                            for k in 0..vec {
                                let r = Reg {
                                    class,
                                    idx: (i.dst.idx + k) % class.count(),
                                };
                                if sure {
                                    lanes[l].set(r, pool[(slot + k) as usize]);
                                } else {
                                    lanes[l].forget(r);
                                }
                            }
                            continue;
                        }
                        if !sure {
                            forget_dsts(i, &mut lanes[l]);
                            continue;
                        }
                        if !has_reference(&i.op) || !srcs_known(i, &lanes[l]) {
                            forget_dsts(i, &mut lanes[l]);
                            continue;
                        }
                        lane(i, l as u32, &mut lanes[l]);
                    }
                }
            }
            Node::If { cond, then, els } => {
                let mut m = 0u32;
                for l in lanes_of(active) {
                    let c = match *cond {
                        Cond::Pred(p, neg) => {
                            let r = Reg {
                                class: Class::P,
                                idx: p,
                            };
                            if !lanes[l].known(r) {
                                return None;
                            }
                            (lanes[l].get(r) != 0) != neg
                        }
                        Cond::LaneBelow(k) => (l as u32) < k,
                        Cond::LaneBit(k) => (l >> k) & 1 != 0,
                        Cond::Consumer => cx.tid0 + l as u32 >= 32,
                    };
                    if c {
                        m |= 1 << l;
                    }
                }
                if m != 0 {
                    exec(then, m, lanes, cx)?;
                }
                if active & !m != 0 {
                    exec(els, active & !m, lanes, cx)?;
                }
            }
            Node::Switch { sel, arms } => {
                let n = arms.len() as u64;
                let mut masks = vec![0u32; arms.len()];
                for l in lanes_of(active) {
                    let v = match *sel {
                        Sel::Lane => l as u64,
                        Sel::Reg(r) => {
                            let r = Reg {
                                class: Class::R,
                                idx: r,
                            };
                            if !lanes[l].known(r) {
                                return None;
                            }
                            lanes[l].get(r)
                        }
                    };
                    masks[(v % n) as usize] |= 1 << l;
                }
                for (arm, &m) in arms.iter().zip(&masks) {
                    if m != 0 {
                        exec(arm, m, lanes, cx)?;
                    }
                }
            }
            // Barriers are only where the CTA is converged, and [`run`] splits the body at them.
            Node::Barrier(_) => {}
            Node::Loop { trips, body } => {
                let mut count = [0u32; 32];
                for l in lanes_of(active) {
                    count[l] = match *trips {
                        Trips::Const(k) => k,
                        Trips::Reg(r, k) => {
                            let r = Reg {
                                class: Class::R,
                                idx: r,
                            };
                            if !lanes[l].known(r) {
                                return None;
                            }
                            (lanes[l].get(r) & 3) as u32 + k
                        }
                        Trips::Lane(k) => (l as u32 & 3) + k,
                    };
                }
                let mut m = active;
                loop {
                    m = lanes_of(m)
                        .filter(|&l| count[l] > 0)
                        .fold(0, |a, l| a | 1 << l);
                    if m == 0 {
                        break;
                    }
                    exec(body, m, lanes, cx)?;
                    for l in lanes_of(m) {
                        count[l] -= 1;
                    }
                }
            }
        }
    }
    Some(())
}

/// A call of device function `f` by the lanes of `active` whose guard holds: the callee runs
/// with its own registers (its initial values, the arguments in the first registers of their
/// classes) and its result goes to the destination.
fn call(
    i: &Inst,
    f: u8,
    params: &[Class],
    active: u32,
    lanes: &mut [Regs],
    cx: &mut Cx,
) -> Option<()> {
    let func = &cx.funcs[f as usize];
    let mut callee: Vec<Regs> = vec![Regs::default(); 32];
    let mut m = 0u32;
    for l in lanes_of(active) {
        if let Some((p, neg)) = i.guard {
            let g = Reg {
                class: Class::P,
                idx: p,
            };
            if !lanes[l].known(g) {
                lanes[l].forget(i.dst);
                continue;
            }
            if (lanes[l].get(g) != 0) == neg {
                continue;
            }
        }
        m |= 1 << l;
        let regs = &mut callee[l];
        for c in Class::ALL {
            for idx in 0..c.count() {
                regs.set(Reg { class: c, idx }, 0);
            }
        }
        for &(r, v) in &func.init {
            regs.set(r, v);
        }
        for (k, (&c, &s)) in params.iter().zip(&i.srcs).enumerate() {
            let r = Reg {
                class: c,
                idx: params[..k].iter().filter(|&&x| x == c).count() as u8,
            };
            regs.set(r, src(s, l as u32, &lanes[l]));
            if let Src::Reg(a) = s {
                if !lanes[l].known(a) {
                    regs.forget(r);
                }
            }
        }
    }
    if m != 0 {
        let funcs = cx.funcs;
        exec(&funcs[f as usize].body, m, &mut callee, cx)?;
    }
    for l in lanes_of(m) {
        let r = cx.funcs[f as usize].result;
        if callee[l].known(r) {
            lanes[l].set(i.dst, callee[l].get(r));
        } else {
            lanes[l].forget(i.dst);
        }
    }
    Some(())
}

/// Whether `op` is a warp-synchronous instruction.
pub fn is_warp(op: &Operation) -> bool {
    matches!(
        op,
        Operation::Shfl { .. }
            | Operation::Vote { .. }
            | Operation::Redux { .. }
            | Operation::Match { .. }
            | Operation::Activemask
    )
}

/// The input pool of registers of `class` (predicates start from the 32-bit pool).
fn pool_index(class: Class) -> usize {
    match class {
        Class::H => 0,
        Class::P | Class::R => 1,
        Class::D => 2,
        Class::F => 3,
        Class::Fd => 4,
    }
}

fn src(s: Src, lane: u32, regs: &Regs) -> u64 {
    match s {
        Src::Reg(r) => regs.get(r),
        Src::Imm(v) => v,
        Src::Lane => lane as u64,
    }
}

fn warp(i: &Inst, m: u32, lanes: &mut [Regs]) {
    let a: Vec<u64> = (0..32)
        .map(|l| i.srcs.first().map_or(0, |&s| src(s, l as u32, &lanes[l])))
        .collect();
    match i.op {
        Operation::Activemask => {
            for l in lanes_of(m) {
                lanes[l].set(i.dst, m as u64);
            }
        }
        Operation::Shfl { mode, c } => {
            let mut res = [(0u64, 0u64); 32];
            for l in lanes_of(m) {
                let lane = l as i32;
                let b = src(i.srcs[1], l as u32, &lanes[l]);
                let bval = (b & 0x1f) as i32;
                let cval = (c & 0x1f) as i32;
                let seg = ((c >> 8) & 0x1f) as i32;
                let max_lane = (lane & seg) | (cval & !seg);
                let min_lane = lane & seg;
                let (j, pval) = match mode {
                    Flag::Up => (lane - bval, lane - bval >= max_lane),
                    Flag::Down => (lane + bval, lane + bval <= max_lane),
                    Flag::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
                    Flag::Idx => {
                        let j = min_lane | (bval & !seg);
                        (j, j <= max_lane)
                    }
                    // Not generated (`ptx_ir_smith::model::SHFL_MODES`): unknown.
                    _ => {
                        for l in lanes_of(m) {
                            forget_dsts(i, &mut lanes[l]);
                        }
                        return;
                    }
                };
                let j = if pval { j } else { lane };
                res[l] = (a[j as usize], pval as u64);
            }
            for l in lanes_of(m) {
                lanes[l].set(i.dst, res[l].0);
                if let Some(d2) = i.dst2 {
                    lanes[l].set(d2, res[l].1);
                }
            }
        }
        Operation::Vote { mode } => {
            let ballot = lanes_of(m)
                .filter(|&l| (a[l] != 0) != i.neg_pred)
                .fold(0u32, |acc, l| acc | 1 << l);
            let v = match mode {
                Flag::Ballot => ballot as u64,
                Flag::All => (ballot == m) as u64,
                Flag::Any => (ballot != 0) as u64,
                Flag::Uni => (ballot == m || ballot == 0) as u64,
                // Not generated (`ptx_ir_smith::model::VOTE_MODES`): unknown.
                _ => {
                    for l in lanes_of(m) {
                        forget_dsts(i, &mut lanes[l]);
                    }
                    return;
                }
            };
            for l in lanes_of(m) {
                lanes[l].set(i.dst, v);
            }
        }
        Operation::Redux { op, signed } => {
            let vals = lanes_of(m).map(|l| a[l] & 0xffff_ffff);
            let v = match op {
                Op::Add => Some(vals.fold(0u64, |x, y| x.wrapping_add(y))),
                Op::And => Some(vals.fold(u32::MAX as u64, |x, y| x & y)),
                Op::Or => Some(vals.fold(0, |x, y| x | y)),
                Op::Xor => Some(vals.fold(0, |x, y| x ^ y)),
                Op::Min | Op::Max => {
                    let key = |x: u64| if signed { sx(x, 32) } else { zx(x, 32) };
                    let it = lanes_of(m).map(|l| a[l] & 0xffff_ffff);
                    let r = if op == Op::Min {
                        it.min_by_key(|x| key(*x))
                    } else {
                        it.max_by_key(|x| key(*x))
                    };
                    Some(r.unwrap_or(0))
                }
                // Not generated (`ptx_ir_smith::model::REDUX_OPS`): unknown.
                _ => None,
            };
            for l in lanes_of(m) {
                match v {
                    Some(v) => lanes[l].set(i.dst, v),
                    None => lanes[l].forget(i.dst),
                }
            }
        }
        Operation::Match { all, wide } => {
            let w = if wide { 64 } else { 32 };
            let first = a[m.trailing_zeros() as usize & 31] & mask(w);
            let uniform = lanes_of(m).all(|l| a[l] & mask(w) == first);
            for l in lanes_of(m) {
                if all {
                    lanes[l].set(i.dst, if uniform { m as u64 } else { 0 });
                    if let Some(d2) = i.dst2 {
                        lanes[l].set(d2, uniform as u64);
                    }
                } else {
                    let same = lanes_of(m)
                        .filter(|&k| a[k] & mask(w) == a[l] & mask(w))
                        .fold(0u32, |acc, k| acc | 1 << k);
                    lanes[l].set(i.dst, same as u64);
                }
            }
        }
        _ => unreachable!("not a warp instruction"),
    }
}

/// Evaluates one lane of an instruction that ptxas compiles differently from its one-by-one
/// reading ([`crate::contract::Plan`]); `false` when it then runs as written.
fn planned(i: &Inst, plan: Plan, lane: u32, regs: &mut Regs, sure: bool) -> bool {
    let val = |s: Src, regs: &Regs| match s {
        Src::Reg(r) => regs.known(r).then(|| regs.get(r)),
        s => Some(src(s, lane, regs)),
    };
    if let Plan::Save(id) = plan {
        let second = match i.srcs.get(1) {
            Some(s) => val(*s, regs),
            None => Some(0),
        };
        let v = val(i.srcs[0], regs).zip(second);
        regs.save(id, v.map(|(a, b)| [a, b]));
        return false;
    }
    if !sure {
        forget_dsts(i, regs);
        return true;
    }
    let sign = 1u64 << 31;
    let out = match plan {
        Plan::Save(_) | Plan::Unsure => None,
        Plan::Fused {
            mul,
            prod,
            neg_product,
            neg_addend,
        } => {
            let c = val(i.srcs[1 - prod as usize], regs);
            regs.saved(mul)
                .zip(c)
                .and_then(|([a, b], c)| fused(&i.op, a, b, c, neg_product, neg_addend))
        }
        Plan::Copy(x) => regs.known(x).then(|| regs.get(x)),
        Plan::CopySaved(id) => regs.saved(id).map(|[a, _]| a),
        Plan::SignFlip => val(i.srcs[0], regs).map(|v| v ^ sign),
        Plan::BitField => {
            let v: Option<Vec<u64>> = i.srcs.iter().map(|s| val(*s, regs)).collect();
            v.map(|s| match i.op {
                Operation::Bfi(b) => {
                    let len = crate::contract::bit_field_fold(true, s[2], s[3]).unwrap_or(s[3]);
                    bfi(s[0], s[1], s[2], len, b)
                }
                Operation::Bfe(t) => match crate::contract::bit_field_fold(false, s[1], s[2]) {
                    Some(len) => bfe(s[0], s[1], len, t),
                    None => 0xffff_ffff,
                },
                _ => unreachable!("a bit-field plan is for bfe and bfi only"),
            })
        }
        Plan::SelectNeg { neg } => {
            let x = val(i.srcs[1 - neg as usize], regs);
            let p = val(i.srcs[2], regs);
            x.zip(p).map(|(x, p)| {
                let (first, second) = if neg == 0 {
                    (x ^ sign, x)
                } else {
                    (x, x ^ sign)
                };
                if p != 0 {
                    first
                } else {
                    second
                }
            })
        }
    };
    match out {
        Some(v) => regs.set(i.dst, v),
        None => regs.forget(i.dst),
    }
    true
}

/// The fused multiply-add of an `add`/`sub` (`op`) with the product of `a` and `b` and the
/// addend `c`, with the negations the contraction applies and the `add`'s `.ftz`/`.sat`; `None`
/// where the result is unspecified (an f64 NaN that enters negated, or several NaN operands:
/// which one the hardware returns depends on the operand order ptxas picks).
fn fused(
    op: &Operation,
    a: u64,
    b: u64,
    c: u64,
    neg_product: bool,
    neg_addend: bool,
) -> Option<u64> {
    let (ty, _, ftz, sat) = add_of(op)?;
    let sg = sign_bits(ty);
    let na = if neg_product { a ^ sg } else { a };
    let nc = if neg_addend { c ^ sg } else { c };
    let half = |fmt: fref::HalfFmt, x2: bool| {
        halves(x2, &[na, b, nc], 3, |h| {
            half_arith(fmt, h, ftz, sat, false, |v| sum2(v[0] * v[1], v[2]))
        })
    };
    Some(match ty {
        Type::F32 => arith32(&[na, b, nc], ftz, sat, Rnd::Rn, Some(exact_fma), |x| {
            fref::fma32(x[0], x[1], x[2], Rnd::Rn)
        }),
        Type::F64 => {
            let nans = [a, b, c].iter().filter(|&&x| nan64(x)).count();
            if nans >= 2 || (neg_product && nan64(a)) || (neg_addend && nan64(c)) {
                return None;
            }
            arith64(&[na, b, nc], &[1, 2, 0], |x| {
                fref::fma64(x[0], x[1], x[2], Rnd::Rn)
            })
        }
        Type::F16 => half(fref::F16, false),
        Type::Bf16 => half(fref::BF16, false),
        Type::F16x2 => half(fref::F16, true),
        Type::Bf16x2 => half(fref::BF16, true),
        // Not generated: no contraction known.
        _ => return None,
    })
}

/// Evaluates one lane of a non-warp instruction.
fn lane(i: &Inst, lane: u32, regs: &mut Regs) {
    let s: Vec<u64> = i.srcs.iter().map(|&x| src(x, lane, regs)).collect();
    if unspecified(i, &s) || (!strict() && known_issue(i, &s).is_some()) {
        forget_dsts(i, regs);
        return;
    }
    let (cin, cout) = carry_flags(&i.op);
    if cin || cout {
        let cf = match (cin, regs.cf) {
            (false, _) => false,
            (true, Some(c)) => c,
            // Reading the flag before any `.cc` instruction wrote it: undefined.
            (true, None) => {
                forget_dsts(i, regs);
                return;
            }
        };
        let (d, c) = carry(&i.op, &s, cf);
        regs.set(i.dst, d);
        if cout {
            regs.cf = Some(c);
        }
        return;
    }
    let Ok((d, d2)) = eval(i, &s) else {
        forget_dsts(i, regs);
        return;
    };
    regs.set(i.dst, d);
    if let (Some(r), Some(v)) = (i.dst2, d2) {
        regs.set(r, v);
    }
}

/// Whether `op` reads and whether it writes the carry flag.
pub fn carry_flags(op: &Operation) -> (bool, bool) {
    match *op {
        Operation::AddCc { cin, cout, .. } | Operation::MadCc { cin, cout, .. } => (cin, cout),
        _ => (false, false),
    }
}

/// An extended-precision instruction with carry-in `cf`: its result and carry out. The flag
/// is the carry out of the `w`-bit adder. A subtraction adds the complement of `b` and a carry
/// in of 1 (`sub.cc`) or CF (`subc`), so after a subtraction CF = 1 means "no borrow" and
/// `subc` computes `a - b - (1 - CF)`: measured on the H200 (`corpus/vectors/hw.jsonl.xz`,
/// `sub.cc+subc`, `add.cc+subc`, `sub.cc+addc`), where the ISA text reads CF as a borrow.
fn carry(op: &Operation, s: &[u64], cf: bool) -> (u64, bool) {
    let cf = cf as u128;
    let (w, full) = match *op {
        Operation::AddCc { sub, cin, t, .. } => {
            let w = t.bits as u32;
            let (a, b) = ((s[0] & mask(w)) as u128, (s[1] & mask(w)) as u128);
            let full = if sub {
                a + (!b & mask(w) as u128) + if cin { cf } else { 1 }
            } else {
                a + b + if cin { cf } else { 0 }
            };
            (w, full)
        }
        Operation::MadCc { hi, cin, t, .. } => {
            let w = t.bits as u32;
            // The 2w-bit product as two's complement bits (u128 holds every case: a signed
            // product is below 2^126 in magnitude, an unsigned one below 2^128).
            let p = if t.signed {
                (sx(s[0], w) * sx(s[1], w)) as u128
            } else {
                (s[0] & mask(w)) as u128 * (s[1] & mask(w)) as u128
            };
            let half = if hi { p >> w } else { p } & mask(w) as u128;
            (
                w,
                half + (s[2] & mask(w)) as u128 + if cin { cf } else { 0 },
            )
        }
        _ => unreachable!("not an extended-precision instruction"),
    };
    (full as u64 & mask(w), (full >> w) & 1 == 1)
}

fn f32v(b: u64) -> f32 {
    f32::from_bits(b as u32)
}

fn f64v(b: u64) -> f64 {
    f64::from_bits(b)
}

/// NaN result of an f64 operation with inputs `ins`: the first NaN in `order` (operand
/// indices), quieted, or the invalid-operation NaN. Measured on the H200 (fuzz/tools probes):
/// `add`/`sub`/`mul`/`min`/`max` prefer the second operand, `fma` the order b, c, a, `div` the
/// first operand.
fn nan64_result(ins: &[u64], order: &[usize]) -> u64 {
    order
        .iter()
        .map(|&k| ins[k])
        .find(|&x| nan64(x))
        .map_or(F64_NAN, |x| x | (1 << 51))
}

fn float_cmp(cmp: Cmp, a: f64, b: f64) -> Result<bool, NotGenerated> {
    let nan = a.is_nan() || b.is_nan();
    Ok(match cmp {
        Cmp::Eq => !nan && a == b,
        Cmp::Ne => !nan && a != b,
        Cmp::Lt => !nan && a < b,
        Cmp::Le => !nan && a <= b,
        Cmp::Gt => !nan && a > b,
        Cmp::Ge => !nan && a >= b,
        Cmp::Equ => nan || a == b,
        Cmp::Neu => nan || a != b,
        Cmp::Ltu => nan || a < b,
        Cmp::Leu => nan || a <= b,
        Cmp::Gtu => nan || a > b,
        Cmp::Geu => nan || a >= b,
        Cmp::Num => !nan,
        Cmp::Nan => nan,
        Cmp::Ls | Cmp::Hs => return Err(NotGenerated("an integer comparison of floats")),
    })
}

fn compare(cmp: Cmp, t: CmpT, ftz: bool, a: u64, b: u64) -> Result<bool, NotGenerated> {
    Ok(match t {
        CmpT::F(Type::F32) => {
            let (a, b) = if ftz {
                (flush32(a), flush32(b))
            } else {
                (a, b)
            };
            float_cmp(cmp, f32v(a) as f64, f32v(b) as f64)?
        }
        CmpT::F(Type::F64) => float_cmp(cmp, f64v(a), f64v(b))?,
        CmpT::F(_) => return Err(NotGenerated("a float format")),
        CmpT::Bits(bits) => {
            let (x, y) = (a & mask(bits as u32), b & mask(bits as u32));
            match cmp {
                Cmp::Eq => x == y,
                _ => x != y,
            }
        }
        CmpT::Int(it) => {
            let (x, y) = (val(a, it), val(b, it));
            let (ux, uy) = (zx(a, it.bits as u32), zx(b, it.bits as u32));
            match cmp {
                Cmp::Eq => x == y,
                Cmp::Ne => x != y,
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Gt => x > y,
                Cmp::Ge => x >= y,
                Cmp::Ls => ux <= uy,
                Cmp::Hs => ux >= uy,
                _ => return Err(NotGenerated("a float comparison of integers")),
            }
        }
    })
}

fn bop(op: Option<Op>, t: bool, c: bool) -> Result<bool, NotGenerated> {
    Ok(match op {
        None => t,
        Some(Op::And) => t && c,
        Some(Op::Or) => t || c,
        Some(Op::Xor) => t != c,
        Some(_) => return Err(NotGenerated("a boolean operation other than and, or, xor")),
    })
}

/// f32 arithmetic with PTX's input and output rules. `exact` gives the exact result of the
/// operation on the (flushed) inputs, for the tininess of `.ftz` after rounding in mode `m`
/// ([`fref::tiny32`]; `None`: the operation is exact where it matters).
fn arith32(
    ins: &[u64],
    ftz: bool,
    sat: bool,
    m: Rnd,
    exact: Option<fn(&[f32]) -> fref::Exact32>,
    f: impl Fn(&[f32]) -> f32,
) -> u64 {
    let ins: Vec<u64> = ins
        .iter()
        .map(|&x| if ftz { flush32(x) } else { x & 0xffff_ffff })
        .collect();
    let xs: Vec<f32> = ins.iter().map(|&x| f32v(x)).collect();
    let r = if ins.iter().any(|&x| nan32(x)) {
        F32_NAN
    } else {
        let v = f(&xs);
        if v.is_nan() {
            F32_NAN
        } else {
            v.to_bits() as u64
        }
    };
    if nan32(r) {
        return if sat { 0 } else { r };
    }
    let r = if !ftz {
        r
    } else if r & 0x7fff_ffff == 0x0080_0000
        && exact.is_some_and(|e| fref::tiny32(&e(&xs), r & 0x8000_0000 != 0, m))
    {
        r & 0x8000_0000
    } else {
        flush32(r)
    };
    if sat {
        sat32(r)
    } else {
        r
    }
}

/// The exact `a * b + c` of f32 operands.
fn exact_fma(x: &[f32]) -> fref::Exact32 {
    fref::Exact32::Sum(vec![x[0] as f64 * x[1] as f64, x[2] as f64])
}

/// f64 arithmetic with PTX's NaN rule (`order`: operand priority for NaN results).
fn arith64(ins: &[u64], order: &[usize], f: impl Fn(&[f64]) -> f64) -> u64 {
    if ins.iter().any(|&x| nan64(x)) {
        return nan64_result(ins, order);
    }
    let xs: Vec<f64> = ins.iter().map(|&x| f64v(x)).collect();
    let v = f(&xs);
    if v.is_nan() {
        F64_NAN
    } else {
        v.to_bits()
    }
}

fn bfind(a: u64, t: It, shiftamt: bool) -> u64 {
    let msb = t.bits as u32 - 1;
    let mut a = a & mask(t.bits as u32);
    if t.signed && (a >> msb) & 1 != 0 {
        a = !a & mask(t.bits as u32);
    }
    let mut d = 0xffff_ffffu64;
    for i in (0..=msb).rev() {
        if (a >> i) & 1 != 0 {
            d = i as u64;
            break;
        }
    }
    if shiftamt && d != 0xffff_ffff {
        d = msb as u64 - d;
    }
    d
}

fn bfe(a: u64, b: u64, c: u64, t: It) -> u64 {
    let msb = t.bits as u64 - 1;
    // The ISA restricts position and length to their low 8 bits; the hardware does so for
    // the 32-bit form only, and compares the whole 32-bit operands for the 64-bit form
    // (../shared/hwtruth: bfe.u64/bfe.s64 match only this way).
    let (pos, len) = if t.bits == 64 {
        (b & 0xffff_ffff, c & 0xffff_ffff)
    } else {
        (b & 0xff, c & 0xff)
    };
    let sbit = if !t.signed || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

fn bfi(a: u64, b: u64, c: u64, d: u64, w: u8) -> u64 {
    let msb = w as u64 - 1;
    // As for `bfe`: the 64-bit form uses the whole 32-bit position and length on the
    // hardware (H200), the 32-bit form their low 8 bits.
    let (pos, len) = if w == 64 {
        (c & 0xffff_ffff, d & 0xffff_ffff)
    } else {
        (c & 0xff, d & 0xff)
    };
    let mut f = b & mask(w as u32);
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
        i += 1;
    }
    f
}

/// `prmt`: the ISA's table of source bytes for each mode and `c[1:0]`, listed from `d.b0` up
/// (checked against the H200 vectors `prmt.b32.MODE` of `corpus/vectors/hw.jsonl.xz`).
fn prmt(a: u64, b: u64, c: u64, mode: Option<Flag>) -> Result<u64, NotGenerated> {
    let bytes = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let byte = |k: u64| (bytes >> (8 * (k & 7))) & 0xff;
    let table: Option<[[u64; 4]; 4]> = match mode {
        None => None,
        Some(Flag::F4e) => Some([[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]]),
        Some(Flag::B4e) => Some([[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]]),
        Some(Flag::Rc8) => Some([[0; 4], [1; 4], [2; 4], [3; 4]]),
        Some(Flag::Ecl) => Some([[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]]),
        Some(Flag::Ecr) => Some([[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]]),
        Some(Flag::Rc16) => Some([[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]]),
        Some(_) => return Err(NotGenerated("a prmt mode")),
    };
    let mut d = 0u64;
    for i in 0..4u64 {
        let v = if let Some(tab) = table {
            byte(tab[(c & 3) as usize][i as usize])
        } else {
            let sel = (c >> (4 * i)) & 0xf;
            let v = byte(sel & 7);
            if sel & 8 != 0 {
                if v & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            } else {
                v
            }
        };
        d |= v << (8 * i);
    }
    Ok(d)
}

/// `bmsk`, after the ISA's pseudocode (`a` the start, `b` the width).
fn bmsk(a: u64, b: u64, clamp: bool) -> u64 {
    let ones = 0xffff_ffffu64;
    let a1 = a & 31;
    let mut mask0 = (ones << a1) & ones;
    let b1 = b & 31;
    let sum = a1 + b1;
    let mut mask1 = if sum >= 32 { 0 } else { (ones << sum) & ones };
    let (mut pos_over, mut width_over) = (false, false);
    if clamp {
        if a >= 32 {
            pos_over = true;
            mask0 = 0;
        }
        width_over = b >= 32;
    }
    if sum >= 32 || pos_over || width_over {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = ones;
    }
    mask0 & !mask1 & ones
}

/// `szext`, after the ISA's pseudocode.
fn szext(a: u64, b: u64, clamp: bool, signed: bool) -> u64 {
    let ones = 0xffff_ffffu64;
    let b1 = b & 31;
    let too_large = b >= 32 && clamp;
    let mask = if too_large { 0 } else { (ones << b1) & ones };
    let sign_pos = (b1.wrapping_sub(1)) & 31;
    let sign = !(b1 == 0 || too_large || !signed) && (a >> sign_pos) & 1 == 1;
    ((a & !mask) | if sign { mask } else { 0 }) & ones
}

/// `fns`: the position of the `|offset|`-th set bit of `mask` from `base` upwards (positive
/// offsets) or downwards (negative), `base` itself for offset 0 if its bit is set, else
/// `0xffffffff` (the ISA's pseudocode).
fn fns(mask: u64, base: u64, offset: i128) -> u64 {
    let bit = |p: i64| (mask >> p) & 1 == 1;
    // The one departure from the pseudocode, measured on an H100: offset -2^31 gives 0.
    if offset == -(1 << 31) {
        return 0;
    }
    if offset == 0 {
        return if bit(base as i64) { base } else { 0xffff_ffff };
    }
    let inc = if offset > 0 { 1 } else { -1 };
    let mut count = offset.unsigned_abs() - 1;
    let mut pos = base as i64;
    while (0..32).contains(&pos) {
        if bit(pos) {
            if count == 0 {
                return pos as u64;
            }
            count -= 1;
        }
        pos += inc;
    }
    0xffff_ffff
}

fn cvt_int_extend(r: i128, bits: u32, signed: bool) -> u64 {
    let v = tr(r, bits);
    if signed {
        sx(v, bits) as u64
    } else {
        v
    }
}

/// `cvt`, with the NaN rules measured on the H200 (`fuzz/tools/probe.py`): float-to-integer
/// conversions give 0 for an f32 NaN into 8 to 32 bits and the pattern `1 << (width - 1)` for an
/// f64 NaN or a 64-bit destination; f32-to-f64 keeps the payload (quieted); f64-to-f32 keeps its
/// top bits (quieted); a same-format `cvt` without modifiers is a move, with `.rni`... or
/// `.ftz` it quiets (f64) or canonicalises (f32) NaN; `.sat` turns NaN into +0.
/// `rnd` is the rounding's direction, `int` whether it is an integer rounding (`.rni`...).
fn cvt(d: Cv, s: Cv, rnd: Option<Rnd>, int: bool, ftz: bool, sat: bool, a: u64) -> u64 {
    let mode = |r: Option<Rnd>| r.unwrap_or(Rnd::Rn);
    match (d, s) {
        (Cv::Int(db, ds), Cv::Int(sb, ss)) => {
            let v = if ss {
                sx(a, sb as u32)
            } else {
                zx(a, sb as u32)
            };
            let v = if sat { clamp(v, db as u32, ds) } else { v };
            cvt_int_extend(v, db as u32, ds)
        }
        (Cv::Int(db, ds), Cv::F(ft)) => {
            let x = match ft {
                Fw::F32 => f32v(if ftz { flush32(a) } else { a }) as f64,
                Fw::F64 => f64v(a),
            };
            if x.is_nan() {
                if ft == Fw::F32 && db < 64 {
                    return 0;
                }
                return cvt_int_extend(1i128 << (db - 1), db as u32, ds);
            }
            let r = fref::float_to_int(x, mode(rnd), db as u32, ds);
            cvt_int_extend(r, db as u32, ds)
        }
        (Cv::F(ft), Cv::Int(sb, ss)) => {
            let v = if ss {
                sx(a, sb as u32)
            } else {
                zx(a, sb as u32)
            };
            match ft {
                Fw::F32 => {
                    let r = fref::int_to_f32(v, mode(rnd)).to_bits() as u64;
                    if sat {
                        sat32(r)
                    } else {
                        r
                    }
                }
                Fw::F64 => {
                    let r = fref::int_to_f64(v, mode(rnd));
                    if sat {
                        sat64(r)
                    } else {
                        r.to_bits()
                    }
                }
            }
        }
        (Cv::F(Fw::F32), Cv::F(Fw::F64)) => {
            if nan64(a) {
                if sat {
                    return 0;
                }
                return ((a >> 32) & 0x8000_0000) | 0x7fc0_0000 | ((a >> 29) & 0x003f_ffff);
            }
            let r = fref::f64_to_f32(f64v(a), mode(rnd)).to_bits() as u64;
            let r = if ftz { flush32(r) } else { r };
            if sat {
                sat32(r)
            } else {
                r
            }
        }
        (Cv::F(Fw::F64), Cv::F(Fw::F32)) => {
            let a = a & 0xffff_ffff;
            if nan32(a) {
                return if sat {
                    0
                } else if ftz {
                    // The canonical f32 NaN, widened.
                    0x7fff_ffff_e000_0000
                } else {
                    ((a & 0x8000_0000) << 32)
                        | 0x7ff0_0000_0000_0000
                        | (1 << 51)
                        | ((a & 0x007f_ffff) << 29)
                };
            }
            let a = if ftz { flush32(a) } else { a };
            let r = f32v(a) as f64;
            if sat {
                sat64(r)
            } else {
                r.to_bits()
            }
        }
        (Cv::F(Fw::F32), Cv::F(Fw::F32)) => {
            let a = a & 0xffff_ffff;
            if rnd.is_none() && !ftz && !sat {
                return a;
            }
            if nan32(a) {
                return if sat { 0 } else { F32_NAN };
            }
            let a = if ftz { flush32(a) } else { a };
            let x = f32v(a) as f64;
            let r = match rnd {
                Some(m) if int => fref::round_int64(x, m) as f32,
                _ => x as f32,
            };
            let r = r.to_bits() as u64;
            let r = if ftz { flush32(r) } else { r };
            if sat {
                sat32(r)
            } else {
                r
            }
        }
        (Cv::F(Fw::F64), Cv::F(Fw::F64)) => {
            if rnd.is_none() && !sat {
                return a;
            }
            if nan64(a) {
                return if sat { 0 } else { a | (1 << 51) };
            }
            let x = f64v(a);
            let r = match rnd {
                Some(m) if int => fref::round_int64(x, m),
                _ => x,
            };
            if sat {
                sat64(r)
            } else {
                r.to_bits()
            }
        }
    }
}

/// Whether the oracle checks known interpreter issues too (`ORACLE_STRICT=1`): by default the
/// lanes that hit a [`known_issue`] are not compared, so that fuzzing finds new bugs rather
/// than the recorded ones.
pub fn strict() -> bool {
    static S: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *S.get_or_init(|| std::env::var_os("ORACLE_STRICT").is_some_and(|v| v != "0"))
}

/// Interpreter results known to differ from the hardware, each recorded as an `xfail`
/// regression file in `corpus/regress/` (named here). Remove an entry when its file passes.
pub fn known_issue(i: &Inst, s: &[u64]) -> Option<&'static str> {
    match i.op {
        // A same-format cvt without modifiers is a move on the hardware (NaN payloads and
        // signaling NaNs pass unchanged).
        Operation::Cvt {
            d: CvtT::F(a),
            s: CvtT::F(b),
            rnd: None,
            ftz,
            sat: false,
        } if a == b => match a {
            Type::F32 if !ftz && nan32(s[0]) => Some("interp_cvt_same_format_nan_f32.ptx"),
            Type::F64 if nan64(s[0]) && s[0] & (1 << 51) == 0 => {
                Some("interp_cvt_same_format_nan.ptx")
            }
            _ => None,
        },
        // cvt.ftz.f64.f32 of a NaN widens the canonical f32 NaN.
        Operation::Cvt {
            d: CvtT::F(Type::F64),
            s: CvtT::F(Type::F32),
            ftz: true,
            sat: false,
            ..
        } if nan32(s[0]) => Some("interp_cvt_f64_f32_nan.ptx"),
        _ => None,
    }
}

/// Whether PTX leaves this lane's result unspecified: `abs` and `neg` of a NaN ("NaN inputs
/// yield an unspecified NaN"; the H200 gives the canonical NaN or flips the sign depending on
/// how ptxas compiles the instruction), an f64 NaN narrowed to f32 with `.ftz` (not measured),
/// and which NaN an f64 operation with several NaN operands returns.
fn unspecified(i: &Inst, s: &[u64]) -> bool {
    match i.op {
        // As for f32: which NaN `abs`/`neg` give is left open.
        Operation::Hsign { hf, x2, .. } => {
            let Ok(fmt) = hfmt(hf) else { return false };
            fmt.nan(s[0]) || (x2 && fmt.nan(s[0] >> 16))
        }
        Operation::Fabs { ft, .. } | Operation::Fneg { ft, .. } => match ft {
            Type::F32 => nan32(s[0]),
            Type::F64 => nan64(s[0]),
            _ => false,
        },
        Operation::Cvt {
            d: CvtT::F(Type::F32),
            s: CvtT::F(Type::F64),
            ftz: true,
            sat: false,
            ..
        } => nan64(s[0]),
        // Which of several NaN operands an f64 operation returns depends on how ptxas places
        // the operands (it swaps commutative ones, folds `min(x, x)`): for register operands
        // the H200 prefers b for add/sub/mul/min/max, then b, c, a for fma, a for div (the
        // order `nan64_result` follows), but a kernel cannot rely on it.
        Operation::Fbin { ft: Type::F64, .. } | Operation::Fminmax { ft: Type::F64, .. } => {
            nan64(s[0]) && nan64(s[1])
        }
        Operation::Fma { ft: Type::F64, .. } => s[..3].iter().filter(|&&x| nan64(x)).count() >= 2,
        _ => false,
    }
}

fn sat64(r: f64) -> u64 {
    if r.is_nan() || r <= 0.0 {
        0
    } else if r > 1.0 {
        1f64.to_bits()
    } else {
        r.to_bits()
    }
}

fn minmax(ft: Fw, max: bool, ftz: bool, nan: bool, xorsign: bool, a: u64, b: u64) -> u64 {
    let (bits, qnan) = match ft {
        Fw::F32 => (32, F32_NAN),
        Fw::F64 => (64, F64_NAN),
    };
    let signbit = 1u64 << (bits - 1);
    let (mut a, mut b) = (a & mask(bits), b & mask(bits));
    if ftz && ft == Fw::F32 {
        a = flush32(a);
        b = flush32(b);
    }
    let sign = (a ^ b) & signbit;
    if xorsign {
        a &= !signbit;
        b &= !signbit;
    }
    let isnan = |x: u64| if ft == Fw::F32 { nan32(x) } else { nan64(x) };
    let (na, nb) = (isnan(a), isnan(b));
    if na && nb && ft == Fw::F64 {
        // Measured: the second operand, quieted.
        return b | (1 << 51);
    }
    if na && nb || (nan && (na || nb)) {
        return qnan;
    }
    let r = if na {
        b
    } else if nb {
        a
    } else {
        // Total order with -0 < +0.
        let key = |x: u64| {
            let mag = (x & !signbit) as i128;
            if x & signbit != 0 {
                -mag - 1
            } else {
                mag
            }
        };
        if (key(a) < key(b)) != max {
            a
        } else {
            b
        }
    };
    if xorsign {
        r | sign
    } else {
        r
    }
}

fn testp(ft: Fw, class: u8, a: u64) -> bool {
    let (nan, inf, sub) = match ft {
        Fw::F32 => {
            let x = f32v(a);
            (x.is_nan(), x.is_infinite(), x.is_subnormal())
        }
        Fw::F64 => {
            let x = f64v(a);
            (x.is_nan(), x.is_infinite(), x.is_subnormal())
        }
    };
    match class {
        0 => !nan && !inf,
        1 => inf,
        2 => !nan,
        3 => nan,
        // "As a special case, positive and negative zero are considered normal numbers"
        // (PTX ISA, testp; confirmed on the H200).
        4 => !nan && !inf && !sub,
        _ => sub,
    }
}

/// One lane's result (and second result) of a non-warp instruction with source values `s`, or
/// the qualifier the reference has no answer for.
pub fn eval(i: &Inst, s: &[u64]) -> Result<(u64, Option<u64>), NotGenerated> {
    let w = |t: &It| t.bits as u32;
    let one = |v: u64| (v, None);
    Ok(match i.op {
        Operation::Add(t) => one(tr(val(s[0], t) + val(s[1], t), w(&t))),
        Operation::Sub(t) => one(tr(val(s[0], t) - val(s[1], t), w(&t))),
        Operation::AddSat(sub) => {
            let (a, b) = (sx(s[0], 32), sx(s[1], 32));
            one(tr(clamp(if sub { a - b } else { a + b }, 32, true), 32))
        }
        Operation::MulLo(t) => one(tr(val(s[0], t).wrapping_mul(val(s[1], t)), w(&t))),
        Operation::MulHi(t) => one(if t.bits == 64 && !t.signed {
            ((s[0] as u128 * s[1] as u128) >> 64) as u64
        } else {
            tr((val(s[0], t) * val(s[1], t)) >> w(&t), w(&t))
        }),
        Operation::MulWide(t) => one(tr(val(s[0], t) * val(s[1], t), 2 * w(&t))),
        Operation::MadLo(t) => one(tr(
            val(s[0], t)
                .wrapping_mul(val(s[1], t))
                .wrapping_add(val(s[2], t)),
            w(&t),
        )),
        Operation::MadHi(t) => {
            let hi = if t.bits == 64 && !t.signed {
                ((s[0] as u128 * s[1] as u128) >> 64) as i128
            } else {
                (val(s[0], t) * val(s[1], t)) >> w(&t)
            };
            one(tr(hi.wrapping_add(val(s[2], t)), w(&t)))
        }
        Operation::MadWide(t) => {
            let wide = It {
                bits: t.bits * 2,
                signed: t.signed,
            };
            one(tr(val(s[0], t) * val(s[1], t) + val(s[2], wide), 2 * w(&t)))
        }
        Operation::MadHiSat => {
            let hi = (sx(s[0], 32) * sx(s[1], 32)) >> 32;
            one(tr(clamp(hi + sx(s[2], 32), 32, true), 32))
        }
        Operation::Mul24 { hi, signed } | Operation::Mad24 { hi, signed } => {
            let e = |v: u64| if signed { sx(v, 24) } else { zx(v, 24) };
            let p = e(s[0]) * e(s[1]);
            let r = if hi { p >> 16 } else { p };
            let c = if matches!(i.op, Operation::Mad24 { .. }) {
                zx(s[2], 32)
            } else {
                0
            };
            one(tr(r + c, 32))
        }
        Operation::Sad(t) => {
            let (a, b) = (val(s[0], t), val(s[1], t));
            let d = if a < b { b - a } else { a - b };
            one(tr(d + val(s[2], t), w(&t)))
        }
        Operation::Div(t) | Operation::Rem(t) => {
            let mut b = val(s[1], t);
            if b == 0 || (t.signed && b == -1) {
                b = 1;
            }
            let a = val(s[0], t);
            one(tr(
                if matches!(i.op, Operation::Div(_)) {
                    a / b
                } else {
                    a % b
                },
                w(&t),
            ))
        }
        Operation::Abs(t) => one(tr(val(s[0], t).abs(), w(&t))),
        Operation::Neg(t) => one(tr(-val(s[0], t), w(&t))),
        Operation::Min(t) => one(tr(val(s[0], t).min(val(s[1], t)), w(&t))),
        Operation::Max(t) => one(tr(val(s[0], t).max(val(s[1], t)), w(&t))),
        Operation::Relu { max } => {
            let (a, b) = (sx(s[0], 32), sx(s[1], 32));
            let v = if max { a.max(b) } else { a.min(b) };
            one(tr(v.max(0), 32))
        }
        Operation::Popc(b) => one((s[0] & mask(b as u32)).count_ones() as u64),
        Operation::Clz(b) => one(if b == 32 {
            (s[0] as u32).leading_zeros() as u64
        } else {
            s[0].leading_zeros() as u64
        }),
        Operation::Brev(b) => one(if b == 32 {
            (s[0] as u32).reverse_bits() as u64
        } else {
            s[0].reverse_bits()
        }),
        Operation::Bfind { t, shiftamt } => one(bfind(s[0], t, shiftamt)),
        Operation::Bfe(t) => one(bfe(s[0], s[1], s[2], t)),
        Operation::Bfi(b) => one(bfi(s[0], s[1], s[2], s[3], b)),
        Operation::Dp4a { sa, sb } => {
            let byte = |v: u64, k: u32, sgn: bool| {
                let x = (v >> (8 * k)) & 0xff;
                if sgn {
                    sx(x, 8)
                } else {
                    x as i128
                }
            };
            let sum: i128 = (0..4).map(|k| byte(s[0], k, sa) * byte(s[1], k, sb)).sum();
            one(tr(sum + zx(s[2], 32), 32))
        }
        Operation::Dp2a { hi, sa, sb } => {
            let half = |k: u32| {
                let x = (s[0] >> (16 * k)) & 0xffff;
                if sa {
                    sx(x, 16)
                } else {
                    x as i128
                }
            };
            let byte = |k: u32| {
                let x = (s[1] >> (8 * k)) & 0xff;
                if sb {
                    sx(x, 8)
                } else {
                    x as i128
                }
            };
            let base = if hi { 2 } else { 0 };
            let sum = half(0) * byte(base) + half(1) * byte(base + 1);
            one(tr(sum + zx(s[2], 32), 32))
        }
        Operation::Prmt(mode) => one(prmt(s[0], s[1], s[2], mode)?),
        Operation::Bmsk { clamp } => one(bmsk(s[0] & 0xffff_ffff, s[1] & 0xffff_ffff, clamp)),
        Operation::Szext { clamp, signed } => {
            one(szext(s[0] & 0xffff_ffff, s[1] & 0xffff_ffff, clamp, signed))
        }
        Operation::Fns => one(fns(s[0] & 0xffff_ffff, s[1] & 0xffff_ffff, sx(s[2], 32))),
        Operation::AddCc { .. } | Operation::MadCc { .. } => {
            unreachable!("carry-flag instructions are evaluated with the flag")
        }
        Operation::Ld { .. } | Operation::St { .. } | Operation::Atom { .. } => {
            unreachable!("memory instructions are evaluated with the memory")
        }
        Operation::Call { .. } => unreachable!("calls are evaluated with the callee"),
        // The generic address space maps each state space through its own window: an address
        // made by `cvta` from space `ptr` is in `ptr` and in no other space, except that the
        // executing CTA's shared memory is part of the cluster's, and the kernel parameters'
        // window lies in the global one (the ISA's `isspacep`, confirmed on an H100).
        Operation::Isspacep { space, ptr } => {
            let shared = |w: Win| matches!(w, Win::Shared | Win::SharedCta | Win::SharedCluster);
            one((space == ptr
                || (shared(space) && shared(ptr))
                || (space == Win::Global && ptr == Win::Param)) as u64)
        }
        Operation::Rec { .. } => {
            fn rec(n: u32, x: u32) -> u32 {
                if n == 0 {
                    x
                } else {
                    rec(n - 1, x.wrapping_mul(3).wrapping_add(n)) ^ n
                }
            }
            one(rec(s[0] as u32 & 7, s[1] as u32) as u64)
        }
        // `cvta.to.X(cvta.X(a)) == a`.
        Operation::CvtaRound { .. } => one(s[0]),
        Operation::And(c) => one(s[0] & s[1] & mask(c.bits())),
        Operation::Or(c) => one((s[0] | s[1]) & mask(c.bits())),
        Operation::Xor(c) => one((s[0] ^ s[1]) & mask(c.bits())),
        Operation::Not(c) => one(!s[0] & mask(c.bits())),
        Operation::Cnot(c) => one((s[0] & mask(c.bits()) == 0) as u64),
        Operation::Lop3(lut) => {
            let mut d = 0u64;
            for k in 0..32 {
                let idx = (((s[0] >> k) & 1) << 2) | (((s[1] >> k) & 1) << 1) | ((s[2] >> k) & 1);
                d |= (((lut as u64) >> idx) & 1) << k;
            }
            one(d)
        }
        Operation::Shf { left, clamp } => {
            let n = if clamp {
                (s[2] & 0xffff_ffff).min(32)
            } else {
                s[2] & 31
            } as u32;
            let v = ((s[1] & 0xffff_ffff) << 32) | (s[0] & 0xffff_ffff);
            let v = v as u128;
            one(if left {
                ((v << n) >> 32) as u64 & 0xffff_ffff
            } else {
                (v >> n) as u64 & 0xffff_ffff
            })
        }
        Operation::Shl(c) => {
            let n = s[1] & 0xffff_ffff;
            one(if n >= c.bits() as u64 {
                0
            } else {
                (s[0] << n) & mask(c.bits())
            })
        }
        Operation::Shr(t) => {
            let n = (s[1] & 0xffff_ffff).min(127) as u32;
            let v = val(s[0], t);
            one(tr(if n >= 127 { v >> 127 } else { v >> n }, w(&t)))
        }
        Operation::Setp {
            cmp,
            t,
            bop: b,
            ftz,
            ..
        } => {
            let r = compare(cmp, t, ftz, s[0], s[1])?;
            let c = b.is_some() && ((s[2] != 0) != i.neg_pred);
            (bop(b, r, c)? as u64, Some(bop(b, !r, c)? as u64))
        }
        Operation::Set {
            cmp,
            t,
            d,
            bop: b,
            ftz,
        } => {
            let r = compare(cmp, t, ftz, s[0], s[1])?;
            let c = b.is_some() && ((s[2] != 0) != i.neg_pred);
            let v = bop(b, r, c)?;
            one(match (d, v) {
                (Type::U32 | Type::S32 | Type::F32, false) => 0,
                (Type::F32, true) => 0x3f80_0000,
                (Type::U32 | Type::S32, true) => 0xffff_ffff,
                _ => return Err(NotGenerated("a set destination type")),
            })
        }
        Operation::Selp(_) => one(if s[2] != 0 { s[0] } else { s[1] }),
        Operation::Slct(_) => one(if sx(s[2], 32) >= 0 { s[0] } else { s[1] }),
        Operation::Fbin {
            op,
            ft,
            rnd,
            ftz,
            sat,
        } => {
            let (ft, m) = (fw(ft)?, rnd.map_or(Ok(Rnd::Rn), dir)?);
            let exact: fn(&[f32]) -> fref::Exact32 = match op {
                Fop::Add => |x| fref::Exact32::Sum(vec![x[0] as f64, x[1] as f64]),
                Fop::Sub => |x| fref::Exact32::Sum(vec![x[0] as f64, -x[1] as f64]),
                Fop::Mul => |x| fref::Exact32::Sum(vec![x[0] as f64 * x[1] as f64]),
                Fop::Div => |x| fref::Exact32::Quot(x[0] as f64, x[1] as f64),
            };
            one(match ft {
                Fw::F32 => arith32(&s[..2], ftz, sat, m, Some(exact), |x| match op {
                    Fop::Add => fref::add32(x[0], x[1], m),
                    Fop::Sub => fref::add32(x[0], -x[1], m),
                    Fop::Mul => fref::mul32(x[0], x[1], m),
                    Fop::Div => fref::div32(x[0], x[1], m),
                }),
                Fw::F64 => arith64(
                    &s[..2],
                    if op == Fop::Div { &[0, 1] } else { &[1, 0] },
                    |x| match op {
                        Fop::Add => fref::add64(x[0], x[1], m),
                        Fop::Sub => fref::add64(x[0], -x[1], m),
                        Fop::Mul => fref::mul64(x[0], x[1], m),
                        Fop::Div => fref::div64(x[0], x[1], m),
                    },
                ),
            })
        }
        Operation::Fma {
            ft, rnd, ftz, sat, ..
        } => {
            let (ft, rnd) = (fw(ft)?, dir(rnd)?);
            one(match ft {
                Fw::F32 => arith32(&s[..3], ftz, sat, rnd, Some(exact_fma), |x| {
                    fref::fma32(x[0], x[1], x[2], rnd)
                }),
                Fw::F64 => arith64(&s[..3], &[1, 2, 0], |x| fref::fma64(x[0], x[1], x[2], rnd)),
            })
        }
        Operation::Rcp { ft, rnd, ftz } => {
            let (ft, rnd) = (fw(ft)?, dir(rnd)?);
            one(match ft {
                Fw::F32 => arith32(
                    &s[..1],
                    ftz,
                    false,
                    rnd,
                    Some(|x| fref::Exact32::Quot(1.0, x[0] as f64)),
                    |x| fref::div32(1.0, x[0], rnd),
                ),
                Fw::F64 => arith64(&s[..1], &[0], |x| fref::div64(1.0, x[0], rnd)),
            })
        }
        Operation::Sqrt { ft, rnd, ftz } => {
            let (ft, rnd) = (fw(ft)?, dir(rnd)?);
            one(match ft {
                Fw::F32 => arith32(&s[..1], ftz, false, rnd, None, |x| fref::sqrt32(x[0], rnd)),
                Fw::F64 => arith64(&s[..1], &[0], |x| fref::sqrt64(x[0], rnd)),
            })
        }
        Operation::Fabs { ft, ftz } | Operation::Fneg { ft, ftz } => {
            let (ft, neg) = (fw(ft)?, matches!(i.op, Operation::Fneg { .. }));
            one(match ft {
                Fw::F32 => {
                    let a = s[0] & 0xffff_ffff;
                    if nan32(a) {
                        F32_NAN
                    } else {
                        let a = if ftz { flush32(a) } else { a };
                        if neg {
                            a ^ 0x8000_0000
                        } else {
                            a & 0x7fff_ffff
                        }
                    }
                }
                Fw::F64 => {
                    if neg {
                        s[0] ^ (1 << 63)
                    } else {
                        s[0] & !(1 << 63)
                    }
                }
            })
        }
        Operation::Fminmax {
            ft,
            max,
            ftz,
            nan,
            xorsign,
        } => one(minmax(fw(ft)?, max, ftz, nan, xorsign, s[0], s[1])),
        Operation::Copysign(ft) => {
            let sb = if fw(ft)? == Fw::F32 {
                1u64 << 31
            } else {
                1 << 63
            };
            one((s[1] & !sb) | (s[0] & sb))
        }
        Operation::Testp { ft, class } => one(testp(fw(ft)?, class, s[0]) as u64),
        Operation::Approx { .. } => unreachable!("approximate operations have no reference"),
        Operation::Cvt {
            d,
            s: st,
            rnd,
            ftz,
            sat,
        } => {
            let int = matches!(
                rnd,
                Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)
            );
            one(cvt(
                cv(d)?,
                cv(st)?,
                rnd.map(dir).transpose()?,
                int,
                ftz,
                sat,
                s[0],
            ))
        }
        Operation::Mov(_) => one(s[0]),
        Operation::Hbin {
            op,
            hf,
            x2,
            ftz,
            sat,
            ..
        } => {
            let fmt = hfmt(hf)?;
            one(halves(x2, s, 2, |h| {
                half_arith(fmt, h, ftz, sat, false, |v| match op {
                    Fop::Add => sum2(v[0], v[1]),
                    Fop::Sub => sum2(v[0], -v[1]),
                    // Exact: two 11-bit significands, and bf16's exponent range squared fits
                    // a double's.
                    _ => (v[0] * v[1], Ordering::Equal),
                })
            }))
        }
        Operation::Hfma {
            hf,
            x2,
            ftz,
            sat,
            relu,
        } => {
            let fmt = hfmt(hf)?;
            one(halves(x2, s, 3, |h| {
                half_arith(fmt, h, ftz, sat, relu, |v| sum2(v[0] * v[1], v[2]))
            }))
        }
        Operation::Hsign { abs, hf, x2, ftz } => {
            let fmt = hfmt(hf)?;
            one(halves(x2, s, 1, |h| {
                let a = if ftz { fmt.flush(h[0]) } else { h[0] };
                if abs {
                    a & 0x7fff
                } else {
                    a ^ 0x8000
                }
            }))
        }
        Operation::Hminmax {
            hf,
            x2,
            max,
            ftz,
            nan,
            xorsign,
        } => {
            let fmt = hfmt(hf)?;
            one(halves(x2, s, 2, |h| {
                hminmax(fmt, max, ftz, nan, xorsign, h[0], h[1])
            }))
        }
        Operation::CvtToHalf {
            hf,
            rnd,
            ftz,
            sat,
            relu,
            satfinite,
        } => one(to_half(
            hfmt(hf)?,
            dir(rnd)?,
            ftz,
            sat,
            relu,
            satfinite,
            s[0],
        )),
        Operation::CvtFromHalf { hf, ftz } => one(from_half(hfmt(hf)?, ftz, s[0])),
        Operation::Hsetp {
            cmp,
            hf,
            x2,
            ftz,
            bop: b,
        } => {
            let fmt = hfmt(hf)?;
            let c = b.is_some() && ((s[2] != 0) != i.neg_pred);
            let half = |k: u32| {
                let (mut x, mut y) = ((s[0] >> (16 * k)) & 0xffff, (s[1] >> (16 * k)) & 0xffff);
                if ftz {
                    x = fmt.flush(x);
                    y = fmt.flush(y);
                }
                let v = |h: u64| if fmt.nan(h) { f64::NAN } else { fmt.value(h) };
                bop(b, float_cmp(cmp, v(x), v(y))?, c).map(u64::from)
            };
            if x2 {
                (half(0)?, Some(half(1)?))
            } else {
                // A scalar comparison writes only `p`.
                (half(0)?, None)
            }
        }
        Operation::Hset {
            cmp,
            hf,
            x2,
            d,
            ftz,
            bop: b,
        } => {
            let fmt = hfmt(hf)?;
            let c = b.is_some() && ((s[2] != 0) != i.neg_pred);
            let half = |k: u32| {
                let (mut x, mut y) = ((s[0] >> (16 * k)) & 0xffff, (s[1] >> (16 * k)) & 0xffff);
                if ftz {
                    x = fmt.flush(x);
                    y = fmt.flush(y);
                }
                let v = |h: u64| if fmt.nan(h) { f64::NAN } else { fmt.value(h) };
                bop(b, float_cmp(cmp, v(x), v(y))?, c)
            };
            // True is 1.0 of the format, or all ones of the destination (of each half for
            // pairs); false is zero.
            let one_of = |t: bool| match (t, d) {
                (false, _) => 0,
                (true, HSetD::Half) => {
                    // 1.0: the exponent field holds the bias.
                    ((1u64 << (fmt.ebits - 1)) - 1) << fmt.mbits
                }
                (true, HSetD::U32 | HSetD::S32) if !x2 => 0xffff_ffff,
                (true, _) => 0xffff,
            };
            one(if x2 {
                one_of(half(0)?) | (one_of(half(1)?) << 16)
            } else {
                one_of(half(0)?)
            })
        }
        Operation::CvtHalfX {
            hf,
            peer,
            to_half,
            rnd,
            sat,
        } => {
            let m = rnd.map_or(Ok(Rnd::Rn), dir)?;
            one(cvt_half_x(hfmt(hf)?, peer, to_half, m, sat, s[0]))
        }
        Operation::CvtPack {
            hf,
            rz,
            relu,
            satfinite,
        } => {
            let m = if rz { Rnd::Rz } else { Rnd::Rn };
            let fmt = hfmt(hf)?;
            let cv = |x: u64| to_half(fmt, m, false, false, relu, satfinite, x);
            one((cv(s[0]) << 16) | cv(s[1]))
        }
        // Saturate each `.s32` source to the format, `a` above `b`, and shift `c` in above the
        // pair (for formats narrower than 16 bits).
        Operation::PackSat(pt) => {
            if !PACK_TYPES.contains(&pt) {
                return Err(NotGenerated("a cvt.pack.sat type"));
            }
            let (w, signed) = (pt.bits(), pt.is_signed());
            let (lo, hi) = if signed {
                (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
            } else {
                (0, (1i64 << w) - 1)
            };
            let sat = |x: u64| (x as u32 as i32 as i64).clamp(lo, hi) as u64 & mask(w);
            let pair = (sat(s[0]) << w) | sat(s[1]);
            one(if pack_takes_c(pt) {
                (pair | (s[2] << (2 * w))) & 0xffff_ffff
            } else {
                pair
            })
        }
        // The block is the thread's own and aligned as asked: what is stored reads back.
        Operation::Hint(_) | Operation::Alloca { .. } | Operation::WarpSync => one(s[0]),
        Operation::LdIn { .. } => unreachable!("input loads are evaluated with the pools"),
        Operation::Shfl { .. }
        | Operation::Vote { .. }
        | Operation::Redux { .. }
        | Operation::Match { .. }
        | Operation::Activemask => {
            unreachable!("warp instructions are evaluated per warp")
        }
    })
}

/// A float format as the reference evaluates it: `.f32` or `.f64`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Fw {
    F32,
    F64,
}

/// The format of a float operation's type (the generator draws `.f32` and `.f64`).
fn fw(t: Type) -> Result<Fw, NotGenerated> {
    match t {
        Type::F32 => Ok(Fw::F32),
        Type::F64 => Ok(Fw::F64),
        _ => Err(NotGenerated("a float format")),
    }
}

/// A `cvt` operand type as the reference evaluates it: an integer (bits, signed) or a float.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Cv {
    Int(u8, bool),
    F(Fw),
}

fn cv(t: CvtT) -> Result<Cv, NotGenerated> {
    Ok(match t {
        CvtT::Int(bits, signed) => Cv::Int(bits, signed),
        CvtT::F(f) => Cv::F(fw(f)?),
    })
}

/// The direction of a rounding the generator draws.
fn dir(r: Rounding) -> Result<Rnd, NotGenerated> {
    Rnd::of(r).ok_or(NotGenerated(
        "a rounding other than rn, rz, rm, rp and rni, rzi, rmi, rpi",
    ))
}

/// The half-precision format `hf` names.
fn hfmt(hf: Type) -> Result<fref::HalfFmt, NotGenerated> {
    match hf {
        Type::F16 => Ok(fref::F16),
        Type::Bf16 => Ok(fref::BF16),
        _ => Err(NotGenerated("a half-precision format")),
    }
}

/// Applies `f` to the 16-bit operands (the first `n` sources) once, or per half of packed
/// pairs, and assembles the result.
fn halves(x2: bool, s: &[u64], n: usize, f: impl Fn(&[u64]) -> u64) -> u64 {
    let part = |k: u32| {
        let h: Vec<u64> = s[..n].iter().map(|&v| (v >> (16 * k)) & 0xffff).collect();
        f(&h) & 0xffff
    };
    if x2 {
        part(0) | (part(1) << 16)
    } else {
        part(0)
    }
}

/// `a + b` as the nearest double and the sign of its rounding error (exact for finite
/// values: `Fast2Sum`).
fn sum2(a: f64, b: f64) -> (f64, Ordering) {
    let s = a + b;
    if !s.is_finite() {
        return (s, Ordering::Equal);
    }
    let (x, y) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
    let err = y - (s - x);
    (s, err.partial_cmp(&0.0).unwrap_or(Ordering::Equal))
}

/// Half-precision arithmetic (always round to nearest even) with PTX's rules: a NaN result is
/// the canonical `0x7fff`; `.ftz` flushes subnormal inputs and results tiny after rounding
/// (measured for f16, see `interp/src/float`); `.sat` clamps to `[+0, 1]` with NaN giving `+0`;
/// `.relu` turns negative results (`-0` included) into `+0` and keeps the NaN. `exact` gives
/// the exact result as a double and the sign of what it leaves out.
fn half_arith(
    fmt: fref::HalfFmt,
    ins: &[u64],
    ftz: bool,
    sat: bool,
    relu: bool,
    exact: impl Fn(&[f64]) -> (f64, Ordering),
) -> u64 {
    let ins: Vec<u64> = ins
        .iter()
        .map(|&x| if ftz { fmt.flush(x) } else { x })
        .collect();
    let r = if ins.iter().any(|&x| fmt.nan(x)) {
        fref::HALF_NAN
    } else {
        let vals: Vec<f64> = ins.iter().map(|&x| fmt.value(x)).collect();
        let (v, tail) = exact(&vals);
        if v.is_nan() {
            fref::HALF_NAN
        } else if v.is_infinite() {
            fmt.inf(v < 0.0)
        } else {
            let (r, tiny) = fref::round_half(v, tail, fmt, Rnd::Rn);
            if ftz && tiny {
                r & 0x8000
            } else {
                r
            }
        }
    };
    if fmt.nan(r) {
        return if sat { 0 } else { fref::HALF_NAN };
    }
    if sat {
        return half_sat(fmt, r);
    }
    if relu && r & 0x8000 != 0 {
        return 0;
    }
    r
}

/// Clamps a non-NaN half to `[+0, 1]`.
fn half_sat(fmt: fref::HalfFmt, r: u64) -> u64 {
    let v = fmt.value(r);
    if r & 0x8000 != 0 {
        0
    } else if v > 1.0 {
        // 1.0: the exponent field holds the bias.
        ((1u64 << (fmt.ebits - 1)) - 1) << fmt.mbits
    } else {
        r
    }
}

/// `min`/`max` on halves: as [`minmax`] (NaN operands ignored unless both are NaN or `.NaN` is
/// given, then the canonical NaN; `-0 < +0`; `.xorsign.abs` compares magnitudes and gives the
/// result the exclusive or of the operands' signs).
fn hminmax(
    fmt: fref::HalfFmt,
    max: bool,
    ftz: bool,
    nan: bool,
    xorsign: bool,
    a: u64,
    b: u64,
) -> u64 {
    let (mut a, mut b) = if ftz {
        (fmt.flush(a), fmt.flush(b))
    } else {
        (a & 0xffff, b & 0xffff)
    };
    let sign = (a ^ b) & 0x8000;
    if xorsign {
        a &= 0x7fff;
        b &= 0x7fff;
    }
    let (na, nb) = (fmt.nan(a), fmt.nan(b));
    if (na && nb) || (nan && (na || nb)) {
        return fref::HALF_NAN;
    }
    let key = |x: u64| {
        let mag = (x & 0x7fff) as i32;
        if x & 0x8000 != 0 {
            -mag - 1
        } else {
            mag
        }
    };
    // A single NaN operand is ignored.
    let pick_a = nb || (!na && (key(a) < key(b)) != max);
    let r = if pick_a { a } else { b };
    if xorsign {
        r | sign
    } else {
        r
    }
}

/// `cvt` from f32 to a half. Measured rules (docs/INTERP.md): NaN gives the canonical NaN
/// (`+0` with `.sat`); `.ftz` flushes subnormal f32 inputs into bf16 and changes nothing into
/// f16; `.relu` maps negative values (`-0`, `-inf`) to `+0` and keeps NaN; `.satfinite` turns
/// infinities (and overflow) into the largest finite value of the sign.
fn to_half(
    fmt: fref::HalfFmt,
    m: Rnd,
    ftz: bool,
    sat: bool,
    relu: bool,
    satfinite: bool,
    a: u64,
) -> u64 {
    let a = a & 0xffff_ffff;
    if nan32(a) {
        return if sat { 0 } else { fref::HALF_NAN };
    }
    let a = if ftz && fmt == fref::BF16 {
        flush32(a)
    } else {
        a
    };
    let x = f32v(a) as f64;
    let mut r = if x.is_infinite() {
        fmt.inf(x < 0.0)
    } else {
        fref::round_half(x, Ordering::Equal, fmt, m).0
    };
    if satfinite && r & 0x7fff == fmt.inf(false) {
        r = fmt.max_finite(r & 0x8000 != 0);
    }
    if sat {
        return half_sat(fmt, r);
    }
    if relu && r & 0x8000 != 0 {
        return 0;
    }
    r
}

/// `cvt.f32` from a half (measured): exact; an f16 NaN gives the canonical f32 NaN and `.ftz`
/// does not flush f16 subnormals (they are normal in f32); bf16 is the bit shift (NaN payloads
/// kept) unless `.ftz`, which flushes subnormals and canonicalises NaN.
fn from_half(fmt: fref::HalfFmt, ftz: bool, a: u64) -> u64 {
    let a = a & 0xffff;
    if fmt == fref::BF16 {
        if !ftz {
            return a << 16;
        }
        if fmt.nan(a) {
            return F32_NAN;
        }
        return fmt.flush(a) << 16;
    }
    if fmt.nan(a) {
        return F32_NAN;
    }
    (fmt.value(a) as f32).to_bits() as u64
}

/// `cvt` between a half and an integer, `f64` or the other half format. Measured rules
/// (docs/INTERP.md, `corpus/vectors/probe.jsonl.xz`): a NaN into an integer gives 0 below 64 bits
/// and the most negative pattern (`1 << 63`) into 64 bits; a NaN between a half and `f64`
/// keeps its sign and the leading bits of its payload and is quieted; between the two half
/// formats it is the canonical `0x7fff`; `.sat` clamps to `[0, 1]` and takes NaN to `+0`.
/// Otherwise the value is exact in a double, and integers are rounded through a double and the
/// sign of what it leaves out.
fn cvt_half_x(fmt: fref::HalfFmt, peer: HPeer, to_half: bool, m: Rnd, sat: bool, a: u64) -> u64 {
    // Payload bits below the quiet bit of each format.
    let payload = fmt.mbits - 1;
    if !to_half {
        let a = a & 0xffff;
        return match peer {
            HPeer::Int(bits, signed) => {
                if fmt.nan(a) {
                    let r = if bits == 64 { 1i128 << 63 } else { 0 };
                    return cvt_int_extend(r, bits as u32, signed);
                }
                let r = fref::float_to_int(fmt.value(a), m, bits as u32, signed);
                cvt_int_extend(r, bits as u32, signed)
            }
            HPeer::F64 => {
                if fmt.nan(a) {
                    if sat {
                        return 0;
                    }
                    let pl = a & ((1 << payload) - 1);
                    return ((a & 0x8000) << 48) | 0x7ff8_0000_0000_0000 | (pl << (51 - payload));
                }
                let r = fmt.value(a);
                if sat {
                    sat64(r)
                } else {
                    r.to_bits()
                }
            }
            HPeer::Half => unreachable!("half to half is generated towards `hf`"),
        };
    }
    let (x, tail) = match peer {
        HPeer::Int(bits, signed) => {
            let v = if signed {
                sx(a, bits as u32)
            } else {
                zx(a, bits as u32)
            };
            let x = v as f64;
            // `x` is exact below 2^53; above, the sign of `v - x` is the tail's.
            (x, v.cmp(&(x as i128)))
        }
        HPeer::F64 => {
            if nan64(a) {
                if sat {
                    return 0;
                }
                let pl = (a >> (51 - payload)) & ((1 << payload) - 1);
                let exp = ((1u64 << fmt.ebits) - 1) << fmt.mbits;
                return ((a >> 48) & 0x8000) | exp | (1 << payload) | pl;
            }
            (f64v(a), Ordering::Equal)
        }
        HPeer::Half => {
            let other = if fmt == fref::F16 {
                fref::BF16
            } else {
                fref::F16
            };
            let a = a & 0xffff;
            if other.nan(a) {
                // `.sat` flushes NaN results to +0 (ISA).
                return if sat { 0 } else { fref::HALF_NAN };
            }
            (other.value(a), Ordering::Equal)
        }
    };
    let r = if x.is_infinite() {
        fmt.inf(x < 0.0)
    } else {
        fref::round_half(x, tail, fmt, m).0
    };
    if sat {
        if fmt.nan(r) {
            0
        } else {
            half_sat(fmt, r)
        }
    } else {
        r
    }
}

/// Whether the reference covers `op` (approximate functions are checked three ways only).
pub fn has_reference(op: &Operation) -> bool {
    !matches!(op, Operation::Approx { .. })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(op: Operation) -> Inst {
        let r = |idx| Reg {
            class: Class::R,
            idx,
        };
        Inst {
            guard: None,
            op,
            dst: r(0),
            dst2: None,
            srcs: vec![Src::Reg(r(1)), Src::Reg(r(2)), Src::Reg(r(3))],
            neg_pred: false,
        }
    }

    /// Members of the IR vocabulary the generator never draws get no answer (and no panic):
    /// the model holds IR values, so a hand-made program can carry any of them.
    #[test]
    fn vocabulary_the_generator_never_draws_has_no_answer() {
        let u32t = It {
            bits: 32,
            signed: false,
        };
        let not_generated = [
            Operation::Setp {
                cmp: Cmp::Lt,
                lohi: false,
                t: CmpT::Int(u32t),
                bop: Some(Op::Popc),
                ftz: false,
            },
            Operation::Setp {
                cmp: Cmp::Nan,
                lohi: false,
                t: CmpT::Int(u32t),
                bop: None,
                ftz: false,
            },
            Operation::Set {
                cmp: Cmp::Hs,
                t: CmpT::F(Type::F32),
                d: Type::U32,
                bop: None,
                ftz: false,
            },
            Operation::Set {
                cmp: Cmp::Eq,
                t: CmpT::Int(u32t),
                d: Type::F64,
                bop: None,
                ftz: false,
            },
            Operation::Prmt(Some(Flag::Ftz)),
            Operation::PackSat(Type::B64),
            Operation::Rcp {
                ft: Type::F32,
                rnd: Rounding::Rna,
                ftz: false,
            },
            Operation::Fbin {
                op: Fop::Add,
                ft: Type::F64,
                rnd: Some(Rounding::Rs),
                ftz: false,
                sat: false,
            },
            Operation::Hfma {
                hf: Type::E4m3,
                x2: false,
                ftz: false,
                sat: false,
                relu: false,
            },
            Operation::CvtFromHalf {
                hf: Type::F32,
                ftz: false,
            },
            Operation::Fma {
                ft: Type::F16,
                rnd: Rounding::Rn,
                ftz: false,
                sat: false,
                mad: false,
            },
            Operation::Testp {
                ft: Type::Bf16,
                class: 0,
            },
            Operation::Copysign(Type::B32),
            Operation::Cvt {
                d: CvtT::F(Type::F16),
                s: CvtT::Int(32, true),
                rnd: Some(Rounding::Rn),
                ftz: false,
                sat: false,
            },
            Operation::Setp {
                cmp: Cmp::Lt,
                lohi: false,
                t: CmpT::F(Type::Tf32),
                bop: None,
                ftz: false,
            },
        ];
        for op in not_generated {
            let r = eval(&inst(op), &[1, 2, 3]);
            assert!(r.is_err(), "{op:?}: {r:?}");
        }
        let half = AtomT::Half(Type::F16, false);
        assert_eq!(atom_apply(Op::Popc, half, 1, 2, 3), (0, false));
        assert_eq!(
            atom_apply(Op::Add, AtomT::Half(Type::Tf32, false), 1, 2, 3),
            (0, false)
        );
        // The members it draws do have one.
        for op in [
            Operation::Prmt(PRMT_MODES[3]),
            Operation::PackSat(PACK_TYPES[5]),
        ] {
            assert!(eval(&inst(op), &[1, 2, 3]).is_ok(), "{op:?}");
        }
    }

    /// Warp instructions with a mode or operation the generator never draws leave their
    /// destinations unknown.
    #[test]
    fn warp_vocabulary_the_generator_never_draws_is_unknown() {
        for op in [
            Operation::Shfl {
                mode: Flag::Sync,
                c: 0x1f,
            },
            Operation::Vote { mode: Flag::Red },
            Operation::Redux {
                op: Op::Cas,
                signed: false,
            },
        ] {
            let mut i = inst(op);
            i.srcs.truncate(2);
            let mut lanes = vec![Regs::default(); 32];
            for l in &mut lanes {
                l.set(i.dst, 7);
            }
            warp(&i, u32::MAX, &mut lanes);
            assert!(lanes.iter().all(|l| !l.known(i.dst)), "{op:?}");
        }
    }
}
