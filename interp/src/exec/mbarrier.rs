//! mbarrier objects (PTX ISA 9.7.13.15): phases, arrival counts and transaction counts.
//!
//! The state of an initialised mbarrier lives in a side table of its cluster, keyed by (CTA
//! rank, shared-memory offset); the 8 bytes in shared memory are marked in the shadow of
//! [`super::inflight`], so that any non-mbarrier access to them is reported (the ISA makes it
//! undefined), as is any mbarrier operation on memory that holds no initialised object.
//!
//! Per object: the expected arrival count (1..2^20-1), the pending arrival count, the tx-count
//! (-(2^20-1)..2^20-1), the phase number, and whether a `test_wait`/`try_wait` has returned
//! `True` for the last completed phase. A phase completes when the pending count and the
//! tx-count are both zero; then the phase number advances and the pending count is reloaded
//! with the expected count. Misuse is reported with the rule it breaks: counts out of range, an
//! arrive-on of more arrivals than are pending, `.noComplete` completing the phase, an arrive-on
//! in a phase whose predecessor nobody observed complete (9.7.13.15.4), a state token from
//! another object or an older phase, `.parity` other than 0 or 1, remote arrivals asking for a
//! state, waits on a remote object.
//!
//! The state token returned by an arrive (opaque to programs) is
//! `1 << 63 | phase mod 2^23 << 40 | (offset / 8) mod 2^18 << 22 | noComplete << 21 |
//! pending-before`. `try_wait` suspends the thread until the phase completes; when no thread of
//! the launch can make progress any more it times out (returns `False`), as the hardware's time
//! limit allows.
//!
//! The object's state and its transitions are in [`super::state::mbarrier`], where completing
//! asynchronous operations reach them too; this module executes the instructions.

use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::inflight;
use super::state::mbarrier::{
    arrive_on, not_valid, settle_phase, token, tx_check, Mbar, MAX_COUNT,
};
use crate::code::Opnd;
use crate::error::Error;
use ptx_ir_core::{Flag, Opcode};

/// The (rank, offset) of an mbarrier operand in one lane; `cta_only` for the operations that
/// only work on the executing CTA's objects.
pub fn locate(
    x: &mut Ctx<'_, '_>,
    o: &Opnd,
    lane: usize,
    cta_only: bool,
) -> Result<(u32, u32), Error> {
    let sp = AddrSpace::of(x.d.space);
    let addr = x.addr(o, lane)?;
    let (rank, off) = x.shared_loc(sp, addr, 8, lane, cta_only)?;
    if off % 8 != 0 {
        return Err(x.fault(crate::error::FaultKind::Misaligned, sp, addr, 8, lane));
    }
    Ok((rank, off))
}

