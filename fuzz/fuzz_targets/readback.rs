//! `cargo fuzz run --sanitizer none readback`: see fuzz/README.md and the oracle's documentation
//! (`ptx_ir_oracles::readback`).
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ptx_ir_oracles::readback::run(&mut Unstructured::new(data));
});
