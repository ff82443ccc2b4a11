//! The round-trip oracle: well-formed IR survives text and bytecode unchanged.
//!
//! Input bytes drive one of three generators:
//!
//! - [`ptx_ir_core::generate::full::module`] (most inputs): every module-level construct —
//!   variables with initialisers (packed ones included), functions with parameters, return
//!   parameters and directives, nested blocks, labels, `.loc`/`.pragma`, branch and call target
//!   lists, call prototypes, sections, files, aliases — and instructions drawn from every form of
//!   every opcode of the instruction table, in the canonical form the reader produces;
//! - [`ptx_ir_core::generate::module`]: one kernel of generated instructions;
//! - the IR's derived `Arbitrary` impls, unconstrained: such a module need not print to readable
//!   text, so it is checked through the bytecode only (it must decode equal when it satisfies
//!   [`ptx_ir_binary::validate`], and be rejected otherwise).
//!
//! Names are renumbered into print order ([`ptx_ir_core::visit::renumber_names`]), then: print ->
//! parse equals the IR and printing the re-read IR gives the same text (the facade's
//! [`ptx_ir::roundtrip::check_module`], which `ptx roundtrip` and the corpus tests run too);
//! encode -> decode equals the IR (both codecs, deterministic bytes). Input that is PTX text (a
//! corpus file given as a seed) is parsed and its IR checked the same way.

use crate::regress;
use arbitrary::{Arbitrary, Unstructured};
use ptx_ir_binary::{
    decode_with, encode_unvalidated, encode_with, validate, Codec, DecodeError, DecodeLimits,
    EncodeError, Section,
};
use ptx_ir_core::generate::{self, full};
use ptx_ir_core::{visit, Module};
use ptx_ir_text::{parse, print};

/// Generated modules can nest deeper than the default decode depth limit allows.
const LIMITS: DecodeLimits = DecodeLimits {
    max_depth: 4096,
    ..DecodeLimits::DEFAULT
};

/// Runs the oracle on one input.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let data = u.peek_bytes(u.len()).unwrap_or_default();
    if crate::looks_like_text(data) {
        let text = std::str::from_utf8(data).unwrap_or_default();
        u.bytes(u.len())?;
        if let Ok(m) = parse(text) {
            if let Err(e) = check(&m) {
                fail(&m, &e);
            }
        }
        return Ok(());
    }
    match u.int_in_range(0..=9u8)? {
        0..=6 => {
            let m = full::module(u, &full::Config::default())?;
            if let Err(e) = check(&m) {
                fail(&m, &e);
            }
        }
        7 | 8 => {
            let m = generate::module(u)?;
            if let Err(e) = check(&m) {
                fail(&m, &e);
            }
        }
        _ => {
            let mut m = Module::arbitrary(u)?;
            let _ = visit::renumber_names(&mut m);
            if let Err(e) = check_bytecode(&m, validate(&m).is_ok()) {
                panic!("bytecode round trip of an arbitrary module: {e}\n{m:?}");
            }
        }
    }
    Ok(())
}

/// All identities on a well-formed module; `Err` says which broke: the text round trip of
/// [`ptx_ir::roundtrip::check_module`] (print -> parse equals the IR, printing is a fixpoint,
/// the check `ptx roundtrip` and the corpus tests run), then [`check_bytecode`].
pub fn check(m: &Module) -> Result<(), String> {
    ptx_ir::roundtrip::check_module(m).map_err(|e| e.to_string())?;
    check_bytecode(m, true)
}

/// encode -> decode equals the module (both codecs, deterministic), or is rejected (as invalid
/// IR, too deep, or a fault in a body's columns) when `valid` is false.
pub fn check_bytecode(m: &Module, valid: bool) -> Result<(), String> {
    for codec in [Codec::Stored, Codec::Zstd] {
        // The encoder refuses what the decoder would; the decoder is tested on the bytes of
        // the invalid module all the same.
        let encoded = encode_with(m, codec);
        let b = match (encoded, valid) {
            (Ok(b), true) => b,
            (Err(EncodeError::Invalid { .. }), false) => encode_unvalidated(m, codec)
                .map_err(|e| format!("encode_unvalidated ({codec:?}): {e}"))?,
            (Ok(_), false) => return Err(format!("an invalid module encoded ({codec:?})")),
            (Err(e), _) => return Err(format!("encode ({codec:?}): {e} (valid: {valid})")),
        };
        if valid && encode_with(m, codec).ok().as_ref() != Some(&b) {
            return Err(format!("encoding ({codec:?}) is not deterministic"));
        }
        match decode_with(&b, &LIMITS) {
            Ok(d) if valid && &d == m => {}
            Ok(d) if valid => {
                return Err(format!(
                    "IR differs after encode -> decode ({codec:?}): {}",
                    ptx_ir::roundtrip::first_difference(m, &d)
                ))
            }
            Ok(_) => return Err(format!("an invalid module decoded ({codec:?})")),
            // An invalid module may also nest deeper than the decoder allows (`validate`
            // bounds the nesting of valid ones below the default limit), and a body's
            // statements are checked as its columns are decoded.
            Err(DecodeError::InvalidIr { .. } | DecodeError::TooDeep { .. }) if !valid => {}
            Err(DecodeError::Invalid {
                section: Section::Body,
                path,
                ..
            }) if !valid && path.ends_with(".body") => {}
            Err(e) => return Err(format!("decode ({codec:?}): {e} (valid: {valid})")),
        }
    }
    Ok(())
}

/// Panics with the failing module as a ready-to-commit regression file.
fn fail(m: &Module, err: &str) -> ! {
    let file = regress::Case::roundtrip(err, &print(m)).render();
    panic!(
        "roundtrip oracle: {err}\n--- regression file (save as corpus/regress/NAME.ptx):\n{file}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        let done = crate::smoke(run, 0x5eed_0001, 400, 4096);
        assert!(done >= 200, "only {done} of 400 inputs completed");
    }

    #[test]
    fn corpus_seeds_round_trip() {
        for (name, text) in crate::seeds::TEXT {
            let m = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            check(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
