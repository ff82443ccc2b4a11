//! `cargo fuzz run readback`: see fuzz/README.md and the oracle's documentation
//! (`ptx_ir_oracles::readback`).
// Seeds and libFuzzer options (fuzz/targets.sh reads these lines for fuzz/seed.sh and the
// OSS-Fuzz / ClusterFuzzLite build, fuzz/oss-fuzz/build.sh):
// fuzz-seeds: random:1024
// fuzz-options: timeout=10 rss_limit_mb=2048
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ptx_ir_oracles::readback::run(&mut Unstructured::new(data));
});
