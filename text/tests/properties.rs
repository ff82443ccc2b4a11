//! quickcheck properties of the reader and printer.

use arbitrary::Unstructured;
use ptx_ir_core::generate;
use ptx_ir_text::{parse, print};
use quickcheck::{QuickCheck, TestResult};

fn qc() -> QuickCheck {
    // A fixed number of cases keeps `cargo test` time predictable.
    QuickCheck::new()
        .tests(300)
        .max_tests(3000)
        .rng(quickcheck::Gen::new(1024))
}

/// print -> parse gives the same IR, and printing that IR again gives the same text.
fn round_trip(m: &ptx_ir_core::Module) -> Result<(), String> {
    let text = print(m);
    let back = parse(&text).map_err(|e| format!("{e}\n--- printed:\n{text}"))?;
    if &back != m {
        return Err(format!("IR differs after re-reading\n--- printed:\n{text}"));
    }
    if print(&back) != text {
        return Err(format!("printing is not a fixpoint\n--- printed:\n{text}"));
    }
    Ok(())
}

/// Generated modules (every opcode, every form) print to text that reads back to the same IR,
/// and printing that IR again gives the same text.
#[test]
fn generated_modules_round_trip() {
    fn prop(bytes: Vec<u8>) -> TestResult {
        let mut u = Unstructured::new(&bytes);
        let Ok(m) = generate::module(&mut u) else {
            return TestResult::discard();
        };
        match round_trip(&m) {
            Ok(()) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }
    qc().quickcheck(prop as fn(Vec<u8>) -> TestResult);
}

/// Every opcode, many times each, with long inputs so that all forms get drawn.
#[test]
fn every_opcode_round_trips() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut bytes = vec![0u8; 4096];
    for &op in ptx_ir_core::Opcode::ALL {
        for _ in 0..40 {
            for b in bytes.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = seed as u8;
            }
            let mut u = Unstructured::new(&bytes);
            let mut m = generate::module(&mut Unstructured::new(&[])).unwrap();
            let inst = {
                let mut pool = generate::NamePool::new(&mut m.names);
                generate::instruction(&mut u, &mut pool, Some(op)).unwrap()
            };
            if let ptx_ir_core::Item::Function(f) = &mut m.items[0] {
                f.statements_mut()
                    .unwrap()
                    .push(ptx_ir_core::Statement::Inst(inst));
            }
            ptx_ir_core::visit::renumber_names(&mut m).unwrap();
            let text = print(&m);
            let back = parse(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", op.name()));
            assert_eq!(
                back,
                m,
                "{}: IR differs after re-reading\n{text}",
                op.name()
            );
        }
    }
}

/// Integer and float literals keep their exact value through printing.
#[test]
fn literals_round_trip() {
    fn prop(i: i64, u: u64, f: u32, d: u64, dec: f64) -> bool {
        let dec = if dec.is_finite() { dec } else { 1.0 };
        let src = format!(
            ".version 9.0\n.target sm_90\n.entry k()\n{{\n\tmov.b64 %r, {i};\n\tmov.b64 %r, {u}U;\n\tmov.b32 %r, 0f{f:08X};\n\tmov.b64 %r, 0d{d:016X};\n\tmov.b64 %r, {dec:?};\n}}\n"
        );
        let m = parse(&src).unwrap();
        parse(&print(&m)).unwrap() == m
    }
    qc().quickcheck(prop as fn(i64, u64, u32, u64, f64) -> bool);
}

/// The reader returns (never panics) on arbitrary text.
#[test]
fn arbitrary_text_never_panics() {
    fn prop(s: String) -> bool {
        let _ = parse(&s);
        let with_header = format!(".version 9.0\n.target sm_90\n{s}");
        let _ = parse(&with_header);
        let in_body = format!(".version 9.0\n.target sm_90\n.entry k()\n{{\n{s}\n}}\n");
        let _ = parse(&in_body);
        true
    }
    qc().quickcheck(prop as fn(String) -> bool);
}

