//! Tensor-memory allocation (`sm_100a`, `.cta_group::1`): `tcgen05.alloc`, `tcgen05.dealloc`,
//! `tcgen05.relinquish_alloc_permit` (PTX ISA 9.7.16.7.1, seed 004).
//!
//! A kernel runs rounds separated by `bar.sync` (so that the execution order within the CTA is
//! the program order): in a round one warp allocates (column counts powers of two in [32, 512]
//! that never increase within the CTA, at most 512 live columns so nothing blocks), deallocates
//! one of its live allocations, or relinquishes the permit (after which nothing allocates). Every
//! allocation is deallocated before the kernel ends. Thread 0 writes each allocation's address
//! (the word `tcgen05.alloc` stored to shared memory) to the output.
//!
//! Misuse arms ([`Misuse`]) break one rule on purpose: an allocation after
//! `relinquish_alloc_permit`, a missing `dealloc`, a bad column count, and an allocation larger
//! than the CTA's previous one; [`Spec::build`] names the rule the interpreter's
//! undefined-behaviour report must cite. (The reference semantics checks the addresses of a
//! well-defined kernel: `ptx_ir_refsem::hopper::tmem`.)

use super::kernel::{kernel, Head};
use super::Launch;
use arbitrary::Unstructured;
use ptx_ir_core::{Cmp, Flag, Operand, Space, Type};

/// One round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Warp `w` allocates `cols` columns; the address goes to slot `k` (the allocation's index).
    Alloc(u32, u32),
    /// Warp `w` deallocates allocation `k`.
    Dealloc(u32, usize),
    /// Warp `w` relinquishes the allocation permit.
    Relinquish(u32),
}

/// A misuse, or none.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Misuse {
    /// A well-defined kernel.
    None,
    /// One more allocation after a relinquish.
    AfterRelinquish,
    /// The last allocation is not deallocated.
    Leak,
    /// An allocation with this (bad) column count.
    BadCols(u32),
    /// An allocation larger than the previous one.
    Increase,
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// CTAs.
    pub grid: u32,
    /// Warps per CTA.
    pub warps: u32,
    /// The rounds of a well-defined kernel (before the misuse is applied).
    pub steps: Vec<Step>,
    /// Column count and warp of each allocation.
    pub allocs: Vec<(u32, u32)>,
    /// The misuse, if any.
    pub misuse: Misuse,
}

