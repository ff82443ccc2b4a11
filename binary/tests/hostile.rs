//! Hostile input: every byte string decodes to `Ok` or a clear error — never a panic, never an
//! unbounded allocation (see also `alloc.rs`), never an endless loop.
//!
//! Real files are truncated at every point and have bits flipped; crafted files carry huge
//! lengths, deep nesting, bad tags, out-of-range names and shapes, bad headers. Tests that need
//! to get past the checksum compute it here (`seal`), so they reach the wire decoder and the
//! guard, not just the CRC.

use ptx_ir_binary::{
    decode, decode_with, encode, encode_unvalidated, Codec, DecodeError, DecodeLimits, EncodeError,
    Section, HEADER_LEN,
};
use ptx_ir_core::limits::{MAX_OPERAND_DEPTH, MAX_SCOPE_DEPTH};
use ptx_ir_core::{
    Function, FunctionKind, Instruction, Item, Modifier, Module, Name, Opcode, Shape, Statement,
    Target, Type, Version,
};
use std::path::{Path, PathBuf};

fn golden(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/golden/bytecode")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

fn parse(src: &str) -> Module {
    ptx_ir_text::parse(src).expect("test source parses")
}

const NO_CRC: DecodeLimits = DecodeLimits {
    verify_checksum: false,
    ..DecodeLimits::DEFAULT
};

/// Bitwise CRC-32 (independent of the crate's table-driven one).
fn crc32(parts: &[&[u8]]) -> u32 {
    let mut c = !0u32;
    for p in parts {
        for &b in *p {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
    }
    !c
}

/// Recomputes the checksum of a (possibly doctored) file.
fn seal(b: &mut [u8]) {
    if b.len() >= HEADER_LEN {
        let c = crc32(&[&b[..20], &b[HEADER_LEN..]]);
        b[20..24].copy_from_slice(&c.to_le_bytes());
    }
}

/// The two sections of an uncompressed file: (strings, body).
fn sections(b: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut pos = HEADER_LEN;
    let mut out = Vec::new();
    for _ in 0..2 {
        let stored =
            (u32::from_le_bytes(b[pos + 4..pos + 8].try_into().unwrap()) & !(1 << 31)) as usize;
        out.push(b[pos + 8..pos + 8 + stored].to_vec());
        pos += 8 + stored;
    }
    (out[0].clone(), out[1].clone())
}

/// An uncompressed file with the given sections, with a valid checksum.
fn container(strings: &[u8], body: &[u8]) -> Vec<u8> {
    let empty = encode_unvalidated(&Module::new(version(), vec![], None), Codec::Stored).unwrap();
    let mut out = empty[..HEADER_LEN].to_vec();
    for s in [strings, body] {
        let n = s.len() as u32;
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(n | 1 << 31).to_le_bytes());
        out.extend_from_slice(s);
    }
    seal(&mut out);
    out
}

fn version() -> Version {
    Version { major: 8, minor: 7 }
}

/// A module with one kernel whose body is `body`, and the names `names`.
fn kernel(names: &[&str], body: Vec<Statement>) -> Module {
    let mut m = Module::new(
        version(),
        vec![Target::Sm {
            arch: 90,
            suffix: ptx_ir_core::ArchSuffix::None,
        }],
        Some(64),
    );
    for n in names {
        m.names.intern(n);
    }
    m.items.push(Item::Function(Box::new(Function {
        linkage: None,
        kind: FunctionKind::Entry,
        attributes: vec![],
        returns: None,
        name: Name::from_index(0),
        params: Some(vec![]),
        directives: vec![],
        body: Some(ptx_ir_core::Body::from(body)),
    })));
    m
}

fn body_of(m: &Module) -> Vec<u8> {
    sections(&encode_unvalidated(m, Codec::Stored).unwrap()).1
}

/// bincode's variable-length encoding of an unsigned integer.
fn varint(v: u64) -> Vec<u8> {
    match v {
        0..=250 => vec![v as u8],
        251..=0xffff => [vec![251], (v as u16).to_le_bytes().to_vec()].concat(),
        0x1_0000..=0xffff_ffff => [vec![252], (v as u32).to_le_bytes().to_vec()].concat(),
        _ => [vec![253], v.to_le_bytes().to_vec()].concat(),
    }
}

/// Where two encodings differ: `a = p + x + s`, `b = p + y + s`; returns (p, x, y, s).
fn split(a: &[u8], b: &[u8]) -> (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>) {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_s = a.len().min(b.len()) - p;
    let s = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
        .min(max_s);
    (
        a[..p].to_vec(),
        a[p..a.len() - s].to_vec(),
        b[p..b.len() - s].to_vec(),
        a[a.len() - s..].to_vec(),
    )
}

/// A small deterministic PRNG (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn every_truncation_point_is_an_error() {
    let m = parse(&golden("operands.ptx"));
    let mut cuts = 0;
    for codec in [Codec::Stored, Codec::Zstd] {
        let b = encode_unvalidated(&m, codec).unwrap();
        assert_eq!(decode(&b).unwrap(), m);
        for k in 0..b.len() {
            let e = decode(&b[..k]).expect_err("a truncated file must not decode");
            assert!(
                matches!(e, DecodeError::Truncated { offset, .. } if offset == k),
                "cut at {k}: {e}"
            );
            cuts += 1;
        }
    }
    // Truncation inside the encoded values themselves (the frame lengths and the checksum made
    // consistent), so the wire decoder runs out of input at every point of every section.
    let (strings, body) = sections(&encode_unvalidated(&m, Codec::Stored).unwrap());
    for k in 0..strings.len() {
        let e = decode(&container(&strings[..k], &body)).expect_err("short string table");
        // A length that no longer fits is caught before reading (LengthTooLarge), anything
        // else when the read runs off the end (Truncated).
        assert!(
            matches!(
                e,
                DecodeError::Truncated { .. } | DecodeError::LengthTooLarge { .. }
            ),
            "{e}"
        );
        cuts += 1;
    }
    for k in 0..body.len() {
        let e = decode(&container(&strings, &body[..k])).expect_err("short body");
        assert!(
            matches!(
                e,
                DecodeError::Truncated { .. } | DecodeError::LengthTooLarge { .. }
            ),
            "{e}"
        );
        cuts += 1;
    }
    println!("{cuts} truncations, all errors");
    assert!(cuts > 2500);
}

