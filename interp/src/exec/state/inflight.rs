//! The asynchronous operations in flight and the records that watch their bytes: each
//! operation's parts and sources, the async-groups, the shared-memory shadow of a cluster and
//! the global ranges of a launch, with the queries and marks on them and the descriptions of an
//! operation for messages. `exec/inflight.rs` describes the model and issues and completes the
//! operations.

use crate::code::FuncId;
use crate::error::{Site, Thread};
use crate::load::Program;
use ptx_ir_core::{Op as RedOp, Type};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Identifies an operation (unique in a launch).
pub type OpId = u64;

/// A place in memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Loc {
    /// Shared memory of the CTA with cluster rank `rank`, at byte `off`.
    Shared {
        /// Cluster rank.
        rank: u32,
        /// Byte offset.
        off: u32,
    },
    /// Global memory.
    Global(u64),
}

/// An element-wise reduction applied at the destination (`cp.reduce.async.bulk`).
#[derive(Copy, Clone, Debug)]
pub struct Reduce {
    /// The operation.
    pub op: RedOp,
    /// The element type.
    pub ty: Type,
}

/// One destination chunk of an operation.
#[derive(Clone, Debug)]
pub struct Part {
    /// Where the bytes go.
    pub dest: Loc,
    /// The bytes (the source data read at issue).
    pub data: Vec<u8>,
    /// `.cp_mask`: bit i of the mask says whether byte i of each 16-byte chunk is written.
    pub byte_mask: Option<u16>,
    /// Reduce into the destination instead of writing it.
    pub reduce: Option<Reduce>,
    /// mbarrier (rank, offset) that receives a complete-tx of `tx` bytes on completion.
    pub mbar: Option<(u32, u32)>,
    /// Transaction bytes.
    pub tx: u32,
}

/// A source range read by an operation.
#[derive(Copy, Clone, Debug)]
pub enum Src {
    /// Shared memory of CTA `rank`.
    Shared {
        /// Cluster rank.
        rank: u32,
        /// Byte offset.
        off: u32,
        /// Bytes.
        len: u32,
    },
    /// Global memory.
    Global {
        /// First byte.
        addr: u64,
        /// Bytes.
        len: u64,
    },
}

/// How a bulk copy's completion is tracked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Track {
    /// Bulk async-groups.
    Bulk,
    /// The mbarriers of its parts.
    Mbar,
}

/// Who issued an operation, for messages and the race check.
#[derive(Clone, Debug)]
pub struct Issuer {
    /// Function of the instruction.
    pub func: FuncId,
    /// Its pc.
    pub pc: u32,
    /// Coordinates.
    pub thread: Thread,
    /// Its CTA's rank in the cluster and its warp's index in the CTA.
    pub warp: [u32; 2],
    /// With the race check, the warp's vector clock at the issue (`Race::snapshot`): what
    /// the operation's accesses come after. Empty otherwise.
    pub race: Vec<u32>,
}

/// An operation in flight.
#[derive(Clone, Debug)]
pub struct Op {
    /// Its id.
    pub id: OpId,
    /// The issuing thread and instruction.
    pub issuer: Issuer,
    /// Destination chunks.
    pub parts: Vec<Part>,
    /// Source ranges still being read.
    pub srcs: Vec<Src>,
}

/// A `cp.async.mbarrier.arrive`: an arrive-on that happens when the listed operations are done.
#[derive(Clone, Debug)]
pub struct AsyncArrive {
    /// The mbarrier (rank, offset).
    pub mbar: (u32, u32),
    /// The operations it waits for.
    pub ops: Vec<OpId>,
    /// The issuing thread and instruction.
    pub issuer: Issuer,
}

/// A thread's async-groups of one kind.
#[derive(Clone, Debug, Default)]
pub struct Groups {
    /// Operations not yet committed.
    pub uncommitted: Vec<OpId>,
    /// Committed groups, oldest first.
    pub groups: VecDeque<Vec<OpId>>,
}

/// Per-word shadow state of one CTA's shared memory.
#[derive(Clone, Debug, Default)]
pub struct Shadow {
    w: Vec<u16>,
    r: Vec<u16>,
    mbar: Vec<bool>,
}

