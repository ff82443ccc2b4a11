//! The decoder oracle: any bytes give a module or an error, never a panic, a hang or an
//! unbounded allocation; whatever decodes satisfies the IR invariants, prints, and re-encodes
//! to bytes that decode to the same module.
//!
//! Input that starts with the bytecode magic number (a `.ptxb` seed) is decoded as is.
//! Otherwise the first byte chooses:
//!
//! - the remaining bytes, raw;
//! - the remaining bytes as the sections behind a valid header (so the fuzzer works on section
//!   contents rather than on the magic number), decoded without the checksum;
//! - a real module (one of [`crate::seeds::TEXT`] or a generated module, encoded with either codec)
//!   mutated by edits the remaining bytes describe, decoded without the checksum (so mutations
//!   reach the section decoders) and, once, with it.
//!
//! Allocation is bounded by [`DecodeLimits`]; libFuzzer's `-rss_limit_mb`/`-malloc_limit_mb`
//! catch a decoder that exceeds it.

use crate::regress;
use arbitrary::Unstructured;
use ptx_ir_binary::{
    decode_with, encode_with, table_fingerprint, validate, Codec, DecodeLimits, FORMAT_VERSION,
    MAGIC,
};
use ptx_ir_core::generate::full;
use ptx_ir_text::print;

const NO_CRC: DecodeLimits = DecodeLimits {
    verify_checksum: false,
    ..DecodeLimits::DEFAULT
};

/// Runs the oracle on one input.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let data = u.peek_bytes(u.len()).unwrap_or_default();
    if data.starts_with(&MAGIC) {
        let b = data.to_vec();
        u.bytes(u.len())?;
        check(&b, &DecodeLimits::DEFAULT);
        check(&b, &NO_CRC);
        return Ok(());
    }
    match u.int_in_range(0..=3u8)? {
        0 => {
            let b = u.bytes(u.len())?.to_vec();
            check(&b, &DecodeLimits::DEFAULT);
        }
        1 => {
            let codec = *u.choose(&[Codec::Stored, Codec::Zstd])?;
            let mut b = header(codec);
            b.extend_from_slice(u.bytes(u.len())?);
            check(&b, &NO_CRC);
        }
        _ => {
            let mut b = if u.arbitrary()? {
                u.choose(crate::seeds::bytecode())?.clone()
            } else {
                let cfg = full::Config {
                    max_items: 4,
                    max_statements: 8,
                    ..full::Config::default()
                };
                let m = full::module(u, &cfg)?;
                let codec = *u.choose(&[Codec::Stored, Codec::Zstd])?;
                encode_with(&m, codec).expect("a generated module encodes")
            };
            crate::seeds::mutate(u, &mut b, 4);
            check(&b, &NO_CRC);
            check(&b, &DecodeLimits::DEFAULT);
        }
    }
    Ok(())
}

/// A valid 24-byte header for `codec` (checksum left zero).
pub fn header(codec: Codec) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    b.push(codec.id());
    b.push(0);
    b.extend_from_slice(&table_fingerprint().to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    b
}

/// Decodes `bytes` under `limits`; if that succeeds, checks the decoded module. Panics (with a
/// regression file) on a failure.
pub fn check(bytes: &[u8], limits: &DecodeLimits) {
    let Ok(m) = decode_with(bytes, limits) else {
        return;
    };
    if let Err(e) = validate(&m) {
        fail(
            bytes,
            &format!(
                "a decoded module breaks an invariant: {} at {}",
                e.detail, e.path
            ),
        );
    }
    let _ = print(&m);
    let again = encode_with(&m, Codec::Stored)
        .unwrap_or_else(|e| fail(bytes, &format!("a decoded module does not encode: {e}")));
    let limits = DecodeLimits {
        max_depth: 4096,
        ..DecodeLimits::DEFAULT
    };
    match decode_with(&again, &limits) {
        Ok(m2) if m2 == m => {}
        Ok(_) => fail(bytes, "re-encoding a decoded module changes it"),
        Err(e) => fail(bytes, &format!("re-encoding a decoded module: {e}")),
    }
}

fn fail(bytes: &[u8], err: &str) -> ! {
    let file = regress::Case::decode(err, bytes).render();
    panic!("decode oracle: {err}\n--- regression file (save as corpus/regress/NAME.ptx):\n{file}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        let done = crate::smoke(run, 0x5eed_0003, 600, 2048);
        assert!(done >= 300, "only {done} of 600 inputs completed");
    }

    #[test]
    fn seeds_decode() {
        assert!(crate::seeds::bytecode().len() >= 2 * crate::seeds::TEXT.len());
        for b in crate::seeds::bytecode() {
            assert!(ptx_ir_binary::decode(b).is_ok());
            check(b, &DecodeLimits::DEFAULT);
        }
    }
}