#[test]
fn every_bit_flip_of_a_small_file_is_caught_or_harmless() {
    let m = parse(&golden("operands.ptx"));
    let (mut flips, mut ok) = (0, 0);
    for codec in [Codec::Stored, Codec::Zstd] {
        let b = encode_unvalidated(&m, codec).unwrap();
        for bit in 0..b.len() * 8 {
            let mut f = b.clone();
            f[bit / 8] ^= 1 << (bit % 8);
            // With the checksum: every single-bit error is detected.
            assert!(decode(&f).is_err(), "flip of bit {bit} went unnoticed");
            // Past the checksum (resealed, or not verified): Ok or an error, never a panic.
            if decode_with(&f, &NO_CRC).is_ok() {
                ok += 1;
            }
            seal(&mut f);
            if decode(&f).is_ok() {
                ok += 1;
            }
            flips += 1;
        }
    }
    println!(
        "{flips} single-bit flips, each decoded 3 ways; {ok} decodes past the checksum were Ok"
    );
}

#[test]
fn bit_flips_on_real_corpus_files_never_panic() {
    let mut files = Vec::new();
    for dir in ["triton", "nvcc"] {
        let mut v: Vec<_> = std::fs::read_dir(corpus_dir().join(dir))
            .expect("shared corpus")
            .map(|e| e.unwrap().path())
            .filter(|p| {
                std::fs::metadata(p)
                    .map(|m| m.len() < 30_000)
                    .unwrap_or(false)
            })
            .collect();
        v.sort();
        files.extend(v);
    }
    assert!(files.len() >= 5, "small corpus files: {files:?}");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut runs, mut ok) = (0, 0);
    for f in &files {
        let m = parse(&std::fs::read_to_string(f).unwrap());
        for codec in [Codec::Stored, Codec::Zstd] {
            let b = encode_unvalidated(&m, codec).unwrap();
            for _ in 0..400 {
                let mut g = b.clone();
                // One to eight random bit flips, resealed so they reach the decoder proper.
                for _ in 0..1 + rng.next() % 8 {
                    let bit = (rng.next() % (g.len() as u64 * 8)) as usize;
                    g[bit / 8] ^= 1 << (bit % 8);
                }
                seal(&mut g);
                if let Ok(d) = decode(&g) {
                    ok += 1;
                    // Whatever decodes also prints (the invariants the printer needs hold).
                    let _ = ptx_ir_text::print(&d);
                }
                runs += 1;
            }
        }
    }
    println!(
        "{runs} corrupted decodes of {} corpus files; {ok} Ok",
        files.len()
    );
}

