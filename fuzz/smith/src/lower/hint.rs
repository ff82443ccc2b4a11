//! The hint family: input-pool loads with cache hints (`ldu`, `ld.global.nc`, `createpolicy`
//! policies, `prefetch`, `applypriority`), the instructions without effect on values, `alloca`
//! with `stacksave`/`stackrestore`, and the integer `cvt.pack.sat`.

use super::emit::*;
use crate::model::layout::*;
use crate::model::*;
use ptx_ir_core::{Flag, Guard, Modifier, Op, Opcode, Operand, Space, Type};

/// The opcode and qualifiers of a hint instruction; its operands in `cx` (the lowering of
/// [`super::flow::inst`] dispatches here by operation).
pub(super) fn lower(b: &mut B, i: &Inst, cx: &mut Parts) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match i.op {
        Operation::PackSat(pt) => {
            let mut m = vec![f(Flag::Sat), t(pt), t(Type::S32)];
            if pack_takes_c(pt) {
                m.push(t(Type::B32));
            }
            (CvtPack, m)
        }
        Operation::LdIn {
            how,
            class,
            slot,
            vec,
        } => {
            let (op, m, src) = ld_in(b, cx.guard, how, class, slot, vec);
            cx.ops = vec![vec_regs(b, class, i.dst.idx, vec)];
            cx.srcs = src;
            (op, m)
        }
        Operation::Hint(h) => {
            hint(b, cx.guard, h);
            (Mov, vec![t(Type::B32)])
        }
        Operation::Alloca {
            size,
            lane_size,
            align,
            restore,
            generic,
        } => {
            let (tq0, tq1, tq2) = (b.r("%tq0"), b.r("%tq1"), b.r("%tq2"));
            let (tz0, tz1, t3) = (b.r("%tz0"), b.r("%tz1"), b.r("%t3"));
            let u64t = || vec![t(Type::U64)];
            // Saved and restored in every thread, whatever the cx.guard: on the H100 a guarded
            // `stacksave`/`stackrestore` pair in a divergent loop, followed by another
            // `alloca`, stopped the kernel with an illegal instruction (the skipped threads'
            // saved value was never written; the hardware seems to keep one stack pointer per
            // warp). Unguarded, the pair leaves a skipped thread's pointer as it was.
            if restore {
                b.e(Stacksave, u64t(), vec![tq1.clone()]);
            }
            let sz = if lane_size {
                b.e(
                    And,
                    vec![t(Type::B32)],
                    vec![tz0.clone(), t3, Operand::Int(31)],
                );
                b.e(
                    Add,
                    vec![t(Type::U32)],
                    vec![tz0.clone(), tz0.clone(), Operand::Int(4)],
                );
                b.e(
                    Cvt,
                    vec![t(Type::U64), t(Type::U32)],
                    vec![tq2.clone(), tz0.clone()],
                );
                tq2
            } else {
                Operand::Int(size as i64)
            };
            let mut ops = vec![tq0.clone(), sz];
            ops.extend(align.map(|a| Operand::Int(a as i64)));
            b.emit(cx.guard, Alloca, u64t(), ops);
            let a = align.unwrap_or(8) as i64;
            b.emit(
                cx.guard,
                Cvt,
                vec![t(Type::U32), t(Type::U64)],
                vec![tz0.clone(), tq0.clone()],
            );
            b.emit(
                cx.guard,
                And,
                vec![t(Type::B32)],
                vec![tz0.clone(), tz0.clone(), Operand::Int(a - 1)],
            );
            let space = if generic {
                b.emit(
                    cx.guard,
                    Cvta,
                    vec![Modifier::Space(Space::Local), t(Type::U64)],
                    vec![tq0.clone(), tq0.clone()],
                );
                None
            } else {
                Some(Space::Local)
            };
            let at = Operand::addr(b.name("%tq0"), 0);
            b.emit(
                cx.guard,
                St,
                mem_mods(space, 1, Type::B32),
                vec![at.clone(), cx.srcs[0].clone()],
            );
            b.emit(
                cx.guard,
                Ld,
                mem_mods(space, 1, Type::B32),
                vec![tz1.clone(), at],
            );
            if restore {
                b.e(Stackrestore, u64t(), vec![tq1]);
            }
            cx.srcs = vec![tz1, tz0];
            (Add, vec![t(Type::U32)])
        }
        _ => unreachable!("not a hint operation: {:?}", i.op),
    }
}

