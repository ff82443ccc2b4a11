//! Decoding allocates at most a bounded multiple of its input: real files, worst cases that
//! maximise memory per encoded byte, and hostile files.
//!
//! The whole process runs under a counting allocator ([`cap`]). For each case the limit is set to
//! the bound, so an allocation past it fails (a fallible one returns an error, an infallible one
//! aborts the test), and the peak is measured: the "ballast" allocation raises the current
//! allocation to the process's peak so far, after which any growth of the peak is this case's.
//! One test per file: the limit is process-wide.

use cap::Cap;
use ptx_ir_binary::{decode, encode_unvalidated, Codec, DecodeLimits, HEADER_LEN};
use ptx_ir_core::{
    Function, FunctionKind, Instruction, Item, Modifier, Module, Name, Opcode, Operand, Statement,
    Type, Version,
};
use std::alloc::System;
use std::path::Path;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// The documented bound on the memory of one decode, for a file of `len` bytes whose sections
/// decode to `decoded` bytes (`decoded` is at most `max_expansion` times `len`): a fixed
/// allowance (zstd's decompression context, the error path) plus 128 bytes of IR per decoded
/// byte (see `FORMAT.md`, "Hostile input"): the worst case is an empty vector operand, 2 bytes
/// that become a 16-byte operand holding a 72-byte list.
fn bound(decoded: usize) -> usize {
    (1 << 20) + 128 * decoded
}

/// Decodes `bytes` under the bound; returns the peak allocation and whether it decoded.
fn measure(bytes: &[u8], decoded: usize) -> (usize, bool) {
    let ballast = vec![0u8; ALLOC.max_allocated().saturating_sub(ALLOC.allocated())];
    let base = ALLOC.allocated();
    ALLOC
        .set_limit(base + bound(decoded))
        .expect("limit above current use");
    let ok = decode(bytes).is_ok();
    ALLOC.set_limit(usize::MAX).expect("unlimited");
    let peak = ALLOC.max_allocated().saturating_sub(base);
    drop(ballast);
    (peak, ok)
}

fn kernel(names: usize, body: Vec<Statement>) -> Module {
    let mut m = Module::new(Version { major: 8, minor: 7 }, vec![], None);
    for i in 0..names.max(1) {
        // Short distinct names: base-26 numerals.
        let (mut k, mut name) = (i, String::new());
        loop {
            name.push(char::from(b'a' + (k % 26) as u8));
            k /= 26;
            if k == 0 {
                break;
            }
        }
        m.names.intern(&name);
    }
    m.items.push(Item::Function(Box::new(Function {
        linkage: None,
        kind: FunctionKind::Entry,
        attributes: vec![],
        returns: None,
        name: Name::from_index(0),
        params: None,
        directives: vec![],
        body: Some(ptx_ir_core::Body::from(body)),
    })));
    m
}

