//! The reference of the cluster-launch-control family ([`ptx_ir_smith::hopper::clc`]).
//!
//! Every item done exactly once, whoever does it — count 1 and sum
//! `weight * block * (block + 1) / 2` for every CTA of the grid (which cluster did what is the
//! scheduler's choice and is not compared).

use super::{put32, Answer, Reference};
use ptx_ir_smith::hopper::clc::Spec;
use ptx_ir_smith::hopper::Launch;

impl Reference for Spec {
    fn answer(&self, launch: &Launch, _: &()) -> Answer {
        let (block, w) = (launch.block, self.weight);
        let mut expected = vec![0u8; 8 * launch.grid as usize];
        for i in 0..launch.grid as usize {
            put32(&mut expected, 8 * i, 1);
            put32(&mut expected, 8 * i + 4, w * block * (block + 1) / 2);
        }
        Answer::known(expected)
    }
}
