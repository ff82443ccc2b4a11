//! The execution context of one warp-instruction: operand access for all lanes at once,
//! checked memory access, special registers and error construction.

use super::state::{own_stack, Cluster, Machine};
use super::warp::Warp;
use crate::code::{DInst, FuncId, Lowering, MemBase, Opnd, MISSING};
use crate::error::{Error, FaultKind, Site, Thread};
use crate::load::Func;
use crate::mem::{self, Region};
use crate::regs::Regs;
use ptx_ir_core::{Flag, Space, SpecialReg, Type};
use smallvec::SmallVec;

/// What a `race` finding on an atomic marked [`Lowering::RemoteRmw`] adds.
pub(crate) const REMOTE_RMW_NOTE: &str = "; ptxas (CUDA 13.0, sm_90) makes this 64-bit atomic on another CTA's shared memory a plain load and store (LD.E.64, ST.E.64), not atomic: concurrent updates of the word are lost on the GPU";

/// 32 lanes of values.
pub type Lanes = [u64; 32];

/// Iterates over the set bits of a lane mask.
#[inline]
pub fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// A state space as an instruction names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AddrSpace {
    /// No space qualifier.
    Generic,
    /// `.global`
    Global,
    /// `.shared`, `.shared::cta`
    Shared,
    /// `.shared::cluster`
    SharedCluster,
    /// `.local`
    Local,
    /// `.param` (kernel parameters or the thread's frames, by address)
    Param,
    /// `.const`
    Const,
}

impl AddrSpace {
    /// The space named by an instruction's first state-space modifier.
    pub fn of(s: Option<Space>) -> AddrSpace {
        match s {
            None | Some(Space::Reg) | Some(Space::Sreg) | Some(Space::Tex) => AddrSpace::Generic,
            Some(Space::Global) => AddrSpace::Global,
            Some(Space::Shared) | Some(Space::SharedCta) => AddrSpace::Shared,
            Some(Space::SharedCluster) => AddrSpace::SharedCluster,
            Some(Space::Local) => AddrSpace::Local,
            Some(Space::Param) | Some(Space::ParamEntry) | Some(Space::ParamFunc) => {
                AddrSpace::Param
            }
            Some(Space::Const) => AddrSpace::Const,
        }
    }

    /// The space's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            AddrSpace::Generic => "generic",
            AddrSpace::Global => "global",
            AddrSpace::Shared => "shared",
            AddrSpace::SharedCluster => "shared::cluster",
            AddrSpace::Local => "local",
            AddrSpace::Param => "param",
            AddrSpace::Const => "const",
        }
    }
}

/// Everything an instruction may touch.
pub struct Ctx<'a, 'p> {
    /// Launch-wide state.
    pub m: &'a mut Machine<'p>,
    /// The warp's cluster.
    pub cl: &'a mut Cluster,
    /// The warp.
    pub w: &'a mut Warp,
    /// The function executing.
    pub f: &'p Func,
    /// Its id.
    pub fid: FuncId,
    /// The instruction's pc.
    pub pc: u32,
    /// The executing group's index in [`Warp::groups`].
    pub gi: usize,
    /// The decoded instruction.
    pub d: &'p DInst,
    /// Call depth (register file index).
    pub depth: usize,
    /// Frame base.
    pub base: u32,
    /// GPU stack bytes in use above this activation's frame ([`super::warp::Group::sbase`]).
    pub sbase: u32,
    /// The group's lanes.
    pub gmask: u32,
    /// The lanes whose guard holds.
    pub emask: u32,
    /// The instruction asks the scheduler to run another warp next (a failed poll).
    pub yield_warp: bool,
}

impl<'a, 'p> Ctx<'a, 'p> {
    /// The instruction's site, for errors: the function, the index and the instruction's text
    /// (from the IR instruction, which nothing else on the execution path reads).
    pub fn site(&self) -> Site {
        Site {
            function: self.f.name.clone(),
            index: self.pc,
            inst: self
                .f
                .insts
                .get(self.pc as usize)
                .map(|i| crate::fmt::inst(&self.m.prog.names, i))
                .unwrap_or_default(),
        }
    }

    /// A lane's coordinates, for errors.
    pub fn thread(&self, lane: usize) -> Thread {
        Thread {
            ctaid: self
                .cl
                .ctaid
                .get(self.w.cta as usize)
                .copied()
                .unwrap_or_default(),
            tid: self.w.tid[lane & 31],
            lane: lane as u32,
        }
    }