/// What a generic access ran into.
#[derive(Copy, Clone, Debug)]
pub enum Conflict {
    /// The bytes are the destination of an operation in flight.
    PendingWrite,
    /// The bytes are the source of an operation in flight (writes only).
    PendingRead,
    /// The bytes hold an initialised mbarrier object.
    Mbarrier,
}

/// In-flight global ranges of a launch (all clusters).
#[derive(Clone, Debug, Default)]
pub struct GlobalWatch {
    /// `[lo, hi)` written by an operation in flight.
    pub writes: Vec<(u64, u64, OpId)>,
    /// `[lo, hi)` read by an operation in flight.
    pub reads: Vec<(u64, u64, OpId)>,
}

impl GlobalWatch {
    /// Whether nothing is watched.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty() && self.reads.is_empty()
    }

    /// The operation an access of `[a, a + n)` conflicts with.
    pub fn check(&self, a: u64, n: u64, write: bool) -> Option<(Conflict, OpId)> {
        let hit = |&&(lo, hi, _): &&(u64, u64, OpId)| a < hi && lo < a.saturating_add(n);
        if let Some(&(_, _, id)) = self.writes.iter().find(hit) {
            return Some((Conflict::PendingWrite, id));
        }
        if write {
            if let Some(&(_, _, id)) = self.reads.iter().find(hit) {
                return Some((Conflict::PendingRead, id));
            }
        }
        None
    }

    /// Forgets operation `id`'s ranges (only those it reads with `reads_only`). The ranges are
    /// pushed as operations issue, so both lists are in the order of their ids.
    pub fn remove(&mut self, id: OpId, reads_only: bool) {
        let drop = |v: &mut Vec<(u64, u64, OpId)>| {
            let lo = v.partition_point(|r| r.2 < id);
            let hi = lo + v[lo..].partition_point(|r| r.2 == id);
            v.drain(lo..hi);
        };
        drop(&mut self.reads);
        if !reads_only {
            drop(&mut self.writes);
        }
    }
}

/// The asynchronous state of one cluster.
#[derive(Clone, Debug, Default)]
pub struct Inflight {
    /// Operations in flight by id (ids are given in issue order).
    pub ops: std::collections::BTreeMap<OpId, Op>,
    /// cp.async-groups per thread (rank, tix).
    pub cp: FxHashMap<(u32, u32), Groups>,
    /// Bulk async-groups per thread (rank, tix).
    pub bulk: FxHashMap<(u32, u32), Groups>,
    /// Pending `cp.async.mbarrier.arrive`s.
    pub arrives: Vec<AsyncArrive>,
    /// Shadow of each CTA's shared memory (empty until something is watched).
    pub shadow: Vec<Shadow>,
    /// Whether generic shared accesses must be checked.
    pub watch: bool,
}

fn words(off: u32, len: u32) -> std::ops::Range<usize> {
    let lo = off as usize / 4;
    let hi = (off as usize + len as usize).div_ceil(4);
    lo..hi
}

impl Inflight {
    /// Makes the shadow exist (one per CTA, sized to its shared memory).
    pub fn ensure_shadow(&mut self, sizes: &[usize]) {
        if self.shadow.is_empty() {
            self.shadow = sizes
                .iter()
                .map(|&s| {
                    let n = s.div_ceil(4);
                    Shadow {
                        w: vec![0; n],
                        r: vec![0; n],
                        mbar: vec![false; n],
                    }
                })
                .collect();
        }
        self.watch = true;
    }

    /// The conflict of a generic access to CTA `rank`'s shared memory, if any.
    pub fn check_shared(&self, rank: u32, off: u32, len: u32, write: bool) -> Option<Conflict> {
        let s = self.shadow.get(rank as usize)?;
        for i in words(off, len) {
            if s.mbar.get(i).copied().unwrap_or(false) {
                return Some(Conflict::Mbarrier);
            }
            if s.w.get(i).copied().unwrap_or(0) > 0 {
                return Some(Conflict::PendingWrite);
            }
            if write && s.r.get(i).copied().unwrap_or(0) > 0 {
                return Some(Conflict::PendingRead);
            }
        }
        None
    }

