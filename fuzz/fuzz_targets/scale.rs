//! `cargo fuzz run scale`: see fuzz/README.md and the oracle's documentation
//! (`ptx_ir_oracles::scale`).
// Seeds and libFuzzer options (fuzz/targets.sh reads these lines for fuzz/seed.sh and the
// OSS-Fuzz / ClusterFuzzLite build, fuzz/oss-fuzz/build.sh). The input is a few bytes of shape
// and size choices; the generator draws the rest from a hash, so inputs stay short while the
// text grows to 64 MiB: -len_control=0 lets libFuzzer vary all choices from the start, and the
// timeout and memory limit are what make a cost that outgrows the size a finding. A large unit
// legitimately takes seconds on a 2-core machine, so a unit is reported slow only at the
// timeout (libFuzzer's default of 10 s wrote slow-unit artifacts for 10 and 13 s units, which
// the OSS-Fuzz build test counts as failures).
// fuzz-seeds: random:64
// fuzz-options: max_len=4096 len_control=0 timeout=30 report_slow_units=30 rss_limit_mb=4096
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ptx_ir_oracles::scale::run(&mut Unstructured::new(data));
});
