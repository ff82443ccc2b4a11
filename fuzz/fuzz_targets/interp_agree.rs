//! `cargo fuzz run interp_agree`: see fuzz/README.md and the oracles'
//! documentation (`ptx_ir_oracles::interp_agree`, `ptx_ir_oracles::hopper_agree`).
// Seeds and libFuzzer options (fuzz/targets.sh reads these lines for fuzz/seed.sh and the
// OSS-Fuzz / ClusterFuzzLite build, fuzz/oss-fuzz/build.sh):
// fuzz-seeds: random:4096
// fuzz-options: timeout=30
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the generator: one input in four drives the Hopper/Blackwell
    // protocol generator, the rest the SIMT arithmetic generator.
    match data.split_first() {
        Some((b, rest)) if b % 4 == 3 => {
            let _ = ptx_ir_oracles::hopper_agree::run(&mut Unstructured::new(rest));
        }
        _ => {
            let _ = ptx_ir_oracles::interp_agree::run(&mut Unstructured::new(data));
        }
    }
});
