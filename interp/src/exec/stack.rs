//! Stack manipulation (PTX ISA 9.7.17): `alloca`, `stacksave`, `stackrestore`.
//!
//! Each lane has its own stack pointer ([`Warp::sp`](super::warp::Warp::sp)), a `.local`
//! address in the lane's `alloca` area, which grows down from [`mem::DYN_TOP`] and never
//! shares an address with frames (those grow up from 0). `alloca` moves the pointer down
//! (aligned) and returns it, so the pointer is always the lowest address of the live `alloca`
//! memory; `stacksave` reads it and `stackrestore` sets it; a call records each lane's pointer
//! on entry and the return restores it, which releases whatever the callee allocated. On the
//! GPU's stack, the lane's frames of the active call chain (each [`mem::CALL_FRAME_COST`] plus
//! the function's `.local` variables) and its live `alloca` memory must fit in the launch's
//! per-thread stack ([`crate::Launch::stack`]), checked here, at each call and at accesses to
//! `.local` variables (docs/INTERP.md, *Limits*).

use super::ctx::{lanes, Ctx};
use super::flow::Flow;
use crate::code::Opnd;
use crate::error::Error;
use crate::int::mask;
use crate::mem;

/// `immAlign`'s largest value (PTX ISA 9.7.17.3).
const MAX_ALIGN: u64 = 1 << 23;
/// The minimum alignment `alloca` guarantees (`frame_align`), also its default `immAlign`.
const FRAME_ALIGN: u64 = 8;

/// Width of the instruction's `.u32`/`.u64` type.
fn width(x: &Ctx<'_, '_>) -> u32 {
    x.d.ty.map(|t| t.bits()).unwrap_or(64).min(64)
}

/// `alloca.type ptr, size{, immAlign}`
pub fn alloca(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let w = width(x);
    let first = x.emask.trailing_zeros() as usize;
    let [d, size] = x.ops();
    let align = match x.opt(2) {
        None => FRAME_ALIGN,
        Some(Opnd::Imm(v)) => *v,
        Some(_) => return Err(x.unsupported("alloca alignment is not an integer constant")),
    };
    // The verifier reports a bad value too (`immediate-range`), but unverified IR runs here.
    if !align.is_power_of_two() || align > MAX_ALIGN {
        return Err(x.undefined(
            first,
            format!(
                "alloca alignment {align} is not a power of two no larger than 2^23 (PTX ISA 9.7.17.3)"
            ),
        ));
    }
    let a = align.max(FRAME_ALIGN);
    // This activation's frame ends here; deeper frames are gone (a later call checks its own).
    let frame_end = x.sbase as u64 + super::state::own_stack(x.f, x.depth) as u64;
    let limit = x.m.stack_limit as u64;
    let sizes = x.read(size, x.emask)?;
    let mut out = [0u64; 32];
    for l in lanes(x.emask) {
        let size = sizes[l] & mask(w);
        let sp = x.w.sp[l] as u64;
        let new = sp.checked_sub(size).map(|v| v & !(a - 1));
        let need = match new {
            Some(n) => (mem::DYN_TOP as u64 - n) + frame_end,
            None => (mem::DYN_TOP as u64 - sp + frame_end).saturating_add(size),
        };
        let Some(new) = new.filter(|_| need <= limit) else {
            return Err(Error::StackOverflow {
                site: x.site(),
                thread: x.thread(l),
                depth: x.depth as u64,
                bytes: need,
                limit,
            });
        };
        // The area's vector grows at its low end (doubling, so a loop of small allocas does
        // not copy it each time); `new` is at least `DYN_TOP - limit`, so `need` fits.
        let need = (mem::DYN_TOP as u64 - new) as usize;
        let d = &mut x.w.dyn_stacks[l];
        if d.len() < need {
            let len = need.max(d.len() * 2).min(limit as usize);
            let grow = (len - d.len()) as u64;
            x.m.mem.charge(grow, || "alloca memory".into())?;
            x.cl.charged += grow;
            let d = &mut x.w.dyn_stacks[l];
            let mut grown = vec![0u8; len - d.len()];
            grown.extend_from_slice(d);
            *d = grown;
        }
        let new = new as u32;
        // With the `init` check, the allocated bytes are unwritten (the area is mapped top
        // down: `[new, sp)` is `[DYN_TOP - sp, DYN_TOP - new)`).
        if let Some(s) = x.w.alloca_init.get_mut(l) {
            s.grow((mem::DYN_TOP - new) as usize);
            s.clear(
                (mem::DYN_TOP as u64 - sp) as usize,
                (sp - new as u64) as usize,
            );
        }
        x.w.sp[l] = new;
        let f = &mut x.w.sp_frames[x.depth][l];
        f.low = f.low.min(new);
        out[l] = new as u64;
    }
    x.write(d, &out, x.emask)?;
    Ok(Flow::Next)
}

/// `stacksave.type d`
pub fn stacksave(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let mut out = [0u64; 32];
    for l in lanes(x.emask) {
        out[l] = x.w.sp[l] as u64;
    }
    let [d] = x.ops();
    x.write(d, &out, x.emask)?;
    Ok(Flow::Next)
}

/// `stackrestore.type a`
pub fn stackrestore(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let w = width(x);
    let [a] = x.ops();
    let v = x.read(a, x.emask)?;
    for l in lanes(x.emask) {
        let a = v[l] & mask(w);
        let f = x.w.sp_frames[x.depth][l];
        // Every value a `stacksave` in this activation can produce is a multiple of 8 between
        // the lowest pointer its `alloca`s reached and the pointer at entry; anything else
        // would hand the caller's or a dead callee's memory to later `alloca`s.
        if a % FRAME_ALIGN != 0 || a < f.low as u64 || a > f.entry as u64 {
            return Err(x.undefined(
                l,
                format!(
                    "stackrestore to {a:#x}, which no stacksave in this function could have produced (its stack pointer has been in [{:#x}, {:#x}]; PTX ISA 9.7.17.2)",
                    f.low, f.entry
                ),
            ));
        }
        x.w.sp[l] = a as u32;
    }
    Ok(Flow::Next)
}
