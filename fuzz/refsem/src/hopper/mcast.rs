//! The reference of the multicast family ([`ptx_ir_smith::hopper::mcast`]).
//!
//! A shared-memory array per CTA; a multicast copies the input range into every CTA
//! of the mask (bits above the cluster size are left clear), a remote copy copies one CTA's
//! range into the other's.

use super::{Answer, Reference};
use ptx_ir_smith::hopper::mcast::{Spec, Step, SMEM, WINDOW};
use ptx_ir_smith::hopper::Launch;

impl Reference for Spec {
    fn answer(&self, launch: &Launch, _: &()) -> Answer {
        let c = self.cluster;
        // Shared memory per CTA: its input window first (the clusters differ only in theirs).
        let mut smem: Vec<Vec<u8>> = (0..launch.grid)
            .map(|k| {
                let at = (k * WINDOW) as usize;
                launch.input[at..at + SMEM as usize].to_vec()
            })
            .collect();
        for step in &self.steps {
            match *step {
                Step::Multicast {
                    mask,
                    src,
                    dst,
                    size,
                    ..
                } => {
                    for cl in 0..self.clusters {
                        for r in 0..c {
                            if mask >> r & 1 == 1 {
                                let s = src as usize;
                                smem[(cl * c + r) as usize][dst as usize..(dst + size) as usize]
                                    .copy_from_slice(&launch.input[s..s + size as usize]);
                            }
                        }
                    }
                }
                Step::Remote {
                    from,
                    to,
                    src,
                    dst,
                    size,
                } => {
                    for cl in 0..self.clusters {
                        let (f, t) = ((cl * c + from) as usize, (cl * c + to) as usize);
                        let bytes = smem[f][src as usize..(src + size) as usize].to_vec();
                        smem[t][dst as usize..(dst + size) as usize].copy_from_slice(&bytes);
                    }
                }
            }
        }
        Answer::known(smem.concat())
    }
}