    /// The instruction's type qualifiers in order (decoded at load).
    #[inline]
    pub fn types(&self) -> &'p [Type] {
        let d: &'p DInst = self.d;
        &d.types
    }

    /// Whether the instruction has flag `f` (from its qualifiers, decoded at load).
    #[inline]
    pub fn has(&self, f: Flag) -> bool {
        self.d.flags.has(f)
    }

    /// An `Unsupported` error for this instruction.
    pub fn unsupported(&self, what: impl Into<String>) -> Error {
        Error::Unsupported {
            site: self.site(),
            what: what.into(),
        }
    }

    /// An `Undefined` error for this instruction and lane.
    pub fn undefined(&self, lane: usize, rule: impl Into<String>) -> Error {
        Error::Undefined {
            site: self.site(),
            thread: self.thread(lane),
            rule: rule.into(),
        }
    }

    /// Splits off the lanes whose guard is false (they go on to the next instruction) so that
    /// the group holds exactly the executing lanes; for barrier-like instructions.
    pub fn split_guard(&mut self) {
        let off = self.gmask & !self.emask;
        if off != 0 {
            let mut h = self.w.groups[self.gi].clone();
            h.mask = off;
            h.pc += 1;
            self.w.groups[self.gi].mask = self.emask;
            self.gmask = self.emask;
            // Sorts after the group itself (same chain, later pc), so `gi` stays valid.
            self.w.insert(h);
        }
    }

    /// The first `N` operands. The load step checked the instruction against its handler's
    /// [`Arity`](crate::arity::Arity), so that a handler asking for no more than the fewest it
    /// takes always gets them; were it to ask for more, it would get [`Opnd::Missing`], which
    /// every read, write or address of it reports as an error.
    #[inline]
    pub fn ops<const N: usize>(&self) -> [&'p Opnd; N] {
        let d: &'p DInst = self.d;
        match d.opnds.first_chunk::<N>() {
            Some(o) => o.each_ref(),
            None => [&MISSING; N],
        }
    }

    /// The destination (operand 0) and the `N` sources after it, as [`Ctx::ops`] gives them.
    #[inline]
    pub fn dst_src<const N: usize>(&self) -> (&'p Opnd, [&'p Opnd; N]) {
        let d: &'p DInst = self.d;
        match d.opnds.split_first() {
            Some((dst, rest)) => match rest.first_chunk::<N>() {
                Some(s) => (dst, s.each_ref()),
                None => (dst, [&MISSING; N]),
            },
            None => (&MISSING, [&MISSING; N]),
        }
    }

    /// Operand `k` if the instruction has it: an operand past the fewest its handler takes.
    #[inline]
    pub fn opt(&self, k: usize) -> Option<&'p Opnd> {
        let d: &'p DInst = self.d;
        d.opnds.get(k)
    }

    /// The error for operand `o` of a kind that its use does not take (`what`).
    #[cold]
    fn kind_error(&self, o: &Opnd, what: &str) -> Error {
        self.unsupported(match o {
            Opnd::Missing => "an operand the instruction does not have",
            _ => what,
        })
    }

    #[inline]
    fn regs(&self) -> &Regs {
        &self.w.regs[self.depth]
    }

    /// Value of a source operand in one lane.
    #[inline]
    pub fn get(&self, o: &Opnd, lane: usize) -> Result<u64, Error> {
        Ok(match o {
            Opnd::Reg { slot, .. } => self.regs().get(*slot, lane),
            Opnd::Imm(v) => *v,
            Opnd::Not(slot) => (self.regs().get(*slot, lane) & 1) ^ 1,
            Opnd::Special(r, c) => self.special(*r, *c, lane)?,
            Opnd::Frame(off) => self.base as u64 + *off as u64,
            Opnd::Func(f) => crate::load::Program::func_addr(*f),
            Opnd::Sink => 0,
            o => return Err(self.kind_error(o, "operand kind not readable as a value")),
        })
    }

    /// Value of a source operand in every lane of `mask` (others unspecified).
    #[inline]
    pub fn read(&self, o: &Opnd, mask: u32) -> Result<Lanes, Error> {
        let mut out = [0u64; 32];
        match o {
            Opnd::Reg { slot, .. } => {
                if let Some(v) = self.regs().lanes(*slot) {
                    out = v;
                }
            }
            Opnd::Imm(v) => out = [*v; 32],
            Opnd::Special(r, c) => {
                out = super::special::lanes(self.m, self.cl, self.w, *r, *c, mask)?;
            }
            _ => {
                for l in lanes(mask) {
                    out[l] = self.get(o, l)?;
                }
            }
        }
        Ok(out)
    }

    /// The high half of a 128-bit register operand.
    pub fn get_hi(&self, o: &Opnd, lane: usize) -> u64 {
        match o {
            Opnd::Reg { slot, bits } if *bits > 64 => self.regs().get(*slot + 1, lane),
            _ => 0,
        }
    }

    /// Notes a register write for the wgmma fence rule (only after a `wgmma.fence`).
    #[inline]
    fn note_write(&mut self, slot: u32, bits: u16) {
        if let Some(s) = &mut self.w.wg {
            if s.fenced {
                s.mark(self.depth, slot, if bits > 64 { 2 } else { 1 });
            }
        }
    }

    /// Writes `v` (masked to the register's width) to a destination operand for the lanes in
    /// `mask`. A sink or immediate destination discards.
    #[inline]
    pub fn write(&mut self, o: &Opnd, v: &Lanes, mask: u32) -> Result<(), Error> {
        match o {
            Opnd::Reg { slot, bits } => {
                if self.w.wg.is_some() {
                    self.note_write(*slot, *bits);
                }
                let m = if *bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << *bits) - 1
                };
                let regs = &mut self.w.regs[self.depth];
                regs.write(*slot, v, m, mask);
                if *bits > 64 {
                    regs.write(*slot + 1, &[0; 32], 0, mask);
                }
                Ok(())
            }
            Opnd::Sink => Ok(()),
            o => Err(self.kind_error(o, "destination is not a register")),
        }
    }

    /// Writes one lane.
    #[inline]
    pub fn set(&mut self, o: &Opnd, lane: usize, v: u64) -> Result<(), Error> {
        match o {
            Opnd::Reg { slot, bits } => {
                if self.w.wg.is_some() {
                    self.note_write(*slot, *bits);
                }
                let m = if *bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << *bits) - 1
                };
                self.w.regs[self.depth].set(*slot, lane, v & m);
                Ok(())
            }
            Opnd::Sink => Ok(()),
            o => Err(self.kind_error(o, "destination is not a register")),
        }
    }

    /// Writes one lane of a 128-bit register (or the low half of a narrower one).
    pub fn set128(&mut self, o: &Opnd, lane: usize, lo: u64, hi: u64) -> Result<(), Error> {
        match o {
            Opnd::Reg { slot, bits } if *bits > 64 => {
                if self.w.wg.is_some() {
                    self.note_write(*slot, *bits);
                }
                let regs = &mut self.w.regs[self.depth];
                regs.set(*slot, lane, lo);
                regs.set(*slot + 1, lane, hi);
                Ok(())
            }
            _ => self.set(o, lane, lo),
        }
    }

    /// The carry flag of a lane.
    #[inline]
    pub fn cc(&self, lane: usize) -> u64 {
        self.regs().get(crate::load::CC_SLOT, lane) & 1
    }

    /// Sets the carry flag of a lane.
    #[inline]
    pub fn set_cc(&mut self, lane: usize, c: bool) {
        self.w.regs[self.depth].set(crate::load::CC_SLOT, lane, c as u64);
    }

    /// The address of a memory operand in one lane.
    #[inline]
    pub fn addr(&self, o: &Opnd, lane: usize) -> Result<u64, Error> {
        match o {
            Opnd::Mem(b, off) => {
                let base = match b {
                    MemBase::None => 0,
                    MemBase::Reg(s) => self.regs().get(*s, lane),
                    MemBase::Static(a) => *a,
                    MemBase::Frame(f) => self.base as u64 + *f as u64,
                };
                Ok(base.wrapping_add(*off as u64))
            }
            o => Err(self.kind_error(o, "expected an address operand")),
        }
    }

    /// Resolves `size` bytes at `addr` in `space` for `lane`.
    fn resolve(
        &mut self,
        space: AddrSpace,
        addr: u64,
        size: usize,
        lane: usize,
        write: bool,
    ) -> Result<&mut [u8], FaultKind> {
        // `.shared` and `.local` addresses are 32-bit on the GPU: an address computed in a
        // 32-bit register wraps there (libdevice's `sinf` slow path subtracts from the depot's
        // address 0 and adds the offset back: `[%r2+24]` with `%r2 = 0 - 12` is address 12).
        let (region, a) = match space {
            AddrSpace::Generic => mem::decode_generic(addr),
            AddrSpace::Global => (Region::Global, addr),
            AddrSpace::Shared | AddrSpace::SharedCluster => {
                (Region::Shared(u32::MAX), addr & 0xffff_ffff)
            }
            AddrSpace::Local => (Region::Local, addr & 0xffff_ffff),
            AddrSpace::Param => {
                if addr >= mem::KPARAM_BASE {
                    (Region::KParam, addr - mem::KPARAM_BASE)
                } else {
                    (Region::Local, addr)
                }
            }
            AddrSpace::Const => (Region::Const, addr),
        };
        match region {
            Region::Global => self.m.global.view(a, size, write),
            Region::Shared(_) => {
                let (rank, off) = mem::split_cluster(a);
                let r = rank.unwrap_or(self.w.cta) as usize;
                let sh = self.cl.shared.get_mut(r).ok_or(FaultKind::OutOfBounds)?;
                mem::flat(sh, off, size)
            }
            Region::Local => {
                if a >= mem::STACK_MAX as u64 {
                    // The `alloca` area: its vector holds the addresses just below `DYN_TOP`.
                    let st = self
                        .w
                        .dyn_stacks
                        .get_mut(lane)
                        .ok_or(FaultKind::OutOfBounds)?;
                    let start = mem::DYN_TOP as u64 - st.len() as u64;
                    let off = a.checked_sub(start).ok_or(FaultKind::OutOfBounds)?;
                    return mem::flat(st, off, size);
                }
                let st = self.w.stacks.get_mut(lane).ok_or(FaultKind::OutOfBounds)?;
                mem::flat(st, a, size)
            }
            Region::KParam => {
                if write {
                    return Err(FaultKind::ReadOnly);
                }
                mem::flat(&mut self.m.kparams, a, size)
            }
            Region::Const => {
                if write {
                    return Err(FaultKind::ReadOnly);
                }
                mem::flat(&mut self.m.consts, a, size)
            }
        }
    }

    /// A memory fault of this instruction.
    pub fn fault(
        &self,
        kind: FaultKind,
        space: AddrSpace,
        addr: u64,
        size: usize,
        lane: usize,
    ) -> Error {
        Error::Memory {
            site: self.site(),
            thread: self.thread(lane),
            kind,
            space: space.name().to_string(),
            addr,
            size: size as u32,
        }
    }

    /// Checked access: `f` gets the bytes. (Every parameter is one fact of the access; bundling
    /// them would only move the list into a struct built at each call site.)
    #[allow(clippy::too_many_arguments)]
    pub fn access<R>(
        &mut self,
        space: AddrSpace,
        addr: u64,
        size: usize,
        align: usize,
        lane: usize,
        write: bool,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R, Error> {
        if align > 1 && addr % align as u64 != 0 {
            return Err(self.fault(FaultKind::Misaligned, space, addr, size, lane));
        }
        if self.cl.inflight.watch || !self.m.gwatch.is_empty() {
            self.watch(space, addr, size, lane, write)?;
        }
        if self.m.checks.init {
            self.init_check(space, addr, size, lane, write);
        }
        if self.cl.race.is_some() {
            self.race_check(space, addr, size, lane, write);
        }
        if write {
            self.m.events += 1;
            if self.m.proxy_watch {
                match self.locate(space, addr) {
                    Some(Ok((rank, off))) => {
                        let n = self.cl.shared.get(rank as usize).map_or(0, |s| s.len());
                        self.cl.proxy.mark(rank, off as u64, size, n);
                    }
                    Some(Err(a)) => self.m.gproxy.mark(a, size as u64),
                    None => {}
                }
            }
        }
        if self.f.stack_bytes != 0 {
            if let Some(bytes) = self.stack_reach(space, addr, lane) {
                return Err(Error::StackOverflow {
                    site: self.site(),
                    thread: self.thread(lane),
                    depth: self.depth as u64,
                    bytes,
                    limit: self.m.stack_limit as u64,
                });
            }
        }
        let out = match self.resolve(space, addr, size, lane, write) {
            Ok(b) => f(b),
            Err(k) => return Err(self.fault(k, space, addr, size, lane)),
        };
        // Local memory is checked once the access is known to be in bounds (an access that
        // faults is the fault's finding alone). Unoptimised code (`.target debug`, nvcc -G)
        // keeps every variable in local memory and copies whole objects, unwritten members
        // and padding included: its local memory is not checked.
        if self.m.checks.init && !self.m.prog.debug {
            if let Some(a) = local_addr(space, addr) {
                self.init_local(a, size, lane, write);
            }
        }
        Ok(out)
    }

    /// The GPU stack depth (bytes) that an access at `addr` to one of this activation's `.local`
    /// variables reaches, when that is past the per-thread limit. The GPU faults only when a
    /// frame's memory past the limit is touched, so a call whose `.local` variables would not
    /// fit runs until it uses them (measured: `tools/hostile/results/stack.txt`).
    fn stack_reach(&self, space: AddrSpace, addr: u64, lane: usize) -> Option<u64> {
        let alloca_above = mem::DYN_TOP - self.w.sp_frames.get(self.depth)?.get(lane)?.entry;
        let top = self.sbase as u64 + alloca_above as u64 + own_stack(self.f, self.depth) as u64;
        if top <= self.m.stack_limit as u64 {
            return None;
        }
        let a = match space {
            AddrSpace::Local => addr,
            AddrSpace::Generic => match mem::decode_generic(addr) {
                (Region::Local, a) => a,
                _ => return None,
            },
            _ => return None,
        };
        let off = a.checked_sub(self.base as u64)?;
        let v =
            self.f.local_vars.iter().find(|v| {
                off >= v.frame_off as u64 && off - (v.frame_off as u64) < v.size as u64
            })?;
        let reach = top - (v.stack_off as u64 + (off - v.frame_off as u64));
        (reach > self.m.stack_limit as u64).then_some(reach)
    }

    /// The `init` check of one access: a write marks its bytes, a read of a byte nothing wrote
    /// is a finding (the access goes on). Out-of-bounds accesses are left to the access itself.
    fn init_check(&mut self, space: AddrSpace, addr: u64, size: usize, lane: usize, write: bool) {
        match self.locate(space, addr) {
            Some(Ok((rank, off))) => self.init_shared(rank, off, size, lane, write),
            Some(Err(a)) if !write && self.m.global_init => {
                if let Some(b) = self.m.global.uninit_at(a, size) {
                    self.init_finding(space, "global memory", size, b, lane);
                }
            }
            _ => {}
        }
    }

    /// The `init` check of an access to CTA `rank`'s shared memory at `off`.
    fn init_shared(&mut self, rank: u32, off: u32, size: usize, lane: usize, write: bool) {
        let Some(s) = self.cl.shared_init.get_mut(rank as usize) else {
            return;
        };
        if write {
            s.mark(off as usize, size);
        } else if let Some(b) = s.first_unset(off as usize, size) {
            self.init_finding(AddrSpace::Shared, "shared memory", size, b as u64, lane);
        }
    }

    /// The `init` check of an access to the lane's local memory at `a`: its frames (a frame's
    /// bytes are unwritten when the call makes it) and its `alloca` memory (unwritten when
    /// allocated).
    fn init_local(&mut self, a: u64, size: usize, lane: usize, write: bool) {
        let first = if a >= mem::STACK_MAX as u64 {
            // The `alloca` area, mapped top down: address `a` is byte `DYN_TOP - 1 - a`.
            let top = mem::DYN_TOP as u64;
            let Some(r) = top.checked_sub(a.saturating_add(size as u64)) else {
                return;
            };
            let Some(s) = self.w.alloca_init.get_mut(lane) else {
                return;
            };
            if write {
                s.mark(r as usize, size);
                self.take_back(a, size, lane);
                return;
            }
            // A read of which some bytes were written (a structure copied with its padding)
            // is no finding: only reads of nothing written are.
            if s.first_unset(r as usize, size).is_none() || s.any_set(r as usize, size) {
                return;
            }
            // The lowest address not written, for the message.
            (a..a + size as u64).find(|&b| s.first_unset((top - 1 - b) as usize, 1).is_some())
        } else {
            let Some(s) = self.w.local_init.get_mut(lane) else {
                return;
            };
            if write {
                s.mark(a as usize, size);
                self.take_back(a, size, lane);
                return;
            }
            s.first_unset(a as usize, size)
                .filter(|_| !s.any_set(a as usize, size))
                .map(|b| b as u64)
        };
        // Reported when the launch ends unless the thread writes these bytes first: a
        // bit-field store reads the word it changes (nvcc -G code), which is no bug.
        if let Some(first) = first {
            let thread = self.thread(lane);
            let p = super::state::PendingLocal {
                fid: self.fid,
                pc: self.pc,
                thread,
                lo: a,
                hi: a + size as u64,
                first,
            };
            let v = self
                .m
                .pending_local
                .entry((thread.ctaid, thread.tid))
                .or_default();
            // A read repeated (a loop) is listed once; a thread keeps at most 64.
            if v.len() < 64 && !v.iter().any(|q| (q.fid, q.pc, q.lo) == (p.fid, p.pc, p.lo)) {
                v.push(p);
            }
        }
    }

    /// A write of local `[a, a + size)` by `lane` takes back the thread's pending reads of
    /// those bytes.
    fn take_back(&mut self, a: u64, size: usize, lane: usize) {
        if self.m.pending_local.is_empty() {
            return;
        }
        let t = self.thread(lane);
        if let Some(v) = self.m.pending_local.get_mut(&(t.ctaid, t.tid)) {
            let hi = a + size as u64;
            v.retain(|p| !(p.lo < hi && a < p.hi));
            if v.is_empty() {
                self.m.pending_local.remove(&(t.ctaid, t.tid));
            }
        }
    }

    /// A `sync` finding at this instruction ([`crate::check`]), for threads `lanes` of the warp;
    /// `what` is formatted the first time only.
    pub(crate) fn sync_finding(&mut self, lanes: &[usize], what: impl FnOnce() -> String) {
        let (fid, pc) = (self.fid, self.pc);
        if self.m.findings.repeat(crate::check::Class::Sync, fid, pc) {
            return;
        }
        let finding = crate::check::Finding {
            class: crate::check::Class::Sync,
            what: what(),
            site: self.site(),
            threads: lanes.iter().map(|&l| self.thread(l)).collect(),
            space: None,
            addr: None,
            count: 1,
        };
        self.m
            .findings
            .add(crate::check::Class::Sync, fid, pc, || finding);
    }

    fn init_finding(&mut self, space: AddrSpace, what: &str, size: usize, first: u64, lane: usize) {
        let (fid, pc) = (self.fid, self.pc);
        if self.m.findings.repeat(crate::check::Class::Init, fid, pc) {
            return;
        }
        let finding = crate::check::Finding {
            class: crate::check::Class::Init,
            what: format!(
                "read of {size} bytes of {what}, of which byte {first:#x} was never written"
            ),
            site: self.site(),
            threads: vec![self.thread(lane)],
            space: Some(space.name().to_string()),
            addr: Some(first),
            count: 1,
        };
        self.m
            .findings
            .add(crate::check::Class::Init, fid, pc, || finding);
    }

    /// The `race` check of one access to shared or global memory (`exec/race.rs`).
    fn race_check(&mut self, space: AddrSpace, addr: u64, size: usize, lane: usize, write: bool) {
        match self.locate(space, addr) {
            Some(Ok((rank, off))) => self.race_shared(rank, off, size, lane, write),
            Some(Err(a)) => self.race_global(a, size, lane, write),
            None => {}
        }
    }

    /// Whether the executing instruction's memory accesses are atomic (`atom`, `red`, `sured`,
    /// `red.async`, `multimem.red`/`.ld_reduce`: read-modify-writes the memory system performs
    /// indivisibly) or strong (a `.relaxed`/`.acquire`/`.release`/`.volatile`.. access): such
    /// accesses are no data race with each other (PTX ISA 8, morally strong operations), so the
    /// race check takes them as synchronising, never as plain.
    fn atomic_or_strong(&self) -> bool {
        use ptx_ir_core::Opcode;
        matches!(
            self.d.op,
            Opcode::Atom
                | Opcode::Red
                | Opcode::Sured
                | Opcode::RedAsync
                | Opcode::MultimemRed
                | Opcode::MultimemLdReduce
        ) || self.d.sem.is_some_and(|s| s != ptx_ir_core::Sem::Weak)
    }

    /// The `race` check of an access to global memory at `a`: atomics and strong accesses
    /// synchronise (at the instruction, `exec/step.rs`), plain ones are checked against the
    /// cluster's accesses nothing orders before them and remembered for the check between
    /// clusters.
    fn race_global(&mut self, a: u64, size: usize, lane: usize, write: bool) {
        self.race_global_lanes(&[(lane as u8, a)], size, write);
    }

    /// [`Ctx::race_global`] for the executing lanes of one access, (lane, global address) in
    /// `lanes`: what they share is worked out once (the per-lane call cost more than the
    /// check itself on global-memory loops).
    pub(crate) fn race_global_lanes(&mut self, lanes: &[(u8, u64)], size: usize, write: bool) {
        let strong = self.atomic_or_strong();
        if strong {
            return;
        }
        let Some(g) = self.m.grace.as_deref() else {
            return;
        };
        let prog = self.m.prog;
        let (block, grid) = (self.m.block, self.m.grid);
        let (func, pc, cta, index) = (self.fid, self.pc, self.w.cta, self.w.index);
        // The execution of the instruction (lanes of one warp race only across executions).
        let step = self.m.stats.warp_instructions as u32;
        let ctaid = self.cl.ctaid.get(cta as usize).copied().unwrap_or_default();
        let at =
            crate::exec::race::Rep::new(g.epoch(), g.site(func, pc), linear(ctaid, grid) as u32);
        let wpc = (block[0] * block[1] * block[2]).div_ceil(32);
        let tid_of = |w: u32, lane: u8| tid_in_block(block, wpc, w, lane);
        let tids = &self.w.tid;
        let cl = &mut *self.cl;
        let Some(rc) = cl.race.as_mut() else {
            return;
        };
        let charge = shadow_charge(&mut self.m.mem, &mut cl.charged);
        let w = rc.warp_id(cta, index);
        let tid = |lane: u8| linear(tids[lane as usize & 31], block) as u16;
        let thread = |lane: u8| Thread {
            ctaid,
            tid: tids[lane as usize & 31],
            lane: lane as u32,
        };
        rc.global_access(
            &mut self.m.findings,
            |f, pc| prog.site(f, pc),
            thread,
            w,
            func,
            pc,
            lanes,
            tid,
            size as u32,
            write,
            step,
            tid_of,
            at,
            charge,
        );
    }

    /// The `race` check of an access to CTA `rank`'s shared memory at `off`: atomics and
    /// strong accesses synchronise, plain ones are checked against the accesses nothing
    /// orders before them.
    fn race_shared(&mut self, rank: u32, off: u32, size: usize, lane: usize, write: bool) {
        self.race_shared_lanes(&[(lane as u8, rank, off)], size, write);
    }

    /// The `init` and `race` checks of the executing lanes' accesses to shared memory, (lane,
    /// CTA rank, offset) in `lanes`, for the accesses that skip [`Ctx::access`]
    /// (`exec/direct.rs`): the race check's shared work is done once for the warp.
    pub(crate) fn check_shared_lanes(
        &mut self,
        lanes: &[(u8, u32, u32)],
        size: usize,
        write: bool,
    ) {
        if self.m.checks.init {
            for &(lane, rank, off) in lanes {
                self.init_shared(rank, off, size, lane as usize, write);
            }
        }
        if self.cl.race.is_some() {
            self.race_shared_lanes(lanes, size, write);
        }
    }

    /// [`Ctx::race_shared`] for the executing lanes of one access, (lane, CTA rank, offset) in
    /// `lanes`.
    fn race_shared_lanes(&mut self, lanes: &[(u8, u32, u32)], size: usize, write: bool) {
        let strong = self.atomic_or_strong();
        let prog = self.m.prog;
        let block = self.m.block;
        let (func, pc, cta, index) = (self.fid, self.pc, self.w.cta, self.w.index);
        // The execution of the instruction (lanes of one warp race only across executions).
        let step = self.m.stats.warp_instructions as u32;
        let ctaid = self.cl.ctaid.get(cta as usize).copied().unwrap_or_default();
        let tids = &self.w.tid;
        let Some(rc) = self.cl.race.as_mut() else {
            return;
        };
        let w = rc.warp_id(cta, index);
        // Another CTA's word under an atomic that ptxas makes a plain read-modify-write is
        // checked as a plain access; the CTA's own words stay atomic.
        let remote_rmw = strong && matches!(self.d.lower.as_deref(), Some(Lowering::RemoteRmw));
        let mut plain: SmallVec<[(u8, u32, u32); 32]> = SmallVec::new();
        if strong {
            for &(lane, rank, off) in lanes {
                if remote_rmw && rank != cta {
                    plain.push((lane, rank, off));
                } else {
                    rc.sync_access(w, rank, off);
                }
            }
            if plain.is_empty() {
                return;
            }
        }
        let lanes = if remote_rmw { &plain[..] } else { lanes };
        let note = if remote_rmw { REMOTE_RMW_NOTE } else { "" };
        let wpc = (block[0] * block[1] * block[2]).div_ceil(32);
        let site = |f: u32, pc: u32| prog.site(f, pc);
        let tid_of = |w: u32, lane: u8| tid_in_block(block, wpc, w, lane);
        let thread = |lane: u8| Thread {
            ctaid,
            tid: tids[lane as usize & 31],
            lane: lane as u32,
        };
        rc.access(
            &mut self.m.findings,
            site,
            thread,
            w,
            func,
            pc,
            lanes,
            size as u32,
            write,
            step,
            tid_of,
            note,
        );
    }

    /// Where a checked access lands: `Some(Ok((rank, off)))` for shared memory,
    /// `Some(Err(addr))` for global memory, `None` for the other spaces.
    pub(crate) fn locate(&self, space: AddrSpace, addr: u64) -> Option<Result<(u32, u32), u64>> {
        let (region, a) = match space {
            AddrSpace::Generic => mem::decode_generic(addr),
            AddrSpace::Global => (Region::Global, addr),
            AddrSpace::Shared | AddrSpace::SharedCluster => (Region::Shared(u32::MAX), addr),
            _ => return None,
        };
        match region {
            Region::Global => Some(Err(a)),
            Region::Shared(_) => {
                let (rank, off) = mem::split_cluster(a);
                Some(Ok((rank.unwrap_or(self.w.cta), off as u32)))
            }
            _ => None,
        }
    }

    /// Checks a generic-proxy access against asynchronous operations in flight and mbarrier
    /// objects.
    fn watch(
        &self,
        space: AddrSpace,
        addr: u64,
        size: usize,
        lane: usize,
        write: bool,
    ) -> Result<(), Error> {
        use super::state::inflight::{describe, Conflict};
        let verb = if write { "write to" } else { "read of" };
        match self.locate(space, addr) {
            Some(Ok((rank, off))) => {
                let Some(c) = self.cl.inflight.check_shared(rank, off, size as u32, write) else {
                    return Ok(());
                };
                let op = self
                    .cl
                    .inflight
                    .op_at(rank, off, size as u32, true)
                    .map(|o| describe(self.m.prog, o))
                    .unwrap_or_default();
                let rule = match c {
                    Conflict::Mbarrier => format!(
                        "{verb} shared memory {off:#x} (CTA rank {rank}), which holds an initialised mbarrier object (PTX ISA 9.7.13.15: non-mbarrier operations on an initialised mbarrier object are undefined)"
                    ),
                    Conflict::PendingWrite => format!(
                        "{verb} shared memory {off:#x} (CTA rank {rank}) before the asynchronous operation {op} that writes it has completed (PTX ISA 9.7.9.25.1: wait for it with its completion mechanism first)"
                    ),
                    Conflict::PendingRead => format!(
                        "{verb} shared memory {off:#x} (CTA rank {rank}) while the asynchronous operation {op} still reads it (PTX ISA 9.7.9.25.1: modifying the source before completion is undefined)"
                    ),
                };
                Err(self.undefined(lane, rule))
            }
            Some(Err(a)) => {
                match self.m.gwatch.check(a, size as u64, write) {
                    None => Ok(()),
                    Some((c, id)) => {
                        let op = self
                            .cl
                            .inflight
                            .ops
                            .get(&id)
                            .map(|o| describe(self.m.prog, o))
                            .unwrap_or_else(|| format!("#{id} of another cluster"));
                        let what = match c {
                        Conflict::PendingRead => "still reads it (modifying the source before completion is undefined)",
                        _ => "writes it and has not completed (wait for it first)",
                    };
                        Err(self.undefined(
                        lane,
                        format!("{verb} global memory {a:#x} while the asynchronous operation {op} {what} (PTX ISA 9.7.9.25.1)"),
                    ))
                    }
                }
            }
            None => Ok(()),
        }
    }

    /// A shared-memory operand of an asynchronous or mbarrier instruction: (cluster rank,
    /// offset), checked to lie in shared memory (in the executing CTA's with `cta_only`) with
    /// `size` bytes in bounds.
    pub fn shared_loc(
        &self,
        space: AddrSpace,
        addr: u64,
        size: usize,
        lane: usize,
        cta_only: bool,
    ) -> Result<(u32, u32), Error> {
        let a = match space {
            AddrSpace::Generic => match mem::decode_generic(addr) {
                (Region::Shared(_), a) => a,
                _ => {
                    return Err(self.undefined(
                        lane,
                        format!(
                            "generic address {addr:#x} is not in the shared memory window (PTX ISA: the behaviour is undefined)"
                        ),
                    ))
                }
            },
            AddrSpace::Shared | AddrSpace::SharedCluster => addr,
            _ => {
                return Err(self.undefined(
                    lane,
                    format!("address {addr:#x} is not a shared memory address"),
                ))
            }
        };
        let (rank, off) = mem::split_cluster(a);
        let own = self.w.cta;
        let r = rank.unwrap_or(own);
        if cta_only && r != own {
            return Err(self.undefined(
                lane,
                format!(
                    "address {addr:#x} is in the shared memory of CTA rank {r}, not in the .shared::cta window of the executing CTA (PTX ISA: the behaviour is undefined)"
                ),
            ));
        }
        let len = self.cl.shared.get(r as usize).map(|s| s.len()).unwrap_or(0) as u64;
        if off.saturating_add(size as u64) > len {
            return Err(self.fault(FaultKind::OutOfBounds, space, addr, size, lane));
        }
        Ok((r, off as u32))
    }

    /// Stores up to 8 bytes little-endian.
    pub fn store(
        &mut self,
        space: AddrSpace,
        addr: u64,
        size: usize,
        lane: usize,
        v: u64,
    ) -> Result<(), Error> {
        self.access(space, addr, size, size, lane, true, |b| mem::put_le(b, v))
    }

    /// A special register's value in one lane.
    pub fn special(&self, r: SpecialReg, c: u8, lane: usize) -> Result<u64, Error> {
        super::special::value(self.m, self.cl, self.w, r, c, lane)
    }
}

