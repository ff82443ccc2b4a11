//! The fuzzing oracles of `ptx-ir`.
//!
//! Each oracle is a module with `pub fn run(u: &mut Unstructured) -> arbitrary::Result<()>` that
//! panics when it finds a bug. The cargo-fuzz targets in `fuzz/fuzz_targets/` only call `run`;
//! the `smoke` test of each module runs it a few hundred times on bytes from a fixed seed, so
//! `cargo test` exercises every oracle too.
//!
//! | oracle | checks |
//! | --- | --- |
//! | [`roundtrip`] | generated well-formed modules (every module-level construct, every opcode and form): print -> parse equals the IR, encode -> decode equals the IR, printing is a fixpoint; real PTX text given as input round-trips the same way |
//! | [`parse`] | arbitrary and mutated text: the reader returns a module or an error, never panics; whatever parses round-trips |
//! | [`decode`] | arbitrary and mutated bytecode: the decoder returns a module or an error, never panics; whatever decodes prints and re-encodes to bytes that decode to the same module |
//! | [`readback`] | real and generated modules' bytecode with bits flipped and the checksum recomputed: whatever decodes prints text that reads back to the same module |
//! | [`interp_agree`] | generated well-defined kernels (`ptx_ir_smith::gen`) run three ways (IR, reparsed text, decoded bytecode) with identical results, equal to the independent reference (`ptx_ir_refsem::eval`) |
//! | [`hopper_agree`] | the same for the Hopper/Blackwell families (asynchronous and bulk copies, mbarriers, clusters, matrix instructions, tensor memory): generated protocols (`ptx_ir_smith::hopper`), each with its own reference (`ptx_ir_refsem::hopper`) |
//! | [`scale`] | generated text of large and deep shapes (10^5 to 10^6 terms, functions, calls, instructions, lines; nesting around every bound of `ptx_ir_core::limits`; huge counts and values; long names, strings and lines): valid text parses and round-trips, text past a bound is refused with its error, and what runs gives the computed result (or a clean stack overflow), all in time linear in the size |
//!
//! A failure panics with the failing case written as a regression file (the format: [`regress`]),
//! ready to be saved under `corpus/regress/` and committed; [`replay`] checks such files (every
//! one of `corpus/regress/` is a test). [`run`] runs a kernel the three ways the interpreter
//! oracles compare, for a generated launch or a regression file's `RUN:` line.
//!
//! The interpreter oracles take their kernels from the generators of `ptx-ir-smith` and their
//! answers from the reference semantics of `ptx-ir-refsem`; this crate joins the two with the
//! interpreter. The round-trip check of real text is the facade's
//! ([`ptx_ir::roundtrip::check_module`]).
//!
//! [`dict`] generates the libFuzzer dictionary of the text targets (`fuzz/ptx.dict`) from the
//! instruction table, the modifier vocabulary and the reader's directives; [`seeds`] holds the
//! seed inputs the oracles mutate.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod decode;
pub mod dict;
pub mod hopper_agree;
pub mod interp_agree;
pub mod parse;
pub mod readback;
pub mod regress;
pub mod replay;
pub mod roundtrip;
pub mod run;
pub mod scale;
pub mod seeds;

use arbitrary::Unstructured;

pub use ptx_ir_smith::Bytes;

/// Runs `oracle` `iterations` times on random byte strings of 1 to `max_len` bytes from a
/// fixed seed; returns how many runs completed (did not run out of bytes). A bug panics inside
/// the oracle.
///
/// `ORACLE_ITERS=N` multiplies the iterations by `N` and `ORACLE_SEED=S` changes the seed, for
/// longer runs under `cargo test` without libFuzzer.
pub fn smoke(
    oracle: fn(&mut Unstructured) -> arbitrary::Result<()>,
    seed: u64,
    iterations: usize,
    max_len: usize,
) -> usize {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let iterations = iterations * env("ORACLE_ITERS").unwrap_or(1).max(1) as usize;
    let seed = seed
        ^ env("ORACLE_SEED")
            .unwrap_or(0)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut src = Bytes::new(seed);
    let mut done = 0;
    for _ in 0..iterations {
        let len = 1 + (src.next_u64() as usize % max_len);
        let data = src.fill(len);
        let mut u = Unstructured::new(&data);
        if oracle(&mut u).is_ok() {
            done += 1;
        }
    }
    done
}

/// Whether `data` looks like PTX text rather than fuzzer-structured bytes: the oracles that
/// take both treat text seeds (the corpus files) as text.
pub fn looks_like_text(data: &[u8]) -> bool {
    matches!(
        data.first(),
        Some(b'.' | b'/' | b' ' | b'\t' | b'\n' | b'\r')
    ) && std::str::from_utf8(data).is_ok()
}
