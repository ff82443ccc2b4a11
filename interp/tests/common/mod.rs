//! Helpers the MMA tests share: a seeded generator and the narrow float formats' values,
//! written from the ISA's definitions (PTX ISA 5.2.3), independent of the interpreter.

#![allow(dead_code)]

/// A xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A value in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// (exponent bits, mantissa bits, bias) of a narrow float type.
pub fn format(t: &str) -> (u32, u32, i32) {
    match t {
        "e2m1" => (2, 1, 1),
        "e2m3" => (2, 3, 1),
        "e3m2" => (3, 2, 3),
        "e4m3" | "ue4m3" => (4, 3, 7),
        "e5m2" => (5, 2, 15),
        _ => unreachable!("{t}"),
    }
}

/// The value of code `c` of type `t` (finite codes only).
pub fn value(t: &str, c: u64) -> f64 {
    let (e, m, bias) = format(t);
    let sign = if (c >> (e + m)) & 1 == 1 { -1.0 } else { 1.0 };
    let f = ((c >> m) & ((1 << e) - 1)) as i32;
    let man = (c & ((1 << m) - 1)) as f64 / (1u64 << m) as f64;
    sign * if f == 0 {
        man * 2f64.powi(1 - bias)
    } else {
        (1.0 + man) * 2f64.powi(f - bias)
    }
}