/// Recomputes the checksum (bitwise CRC-32 of all but the checksum field).
fn seal(b: &mut [u8]) {
    let mut c = !0u32;
    for &x in b[..20].iter().chain(&b[HEADER_LEN..]) {
        c ^= x as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    b[20..24].copy_from_slice(&(!c).to_le_bytes());
}

/// Decoded size of a file (the sum of its sections' declared decoded lengths), if its frames
/// are consistent.
fn decoded_len(b: &[u8]) -> Option<usize> {
    let word = |at: usize| -> Option<usize> {
        Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let mut pos = HEADER_LEN;
    let mut total = 0;
    for _ in 0..2 {
        total += word(pos)?;
        pos += 8 + (word(pos + 4)? & !(1 << 31));
    }
    (pos == b.len()).then_some(total)
}

#[test]
fn decoding_allocates_a_bounded_multiple_of_the_input() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for f in [
        "triton/tr_attn_fwd.ptx",
        "nvcc/sync_sm_90a.ptx",
        "lib/nccl/5.ptx",
    ] {
        let src = std::fs::read_to_string(corpus.join(f)).expect("shared corpus");
        let m = ptx_ir_text::parse(&src).unwrap();
        for codec in [Codec::Stored, Codec::Zstd] {
            cases.push((
                format!("{f} ({codec:?})"),
                encode_unvalidated(&m, codec).unwrap(),
            ));
        }
    }
    // Worst cases for memory per encoded byte: non-instruction entries (labels), empty vector
    // operands, short names.
    // 1 MiB / 16 bytes = 65536 entries preallocated, then doubling: 2 * 65536 + 1 needs a
    // vector of twice its size.
    let labels = kernel(
        1,
        vec![Statement::Label(Name::from_index(0)); 2 * 65536 + 1],
    );
    let vectors = kernel(
        1,
        vec![
            Statement::Inst(Instruction::new(
                Opcode::Ret,
                [],
                [
                    Operand::vector([]),
                    Operand::vector([]),
                    Operand::vector([]),
                    Operand::vector([]),
                    Operand::vector([]),
                ],
            ));
            20_000
        ],
    );
    // One word of 30 modifiers, reused: two bytes of entries per instruction.
    let modifiers = kernel(
        1,
        vec![
            Statement::Inst(Instruction::new(
                Opcode::Ret,
                vec![Modifier::Type(Type::U32); 30],
                [],
            ));
            50_000
        ],
    );
    let names = kernel(50_000, vec![]);
    for (what, m) in [
        ("labels", labels),
        ("vectors", vectors),
        ("modifiers", modifiers),
        ("names", names),
    ] {
        for codec in [Codec::Stored, Codec::Zstd] {
            cases.push((
                format!("{what} ({codec:?})"),
                encode_unvalidated(&m, codec).unwrap(),
            ));
        }
    }
    // Hostile: a huge item count, a huge compressed section, a deep nest, noise.
    let empty = encode_unvalidated(
        &Module::new(Version { major: 8, minor: 7 }, vec![], None),
        Codec::Stored,
    )
    .unwrap();
    let mut huge = empty.clone();
    huge.pop();
    huge.extend_from_slice(&[253, 0, 0, 0, 0, 0, 1, 0, 0]);
    let n = huge.len() - HEADER_LEN - 8 - 1 - 8;
    let at = HEADER_LEN + 8 + 1;
    huge[at..at + 4].copy_from_slice(&(n as u32).to_le_bytes());
    huge[at + 4..at + 8].copy_from_slice(&(n as u32 | 1 << 31).to_le_bytes());
    seal(&mut huge);
    cases.push(("2^40 items".into(), huge));
    let mut noise = empty[..HEADER_LEN].to_vec();
    let mut x = 0x1234_5678_9abc_def0u64;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise.push(x as u8);
    }
    cases.push(("noise".into(), noise));

    println!(
        "size_of: Stmt {}, Operand {}, Item {}, Function {}",
        std::mem::size_of::<ptx_ir_core::Stmt>(),
        std::mem::size_of::<Operand>(),
        std::mem::size_of::<Item>(),
        std::mem::size_of::<Function>()
    );
    let mut worst: f64 = 0.0;
    for (what, bytes) in &cases {
        let decoded = decoded_len(bytes)
            .unwrap_or(0)
            .min(bytes.len() * DecodeLimits::DEFAULT.max_expansion as usize);
        let (peak, ok) = measure(bytes, decoded.max(bytes.len()));
        let ratio = peak as f64 / bytes.len() as f64;
        let per_decoded = peak.saturating_sub(1 << 20) as f64 / decoded.max(1) as f64;
        worst = worst.max(per_decoded);
        println!(
            "{what:32} {:>9} bytes ({decoded:>9} decoded): peak {peak:>10} = {ratio:6.1} x input, \
             {per_decoded:5.1} x decoded beyond 1 MiB, ok={ok}",
            bytes.len()
        );
        assert!(peak <= bound(decoded.max(bytes.len())), "{what}: {peak}");
    }
    println!("worst: {worst:.1} bytes per decoded byte");
}