/// The local-memory address an access at `addr` in `space` lands on, as [`Ctx::access`]
/// resolves it (`.param` addresses below the kernel parameters are the frames'); `None` for
/// the other spaces.
fn local_addr(space: AddrSpace, addr: u64) -> Option<u64> {
    match space {
        AddrSpace::Local => Some(addr & 0xffff_ffff),
        AddrSpace::Param if addr < mem::KPARAM_BASE => Some(addr),
        AddrSpace::Generic => match mem::decode_generic(addr) {
            (Region::Local, a) => Some(a),
            _ => None,
        },
        _ => None,
    }
}

/// The linear index of `v` in a box of dimensions `d` (x fastest).
pub(crate) fn linear(v: [u32; 3], d: [u32; 3]) -> u64 {
    v[0] as u64 + d[0] as u64 * (v[1] as u64 + d[1] as u64 * v[2] as u64)
}

/// What asks the launch's budget for race-check shadow of global memory, counting what it
/// grants in the cluster's `charged` (given back when the cluster finishes).
pub(crate) fn shadow_charge<'a>(
    mem: &'a mut crate::mem::Budget,
    charged: &'a mut u64,
) -> impl FnMut(u64) -> bool + 'a {
    move |bytes| {
        let ok = mem
            .charge(bytes, || "the race-check shadow of global memory".into())
            .is_ok();
        if ok {
            *charged += bytes;
        }
        ok
    }
}

/// The thread id of lane `lane` of cluster warp `w` (its CTA's warp `w % wpc`) in a block of
/// `block` threads, for race findings that name the other thread.
pub(crate) fn tid_in_block(block: [u32; 3], wpc: u32, w: u32, lane: u8) -> [u32; 3] {
    let linear = (w % wpc.max(1)) * 32 + lane as u32;
    let (bx, by) = (block[0].max(1), block[1].max(1));
    [linear % bx, (linear / bx) % by, linear / (bx * by)]
}
