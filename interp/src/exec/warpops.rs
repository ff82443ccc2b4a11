//! Warp-synchronous instructions: `shfl`, `vote`, `match`, `redux`, `elect`, `activemask`,
//! `bar.warp.sync`.
//!
//! A `.sync` instruction names its participants with a membermask. A thread outside its own
//! membermask is an error (the hardware raises "illegal instruction"). Until every non-exited
//! thread of the mask has reached the instruction, the arriving lanes wait; lanes that never
//! arrive make the launch deadlock, which is reported.

use super::ctx::{lanes, Ctx, Lanes};
use super::flow::Flow;
use super::warp::Wait;
use crate::code::Opnd;
use crate::error::Error;
use crate::float::{self, Fmt, MinMax};
use crate::int::sext;
use ptx_ir_core::{Flag, Op, Type};

/// Checks the membermasks of operand `o` and decides whether the instruction can run now.
/// `Ok(Ok(masks))`: run, each lane with its membermask restricted to the executing lanes;
/// `Ok(Err(flow))`: wait for the other members.
fn members(x: &mut Ctx<'_, '_>, o: &Opnd) -> Result<Result<[u32; 32], Flow>, Error> {
    let mut union = 0u32;
    let mut masks = [0u32; 32];
    for l in lanes(x.emask) {
        let m = x.get(o, l)? as u32;
        if m & (1 << l) == 0 {
            return Err(x.undefined(
                l,
                format!(
                    "{} executed by a thread outside its own membermask {m:#010x}",
                    x.d.op.name()
                ),
            ));
        }
        masks[l] = m & x.emask;
        union |= m;
    }
    let needed = union & x.w.valid & !x.w.exited;
    if needed & !x.emask != 0 {
        return Ok(Err(Flow::Block(Wait::WarpSync(x.w.exited))));
    }
    if x.m.checks.sync {
        mask_agreement(x, o)?;
    }
    Ok(Ok(masks))
}

/// The `sync` check of a warp collective about to run: the threads it joins must give the same
/// membermask ("wait until all non-exited threads corresponding to membermask have executed
/// [the instruction] with the same qualifiers and same membermask value", PTX ISA `shfl.sync`,
/// and alike for `vote.sync`, `match.sync`, `redux.sync`, `elect.sync`, `bar.warp.sync`); lanes
/// whose membermasks name each other but differ are reported (synccheck's "invalid
/// arguments").
fn mask_agreement(x: &mut Ctx<'_, '_>, o: &Opnd) -> Result<(), Error> {
    let mut given = [0u32; 32];
    for l in lanes(x.emask) {
        given[l] = x.get(o, l)? as u32;
    }
    for l in lanes(x.emask) {
        if let Some(k) = lanes(given[l] & x.emask).find(|&k| given[k] != given[l]) {
            let (ml, mk) = (given[l], given[k]);
            let name = sync_name(x.d.op);
            x.sync_finding(&[l, k], || {
                format!(
                    "{name}: lane {l} gives membermask {ml:#010x} and lane {k}, a member, {mk:#010x}; the threads of a membermask must execute the instruction with the same membermask value (PTX ISA, {name})"
                )
            });
            break;
        }
    }
    Ok(())
}

/// The name of a warp collective with its `.sync` (`shfl.sync`, `bar.warp.sync`), for messages.
pub(crate) fn sync_name(op: ptx_ir_core::Opcode) -> String {
    let n = op.name();
    if n.ends_with(".sync") {
        n.to_string()
    } else {
        format!("{n}.sync")
    }
}

