//! The reference of the mbarrier family ([`ptx_ir_smith::hopper::mbar`]): the kept steps run on
//! the mbarrier's state machine as the ISA describes it — expected count, pending count,
//! tx-count, phase: [`Mbarrier`], the one the generator keeps its steps legal with (the model
//! of the protocol, shared like the SIMT program model; the interpreter, which the oracle checks
//! against this reference, shares nothing with either). A wait on a parity is true for the
//! immediately preceding phase (for a new barrier, parity 1); a wait on a state token is true
//! once the token's phase has completed; `pending_count` of a `.noComplete` state is the pending
//! count before that arrive (measured: `corpus/vectors/hopper.jsonl.xz`, `mbarrier.phases`).

use super::{Answer, Reference};
use ptx_ir_smith::hopper::mbar::{Mbarrier, Spec, Step, Who, SLOTS};
use ptx_ir_smith::hopper::Launch;

impl Reference for Spec {
    fn answer(&self, launch: &Launch, trace: &Vec<Step>) -> Answer {
        let block = launch.block;
        let mut bar = Mbarrier::new(self.count);
        // Per thread: the phase of its last arrive's state token, and the slots written.
        let mut token: Vec<Option<u32>> = vec![None; block as usize];
        let mut slots = vec![vec![0u32; SLOTS as usize]; block as usize];
        let mut next = 0u32;
        // The next result slot, if one is left.
        let slot = |next: &mut u32| -> Option<usize> {
            if *next == SLOTS {
                return None;
            }
            *next += 1;
            Some(*next as usize - 1)
        };
        let members = |w: Who| (0..block).filter(move |&t| w.has(t));
        for step in trace {
            match *step {
                Step::Arrive { who, count, nc, .. } => {
                    let n = members(who).count() as u32;
                    let before = bar.pending;
                    if nc && n == 1 {
                        if let Some(k) = slot(&mut next) {
                            for t in members(who) {
                                slots[t as usize][k] = before;
                            }
                        }
                    }
                    for t in members(who) {
                        token[t as usize] = Some(bar.phase);
                    }
                    bar.arrive(n * count);
                }
                Step::ArriveTx { who, bytes } => {
                    let n = members(who).count() as u32;
                    for t in members(who) {
                        token[t as usize] = Some(bar.phase);
                    }
                    bar.arrive_tx(n, n * bytes);
                }
                Step::Drop { who, count } => {
                    bar.drop_arrivals(members(who).count() as u32 * count);
                }
                Step::Expect { who, bytes } => bar.expect_tx(members(who).count() as u32 * bytes),
                Step::Complete { who, bytes } => {
                    bar.complete_tx(members(who).count() as u32 * bytes)
                }
                // The builder resolves it into a `complete_tx` and an `arrive`.
                Step::Rest => {}
                Step::Parity { parity, .. } => {
                    let done = bar.parity_done(parity);
                    if let Some(k) = slot(&mut next) {
                        for t in 0..block {
                            slots[t as usize][k] = 1 + done as u32;
                        }
                    }
                }
                Step::State { who, .. } => {
                    let ph = bar.phase;
                    if let Some(k) = slot(&mut next) {
                        for t in members(who) {
                            slots[t as usize][k] = 1 + (token[t as usize] != Some(ph)) as u32;
                        }
                    }
                }
            }
        }
        let mut expected = vec![0u8; launch.out_len];
        for (t, s) in slots.iter().enumerate() {
            for (k, v) in s.iter().enumerate() {
                let at = (t * SLOTS as usize + k) * 4;
                expected[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        Answer::known(expected)
    }
}
