//! The structured program: instructions ([`Inst`]), nodes of the structured body ([`Node`]:
//! branches, switches, loops, CTA barriers), device functions ([`Func`]) and the whole
//! generated test ([`Program`]) with its input pools, stored registers and launch shape; and
//! the instruction families ([`SimtFamily`]) a swarm configuration turns on and off.
//!
//! Registers come in classes ([`Class`]); every register is initialised from the input pool
//! before the body runs, so no instruction reads an undefined value. Control flow is structured
//! ([`Node::If`], [`Node::Loop`]) so that the set of lanes executing each region is known
//! statically; warp-synchronous instructions name exactly that set as their membermask.

use super::op::Operation;
use super::reg::{Class, Reg, Src};
use super::sig::{is_generic, is_mem};

/// Instruction families (the unit of swarm configuration and of the README table).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SimtFamily {
    /// Integer arithmetic.
    Int,
    /// Bit manipulation.
    Bits,
    /// Logic and shifts.
    Logic,
    /// Comparison and selection.
    Cmp,
    /// Single- and double-precision arithmetic.
    Float,
    /// Approximate single-precision functions (three-way agreement only).
    Approx,
    /// Conversions and moves.
    Cvt,
    /// Warp-synchronous instructions.
    Warp,
    /// Extended-precision arithmetic: chains of `.cc` producers and `addc`/`subc`/`madc`
    /// consumers of the carry flag.
    Carry,
    /// Half-precision (`f16`, `bf16`, scalar and packed) arithmetic and conversions.
    Half,
    /// Shared-memory loads and stores (own and other threads' slots, vector widths), CTA
    /// barriers, and atomics on shared and global memory.
    Mem,
    /// Calls of generated device functions with `.param` arguments and return value.
    Call,
    /// CTA barriers: `bar.sync`/`barrier.sync{.aligned}` with barrier numbers and thread
    /// counts, barriers inside uniform loops, and `bar.red.popc`/`.and`/`.or`.
    Barrier,
    /// Generic addressing: `cvta` to and from the state spaces, `isspacep`, and the memory
    /// family's loads, stores and atomics through generic addresses.
    Generic,
    /// Cache and scheduling hints and other instructions without effect on values: `ldu`,
    /// `ld.global.nc`, `createpolicy` with `.L2::cache_hint` loads, `prefetch{u}`,
    /// `applypriority`, `discard`, `membar`/`fence`, `nanosleep`, `pmevent`, `griddepcontrol`,
    /// `setmaxnreg`; and the integer `cvt.pack`.
    Hint,
}

impl SimtFamily {
    /// Every family.
    pub const ALL: [SimtFamily; 15] = [
        SimtFamily::Int,
        SimtFamily::Bits,
        SimtFamily::Logic,
        SimtFamily::Cmp,
        SimtFamily::Float,
        SimtFamily::Approx,
        SimtFamily::Cvt,
        SimtFamily::Warp,
        SimtFamily::Carry,
        SimtFamily::Half,
        SimtFamily::Mem,
        SimtFamily::Call,
        SimtFamily::Generic,
        SimtFamily::Barrier,
        SimtFamily::Hint,
    ];
}

/// One generated instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// `@p` / `@!p`: predicate register and negation.
    pub guard: Option<(u8, bool)>,
    /// The operation.
    pub op: Operation,
    /// The destination.
    pub dst: Reg,
    /// A second destination (`p|q` of `setp`, `d|p` of `shfl`/`match`).
    pub dst2: Option<Reg>,
    /// The sources, in operand order (the membermask of warp instructions is not listed: it
    /// is the region's mask).
    pub srcs: Vec<Src>,
    /// Negation of a predicate source (`setp` `c`, `vote` `a`).
    pub neg_pred: bool,
}

/// A branch condition.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// A predicate register, possibly negated.
    Pred(u8, bool),
    /// `%laneid < k`
    LaneBelow(u32),
    /// bit `k` of `%laneid` set
    LaneBit(u32),
    /// `%tid.x >= 32`: every warp but the first (the consumers after a [`Bar::Arrive`]).
    Consumer,
}

/// The selector of a [`Node::Switch`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sel {
    /// `%r<idx>`
    Reg(u8),
    /// `%laneid`
    Lane,
}

/// Where a loop's trip count comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Trips {
    /// The same count `k` for every lane (uniform).
    Const(u32),
    /// `(r & 3) + k` for register `%r<idx>`.
    Reg(u8, u32),
    /// `(%laneid & 3) + k`.
    Lane(u32),
}

