//! `cargo fuzz run roundtrip`: see fuzz/README.md and the oracle's documentation
//! (`ptx_ir_oracles::roundtrip`).
// Seeds and libFuzzer options (fuzz/targets.sh reads these lines for fuzz/seed.sh and the
// OSS-Fuzz / ClusterFuzzLite build, fuzz/oss-fuzz/build.sh):
// fuzz-seeds: text
// fuzz-options: max_len=65536
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ptx_ir_oracles::roundtrip::run(&mut Unstructured::new(data));
});
