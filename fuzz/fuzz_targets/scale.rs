//! `cargo fuzz run --sanitizer none scale`: see fuzz/README.md and the oracle's documentation
//! (`ptx_ir_oracles::scale`).
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ptx_ir_oracles::scale::run(&mut Unstructured::new(data));
});
