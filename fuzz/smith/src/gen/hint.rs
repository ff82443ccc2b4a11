//! The hint family: `ldu`, `ld.global.nc`, `createpolicy` with `.L2::cache_hint` loads,
//! `prefetch{u}`, `applypriority`, `discard`, `membar`/`fence`, `nanosleep`, `pmevent`,
//! `griddepcontrol`, `setmaxnreg`, `alloca` with `stacksave`/`stackrestore`, and the integer
//! `cvt.pack.sat`.

use super::state::Gen;
use super::state::Region;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    /// An operation of the hint family.
    pub(super) fn hint_op(&mut self, u: &mut Unstructured, r: Region) -> Result<Operation> {
        let k = u.int_in_range(0..=11u8)?;
        Ok(match k {
            0 | 1 => Operation::PackSat(*u.choose(&PACK_TYPES)?),
            2..=5 => {
                let class = *u.choose(&[Class::H, Class::R, Class::D, Class::F, Class::Fd])?;
                // `.v4` of 64-bit elements is a 256-bit access (sm_100).
                let vec = if class.bits() == 64 {
                    *u.choose(&[1u8, 2])?
                } else {
                    *u.choose(&[1u8, 2, 4])?
                };
                let slot = vec * u.int_in_range(0..=16 / vec - 1)?;
                let prio = |u: &mut Unstructured| -> Result<(u8, Option<bool>)> {
                    Ok((
                        u.int_in_range(0..=3u8)?,
                        if u.arbitrary()? {
                            Some(u.arbitrary()?)
                        } else {
                            None
                        },
                    ))
                };
                let how = match u.int_in_range(0..=4u8)? {
                    0 => LdHow::Ldu,
                    1 => LdHow::Nc(u.int_in_range(0..=3u8)?),
                    2 => {
                        let (primary, secondary) = prio(u)?;
                        LdHow::Policy(if u.arbitrary()? {
                            Policy::Fractional {
                                primary,
                                secondary,
                                fraction: if u.arbitrary()? {
                                    Some(*u.choose(&[0x3f80_0000u32, 0x3f00_0000, 0x3e80_0000])?)
                                } else {
                                    None
                                },
                            }
                        } else {
                            let total = *u.choose(&[256u32, 416, 4096])?;
                            Policy::Range {
                                primary,
                                secondary,
                                size: total / *u.choose(&[1u32, 2, 4])?,
                                total,
                            }
                        })
                    }
                    3 => LdHow::Prefetch(*u.choose(&[
                        Pf::GlobalL1,
                        Pf::GlobalL2,
                        Pf::EvictLast,
                        Pf::EvictNormal,
                        Pf::GenericL2,
                        Pf::Uniform,
                    ])?),
                    _ => LdHow::Applypriority,
                };
                Operation::LdIn {
                    how,
                    class,
                    slot,
                    vec,
                }
            }
            _ => {
                let mem = [SimtFamily::Mem, SimtFamily::Generic, SimtFamily::Barrier]
                    .iter()
                    .any(|f| self.swarm.families.contains(f));
                // All warps of a warpgroup run the same `setmaxnreg` sequence: only where the
                // whole CTA runs straight-line code, in kernels that can have 128 threads (the
                // memory families' layouts are for 64).
                if k == 10 {
                    // Outside loops only, a block may stay allocated.
                    let restore = r.loops > 0 || self.kept >= 4 || u.ratio(3, 4)?;
                    self.kept += !restore as u8;
                    return Ok(Operation::Alloca {
                        size: *u.choose(&[4u8, 8, 12, 16, 24, 32, 40, 64])?,
                        lane_size: u.ratio(1, 3)?,
                        align: if u.arbitrary()? {
                            Some(*u.choose(&[8u8, 16, 32, 64])?)
                        } else {
                            None
                        },
                        restore,
                        generic: u.arbitrary()?,
                    });
                }
                if k == 11 && !mem && r.cta && r.full && r.depth == 0 && r.loops == 0 {
                    const COUNTS: [u16; 5] = [224, 232, 240, 248, 256];
                    let (inc, n) = match self.nreg {
                        Some(cur) if u.arbitrary()? => {
                            let lower: Vec<u16> =
                                COUNTS.iter().copied().filter(|&n| n < cur).collect();
                            if lower.is_empty() {
                                (true, cur)
                            } else {
                                (false, *u.choose(&lower)?)
                            }
                        }
                        cur => {
                            let from = cur.unwrap_or(0);
                            let higher: Vec<u16> =
                                COUNTS.iter().copied().filter(|&n| n >= from).collect();
                            (true, *u.choose(&higher)?)
                        }
                    };
                    self.nreg = Some(n);
                    return Ok(Operation::Hint(HintOp::Setmaxnreg { inc, n }));
                }
                Operation::Hint(match u.int_in_range(0..=8u8)? {
                    0 => HintOp::Membar(u.int_in_range(0..=2)?),
                    1 => HintOp::Fence {
                        sem: u.int_in_range(0..=2)?,
                        scope: u.int_in_range(0..=3)?,
                    },
                    2 => HintOp::Proxy(u.int_in_range(0..=4)?),
                    3 => HintOp::Sleep(u.int_in_range(0..=1000)?),
                    4 => HintOp::SleepReg,
                    5 => {
                        if u.arbitrary()? {
                            HintOp::Pmevent(u.int_in_range(0..=15)?)
                        } else {
                            HintOp::PmeventMask(u.int_in_range(1..=0xffff)?)
                        }
                    }
                    6 => HintOp::Griddep(u.arbitrary()?),
                    7 => HintOp::Discard,
                    _ => HintOp::Proxy(u.int_in_range(0..=4)?),
                })
            }
        })
    }
}
