//! What ptxas compiles differently from the one-by-one reading of a generated kernel, decided
//! by the reference from the generator's own program (it shares nothing with the interpreter's
//! load-time pass, which works on the flattened instruction stream).
//!
//! **Contraction.** A `mul` and an `add`/`sub` without rounding modifiers become one fused
//! multiply-add (one rounding) when:
//! - both are of one type among `.f32`, `.f64`, `.f16`, `.bf16`, `.f16x2`, `.bf16x2`, with the
//!   same `.ftz`; the `mul` has no `.sat` (the `add` may have it, and may be guarded);
//! - the `mul` is unguarded, not a product of two constants (immediates, or registers whose
//!   only definition is a `mov` of an immediate: in a device function the registers it never
//!   writes but its parameters), and lies in the `add`'s basic block, before it;
//! - the `add` reads the product directly or through unguarded moves (`mov`, and the
//!   `mov.b32` that follows `bar.warp.sync` or a hint) and `neg`s (not `.ftz`, not
//!   `neg.bf16x2`) of that block, each negation flipping the product's sign;
//! - every read of the product and of each link (in its block, and in the blocks it reaches
//!   before its register is written again) is the next link of the chain, or an `add`/`sub`
//!   that fuses this product through that operand and reads it once;
//! - an `add` whose two operands both qualify fuses the first.
//!
//! The fused operation reads the `mul`'s operands as they were at the `mul`; `sub c, p`
//! negates the product, `sub p, c` the addend; the `add`'s `.ftz`/`.sat` apply.
//!
//! The basic blocks are those of the lowering ([`ptx_ir_smith::lower`]): every region of an `if`,
//! `switch` and loop (the loop head apart), and every call site (a guarded call is a branch
//! around an unguarded one, and the instruction after a call starts a block), split the body;
//! barriers do not.
//!
//! Where the rules leave the answer open the reference does not claim one: the `add`'s result
//! is unknown ([`Plan::Unsure`]). That is the case where a product value leaves its block but
//! is dead there (its register read in another block, or a guarded redefinition in between:
//! ptxas sees through both, the interpreter conservatively keeps the product rounded), where
//! it is read again only in its own block, around a loop (before the `mul` of the next
//! iteration: not an `add` that fuses it, unless ptxas unrolls the loop; the interpreter
//! fuses), for chains of more than seven links, and where the answer depends on the order in
//! which products are given up (a product rounded because an `add` fused another product that
//! was itself given up later). Each decision is made twice, leniently (only what the rules
//! forbid keeps a product rounded) and conservatively (the open cases too); where the two
//! differ, the result is unknown.
//!
//! **NaN signs.** `neg` of an unguarded `neg` of the same type in the block (neither `.ftz`,
//! the first one's source unchanged since, and different from its destination) is a copy of
//! the first one's source; a guarded `neg.f32` flips the sign bit; `selp.f32` between `x` and
//! such a `neg x` flips `x`'s sign bit. Elsewhere `neg` of a NaN stays unspecified.
//!
//! **Bit fields.** A `bfe.s32` or `bfi.b32` whose position and length are both constants
//! (immediates, a device function's constant registers, or a register whose last write before
//! it in the block is an unguarded `mov` of an immediate) is computed by ptxas
//! ([`bit_field_fold`]).

use ptx_ir_core::Type;
use ptx_ir_smith::model::*;
use std::collections::{HashMap, HashSet};

/// Whether `op` writes its destination with a `mov` of its first source (`mov`, and the
/// `mov.b32` after `bar.warp.sync` and after the hint instructions).
fn is_move(op: &Operation) -> bool {
    matches!(
        op,
        Operation::Mov(_) | Operation::WarpSync | Operation::Hint(_)
    )
}

/// What the reference does differently from an instruction's one-by-one reading.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// A `mul` fused into some `add`, or a `neg` whose `neg` is a copy: its operands are kept
    /// (per lane) under this id.
    Save(u32),
    /// An `add`/`sub` fused with `mul` (its id).
    Fused {
        /// The `mul`'s id.
        mul: u32,
        /// The source (0 or 1) that holds the product; the other is the addend.
        prod: u8,
        /// The product enters negated.
        neg_product: bool,
        /// The addend enters negated.
        neg_addend: bool,
    },
    /// An `add`/`sub` that ptxas may or may not fuse: its result is unknown.
    Unsure,
    /// A `neg` of a `neg`: a copy of this register (the first `neg`'s source).
    Copy(Reg),
    /// A `neg` of a `neg` whose source changed since: the value saved (first of the pair) by
    /// the first `neg`, whose plan is [`Plan::Save`] with this id.
    CopySaved(u32),
    /// A guarded `neg.f32`: its source with the sign bit flipped.
    SignFlip,
    /// A `selp.f32` of `x` and `neg x`: source `neg` (0 or 1) is the other source with the
    /// sign bit flipped.
    SelectNeg {
        /// Which source is the `neg`.
        neg: u8,
    },
    /// A `bfe.s32` or `bfi.b32` whose position and length are constants: ptxas computes it
    /// by its own rules where they pass the register's width ([`bit_field_fold`]).
    BitField,
}

/// What ptxas makes of `bfe.s32` (`bfi` false) or `bfi.b32` (`bfi` true) with the constant
/// position `pos` and length `len`: `Some(len)` the length the ISA's reading then takes, or
/// `None` where the result is all ones. Measured on the H200 (corpus/vectors/bitfold.jsonl.xz,
/// every position and length as immediates and as `mov`s): a `bfe.s32` past bit 31 is all
/// ones whatever the field's sign; a `bfi.b32` at a position that is not a multiple of 8
/// inserts `len % 32` bits.
pub fn bit_field_fold(bfi: bool, pos: u64, len: u64) -> Option<u64> {
    let (pos, len) = (pos & 0xff, len & 0xff);
    if !bfi {
        return (pos < 32 || len == 0).then_some(len);
    }
    Some(if pos < 32 && pos % 8 != 0 && len >= 32 {
        len % 32
    } else {
        len
    })
}

/// The plans of a program's instructions (kernel and device functions), by identity.
#[derive(Default, Debug)]
pub struct Plans {
    map: HashMap<usize, Plan>,
}

