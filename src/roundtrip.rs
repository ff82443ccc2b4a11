//! The round-trip check shared by `ptx roundtrip` and the corpus tests: the IR of a file must
//! survive printing and re-reading unchanged, and printing must be a fixpoint.

use crate::ir::{Item, Module};
use crate::text;

/// Checks one source text; `Err` says what broke.
pub fn check_text(src: &str, file: &str) -> Result<Module, String> {
    let m1 = text::parse_file(src, file).map_err(|e| e.to_string())?;
    check_module(&m1)?;
    Ok(m1)
}

/// Checks that `m` prints, re-reads to the same IR, and prints identically again.
pub fn check_module(m1: &Module) -> Result<(), String> {
    let t1 = text::print(m1);
    let m2 = text::parse_file(&t1, "<printed>")
        .map_err(|e| format!("printed text does not parse: {e}"))?;
    if &m2 != m1 {
        return Err(first_difference(m1, &m2));
    }
    let t2 = text::print(&m2);
    if t1 != t2 {
        let line = t1
            .lines()
            .zip(t2.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(format!(
            "printing is not a fixpoint (first difference at printed line {})",
            line + 1
        ));
    }
    Ok(())
}

/// Describes where two modules differ.
pub fn first_difference(a: &Module, b: &Module) -> String {
    if a.version != b.version || a.target != b.target || a.address_size != b.address_size {
        return "module header differs after re-reading".into();
    }
    if a.items.len() != b.items.len() {
        return format!(
            "{} items before, {} after re-reading",
            a.items.len(),
            b.items.len()
        );
    }
    for (k, (x, y)) in a.items.iter().zip(&b.items).enumerate() {
        if x == y {
            continue;
        }
        if let (Item::Function(f), Item::Function(g)) = (x, y) {
            if let (Some(bf), Some(bg)) = (f.statements(), g.statements()) {
                for (j, (s, t)) in bf.iter().zip(bg).enumerate() {
                    if s != t {
                        return format!(
                            "item {k} (function `{}`), statement {j} differs: {s:?} vs {t:?}",
                            a.names.get(f.name)
                        );
                    }
                }
            }
        }
        return format!("item {k} differs after re-reading: {x:?} vs {y:?}");
    }
    if a.names != b.names {
        return "name tables differ (names interned in a different order)".into();
    }
    "modules differ".into()
}
