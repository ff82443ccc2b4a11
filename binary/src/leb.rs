//! Unsigned LEB128 integers, as the bytecode's byte columns write them (seven bits a byte, low
//! bits first, the top bit set on every byte but the last).

/// Appends `v`.
pub fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zig-zag encoded (small magnitudes of either sign take one byte).
pub fn put_signed(out: &mut Vec<u8>, v: i64) {
    put(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// The signed value of a zig-zag encoded `v`.
#[inline]
pub fn signed(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// Reads the value at `*pos` and moves past it; `None` if `b` ends inside it or it does not
/// fit 64 bits.
#[inline]
pub fn get(b: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let x = *b.get(*pos)?;
        *pos += 1;
        let bits = (x & 0x7f) as u64;
        if shift == 63 && bits > 1 {
            return None;
        }
        v |= bits << shift;
        if x & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects() {
        for v in [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX] {
            let mut b = Vec::new();
            put(&mut b, v);
            let mut pos = 0;
            assert_eq!(get(&b, &mut pos), Some(v));
            assert_eq!(pos, b.len());
            assert_eq!(get(&b[..b.len() - 1], &mut 0), None);
        }
        assert_eq!(get(&[0xff; 10], &mut 0), None);
        for v in [0i64, 1, -1, 63, -64, 64, i64::MIN, i64::MAX] {
            let mut b = Vec::new();
            put_signed(&mut b, v);
            assert_eq!(get(&b, &mut 0).map(signed), Some(v));
        }
        assert_eq!(
            get(
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
                &mut 0
            ),
            None
        );
    }
}