fn key(i: &Inst) -> usize {
    i as *const Inst as usize
}

impl Plans {
    /// Decides the plans of every instruction of `p`.
    pub fn of(p: &Program) -> Plans {
        let mut plans = Plans::default();
        let mut ids = 0u32;
        // ptxas also deletes an `if` whose arms hold only dead code (with its branches),
        // joining the blocks around it; the interpreter models that. Generated kernels store
        // every register after the body (`Program::outputs`), so none of their code is dead
        // across blocks and the reference needs no rule for it.
        Analysis::new(Cfg::kernel(p), 0, 0).plan(&mut plans, &mut ids);
        for f in &p.funcs {
            // The registers a device function never writes but its parameters hold the `mov`
            // of an immediate that initialises them, and nothing else.
            let mut written = 0u64;
            fn walk(ns: &[Node], w: &mut u64) {
                for n in ns {
                    if let Node::Inst(i) = n {
                        for r in inst_writes(i) {
                            *w |= bit(r);
                        }
                    }
                }
            }
            walk(&f.body, &mut written);
            let mut params = 0u64;
            for (j, &c) in f.params.iter().enumerate() {
                let idx = f.params[..j].iter().filter(|&&x| x == c).count() as u8;
                params |= bit(Reg { class: c, idx });
            }
            let constant = !written & !params;
            Analysis::new(Cfg::func(f), constant, !params).plan(&mut plans, &mut ids);
        }
        plans
    }

    /// The plan of `i`, if it has one.
    pub fn get(&self, i: &Inst) -> Option<Plan> {
        self.map.get(&key(i)).copied()
    }

    /// Every plan (for statistics).
    pub fn all(&self) -> impl Iterator<Item = &Plan> {
        self.map.values()
    }
}

/// A register as a bit of a 48-bit set (six classes of at most eight registers).
fn bit(r: Reg) -> u64 {
    1u64 << (ci(r.class) * 8 + r.idx as usize)
}

/// The registers an instruction reads (with repetitions): its guard, its sources, and the
/// vector a store reads.
fn inst_reads(i: &Inst) -> Vec<Reg> {
    let mut v = Vec::new();
    if let Some((p, _)) = i.guard {
        v.push(Reg {
            class: Class::P,
            idx: p,
        });
    }
    match i.op {
        Operation::St { vec, class, .. } => {
            let first = match i.srcs.first() {
                Some(Src::Reg(r)) => r.idx,
                _ => 0,
            };
            for k in 0..vec {
                v.push(Reg {
                    class,
                    idx: (first + k) % class.count(),
                });
            }
        }
        _ => v.extend(i.srcs.iter().filter_map(|s| match s {
            Src::Reg(r) => Some(*r),
            _ => None,
        })),
    }
    v
}

/// The registers an instruction writes.
fn inst_writes(i: &Inst) -> Vec<Reg> {
    match i.op {
        Operation::St { .. } | Operation::Atom { red: true, .. } => Vec::new(),
        Operation::Ld { vec, class, .. } | Operation::LdIn { vec, class, .. } => (0..vec)
            .map(|k| Reg {
                class,
                idx: (i.dst.idx + k) % class.count(),
            })
            .collect(),
        _ => std::iter::once(i.dst).chain(i.dst2).collect(),
    }
}

/// An element of a basic block.
#[derive(Copy, Clone, Debug)]
enum Item<'a> {
    /// A generated instruction.
    Inst(&'a Inst),
    /// A read by the code around them: a branch condition, a trip count, a switch selector, a
    /// call's arguments, `bar.red`'s predicate, the stores of the results.
    Read(Reg),
    /// An unguarded write by that code: the parameters and initial values, a call's result,
    /// `bar.red`'s destination.
    Write(Reg),
}

/// A move of a register to itself (guarded or not): it does nothing, and ptxas drops it.
fn self_move(i: &Inst) -> bool {
    is_move(&i.op) && i.srcs.first() == Some(&Src::Reg(i.dst))
}

impl Item<'_> {
    fn reads(&self) -> Vec<Reg> {
        match self {
            Item::Inst(i) if self_move(i) => Vec::new(),
            Item::Inst(i) => inst_reads(i),
            Item::Read(r) => vec![*r],
            Item::Write(_) => Vec::new(),
        }
    }

    /// The registers written, and whether the write is guarded.
    fn writes(&self) -> (Vec<Reg>, bool) {
        match self {
            Item::Inst(i) if self_move(i) => (Vec::new(), false),
            Item::Inst(i) => (inst_writes(i), i.guard.is_some()),
            Item::Read(_) => (Vec::new(), false),
            Item::Write(r) => (vec![*r], false),
        }
    }

    fn writes_reg(&self, r: Reg) -> bool {
        self.writes().0.contains(&r)
    }

    fn inst(&self) -> Option<&Inst> {
        match self {
            Item::Inst(i) => Some(i),
            _ => None,
        }
    }
}

/// The basic blocks of a lowered function body and their successors.
struct Cfg<'a> {
    blocks: Vec<Vec<Item<'a>>>,
    succ: Vec<Vec<usize>>,
    cur: usize,
}

impl<'a> Cfg<'a> {
    fn new() -> Self {
        Cfg {
            blocks: vec![Vec::new()],
            succ: vec![Vec::new()],
            cur: 0,
        }
    }

    /// The kernel: the prologue loads every register it uses, the body runs, a guarded `exit`
    /// ends the block, and the epilogue stores the outputs.
    fn kernel(p: &'a Program) -> Self {
        let mut g = Cfg::new();
        for r in p.used() {
            g.push(Item::Write(r));
        }
        if p.uses_mem() {
            for idx in 0..5 {
                g.push(Item::Read(Reg {
                    class: Class::D,
                    idx,
                }));
            }
        }
        g.nodes(&p.body);
        if let Some(c) = p.exit {
            g.cond(c);
            g.fall();
        }
        for r in &p.outputs {
            g.push(Item::Read(*r));
        }
        g
    }

    /// A device function: parameters and initial values, the (straight-line) body, the store
    /// of the result.
    fn func(f: &'a Func) -> Self {
        let mut g = Cfg::new();
        for r in f.used() {
            g.push(Item::Write(r));
        }
        g.nodes(&f.body);
        g.push(Item::Read(f.result));
        g
    }

