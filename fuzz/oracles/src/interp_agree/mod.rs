//! The interpreter-agreement oracle.
//!
//! The generator ([`ptx_ir_smith::gen`]) draws a well-defined kernel under a swarm
//! configuration ([`ptx_ir_smith::gen::Swarm`]: which instruction families, roundings,
//! `.ftz`/`.sat`, guards, branches, loops and immediates may appear, and whether float families
//! draw contraction chains). The kernel is lowered to IR ([`ptx_ir_smith::lower`]) and run by
//! the interpreter three ways ([`crate::run::three_ways`]) — from the IR, from its
//! printed-and-reparsed text, and from its decoded bytecode — which must give identical results
//! (buffers and errors alike). Where the reference semantics ([`ptx_ir_refsem::eval`]) knows the
//! answer (every family but the approximate functions), the output must equal it bit for bit
//! ([`check`]). The interpreter contracts `mul`/`add` pairs as ptxas does by default; the
//! reference decides the same independently ([`ptx_ir_refsem::contract`]), and a second run of
//! the interpreter with `Contraction::Never` must equal the reference's one-by-one reading.
//!
//! A failure is shrunk ([`shrink`]: instructions and regions removed, stores narrowed to the
//! registers that differ, launch reduced) and reported as a regression file with `expect: run`.
//!
//! Adding a family: a variant of [`ptx_ir_smith::model::SimtFamily`], its operations in
//! [`ptx_ir_smith::model::Operation`] with a [`ptx_ir_smith::model::signature`], a generator file in
//! `fuzz/smith/src/gen/`, a lowering file in `fuzz/smith/src/lower/` and the semantics in
//! [`ptx_ir_refsem::eval::eval`] (or none, for three-way agreement only).

mod check;
mod shrink;

pub use check::check;
pub use shrink::shrink;

use crate::regress;
use crate::run::{launch_mode, Failure};
use arbitrary::Unstructured;
use ptx_ir_interp::Contraction;
use ptx_ir_refsem::eval;
use ptx_ir_smith::gen::{Gen, Swarm};
use ptx_ir_smith::lower;
use ptx_ir_smith::model::{Program, SimtFamily};

/// Runs the oracle on one input.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    run_families(u, &SimtFamily::ALL)
}

/// Runs the oracle on one input with the swarm drawn from `families` only (focused smoke
/// tests: every configuration then exercises the families under test).
pub fn run_families(u: &mut Unstructured, families: &[SimtFamily]) -> arbitrary::Result<()> {
    let swarm = Swarm::arbitrary(u, families)?;
    let p = Gen::new(&swarm).program(u)?;
    if let Err(f) = check(&p) {
        report(&p, f);
    }
    Ok(())
}

/// The `ptx run` arguments of a program's launch (`never`: with `--contract never`).
pub fn run_args(p: &Program, never: bool) -> String {
    format!(
        "--entry k --grid {} --block {} --arg hex:{} --arg zeros:{}{}",
        p.grid,
        p.block,
        regress::hex(&lower::input(p)),
        p.out_len(),
        if never { " --contract never" } else { "" }
    )
}

