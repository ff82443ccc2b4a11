//! Tile-mode tensor copies: `cp.async.bulk.tensor.{1d..5d}` global -> shared
//! (`.mbarrier::complete_tx::bytes`), shared -> global (`.bulk_group`),
//! `cp.reduce.async.bulk.tensor` (integer maps) and `cp.async.bulk.prefetch.tensor`, over random
//! tensor maps supplied at launch (`tmap:` arguments; PTX ISA 5.5 "Tensors", 9.7.9.27).
//!
//! Each kernel takes two maps after its buffers: `tm0` over the input buffer (loads,
//! prefetches) and `tm1` over the output's scratch area (stores, reductions). A map has a random
//! element type, rank 1-5, dims, byte strides (multiples of 16, rows not overlapping), box
//! (inner box bytes a multiple of 16, at most 256 elements per dimension), traversal strides,
//! swizzle 0/32/64/128 (inner box bytes within the span) and zero or NaN fill. Coordinates are
//! partly out of bounds, and the innermost one always starts the box at a multiple of 16 bytes
//! (the H100 traps otherwise); one arm ([`Misaligned`]) breaks that rule on purpose and expects
//! the interpreter's undefined-behaviour report.
//!
//! Thread 0 issues the copies; every thread waits on the mbarrier of a load. Stores and
//! reductions in flight never write the same global bytes (else the builder first commits and
//! waits), and a load never overwrites shared bytes a store in flight still reads.
//!
//! Every step runs as drawn (the builder only adds commits and waits): the trace is empty, the
//! reference reads the steps and the maps from the [`Spec`]; the maps' box geometry
//! ([`Map::each`], [`Map::each_store`]) is the kernel's too, since the builder keeps the stores
//! in flight apart by the bytes they write.

use super::kernel::{kernel, vector, Head, K};
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::build::{sink, BuildError, Reg};
use ptx_ir_core::{Cache, Cmp, Dim, Flag, Op, Operand, Scope, Sem, Space, Type};
use std::collections::HashSet;

/// Shared-memory staging area (1024-byte aligned, so swizzling on offsets equals swizzling on
/// addresses); it starts as the first `SMEM` input bytes and is dumped to the output.
pub const SMEM: u32 = 4096;
/// The output's scratch area for stores and reductions (after the shared-memory dump).
pub const SCRATCH: u32 = 4096;
/// The input buffer (the tensor of `tm0`).
pub const IN: u32 = 8192;
/// Largest box in bytes.
const BOX_MAX: u64 = 2048;

/// An element type of a tensor map.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Elem {
    /// The type (its spelling is the `type` of the `tmap:` description).
    pub ty: Type,
    /// Bytes per element.
    pub bytes: u32,
    /// Floating point (NaN fill allowed).
    pub float: bool,
}

const fn e(ty: Type, bytes: u32, float: bool) -> Elem {
    Elem { ty, bytes, float }
}

/// The element types generated (`ELEMS[2..6]` have reductions).
pub const ELEMS: [Elem; 10] = [
    e(Type::U8, 1, false),
    e(Type::U16, 2, false),
    e(Type::U32, 4, false),
    e(Type::S32, 4, false),
    e(Type::U64, 8, false),
    e(Type::S64, 8, false),
    e(Type::F16, 2, true),
    e(Type::Bf16, 2, true),
    e(Type::F32, 4, true),
    e(Type::F64, 8, true),
];

/// A tensor map's description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    /// Element type.
    pub elem: Elem,
    /// Elements per dimension (dimension 0 innermost).
    pub dims: Vec<u32>,
    /// Byte strides of dimensions 1.. (multiples of 16).
    pub strides: Vec<u64>,
    /// Box size per dimension.
    pub boxd: Vec<u32>,
    /// Traversal stride per dimension (1 in dimension 0).
    pub es: Vec<u32>,
    /// Swizzle span in bytes (0, 32, 64, 128).
    pub swizzle: u32,
    /// NaN fill.
    pub nan: bool,
}

