//! The generator: draws a [`Program`] under a [`Swarm`] configuration, one file per family.
//!
//! [`Gen::program`] draws the input pools and each register's initial value, the device
//! functions (call family), then the structured body ([`Node`]s: branches, `brx.idx`
//! switches, loops, CTA barriers) and its instructions, each from one of the swarm's families.
//! The families' operations are drawn in their own files; their operands, destinations and
//! guards by the shared helpers of `state.rs` from the operation's [`crate::model::signature`].

mod approx;
mod barrier;
mod bits;
mod call;
mod carry;
mod cmp;
mod contract;
mod cvt;
mod float;
mod generic;
mod half;
mod hint;
mod int;
mod logic;
mod mem;
mod pools;
mod state;
mod swarm;
mod warp;

pub use state::Gen;
pub use swarm::Swarm;

use crate::model::*;
use arbitrary::{Result, Unstructured};
use pools::{pool_value, D_VALUES, FD_VALUES, F_VALUES, H_VALUES, R_VALUES};
use state::{Region, CELL_OPS};

impl Gen<'_> {
    /// Draws a whole program.
    pub fn program(&mut self, u: &mut Unstructured) -> Result<Program> {
        let mut pools = [[0u64; 16]; 5];
        let tables: [(&[u64], u32); 5] = [
            (H_VALUES, 16),
            (R_VALUES, 32),
            (D_VALUES, 64),
            (F_VALUES, 32),
            (FD_VALUES, 64),
        ];
        for (p, (vals, bits)) in pools.iter_mut().zip(tables) {
            for v in p.iter_mut() {
                *v = pool_value(u, vals, bits)?;
            }
        }
        let mut init = Vec::new();
        for c in Class::ALL {
            for idx in 0..c.count() {
                let mul = 2 * u.int_in_range(0..=7u32)? + 1;
                let add = u.int_in_range(0..=15u32)?;
                init.push((Reg { class: c, idx }, mul, add));
            }
        }
        for c in self.cell_ops.iter_mut() {
            *c = *u.choose(CELL_OPS)?;
        }
        let region = Region {
            full: true,
            depth: 0,
            loops: 0,
            cta: true,
        };
        let funcs = if self.swarm.families.contains(&SimtFamily::Call) {
            let n = u.int_in_range(1..=2)?;
            let mut fs = Vec::with_capacity(n);
            for _ in 0..n {
                fs.push(self.func(u)?);
            }
            fs
        } else {
            Vec::new()
        };
        self.funcs = funcs
            .iter()
            .map(|f| (f.params.clone(), f.result.class))
            .collect();
        let body = self.nodes(u, region)?;
        let exit = if self.swarm.branches && u.ratio(1, 4)? {
            Some(match u.int_in_range(0..=2u8)? {
                0 => Cond::Pred(u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?),
                1 => Cond::LaneBelow(u.int_in_range(0..=32)?),
                _ => Cond::LaneBit(u.int_in_range(0..=4)?),
            })
        } else {
            None
        };
        let mut outputs = Vec::new();
        for c in [Class::D, Class::Fd, Class::R, Class::F, Class::H, Class::P] {
            for idx in 0..c.count() {
                outputs.push(Reg { class: c, idx });
            }
        }
        Ok(Program {
            body,
            init,
            pools,
            outputs,
            // `setmaxnreg` needs whole warpgroups.
            block: if self.nreg.is_some() {
                128
            } else {
                32 * u.int_in_range(1..=2u32)?
            },
            grid: u.int_in_range(1..=2u32)?,
            funcs,
            exit,
        })
    }

    /// A device function: a straight-line body of lane-independent families.
    fn func(&mut self, u: &mut Unstructured) -> Result<Func> {
        const PURE: &[SimtFamily] = &[
            SimtFamily::Int,
            SimtFamily::Bits,
            SimtFamily::Logic,
            SimtFamily::Cmp,
            SimtFamily::Float,
            SimtFamily::Cvt,
            SimtFamily::Half,
        ];
        let mut families: Vec<SimtFamily> = self
            .swarm
            .families
            .iter()
            .copied()
            .filter(|f| PURE.contains(f))
            .collect();
        if families.is_empty() {
            families.push(SimtFamily::Int);
        }
        let swarm = Swarm {
            families,
            branches: false,
            loops: false,
            max_insts: u.int_in_range(1..=8)?,
            ..self.swarm.clone()
        };
        let mut g = Gen::new(&swarm);
        let region = Region {
            full: false,
            depth: 1,
            loops: 0,
            cta: false,
        };
        let body = g.nodes(u, region)?;
        let n = u.int_in_range(1..=3usize)?;
        let mut params = Vec::with_capacity(n);
        for _ in 0..n {
            params.push(*u.choose(&[Class::R, Class::D, Class::F])?);
        }
        // Return what the last instruction computed where it can be returned.
        let last = body.iter().rev().find_map(|n| match n {
            Node::Inst(i) if matches!(i.dst.class, Class::R | Class::D | Class::F) => Some(i.dst),
            _ => None,
        });
        let ret = match last {
            Some(r) => r.class,
            None => *u.choose(&[Class::R, Class::D, Class::F])?,
        };
        let mut init = Vec::new();
        for c in Class::ALL {
            for idx in 0..c.count() {
                let taken = params.iter().enumerate().any(|(k, &pc)| {
                    pc == c && params[..k].iter().filter(|&&x| x == c).count() == idx as usize
                });
                if !taken {
                    let v = match c {
                        Class::P => u.int_in_range(0..=1)?,
                        Class::H => pool_value(u, H_VALUES, 16)?,
                        Class::R => pool_value(u, R_VALUES, 32)?,
                        Class::D => pool_value(u, D_VALUES, 64)?,
                        Class::F => pool_value(u, F_VALUES, 32)?,
                        Class::Fd => pool_value(u, FD_VALUES, 64)?,
                    };
                    init.push((Reg { class: c, idx }, v));
                }
            }
        }
        Ok(Func {
            params,
            init,
            body,
            result: match last {
                Some(r) => r,
                None => Reg {
                    class: ret,
                    idx: u.int_in_range(0..=ret.count() - 1)?,
                },
            },
        })
    }

    fn nodes(&mut self, u: &mut Unstructured, r: Region) -> Result<Vec<Node>> {
        let mut out = Vec::new();
        let n = u.int_in_range(1..=12usize)?;
        for _ in 0..n {
            if self.insts >= self.swarm.max_insts || u.is_empty() {
                break;
            }
            let k = u.int_in_range(0..=15u8)?;
            let mem = self.swarm.families.contains(&SimtFamily::Mem)
                || self.swarm.families.contains(&SimtFamily::Generic);
            let bars = self.swarm.families.contains(&SimtFamily::Barrier);
            if k == 2 && (mem || bars) && r.cta {
                // Only at the top level (outside branches) and in uniform loops there is the
                // CTA converged.
                self.segment += 1;
                out.push(Node::Barrier(if bars {
                    self.barrier(u)?
                } else {
                    Bar::Sync
                }));
            } else if k == 3 && self.swarm.branches && r.depth < 3 {
                let sel = if u.arbitrary()? {
                    Sel::Lane
                } else {
                    Sel::Reg(u.int_in_range(0..=Class::R.count() - 1)?)
                };
                let inner = Region {
                    full: false,
                    depth: r.depth + 1,
                    loops: r.loops,
                    cta: false,
                };
                let n = u.int_in_range(2..=4usize)?;
                let mut arms = Vec::with_capacity(n);
                for _ in 0..n {
                    arms.push(if u.arbitrary()? {
                        self.nodes(u, inner)?
                    } else {
                        Vec::new()
                    });
                }
                out.push(Node::Switch { sel, arms });
            } else if k == 0 && self.swarm.branches && r.depth < 3 {
                let cond = match u.int_in_range(0..=2u8)? {
                    0 => Cond::Pred(u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?),
                    1 => Cond::LaneBelow(u.int_in_range(0..=32)?),
                    _ => Cond::LaneBit(u.int_in_range(0..=4)?),
                };
                let inner = Region {
                    full: false,
                    depth: r.depth + 1,
                    loops: r.loops,
                    cta: false,
                };
                let then = self.nodes(u, inner)?;
                let els = if u.arbitrary()? {
                    self.nodes(u, inner)?
                } else {
                    Vec::new()
                };
                out.push(Node::If { cond, then, els });
            } else if k == 1 && self.swarm.loops && r.depth < 3 && r.loops < 2 {
                let trips = match u.int_in_range(0..=2u8)? {
                    0 => Trips::Const(u.int_in_range(0..=3)?),
                    1 => Trips::Reg(
                        u.int_in_range(0..=Class::R.count() - 1)?,
                        u.int_in_range(0..=2)?,
                    ),
                    _ => Trips::Lane(u.int_in_range(0..=2)?),
                };
                let uniform = matches!(trips, Trips::Const(_));
                let inner = Region {
                    full: r.full && uniform,
                    depth: r.depth + 1,
                    loops: r.loops + 1,
                    // Only the barrier family puts barriers in loops.
                    cta: r.cta && uniform && self.swarm.families.contains(&SimtFamily::Barrier),
                };
                let segment = self.segment;
                let mut body = self.nodes(u, inner)?;
                if (self.segment - segment) % 2 == 1 {
                    // Each iteration must end on the buffer parity it started with: the body's
                    // memory operations were drawn for fixed parities.
                    self.segment += 1;
                    body.push(Node::Barrier(Bar::Sync));
                }
                out.push(Node::Loop { trips, body });
            } else {
                let fam = *u.choose(&self.swarm.families)?;
                if fam == SimtFamily::Barrier {
                    if r.cta && u.ratio(1, 4)? {
                        // A producer/consumer hand-off: consumers read what every thread wrote
                        // before it (two segments: the consumers' region, then the rest).
                        self.segment += 1;
                        out.push(Node::Barrier(Bar::Arrive {
                            id: u.int_in_range(1..=15)?,
                        }));
                        let inner = Region {
                            full: r.full,
                            depth: r.depth + 1,
                            loops: r.loops,
                            cta: false,
                        };
                        let then = self.nodes(u, inner)?;
                        out.push(Node::If {
                            cond: Cond::Consumer,
                            then,
                            els: Vec::new(),
                        });
                        self.segment += 1;
                        out.push(Node::Barrier(Bar::Sync));
                    } else if r.cta {
                        self.segment += 1;
                        out.push(Node::Barrier(self.barrier(u)?));
                    }
                } else if fam == SimtFamily::Carry {
                    for i in self.carry_chain(u)? {
                        self.insts += 1;
                        out.push(Node::Inst(i));
                    }
                } else if matches!(fam, SimtFamily::Float | SimtFamily::Half)
                    && self.swarm.contract
                    && u.ratio(1, 2)?
                {
                    for i in self.contract_chain(u, fam)? {
                        self.insts += 1;
                        out.push(Node::Inst(i));
                    }
                } else if let Some(i) = self.inst(u, fam, r)? {
                    self.insts += 1;
                    out.push(Node::Inst(i));
                }
            }
        }
        Ok(out)
    }

    /// One instruction of family `fam`, or `None` when the family has nothing valid here.
    fn inst(&mut self, u: &mut Unstructured, fam: SimtFamily, r: Region) -> Result<Option<Inst>> {
        let op = match fam {
            SimtFamily::Int => self.int_op(u)?,
            SimtFamily::Bits => self.bits_op(u)?,
            SimtFamily::Logic => self.logic_op(u)?,
            SimtFamily::Cmp => self.cmp_op(u)?,
            SimtFamily::Float => self.float_op(u)?,
            SimtFamily::Approx => self.approx_op(u)?,
            SimtFamily::Cvt => self.cvt_op(u)?,
            SimtFamily::Half => self.half_op(u)?,
            SimtFamily::Mem => self.mem_op(u, false)?,
            SimtFamily::Generic => self.generic_op(u)?,
            SimtFamily::Call => match self.call_op(u)? {
                Some(op) => op,
                None => return Ok(None),
            },
            // Carry-flag instructions come in chains ([`Gen::carry_chain`]), barriers are
            // nodes of their own.
            SimtFamily::Carry | SimtFamily::Barrier => return Ok(None),
            SimtFamily::Warp => self.warp_op(u, r)?,
            SimtFamily::Hint => self.hint_op(u, r)?,
        };
        self.operands(u, op, fam).map(Some)
    }
}
