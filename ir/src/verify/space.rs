//! State spaces: a variable named in an address must live in the state space the instruction
//! accesses (`ld.global [shared_var]` is an error). Addresses held in registers, and generic
//! accesses (no state-space qualifier), cannot be checked statically and are left alone.

use super::cx::{Cx, FnCx};
use super::diag::Rule;
use super::env::Found;
use super::scope;
use crate::inst::Instruction;
use crate::operand::Operand;
use crate::table::Opcode;
use crate::vocab::Space;

/// The state space each memory operand (in order) is accessed through, if the instruction says.
fn operand_spaces(inst: &Instruction) -> Vec<Option<Space>> {
    use Opcode as O;
    let spaces = inst.spaces();
    match inst.opcode {
        // destination first, then source
        O::CpAsync | O::CpAsyncBulk | O::CpReduceAsyncBulk => {
            vec![spaces.first().copied(), spaces.get(1).copied()]
        }
        // `[addr], [mbar]`: with `.shared::cta` both are in that space (seed 000).
        O::ClusterlaunchcontrolTryCancel => vec![spaces.first().copied(); 2],
        O::Ld
        | O::Ldu
        | O::St
        | O::Atom
        | O::Red
        | O::Prefetch
        | O::MbarrierInit
        | O::MbarrierInval
        | O::MbarrierArrive
        | O::MbarrierArriveDrop
        | O::MbarrierTestWait
        | O::MbarrierTryWait
        | O::MbarrierExpectTx
        | O::MbarrierCompleteTx
        | O::CpAsyncMbarrierArrive
        | O::WmmaLoad
        | O::WmmaStore
        | O::Ldmatrix
        | O::Stmatrix
        | O::Tcgen05Alloc => vec![spaces.first().copied()],
        _ => Vec::new(),
    }
}

/// Whether a variable declared in `decl` may be accessed through `access`.
fn compatible(decl: Space, access: Space) -> bool {
    use Space::*;
    match access {
        Shared | SharedCta | SharedCluster => decl == Shared,
        Param | ParamEntry | ParamFunc => decl == Param,
        _ => decl == access,
    }
}

/// `mapa` and `cvta` (from a space to generic) take a variable's address as a value: the
/// variable must be in that space (`mapa` maps shared addresses).
fn address_value(cx: &mut Cx<'_>, fx: &FnCx<'_>, inst: &Instruction) {
    let space = match inst.opcode {
        Opcode::Mapa => Space::SharedCluster,
        Opcode::Cvta if !inst.has(crate::vocab::Flag::To) => match inst.space() {
            Some(s) => s,
            None => return,
        },
        _ => return,
    };
    let name = match inst.operands.get(1) {
        Some(Operand::Reg { name, .. } | Operand::Sym { name, .. }) => *name,
        _ => return,
    };
    if let Some(Found::Var(v)) = scope::resolve(cx, fx, name) {
        if !v.is_reg() && !compatible(v.space, space) {
            let msg = format!(
                "`{}` is declared in `.{}`; `{}` needs an address in `.{}`",
                cx.name(name),
                v.space.as_str(),
                inst.opcode.name(),
                space.as_str()
            );
            cx.report(Rule::StateSpace, Some(inst), msg);
        }
    }
}

/// An arrival on an mbarrier in `.shared::cluster` may target another CTA's barrier, whose
/// state the arriving thread cannot receive: the destination must be the sink `_` (PTX ISA
/// 9.7.13.15.13; ptxas rejects anything else).
fn remote_arrive(cx: &mut Cx<'_>, inst: &Instruction) {
    if matches!(
        inst.opcode,
        Opcode::MbarrierArrive | Opcode::MbarrierArriveDrop
    ) && inst.space() == Some(Space::SharedCluster)
        && !matches!(inst.operands.first(), Some(Operand::Sink))
    {
        let msg = format!(
            "`{}` on `.shared::cluster` cannot return a state: the destination must be `_`",
            inst.opcode.name()
        );
        cx.report(Rule::StateSpace, Some(inst), msg);
    }
}

pub(crate) fn check<'m>(cx: &mut Cx<'m>, fx: &FnCx<'m>, inst: &'m Instruction) {
    address_value(cx, fx, inst);
    remote_arrive(cx, inst);
    let spaces = operand_spaces(inst);
    if spaces.is_empty() {
        return;
    }
    let mems = inst
        .operands
        .iter()
        .filter_map(|o| match o {
            Operand::Addr { base: Some(b), .. } => Some(Some(*b)),
            Operand::Addr { base: None, .. } => Some(None),
            _ => None,
        })
        .zip(spaces);
    let mut bad = Vec::new();
    for (base, access) in mems {
        let (Some(b), Some(access)) = (base, access) else {
            continue;
        };
        let Some(Found::Var(v)) = scope::resolve(cx, fx, b) else {
            continue;
        };
        if v.is_reg() || compatible(v.space, access) {
            continue;
        }
        bad.push((b, v.space, access));
    }
    for (b, decl, access) in bad {
        let msg = format!(
            "`{}` is declared in `.{}` but accessed through `.{}`",
            cx.name(b),
            decl.as_str(),
            access.as_str()
        );
        cx.report(Rule::StateSpace, Some(inst), msg);
    }
}