impl Map {
    fn arbitrary(
        u: &mut Unstructured,
        budget: u64,
        rank: usize,
        reducible: bool,
    ) -> arbitrary::Result<Map> {
        // Maps for stores lean to the types with reductions (u32, s32, u64, s64).
        let elem = if reducible && u.arbitrary()? {
            *u.choose(&ELEMS[2..6])?
        } else {
            *u.choose(&ELEMS)?
        };
        let eb = elem.bytes;
        let swizzle = *u.choose(&[0u32, 0, 32, 64, 128])?;
        // Inner box: a multiple of 16 bytes, within the swizzle span.
        let step = 16 / eb;
        let inner_max = if swizzle == 0 { 256 } else { swizzle / eb }.min(256);
        let b0 = step * u.int_in_range(1..=(inner_max / step).min(8))?;
        let mut boxd = vec![b0];
        let mut es = vec![1];
        let mut dims = vec![u.int_in_range(1..=(2 * b0 + 8).min(budget as u32 / eb))?];
        for _ in 1..rank {
            boxd.push(u.int_in_range(1..=6)?);
            es.push(if u.ratio(1, 3)? {
                u.int_in_range(2..=4)?
            } else {
                1
            });
            dims.push(u.int_in_range(1..=6)?);
        }
        // Keep the box's reach in shared memory (rows a swizzle span apart when narrower)
        // within BOX_MAX bytes.
        let bytes = |b: &[u32], es: &[u32]| {
            let row = b[0] as u64 * eb as u64;
            let pitch = if swizzle != 0 {
                row.max(swizzle as u64)
            } else {
                row
            };
            b.iter()
                .zip(es)
                .skip(1)
                .map(|(&b, &s)| b.div_ceil(s) as u64)
                .product::<u64>()
                * pitch
        };
        while bytes(&boxd, &es) > BOX_MAX {
            let i = (1..rank).max_by_key(|&i| boxd[i]).unwrap_or(0);
            if i == 0 || boxd[i] == 1 {
                boxd[0] = step;
            } else {
                boxd[i] -= 1;
            }
        }
        // Strides: rows padded by 0-2 chunks; shrink the dims until the tensor fits.
        let pads: Vec<u64> = (1..rank)
            .map(|_| u.int_in_range(0..=2u64))
            .collect::<arbitrary::Result<_>>()?;
        let strides_of = |dims: &[u32]| {
            let mut s = Vec::new();
            // Stores write a row's last 16-byte chunk whole (see `each_store`).
            let mut ext = (dims[0] as u64 * eb as u64).div_ceil(16) * 16;
            for i in 1..rank {
                let st = ext.div_ceil(16) * 16 + 16 * pads[i - 1];
                s.push(st);
                ext = st * dims[i] as u64;
            }
            (s, ext)
        };
        loop {
            let (s, ext) = strides_of(&dims);
            if ext <= budget {
                let nan = elem.float && u.ratio(1, 3)?;
                return Ok(Map {
                    elem,
                    dims,
                    strides: s,
                    boxd,
                    es,
                    swizzle,
                    nan,
                });
            }
            let i = (0..rank).max_by_key(|&i| dims[i]).unwrap_or(0);
            dims[i] = (dims[i] / 2).max(1);
        }
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Elements of the box in dimension `i` (its size over the traversal stride).
    pub fn box_elems(&self, i: usize) -> u32 {
        self.boxd[i].div_ceil(self.es[i])
    }

    /// Bytes of the box (the transaction count of a load).
    pub fn box_bytes(&self) -> u32 {
        (0..self.rank()).map(|i| self.box_elems(i)).product::<u32>() * self.elem.bytes
    }

    /// Bytes of one box row (dimension 0).
    pub fn row_bytes(&self) -> u32 {
        self.box_elems(0) * self.elem.bytes
    }

    /// Distance of box rows in shared memory: the row, or the swizzle span when a swizzled
    /// row is narrower (measured on an H200, `corpus/vectors/im2col.jsonl`).
    pub fn pitch(&self) -> u32 {
        if self.swizzle != 0 && self.row_bytes() < self.swizzle {
            self.swizzle
        } else {
            self.row_bytes()
        }
    }

    /// Bytes of shared memory the box reaches.
    pub fn extent(&self) -> u32 {
        self.box_bytes() / self.row_bytes() * self.pitch()
    }

    /// The `tmap:` description over buffer `buf` at byte `offset`.
    pub fn describe(&self, buf: u32, offset: u32) -> String {
        let list = |v: &[u32]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("x")
        };
        let mut s = format!(
            "buf={buf},type={},dims={},box={},estrides={},swizzle={},fill={}",
            self.elem.ty.as_str(),
            list(&self.dims),
            list(&self.boxd),
            list(&self.es),
            self.swizzle,
            if self.nan { "nan" } else { "zero" }
        );
        if self.rank() > 1 {
            let st: Vec<String> = self.strides.iter().map(|x| x.to_string()).collect();
            s += &format!(",strides={}", st.join("x"));
        }
        if offset != 0 {
            s += &format!(",offset={offset}");
        }
        s
    }

