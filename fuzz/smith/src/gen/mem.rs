//! The memory family: loads and stores of the shared-slot protocol (own slots, peers' slots
//! from the other buffer, vector widths) and atomics on shared and global cells.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};
use ptx_ir_core::{Op, Type};

impl Gen<'_> {
    /// A memory operation of the shared-slot protocol; `generic`: through a generic address.
    pub(super) fn mem_op(&self, u: &mut Unstructured, generic: bool) -> Result<Operation> {
        let cur = (self.segment % 2) as u8;
        let addr = if generic {
            AddrKind::Generic
        } else {
            *u.choose(&[
                AddrKind::Space,
                AddrKind::Space,
                AddrKind::Cta,
                AddrKind::Cluster,
            ])?
        };
        let (class, vec) = *u.choose(&[
            (Class::H, 1),
            (Class::H, 2),
            (Class::H, 4),
            (Class::R, 1),
            (Class::R, 2),
            (Class::R, 4),
            (Class::F, 1),
            (Class::F, 4),
            (Class::D, 1),
            (Class::D, 2),
            (Class::Fd, 1),
            (Class::Fd, 2),
        ])?;
        let size = (class.bits() / 8) as u8 * vec;
        let off = size * u.int_in_range(0..=16 / size - 1)?;
        Ok(match u.int_in_range(0..=5u8)? {
            0 | 1 => Operation::St {
                buf: cur,
                vec,
                class,
                off,
                addr,
            },
            2 | 3 => {
                let peer = if u.arbitrary()? {
                    u.int_in_range(1..=63)?
                } else {
                    0
                };
                Operation::Ld {
                    // Other threads' slots only from the buffer this segment does not write.
                    buf: if peer > 0 {
                        1 - cur
                    } else {
                        u.int_in_range(0..=1)?
                    },
                    peer,
                    vec,
                    class,
                    off,
                    addr,
                }
            }
            _ => {
                let target = match u.int_in_range(0..=3u8)? {
                    0 => AtomTarget::Own {
                        buf: cur,
                        off: 8 * u.int_in_range(0..=1)?,
                    },
                    // Shared cells of the segment's parity (loads read the others).
                    1 => AtomTarget::Cell(cur + 2 * u.int_in_range(0..=1)?),
                    2 => AtomTarget::GlobalOwn,
                    _ => AtomTarget::GlobalCell(u.int_in_range(0..=3)?),
                };
                let (op, t) = match target {
                    AtomTarget::Cell(j) => self.cell_ops[j as usize],
                    AtomTarget::GlobalCell(j) => self.cell_ops[4 + j as usize],
                    _ => {
                        let op = *u.choose(&ATOM_OPS)?;
                        let t = match op {
                            Op::Add => *u.choose(&[
                                AtomT::Int(It {
                                    bits: 32,
                                    signed: false,
                                }),
                                AtomT::Int(It {
                                    bits: 32,
                                    signed: true,
                                }),
                                AtomT::Int(It {
                                    bits: 64,
                                    signed: false,
                                }),
                                AtomT::F32,
                                AtomT::F64,
                                AtomT::Half(Type::F16, false),
                                AtomT::Half(Type::F16, true),
                                AtomT::Half(Type::Bf16, false),
                                AtomT::Half(Type::Bf16, true),
                            ])?,
                            Op::Min | Op::Max => AtomT::Int(self.it(u, &[32, 64])?),
                            Op::Inc | Op::Dec => AtomT::Int(It {
                                bits: 32,
                                signed: false,
                            }),
                            _ => AtomT::Bits(*u.choose(&[32, 64])?),
                        };
                        (op, t)
                    }
                };
                // `red` has no `exch`/`cas`.
                let red = !matches!(op, Op::Exch | Op::Cas) && u.ratio(1, 3)?;
                // Orderings and scopes change nothing on race-free accesses; `red` takes only
                // `.relaxed` and `.release`.
                let sem = if u.ratio(1, 3)? {
                    Some(if red {
                        *u.choose(&RED_SEMS)?
                    } else {
                        *u.choose(&ATOM_SEMS)?
                    })
                } else {
                    None
                };
                let scope = if u.ratio(1, 3)? {
                    Some(*u.choose(&ATOM_SCOPES)?)
                } else {
                    None
                };
                Operation::Atom {
                    op,
                    t,
                    target,
                    red,
                    sem,
                    scope,
                    addr,
                }
            }
        })
    }
}