#[test]
fn random_bytes_never_panic() {
    fn prop(bytes: Vec<u8>) -> bool {
        // Raw bytes, bytes behind a valid header, and bytes as a sealed body.
        let _ = decode(&bytes);
        let mut h =
            encode_unvalidated(&Module::new(version(), vec![], None), Codec::Stored).unwrap();
        h.truncate(HEADER_LEN);
        h.extend_from_slice(&bytes);
        let _ = decode_with(&h, &NO_CRC);
        let _ = decode(&container(&[0], &bytes));
        let _ = decode(&container(&bytes, &[]));
        true
    }
    quickcheck::QuickCheck::new()
        .tests(3000)
        .rng(quickcheck::Gen::new(512))
        .quickcheck(prop as fn(Vec<u8>) -> bool);
}

#[test]
fn an_out_of_range_name_is_rejected() {
    let m = kernel(&["k"], vec![Statement::Label(Name::from_index(5))]);
    let b = encode_unvalidated(&m, Codec::DEFAULT).unwrap();
    let e = decode(&b).expect_err("name 5 of a 1-name table");
    // Labels are checked as their body is decoded: a fault in its columns.
    assert!(
        matches!(&e, DecodeError::Invalid { detail, .. }
            if detail.contains("name index 5 outside the string table (1 names)")),
        "{e}"
    );
    // Outside bodies, by validation.
    let mut m = kernel(&["k"], vec![]);
    if let Some(Item::Function(f)) = m.items.first_mut() {
        f.name = Name::from_index(5);
    }
    let e = decode(&encode_unvalidated(&m, Codec::DEFAULT).unwrap()).expect_err("function name 5");
    assert!(
        matches!(&e, DecodeError::InvalidIr { detail, .. } if detail.contains("name index 5")),
        "{e}"
    );
    // The same for a name in an operand, a guard and the function name.
    let mut i = Instruction::new(
        Opcode::Bra,
        [],
        [ptx_ir_core::Operand::reg(Name::from_index(1))],
    );
    let m = kernel(&["k", "L"], vec![Statement::Inst(i.clone())]);
    assert!(decode(&encode_unvalidated(&m, Codec::DEFAULT).unwrap()).is_ok());
    i.guard = Some(ptx_ir_core::Guard {
        pred: Name::from_index(2),
        negated: false,
    });
    let m = kernel(&["k", "L"], vec![Statement::Inst(i)]);
    // Instructions' names are checked as their body is decoded: a fault in its columns.
    let e = decode(&encode_unvalidated(&m, Codec::DEFAULT).unwrap()).expect_err("guard name 2");
    assert!(
        matches!(&e, DecodeError::Invalid { detail, path, .. }
            if detail.contains("name index 2 outside the string table (2 names)")
                && path.contains("body")),
        "{e}"
    );
    let mut m = kernel(&["k"], vec![]);
    m.names = ptx_ir_core::Interner::new();
    assert!(matches!(
        decode(&encode_unvalidated(&m, Codec::DEFAULT).unwrap()),
        Err(DecodeError::InvalidIr { .. })
    ));
}

