//! The generator's state ([`Gen`]): the swarm, the instruction budget, the memory protocol's
//! segment, the device functions drawn so far, and the helpers every family draws operands
//! with (registers, sources, types, roundings, and the operands of an operation).

use super::pools::{pool_value, D_VALUES, FD_VALUES, F_VALUES, H_VALUES, R_VALUES};
use super::swarm::Swarm;
use crate::model::*;
use arbitrary::{Result, Unstructured};
use ptx_ir_core::{Op, Rounding, Type};

/// Generation state: the swarm and the structure of the region being filled.
pub struct Gen<'s> {
    /// The configuration.
    pub swarm: &'s Swarm,
    pub(super) insts: usize,
    /// Barriers emitted so far: the segment being filled (its parity picks the shared buffer
    /// it writes; peers' slots are read from the other one, written before the barrier).
    pub(super) segment: u32,
    /// The one commutative operation and type of each shared cell and of each global cell
    /// (mixing operations on a cell would make its value depend on the order).
    pub(super) cell_ops: [(Op, AtomT); 8],
    /// Parameter and return classes of the program's device functions.
    pub(super) funcs: Vec<(Vec<Class>, Class)>,
    /// The register count the last `setmaxnreg` set.
    pub(super) nreg: Option<u16>,
    /// `alloca` blocks never released (each lives until the kernel ends: a few keep the stack
    /// within the GPU's default per-thread size).
    pub(super) kept: u8,
}

/// Commutative (and associative) atomic operations, allowed on addresses shared by threads.
pub(super) const CELL_OPS: &[(Op, AtomT)] = &[
    (
        Op::Add,
        AtomT::Int(It {
            bits: 32,
            signed: false,
        }),
    ),
    (
        Op::Add,
        AtomT::Int(It {
            bits: 32,
            signed: true,
        }),
    ),
    (
        Op::Add,
        AtomT::Int(It {
            bits: 64,
            signed: false,
        }),
    ),
    (
        Op::Min,
        AtomT::Int(It {
            bits: 32,
            signed: true,
        }),
    ),
    (
        Op::Min,
        AtomT::Int(It {
            bits: 64,
            signed: false,
        }),
    ),
    (
        Op::Max,
        AtomT::Int(It {
            bits: 32,
            signed: false,
        }),
    ),
    (
        Op::Max,
        AtomT::Int(It {
            bits: 64,
            signed: true,
        }),
    ),
    (Op::And, AtomT::Bits(32)),
    (Op::Or, AtomT::Bits(64)),
    (Op::Xor, AtomT::Bits(32)),
    (Op::Xor, AtomT::Bits(64)),
];

/// What the generator knows about the region it is filling.
#[derive(Copy, Clone, Debug)]
pub(super) struct Region {
    /// Whether every lane of the warp executes the region.
    pub(super) full: bool,
    /// Nesting depth of ifs and loops.
    pub(super) depth: u32,
    /// Loop nesting depth.
    pub(super) loops: u32,
    /// Whether the whole CTA runs the region (converged): barriers may appear.
    pub(super) cta: bool,
}