/// Allocation addresses recorded per CTA (4 bytes each).
pub const SLOTS: usize = 16;

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let grid = u.int_in_range(1..=2)?;
        let warps = u.int_in_range(1..=4)?;
        let mut steps = Vec::new();
        let mut allocs: Vec<(u32, u32)> = Vec::new();
        let mut live: Vec<(usize, u32)> = Vec::new();
        let mut relinquished = false;
        let mut max_cols = 512u32;
        for _ in 0..u.int_in_range(1..=12)? {
            let w = u.int_in_range(0..=warps - 1)?;
            let used: u32 = live.iter().map(|&(k, _)| allocs[k].0).sum();
            match u.int_in_range(0..=5)? {
                0..=2 if !relinquished && allocs.len() < SLOTS => {
                    // Never more than the previous allocation, never more than what is free
                    // (a power of two fits when the free count is at least it: frees are unions
                    // of aligned blocks no larger than the previous allocation).
                    let fit = (512 - used).min(max_cols);
                    if fit < 32 {
                        continue;
                    }
                    let top = 31 - fit.leading_zeros();
                    let cols = 1u32 << u.int_in_range(5..=top)?;
                    max_cols = cols;
                    live.push((allocs.len(), w));
                    steps.push(Step::Alloc(w, cols));
                    allocs.push((cols, w));
                }
                3 | 4 if !live.is_empty() => {
                    let i = u.choose_index(live.len())?;
                    let (k, w) = live.remove(i);
                    steps.push(Step::Dealloc(w, k));
                }
                5 => {
                    relinquished = true;
                    steps.push(Step::Relinquish(w));
                }
                _ => {}
            }
        }
        for (k, w) in live {
            steps.push(Step::Dealloc(w, k));
        }
        let misuse = match u.int_in_range(0..=11)? {
            0 => Misuse::AfterRelinquish,
            1 if !allocs.is_empty() => Misuse::Leak,
            2 => Misuse::BadCols(*u.choose(&[0u32, 16, 48, 96, 100, 1024, 2048])?),
            3 if allocs.last().is_some_and(|a| a.0 < 512)
                && !steps.iter().any(|s| matches!(s, Step::Relinquish(_))) =>
            {
                Misuse::Increase
            }
            _ => Misuse::None,
        };
        Ok(Spec {
            grid,
            warps,
            steps,
            allocs,
            misuse,
        })
    }

    /// The kernel (with its misuse applied) and the phrase the interpreter's error must contain
    /// (None for a well-defined kernel).
    pub fn build(&self) -> (Launch, Option<&'static str>) {
        let block = 32 * self.warps;
        let mut steps = self.steps.clone();
        let mut allocs = self.allocs.clone();
        let want = match self.misuse {
            Misuse::None => None,
            Misuse::AfterRelinquish => {
                steps.push(Step::Relinquish(0));
                steps.push(Step::Alloc(0, 32));
                allocs.push((32, 0));
                steps.push(Step::Dealloc(0, allocs.len() - 1));
                Some("after a thread of the CTA executed tcgen05.relinquish_alloc_permit")
            }
            Misuse::Leak => {
                let k = allocs.len() - 1;
                steps.retain(|s| *s != Step::Dealloc(allocs[k].1, k));
                Some("were not deallocated before the CTA exited")
            }
            Misuse::BadCols(n) => {
                steps.insert(0, Step::Alloc(0, n));
                allocs.insert(0, (n, 0));
                // Shift the slot numbers of the others.
                for s in steps.iter_mut().skip(1) {
                    if let Step::Dealloc(_, k) = s {
                        *k += 1;
                    }
                }
                Some("nCols must be a power of 2 in [32, 512]")
            }
            Misuse::Increase => {
                let n = allocs.last().map_or(32, |a| a.0) * 2;
                // Everything is free by now, so the larger request would fit.
                steps.push(Step::Alloc(0, n));
                allocs.push((n, 0));
                steps.push(Step::Dealloc(0, allocs.len() - 1));
                Some("the number of columns allocated must not increase")
            }
        };
        let text = kernel(Head::blackwell(), |k| {
            let taddr = k.shared("taddr", 4, Type::B32, Some(SLOTS as u32 + 1))?;
            let [warp] = k.regs(Type::B32, ["%warp"])?;
            k.prologue()?;
            let (r4, r10, r11, p0, p1, rd5) = (k.r(4), k.r(10), k.r(11), k.p(0), k.p(1), k.rd(5));
            let sync = (Flag::CtaGroup1, Flag::Sync, Flag::Aligned);
            k.f.mov(Type::U32, (r4, taddr))?;
            k.f.shr(Type::U32, (warp, k.tx, 5))?;
            // Emit: allocation k in program order uses slot k.
            let mut next = 0u32;
            for s in &steps {
                let w = match *s {
                    Step::Alloc(w, _) | Step::Dealloc(w, _) | Step::Relinquish(w) => w,
                };
                let l = k.label()?;
                k.f.setp((Cmp::Ne, Type::U32), (p1, warp, w))?;
                k.f.guard(p1).bra((), l)?;
                match *s {
                    Step::Alloc(_, n) => {
                        // A bad column count goes through a register: as an immediate the
                        // verifier already rejects the kernel, and the interpreter's run-time
                        // check is the one under test.
                        let cols: Operand = if (32..=512).contains(&n) && n.is_power_of_two() {
                            n.into()
                        } else {
                            k.f.mov(Type::U32, (r11, n))?;
                            r11.into()
                        };
                        k.f.tcgen05_alloc(
                            (sync, Space::SharedCta, Type::B32),
                            (r4.at((4 * next).into()), cols),
                        )?;
                        next += 1;
                    }
                    Step::Dealloc(_, a) => {
                        k.f.ld((Space::Shared, Type::U32), (r10, r4.at(4 * a as i64)))?;
                        k.f.tcgen05_dealloc((sync, Type::B32), (r10, allocs[a].0))?;
                    }
                    Step::Relinquish(_) => k.f.tcgen05_relinquish_alloc_permit(sync, ())?,
                }
                k.place(l)?;
                // The ISA's pattern around a thread synchronisation that orders tcgen05 work.
                k.f.tcgen05_fence_before_thread_sync((), ())?;
                k.f.bar(Flag::Sync, 0)?;
                k.f.tcgen05_fence_after_thread_sync((), ())?;
            }
            // Thread 0 writes the addresses of this CTA's allocations.
            k.f.setp((Cmp::Eq, Type::U32), (p0, k.tx, 0))?;
            k.f.mul((Flag::Wide, Type::U32), (rd5, k.cta, 4 * SLOTS as u32))?;
            k.f.add(Type::S64, (rd5, k.rout, rd5))?;
            for a in 0..next {
                let at = i64::from(4 * a);
                k.f.ld((Space::Shared, Type::U32), (r11, r4.at(at)))?;
                k.f.guard(p0)
                    .st((Space::Global, Type::U32), (rd5.at(at), r11))?;
            }
            Ok(())
        });
        let out_len = (self.grid as usize) * 4 * SLOTS;
        (
            Launch::new(text, self.grid, block, vec![0; 16], out_len),
            want,
        )
    }
}