    /// Visits the box at `c` in dense order: `(byte offset in the box, global byte offset of
    /// the element or None when out of bounds)`.
    pub fn each(&self, c: &[i32], f: impl FnMut(usize, Option<usize>)) {
        self.each_bound(c, self.dims[0] as usize, f)
    }

    /// As [`Map::each`] for a store or reduction: the H100 writes a row's last 16-byte chunk
    /// whole, so elements past the row's end inside it count as in bounds.
    pub fn each_store(&self, c: &[i32], f: impl FnMut(usize, Option<usize>)) {
        let eb = self.elem.bytes as usize;
        self.each_bound(c, (self.dims[0] as usize * eb).div_ceil(16) * 16 / eb, f)
    }

    fn each_bound(&self, c: &[i32], dim0: usize, mut f: impl FnMut(usize, Option<usize>)) {
        let r = self.rank();
        let n: Vec<u32> = (0..r).map(|i| self.box_elems(i)).collect();
        let total: u32 = n.iter().product();
        let eb = self.elem.bytes as usize;
        for lin in 0..total {
            let mut rest = lin;
            let mut off = 0u64;
            let mut inb = true;
            for i in 0..r {
                let j = rest % n[i];
                rest /= n[i];
                let x = c[i] as i64 + (j * self.es[i]) as i64;
                let bound = if i == 0 {
                    dim0 as i64
                } else {
                    self.dims[i] as i64
                };
                if x < 0 || x >= bound {
                    inb = false;
                } else if i == 0 {
                    off += x as u64 * eb as u64;
                } else {
                    off += x as u64 * self.strides[i - 1];
                }
            }
            f(lin as usize * eb, inb.then_some(off as usize));
        }
    }

    /// Draws coordinates: partly out of bounds (non-negative when `nonneg`); the innermost one
    /// starts the box at a multiple of 16 bytes.
    fn coords(&self, u: &mut Unstructured, nonneg: bool) -> arbitrary::Result<Vec<i32>> {
        let step = (16 / self.elem.bytes) as i32;
        let mut c = Vec::new();
        for i in 0..self.rank() {
            // Mostly a box that starts inside the tensor, sometimes one that starts outside.
            let (lo, hi) = if u.ratio(3, 4)? {
                (0, self.dims[i] as i32 - 1)
            } else if nonneg {
                (0, self.dims[i] as i32 + 2)
            } else {
                (-(self.boxd[i] as i32) - 1, self.dims[i] as i32 + 2)
            };
            let x = u.int_in_range(lo..=hi)?;
            c.push(if i == 0 { x.div_euclid(step) * step } else { x });
        }
        Ok(c)
    }
}

/// The reduction operations generated for an element type (none for the others).
fn reduce_ops(ty: Type) -> &'static [Op] {
    use Op::*;
    match ty {
        Type::U32 => &[Add, Min, Max, Inc, Dec, And, Or, Xor],
        Type::S32 | Type::U64 => &[Add, Min, Max, And, Or, Xor],
        // `add` and the bitwise operations on an `s64` map stop the H100 (illegal
        // instruction); the interpreter reports them as undefined.
        Type::S64 => &[Min, Max],
        _ => &[],
    }
}

