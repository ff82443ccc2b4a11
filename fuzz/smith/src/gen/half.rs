//! The half-precision family: `f16`, `bf16` and their pairs (arithmetic, `fma`, comparisons,
//! `min`/`max`, sign operations) and the conversions to and from them.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};
use ptx_ir_core::{Rounding, Type};

impl Gen<'_> {
    pub(super) fn half_op(&self, u: &mut Unstructured) -> Result<Operation> {
        let hf = if u.arbitrary()? {
            Type::F16
        } else {
            Type::Bf16
        };
        let f16 = hf == Type::F16;
        let x2 = u.arbitrary()?;
        // `.ftz` and `.sat` exist for f16 only.
        let ftz = f16 && self.swarm.ftz && u.arbitrary()?;
        let sat = f16 && self.swarm.sat && u.ratio(1, 3)?;
        Ok(match u.int_in_range(0..=13u8)? {
            11 | 12 => {
                let peer = match u.int_in_range(0..=5u8)? {
                    0..=3 => {
                        // ptxas takes 8-bit integers with f16 only.
                        let bits: &[u8] = if f16 { &[8, 16, 32, 64] } else { &[16, 32, 64] };
                        HPeer::Int(*u.choose(bits)?, u.arbitrary()?)
                    }
                    4 => HPeer::F64,
                    _ => HPeer::Half,
                };
                let to_half = peer == HPeer::Half || u.arbitrary()?;
                let rnd = match (peer, to_half) {
                    (HPeer::Int(..), false) => Some(self.irnd(u)?),
                    (HPeer::F64, false) => None,
                    _ => Some(self.rnd(u)?),
                };
                Operation::CvtHalfX {
                    hf,
                    peer,
                    to_half,
                    rnd,
                    // The ISA's `.sat` clamps float results of f16, f32 and f64 only (not bf16),
                    // and ptxas also rejects it from a bf16 source (`cvt.sat.f64.bf16`,
                    // `cvt.rn.sat.f16.bf16`: "Illegal modifier '.sat'", GPU batch).
                    sat: f16
                        && (if to_half {
                            peer != HPeer::Half
                        } else {
                            peer == HPeer::F64
                        })
                        && self.swarm.sat
                        && u.ratio(1, 3)?,
                }
            }
            13 => {
                use ptx_ir_core::Cmp;
                let d = if x2 {
                    *u.choose(&[HSetD::Half, HSetD::U32, HSetD::S32])?
                } else if !f16 {
                    // The ISA has no scalar `set.CMP.bf16.bf16`.
                    *u.choose(&[HSetD::U16, HSetD::S16, HSetD::U32, HSetD::S32])?
                } else {
                    *u.choose(&[HSetD::Half, HSetD::U16, HSetD::S16, HSetD::U32, HSetD::S32])?
                };
                Operation::Hset {
                    cmp: *u.choose(&[
                        Cmp::Eq,
                        Cmp::Ne,
                        Cmp::Lt,
                        Cmp::Le,
                        Cmp::Gt,
                        Cmp::Ge,
                        Cmp::Equ,
                        Cmp::Neu,
                        Cmp::Ltu,
                        Cmp::Leu,
                        Cmp::Gtu,
                        Cmp::Geu,
                        Cmp::Num,
                        Cmp::Nan,
                    ])?,
                    hf,
                    x2,
                    d,
                    ftz,
                    bop: if u.ratio(1, 3)? {
                        Some(*u.choose(&BOOL_OPS)?)
                    } else {
                        None
                    },
                }
            }
            10 => {
                use ptx_ir_core::Cmp;
                Operation::Hsetp {
                    cmp: *u.choose(&[
                        Cmp::Eq,
                        Cmp::Ne,
                        Cmp::Lt,
                        Cmp::Le,
                        Cmp::Gt,
                        Cmp::Ge,
                        Cmp::Equ,
                        Cmp::Neu,
                        Cmp::Ltu,
                        Cmp::Leu,
                        Cmp::Gtu,
                        Cmp::Geu,
                        Cmp::Num,
                        Cmp::Nan,
                    ])?,
                    hf,
                    x2,
                    ftz,
                    bop: if u.ratio(1, 3)? {
                        Some(*u.choose(&BOOL_OPS)?)
                    } else {
                        None
                    },
                }
            }
            0..=2 => Operation::Hbin {
                op: *u.choose(&[Fop::Add, Fop::Sub, Fop::Mul])?,
                hf,
                x2,
                rn: u.arbitrary()?,
                ftz,
                sat,
            },
            3 | 4 => {
                let relu = !sat && u.ratio(1, 3)?;
                Operation::Hfma {
                    hf,
                    x2,
                    ftz,
                    sat,
                    relu,
                }
            }
            5 => Operation::Hsign {
                abs: u.arbitrary()?,
                hf,
                x2,
                ftz,
            },
            6 => Operation::Hminmax {
                hf,
                x2,
                max: u.arbitrary()?,
                ftz,
                nan: u.arbitrary()?,
                xorsign: u.ratio(1, 4)?,
            },
            7 => {
                if u.arbitrary()? {
                    Operation::CvtToHalf {
                        hf,
                        rnd: self.rnd(u)?,
                        ftz: self.swarm.ftz && u.arbitrary()?,
                        sat,
                        relu: false,
                        satfinite: false,
                    }
                } else {
                    Operation::CvtToHalf {
                        hf,
                        rnd: *u.choose(&[Rounding::Rn, Rounding::Rz])?,
                        ftz: false,
                        sat: false,
                        relu: u.arbitrary()?,
                        satfinite: u.arbitrary()?,
                    }
                }
            }
            8 => Operation::CvtFromHalf {
                hf,
                ftz: self.swarm.ftz && u.arbitrary()?,
            },
            _ => Operation::CvtPack {
                hf,
                rz: u.arbitrary()?,
                relu: u.arbitrary()?,
                satfinite: u.arbitrary()?,
            },
        })
    }
}
