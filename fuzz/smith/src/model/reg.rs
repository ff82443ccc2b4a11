//! Registers of the generated kernels: the classes of the fixed register file, registers,
//! source operands, and the bit-level helpers every side of the fuzzer reads values with.

/// Register classes of the generated kernels.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `.pred` `%p<N>`
    P,
    /// `.b16` `%h<N>`
    H,
    /// `.b32` `%r<N>`
    R,
    /// `.b64` `%rd<N>`
    D,
    /// `.f32` `%f<N>`
    F,
    /// `.f64` `%fd<N>`
    Fd,
}

impl Class {
    /// Every class.
    pub const ALL: [Class; 6] = [Class::P, Class::H, Class::R, Class::D, Class::F, Class::Fd];

    /// Width in bits of a register's value.
    pub fn bits(self) -> u32 {
        match self {
            Class::P => 1,
            Class::H => 16,
            Class::R | Class::F => 32,
            Class::D | Class::Fd => 64,
        }
    }

    /// Number of registers of the class.
    pub fn count(self) -> u8 {
        match self {
            Class::P => 4,
            Class::H => 4,
            Class::R => 8,
            Class::D => 6,
            Class::F => 6,
            Class::Fd => 6,
        }
    }

    /// Register name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Class::P => "%p",
            Class::H => "%h",
            Class::R => "%r",
            Class::D => "%rd",
            Class::F => "%f",
            Class::Fd => "%fd",
        }
    }

    /// The class of an integer of `bits` bits.
    pub fn int(bits: u8) -> Class {
        match bits {
            8 | 16 => Class::H,
            32 => Class::R,
            _ => Class::D,
        }
    }
}

/// A register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// Its class.
    pub class: Class,
    /// Its number.
    pub idx: u8,
}

/// A source operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Src {
    /// A register.
    Reg(Reg),
    /// An immediate: the value's bits at the operand's width (floats as `0f`/`0d` bits).
    Imm(u64),
    /// `%laneid`
    Lane,
}

/// The index of a register class in per-class tables (the order of [`Class::ALL`]).
pub fn ci(c: Class) -> usize {
    match c {
        Class::P => 0,
        Class::H => 1,
        Class::R => 2,
        Class::D => 3,
        Class::F => 4,
        Class::Fd => 5,
    }
}

/// The mask of the low `bits` bits.
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Whether the `.f32` bits `b` are a NaN.
pub fn nan32(b: u64) -> bool {
    (b as u32) & 0x7fff_ffff > 0x7f80_0000
}

/// Whether the `.f64` bits `b` are a NaN.
pub fn nan64(b: u64) -> bool {
    b & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000
}