#[test]
fn an_out_of_range_modifier_and_a_bad_tag_are_rejected() {
    let shape = |i: u8| {
        let s = Shape::from_ordinal(i).unwrap();
        kernel(
            &["k"],
            vec![Statement::Inst(Instruction::new(
                Opcode::Ret,
                [Modifier::Shape(s)],
                [],
            ))],
        )
    };
    // Modifiers are their stable number (class, ordinal), two bytes little endian, in the body's
    // words: neighbouring shapes differ in the low byte. 0xffff is no modifier.
    let (p, x, _, s) = split(&body_of(&shape(1)), &body_of(&shape(2)));
    assert_eq!(x.len(), 1, "the low byte of the modifier");
    let strings = sections(&encode_unvalidated(&shape(1), Codec::Stored).unwrap()).0;
    let bad = [p.clone(), vec![0xff, 0xff], s[1..].to_vec()].concat();
    let e = decode(&container(&strings, &bad)).expect_err("modifier 0xffff");
    assert!(
        matches!(&e, DecodeError::Invalid { detail, .. }
            if detail.contains("modifier number 0xffff is not in this build's vocabulary")),
        "{e}"
    );

    // A statement tag outside `Stmt`, the compact body's entry: in `others`, one `Pragma`
    // (tag 4) of one byte.
    let a = body_of(&kernel(&["k"], vec![Statement::Pragma("x".into())]));
    let at = find(&a, &[1, 4, 1, b'x']).expect("the pragma") + 1;
    let bad = [&a[..at], &[77], &a[at + 1..]].concat();
    let e = decode(&container(&strings, &bad)).expect_err("tag 77");
    assert!(
        matches!(
            &e,
            DecodeError::InvalidTag {
                ty: "Stmt",
                found: 77,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("items[0]"), "path in {e}");

    // An ordinal past the end of a class (`Type`, class 0).
    let t = |ty: Type| {
        kernel(
            &["k"],
            vec![Statement::Inst(Instruction::new(
                Opcode::Ret,
                [Modifier::Type(ty)],
                [],
            ))],
        )
    };
    let (p, x, _, s) = split(&body_of(&t(Type::U32)), &body_of(&t(Type::S32)));
    assert_eq!(x.len(), 1);
    let bad = [p, vec![0xf0, 0x00], s[1..].to_vec()].concat();
    let e = decode(&container(&strings, &bad)).expect_err("modifier 0x00f0");
    assert!(
        matches!(&e, DecodeError::Invalid { detail, .. }
            if detail.contains("modifier number 0x00f0 is not in this build's vocabulary")),
        "{e}"
    );
}

#[test]
fn deep_nesting_is_rejected_without_overflowing_the_stack() {
    let nest = |n: usize| {
        let mut s = Statement::Pragma("x".into());
        for _ in 0..n {
            s = Statement::Block(vec![s]);
        }
        kernel(&["k"], vec![s])
    };
    // Scopes are flat entries in the bytecode, so they do not nest in the decoder's stack; it
    // still bounds them at the reader's depth, and the encoder refuses deeper ones.
    assert!(decode(&encode_unvalidated(&nest(40), Codec::DEFAULT).unwrap()).is_ok());
    let deepest = encode(&nest(MAX_SCOPE_DEPTH as usize)).unwrap();
    assert!(decode(&deepest).is_ok());
    let past = nest(MAX_SCOPE_DEPTH as usize + 1);
    let e = encode(&past).expect_err("the encoder refuses what the decoder would");
    assert!(
        matches!(&e, EncodeError::Invalid { detail, .. } if detail.contains("scopes nest deeper than 64")),
        "{e}"
    );
    let e =
        decode(&encode_unvalidated(&past, Codec::DEFAULT).unwrap()).expect_err("past the bound");
    assert!(
        matches!(&e, DecodeError::TooDeep { limit, .. } if *limit == MAX_SCOPE_DEPTH),
        "{e}"
    );
    assert!(ptx_ir_binary::validate(&past).is_err());

    // Crafted: a million nested scopes, each entry claiming the rest of the body. One pragma
    // is, in the body's columns: no words `[0]`, entries `[1, 0xff]` (one entry from
    // `others`), no operands `[0]`, others `[1, 4, 1, b'x']` (one `Pragma`, tag 4, of one
    // byte).
    let one = body_of(&nest(0));
    let pattern = [0, 1, 0xff, 0, 1, 4, 1, b'x'];
    let at = find(&one, &pattern).unwrap_or_else(|| panic!("the columns of one pragma in {one:?}"));
    let strings = sections(&encode_unvalidated(&nest(0), Codec::Stored).unwrap()).0;
    let n = 1_000_000u32;
    let mut body = one[..at].to_vec();
    body.push(0);
    body.extend_from_slice(&varint(n as u64 + 1));
    body.extend(std::iter::repeat_n(0xff, n as usize + 1));
    body.push(0);
    body.extend_from_slice(&varint(n as u64 + 1));
    for i in 0..n {
        // `Stmt::Block { len, mods: 0, operands: 0 }`
        body.push(5);
        body.extend_from_slice(&varint((n - i) as u64));
        body.extend_from_slice(&[0, 0]);
    }
    body.extend_from_slice(&[4, 1, b'x']);
    body.extend_from_slice(&one[at + pattern.len()..]);
    let e = decode(&container(&strings, &body)).expect_err("a million scopes");
    assert!(matches!(e, DecodeError::TooDeep { .. }), "{e}");

    // Operands nest too: `-(-(-...7654321))`. In the operands column, `Neg` is tag 15 and
    // `Int` tag 3 followed by its zig-zag LEB128.
    let neg = |n: usize| {
        let mut o = ptx_ir_core::Operand::Int(7_654_321);
        for _ in 0..n {
            o = ptx_ir_core::Operand::Neg(Box::new(o));
        }
        kernel(
            &["k"],
            vec![Statement::Inst(Instruction::new(Opcode::Ret, [], [o]))],
        )
    };
    // Every module `validate` accepts decodes, operands nested as deep as it allows included
    // (a fuzz finding: the body columns' bound was once below it); one level more is invalid IR.
    // (`ret` takes no operand: the deepest gets past the depth bound to the form check, which
    // the body's columns make as they are read.)
    let deepest = neg(MAX_OPERAND_DEPTH as usize);
    let e = decode(&encode_unvalidated(&deepest, Codec::DEFAULT).unwrap()).expect_err("a form");
    assert!(
        matches!(&e, DecodeError::Invalid { detail, .. } if detail.contains("takes 0 operands")),
        "{e}"
    );
    let past = neg(MAX_OPERAND_DEPTH as usize + 1);
    assert!(matches!(encode(&past), Err(EncodeError::Invalid { .. })));
    let e =
        decode(&encode_unvalidated(&past, Codec::DEFAULT).unwrap()).expect_err("past the bound");
    assert!(
        matches!(e, DecodeError::TooDeep { limit, .. } if limit == MAX_OPERAND_DEPTH),
        "{e}"
    );

    let one = body_of(&neg(1));
    let int = [3, 0xe2, 0xae, 0xa6, 0x07];
    let at = find(&one, &[&[15][..], &int].concat()).expect("the operand column");
    assert_eq!(one[at - 1] as usize, 1 + int.len(), "the column's length");
    let n = 1_000_000;
    let mut body = one[..at - 1].to_vec();
    body.extend_from_slice(&varint((n + int.len()) as u64));
    body.extend(std::iter::repeat_n(15, n));
    body.extend_from_slice(&int);
    body.extend_from_slice(&one[at + 1 + int.len()..]);
    let e = decode(&container(&strings, &body)).expect_err("a million negations");
    assert!(matches!(e, DecodeError::TooDeep { .. }), "{e}");
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn huge_lengths_are_rejected_before_allocating() {
    let empty = Module::new(version(), vec![], None);
    let b = encode_unvalidated(&empty, Codec::Stored).unwrap();
    let (strings, body) = sections(&b);
    assert_eq!(strings, [0, 0], "no names: no lengths, no bytes");
    assert_eq!(*body.last().unwrap(), 0, "no items");
    // varint u64 prefix 253, then the value.
    let huge = |v: u64| [vec![253], v.to_le_bytes().to_vec()].concat();
    for len in [1u64 << 20, 1 << 40, u64::MAX] {
        let mut bad = body.clone();
        bad.pop();
        bad.extend_from_slice(&huge(len));
        let e = decode(&container(&strings, &bad)).expect_err("2^40 items");
        assert!(
            matches!(e, DecodeError::LengthTooLarge { len: l, .. } if l == len),
            "{e}"
        );
        // A huge column of name lengths, then of name bytes.
        for strings in [[huge(len), vec![0]].concat(), [vec![0], huge(len)].concat()] {
            let e = decode(&container(&strings, &body)).expect_err("a huge byte string");
            assert!(
                matches!(
                    e,
                    DecodeError::Truncated { .. } | DecodeError::LimitExceeded { .. }
                ),
                "{e}"
            );
        }
        // One name of a huge length (LEB128), with no bytes.
        let mut leb = Vec::new();
        let mut v = len;
        while v >= 0x80 {
            leb.push(v as u8 | 0x80);
            v >>= 7;
        }
        leb.push(v as u8);
        let one = [vec![leb.len() as u8], leb, vec![0]].concat();
        let e = decode(&container(&one, &body)).expect_err("a huge name");
        assert!(
            matches!(
                &e,
                DecodeError::Invalid {
                    section: Section::Strings,
                    ..
                }
            ),
            "{e}"
        );
    }

    // A compressed section that claims to expand past the limits.
    let m = parse(&golden("operands.ptx"));
    let z = encode_unvalidated(&m, Codec::Zstd).unwrap();
    // The body's frame (a string table this small is stored as is).
    let strings = u32::from_le_bytes(z[HEADER_LEN + 4..HEADER_LEN + 8].try_into().unwrap());
    let at = HEADER_LEN + 8 + (strings & !(1 << 31)) as usize;
    assert_eq!(z[at + 7] & 0x80, 0, "the body is compressed");
    let patch = |raw: u32| {
        let mut f = z.clone();
        f[at..at + 4].copy_from_slice(&raw.to_le_bytes());
        seal(&mut f);
        decode(&f)
    };
    assert!(matches!(
        patch(u32::MAX),
        Err(DecodeError::LimitExceeded { .. })
    ));
    assert!(matches!(
        patch(100 << 20),
        Err(DecodeError::LimitExceeded { .. })
    ));
    let real = u32::from_le_bytes(z[at..at + 4].try_into().unwrap());
    assert!(matches!(patch(real + 1), Err(DecodeError::Corrupt { .. })));
    assert!(matches!(patch(real - 1), Err(DecodeError::Corrupt { .. })));
    // Limits are configurable.
    let tight = DecodeLimits {
        max_input: 100,
        ..DecodeLimits::DEFAULT
    };
    assert!(matches!(
        decode_with(&z, &tight),
        Err(DecodeError::LimitExceeded { .. })
    ));
    let tight = DecodeLimits {
        max_expansion: 1,
        ..DecodeLimits::DEFAULT
    };
    assert!(matches!(
        decode_with(&z, &tight),
        Err(DecodeError::LimitExceeded { .. })
    ));
}

#[test]
fn header_errors_are_clear() {
    let m = parse(&golden("saxpy.ptx"));
    let b = encode_unvalidated(&m, Codec::DEFAULT).unwrap();
    let patched = |at: usize, v: u8| {
        let mut f = b.clone();
        f[at] = v;
        seal(&mut f);
        decode(&f)
    };
    assert!(matches!(
        decode(b""),
        Err(DecodeError::Truncated { offset: 0, .. })
    ));
    assert!(matches!(
        decode(b".version 8.7\n"),
        Err(DecodeError::BadMagic)
    ));
    assert!(matches!(
        decode(b"\x89PTX"),
        Err(DecodeError::Truncated { .. })
    ));
    assert!(matches!(
        patched(8, 1),
        Err(DecodeError::UnsupportedVersion {
            found: 1,
            supported: ptx_ir_binary::FORMAT_VERSION
        })
    ));
    assert!(matches!(
        patched(10, 9),
        Err(DecodeError::UnsupportedHeader { what: "codec", .. })
    ));
    assert!(matches!(
        patched(11, 1),
        Err(DecodeError::UnsupportedHeader { .. })
    ));
    assert!(matches!(
        patched(12, b[12] ^ 1),
        Err(DecodeError::TableMismatch { .. })
    ));
    let mut f = b.clone();
    f.push(0);
    seal(&mut f);
    assert!(matches!(
        decode(&f),
        Err(DecodeError::TrailingBytes { count: 1, .. })
    ));
    let mut f = b.clone();
    let last = f.len() - 1;
    f[last] ^= 0x40;
    assert!(matches!(decode(&f), Err(DecodeError::Checksum { .. })));
    for e in [
        decode(b".version").unwrap_err(),
        patched(8, 1).unwrap_err(),
        decode(&f).unwrap_err(),
        decode(&b[..50]).unwrap_err(),
    ] {
        println!("{e}");
    }
    let msg = decode(&b[..50]).unwrap_err().to_string();
    assert!(msg.starts_with("truncated at offset 50 ("), "{msg}");
}

/// Appends a section of `entries` to `m`, checks that the module comes back equal through the
/// bytecode, and returns the entries its printed text reads back as.
fn section_both_ways(
    m: &mut Module,
    name: &str,
    entries: &[ptx_ir_core::SectionEntry],
) -> Vec<ptx_ir_core::SectionEntry> {
    m.items.push(Item::Section(Box::new(ptx_ir_core::Section {
        name: name.into(),
        entries: entries.to_vec(),
    })));
    let reread = ptx_ir_text::parse(&ptx_ir_text::print(m)).unwrap();
    let Some(Item::Section(s)) = reread.items.last() else {
        panic!("no section")
    };
    if s.entries == entries {
        let bytes = ptx_ir_binary::encode(m).unwrap();
        assert_eq!(&ptx_ir_binary::decode(&bytes).unwrap(), m);
    } else {
        // Not the reader's form: the encoder refuses it, and so does the decoder.
        let e = ptx_ir_binary::encode(m).expect_err("not the reader's form");
        assert!(matches!(e, EncodeError::Invalid { .. }), "{e}");
        let bytes = encode_unvalidated(m, Codec::Stored).unwrap();
        let e = ptx_ir_binary::decode(&bytes).expect_err("not the reader's form");
        assert!(matches!(e, DecodeError::InvalidIr { .. }), "{e}");
    }
    s.entries.clone()
}

/// A debug section's data lines through the bytecode: one integer or name is a `Value` (the
/// reader's form, written as a plain record of one value); a `Data` holding one such value is
/// not the reader's form, and the encoder and the decoder refuse it; the text of each reads
/// back as the reader's form.
#[test]
fn section_data_lines_keep_their_form() {
    use ptx_ir_core::{DataValue, Expr, SectionEntry, Type};
    let mut m = kernel(&["k", "$L1", ".debug_abbrev"], vec![]);
    let (l1, abbrev) = (Name::from_index(1), Name::from_index(2));
    let entries = vec![
        SectionEntry::Label(l1),
        SectionEntry::Value {
            ty: Type::B64,
            value: DataValue::Sym(l1),
        },
        SectionEntry::Value {
            ty: Type::B32,
            value: DataValue::Sym(abbrev),
        },
        SectionEntry::Value {
            ty: Type::B64,
            value: DataValue::Int(-7),
        },
        SectionEntry::Data {
            ty: Type::B64,
            values: vec![Expr::Sym(l1)].into(),
        },
        SectionEntry::Data {
            ty: Type::B32,
            values: vec![Expr::Int(3)].into(),
        },
        SectionEntry::Data {
            ty: Type::B64,
            values: vec![Expr::Uint(5)].into(),
        },
        SectionEntry::Data {
            ty: Type::B32,
            values: vec![Expr::Int(1), Expr::Sym(l1)].into(),
        },
    ];
    let s = section_both_ways(&mut m, ".debug_info", &entries);
    // The text reads back in the reader's form: one integer or name as a `Value`.
    let canonical: Vec<SectionEntry> = entries
        .into_iter()
        .map(|e| match e {
            SectionEntry::Data { ty, values } => SectionEntry::data(ty, values.into_vec()),
            other => other,
        })
        .collect();
    assert_eq!(s, canonical);
    assert!(matches!(s[4], SectionEntry::Value { .. }));
    assert!(matches!(s[6], SectionEntry::Data { .. }));
}

/// One-byte `.b8` lines through the bytecode: a column in the reader's form (a maximal run)
/// is written a record per line and read back as one column; forms the reader does not give
/// (a `Bytes` of one byte, an empty column, two columns side by side) are refused by the
/// encoder and the decoder; the text of each reads back as the reader's form, a column per run.
#[test]
fn section_byte_columns_keep_their_form() {
    use ptx_ir_core::{ByteLine, SectionEntry};
    let mut m = kernel(&["k", "$L1"], vec![]);
    let col = |v: &[u8]| SectionEntry::ByteColumn(v.into());
    let line = |v: &[u8]| SectionEntry::Bytes(ByteLine::new(v));
    let entries = vec![
        SectionEntry::Label(Name::from_index(1)),
        col(&[1, 2, 3]),
        line(&[4, 5]),
        col(&[6]),
        line(&[7]),
        col(&[]),
        col(&[8, 9]),
        col(&[10]),
        line(&[11, 12]),
        line(&[13]),
        col(&[14]),
    ];
    let s = section_both_ways(&mut m, ".debug_str", &entries);
    let canonical = vec![
        SectionEntry::Label(Name::from_index(1)),
        col(&[1, 2, 3]),
        line(&[4, 5]),
        col(&[6, 7, 8, 9, 10]),
        line(&[11, 12]),
        col(&[13, 14]),
    ];
    assert_eq!(s, canonical);
    // The reader's form is written a record per line, and reads back the same.
    let mut again = m.clone();
    if let Some(Item::Section(s)) = again.items.last_mut() {
        s.entries = canonical.clone();
    }
    assert_eq!(
        ptx_ir_binary::decode(&ptx_ir_binary::encode(&again).unwrap()).unwrap(),
        again
    );
}