    fn push(&mut self, it: Item<'a>) {
        self.blocks[self.cur].push(it);
    }

    fn block(&mut self) -> usize {
        self.blocks.push(Vec::new());
        self.succ.push(Vec::new());
        self.blocks.len() - 1
    }

    fn edge(&mut self, a: usize, b: usize) {
        self.succ[a].push(b);
    }

    /// Ends the current block; a new one follows it.
    fn fall(&mut self) -> usize {
        let b = self.block();
        self.edge(self.cur, b);
        self.cur = b;
        b
    }

    fn cond(&mut self, c: Cond) {
        if let Cond::Pred(p, _) = c {
            self.push(Item::Read(Reg {
                class: Class::P,
                idx: p,
            }));
        }
    }

    fn nodes(&mut self, ns: &'a [Node]) {
        for n in ns {
            match n {
                Node::Inst(i) if matches!(i.op, Operation::Call { .. } | Operation::Rec { .. }) => {
                    self.call(i)
                }
                Node::Inst(i) => self.push(Item::Inst(i)),
                Node::Barrier(b) => {
                    if let Some((d, p)) = b.regs() {
                        self.push(Item::Read(p));
                        self.push(Item::Write(d));
                    }
                }
                Node::If { cond, then, els } => {
                    self.cond(*cond);
                    let pre = self.cur;
                    self.fall();
                    self.nodes(then);
                    let then_end = self.cur;
                    let e = self.block();
                    self.edge(pre, e);
                    self.cur = e;
                    self.nodes(els);
                    let els_end = self.cur;
                    let j = self.block();
                    self.edge(then_end, j);
                    self.edge(els_end, j);
                    self.cur = j;
                }
                Node::Loop { trips, body } => {
                    if let Trips::Reg(r, _) = trips {
                        self.push(Item::Read(Reg {
                            class: Class::R,
                            idx: *r,
                        }));
                    }
                    let head = self.fall();
                    self.fall();
                    self.nodes(body);
                    let end = self.cur;
                    self.edge(end, head);
                    let done = self.block();
                    self.edge(head, done);
                    self.cur = done;
                }
                Node::Switch { sel, arms } => {
                    if let Sel::Reg(r) = sel {
                        self.push(Item::Read(Reg {
                            class: Class::R,
                            idx: *r,
                        }));
                    }
                    let pre = self.cur;
                    let mut ends = Vec::new();
                    for arm in arms {
                        let a = self.block();
                        self.edge(pre, a);
                        self.cur = a;
                        self.nodes(arm);
                        ends.push(self.cur);
                    }
                    let j = self.block();
                    for e in ends {
                        self.edge(e, j);
                    }
                    self.cur = j;
                }
            }
        }
    }

    /// A call site: the arguments are read where the call is, the result is written after it
    /// (a new block); a guarded call is a branch around the site.
    fn call(&mut self, i: &'a Inst) {
        let args: Vec<Reg> = i
            .srcs
            .iter()
            .filter_map(|s| match s {
                Src::Reg(r) => Some(*r),
                _ => None,
            })
            .collect();
        let pre = self.cur;
        if let Some((p, _)) = i.guard {
            self.push(Item::Read(Reg {
                class: Class::P,
                idx: p,
            }));
            self.fall();
        }
        for r in args {
            self.push(Item::Read(r));
        }
        self.fall();
        self.push(Item::Write(i.dst));
        if i.guard.is_some() {
            let skip = self.fall();
            self.edge(pre, skip);
        }
    }
}

/// A product an `add` operand reaches: the `mul` (its index in the block), whether the chain
/// negates it, and the chain's links (index of the writer, register written), the `mul` last.
#[derive(Clone, Debug)]
struct Chain {
    mul: usize,
    neg: bool,
    links: Vec<(usize, Reg)>,
}

impl Chain {
    /// More than seven `mov`/`neg` links.
    fn long(&self) -> bool {
        self.links.len() > 8
    }
}

/// An `add`/`sub` with qualifying operands.
struct Cand {
    block: usize,
    at: usize,
    /// (source index, chain), in source order.
    opts: Vec<(usize, Chain)>,
}

/// The register a `mov`, `neg`, `abs`, `add`, `sub` or `mul` writes (ptxas deletes such code
/// when its result is dead), if `it` is one.
fn pure_write(it: &Item<'_>) -> Option<Reg> {
    let i = it.inst()?;
    let pure = is_move(&i.op)
        || matches!(
            i.op,
            Operation::Fbin {
                op: Fop::Add | Fop::Sub | Fop::Mul,
                ..
            } | Operation::Hbin {
                op: Fop::Add | Fop::Sub | Fop::Mul,
                ..
            } | Operation::Fneg { .. }
                | Operation::Fabs { .. }
                | Operation::Hsign { .. }
        );
    let ws = inst_writes(i);
    (pure && ws.len() == 1 && !self_move(i)).then(|| ws[0])
}

/// Per block, per item: dead code ([`Analysis::dead`]), found in one backward pass.
fn dead_code(g: &Cfg<'_>) -> Vec<Vec<bool>> {
    g.blocks
        .iter()
        .map(|items| {
            let mut dead = vec![false; items.len()];
            // Per register, the next access the pass has seen: an unguarded write (`true`), or
            // a read or guarded write (`false`); none before the block ends: absent.
            let mut next: HashMap<Reg, bool> = HashMap::new();
            for (u, it) in items.iter().enumerate().rev() {
                if let Some(r) = pure_write(it) {
                    dead[u] = next.get(&r) == Some(&true);
                }
                let (ws, guarded) = it.writes();
                for w in ws {
                    next.insert(w, !guarded);
                }
                // Reads come before the item's writes; a dead item's reads do not count.
                if !dead[u] {
                    for r in it.reads() {
                        next.insert(r, false);
                    }
                }
            }
            dead
        })
        .collect()
}