/// One step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Load the `tm0` box at the coordinates to shared offset `dst`, then wait.
    Load(Vec<i32>, u32),
    /// Store the box at shared offset `src` to `tm1` at the (non-negative) coordinates.
    Store(Vec<i32>, u32),
    /// Reduce the box at shared offset `src` into `tm1` with the operation.
    Reduce(Op, Vec<i32>, u32),
    /// `cp.async.bulk.prefetch.tensor` of `tm0` at the coordinates.
    Prefetch(Vec<i32>),
    /// `cp.async.bulk.commit_group` then `wait_group{.read} 0`.
    Wait(bool),
}

/// A generated tensor-copy kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Threads of the one CTA.
    pub block: u32,
    /// The map of the loads and prefetches (`tm0`, over the input).
    pub load: Map,
    /// The map of the stores and reductions (`tm1`, over the output's scratch area).
    pub store: Map,
    /// The input buffer.
    pub input: Vec<u8>,
    /// The steps.
    pub steps: Vec<Step>,
}

/// A shared offset for a box reaching `bytes`: a multiple of 128, since a tensor copy to or from
/// a 16- but not 128-byte aligned shared address faults on the H200 (in every mode, swizzled or
/// not; the interpreter reports it).
fn offset_in(u: &mut Unstructured, bytes: u32) -> arbitrary::Result<u32> {
    Ok(128 * u.int_in_range(0..=(SMEM - bytes) / 128)?)
}

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let block = 32 * u.int_in_range(1..=2)?;
        let rank = u.int_in_range(1..=5)?;
        let load = Map::arbitrary(u, IN as u64, rank, false)?;
        let rank2 = if u.arbitrary()? {
            rank
        } else {
            u.int_in_range(1..=5)?
        };
        let store = Map::arbitrary(u, SCRATCH as u64, rank2, true)?;
        let mut steps = Vec::new();
        for _ in 0..u.int_in_range(1..=8)? {
            steps.push(match u.int_in_range(0..=9)? {
                0..=3 => Step::Load(load.coords(u, false)?, offset_in(u, load.extent())?),
                4 | 5 => Step::Store(store.coords(u, true)?, offset_in(u, store.extent())?),
                6 | 7 => {
                    let ops = reduce_ops(store.elem.ty);
                    let c = store.coords(u, true)?;
                    let src = offset_in(u, store.extent())?;
                    if ops.is_empty() {
                        Step::Store(c, src)
                    } else {
                        Step::Reduce(*u.choose(ops)?, c, src)
                    }
                }
                8 => Step::Prefetch(load.coords(u, false)?),
                _ => Step::Wait(u.arbitrary()?),
            });
        }
        let input = input(u, IN as usize)?;
        Ok(Spec {
            block,
            load,
            store,
            input,
            steps,
        })
    }
}

/// Moves the coordinates `c` into `%r30`.. and returns the tensor operand `[map, {%r30, ...}]`.
fn coords(k: &mut K, map: Reg, c: &[i32]) -> Result<Operand, BuildError> {
    let mut regs = Vec::new();
    for (i, &x) in c.iter().enumerate() {
        let r = k.r(30 + i as u32);
        k.f.mov(Type::U32, (r, x))?;
        regs.push(r);
    }
    Ok(Operand::Tuple(Box::new(
        [map.into(), vector(regs)].into_iter().collect(),
    )))
}

/// The dimension qualifier of a tensor of rank `r` (`.1d` .. `.5d`).
fn dim(r: usize) -> Dim {
    [Dim::D1, Dim::D2, Dim::D3, Dim::D4, Dim::D5][r - 1]
}

