//! Real PTX, built into the oracles as material to mutate: the project's own corpus files
//! (printer goldens, bytecode goldens' sources, interpreter programs). The shared corpus is too large to
//! embed; the fuzz seed script copies it into `fuzz/corpus/<target>/` instead.

/// Small real modules as text, with their file names.
pub const TEXT: &[(&str, &str)] = &[
    (
        "golden/print/calls.ptx",
        include_str!("../../../corpus/golden/print/calls.ptx"),
    ),
    (
        "golden/print/decls.ptx",
        include_str!("../../../corpus/golden/print/decls.ptx"),
    ),
    (
        "golden/print/hopper.ptx",
        include_str!("../../../corpus/golden/print/hopper.ptx"),
    ),
    (
        "golden/print/saxpy.ptx",
        include_str!("../../../corpus/golden/print/saxpy.ptx"),
    ),
    (
        "golden/bytecode/operands.ptx",
        include_str!("../../../corpus/golden/bytecode/operands.ptx"),
    ),
    (
        "interp/atomics.ptx",
        include_str!("../../../corpus/interp/atomics.ptx"),
    ),
    (
        "interp/divergence.ptx",
        include_str!("../../../corpus/interp/divergence.ptx"),
    ),
    (
        "interp/indirect.ptx",
        include_str!("../../../corpus/interp/indirect.ptx"),
    ),
    (
        "interp/loop.ptx",
        include_str!("../../../corpus/interp/loop.ptx"),
    ),
    (
        "interp/memory.ptx",
        include_str!("../../../corpus/interp/memory.ptx"),
    ),
    (
        "interp/recursion.ptx",
        include_str!("../../../corpus/interp/recursion.ptx"),
    ),
    (
        "interp/warp.ptx",
        include_str!("../../../corpus/interp/warp.ptx"),
    ),
];

/// The modules of [`TEXT`] encoded with both codecs (computed once; encoding at run time keeps
/// them in step with the instruction table, which golden `.ptxb` files are not between blesses).
pub fn bytecode() -> &'static [Vec<u8>] {
    static B: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        let mut out = Vec::new();
        for (_, text) in TEXT {
            if let Ok(m) = ptx_ir_text::parse(text) {
                for codec in [ptx_ir_binary::Codec::Stored, ptx_ir_binary::Codec::Zstd] {
                    if let Ok(b) = ptx_ir_binary::encode_with(&m, codec) {
                        out.push(b);
                    }
                }
            }
        }
        out
    })
}

/// Applies up to `max_edits` byte edits drawn from `u` to `b`: delete, insert, replace, copy a
/// range elsewhere, or splice in a token that PTX text uses often.
pub fn mutate(u: &mut arbitrary::Unstructured, b: &mut Vec<u8>, max_edits: usize) {
    const TOKENS: &[&[u8]] = &[
        b".",
        b";",
        b",",
        b"{",
        b"}",
        b"[",
        b"]",
        b"(",
        b")",
        b"%r1",
        b"_",
        b"|",
        b"!",
        b"@",
        b"-",
        b"+",
        b"0f7FC00000",
        b"0d7FF8000000000000",
        b"0x",
        b"9223372036854775808",
        b"18446744073709551616",
        b"1e999",
        b"\"",
        b"//",
        b"/*",
        b"*/",
        b"\n",
        b"::",
        b"<",
        b">",
        b".reg",
        b".b32",
        b".u64",
        b".param",
        b".entry",
        b".func",
        b".loc",
        b".pragma",
        b".section",
        b"function_name",
        b"inlined_at",
        b"-9223372036854775808",
        b"4294967296",
    ];
    let n = u.int_in_range(1..=max_edits.max(1)).unwrap_or(1);
    for _ in 0..n {
        if u.is_empty() {
            break;
        }
        let len = b.len();
        let pos = if len == 0 {
            0
        } else {
            u.int_in_range(0..=len - 1).unwrap_or(0)
        };
        match u.int_in_range(0..=5u8).unwrap_or(0) {
            0 if len > 0 => {
                let k = u.int_in_range(1..=8usize).unwrap_or(1).min(len - pos);
                b.drain(pos..pos + k);
            }
            1 => b.insert(pos.min(len), u.arbitrary().unwrap_or(b' ')),
            2 if len > 0 => b[pos] = u.arbitrary().unwrap_or(0),
            3 if len > 0 => {
                let k = u.int_in_range(1..=64usize).unwrap_or(1).min(len - pos);
                let chunk = b[pos..pos + k].to_vec();
                let at = u.int_in_range(0..=len).unwrap_or(0);
                b.splice(at..at, chunk);
            }
            4 if len > 0 => {
                // Flip one bit.
                let bit = u.int_in_range(0..=7u8).unwrap_or(0);
                b[pos] ^= 1 << bit;
            }
            _ => {
                let t = u.choose(TOKENS).copied().unwrap_or(b";");
                b.splice(pos.min(len)..pos.min(len), t.iter().copied());
            }
        }
    }
}