/// Every `mbarrier.*` instruction.
pub fn mbarrier(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let op = x.d.op;
    if op == Opcode::MbarrierPendingCount {
        return pending_count(x);
    }
    if matches!(op, Opcode::MbarrierTestWait | Opcode::MbarrierTryWait) {
        return wait(x);
    }
    // `[addr]{, arg}`; the arrives: `state, [addr]{, arg}`
    let (dst, ao, arg_o) = match op {
        Opcode::MbarrierInit
        | Opcode::MbarrierInval
        | Opcode::MbarrierExpectTx
        | Opcode::MbarrierCompleteTx => {
            let [a] = x.ops();
            (None, a, x.opt(1))
        }
        _ => {
            let [d, a] = x.ops();
            (Some(d), a, x.opt(2))
        }
    };
    let own = x.w.cta;
    let mut out = [0u64; 32];
    for l in lanes(x.emask) {
        let arg = match arg_o {
            Some(o) => Some(x.get(o, l)? & 0xffff_ffff),
            None => None,
        };
        let cta_only = matches!(op, Opcode::MbarrierInit | Opcode::MbarrierInval);
        let key = locate(x, ao, l, cta_only)?;
        let (rank, off) = key;
        match op {
            Opcode::MbarrierInit => {
                let n = arg.unwrap_or(0) as i64;
                if x.cl.mbars.contains_key(&key) {
                    return Err(x.undefined(l, "mbarrier.init on a location that holds a valid mbarrier object; invalidate it with mbarrier.inval first (PTX ISA 9.7.13.15.9)"));
                }
                if !(1..=MAX_COUNT).contains(&n) {
                    return Err(x.undefined(
                        l,
                        format!(
                            "mbarrier.init count {n} out of range 1..2^20-1 (PTX ISA 9.7.13.15.9)"
                        ),
                    ));
                }
                let sizes: Vec<usize> = x.cl.shared.iter().map(|s| s.len()).collect();
                x.cl.inflight.ensure_shadow(&sizes);
                if x.cl.inflight.check_shared(rank, off, 8, true).is_some() {
                    return Err(x.undefined(l, "mbarrier.init on memory an asynchronous operation in flight still accesses (PTX ISA 9.7.9.25.1)"));
                }
                x.cl.mbars_invalidated.remove(&key);
                x.cl.mbars.insert(
                    key,
                    Mbar {
                        expected: n as u32,
                        pending: n as u32,
                        tx: 0,
                        phase: 0,
                        observed: true,
                    },
                );
                x.cl.inflight.set_mbar(rank, off, true);
            }
            Opcode::MbarrierInval => {
                if !x.cl.mbars.contains_key(&key) {
                    return Err(x.undefined(l, gone(x, key)));
                }
                let busy =
                    x.cl.inflight
                        .ops
                        .values()
                        .any(|o| o.parts.iter().any(|p| p.mbar == Some(key)))
                        || x.cl.inflight.arrives.iter().any(|a| a.mbar == key);
                if busy {
                    return Err(x.undefined(l, "mbarrier.inval while asynchronous operations still signal the object (their complete-tx or arrive-on would act on invalid memory)"));
                }
                x.cl.mbars.remove(&key);
                x.cl.mbars_invalidated.insert(key, (x.fid, x.pc));
                x.cl.inflight.set_mbar(rank, off, false);
                if let Some(rc) = &mut x.cl.race {
                    rc.mbar_forget(key);
                }
            }
            Opcode::MbarrierExpectTx | Opcode::MbarrierCompleteTx => {
                let n = arg.unwrap_or(0) as i64;
                let b = x.cl.mbars.get_mut(&key).ok_or_else(|| not_valid(rank, off));
                let r = b.and_then(|b| {
                    if op == Opcode::MbarrierExpectTx {
                        b.tx += n;
                        tx_check(b.tx)
                    } else {
                        b.tx -= n;
                        tx_check(b.tx)?;
                        settle_phase(b);
                        Ok(())
                    }
                });
                r.map_err(|e| x.undefined(l, e))?;
            }
            Opcode::MbarrierArrive | Opcode::MbarrierArriveDrop => {
                let remote = rank != own;
                if remote && dst.is_some_and(|d| !matches!(d, Opnd::Sink)) {
                    return Err(x.undefined(l, "mbarrier arrive on an object in another CTA's shared memory cannot return a state; the destination must be `_` (PTX ISA 9.7.13.15.13)"));
                }
                let expect = x.has(Flag::ExpectTx);
                let (count, txc) = if expect {
                    (1u32, arg.unwrap_or(0) as i64)
                } else {
                    (arg.unwrap_or(1) as u32, 0)
                };
                let no_complete = x.has(Flag::NoComplete);
                let drop = op == Opcode::MbarrierArriveDrop;
                let phase = x.cl.mbars.get(&key).map(|b| b.phase);
                if let (Some(rc), Some(p)) = (&mut x.cl.race, phase) {
                    let w = rc.warp_id(x.w.cta, x.w.index);
                    rc.mbar_arrive(w, key, p);
                }
                let b = x.cl.mbars.get_mut(&key).ok_or_else(|| not_valid(rank, off));
                let r = b.and_then(|b| {
                    let before = token(b.phase, b.pending, no_complete, off);
                    if expect {
                        b.tx += txc;
                        tx_check(b.tx)?;
                    }
                    if drop {
                        if count >= b.expected {
                            return Err(format!(
                                "mbarrier.arrive_drop of {count} would leave the expected arrival count at {} (PTX ISA 9.7.13.15.2: at least 1)",
                                b.expected as i64 - count as i64
                            ));
                        }
                        b.expected -= count;
                    }
                    arrive_on(b, count, no_complete)?;
                    Ok(before)
                });
                out[l] = r.map_err(|e| x.undefined(l, e))?;
            }
            _ => return Err(x.unsupported("mbarrier form")),
        }
        x.m.events += 1;
    }
    if let Some(d) = dst {
        x.write(d, &out, x.emask)?;
    }
    Ok(Flow::Next)
}