/// Mutating a real kernel (deleting, duplicating or replacing bytes) gives a module or an error.
#[test]
fn mutated_kernels_never_panic() {
    let base = include_str!("../../corpus/golden/print/saxpy.ptx");
    fn prop(edits: Vec<(u16, u8, u8)>) -> bool {
        let mut b = include_str!("../../corpus/golden/print/saxpy.ptx")
            .as_bytes()
            .to_vec();
        for (pos, kind, byte) in edits {
            if b.is_empty() {
                break;
            }
            let p = pos as usize % b.len();
            match kind % 3 {
                0 => {
                    b.remove(p);
                }
                1 => b.insert(p, byte),
                _ => b[p] = byte,
            }
        }
        let s = String::from_utf8_lossy(&b);
        if let Ok(m) = parse(&s) {
            // Whatever parses must round-trip.
            return parse(&print(&m)).is_ok_and(|m2| m2 == m);
        }
        true
    }
    assert!(parse(base).is_ok());
    qc().quickcheck(prop as fn(Vec<(u16, u8, u8)>) -> bool);
}

/// Modules using every module-level construct (variables with initialisers, functions with
/// parameters and directives, nested blocks, labels, `.loc`/`.pragma`, target lists,
/// prototypes, sections, files, aliases) round-trip through text, and printing is a fixpoint.
#[test]
fn full_modules_round_trip() {
    fn prop(bytes: Vec<u8>) -> TestResult {
        let mut u = Unstructured::new(&bytes);
        let Ok(m) = generate::full::module(&mut u, &generate::full::Config::default()) else {
            return TestResult::discard();
        };
        match round_trip(&m) {
            Ok(()) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }
    qc().quickcheck(prop as fn(Vec<u8>) -> TestResult);
}

/// Renumbering names into print order is idempotent, and a parsed module is already in that
/// order.
#[test]
fn renumbering_is_idempotent() {
    fn prop(bytes: Vec<u8>) -> TestResult {
        let mut u = Unstructured::new(&bytes);
        let Ok(mut m) = generate::full::module(&mut u, &generate::full::Config::default()) else {
            return TestResult::discard();
        };
        let once = m.clone();
        ptx_ir_core::visit::renumber_names(&mut m).unwrap();
        if m != once {
            return TestResult::failed();
        }
        let mut parsed = parse(&print(&m)).unwrap();
        let before = parsed.clone();
        ptx_ir_core::visit::renumber_names(&mut parsed).unwrap();
        TestResult::from_bool(parsed == before)
    }
    qc().quickcheck(prop as fn(Vec<u8>) -> TestResult);
}

/// Negations of literals and negative literals stay apart through print -> parse, in
/// initialisers, section data, instruction operands and call arguments, where `(36)` is a list
/// (fuzzing findings).
#[test]
fn negated_literals_round_trip() {
    let src = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .global .u32 g[3] = {- 5, --5, -(5)};\n.global .u32 h = 3 - - 0;\n\
        .global .s16 s[4] = {- 1, -32768, 32767, 0};\n\
        .section .debug_str\n{\n.b8 5----0\n}\n\
        .func f(.param .b32 a)\n{\n\tret;\n}\n\
        .entry k()\n{\n\t.reg .b32 %r<3>;\n\t.reg .f32 %f<3>;\n\
        \tcall f, (- 36);\n\tcall f, (-(36));\n\
        \tadd.s32 %r1, %r2, - 5;\n\tadd.s32 %r1, %r2, -(5);\n\tadd.s32 %r1, %r2, -5;\n\
        \tadd.f32 %f1, %f2, - 0f3F800000;\n\tadd.f32 %f1, %f2, -0f3F800000;\n\tret;\n}\n";
    let m = parse(src).expect("parses");
    round_trip(&m).unwrap();
}