impl<'s> Gen<'s> {
    /// A generator for `swarm`.
    pub fn new(swarm: &'s Swarm) -> Gen<'s> {
        Gen {
            swarm,
            insts: 0,
            segment: 0,
            cell_ops: [CELL_OPS[0]; 8],
            funcs: Vec::new(),
            nreg: None,
            kept: 0,
        }
    }

    pub(super) fn reg(&self, u: &mut Unstructured, class: Class) -> Result<Reg> {
        Ok(Reg {
            class,
            idx: u.int_in_range(0..=class.count() - 1)?,
        })
    }

    /// A source of `class`: a register, or sometimes an immediate or `%laneid`.
    pub(super) fn src(&self, u: &mut Unstructured, class: Class) -> Result<Src> {
        if self.swarm.imms && class != Class::P && u.ratio(1, 5)? {
            let v = match class {
                Class::H => pool_value(u, H_VALUES, 16)?,
                Class::R => pool_value(u, R_VALUES, 32)?,
                Class::D => pool_value(u, D_VALUES, 64)?,
                Class::F => pool_value(u, F_VALUES, 32)?,
                _ => pool_value(u, FD_VALUES, 64)?,
            };
            // NaN immediates are left to registers: ptxas folds constant operands with NaN
            // rules of its own, so the GPU could not confirm the reference on them.
            let nan = match class {
                Class::F => nan32(v),
                Class::Fd => nan64(v),
                _ => false,
            };
            if !nan {
                return Ok(Src::Imm(v));
            }
        }
        if class == Class::R && u.ratio(1, 12)? {
            return Ok(Src::Lane);
        }
        Ok(Src::Reg(self.reg(u, class)?))
    }

    pub(super) fn it(&self, u: &mut Unstructured, bits: &[u8]) -> Result<It> {
        Ok(It {
            bits: *u.choose(bits)?,
            signed: u.arbitrary()?,
        })
    }

    pub(super) fn rnd(&self, u: &mut Unstructured) -> Result<Rounding> {
        Ok(*u.choose(&self.swarm.rnds)?)
    }

    /// A rounding as [`Gen::rnd`] draws it, in its integer form (`.rni` for `.rn`, ...).
    pub(super) fn irnd(&self, u: &mut Unstructured) -> Result<Rounding> {
        Ok(match self.rnd(u)? {
            Rounding::Rn => Rounding::Rni,
            Rounding::Rz => Rounding::Rzi,
            Rounding::Rm => Rounding::Rmi,
            Rounding::Rp => Rounding::Rpi,
            r => r,
        })
    }

    pub(super) fn ftz(&self, u: &mut Unstructured, ft: Type) -> Result<bool> {
        Ok(ft == Type::F32 && self.swarm.ftz && u.arbitrary()?)
    }

    pub(super) fn sat(&self, u: &mut Unstructured, ft: Type) -> Result<bool> {
        Ok(ft == Type::F32 && self.swarm.sat && u.ratio(1, 3)?)
    }

    pub(super) fn ft(&self, u: &mut Unstructured) -> Result<Type> {
        Ok(if u.arbitrary()? { Type::F32 } else { Type::F64 })
    }

    /// Operands, destination(s) and guard of an instruction doing `op`.
    pub(super) fn operands(
        &mut self,
        u: &mut Unstructured,
        op: Operation,
        fam: SimtFamily,
    ) -> Result<Inst> {
        let sig = signature(&op);
        let mut srcs = Vec::with_capacity(sig.srcs.len());
        for (k, &c) in sig.srcs.iter().enumerate() {
            let imm_ok = !sig.no_imm.contains(&k);
            let mut s = if imm_ok {
                self.src(u, c)?
            } else {
                Src::Reg(self.reg(u, c)?)
            };
            // ptxas takes immediate bit positions and lengths in 0..=255 only.
            let position = match op {
                Operation::Bfe(_) => k >= 1,
                Operation::Bfi(_) => k >= 2,
                _ => false,
            };
            if let (true, Src::Imm(v)) = (position, &mut s) {
                *v &= 0xff;
            }
            srcs.push(s);
        }
        if op == Operation::Fns {
            // `base` above 31 is undefined: an immediate in range or `%laneid`.
            srcs[1] = if u.ratio(1, 4)? {
                Src::Lane
            } else {
                Src::Imm(u.int_in_range(0..=31)?)
            };
        }
        let dst = self.reg(u, sig.dst)?;
        let mut dst2 = match sig.dst2 {
            Some(c) if u.arbitrary()? => {
                let mut d2 = self.reg(u, c)?;
                if d2 == dst {
                    d2.idx = (d2.idx + 1) % c.count();
                }
                Some(d2)
            }
            _ => None,
        };
        // The packed half comparison always writes `p|q` (the scalar one only `p`).
        if let Operation::Hsetp { x2: true, .. } = op {
            if dst2.is_none() {
                dst2 = Some(Reg {
                    class: Class::P,
                    idx: (dst.idx + 1) % Class::P.count(),
                });
            }
        }
        let warp =
            fam == SimtFamily::Warp || matches!(op, Operation::Hint(HintOp::Setmaxnreg { .. }));
        let guard = if !warp && self.swarm.guards && u.ratio(1, 4)? {
            Some((u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?))
        } else {
            None
        };
        let neg_pred = sig.pred_src && u.arbitrary()?;
        Ok(Inst {
            guard,
            op,
            dst,
            dst2,
            srcs,
            neg_pred,
        })
    }
}