fn pending_count(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [d, s] = x.ops();
    let s = x.read(s, x.emask)?;
    let mut out = [0u64; 32];
    for l in lanes(x.emask) {
        let t = s[l];
        if t >> 63 == 0 || (t >> 21) & 1 == 0 {
            return Err(x.undefined(l, "mbarrier.pending_count of a state that no mbarrier.arrive.noComplete / arrive_drop.noComplete returned (PTX ISA 9.7.13.15.17)"));
        }
        out[l] = t & 0x1f_ffff;
    }
    x.write(d, &out, x.emask)?;
    Ok(Flow::Next)
}

/// Why an operation on `key`, which holds no valid mbarrier object, is undefined: it was never
/// initialised, or an `mbarrier.inval` invalidated it (while this thread waited on it, for a
/// `try_wait` that was suspended).
fn gone(x: &Ctx<'_, '_>, key: (u32, u32)) -> String {
    match x.cl.mbars_invalidated.get(&key) {
        Some(&(f, pc)) => format!(
            "{} on an mbarrier object (CTA rank {}, {:#x}) that `{}` (#{pc}) invalidated; any mbarrier operation but init on an invalidated object, a wait included, is undefined (PTX ISA 9.7.13.15.10)",
            x.d.op.name(),
            key.0,
            key.1,
            x.m.prog.inst_text(f, pc)
        ),
        None => not_valid(key.0, key.1),
    }
}

fn wait(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let parity = x.has(Flag::Parity);
    let try_wait = x.d.op == Opcode::MbarrierTryWait;
    let [d, ao, so] = x.ops();
    let mut out = [0u64; 32];
    let mut keys: [(u32, u32); 32] = [(0, 0); 32];
    let mut all = true;
    for l in lanes(x.emask) {
        let key = locate(x, ao, l, true)?;
        keys[l] = key;
        if !x.cl.mbars.contains_key(&key) {
            return Err(x.undefined(l, gone(x, key)));
        }
        inflight::settle(x.m, x.cl, key)?;
        let b = match x.cl.mbars.get(&key) {
            Some(b) => *b,
            None => return Err(x.undefined(l, gone(x, key))),
        };
        let v = x.get(so, l)?;
        let done = if parity {
            let p = v & 0xffff_ffff;
            if p > 1 {
                return Err(x.undefined(
                    l,
                    format!("phaseParity {p} is neither 0 nor 1 (PTX ISA 9.7.13.15.16)"),
                ));
            }
            p != b.phase & 1
        } else {
            if v >> 63 == 0 || ((v >> 22) & 0x3_ffff) as u32 != (key.1 >> 3) & 0x3_ffff {
                return Err(x.undefined(l, "the state operand was not returned by an mbarrier.arrive on this mbarrier object (PTX ISA 9.7.13.15.16)"));
            }
            let p = (v >> 40) & 0x7f_ffff;
            let cur = b.phase & 0x7f_ffff;
            if p == cur {
                false
            } else if p == (b.phase.wrapping_sub(1)) & 0x7f_ffff {
                true
            } else {
                return Err(x.undefined(l, "the state operand is from neither the current nor the immediately preceding phase of the mbarrier object (PTX ISA 9.7.13.15.16)"));
            }
        };
        out[l] = done as u64;
        all &= done;
    }
    if !all {
        // Suspended until the phase completes (or the launch has nothing else to do); not when
        // another group of the warp could run, since the scheduler retries the first ready
        // group of a warp.
        let others =
            x.w.groups
                .iter()
                .filter(|g| g.wait == super::warp::Wait::Ready)
                .count()
                > 1;
        if try_wait && !x.m.try_timeout && !others {
            return Ok(Flow::Retry);
        }
        if !try_wait {
            x.yield_warp = true;
        }
    }
    for l in lanes(x.emask) {
        if out[l] != 0 {
            if let Some(b) = x.cl.mbars.get_mut(&keys[l]) {
                b.observed = true;
                let phase = b.phase;
                if let Some(rc) = &mut x.cl.race {
                    let w = rc.warp_id(x.w.cta, x.w.index);
                    rc.mbar_observe(w, keys[l], phase);
                }
            }
        }
    }
    x.write(d, &out, x.emask)?;
    Ok(Flow::Next)
}