/// Shrinks the failure and panics with a ready-to-commit regression file.
fn report(p: &Program, f: Failure) -> ! {
    let (q, g) = shrink(p, &f);
    let m = lower::module(&q);
    let text = ptx_ir_text::print(&m);
    let never = matches!(g, Failure::Reference { never: true, .. });
    let mode = if never {
        Contraction::Never
    } else {
        Contraction::Ptxas
    };
    let expected = match &g {
        // The reference's answer where it has one, the interpreter's elsewhere.
        Failure::Reference { .. } => {
            let exp = eval::run_mode(&q, !never).expect("the reference ran before");
            let input = lower::input(&q);
            let got = launch_mode(&m, q.grid, q.block, &input, q.out_len() as usize, &[], mode)
                .unwrap_or_default();
            exp.bytes
                .iter()
                .zip(&exp.known)
                .enumerate()
                .map(|(k, (&b, &known))| {
                    if known {
                        b
                    } else {
                        got.get(k).copied().unwrap_or(b)
                    }
                })
                .collect()
        }
        _ => eval::run(&q).map(|e| e.bytes).unwrap_or_default(),
    };
    let file = regress::Case::run(&g.message(), &text, &run_args(&q, never), &expected).render();
    panic!(
        "interp_agree oracle: {}\n--- regression file (save as corpus/regress/NAME.ptx):\n{file}",
        g.message()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_ir_refsem::contract;
    use ptx_ir_smith::model as prog;
    use ptx_ir_smith::model::Node;

    #[test]
    fn smoke() {
        let done = crate::smoke(run, 0x5eed_0004, 300, 4096);
        assert!(done >= 100, "only {done} of 300 inputs completed");
    }

    fn run_half(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[SimtFamily::Half])
    }

    fn run_carry_bits(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[SimtFamily::Carry, SimtFamily::Bits])
    }

    fn run_call(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(
            u,
            &[
                SimtFamily::Call,
                SimtFamily::Int,
                SimtFamily::Float,
                SimtFamily::Half,
            ],
        )
    }

    #[test]
    fn smoke_call() {
        let done = crate::smoke(run_call, 0x5eed_0009, 100, 4096);
        assert!(done >= 30, "only {done} of 100 inputs completed");
    }

    fn run_mem(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[SimtFamily::Mem, SimtFamily::Int])
    }

    #[test]
    fn smoke_mem() {
        let done = crate::smoke(run_mem, 0x5eed_0007, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }

    /// The memory family's protocol (own slots, peers' slots from the other buffer, one
    /// operation per cell) keeps segments race-free: the reference, which gives up on a race,
    /// answers for (nearly) every generated kernel, and the kernels do use barriers and read
    /// other threads' slots.
    #[test]
    fn mem_kernels_are_race_free() {
        let mut src = crate::Bytes::new(0x5eed_0008);
        let (mut mem, mut answered, mut barriers, mut peers) = (0, 0, 0, 0);
        for _ in 0..300 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(swarm) = Swarm::arbitrary(&mut u, &[SimtFamily::Mem, SimtFamily::Int]) else {
                continue;
            };
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            if !p.uses_mem() {
                continue;
            }
            mem += 1;
            answered += eval::run(&p).is_some() as usize;
            barriers += p
                .body
                .iter()
                .filter(|n| matches!(n, Node::Barrier(_)))
                .count();
            peers += p
                .insts()
                .iter()
                .filter(|i| matches!(i.op, prog::Operation::Ld { peer, .. } if peer > 0))
                .count();
        }
        assert!(mem >= 100, "{mem} kernels use memory");
        assert!(answered * 100 >= mem * 95, "{answered} of {mem} answered");
        assert!(
            barriers >= 30 && peers >= 100,
            "{barriers} barriers, {peers} peer loads"
        );
    }

    fn run_generic(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[SimtFamily::Generic, SimtFamily::Mem, SimtFamily::Int])
    }

    #[test]
    fn smoke_generic() {
        let done = crate::smoke(run_generic, 0x5eed_000a, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }

    /// Counts, over generated kernels of `families`, those the reference answers and the
    /// instructions matching each predicate of `kinds`.
    fn census(
        seed: u64,
        families: &[SimtFamily],
        kinds: &[fn(&prog::Operation) -> bool],
    ) -> (usize, usize, Vec<usize>) {
        let mut src = crate::Bytes::new(seed);
        let (mut kernels, mut answered) = (0, 0);
        let mut counts = vec![0; kinds.len()];
        for _ in 0..300 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(swarm) = Swarm::arbitrary(&mut u, families) else {
                continue;
            };
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            kernels += 1;
            answered += eval::run(&p).is_some() as usize;
            for i in p.insts() {
                for (c, k) in counts.iter_mut().zip(kinds) {
                    *c += k(&i.op) as usize;
                }
            }
        }
        (kernels, answered, counts)
    }

    /// The generic-addressing kernels use every kind of instruction, and the reference answers
    /// (nearly) all of them.
    #[test]
    fn generic_kernels_are_answered() {
        use prog::{AddrKind, Operation};
        let (kernels, answered, c) = census(
            0x5eed_000b,
            &[SimtFamily::Generic, SimtFamily::Int],
            &[
                |o| matches!(o, Operation::Isspacep { .. }),
                |o| {
                    matches!(
                        o,
                        Operation::Isspacep {
                            ptr: prog::Win::Const | prog::Win::Param,
                            ..
                        }
                    )
                },
                |o| matches!(o, Operation::CvtaRound { .. }),
                |o| {
                    matches!(
                        o,
                        Operation::Ld {
                            addr: AddrKind::Generic,
                            ..
                        } | Operation::St {
                            addr: AddrKind::Generic,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::Atom {
                            addr: AddrKind::Generic,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::Atom {
                            t: prog::AtomT::Half(..) | prog::AtomT::F64,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::Atom {
                            sem: Some(_),
                            scope: Some(_),
                            ..
                        }
                    )
                },
            ],
        );
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(c.iter().all(|&n| n >= 5), "instruction counts {c:?}");
    }

    fn run_hint(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[SimtFamily::Hint, SimtFamily::Warp, SimtFamily::Int])
    }

    #[test]
    fn smoke_hint() {
        let done = crate::smoke(run_hint, 0x5eed_0010, 200, 4096);
        assert!(done >= 60, "only {done} of 200 inputs completed");
    }

    /// The hint family draws every kind of instruction (`setmaxnreg` too, which needs a
    /// kernel of whole warpgroups), and the reference answers (nearly) every kernel.
    #[test]
    fn hint_kernels_are_answered() {
        use prog::{HintOp, LdHow, Operation};
        let (kernels, answered, c) = census(
            0x5eed_0011,
            &[SimtFamily::Hint, SimtFamily::Warp],
            &[
                |o| matches!(o, Operation::PackSat(t) if prog::pack_takes_c(*t)),
                |o| matches!(o, Operation::PackSat(t) if !prog::pack_takes_c(*t)),
                |o| {
                    matches!(
                        o,
                        Operation::LdIn {
                            how: LdHow::Ldu,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::LdIn {
                            how: LdHow::Nc(_),
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::LdIn {
                            how: LdHow::Policy(_),
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::LdIn {
                            how: LdHow::Prefetch(_),
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::LdIn {
                            how: LdHow::Applypriority,
                            ..
                        }
                    )
                },
                |o| matches!(o, Operation::LdIn { vec: 4, .. }),
                |o| matches!(o, Operation::Hint(HintOp::Setmaxnreg { inc: true, .. })),
                |o| matches!(o, Operation::Hint(HintOp::Setmaxnreg { inc: false, .. })),
                |o| matches!(o, Operation::Hint(HintOp::Fence { .. } | HintOp::Membar(_))),
                |o| matches!(o, Operation::Hint(HintOp::Proxy(_))),
                |o| matches!(o, Operation::Hint(HintOp::Sleep(_) | HintOp::SleepReg)),
                |o| {
                    matches!(
                        o,
                        Operation::Hint(HintOp::Pmevent(_) | HintOp::PmeventMask(_))
                    )
                },
                |o| matches!(o, Operation::Hint(HintOp::Griddep(_))),
                |o| matches!(o, Operation::Hint(HintOp::Discard)),
                |o| matches!(o, Operation::Activemask),
                |o| matches!(o, Operation::Alloca { restore: true, .. }),
                |o| matches!(o, Operation::Alloca { restore: false, .. }),
                |o| {
                    matches!(
                        o,
                        Operation::Alloca {
                            lane_size: true,
                            generic: true,
                            ..
                        }
                    )
                },
            ],
        );
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(c.iter().all(|&n| n >= 3), "instruction counts {c:?}");
    }

    /// Some kernels end with a divergent `exit` (its lanes store nothing), `bar.warp.sync`
    /// appears, and such kernels agree three ways and with the reference.
    #[test]
    fn exit_and_warp_sync_are_generated() {
        let mut src = crate::Bytes::new(0x5eed_0012);
        let (mut exits, mut syncs, mut checked) = (0, 0, 0);
        for _ in 0..200 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(swarm) = Swarm::arbitrary(&mut u, &[SimtFamily::Warp, SimtFamily::Int]) else {
                continue;
            };
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            exits += p.exit.is_some() as usize;
            syncs += p
                .insts()
                .iter()
                .filter(|i| i.op == prog::Operation::WarpSync)
                .count();
            if p.exit.is_some() {
                if let Err(f) = check(&p) {
                    panic!("{}", f.message());
                }
                checked += 1;
            }
        }
        assert!(
            exits >= 20 && syncs >= 20,
            "{exits} exits, {syncs} bar.warp.sync"
        );
        assert_eq!(checked, exits);
    }

    fn run_barrier(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[SimtFamily::Barrier, SimtFamily::Mem, SimtFamily::Cmp])
    }

    #[test]
    fn smoke_barrier() {
        let done = crate::smoke(run_barrier, 0x5eed_000c, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }

    /// Barrier kernels have barriers in loops, reductions and producer/consumer hand-offs, and
    /// the reference answers (nearly) all of them.
    #[test]
    fn barrier_kernels_are_answered() {
        let mut src = crate::Bytes::new(0x5eed_000d);
        let (mut kernels, mut answered) = (0, 0);
        // Barriers in loops, reductions, hand-offs.
        let mut c = [0usize; 3];
        fn walk(ns: &[Node], in_loop: bool, c: &mut [usize; 3]) {
            for n in ns {
                match n {
                    Node::Barrier(b) => {
                        c[0] += in_loop as usize;
                        c[1] += matches!(b, prog::Bar::Red { .. }) as usize;
                        c[2] += matches!(b, prog::Bar::Arrive { .. }) as usize;
                    }
                    Node::Loop { body, .. } => walk(body, true, c),
                    _ => {}
                }
            }
        }
        for _ in 0..300 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(swarm) = Swarm::arbitrary(&mut u, &[SimtFamily::Barrier, SimtFamily::Cmp])
            else {
                continue;
            };
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            if !p.has_barrier() {
                continue;
            }
            kernels += 1;
            answered += eval::run(&p).is_some() as usize;
            walk(&p.body, false, &mut c);
        }
        assert!(kernels >= 100, "{kernels} kernels with barriers");
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(
            c[0] >= 20 && c[1] >= 50 && c[2] >= 20,
            "{} in loops, {} reductions, {} hand-offs",
            c[0],
            c[1],
            c[2]
        );
    }

    /// Call kernels use indirect calls of both kinds and both recursive functions, and the
    /// reference answers (nearly) all of them.
    #[test]
    fn call_kernels_are_answered() {
        use prog::{Operation, Via};
        let (kernels, answered, c) = census(
            0x5eed_000e,
            &[SimtFamily::Call, SimtFamily::Int],
            &[
                |o| {
                    matches!(
                        o,
                        Operation::Call {
                            via: Via::Proto,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::Call {
                            via: Via::Targets,
                            ..
                        }
                    )
                },
                |o| matches!(o, Operation::Rec { reg: false }),
                |o| matches!(o, Operation::Rec { reg: true }),
            ],
        );
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(c.iter().all(|&n| n >= 20), "instruction counts {c:?}");
    }

    /// Half kernels use the half conversions and `set`, and the reference answers (nearly) all
    /// of them.
    #[test]
    fn half_kernels_are_answered() {
        use prog::{HPeer, Operation};
        let (kernels, answered, c) = census(
            0x5eed_000f,
            &[SimtFamily::Half],
            &[
                |o| {
                    matches!(
                        o,
                        Operation::CvtHalfX {
                            peer: HPeer::Int(..),
                            to_half: true,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::CvtHalfX {
                            peer: HPeer::Int(..),
                            to_half: false,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::CvtHalfX {
                            peer: HPeer::F64,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Operation::CvtHalfX {
                            peer: HPeer::Half,
                            ..
                        }
                    )
                },
                |o| matches!(o, Operation::Hset { .. }),
            ],
        );
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(c.iter().all(|&n| n >= 20), "instruction counts {c:?}");
    }

    fn run_contract(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[SimtFamily::Float, SimtFamily::Half, SimtFamily::Cmp])
    }

    #[test]
    fn smoke_contract() {
        let done = crate::smoke(run_contract, 0x5eed_0013, 200, 4096);
        assert!(done >= 60, "only {done} of 200 inputs completed");
    }

    /// With the contraction knob, float and half kernels fuse `mul`/`add` pairs of every type
    /// (through moves and `neg`s, with guards, `.ftz` and `.sat`), the fused results often
    /// differ from the one-by-one reading, the `neg` folds appear, and the reference rarely
    /// leaves a fusion undecided.
    #[test]
    fn contraction_is_generated() {
        use contract::Plan;
        let mut src = crate::Bytes::new(0x5eed_0014);
        let (mut kernels, mut differ, mut unsure, mut candidates) = (0, 0, 0, 0);
        let mut with_fused = 0;
        let mut fused = std::collections::HashMap::new();
        let (mut sat, mut ftz, mut guarded, mut negated, mut folds) = (0, 0, 0, 0, [0; 3]);
        for _ in 0..400 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(mut swarm) = Swarm::arbitrary(&mut u, &[SimtFamily::Float, SimtFamily::Half])
            else {
                continue;
            };
            swarm.contract = true;
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            kernels += 1;
            let plans = contract::Plans::of(&p);
            with_fused += plans.all().any(|pl| matches!(pl, Plan::Fused { .. })) as usize;
            for i in p.insts() {
                let add = prog::add_of(&i.op);
                candidates += add.is_some() as usize;
                match plans.get(i) {
                    Some(Plan::Fused { neg_product, .. }) => {
                        let (ty, _, f, s) = add.expect("an add");
                        *fused.entry(format!("{ty:?}")).or_insert(0usize) += 1;
                        sat += s as usize;
                        ftz += f as usize;
                        guarded += i.guard.is_some() as usize;
                        negated += neg_product as usize;
                    }
                    Some(Plan::Unsure) => unsure += 1,
                    Some(Plan::Copy(_) | Plan::CopySaved(_)) => folds[0] += 1,
                    Some(Plan::SignFlip) => folds[1] += 1,
                    Some(Plan::SelectNeg { .. }) => folds[2] += 1,
                    _ => {}
                }
            }
            let (a, b) = (eval::run(&p), eval::run_never(&p));
            if let (Some(a), Some(b)) = (a, b) {
                differ += (a
                    .bytes
                    .iter()
                    .zip(&a.known)
                    .zip(b.bytes.iter().zip(&b.known)))
                .any(|((x, kx), (y, ky))| *kx && *ky && x != y) as usize;
            }
        }
        let n: usize = fused.values().sum();
        eprintln!(
            "{kernels} kernels ({with_fused} with fused adds), {candidates} candidate adds, fused {fused:?}, {unsure} unsure, \
             {differ} kernels differ, sat {sat} ftz {ftz} guarded {guarded} negated {negated}, \
             folds {folds:?}"
        );
        assert!(
            fused.len() == 6 && fused.values().all(|&k| k >= 20),
            "{fused:?}"
        );
        assert!(unsure * 20 <= n, "{unsure} undecided of {n}");
        assert!(
            differ * 4 >= with_fused,
            "{differ} of {with_fused} kernels with fused adds differ"
        );
        assert!(sat >= 10 && ftz >= 10 && guarded >= 10 && negated >= 10);
        assert!(folds.iter().all(|&k| k >= 5), "folds {folds:?}");
    }

    #[test]
    fn smoke_half() {
        let done = crate::smoke(run_half, 0x5eed_0005, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_carry_bits() {
        let done = crate::smoke(run_carry_bits, 0x5eed_0006, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }
}
