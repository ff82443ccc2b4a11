//! Cross-proxy fences (seed 002, "Asynchronous proxy"; PTX ISA 8.6 / 9.7.9.25.4): bulk and
//! tensor copies (`cp{.reduce}.async.bulk{.tensor}`) access memory through the *async proxy*,
//! ordinary loads and stores through the *generic proxy*, and "accessing the same memory
//! location across multiple proxies needs a cross-proxy fence; for the async proxy,
//! `fence.proxy.async`".
//!
//! What is checked is the case that is certainly wrong: an async-proxy read (the source of a
//! bulk or tensor copy) of bytes written through the generic proxy when no `fence.proxy.async`
//! (nor `membar.proxy.async`, nor `fence.proxy.async::generic.release`) has been executed, by any
//! thread, since the write. A fence of any thread clears every earlier write of its state space
//! (`.shared::cta`/`.shared::cluster`: shared memory; `.global`: global memory; no space: both),
//! so a program that fences in one thread and copies in another after a barrier is never
//! reported. The tensor map itself is read through the tensormap proxy, not checked here. The
//! implicit generic-async fence at the completion of a bulk copy orders the copy's own writes
//! (the interpreter writes them at completion, outside the generic proxy), so they are never
//! marked.
//!
//! Only launches whose program contains a bulk or tensor copy track writes
//! ([`Machine::proxy_watch`]): a bitmap of 4-byte words per CTA of shared memory (bulk sources
//! are 16-byte aligned multiples of 16 bytes, so words are exact) and merged global ranges,
//! kept in [`super::state::proxy`].

use super::ctx::Ctx;
use super::flow::Flow;
use super::state::inflight::Src;
use super::state::{Cluster, Machine};
use crate::error::Error;
use crate::load::Program;
use ptx_ir_core::{Flag, Opcode, Sem, Space};

/// Whether a launch of `prog` must track generic writes: it contains an async-proxy copy.
pub fn needed(prog: &Program) -> bool {
    prog.funcs.iter().any(|f| {
        f.code.iter().any(|d| {
            matches!(
                d.op,
                Opcode::CpAsyncBulk
                    | Opcode::CpReduceAsyncBulk
                    | Opcode::CpAsyncBulkTensor
                    | Opcode::CpReduceAsyncBulkTensor
            )
        })
    })
}

/// A proxy fence (`fence.proxy.async{.space}`, `membar.proxy.async{.space}`,
/// `fence.proxy.async::generic.release...`): forgets the generic writes of its spaces.
fn fence(m: &mut Machine<'_>, cl: &mut Cluster, shared: bool, global: bool) {
    if shared {
        cl.proxy.clear();
    }
    if global {
        m.gproxy.clear();
    }
}

/// Checks that the async-proxy reads `srcs` of lane `l`'s copy read no generic write that no
/// proxy fence has followed.
pub fn check_reads(x: &Ctx<'_, '_>, l: usize, srcs: &[Src]) -> Result<(), Error> {
    if !x.m.proxy_watch {
        return Ok(());
    }
    let what = x.d.op.name();
    for s in srcs {
        let hit = match *s {
            Src::Shared { rank, off, len } => {
                x.cl.proxy
                    .first(rank, off, len)
                    .map(|o| format!("shared memory {o:#x} (CTA rank {rank})"))
            }
            Src::Global { addr, len } => {
                x.m.gproxy
                    .first(addr, len)
                    .map(|a| format!("global memory {a:#x}"))
            }
        };
        if let Some(at) = hit {
            return Err(x.undefined(
                l,
                format!("{what} reads {at} through the async proxy, written through the generic proxy with no fence.proxy.async since (seed 002: accessing the same memory location across multiple proxies needs a cross-proxy fence; for the async proxy, fence.proxy.async)"),
            ));
        }
    }
    Ok(())
}

/// `membar`, `fence`, `griddepcontrol`: one instruction at a time in program order is
/// sequentially consistent across proxies too, and a dependent grid never runs concurrently with
/// this one, so what remains is to record the fences between the generic and the async proxy:
/// `fence.proxy.async{.space}`, `membar.proxy.async{.space}` and
/// `fence.proxy.async::generic.release...`, which order generic-proxy writes before async-proxy
/// accesses.
pub fn fence_instruction(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    if !x.m.proxy_watch || !x.has(Flag::Proxy) {
        return Ok(Flow::Next);
    }
    let async_generic = x.has(Flag::AsyncGeneric);
    if !(x.has(Flag::Async) || async_generic && x.d.sem == Some(Sem::Release)) {
        return Ok(Flow::Next);
    }
    let (shared, global) = match x.d.space {
        None if async_generic => (true, false),
        None => (true, true),
        Some(Space::Global) => (false, true),
        Some(_) => (true, false),
    };
    fence(x.m, x.cl, shared, global);
    Ok(Flow::Next)
}
