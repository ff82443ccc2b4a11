//! The half-precision family: `f16`, `bf16` and their pairs (arithmetic, `fma`, comparisons,
//! `min`/`max`, sign operations) and the conversions to and from them.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode, Rounding, Type};

/// The opcode and qualifiers of a half-precision instruction
/// ([`super::flow::inst`] dispatches here by operation; the operands are the generic ones).
pub(super) fn lower(op: Operation) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Operation::Hbin {
            op,
            hf,
            x2,
            rn,
            ftz,
            sat,
        } => {
            let mut m = vec![];
            if rn {
                m.push(Modifier::Rounding(Rounding::Rn));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(half_type(hf, x2)));
            (
                match op {
                    Fop::Add => Add,
                    Fop::Sub => Sub,
                    _ => Mul,
                },
                m,
            )
        }
        Operation::Hfma {
            hf,
            x2,
            ftz,
            sat,
            relu,
        } => {
            let mut m = vec![Modifier::Rounding(Rounding::Rn)];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            if relu {
                m.push(f(Flag::Relu));
            }
            m.push(t(half_type(hf, x2)));
            (Fma, m)
        }
        Operation::Hsetp {
            cmp,
            hf,
            x2,
            ftz,
            bop,
        } => {
            let mut m = vec![cmp_mod(cmp, false)];
            if let Some(o) = bop {
                m.push(Modifier::Op(o));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(half_type(hf, x2)));
            (Setp, m)
        }
        Operation::Hset {
            cmp,
            hf,
            x2,
            d,
            ftz,
            bop,
        } => {
            let mut m = vec![cmp_mod(cmp, false)];
            if let Some(o) = bop {
                m.push(Modifier::Op(o));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(match d {
                HSetD::Half => half_type(hf, x2),
                HSetD::U16 => Type::U16,
                HSetD::S16 => Type::S16,
                HSetD::U32 => Type::U32,
                HSetD::S32 => Type::S32,
            }));
            m.push(t(half_type(hf, x2)));
            (Set, m)
        }
        Operation::CvtHalfX {
            hf,
            peer,
            to_half,
            rnd,
            sat,
        } => {
            let mut m = vec![];
            m.extend(rnd.map(Modifier::Rounding));
            if sat {
                m.push(f(Flag::Sat));
            }
            let h = half_type(hf, false);
            let other = match peer {
                HPeer::Int(bits, signed) => int_type(bits, signed),
                HPeer::F64 => Type::F64,
                HPeer::Half => {
                    if hf == Type::F16 {
                        Type::Bf16
                    } else {
                        Type::F16
                    }
                }
            };
            if to_half {
                m.extend([t(h), t(other)]);
            } else {
                m.extend([t(other), t(h)]);
            }
            (Cvt, m)
        }
        Operation::Hsign { abs, hf, x2, ftz } => {
            let mut m = vec![];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(half_type(hf, x2)));
            (if abs { Abs } else { Neg }, m)
        }
        Operation::Hminmax {
            hf,
            x2,
            max,
            ftz,
            nan,
            xorsign,
        } => {
            let mut m = minmax_mods(ftz, nan, xorsign);
            m.push(t(half_type(hf, x2)));
            (if max { Max } else { Min }, m)
        }
        Operation::CvtToHalf {
            hf,
            rnd,
            ftz,
            sat,
            relu,
            satfinite,
        } => {
            let mut m = vec![Modifier::Rounding(rnd)];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            if relu {
                m.push(f(Flag::Relu));
            }
            if satfinite {
                m.push(f(Flag::SatFinite));
            }
            m.push(t(half_type(hf, false)));
            m.push(t(Type::F32));
            (Cvt, m)
        }
        Operation::CvtFromHalf { hf, ftz } => {
            let mut m = vec![];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(Type::F32));
            m.push(t(half_type(hf, false)));
            (Cvt, m)
        }
        Operation::CvtPack {
            hf,
            rz,
            relu,
            satfinite,
        } => {
            let mut m = vec![Modifier::Rounding(if rz {
                Rounding::Rz
            } else {
                Rounding::Rn
            })];
            if relu {
                m.push(f(Flag::Relu));
            }
            if satfinite {
                m.push(f(Flag::SatFinite));
            }
            m.push(t(half_type(hf, true)));
            m.push(t(Type::F32));
            (Cvt, m)
        }
        _ => unreachable!("not a half-precision operation: {:?}", op),
    }
}