    /// The operation in flight that writes (or, with `reads`, reads) shared byte range.
    pub fn op_at(&self, rank: u32, off: u32, len: u32, reads: bool) -> Option<&Op> {
        let hit = |o: u32, l: u32| off < o + l && o < off + len;
        self.ops.values().find(|op| {
            op.parts.iter().any(|p| match p.dest {
                Loc::Shared { rank: r, off: o } => r == rank && hit(o, p.data.len() as u32),
                Loc::Global(_) => false,
            }) || (reads
                && op.srcs.iter().any(|s| match *s {
                    Src::Shared {
                        rank: r,
                        off: o,
                        len: l,
                    } => r == rank && hit(o, l),
                    Src::Global { .. } => false,
                }))
        })
    }

    /// Marks or unmarks the mbarrier object at (rank, off).
    pub fn set_mbar(&mut self, rank: u32, off: u32, on: bool) {
        if let Some(s) = self.shadow.get_mut(rank as usize) {
            for i in words(off, 8) {
                if let Some(m) = s.mbar.get_mut(i) {
                    *m = on;
                }
            }
        }
    }

    /// Counts (`up`) or uncounts a pending write (`write`) or read of a shared byte range.
    pub fn mark(&mut self, rank: u32, off: u32, len: u32, write: bool, up: bool) {
        if let Some(s) = self.shadow.get_mut(rank as usize) {
            let v = if write { &mut s.w } else { &mut s.r };
            for i in words(off, len) {
                if let Some(c) = v.get_mut(i) {
                    *c = if up {
                        c.saturating_add(1)
                    } else {
                        c.saturating_sub(1)
                    };
                }
            }
        }
    }

    /// Whether some byte of a shared range is a pending write.
    pub fn pending_w(&self, rank: u32, off: u32, len: u32) -> bool {
        self.shadow
            .get(rank as usize)
            .is_some_and(|s| words(off, len).any(|i| s.w.get(i).copied().unwrap_or(0) > 0))
    }

    /// The groups of a thread.
    pub fn groups(&mut self, bulk: bool, key: (u32, u32)) -> &mut Groups {
        if bulk {
            self.bulk.entry(key).or_default()
        } else {
            self.cp.entry(key).or_default()
        }
    }
}

/// The site of an operation's instruction.
pub fn issuer_site(prog: &Program, i: &Issuer) -> Site {
    Site {
        function: prog
            .funcs
            .get(i.func as usize)
            .map(|f| f.name.clone())
            .unwrap_or_default(),
        index: i.pc,
        inst: prog.inst_text(i.func, i.pc),
    }
}

/// Describes an operation for messages: "`inst` (issued by lane ...)".
pub fn describe(prog: &Program, op: &Op) -> String {
    format!(
        "`{}` issued by {}",
        prog.inst_text(op.issuer.func, op.issuer.pc),
        op.issuer.thread
    )
}

#[cfg(test)]
mod tests {
    use super::GlobalWatch;

    #[test]
    fn removing_an_operation_forgets_exactly_its_ranges() {
        let mut g = GlobalWatch::default();
        for (id, lo) in [(1, 0), (2, 16), (2, 64), (3, 32), (5, 8)] {
            g.reads.push((lo, lo + 8, id));
            g.writes.push((lo + 100, lo + 108, id));
        }
        g.remove(2, true);
        assert_eq!(g.reads.iter().map(|r| r.2).collect::<Vec<_>>(), [1, 3, 5]);
        assert_eq!(g.writes.len(), 5);
        g.remove(4, false);
        g.remove(5, false);
        g.remove(1, false);
        assert_eq!(g.reads, [(32, 40, 3)]);
        assert_eq!(g.writes.iter().map(|r| r.2).collect::<Vec<_>>(), [2, 2, 3]);
        assert!(g.check(36, 1, false).is_none());
        assert!(g.check(36, 1, true).is_some());
    }
}