/// `shfl`, `shfl.sync`
pub fn shfl(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let sync = x.has(Flag::Sync);
    // `d{|p}, a, b, c{, membermask}` (the arity of `.sync`)
    let [dst, a, b, c] = x.ops();
    if sync {
        let [.., membermask] = x.ops::<5>();
        if let Err(f) = members(x, membermask)? {
            return Ok(f);
        }
    }
    let e = x.emask;
    let a = x.read(a, u32::MAX)?;
    let b = x.read(b, e)?;
    let c = x.read(c, e)?;
    let mode = if x.has(Flag::Up) {
        0
    } else if x.has(Flag::Down) {
        1
    } else if x.has(Flag::Bfly) {
        2
    } else {
        3
    };
    let mut d = [0u64; 32];
    let mut p = [0u64; 32];
    for l in lanes(e) {
        let lane = l as i32;
        let bval = (b[l] & 0x1f) as i32;
        let cval = (c[l] & 0x1f) as i32;
        let seg = ((c[l] >> 8) & 0x1f) as i32;
        let max_lane = (lane & seg) | (cval & !seg);
        let min_lane = lane & seg;
        let (j, pval) = match mode {
            0 => {
                let j = lane - bval;
                (j, j >= max_lane)
            }
            1 => {
                let j = lane + bval;
                (j, j <= max_lane)
            }
            2 => {
                let j = lane ^ bval;
                (j, j <= max_lane)
            }
            _ => {
                let j = min_lane | (bval & !seg);
                (j, j <= max_lane)
            }
        };
        let j = if pval { j } else { lane };
        d[l] = a[(j & 31) as usize];
        p[l] = pval as u64;
    }
    match dst {
        Opnd::Pair(pq) => {
            x.write(&pq[0], &d, e)?;
            x.write(&pq[1], &p, e)?;
        }
        o => x.write(o, &d, e)?,
    }
    Ok(Flow::Next)
}

fn pred_lanes(v: &Lanes, mask: u32) -> u32 {
    let mut r = 0u32;
    for l in lanes(mask) {
        if v[l] & 1 != 0 {
            r |= 1 << l;
        }
    }
    r
}

/// `vote`, `vote.sync`
pub fn vote(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let sync = x.has(Flag::Sync);
    // `d, a{, membermask}` (the arity of `.sync`)
    let [d, a] = x.ops();
    let masks = if sync {
        let [.., membermask] = x.ops::<3>();
        match members(x, membermask)? {
            Ok(m) => m,
            Err(f) => return Ok(f),
        }
    } else {
        [x.emask; 32]
    };
    let e = x.emask;
    let a = x.read(a, e)?;
    let (ballot, all, any) = (x.has(Flag::Ballot), x.has(Flag::All), x.has(Flag::Any));
    let mut out = [0u64; 32];
    for l in lanes(e) {
        let group = masks[l];
        let t = pred_lanes(&a, group);
        out[l] = if ballot {
            t as u64
        } else if all {
            (t == group) as u64
        } else if any {
            (t != 0) as u64
        } else {
            (t == group || t == 0) as u64
        };
    }
    x.write(d, &out, e)?;
    Ok(Flow::Next)
}

/// `match.any.sync`, `match.all.sync`
pub fn match_sync(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [dst, a, membermask] = x.ops();
    let masks = match members(x, membermask)? {
        Ok(m) => m,
        Err(f) => return Ok(f),
    };
    let e = x.emask;
    let w = x.d.ty.map(|t| t.bits()).unwrap_or(32).min(64);
    let m = crate::int::mask(w);
    let a = x.read(a, e)?;
    let all = x.has(Flag::All);
    let mut d = [0u64; 32];
    let mut p = [0u64; 32];
    for l in lanes(e) {
        let group = masks[l];
        let first = group.trailing_zeros() as usize & 31;
        let uniform = lanes(group).all(|k| a[k] & m == a[first] & m);
        if all {
            d[l] = if uniform { group as u64 } else { 0 };
            p[l] = uniform as u64;
        } else {
            let mut r = 0u32;
            for k in lanes(group) {
                if a[k] & m == a[l] & m {
                    r |= 1 << k;
                }
            }
            d[l] = r as u64;
        }
    }
    match dst {
        Opnd::Pair(pq) => {
            x.write(&pq[0], &d, e)?;
            x.write(&pq[1], &p, e)?;
        }
        o => x.write(o, &d, e)?,
    }
    Ok(Flow::Next)
}

/// A reduction of 32-bit values: `redux.sync`'s across lanes, `tcgen05.ld.red`'s across a
/// thread's loaded columns.
#[derive(Copy, Clone, Debug)]
pub struct Fold {
    /// `.f32`, `.u32`, `.s32` or `.b32`.
    pub ty: Type,
    /// The operation.
    pub op: Op,
    /// `.NaN` (`f32`): any NaN input gives the canonical NaN.
    pub nan: bool,
    /// `.abs` (`f32`): reduce absolute values.
    pub abs: bool,
}

