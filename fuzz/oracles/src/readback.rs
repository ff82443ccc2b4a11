//! The read-back oracle: a module the decoder accepts is one the reader could have produced,
//! `parse(print(decode(b))) == decode(b)`, for bytecode `b` that is a real module with bits
//! flipped and its checksum recomputed (so that every flip reaches the decoder, which has to
//! refuse what the reader would not give: names out of reading order or not identifiers,
//! instructions outside their forms, directive values out of range, ...).
//!
//! The first input byte chooses the module: one of [`crate::seeds::bytecode`] (the real
//! modules of [`crate::seeds::TEXT`], both codecs) or a generated module (`full::module`),
//! encoded with either codec. The next chooses how many bits to flip (1 to 4); each flip takes
//! a position past the header from the input.

use crate::regress;
use arbitrary::Unstructured;
use ptx_ir_binary::{decode, encode_with, Codec, HEADER_LEN};
use ptx_ir_core::generate::full;
use ptx_ir_text::{parse, print};

/// Runs the oracle on one input.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
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
    let body = b.len() - HEADER_LEN;
    for _ in 0..u.int_in_range(1..=4u8)? {
        let at = HEADER_LEN + u.int_in_range(0..=body as u32 * 8 - 1)? as usize;
        b[at / 8] ^= 1 << (at % 8);
    }
    seal(&mut b);
    check(&b);
    Ok(())
}

/// Recomputes the CRC-32 of the header (every byte but the checksum field, bytes 20..24;
/// binary/FORMAT.md).
pub fn seal(b: &mut [u8]) {
    let mut h = crc32fast::Hasher::new();
    h.update(&b[..20]);
    h.update(&b[HEADER_LEN..]);
    b[20..24].copy_from_slice(&h.finalize().to_le_bytes());
}

/// Decodes `bytes`; if that succeeds, the module's text must read back to it. Panics (with a
/// regression file) otherwise.
pub fn check(bytes: &[u8]) {
    let Ok(m) = decode(bytes) else {
        return;
    };
    let text = print(&m);
    match parse(&text) {
        Ok(back) if back == m => {}
        Ok(_) => fail(
            bytes,
            "a decoded module's text reads back as another module",
        ),
        Err(e) => fail(
            bytes,
            &format!("a decoded module's text does not read: {e}"),
        ),
    }
}

fn fail(bytes: &[u8], err: &str) -> ! {
    let file = regress::Case::decode(err, bytes).render();
    panic!(
        "readback oracle: {err}\n--- regression file (save as corpus/regress/NAME.ptx):\n{file}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        let done = crate::smoke(run, 0x5eed_0006, 600, 2048);
        assert!(done >= 300, "only {done} of 600 inputs completed");
    }

    /// What the oracle catches: a module whose names are numbered otherwise than the reader
    /// numbers them prints the same text, which reads back as another module; the decoder
    /// refuses its bytecode.
    #[test]
    fn names_out_of_reading_order_are_refused() {
        let m = parse(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .entry k()\n{\n.reg .b32 a;\n.reg .b32 b;\nmov.b32 a, b;\nret;\n}\n",
        )
        .unwrap();
        // `a` and `b` swap numbers, and spellings with them: the same text.
        let mut swapped = m.clone();
        ptx_ir_core::visit::for_each_name_mut(&mut swapped, &mut |n| {
            *n = match n.index() {
                1 => ptx_ir_core::Name::from_index(2),
                2 => ptx_ir_core::Name::from_index(1),
                _ => *n,
            }
        });
        swapped.names =
            ptx_ir_core::Interner::from_strings(["k", "b", "a"].map(String::from)).unwrap();
        assert_eq!(print(&swapped), print(&m));
        assert_ne!(parse(&print(&swapped)).unwrap(), swapped);
        let bytes = ptx_ir_binary::encode_unvalidated(&swapped, Codec::Stored).unwrap();
        let e = decode(&bytes).expect_err("names out of reading order");
        assert!(e.to_string().contains("not numbered in order"), "{e}");
        check(&bytes);
        // The encoder writes such a module renumbered: it decodes to the reader's numbering.
        assert_eq!(
            decode(&encode_with(&swapped, Codec::Stored).unwrap()).unwrap(),
            m
        );
    }
}
