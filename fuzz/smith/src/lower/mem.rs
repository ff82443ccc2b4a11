//! The memory family: loads and stores of the shared-slot protocol and atomics on shared and
//! global cells, through a state space or a generic address.

use super::emit::*;
use crate::model::layout::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode, Operand, Space, Type};

/// The opcode and qualifiers of a memory instruction; its operands in `cx` (the lowering of
/// [`super::flow::inst`] dispatches here by operation).
pub(super) fn lower(b: &mut B, i: &Inst, cx: &mut Parts) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match i.op {
        Operation::Ld {
            buf,
            peer,
            vec,
            class,
            off,
            addr: kind,
        } => {
            let addr = slot_addr(b, buf, peer, off);
            let (space, addr) = generic_addr(b, kind, Space::Shared, addr);
            cx.ops = vec![vec_regs(b, class, i.dst.idx, vec)];
            cx.srcs = vec![addr];
            (Ld, mem_mods(space, vec, class_type(class)))
        }
        Operation::St {
            buf,
            vec,
            class,
            off,
            addr: kind,
        } => {
            let addr = slot_addr(b, buf, 0, off);
            let (space, addr) = generic_addr(b, kind, Space::Shared, addr);
            let first = match i.srcs[0] {
                Src::Reg(r) => r.idx,
                _ => 0,
            };
            cx.ops = vec![addr];
            cx.srcs = vec![vec_regs(b, class, first, vec)];
            (St, mem_mods(space, vec, class_type(class)))
        }
        Operation::Atom {
            op,
            t: at,
            target,
            red,
            sem,
            scope,
            addr: kind,
        } => {
            let (space, addr) = match target {
                AtomTarget::Own { buf, off } => (Space::Shared, slot_addr(b, buf, 0, off)),
                AtomTarget::Cell(j) => (
                    Space::Shared,
                    Operand::addr(b.name("smem"), (CELLS + 8 * j as u32) as i64),
                ),
                AtomTarget::GlobalOwn => (Space::Global, Operand::addr(b.name("%tm1"), 0)),
                AtomTarget::GlobalCell(j) => {
                    (Space::Global, Operand::addr(b.name("%tm2"), 8 * j as i64))
                }
            };
            let (space, addr) = generic_addr(b, kind, space, addr);
            if red {
                cx.ops = vec![addr];
            } else {
                cx.ops.push(addr);
            }
            let ty = match at {
                AtomT::Int(x) => it_type(x),
                AtomT::Bits(w) => bits_type(w as u32),
                AtomT::F32 => Type::F32,
                AtomT::F64 => Type::F64,
                AtomT::Half(hf, x2) => half_type(hf, x2),
            };
            let sem = sem.map(Modifier::Sem);
            let scope = scope.map(Modifier::Scope);
            let space = space.map(Modifier::Space);
            // The table's orders: `atom{.sem}{.scope}{.space}`, `red{.space}{.sem}{.scope}`.
            let mut m: Vec<Modifier> = if red {
                space.into_iter().chain(sem).chain(scope).collect()
            } else {
                sem.into_iter().chain(scope).chain(space).collect()
            };
            m.push(Modifier::Op(op));
            if matches!(at, AtomT::Half(..)) {
                m.push(f(Flag::NoFtz));
            }
            m.push(t(ty));
            (if red { Red } else { Atom }, m)
        }
        _ => unreachable!("not a memory operation: {:?}", i.op),
    }
}

/// The address `addr` (a register plus displacement) of `space` with the space qualifier
/// `kind` asks for, or, for [`AddrKind::Generic`], the same location as a generic address: the
/// register is converted with `cvta` into `%tg0` (no space qualifier on the access then).
pub(super) fn generic_addr(
    b: &mut B,
    kind: AddrKind,
    space: Space,
    addr: Operand,
) -> (Option<Space>, Operand) {
    match (kind, space) {
        (AddrKind::Generic, _) => {}
        (AddrKind::Cta, Space::Shared) => return (Some(Space::SharedCta), addr),
        (AddrKind::Cluster, Space::Shared) => return (Some(Space::SharedCluster), addr),
        _ => return (Some(space), addr),
    }
    let (base, disp) = match addr {
        Operand::Addr {
            base: Some(base),
            offset,
            ..
        } => (base, offset),
        a => unreachable!("memory operands are register plus offset: {a:?}"),
    };
    let tg0 = b.r("%tg0");
    // A `smem` operand is the array's shared address: bring it into a register first.
    b.e(
        Opcode::Mov,
        vec![t(Type::U64)],
        vec![tg0.clone(), Operand::reg(base)],
    );
    b.e(
        Opcode::Cvta,
        vec![Modifier::Space(space), t(Type::U64)],
        vec![tg0.clone(), tg0],
    );
    (None, Operand::addr(b.name("%tg0"), disp))
}

/// The address of byte `off` of a slot of shared buffer `buf`: the thread's own (`peer` 0) or
/// that of thread `(tid + peer) % ntid`, computed into `%tm3`.
pub(super) fn slot_addr(b: &mut B, buf: u8, peer: u8, off: u8) -> Operand {
    use Opcode::*;
    let disp = (buf as u32 * BUF1 + off as u32) as i64;
    if peer == 0 {
        return Operand::addr(b.name("%tm0"), disp);
    }
    let (t7, t0, t2, tm3, tm4) = (b.r("%t7"), b.r("%t0"), b.r("%t2"), b.r("%tm3"), b.r("%tm4"));
    b.e(
        Add,
        vec![t(Type::U32)],
        vec![t7.clone(), t0, Operand::Int(peer as i64)],
    );
    b.e(Rem, vec![t(Type::U32)], vec![t7.clone(), t7.clone(), t2]);
    b.e(
        Mad,
        vec![f(Flag::Wide), t(Type::U32)],
        vec![tm3, t7, Operand::Int(SLOT as i64), tm4],
    );
    Operand::addr(b.name("%tm3"), disp)
}