/// The kernel's declarations and prologue: the maps' generic addresses in `%rd20` (`tm0`) and
/// `%rd21` (`tm1`), and shared memory filled from the input.
fn prologue(k: &mut K, block: u32) -> Result<(), BuildError> {
    let sm = k.shared("sm", 1024, Type::B8, Some(SMEM))?;
    let mb = k.shared("mb", 8, Type::B64, None)?;
    k.prologue()?;
    let (r4, r7, r8, p0) = (k.r(4), k.r(7), k.r(8), k.p(0));
    let (rd20, rd21, rd22) = (k.rd(20), k.rd(21), k.rd(22));
    let (tm0, tm1) = (k.maps[0], k.maps[1]);
    k.f.mov(Type::U32, (r4, sm))?;
    k.f.mov(Type::U32, (r7, mb))?;
    k.f.mov(Type::U64, (rd20, tm0))?;
    k.f.cvta((Space::Param, Type::U64), (rd20, rd20))?;
    k.f.mov(Type::U64, (rd21, tm1))?;
    k.f.cvta((Space::Param, Type::U64), (rd21, rd21))?;
    k.f.setp((Cmp::Eq, Type::U32), (p0, k.tx, 0))?;
    // Shared memory starts undefined: fill it with the first SMEM input bytes (so that stores
    // and reductions of boxes no load wrote move data too).
    k.f.shl(Type::B32, (r8, k.tx, 4))?;
    k.f.cvt((Type::U64, Type::U32), (rd22, r8))?;
    k.f.add(Type::S64, (rd22, k.rin, rd22))?;
    k.f.add(Type::U32, (r8, r4, r8))?;
    k.fill_shared(SMEM, block)?;
    k.f.guard(p0)
        .mbarrier_init((Space::SharedCta, Type::B64), (r7.at(0), 1))?;
    k.f.fence((Flag::MbarrierInit, Sem::Release, Scope::Cluster), ())?;
    k.f.fence((Flag::Proxy, Flag::Async, Space::SharedCta), ())?;
    k.f.bar(Flag::Sync, 0)
}

/// A store or reduction in flight: shared bytes it reads, global bytes it writes.
struct Pending {
    read: (u32, u32),
    write: HashSet<usize>,
    read_done: bool,
}

fn overlap(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 < b.0 + b.1 && b.0 < a.0 + a.1
}

impl Protocol for Spec {
    /// Nothing: every step runs.
    type Trace = ();