impl Fold {
    /// The reduction of `vals` (0 when empty); `None` for an operation the type has not.
    pub fn apply(self, vals: impl Iterator<Item = u64>) -> Option<u64> {
        let mut acc: Option<u64> = None;
        if self.ty == Type::F32 {
            if !matches!(self.op, Op::Min | Op::Max) {
                return None;
            }
            let o = MinMax {
                max: self.op == Op::Max,
                nan: self.nan,
                abs: self.abs,
                ..Default::default()
            };
            for v in vals {
                let v = v & if o.abs { 0x7fff_ffff } else { 0xffff_ffff };
                acc = Some(match acc {
                    None if float::is_nan(v, Fmt::F32) && o.nan => Fmt::F32.canonical_nan(),
                    None => v,
                    Some(p) => float::min_max(Fmt::F32, p, v, o),
                });
            }
            let r = acc.unwrap_or(0);
            return Some(if float::is_nan(r, Fmt::F32) {
                Fmt::F32.canonical_nan()
            } else {
                r
            });
        }
        let s = self.ty.is_signed();
        for v in vals {
            let v = v & 0xffff_ffff;
            acc = Some(match acc {
                None => v,
                Some(p) => match self.op {
                    Op::Add => p.wrapping_add(v) & 0xffff_ffff,
                    Op::And => p & v,
                    Op::Or => p | v,
                    Op::Xor => p ^ v,
                    Op::Min | Op::Max => {
                        let (pp, vv) = if s {
                            (sext(p, 32), sext(v, 32))
                        } else {
                            (p as i64, v as i64)
                        };
                        if (vv < pp) == (self.op == Op::Min) {
                            v
                        } else {
                            p
                        }
                    }
                    _ => return None,
                },
            });
        }
        Some(acc.unwrap_or(0))
    }
}

/// `redux.sync`
pub fn redux(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [d, a, membermask] = x.ops();
    let masks = match members(x, membermask)? {
        Ok(m) => m,
        Err(f) => return Ok(f),
    };
    let e = x.emask;
    let t = x.d.ty.unwrap_or(Type::B32);
    let op =
        x.d.oper
            .ok_or_else(|| x.unsupported("redux without an operation"))?;
    let a = x.read(a, e)?;
    let mut out = [0u64; 32];
    let fold = Fold {
        ty: t,
        op,
        nan: x.has(Flag::NaN),
        abs: x.has(Flag::Abs),
    };
    for l0 in lanes(e) {
        let v = fold
            .apply(lanes(masks[l0]).map(|l| a[l]))
            .ok_or_else(|| x.unsupported("redux operation"))?;
        out[l0] = v;
    }
    x.write(d, &out, e)?;
    Ok(Flow::Next)
}

/// `elect.sync`
pub fn elect(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [dst, membermask] = x.ops();
    let masks = match members(x, membermask)? {
        Ok(m) => m,
        Err(f) => return Ok(f),
    };
    let e = x.emask;
    let mut p = [0u64; 32];
    let mut leader = [0u64; 32];
    for l in lanes(e) {
        leader[l] = masks[l].trailing_zeros() as u64 & 31;
        p[l] = (l as u64 == leader[l]) as u64;
    }
    match dst {
        Opnd::Pair(pq) => {
            x.write(&pq[0], &leader, e)?;
            x.write(&pq[1], &p, e)?;
        }
        o => x.write(o, &p, e)?,
    }
    Ok(Flow::Next)
}

/// `activemask`
pub fn activemask(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    // The threads executing the instruction: under a guard, only those whose guard holds (an
    // H200 returns 0xeeeeeeee for `@p activemask` with p = lane & 3 != 0 in a full warp;
    // corpus/vectors/warp_guard.jsonl).
    let v = x.emask as u64;
    let [d] = x.ops();
    x.write(d, &[v; 32], x.emask)?;
    Ok(Flow::Next)
}

/// `bar.warp.sync`
pub fn bar_warp_sync(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [membermask] = x.ops();
    match members(x, membermask)? {
        Ok(_) => Ok(Flow::Next),
        Err(f) => Ok(f),
    }
}
