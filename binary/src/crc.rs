//! CRC-32 (IEEE 802.3, the zlib/PNG polynomial) of a file in parts, through `crc32fast`
//! (carry-less multiplication where the CPU has it; a table-driven fallback elsewhere).

/// The CRC-32 of the concatenation of `parts`.
pub fn crc32(parts: &[&[u8]]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for p in parts {
        h.update(p);
    }
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::crc32;

    /// The bitwise definition, to check the library against.
    fn bitwise(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn known_values() {
        // The check value of CRC-32/ISO-HDLC, and the empty string.
        assert_eq!(crc32(&[b"123456789"]), 0xCBF4_3926);
        assert_eq!(crc32(&[b""]), 0);
        assert_eq!(crc32(&[b"1234", b"", b"56789"]), 0xCBF4_3926);
        // Long inputs cross the vectorised path's block sizes; split points anywhere.
        let v: Vec<u8> = (0..20_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for len in [1, 15, 16, 63, 64, 65, 127, 128, 129, 1000, 20_000] {
            assert_eq!(crc32(&[&v[..len]]), bitwise(&v[..len]), "length {len}");
        }
        let (a, b) = v.split_at(3_333);
        assert_eq!(crc32(&[a, b]), bitwise(&v));
    }
}