/// A CTA-wide barrier over all the CTA's threads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bar {
    /// `bar.sync 0`
    Sync,
    /// `barrier.sync{.aligned} ID` or `bar.sync ID, ntid` (the explicit thread count is the
    /// whole CTA's).
    SyncId {
        /// Barrier number (0 to 15).
        id: u8,
        /// `barrier.sync` rather than `bar.sync`.
        barrier: bool,
        /// `.aligned` (with `barrier`).
        aligned: bool,
        /// Thread count operand (the CTA's size).
        count: bool,
    },
    /// `bar.arrive ID, ntid` in the first warp (producers, which do not wait) and
    /// `bar.sync ID, ntid` in the others (consumers): always followed by a region that only
    /// the consumers run ([`Cond::Consumer`]) and a full barrier, so that the producers touch
    /// nothing between their arrival and that barrier.
    Arrive {
        /// Barrier number (1 to 15).
        id: u8,
    },
    /// `bar.red.popc.u32 %r<d>, ID, {!}%p<p>` or `bar.red.(and|or).pred %p<d>, ID, {!}%p<p>`:
    /// the reduction over the CTA's threads of their predicates.
    Red {
        /// The reduction.
        op: BarRed,
        /// Barrier number.
        id: u8,
        /// Destination register index (`%r` for `popc`, `%p` otherwise).
        d: u8,
        /// Predicate source index.
        p: u8,
        /// Negated predicate source.
        neg: bool,
    },
}

/// `bar.red` reductions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BarRed {
    /// `.popc.u32`: how many threads' predicates are true.
    Popc,
    /// `.and.pred`
    And,
    /// `.or.pred`
    Or,
}

impl Bar {
    /// The register a reduction writes, and the one it reads.
    pub fn regs(self) -> Option<(Reg, Reg)> {
        match self {
            Bar::Red { op, d, p, .. } => Some((
                Reg {
                    class: if op == BarRed::Popc {
                        Class::R
                    } else {
                        Class::P
                    },
                    idx: d,
                },
                Reg {
                    class: Class::P,
                    idx: p,
                },
            )),
            _ => None,
        }
    }
}

/// A node of the structured body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// An instruction.
    Inst(Inst),
    /// A two-way branch that reconverges after both arms.
    If {
        /// The condition.
        cond: Cond,
        /// Lanes where it holds.
        then: Vec<Node>,
        /// The others.
        els: Vec<Node>,
    },
    /// A multi-way branch through `brx.idx`: lanes run arm `value % arms.len()` of the
    /// selector, and reconverge after the last arm.
    Switch {
        /// The selector.
        sel: Sel,
        /// Two to four arms.
        arms: Vec<Vec<Node>>,
    },
    /// A CTA barrier (only where the whole CTA is converged: the top level and uniform loops
    /// there): ends a segment of the shared-memory protocol.
    Barrier(Bar),
    /// A bounded loop.
    Loop {
        /// Trip count per lane.
        trips: Trips,
        /// The body.
        body: Vec<Node>,
    },
}

/// A generated device function `.func (.param RET r) fK(.param P0 a0, ...)`: its registers
/// start as `init` (parameter `k` in register `k` of its class), it runs `body` (straight
/// line: no warp instructions, memory or carry flag), and returns `result`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    /// Parameter classes.
    pub params: Vec<Class>,
    /// Initial values of the other registers.
    pub init: Vec<(Reg, u64)>,
    /// The body.
    pub body: Vec<Node>,
    /// The returned register.
    pub result: Reg,
}

impl Func {
    /// The registers the function reads or writes.
    pub fn used(&self) -> Vec<Reg> {
        let p = Program {
            body: self.body.clone(),
            init: Vec::new(),
            pools: [[0; 16]; 5],
            outputs: vec![self.result],
            block: 32,
            grid: 1,
            funcs: Vec::new(),
            exit: None,
        };
        p.used()
    }
}

/// A whole generated test: the kernel body, its input pool, which registers it stores and the
/// launch shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The body.
    pub body: Vec<Node>,
    /// For each register of each class in [`Class::ALL`] order, the pool index multiplier and
    /// offset of its initial value: register `i` of class `c` starts as
    /// `pool_c[(gid * mul + add) % 16]` (predicates: bit 0 of the 32-bit pool).
    pub init: Vec<(Reg, u32, u32)>,
    /// The 16-entry pools, per class (`H`, `R`, `D`, `F`, `Fd`), as raw bits.
    pub pools: [[u64; 16]; 5],
    /// Registers stored to the output after the body, in record order.
    pub outputs: Vec<Reg>,
    /// Threads per CTA (a multiple of 32).
    pub block: u32,
    /// CTAs.
    pub grid: u32,
    /// Device functions the body calls.
    pub funcs: Vec<Func>,
    /// `exit` after the body (before the stores) in the threads where this holds: their
    /// records stay zero.
    pub exit: Option<Cond>,
}

