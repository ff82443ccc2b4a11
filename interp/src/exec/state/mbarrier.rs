//! The state of an initialised mbarrier object and its transitions: phase completion, arrive-on,
//! complete-tx and the state token, each misuse reported with the rule it breaks.
//! `exec/mbarrier.rs` describes the object model and executes the instructions; the completion
//! of an asynchronous operation (`exec/inflight.rs`) signals an object through these functions
//! without importing the instructions.

use rustc_hash::FxHashMap;

/// The largest arrival count and tx-count magnitude.
pub const MAX_COUNT: i64 = (1 << 20) - 1;

/// One initialised mbarrier object.
#[derive(Clone, Copy, Debug)]
pub struct Mbar {
    /// Expected arrivals per phase.
    pub expected: u32,
    /// Arrivals still pending in the current phase.
    pub pending: u32,
    /// Transaction count.
    pub tx: i64,
    /// Phase number.
    pub phase: u64,
    /// A wait has returned `True` for the last completed phase (vacuously true in phase 0).
    pub observed: bool,
}

const RULE_OBSERVE: &str = "an arrive-on operation in a phase whose preceding phase no test_wait/try_wait has observed complete (PTX ISA 9.7.13.15.4: for each phase at least one test_wait or try_wait must return True before an arrive-on in the subsequent phase)";

/// Completes the phase if nothing is pending: the phase number advances and the pending count
/// is reloaded.
pub fn settle_phase(b: &mut Mbar) {
    if b.pending == 0 && b.tx == 0 {
        b.phase += 1;
        b.pending = b.expected;
        b.observed = false;
    }
}

/// Checks a tx-count against its range.
pub fn tx_check(t: i64) -> Result<(), String> {
    if t.abs() > MAX_COUNT {
        return Err(format!(
            "mbarrier tx-count {t} out of range -(2^20-1)..2^20-1 (PTX ISA 9.7.13.15.2)"
        ));
    }
    Ok(())
}

/// The rule broken by an mbarrier operation on memory with no initialised object.
pub fn not_valid(rank: u32, off: u32) -> String {
    format!("mbarrier operation on shared memory (CTA rank {rank}, {off:#x}) that holds no initialised mbarrier object (PTX ISA 9.7.13.15: undefined on an uninitialised object)")
}

/// A complete-tx of `n` bytes (from an asynchronous operation finishing).
pub fn complete_tx(
    mbars: &mut FxHashMap<(u32, u32), Mbar>,
    key: (u32, u32),
    n: i64,
) -> Result<(), String> {
    let b = mbars.get_mut(&key).ok_or_else(|| not_valid(key.0, key.1))?;
    b.tx -= n;
    tx_check(b.tx)?;
    settle_phase(b);
    Ok(())
}

/// An arrive-on of `count` arrivals (`.noComplete`: it must not complete the phase).
pub fn arrive_on(b: &mut Mbar, count: u32, no_complete: bool) -> Result<(), String> {
    if count == 0 || count as i64 > MAX_COUNT {
        return Err(format!(
            "mbarrier arrive count {count} out of range 1..2^20-1 (PTX ISA 9.7.13.15.2)"
        ));
    }
    if count > b.pending {
        return Err(format!(
            "mbarrier arrive-on with count {count} when only {} arrivals are pending (PTX ISA 9.7.13.15.2: the pending count cannot go below 0)",
            b.pending
        ));
    }
    if !b.observed {
        return Err(RULE_OBSERVE.into());
    }
    b.pending -= count;
    if no_complete {
        if b.pending == 0 && b.tx == 0 {
            return Err("mbarrier.arrive.noComplete completed the current phase (PTX ISA 9.7.13.15.13: undefined)".into());
        }
    } else {
        settle_phase(b);
    }
    Ok(())
}

/// The arrive-on of a `cp.async.mbarrier.arrive` once its copies are done.
pub fn async_arrive(
    mbars: &mut FxHashMap<(u32, u32), Mbar>,
    key: (u32, u32),
) -> Result<(), String> {
    let b = mbars.get_mut(&key).ok_or_else(|| not_valid(key.0, key.1))?;
    arrive_on(b, 1, false)
}

/// `cp.async.mbarrier.arrive` without `.noinc`: the pending count goes up by one first.
pub fn async_arrive_inc(
    mbars: &mut FxHashMap<(u32, u32), Mbar>,
    key: (u32, u32),
) -> Result<(), String> {
    let b = mbars.get_mut(&key).ok_or_else(|| not_valid(key.0, key.1))?;
    if b.pending as i64 + 1 > MAX_COUNT {
        return Err("cp.async.mbarrier.arrive raised the pending count beyond 2^20-1 (PTX ISA 9.7.13.15.15)".into());
    }
    b.pending += 1;
    Ok(())
}

/// The state token an arrive returns (the layout is in `exec/mbarrier.rs`).
pub fn token(phase: u64, pending: u32, no_complete: bool, off: u32) -> u64 {
    (1 << 63)
        | ((phase & 0x7f_ffff) << 40)
        | ((((off >> 3) & 0x3_ffff) as u64) << 22)
        | ((no_complete as u64) << 21)
        | (pending as u64 & 0x1f_ffff)
}
