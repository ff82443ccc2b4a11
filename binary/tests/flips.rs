//! A decoded module is one the reader could have produced: for every single-bit flip of the
//! bytecode of real modules, with the checksum recomputed so that the flip reaches the
//! decoder, the file either fails to decode (an error, no panic) or decodes to a module whose
//! printed text reads back to the same module.

use ptx_ir_binary::{decode, encode_with, Codec, HEADER_LEN};
use std::path::Path;

/// Recomputes the header's CRC-32 (binary/FORMAT.md: every byte but bytes 20..24).
fn seal(b: &mut [u8]) {
    let mut h = crc32fast::Hasher::new();
    h.update(&b[..20]);
    h.update(&b[HEADER_LEN..]);
    b[20..24].copy_from_slice(&h.finalize().to_le_bytes());
}

#[derive(Default, Debug)]
struct Counts {
    decoded: usize,
    refused: usize,
    mismatches: Vec<String>,
}

/// Flips each bit at positions `0, step, 2 * step, ...` past the header of the stored
/// (uncompressed) encoding of `src`, so that flips land in the structure rather than in
/// compressed data.
fn flip_all(name: &str, src: &str, step: usize, counts: &mut Counts) {
    let m = ptx_ir_text::parse(src).unwrap_or_else(|e| panic!("{name}: {e}"));
    let bytes = encode_with(&m, Codec::Stored).unwrap();
    let mut buf = bytes.clone();
    // The header's magic, version, codec and fingerprint are checked before anything else.
    for i in (HEADER_LEN..bytes.len() * 8).step_by(step) {
        let (byte, bit) = (i / 8, i % 8);
        if byte < HEADER_LEN {
            continue;
        }
        buf.copy_from_slice(&bytes);
        buf[byte] ^= 1 << bit;
        seal(&mut buf);
        match decode(&buf) {
            Err(_) => counts.refused += 1,
            Ok(d) => {
                counts.decoded += 1;
                let text = ptx_ir_text::print(&d);
                match ptx_ir_text::parse(&text) {
                    Ok(back) if back == d => {}
                    Ok(back) => {
                        // The first item that differs, in both forms.
                        let at = d.items.iter().zip(&back.items).position(|(a, b)| a != b);
                        let show = match at {
                            Some(k) => format!("{:?}\n{:?}", d.items[k], back.items[k]),
                            None => {
                                format!("header or item count: {:?} {:?}", d.target, back.target)
                            }
                        };
                        counts
                            .mismatches
                            .push(format!("{name} bit {i}: reads back different:\n{show}"))
                    }
                    Err(e) => counts
                        .mismatches
                        .push(format!("{name} bit {i}: does not read back: {e}\n{text}")),
                }
            }
        }
    }
}

#[test]
fn decoded_modules_read_back_from_their_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<(String, usize)> = Vec::new();
    let mut golden: Vec<_> = std::fs::read_dir(root.join("corpus/golden/print"))
        .expect("golden print corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    golden.sort();
    for p in golden {
        files.push((p.to_string_lossy().into_owned(), 1));
    }
    // Larger real files: every 7th bit or sparser (prime steps, so that every bit position
    // of a byte occurs).
    for (f, step) in [
        ("nvcc/asm100_sm_100a.ptx", 7),
        ("nvcc/asm90_sm_90a.ptx", 7),
        ("triton/tr_add.ptx", 7),
        ("triton/tr_softmax.ptx", 7),
        ("nvcc/sync_rdc_sm_100a.ptx", 7),
        ("nvcc/arith_sm_90a_debug.ptx", 101),
        ("lib/nccl/9.ptx", 97),
    ] {
        files.push((
            root.join("../shared/corpus")
                .join(f)
                .to_string_lossy()
                .into_owned(),
            step,
        ));
    }
    let mut counts = Counts::default();
    for (f, step) in &files {
        let src = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        flip_all(f, &src, *step, &mut counts);
    }
    eprintln!(
        "bit flips: {} decoded, {} refused, {} mismatches",
        counts.decoded,
        counts.refused,
        counts.mismatches.len()
    );
    if let Ok(path) = std::env::var("FLIPS_DUMP") {
        let _ = std::fs::write(path, counts.mismatches.join("\n====\n"));
    }
    if !counts.mismatches.is_empty() {
        // The kinds of failure, most frequent first (the reader's message without its place).
        let mut kinds = std::collections::BTreeMap::<String, usize>::new();
        for m in &counts.mismatches {
            let first = m.lines().next().unwrap_or("");
            let kind = first
                .split("error: ")
                .nth(1)
                .unwrap_or(if first.contains("different") {
                    "reads back different"
                } else {
                    first
                })
                .to_string();
            *kinds.entry(kind).or_default() += 1;
        }
        let mut kinds: Vec<_> = kinds.into_iter().collect();
        kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
        for (k, n) in kinds.iter().take(40) {
            eprintln!("{n:6} {k}");
        }
        let shown: Vec<_> = counts.mismatches.iter().take(5).collect();
        panic!(
            "{} decoded modules do not read back from their text; the first:\n{}",
            counts.mismatches.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n----\n")
        );
    }
    assert!(counts.decoded > 100 && counts.refused > 100, "{counts:?}");
}
