//! Contraction material for the float and half families (when the swarm asks for it):
//! `mul`/`add` chains that ptxas fuses, and the `neg` folds.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};
use ptx_ir_core::{Rounding, Type};

impl Gen<'_> {
    /// Material for ptxas's contraction of `mul` with `add`/`sub` (which operations take part:
    /// [`crate::model::contract`]; which ones fuse: `ptx_ir_refsem::contract`) and for its
    /// `neg` folds, in one type: `.f32` or `.f64` (float family), `.f16`, `.bf16` or their
    /// pairs (half family).
    ///
    /// One to three products `mul t, a, b` (mostly without rounding modifier, sometimes with
    /// `.rn`, `.sat` or another `.ftz` than the `add`s, which keeps them rounded), each maybe
    /// followed by `mov`/`neg` links in place or into another register, sometimes written
    /// over its first factor or followed by a move over its second (the fused operation reads
    /// the factors as they were at the `mul`), and maybe preceded by the rounded product of
    /// the same factors (`mul.rn`, maybe negated) for the `add`s to
    /// cancel against: a fused `t - round(a * b)` is the product's rounding error where the
    /// one-by-one reading gives zero. Then one to three `add`/`sub`s of the products (one or
    /// both operands, several reads of one product), the cancelling values and other
    /// registers, mostly written over a product (a product still live at the end of its block
    /// stays rounded); then maybe moves over the products left. Any instruction may be
    /// guarded. Otherwise, a `neg` fold: `neg` of `neg`, a guarded `neg.f32`, `selp.f32` of
    /// `x` and `neg x`.
    pub fn contract_chain(&mut self, u: &mut Unstructured, fam: SimtFamily) -> Result<Vec<Inst>> {
        let (ft, hf) = if fam == SimtFamily::Float {
            (Some(self.ft(u)?), None)
        } else {
            (None, Some((*u.choose(&HALF_TYPES)?, u.arbitrary()?)))
        };
        let class = match (ft, hf) {
            (Some(f), _) => float_class(f),
            (_, Some((_, true))) => Class::R,
            _ => Class::H,
        };
        // `.ftz` and `.sat` exist for f32 and f16 only.
        let modifiers = ft == Some(Type::F32) || matches!(hf, Some((Type::F16, _)));
        let ftz_ok = modifiers && self.swarm.ftz;
        let sat_ok = modifiers && self.swarm.sat;
        let guards = self.swarm.guards;
        let mut out: Vec<Inst> = Vec::new();
        let inst =
            |u: &mut Unstructured, op: Operation, dst: Reg, srcs: Vec<Src>| -> Result<Inst> {
                // Guarded `add`s still fuse; a guarded `mul` or link does not.
                let odds = if add_of(&op).is_some() { 4 } else { 10 };
                let guard = if guards && u.ratio(1, odds)? {
                    Some((u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?))
                } else {
                    None
                };
                Ok(Inst {
                    guard,
                    op,
                    dst,
                    dst2: None,
                    srcs,
                    neg_pred: false,
                })
            };
        let bin = |op: Fop, rnd: Option<Rounding>, ftz: bool, sat: bool| match (ft, hf) {
            (Some(ft), _) => Operation::Fbin {
                op,
                ft,
                rnd,
                ftz,
                sat,
            },
            (_, Some((hf, x2))) => Operation::Hbin {
                op,
                hf,
                x2,
                rn: rnd.is_some(),
                ftz,
                sat,
            },
            _ => unreachable!("a float or half type"),
        };
        let neg = |ftz: bool| match (ft, hf) {
            (Some(ft), _) => Operation::Fneg { ft, ftz },
            (_, Some((hf, x2))) => Operation::Hsign {
                abs: false,
                hf,
                x2,
                ftz,
            },
            _ => unreachable!("a float or half type"),
        };
        // Half operands are registers only.
        let operand = |g: &Self, u: &mut Unstructured| -> Result<Src> {
            if ft.is_some() {
                g.src(u, class)
            } else {
                Ok(Src::Reg(g.reg(u, class)?))
            }
        };
        if u.ratio(1, 4)? {
            // A `neg` fold.
            let x = self.reg(u, class)?;
            let d = self.reg(u, class)?;
            let t = if u.ratio(1, 4)? {
                x
            } else {
                self.reg(u, class)?
            };
            let f32 = ft == Some(Type::F32);
            match u.int_in_range(0..=2u8)? {
                0 | 1 if f32 => {
                    if u.arbitrary()? {
                        let mut i = inst(u, neg(false), d, vec![Src::Reg(x)])?;
                        if i.guard.is_none() {
                            i.guard =
                                Some((u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?));
                        }
                        out.push(i);
                    } else {
                        out.push(inst(u, neg(false), t, vec![Src::Reg(x)])?);
                        let p = Src::Reg(self.reg(u, Class::P)?);
                        let srcs = if u.arbitrary()? {
                            vec![Src::Reg(t), Src::Reg(x), p]
                        } else {
                            vec![Src::Reg(x), Src::Reg(t), p]
                        };
                        out.push(inst(u, Operation::Selp(Class::F), d, srcs)?);
                    }
                }
                _ => {
                    let ftz = ftz_ok && u.ratio(1, 4)?;
                    out.push(inst(u, neg(ftz), t, vec![Src::Reg(x)])?);
                    if u.ratio(1, 4)? {
                        // The first `neg`'s source changes in between.
                        let y = operand(self, u)?;
                        out.push(inst(u, Operation::Mov(class), x, vec![y])?);
                    }
                    out.push(inst(u, neg(false), d, vec![Src::Reg(t)])?);
                }
            }
            return Ok(out);
        }
        let ftz = ftz_ok && u.arbitrary()?;
        // The products (their registers after the links), the cancelling values (with the
        // product they cancel and whether they are negated).
        let mut prods: Vec<Reg> = Vec::new();
        let mut cancels: Vec<(Reg, Reg, bool)> = Vec::new();
        // Registers left holding a product's value when a link copied it elsewhere.
        let mut left: Vec<Reg> = Vec::new();
        // A register of `class` outside `avoid` where there is one.
        let fresh = |u: &mut Unstructured, avoid: &[Reg]| -> Result<Reg> {
            let free: Vec<Reg> = (0..class.count())
                .map(|idx| Reg { class, idx })
                .filter(|r| !avoid.contains(r))
                .collect();
            Ok(if free.is_empty() {
                Reg {
                    class,
                    idx: u.int_in_range(0..=class.count() - 1)?,
                }
            } else {
                *u.choose(&free)?
            })
        };
        let live = |prods: &[Reg], cancels: &[(Reg, Reg, bool)]| -> Vec<Reg> {
            prods
                .iter()
                .copied()
                .chain(cancels.iter().map(|c| c.0))
                .collect()
        };
        for _ in 0..u.int_in_range(1..=(class.count() as usize / 2).min(3))? {
            let mut taken = live(&prods, &cancels);
            // Factors mostly other than the products so far (a product also multiplied stays
            // rounded).
            let factor = |g: &Self, u: &mut Unstructured, taken: &[Reg]| -> Result<Src> {
                if u.ratio(3, 4)? {
                    let r = fresh(u, taken)?;
                    if ft.is_some() && g.swarm.imms && u.ratio(1, 6)? {
                        return g.src(u, class);
                    }
                    Ok(Src::Reg(r))
                } else {
                    operand(g, u)
                }
            };
            let a = factor(self, u, &taken)?;
            let b = factor(self, u, &taken)?;
            taken.extend([a, b].iter().filter_map(|s| match s {
                Src::Reg(r) => Some(*r),
                _ => None,
            }));
            // Sometimes over its own first factor: the fused add reads the factor as it was.
            let t = match a {
                Src::Reg(r) if u.ratio(1, 8)? && !prods.contains(&r) => r,
                _ => fresh(u, &taken)?,
            };
            taken.push(t);
            let cancel = if u.ratio(1, 2)? {
                let c = fresh(u, &taken)?;
                out.push(inst(
                    u,
                    bin(Fop::Mul, Some(Rounding::Rn), ftz, false),
                    c,
                    vec![a, b],
                )?);
                let negated = u.ratio(1, 3)?;
                if negated {
                    out.push(inst(u, neg(false), c, vec![Src::Reg(c)])?);
                }
                Some((c, negated))
            } else {
                None
            };
            let rnd = if u.ratio(1, 10)? {
                Some(self.rnd(u)?)
            } else {
                None
            };
            let mftz = if ftz_ok && u.ratio(1, 8)? { !ftz } else { ftz };
            let msat = sat_ok && u.ratio(1, 10)?;
            out.push(inst(u, bin(Fop::Mul, rnd, mftz, msat), t, vec![a, b])?);
            let mut at = t;
            for _ in 0..u.int_in_range(0..=2u8)? {
                let to = if u.ratio(2, 3)? {
                    at
                } else {
                    taken.push(at);
                    left.push(at);
                    fresh(u, &taken)?
                };
                let op = if u.arbitrary()? {
                    Operation::Mov(class)
                } else {
                    neg(ftz_ok && u.ratio(1, 8)?)
                };
                out.push(inst(u, op, to, vec![Src::Reg(at)])?);
                at = to;
            }
            prods.push(at);
            if let Some((c, negated)) = cancel {
                cancels.push((c, at, negated));
            }
            // A factor written over between the mul and the adds.
            if let Src::Reg(r) = b {
                if u.ratio(1, 8)? && !prods.contains(&r) && !cancels.iter().any(|c| c.0 == r) {
                    let y = operand(self, u)?;
                    out.push(inst(u, Operation::Mov(class), r, vec![y])?);
                }
            }
        }
        let mut written: Vec<Reg> = Vec::new();
        for _ in 0..u.int_in_range(1..=3usize)? {
            let (x, y, op) = if !cancels.is_empty() && u.ratio(1, 2)? {
                // The product against its own rounding: fused, the rounding error.
                let &(c, t, negated) = u.choose(&cancels)?;
                let op = if negated { Fop::Add } else { Fop::Sub };
                (Src::Reg(t), Src::Reg(c), op)
            } else {
                let x = *u.choose(&prods)?;
                let others: Vec<Reg> = prods.iter().copied().filter(|&r| r != x).collect();
                let x = Src::Reg(x);
                let y = match u.int_in_range(0..=5u8)? {
                    // Both operands products (rarely the same one twice).
                    0 | 1 if !others.is_empty() => Src::Reg(*u.choose(&others)?),
                    0 => Src::Reg(*u.choose(&prods)?),
                    2 if !cancels.is_empty() => Src::Reg(u.choose(&cancels)?.0),
                    _ => operand(self, u)?,
                };
                let op = if u.arbitrary()? { Fop::Sub } else { Fop::Add };
                (x, y, op)
            };
            let srcs = if u.arbitrary()? {
                vec![x, y]
            } else {
                vec![y, x]
            };
            // Mostly over the product it reads, which ends the product's life.
            let d = match u.int_in_range(0..=5u8)? {
                0..=3 => match x {
                    Src::Reg(r) => r,
                    _ => self.reg(u, class)?,
                },
                4 => *u.choose(&prods)?,
                _ => self.reg(u, class)?,
            };
            written.push(d);
            let rnd = if u.ratio(1, 10)? {
                Some(self.rnd(u)?)
            } else {
                None
            };
            let aftz = if ftz_ok && u.ratio(1, 10)? { !ftz } else { ftz };
            let sat = sat_ok && u.ratio(1, 3)?;
            out.push(inst(u, bin(op, rnd, aftz, sat), d, srcs)?);
        }
        // Moves over the products left, so that their values end in the block.
        for &t in prods.iter().chain(&left) {
            if !written.contains(&t) && u.ratio(3, 4)? {
                let y = if ft.is_some() && self.swarm.imms && u.ratio(1, 3)? {
                    self.src(u, class)?
                } else {
                    Src::Reg(fresh(u, &[t])?)
                };
                out.push(inst(u, Operation::Mov(class), t, vec![y])?);
                written.push(t);
            }
        }
        Ok(out)
    }
}
