//! Every stable number the bytecode writes keeps its meaning: `numbering.txt` lists each
//! opcode's number ([`Opcode::code`]), each modifier's ([`Modifier::code`]) and each special
//! register's family and number ([`SpecialReg::family_number`]) with its spelling. A line that no
//! longer matches the build fails (a number was changed or reused: files written before would
//! decode to other instructions); an entry of the build that the file lacks fails too, until it
//! is appended with `PTX_BLESS_NUMBERING=1 cargo test -p ptx-ir-binary --test numbering`, which
//! only ever appends.

use ptx_ir_core::{Modifier, Opcode, SpecialReg};
use std::collections::BTreeSet;
use std::path::Path;

/// Every numbered entry of this build, as the file spells them.
fn entries() -> Vec<String> {
    let mut v = Vec::new();
    for &op in Opcode::ALL {
        v.push(format!("opcode {} {}", op.code(), op.name()));
    }
    for m in Modifier::all() {
        v.push(format!(
            "modifier {:#06x} {} {}",
            m.code(),
            m.class().name(),
            m.as_str()
        ));
    }
    let mut specials: Vec<SpecialReg> = SpecialReg::PLAIN.to_vec();
    // One of each numbered family: the number is the register's own.
    specials.extend([
        SpecialReg::Pm(0),
        SpecialReg::Pm64(0),
        SpecialReg::Envreg(0),
        SpecialReg::ReservedSmemOffset(0),
    ]);
    for r in specials {
        let (family, number) = r.family_number();
        v.push(format!("special {family} {number} {r}"));
    }
    v
}

#[test]
fn stable_numbers_keep_their_meaning() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/numbering.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let recorded: Vec<&str> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let now = entries();
    let have: BTreeSet<&str> = now.iter().map(String::as_str).collect();
    let changed: Vec<&str> = recorded
        .iter()
        .copied()
        .filter(|l| !have.contains(l))
        .collect();
    assert!(
        changed.is_empty(),
        "numbers the bytecode wrote now mean something else or nothing (restore them; new \
         entries take new numbers):\n{}",
        changed.join("\n")
    );
    let known: BTreeSet<&str> = recorded.iter().copied().collect();
    let missing: Vec<&str> = now
        .iter()
        .map(String::as_str)
        .filter(|l| !known.contains(l))
        .collect();
    if missing.is_empty() {
        return;
    }
    if std::env::var_os("PTX_BLESS_NUMBERING").is_some() {
        let mut out = text.clone();
        if out.is_empty() {
            out.push_str(
                "# Stable numbers of the bytecode: append only (binary/tests/numbering.rs).\n",
            );
        }
        for l in &missing {
            out.push_str(l);
            out.push('\n');
        }
        std::fs::write(&path, out).expect("writes numbering.txt");
        return;
    }
    panic!(
        "{} entries have no recorded number; append them with PTX_BLESS_NUMBERING=1 cargo test \
         -p ptx-ir-binary --test numbering:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The numbers are the ones the encoder writes and the decoder reads back.
#[test]
fn numbers_round_trip() {
    for &op in Opcode::ALL {
        assert_eq!(Opcode::from_code(op.code()), Some(op));
    }
    for m in Modifier::all() {
        assert_eq!(Modifier::from_code(m.code()), Some(m));
    }
    let codes: BTreeSet<u16> = Opcode::ALL.iter().map(|op| op.code()).collect();
    assert_eq!(codes.len(), Opcode::COUNT, "two opcodes share a number");
}
