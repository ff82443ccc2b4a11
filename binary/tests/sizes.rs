//! The encoder and the decoder draw the size line at the same place: a module encodes under a
//! set of limits exactly when its bytecode decodes under them. Checked at a small scale, with
//! the limits lowered around the sizes of a real module's sections; the defaults are the
//! format's own bound.

use ptx_ir_binary::{
    decode_with, encode_with, encode_with_limits, Codec, DecodeError, DecodeLimits, EncodeError,
    HEADER_LEN, MAX_SECTION,
};

/// A module whose body section is mostly a packed initialiser: `.b64` elements of one digit,
/// two bytes of text each and eight of bytecode, the most bytecode per byte of text the
/// reader produces.
fn packed(n: usize) -> (ptx_ir_core::Module, usize) {
    let init = vec!["7"; n].join(",");
    let text = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.global .b64 a[{n}] = {{{init}}};\n"
    );
    (ptx_ir_text::parse(&text).unwrap(), text.len())
}

/// The decoded sizes of the two sections of a stored file.
fn section_sizes(b: &[u8]) -> [usize; 2] {
    let mut pos = HEADER_LEN;
    let mut out = [0; 2];
    for s in &mut out {
        let raw = u32::from_le_bytes(b[pos..pos + 4].try_into().unwrap()) as usize;
        let stored = u32::from_le_bytes(b[pos + 4..pos + 8].try_into().unwrap()) & !(1 << 31);
        *s = raw;
        pos += 8 + stored as usize;
    }
    out
}

#[test]
fn the_encoder_refuses_exactly_what_the_decoder_would() {
    let (m, _) = packed(20_000);
    let stored = encode_with(&m, Codec::Stored).unwrap();
    let [_, body] = section_sizes(&stored);
    assert!(body > 8 * 20_000, "{body}");
    for codec in [Codec::Stored, Codec::Zstd] {
        for max_section in [body - 1, body, body + 1] {
            for max_input in [stored.len() - 1, stored.len(), usize::MAX] {
                let limits = DecodeLimits {
                    max_section,
                    max_input,
                    ..DecodeLimits::DEFAULT
                };
                let encoded = encode_with_limits(&m, codec, &limits);
                // What the decoder makes of the file the default limits let the encoder write.
                let file = encode_with(&m, codec).unwrap();
                let decoded = decode_with(&file, &limits);
                match (&encoded, &decoded) {
                    (Ok(b), Ok(d)) => {
                        assert_eq!(b, &file);
                        assert_eq!(d, &m);
                    }
                    (Err(EncodeError::TooLarge { .. }), Err(DecodeError::LimitExceeded { .. })) => {
                    }
                    _ => panic!(
                        "{codec:?}, section {max_section}, input {max_input} (file {}): \
                         encoder {encoded:?}, decoder {:?}",
                        file.len(),
                        decoded.as_ref().map(|_| ())
                    ),
                }
                // Past the section limit both refuse; at it, the section passes.
                if max_section < body {
                    assert!(encoded.is_err());
                }
            }
        }
    }
}

/// The defaults admit the largest section the format holds (the root crate's `tests/limits.rs`
/// relates them to the reader's default input cap); the bytecode of real PTX is 32-50% of its
/// text (FORMAT.md), the worst case the packed initialiser above, four times.
#[test]
fn the_defaults_are_the_format_s_bounds() {
    let d = DecodeLimits::DEFAULT;
    assert_eq!(d.max_section, MAX_SECTION);
    assert!(d.max_input >= HEADER_LEN + 2 * (8 + MAX_SECTION));
    // The ratio the assertion above relies on, measured on the worst case.
    let (m, text) = packed(10_000);
    let [_, body] = section_sizes(&encode_with(&m, Codec::Stored).unwrap());
    let ratio = body as f64 / text as f64;
    assert!((3.5..4.1).contains(&ratio), "{ratio}");
}