impl Program {
    /// Every register the body reads or writes, or the epilogue stores.
    pub fn used(&self) -> Vec<Reg> {
        fn walk(ns: &[Node], out: &mut Vec<Reg>) {
            for n in ns {
                match n {
                    Node::Inst(i) => {
                        out.push(i.dst);
                        out.extend(i.dst2);
                        if let Some((p, _)) = i.guard {
                            out.push(Reg {
                                class: Class::P,
                                idx: p,
                            });
                        }
                        for s in &i.srcs {
                            if let Src::Reg(r) = s {
                                out.push(*r);
                            }
                        }
                    }
                    Node::If { cond, then, els } => {
                        if let Cond::Pred(p, _) = cond {
                            out.push(Reg {
                                class: Class::P,
                                idx: *p,
                            });
                        }
                        walk(then, out);
                        walk(els, out);
                    }
                    Node::Loop { trips, body } => {
                        if let Trips::Reg(r, _) = trips {
                            out.push(Reg {
                                class: Class::R,
                                idx: *r,
                            });
                        }
                        walk(body, out);
                    }
                    Node::Switch { sel, arms } => {
                        if let Sel::Reg(r) = sel {
                            out.push(Reg {
                                class: Class::R,
                                idx: *r,
                            });
                        }
                        for a in arms {
                            walk(a, out);
                        }
                    }
                    Node::Barrier(b) => {
                        if let Some((d, p)) = b.regs() {
                            out.push(d);
                            out.push(p);
                        }
                    }
                }
            }
        }
        let mut out = self.outputs.clone();
        walk(&self.body, &mut out);
        if let Some(Cond::Pred(p, _)) = self.exit {
            out.push(Reg {
                class: Class::P,
                idx: p,
            });
        }

        if self.uses_mem() {
            // The prologue fills the shared slots and cells from these.
            out.extend((0..5).map(|idx| Reg {
                class: Class::D,
                idx,
            }));
        }
        for i in self.insts() {
            if let Operation::St { vec, class, .. } | Operation::Ld { vec, class, .. } = i.op {
                let first = match (i.op, i.srcs.first()) {
                    (Operation::St { .. }, Some(Src::Reg(r))) => r.idx,
                    _ => i.dst.idx,
                };
                out.extend((0..vec).map(|k| Reg {
                    class,
                    idx: (first + k) % class.count(),
                }));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Every instruction (recursively, in program order).
    pub fn insts(&self) -> Vec<&Inst> {
        fn walk<'a>(ns: &'a [Node], out: &mut Vec<&'a Inst>) {
            for n in ns {
                match n {
                    Node::Inst(i) => out.push(i),
                    Node::If { then, els, .. } => {
                        walk(then, out);
                        walk(els, out);
                    }
                    Node::Loop { body, .. } => walk(body, out),
                    Node::Switch { arms, .. } => {
                        for a in arms {
                            walk(a, out);
                        }
                    }
                    Node::Barrier(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// Whether the body has a barrier (at the top level or in a loop there).
    pub fn has_barrier(&self) -> bool {
        fn walk(ns: &[Node]) -> bool {
            ns.iter().any(|n| match n {
                Node::Barrier(_) => true,
                Node::Loop { body, .. } => walk(body),
                _ => false,
            })
        }
        walk(&self.body)
    }

    /// Whether the kernel uses shared or global scratch memory (then its prologue fills the
    /// shared slots and cells, and the output buffer has a scratch area after the records).
    pub fn uses_mem(&self) -> bool {
        self.has_barrier()
            || self
                .insts()
                .iter()
                .any(|i| is_mem(&i.op) || is_generic(&i.op))
    }

    /// Bytes of the output buffer: the records, then (when [`Program::uses_mem`]) an 8-byte
    /// global scratch word per thread and four 8-byte global cells.
    pub fn out_len(&self) -> u32 {
        let (_, rec) = self.record_layout();
        let threads = self.block * self.grid;
        rec * threads + if self.uses_mem() { 8 * threads + 32 } else { 0 }
    }

    /// Number of instructions (recursively).
    pub fn instruction_count(&self) -> usize {
        fn count(ns: &[Node]) -> usize {
            ns.iter()
                .map(|n| match n {
                    Node::Inst(_) => 1,
                    Node::If { then, els, .. } => count(then) + count(els),
                    Node::Loop { body, .. } => count(body),
                    Node::Switch { arms, .. } => arms.iter().map(|a| count(a)).sum(),
                    Node::Barrier(_) => 0,
                })
                .sum()
        }
        count(&self.body)
    }

    /// Bytes of output per thread, with each register at its natural alignment.
    pub fn record_layout(&self) -> (Vec<u32>, u32) {
        let mut offs = Vec::with_capacity(self.outputs.len());
        let mut at = 0u32;
        for r in &self.outputs {
            let size = match r.class {
                Class::P => 1,
                c => c.bits() / 8,
            };
            at = at.div_ceil(size) * size;
            offs.push(at);
            at += size;
        }
        (offs, at.div_ceil(8) * 8)
    }
}