/// The eviction priority `k` of `createpolicy` (0 `evict_last`, 1 `evict_normal`,
/// 2 `evict_first`, 3 `evict_unchanged`) and the optional secondary one.
fn policy_mods(primary: u8, secondary: Option<bool>) -> Vec<Modifier> {
    use ptx_ir_core::Cache;
    let mut m = vec![Modifier::Cache(match primary {
        0 => Cache::L2EvictLast,
        1 => Cache::L2EvictNormal,
        2 => Cache::L2EvictFirst,
        _ => Cache::L2EvictUnchanged,
    })];
    if let Some(unchanged) = secondary {
        m.push(Modifier::Cache(if unchanged {
            Cache::L2EvictUnchanged
        } else {
            Cache::L2EvictFirst
        }));
    }
    m
}

/// The instructions before an input-pool load that `how` asks for, and the load's opcode,
/// qualifiers and address operands: `[%td0+offset]` (the input buffer) and, with a cache
/// policy, the policy register.
fn ld_in(
    b: &mut B,
    guard: Option<Guard>,
    how: LdHow,
    class: Class,
    slot: u8,
    vec: u8,
) -> (Opcode, Vec<Modifier>, Vec<Operand>) {
    use ptx_ir_core::Cache;
    let pool = match class {
        Class::H => 0,
        Class::P | Class::R => 1,
        Class::D => 2,
        Class::F => 3,
        Class::Fd => 4,
    };
    let off = POOL_OFFSETS[pool] + slot as u32 * class.bits() / 8;
    let td0 = b.name("%td0");
    let addr = Operand::addr(td0, off as i64);
    let g = Modifier::Space(Space::Global);
    let ty = class_type(class);
    let plain = |extra: Vec<Modifier>| {
        let mut m = vec![g];
        m.extend(extra);
        m.extend(mem_mods(None, vec, ty));
        m
    };
    match how {
        LdHow::Ldu => (
            Opcode::Ldu,
            mem_mods(Some(Space::Global), vec, ty),
            vec![addr],
        ),
        LdHow::Nc(k) => {
            let mut extra = vec![f(Flag::Nc)];
            match k {
                1 => extra.push(Modifier::Cache(Cache::L1EvictLast)),
                2 => extra.push(Modifier::Cache(Cache::L1NoAllocate)),
                3 => extra.push(Modifier::Cache(Cache::L2B256)),
                _ => {}
            }
            (Opcode::Ld, plain(extra), vec![addr])
        }
        LdHow::Policy(pol) => {
            let tq0 = b.r("%tq0");
            match pol {
                Policy::Fractional {
                    primary,
                    secondary,
                    fraction,
                } => {
                    let mut m = vec![f(Flag::CreatePolicyFractional)];
                    m.extend(policy_mods(primary, secondary));
                    m.push(t(Type::B64));
                    let mut ops = vec![tq0.clone()];
                    ops.extend(fraction.map(Operand::F32));
                    b.e(Opcode::Createpolicy, m, ops);
                }
                Policy::Range {
                    primary,
                    secondary,
                    size,
                    total,
                } => {
                    let mut m = vec![f(Flag::Range), g];
                    m.extend(policy_mods(primary, secondary));
                    m.push(t(Type::B64));
                    b.e(
                        Opcode::Createpolicy,
                        m,
                        vec![
                            tq0.clone(),
                            Operand::addr(td0, 0),
                            Operand::Int(size as i64),
                            Operand::Int(total as i64),
                        ],
                    );
                }
            }
            (
                Opcode::Ld,
                plain(vec![Modifier::Cache(Cache::L2CacheHint)]),
                vec![addr, tq0],
            )
        }
        LdHow::Prefetch(pf) => {
            let generic = matches!(pf, Pf::GenericL2 | Pf::Uniform);
            let at = if generic {
                let tq1 = b.r("%tq1");
                b.e(
                    Opcode::Cvta,
                    vec![g, t(Type::U64)],
                    vec![tq1, Operand::reg(td0)],
                );
                Operand::addr(b.name("%tq1"), off as i64)
            } else {
                addr.clone()
            };
            let (op, m) = match pf {
                Pf::GlobalL1 => (Opcode::Prefetch, vec![g, Modifier::Cache(Cache::L1)]),
                Pf::GlobalL2 => (Opcode::Prefetch, vec![g, Modifier::Cache(Cache::L2)]),
                Pf::EvictLast => (
                    Opcode::Prefetch,
                    vec![g, Modifier::Cache(Cache::L2EvictLast)],
                ),
                Pf::EvictNormal => (
                    Opcode::Prefetch,
                    vec![g, Modifier::Cache(Cache::L2EvictNormal)],
                ),
                Pf::GenericL2 => (Opcode::Prefetch, vec![Modifier::Cache(Cache::L2)]),
                Pf::Uniform => (Opcode::Prefetchu, vec![Modifier::Cache(Cache::L1)]),
            };
            b.emit(guard, op, m, vec![at]);
            (Opcode::Ld, plain(vec![]), vec![addr])
        }
        LdHow::Applypriority => {
            b.emit(
                guard,
                Opcode::Applypriority,
                vec![g, Modifier::Cache(Cache::L2EvictNormal)],
                vec![Operand::addr(td0, 0), Operand::Int(128)],
            );
            (Opcode::Ld, plain(vec![]), vec![addr])
        }
    }
}