    fn build(&self) -> (Launch, ()) {
        let block = self.block;
        let (lm, sm_) = (&self.load, &self.store);
        let text = kernel(Head::hopper().maps(2), |k| {
            prologue(k, block)?;
            let (r4, r7, r9, p0, rd20, rd21) = (k.r(4), k.r(7), k.r(9), k.p(0), k.rd(20), k.rd(21));
            let mut pending: Vec<Pending> = Vec::new();
            let mut phase = 0u32;
            let drain = |k: &mut K, pending: &mut Vec<Pending>, read: bool| {
                if read {
                    pending.iter_mut().for_each(|p| p.read_done = true);
                } else {
                    pending.clear();
                }
                k.bulk_drain(p0, read)
            };
            for step in &self.steps {
                match step {
                    Step::Load(c, dst) => {
                        let n = lm.box_bytes();
                        if pending
                            .iter()
                            .any(|p| !p.read_done && overlap(p.read, (*dst, lm.extent())))
                        {
                            drain(k, &mut pending, true)?;
                        }
                        let tensor = coords(k, rd20, c)?;
                        k.f.add(Type::U32, (r9, r4, *dst))?;
                        k.f.guard(p0).mbarrier_arrive(
                            (Flag::ExpectTx, Space::SharedCta, Type::B64),
                            (sink(), r7.at(0), n),
                        )?;
                        k.f.guard(p0).cp_async_bulk_tensor(
                            (
                                dim(lm.rank()),
                                Space::SharedCluster,
                                Space::Global,
                                Flag::Tile,
                                Flag::MbarrierCompleteTxBytes,
                            ),
                            (r9.at(0), tensor, r7.at(0)),
                        )?;
                        k.wait_phase(phase)?;
                        // Every thread has seen the phase before thread 0 starts the next one.
                        k.f.bar(Flag::Sync, 0)?;
                        phase += 1;
                    }
                    Step::Store(c, src) | Step::Reduce(_, c, src) => {
                        let n = sm_.extent();
                        let eb = sm_.elem.bytes as usize;
                        let mut write = HashSet::new();
                        sm_.each_store(c, |_, g| {
                            if let Some(g) = g {
                                write.extend(g..g + eb);
                            }
                        });
                        if pending.iter().any(|p| !p.write.is_disjoint(&write)) {
                            drain(k, &mut pending, false)?;
                        }
                        let tensor = coords(k, rd21, c)?;
                        k.f.add(Type::U32, (r9, r4, *src))?;
                        let d = dim(sm_.rank());
                        match step {
                            Step::Reduce(op, ..) => k.f.guard(p0).cp_reduce_async_bulk_tensor(
                                (
                                    d,
                                    Space::Global,
                                    Space::SharedCta,
                                    *op,
                                    Flag::Tile,
                                    Flag::BulkGroup,
                                ),
                                (tensor, r9.at(0)),
                            )?,
                            _ => k.f.guard(p0).cp_async_bulk_tensor(
                                (
                                    d,
                                    Space::Global,
                                    Space::SharedCta,
                                    Flag::Tile,
                                    Flag::BulkGroup,
                                ),
                                (tensor, r9.at(0)),
                            )?,
                        }
                        pending.push(Pending {
                            read: (*src, n),
                            write,
                            read_done: false,
                        });
                    }
                    Step::Prefetch(c) => {
                        let tensor = coords(k, rd20, c)?;
                        k.f.guard(p0).cp_async_bulk_prefetch_tensor(
                            (dim(lm.rank()), Cache::L2, Space::Global, Flag::Tile),
                            tensor,
                        )?;
                    }
                    Step::Wait(read) => drain(k, &mut pending, *read)?,
                }
            }
            k.f.guard(p0).cp_async_bulk_commit_group((), ())?;
            k.f.guard(p0).cp_async_bulk_wait_group((), 0)?;
            k.f.bar(Flag::Sync, 0)?;
            k.dump_shared(r4, SMEM, block, 0)
        });
        let launch = Launch {
            text,
            grid: 1,
            block,
            input: self.input.clone(),
            out_len: (SMEM + SCRATCH) as usize,
            tmaps: vec![lm.describe(0, 0), sm_.describe(1, SMEM)],
        };
        (launch, ())
    }

    fn smaller(&self) -> Vec<Spec> {
        super::drop_each(self, self.steps.len(), |s, k| {
            s.steps.remove(k);
        })
    }
}

/// The misuse arm: a load or store whose box starts `coordinate[0] * element size` bytes into
/// the innermost dimension, not a multiple of 16. The H100 traps (measured); the interpreter
/// must report undefined behaviour naming the offset.
#[derive(Clone, Debug)]
pub struct Misaligned {
    /// The kernel around the copy.
    pub spec: Spec,
    /// A store (else a load). Prefetches are left out: the H100 probes measured loads and
    /// stores only, and the interpreter checks nothing more for a prefetch.
    pub store: bool,
    /// The copy's coordinates.
    pub c: Vec<i32>,
}

impl Misaligned {
    /// Draws a misaligned copy (elements are at most 8 bytes, so coordinates off the 16-byte
    /// grid always exist).
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Misaligned> {
        let mut spec = Spec::arbitrary(u)?;
        spec.steps.clear();
        let store = u.arbitrary()?;
        let m = if store { &spec.store } else { &spec.load };
        let mut c = m.coords(u, store)?;
        let step = (16 / m.elem.bytes) as i32;
        c[0] += u.int_in_range(1..=step - 1)?;
        Ok(Misaligned { spec, store, c })
    }

    /// The kernel and the offset in bytes the interpreter's message must name.
    pub fn build(&self) -> (Launch, i64) {
        let mut s = self.spec.clone();
        let c = self.c.clone();
        let eb = if self.store {
            s.store.elem.bytes
        } else {
            s.load.elem.bytes
        };
        s.steps = vec![if self.store {
            Step::Store(c.clone(), 0)
        } else {
            Step::Load(c.clone(), 0)
        }];
        (s.build().0, c[0] as i64 * eb as i64)
    }
}
