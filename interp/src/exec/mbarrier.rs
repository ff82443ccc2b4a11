//! mbarrier objects: 64-bit barriers in shared memory with arrival counts, a transaction count
//! and a phase.
//!
//! The hardware's encoding of the 64 bits is opaque to programs; the interpreter stores the
//! expected count in bits 0..21, the pending count in bits 21..42, the transaction count (two's
//! complement) in bits 42..63 and the phase parity in bit 63. The state token returned by an
//! arrive is the object's value before the arrival. Asynchronous copies complete at once in the
//! interpreter, so `try_wait` never needs to suspend: it reports the phase as `test_wait` does.

use super::ctx::{lanes, AddrSpace, Ctx};
use super::step::Flow;
use crate::error::Error;
use crate::mem;
use ptx_ir_core::{Flag, Opcode};

const FIELD: u64 = (1 << 21) - 1;

fn expected(v: u64) -> u64 {
    v & FIELD
}

fn pending(v: u64) -> u64 {
    (v >> 21) & FIELD
}

fn tx(v: u64) -> i64 {
    let t = (v >> 42) & FIELD;
    ((t << 43) as i64) >> 43
}

fn phase(v: u64) -> u64 {
    v >> 63
}

fn pack(expected: u64, pending: u64, tx: i64, phase: u64) -> u64 {
    (expected & FIELD) | ((pending & FIELD) << 21) | (((tx as u64) & FIELD) << 42) | (phase << 63)
}

fn space(x: &Ctx<'_, '_>) -> AddrSpace {
    AddrSpace::of(x.inst.space())
}

/// Completes the phase when nothing is pending.
fn settle(v: u64) -> u64 {
    if pending(v) == 0 && tx(v) == 0 {
        pack(expected(v), expected(v), 0, phase(v) ^ 1)
    } else {
        v
    }
}

/// Every `mbarrier.*` instruction and `cp.async.mbarrier.arrive`.
pub fn mbarrier(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let sp = space(x);
    let op = x.d.op;
    // Operand positions: the address is operand 0 for init/inval/expect_tx/complete_tx and
    // cp.async.mbarrier.arrive, operand 1 for the forms with a result.
    let (ai, has_dest) = match op {
        Opcode::MbarrierInit
        | Opcode::MbarrierInval
        | Opcode::MbarrierExpectTx
        | Opcode::MbarrierCompleteTx
        | Opcode::CpAsyncMbarrierArrive => (0, false),
        _ => (1, true),
    };
    if op == Opcode::MbarrierPendingCount {
        let s = x.read(x.op(1)?, x.emask)?;
        let mut out = [0u64; 32];
        for l in lanes(x.emask) {
            out[l] = pending(s[l]);
        }
        let d = x.op(0)?;
        x.write(d, &out, x.emask)?;
        return Ok(Flow::Next);
    }
    let mut out = [0u64; 32];
    for l in lanes(x.emask) {
        let addr = x.addr(x.op(ai)?, l)?;
        let arg = match x.d.opnds.get(ai + 1) {
            Some(o) => Some(x.get(o, l)?),
            None => None,
        };
        let old = x.access(sp, addr, 8, 8, l, false, |b| mem::get_le(b))?;
        let (new, result) = match op {
            Opcode::MbarrierInit => {
                let n = arg.unwrap_or(1) & 0xffff_ffff;
                if n == 0 || n > FIELD {
                    return Err(x.undefined(l, format!("mbarrier.init with count {n}")));
                }
                (pack(n, n, 0, 0), 0)
            }
            Opcode::MbarrierInval => (0, 0),
            Opcode::MbarrierExpectTx => {
                let t = (arg.unwrap_or(0) & 0xffff_ffff) as i64;
                (
                    pack(expected(old), pending(old), tx(old) + t, phase(old)),
                    0,
                )
            }
            Opcode::MbarrierCompleteTx => {
                let t = (arg.unwrap_or(0) & 0xffff_ffff) as i64;
                (
                    settle(pack(expected(old), pending(old), tx(old) - t, phase(old))),
                    0,
                )
            }
            Opcode::CpAsyncMbarrierArrive => {
                // Without .noinc the pending count is raised before the (immediate) arrive.
                if x.inst.has(Flag::NoInc) {
                    let p = pending(old);
                    if p == 0 {
                        return Err(x.undefined(l, "mbarrier arrive with no pending arrivals"));
                    }
                    (settle(pack(expected(old), p - 1, tx(old), phase(old))), 0)
                } else {
                    (old, 0)
                }
            }
            Opcode::MbarrierArrive | Opcode::MbarrierArriveDrop => {
                let (count, txc) = if x.inst.has(Flag::ExpectTx) {
                    (1, (arg.unwrap_or(0) & 0xffff_ffff) as i64)
                } else {
                    (arg.unwrap_or(1) & 0xffff_ffff, 0)
                };
                let p = pending(old);
                if count > p {
                    return Err(x.undefined(
                        l,
                        format!("mbarrier arrive of {count} with {p} arrivals pending"),
                    ));
                }
                let exp = if op == Opcode::MbarrierArriveDrop {
                    expected(old).saturating_sub(count)
                } else {
                    expected(old)
                };
                let v = pack(exp, p - count, tx(old) + txc, phase(old));
                let v = if x.inst.has(Flag::NoComplete) {
                    v
                } else {
                    settle(v)
                };
                (v, old)
            }
            Opcode::MbarrierTestWait | Opcode::MbarrierTryWait => {
                let a = arg.unwrap_or(0);
                let want = if x.inst.has(Flag::Parity) {
                    a & 1
                } else {
                    phase(a)
                };
                (old, (phase(old) != want) as u64)
            }
            _ => return Err(x.unsupported("mbarrier form")),
        };
        if new != old {
            x.access(sp, addr, 8, 8, l, true, |b| mem::put_le(b, new))?;
        }
        out[l] = result;
    }
    if has_dest {
        let d = x.op(0)?;
        x.write(d, &out, x.emask)?;
    }
    Ok(Flow::Next)
}