/// Emits the instruction of `h` (under `guard`).
fn hint(b: &mut B, guard: Option<Guard>, h: HintOp) {
    use ptx_ir_core::{Cache, Scope, Sem};
    let scope = |k: u8| {
        Modifier::Scope(match k {
            0 => Scope::Cta,
            1 => Scope::Cluster,
            2 => Scope::Gpu,
            _ => Scope::Sys,
        })
    };
    let (op, m, ops) = match h {
        HintOp::Membar(k) => (
            Opcode::Membar,
            vec![Modifier::Scope(match k {
                0 => Scope::Cta,
                1 => Scope::Gl,
                _ => Scope::Sys,
            })],
            vec![],
        ),
        HintOp::Fence { sem, scope: sc } => {
            let mut m = match sem {
                1 => vec![Modifier::Sem(Sem::Sc)],
                2 => vec![Modifier::Sem(Sem::AcqRel)],
                _ => vec![],
            };
            m.push(scope(sc));
            (Opcode::Fence, m, vec![])
        }
        HintOp::Proxy(k) => {
            let (op, tail) = match k {
                0 => (Opcode::Fence, vec![f(Flag::Alias)]),
                1 => (Opcode::Fence, vec![f(Flag::Async)]),
                2 => (
                    Opcode::Fence,
                    vec![f(Flag::Async), Modifier::Space(Space::Global)],
                ),
                3 => (
                    Opcode::Fence,
                    vec![f(Flag::Async), Modifier::Space(Space::SharedCta)],
                ),
                _ => (Opcode::Membar, vec![f(Flag::Alias)]),
            };
            let mut m = vec![f(Flag::Proxy)];
            m.extend(tail);
            (op, m, vec![])
        }
        HintOp::Sleep(ns) => (
            Opcode::Nanosleep,
            vec![t(Type::U32)],
            vec![Operand::Int(ns as i64)],
        ),
        HintOp::SleepReg => {
            // A different time per thread: `gid & 255` nanoseconds.
            let (tz, t3) = (b.r("%tz0"), b.r("%t3"));
            b.e(
                Opcode::And,
                vec![t(Type::B32)],
                vec![tz.clone(), t3, Operand::Int(255)],
            );
            (Opcode::Nanosleep, vec![t(Type::U32)], vec![tz])
        }
        HintOp::Pmevent(k) => (Opcode::Pmevent, vec![], vec![Operand::Int(k as i64)]),
        HintOp::PmeventMask(k) => (
            Opcode::Pmevent,
            vec![f(Flag::Mask)],
            vec![Operand::Int(k as i64)],
        ),
        HintOp::Griddep(wait) => (
            Opcode::Griddepcontrol,
            vec![f(if wait {
                Flag::Wait
            } else {
                Flag::LaunchDependents
            })],
            vec![],
        ),
        HintOp::Discard => (
            Opcode::Discard,
            vec![Modifier::Space(Space::Global), Modifier::Cache(Cache::L2)],
            vec![Operand::addr(b.name("dsc"), 0), Operand::Int(128)],
        ),
        HintOp::Setmaxnreg { inc, n } => {
            // "Must synchronize all warpgroup warps before issuing another setmaxnreg" (seed
            // 003): a CTA barrier first (setmaxnreg is drawn only where the whole CTA runs).
            b.e(Opcode::Bar, vec![f(Flag::Sync)], vec![Operand::Int(0)]);
            (
                Opcode::Setmaxnreg,
                vec![
                    Modifier::Op(if inc { Op::Inc } else { Op::Dec }),
                    f(Flag::Sync),
                    f(Flag::Aligned),
                    t(Type::U32),
                ],
                vec![Operand::Int(n as i64)],
            )
        }
    };
    b.emit(guard, op, m, ops);
}