struct Analysis<'a> {
    g: Cfg<'a>,
    /// Per block, per item: dead code.
    dead: Vec<Vec<bool>>,
    /// Registers live at the end of each block.
    live_out: Vec<u64>,
    /// Registers read in each block.
    read_in: Vec<u64>,
    /// Registers whose only definition is a `mov` of an immediate.
    constant: u64,
    /// Registers whose initial write ([`Item::Write`] at the entry) is a `mov` of an immediate
    /// (a device function's registers but its parameters; a kernel loads them).
    init_imm: u64,
}

impl<'a> Analysis<'a> {
    fn new(g: Cfg<'a>, constant: u64, init_imm: u64) -> Self {
        let n = g.blocks.len();
        let mut gen = vec![0u64; n];
        let mut kill = vec![0u64; n];
        let mut read_in = vec![0u64; n];
        for (b, items) in g.blocks.iter().enumerate() {
            for it in items {
                for r in it.reads() {
                    read_in[b] |= bit(r);
                    if kill[b] & bit(r) == 0 {
                        gen[b] |= bit(r);
                    }
                }
                let (ws, guarded) = it.writes();
                if !guarded {
                    for r in ws {
                        kill[b] |= bit(r);
                    }
                }
            }
        }
        let mut live_in = vec![0u64; n];
        let mut live_out = vec![0u64; n];
        loop {
            let mut changed = false;
            for b in (0..n).rev() {
                let out = g.succ[b].iter().fold(0u64, |a, &s| a | live_in[s]);
                let inn = gen[b] | (out & !kill[b]);
                if out != live_out[b] || inn != live_in[b] {
                    live_out[b] = out;
                    live_in[b] = inn;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Analysis {
            dead: dead_code(&g),
            g,
            live_out,
            read_in,
            constant,
            init_imm,
        }
    }

    /// Whether the value `r` holds at the end of block `b` may be read in another block (reads
    /// in `b` itself, around a loop, do not count).
    fn read_after(&self, b: usize, r: Reg) -> bool {
        let mut seen = vec![false; self.g.blocks.len()];
        let mut work: Vec<usize> = self.g.succ[b].clone();
        while let Some(x) = work.pop() {
            if std::mem::replace(&mut seen[x], true) {
                continue;
            }
            let mut killed = false;
            for it in &self.g.blocks[x] {
                if x != b && it.reads().contains(&r) {
                    return true;
                }
                let (ws, guarded) = it.writes();
                if !guarded && ws.contains(&r) {
                    killed = true;
                    break;
                }
            }
            if !killed {
                work.extend(&self.g.succ[x]);
            }
        }
        false
    }

    fn constant(&self, s: Src) -> bool {
        match s {
            Src::Imm(_) => true,
            Src::Reg(r) => self.constant & bit(r) != 0,
            Src::Lane => false,
        }
    }

    /// The item of block `b` before `at` that last wrote `r`.
    fn writer(&self, b: usize, at: usize, r: Reg) -> Option<usize> {
        (0..at).rev().find(|&j| self.g.blocks[b][j].writes_reg(r))
    }

    /// Whether item `u` of block `b` is a `mov`, `neg`, `abs`, `add`, `sub` or `mul` (guarded
    /// or not) whose result is written again in the block (unguarded) before anything but such
    /// dead code reads it (ptxas deletes it: its reads are no uses).
    fn dead(&self, b: usize, u: usize) -> bool {
        self.dead[b][u]
    }

    /// The product that `r`, read by the `add` at `at` (of type `ty`, `.ftz` `ftz`), holds.
    fn chain(&self, b: usize, at: usize, r: Reg, ty: Type, ftz: bool) -> Option<Chain> {
        let (mut at, mut r) = (at, r);
        let mut c = Chain {
            mul: 0,
            neg: false,
            links: Vec::new(),
        };
        loop {
            let j = self.writer(b, at, r)?;
            let i = self.g.blocks[b][j].inst()?;
            if i.guard.is_some() {
                return None;
            }
            c.links.push((j, r));
            if let Some((t, f, sat)) = mul_of(&i.op) {
                let ok = t == ty
                    && f == ftz
                    && !sat
                    && !(self.constant(i.srcs[0]) && self.constant(i.srcs[1]));
                c.mul = j;
                return ok.then_some(c);
            }
            let Some(Src::Reg(src)) = i.srcs.first().copied() else {
                return None;
            };
            if is_move(&i.op) {
                // A move keeps the register's width, hence the type's.
            } else if neg_of(&i.op) == Some((ty, false)) && ty != Type::Bf16x2 {
                c.neg = !c.neg;
            } else {
                return None;
            }
            at = j;
            r = src;
        }
    }

    fn candidates(&self) -> Vec<Cand> {
        let mut out = Vec::new();
        for (b, items) in self.g.blocks.iter().enumerate() {
            for (at, it) in items.iter().enumerate() {
                let Some(i) = it.inst() else { continue };
                let Some((ty, _, ftz, _)) = add_of(&i.op) else {
                    continue;
                };
                if self.dead(b, at) {
                    continue;
                }
                let mut opts = Vec::new();
                for k in 0..2 {
                    if let Src::Reg(r) = i.srcs[k] {
                        if let Some(c) = self.chain(b, at, r, ty, ftz) {
                            opts.push((k, c));
                        }
                    }
                }
                if !opts.is_empty() {
                    out.push(Cand { block: b, at, opts });
                }
            }
        }
        out
    }

    /// Whether the value `r` written by item `j` of block `b` (a link of `chain`, the product
    /// of `mul`) is read only as the use rule allows: by a link of a chain of the same product,
    /// or once by an `add` that has this product as an option through that source. `conservative`: a guarded
    /// redefinition, and a value leaving the block whose register another block reads, fail
    /// too.
    #[allow(clippy::too_many_arguments)]
    fn uses_ok(
        &self,
        b: usize,
        j: usize,
        r: Reg,
        chain: &Chain,
        cands: &[Cand],
        index: &HashMap<(usize, usize), usize>,
        conservative: bool,
    ) -> bool {
        let items = &self.g.blocks[b];
        let mut killed = false;
        for (u, it) in items.iter().enumerate().skip(j + 1) {
            let n = it.reads().iter().filter(|&&x| x == r).count();
            if n > 0 && !self.dead(b, u) {
                // A link of any chain of this product (ptxas sees through the copies).
                let link = cands
                    .iter()
                    .filter(|c| c.block == b)
                    .flat_map(|c| &c.opts)
                    .any(|(_, ch)| ch.mul == chain.mul && ch.links.iter().any(|&(l, _)| l == u));
                let allowed = n == 1
                    && (link || {
                        let i = it.inst();
                        let k = i.and_then(|i| i.srcs.iter().position(|s| *s == Src::Reg(r)));
                        match (index.get(&(b, u)), k) {
                            (Some(&c), Some(k)) => cands[c]
                                .opts
                                .iter()
                                .any(|(kk, ch)| *kk == k && ch.mul == chain.mul),
                            _ => false,
                        }
                    });
                if !allowed {
                    return false;
                }
            }
            let (ws, guarded) = it.writes();
            if ws.contains(&r) {
                if !guarded {
                    killed = true;
                    break;
                }
                if conservative && !self.dead(b, u) {
                    return false;
                }
            }
        }
        if !killed {
            if self.read_after(b, r) {
                return false;
            }
            // Read around a loop back in its own block, or its register read in another block
            // (where the value may be dead).
            if conservative
                && (self.live_out[b] & bit(r) != 0
                    || self
                        .read_in
                        .iter()
                        .enumerate()
                        .any(|(o, &m)| o != b && m & bit(r) != 0))
            {
                return false;
            }
        }
        true
    }

    /// Which option each candidate fuses (`None`: none), and the candidates left undecided.
    ///
    /// A product is eligible when every use of each link of each chain reaching it passes
    /// [`Self::uses_ok`]. Each `add` prefers the eligible product that the fewest `add`s have
    /// as an option (the first source's on a tie); a product every one of whose `add`s prefers
    /// it is fused, which rules out the other options of those `add`s, whose other `add`s then
    /// prefer again. What remains (products preferring each other in a cycle) is undecided.
    fn solve(&self, cands: &[Cand], conservative: bool) -> (Vec<Option<usize>>, Vec<bool>) {
        let index: HashMap<(usize, usize), usize> = cands
            .iter()
            .enumerate()
            .map(|(n, c)| ((c.block, c.at), n))
            .collect();
        let mut users: HashMap<(usize, usize), usize> = HashMap::new();
        for c in cands {
            for (_, ch) in &c.opts {
                *users.entry((c.block, ch.mul)).or_default() += 1;
            }
        }
        let mut out: HashSet<(usize, usize)> = HashSet::new();
        for c in cands {
            // An add reading one product through both sources (two chains) fuses neither.
            if let [(_, x), (_, y)] = &c.opts[..] {
                if x.mul == y.mul {
                    out.insert((c.block, x.mul));
                }
            }
            for (_, ch) in &c.opts {
                let ok = (!conservative || !ch.long())
                    && ch.links.iter().all(|&(j, r)| {
                        self.uses_ok(c.block, j, r, ch, cands, &index, conservative)
                    });
                if !ok {
                    out.insert((c.block, ch.mul));
                }
            }
        }
        let eligible_out = out.clone();
        let mut fixed: HashSet<(usize, usize)> = HashSet::new();
        loop {
            let prefer: Vec<Option<usize>> = cands
                .iter()
                .map(|c| {
                    let alive = |ch: &Chain| !out.contains(&(c.block, ch.mul));
                    let min = c
                        .opts
                        .iter()
                        .filter(|(_, ch)| alive(ch))
                        .map(|(_, ch)| users[&(c.block, ch.mul)])
                        .min()?;
                    c.opts
                        .iter()
                        .position(|(_, ch)| alive(ch) && users[&(c.block, ch.mul)] == min)
                })
                .collect();
            let mut chosen: HashMap<(usize, usize), usize> = HashMap::new();
            for (c, p) in cands.iter().zip(&prefer) {
                if let Some(p) = p {
                    *chosen.entry((c.block, c.opts[*p].1.mul)).or_default() += 1;
                }
            }
            let new: Vec<(usize, usize)> = chosen
                .iter()
                .filter(|(m, n)| **n == users[*m] && !fixed.contains(*m))
                .map(|(m, _)| *m)
                .collect();
            if new.is_empty() {
                let mut picks: Vec<Option<usize>> = cands
                    .iter()
                    .zip(&prefer)
                    .map(|(c, p)| p.filter(|&p| fixed.contains(&(c.block, c.opts[p].1.mul))))
                    .collect();
                let undecided = cands
                    .iter()
                    .zip(&picks)
                    .map(|(c, p)| {
                        p.is_none()
                            && c.opts
                                .iter()
                                .any(|(_, ch)| !out.contains(&(c.block, ch.mul)))
                    })
                    .collect();
                let mut undecided: Vec<bool> = undecided;
                self.packed_picks(cands, &eligible_out, &users, &mut picks, &mut undecided);
                return (picks, undecided);
            }
            for m in new {
                fixed.insert(m);
                for c in cands.iter().filter(|c| c.block == m.0) {
                    if c.opts.iter().any(|(_, ch)| ch.mul == m.1) {
                        for (_, ch) in &c.opts {
                            if ch.mul != m.1 {
                                out.insert((c.block, ch.mul));
                            }
                        }
                    }
                }
            }
        }
    }

    /// The picks of the `add`s of packed types (`f16x2`, `bf16x2`), which ptxas decides one by
    /// one in program order: each takes, of its eligible products (not in `out`) none of whose
    /// other `add`s decided for something else, the one the fewest `add`s have as an option
    /// (the first source's on a tie); a later `add` taking another product does not undo it.
    fn packed_picks(
        &self,
        cands: &[Cand],
        out: &HashSet<(usize, usize)>,
        users: &HashMap<(usize, usize), usize>,
        picks: &mut [Option<usize>],
        undecided: &mut [bool],
    ) {
        let packed = |c: &Cand| {
            self.g.blocks[c.block][c.at]
                .inst()
                .and_then(|i| add_of(&i.op))
                .is_some_and(|a| matches!(a.0, Type::F16x2 | Type::Bf16x2))
        };
        let mut decided: Vec<Option<Option<usize>>> = vec![None; cands.len()];
        for (n, c) in cands.iter().enumerate() {
            if !packed(c) {
                continue;
            }
            let free = |mul: usize| {
                cands.iter().zip(&decided).all(|(d, dec)| {
                    d.block != c.block
                        || !d.opts.iter().any(|(_, ch)| ch.mul == mul)
                        || match dec {
                            None => true,
                            Some(Some(p)) => d.opts[*p].1.mul == mul,
                            Some(None) => false,
                        }
                })
            };
            let min = c
                .opts
                .iter()
                .filter(|(_, ch)| !out.contains(&(c.block, ch.mul)) && free(ch.mul))
                .map(|(_, ch)| users[&(c.block, ch.mul)])
                .min();
            let pick = min.and_then(|min| {
                c.opts.iter().position(|(_, ch)| {
                    !out.contains(&(c.block, ch.mul))
                        && free(ch.mul)
                        && users[&(c.block, ch.mul)] == min
                })
            });
            decided[n] = Some(pick);
            picks[n] = pick;
            undecided[n] = false;
        }
    }

    fn plan(&self, plans: &mut Plans, ids: &mut u32) {
        let cands = self.candidates();
        let (lenient, open_l) = self.solve(&cands, false);
        let (strict, open_s) = self.solve(&cands, true);
        let mut mul_id: HashMap<(usize, usize), u32> = HashMap::new();
        for (n, c) in cands.iter().enumerate() {
            let Some(i) = self.g.blocks[c.block][c.at].inst() else {
                continue;
            };
            let pick = |p: Option<usize>| p.map(|p| (c.opts[p].0, c.opts[p].1.mul));
            let plan = if pick(lenient[n]) != pick(strict[n]) || open_l[n] || open_s[n] {
                Plan::Unsure
            } else if let Some(p) = lenient[n] {
                let (k, ch) = &c.opts[p];
                let sub = add_of(&i.op).is_some_and(|a| a.1);
                let next = *ids;
                let id = *mul_id.entry((c.block, ch.mul)).or_insert(next);
                if id == next {
                    *ids += 1;
                    if let Some(m) = self.g.blocks[c.block][ch.mul].inst() {
                        plans.map.insert(key(m), Plan::Save(id));
                    }
                }
                Plan::Fused {
                    mul: id,
                    prod: *k as u8,
                    neg_product: ch.neg ^ (sub && *k == 1),
                    neg_addend: sub && *k == 0,
                }
            } else {
                continue;
            };
            plans.map.insert(key(i), plan);
        }
        self.folds(plans, ids);
        self.bit_fields(plans);
    }

    /// `bfe.s32` and `bfi.b32` whose position and length are immediates, constant registers,
    /// or registers whose last write before them in the block is an unguarded `mov` of an
    /// immediate (a device function's initial values are): [`Plan::BitField`].
    fn bit_fields(&self, plans: &mut Plans) {
        for (b, items) in self.g.blocks.iter().enumerate() {
            for (at, it) in items.iter().enumerate() {
                let Some(i) = it.inst() else { continue };
                let first = match i.op {
                    Operation::Bfe(It {
                        bits: 32,
                        signed: true,
                    }) => 1,
                    Operation::Bfi(32) => 2,
                    _ => continue,
                };
                let constant = |s: Src| match s {
                    Src::Reg(r) if !self.constant(s) => {
                        self.writer(b, at, r).is_some_and(|j| match &items[j] {
                            Item::Inst(m) => {
                                m.guard.is_none()
                                    && matches!(m.op, Operation::Mov(_))
                                    && matches!(m.srcs.first(), Some(Src::Imm(_)))
                            }
                            Item::Write(w) => self.init_imm & bit(*w) != 0,
                            Item::Read(_) => false,
                        })
                    }
                    s => self.constant(s),
                };
                if i.srcs[first..].iter().all(|s| constant(*s)) {
                    plans.map.insert(key(i), Plan::BitField);
                }
            }
        }
    }

    /// The NaN-sign folds of `neg`.
    fn folds(&self, plans: &mut Plans, ids: &mut u32) {
        for (b, items) in self.g.blocks.iter().enumerate() {
            let mut copies: HashSet<usize> = HashSet::new();
            for (at, it) in items.iter().enumerate() {
                let Some(i) = it.inst() else { continue };
                // The unguarded `neg` (of type `ty`, not `.ftz`, not itself a copy) that last
                // wrote `r` before `at`, directly or through unguarded moves: its index, its
                // source, and whether that is unchanged since (the `neg` itself included).
                let neg_before =
                    |r: Reg, ty: Type, copies: &HashSet<usize>| -> Option<(usize, Reg, bool)> {
                        // Through unguarded moves.
                        let mut j = self.writer(b, at, r)?;
                        for _ in 0..8 {
                            let m = items[j].inst()?;
                            match (is_move(&m.op), m.guard, m.srcs.first()) {
                                (true, None, Some(&Src::Reg(src))) => {
                                    j = self.writer(b, j, src)?;
                                }
                                _ => break,
                            }
                        }
                        let d = items[j].inst()?;
                        if d.guard.is_some()
                            || neg_of(&d.op) != Some((ty, false))
                            || ty == Type::Bf16x2
                            || copies.contains(&j)
                        {
                            return None;
                        }
                        let Src::Reg(x) = d.srcs[0] else { return None };
                        Some((j, x, (j..at).all(|k| !items[k].writes_reg(x))))
                    };
                match neg_of(&i.op) {
                    Some((ty, false)) => {
                        // A `neg` (guarded or not) of a `neg` is a copy; another guarded
                        // `neg.f32` flips the sign bit.
                        let Some((j, x, unchanged)) = (match i.srcs[0] {
                            Src::Reg(s) => neg_before(s, ty, &copies),
                            _ => None,
                        }) else {
                            if i.guard.is_some() && ty == Type::F32 {
                                plans.map.insert(key(i), Plan::SignFlip);
                            }
                            continue;
                        };
                        let plan = if unchanged {
                            Plan::Copy(x)
                        } else {
                            // The first `neg`'s source as it was there, kept by that `neg`.
                            let Some(first) = items[j].inst() else {
                                continue;
                            };
                            let id = match plans.map.get(&key(first)) {
                                Some(Plan::Save(id)) => *id,
                                _ => {
                                    let id = *ids;
                                    *ids += 1;
                                    plans.map.insert(key(first), Plan::Save(id));
                                    id
                                }
                            };
                            Plan::CopySaved(id)
                        };
                        plans.map.insert(key(i), plan);
                        copies.insert(at);
                    }
                    Some(_) => {}
                    None => {
                        if i.op != Operation::Selp(Class::F) {
                            continue;
                        }
                        let (Src::Reg(p), Src::Reg(q)) = (i.srcs[0], i.srcs[1]) else {
                            continue;
                        };
                        for (k, n, x) in [(0u8, p, q), (1, q, p)] {
                            if neg_before(n, Type::F32, &copies)
                                .is_some_and(|(_, src, same)| same && src == x)
                            {
                                plans.map.insert(key(i), Plan::SelectNeg { neg: k });
                                break;
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(idx: u8) -> Reg {
        Reg {
            class: Class::F,
            idx,
        }
    }

    fn i(op: Operation, dst: Reg, srcs: &[Src]) -> Node {
        Node::Inst(Inst {
            guard: None,
            op,
            dst,
            dst2: None,
            srcs: srcs.to_vec(),
            neg_pred: false,
        })
    }

    fn guarded(n: Node) -> Node {
        match n {
            Node::Inst(mut i) => {
                i.guard = Some((0, false));
                Node::Inst(i)
            }
            n => n,
        }
    }

    fn bin(op: Fop) -> Operation {
        Operation::Fbin {
            op,
            ft: Type::F32,
            rnd: None,
            ftz: false,
            sat: false,
        }
    }

    fn r(idx: u8) -> Src {
        Src::Reg(f(idx))
    }

    /// The plans of the instructions of a kernel that stores `outputs`, in program order.
    fn plans(body: Vec<Node>, outputs: &[u8]) -> Vec<Option<Plan>> {
        let p = Program {
            body,
            init: Vec::new(),
            pools: [[0; 16]; 5],
            outputs: outputs.iter().map(|&k| f(k)).collect(),
            block: 32,
            grid: 1,
            funcs: Vec::new(),
            exit: None,
        };
        let plans = Plans::of(&p);
        p.insts().iter().map(|i| plans.get(i)).collect()
    }

    fn fused(prod: u8, neg_product: bool, neg_addend: bool) -> Option<Plan> {
        Some(Plan::Fused {
            mul: 0,
            prod,
            neg_product,
            neg_addend,
        })
    }

    #[test]
    fn product_written_over_fuses() {
        let mul = i(bin(Fop::Mul), f(1), &[r(2), r(3)]);
        let add = i(bin(Fop::Add), f(1), &[r(4), r(1)]);
        let got = plans(vec![mul.clone(), add.clone()], &[1]);
        assert_eq!(got, vec![Some(Plan::Save(0)), fused(1, false, false)]);
        // `sub p, c` negates the addend, `sub c, p` the product; a `neg` between negates it.
        let sub = i(bin(Fop::Sub), f(1), &[r(1), r(4)]);
        let got = plans(vec![mul.clone(), sub], &[1]);
        assert_eq!(got[1], fused(0, false, true));
        let neg = i(
            Operation::Fneg {
                ft: Type::F32,
                ftz: false,
            },
            f(1),
            &[r(1)],
        );
        let sub = i(bin(Fop::Sub), f(1), &[r(4), r(1)]);
        let got = plans(vec![mul.clone(), neg, sub], &[1]);
        assert_eq!(got[2], fused(1, false, false));
        // A guarded add fuses (but where it writes over the product, lanes where the guard
        // fails keep the product: it is still stored); a guarded mul does not.
        let other = i(bin(Fop::Add), f(5), &[r(4), r(1)]);
        let kill = i(Operation::Mov(Class::F), f(1), &[r(0)]);
        let got = plans(vec![mul.clone(), guarded(other), kill], &[1, 5]);
        assert_eq!(got[1], fused(1, false, false));
        let got = plans(vec![mul.clone(), guarded(add.clone())], &[1]);
        assert_eq!(got[1], None);
        let got = plans(vec![guarded(mul.clone()), add.clone()], &[1]);
        assert_eq!(got, vec![None, None]);
    }

    #[test]
    fn product_with_another_use_stays_rounded() {
        let mul = i(bin(Fop::Mul), f(1), &[r(2), r(3)]);
        // Stored at the end.
        let add = i(bin(Fop::Add), f(5), &[r(4), r(1)]);
        assert_eq!(plans(vec![mul.clone(), add], &[1, 5]), vec![None, None]);
        // Read twice by one add.
        let add = i(bin(Fop::Add), f(1), &[r(1), r(1)]);
        assert_eq!(plans(vec![mul.clone(), add], &[1]), vec![None, None]);
        // Also multiplied.
        let add = i(bin(Fop::Add), f(5), &[r(4), r(1)]);
        let mul2 = i(bin(Fop::Mul), f(1), &[r(1), r(2)]);
        assert_eq!(
            plans(vec![mul.clone(), add, mul2], &[1, 5]),
            vec![None, None, None]
        );
        // A product of two immediates is folded by ptxas.
        let imm = i(
            bin(Fop::Mul),
            f(1),
            &[Src::Imm(0x3f80_0000), Src::Imm(0x4000_0000)],
        );
        let add = i(bin(Fop::Add), f(1), &[r(4), r(1)]);
        assert_eq!(plans(vec![imm, add], &[1]), vec![None, None]);
    }

    #[test]
    fn first_of_two_products_fuses() {
        let m1 = i(bin(Fop::Mul), f(1), &[r(2), r(3)]);
        let m2 = i(bin(Fop::Mul), f(4), &[r(2), r(3)]);
        let add = i(bin(Fop::Add), f(1), &[r(1), r(4)]);
        let kill = i(Operation::Mov(Class::F), f(4), &[r(0)]);
        let got = plans(vec![m1.clone(), m2.clone(), add, kill], &[1, 4]);
        assert_eq!(got[2], fused(0, false, false));
        // The first product lives on: the second fuses.
        let add = i(bin(Fop::Add), f(4), &[r(1), r(4)]);
        let got = plans(vec![m1, m2, add], &[1, 4]);
        assert_eq!(got[2], fused(1, false, false));
    }

    #[test]
    fn open_cases_are_unknown() {
        let mul = i(bin(Fop::Mul), f(1), &[r(2), r(3)]);
        let add = i(bin(Fop::Add), f(5), &[r(4), r(1)]);
        // Read again at the top of a loop body (the next iteration).
        let top = i(bin(Fop::Add), f(0), &[r(1), r(4)]);
        let body = vec![Node::Loop {
            trips: Trips::Const(2),
            body: vec![top, mul.clone(), add.clone()],
        }];
        assert_eq!(plans(body, &[0, 5])[2], Some(Plan::Unsure));
        // Live after its block, but written over before any read.
        let body = vec![
            Node::If {
                cond: Cond::LaneBelow(3),
                then: vec![mul, add],
                els: Vec::new(),
            },
            i(Operation::Mov(Class::F), f(1), &[r(0)]),
        ];
        assert_eq!(plans(body, &[1, 5])[1], Some(Plan::Unsure));
    }

    #[test]
    fn adds_take_the_product_fewer_adds_take() {
        let mul = |d: u8, a: u8, b: u8| i(bin(Fop::Mul), f(d), &[r(a), r(b)]);
        let add = |d: u8, a: u8, b: u8| i(bin(Fop::Add), f(d), &[r(a), r(b)]);
        let fused_as = |mul: u32, prod: u8| {
            Some(Plan::Fused {
                mul,
                prod,
                neg_product: false,
                neg_addend: false,
            })
        };
        // f1 has two adds, f4 one: the shared add takes f4, and f1 stays rounded everywhere.
        let body = vec![mul(1, 2, 3), mul(4, 0, 0), add(5, 1, 4), add(6, 1, 2)];
        let got = plans(body, &[5, 6]);
        assert_eq!(got, vec![None, Some(Plan::Save(0)), fused_as(0, 1), None]);
        // f1 loses its second add to f6 (one add): the first add falls back to f4, which then
        // has all three of its adds.
        let body = vec![
            mul(1, 2, 3),
            mul(4, 0, 0),
            mul(6, 2, 0),
            add(5, 4, 1),
            add(7, 1, 6),
            add(3, 4, 2),
            add(2, 4, 0),
        ];
        let got = plans(body, &[5, 7, 3, 2]);
        assert_eq!(
            got,
            vec![
                None,
                Some(Plan::Save(0)),
                Some(Plan::Save(1)),
                fused_as(0, 0),
                fused_as(1, 1),
                fused_as(0, 0),
                fused_as(0, 0)
            ]
        );
        // A move of the product whose result is written over before any read is no use.
        let mov = |d: u8, s: u8| i(Operation::Mov(Class::F), f(d), &[r(s)]);
        let body = vec![mul(1, 2, 3), mov(4, 1), mov(4, 0), add(5, 1, 4)];
        let got = plans(body, &[5, 4]);
        assert_eq!(got, vec![Some(Plan::Save(0)), None, None, fused_as(0, 0)]);
        // Nor is a move of a register to itself, guarded or not.
        let body = vec![mul(1, 2, 3), guarded(mov(1, 1)), mov(1, 1), add(5, 1, 4)];
        let got = plans(body, &[5]);
        assert_eq!(got, vec![Some(Plan::Save(0)), None, None, fused_as(0, 0)]);
    }

    #[test]
    fn neg_folds() {
        let neg = |d: u8, s: u8| {
            i(
                Operation::Fneg {
                    ft: Type::F32,
                    ftz: false,
                },
                f(d),
                &[r(s)],
            )
        };
        let got = plans(vec![neg(1, 2), neg(3, 1)], &[3]);
        assert_eq!(got, vec![None, Some(Plan::Copy(f(2)))]);
        // The first neg overwrites its operand: it keeps the old value for the second.
        let got = plans(vec![neg(2, 2), neg(3, 2)], &[3]);
        assert_eq!(got, vec![Some(Plan::Save(0)), Some(Plan::CopySaved(0))]);
        let got = plans(vec![guarded(neg(3, 2))], &[3]);
        assert_eq!(got, vec![Some(Plan::SignFlip)]);
        // A guarded neg of a neg is a (guarded) copy, not a sign flip.
        let got = plans(vec![neg(1, 2), guarded(neg(3, 1))], &[3]);
        assert_eq!(got, vec![None, Some(Plan::Copy(f(2)))]);
        // Not for bf16x2, whose neg is an HFMA2 that makes NaNs canonical.
        let hneg = |d: u8, s: u8| {
            i(
                Operation::Hsign {
                    abs: false,
                    hf: Type::Bf16,
                    x2: true,
                    ftz: false,
                },
                Reg {
                    class: Class::R,
                    idx: d,
                },
                &[Src::Reg(Reg {
                    class: Class::R,
                    idx: s,
                })],
            )
        };
        assert_eq!(plans(vec![hneg(1, 2), hneg(3, 1)], &[]), vec![None, None]);
        let p = Src::Reg(Reg {
            class: Class::P,
            idx: 1,
        });
        let selp = i(Operation::Selp(Class::F), f(3), &[r(2), r(1), p]);
        let got = plans(vec![neg(1, 2), selp], &[3]);
        assert_eq!(got[1], Some(Plan::SelectNeg { neg: 1 }));
    }

    #[test]
    fn bit_field_folds_as_measured() {
        // bitfold.bfe.s32.imm.40 and .reg.300 (position 44): all ones for any length but 0.
        assert_eq!(bit_field_fold(false, 40, 8), None);
        assert_eq!(bit_field_fold(false, 300, 1), None);
        assert_eq!(bit_field_fold(false, 40, 256), Some(0));
        assert_eq!(bit_field_fold(false, 31, 200), Some(200));
        // bitfold.bfi.b32.reg.3: 300 keeps 44, which inserts 12 bits; at position 8 the ISA's
        // reading holds.
        assert_eq!(bit_field_fold(true, 3, 300), Some(12));
        assert_eq!(bit_field_fold(true, 3, 32), Some(0));
        assert_eq!(bit_field_fold(true, 8, 33), Some(33));
        assert_eq!(bit_field_fold(true, 40, 33), Some(33));
    }
}
