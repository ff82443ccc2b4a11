//! A one-line rendering of an instruction for diagnostics (the text crate owns the real printer;
//! this crate cannot depend on it).

use crate::inst::Instruction;
use crate::module::Module;
use crate::operand::Operand;
use std::fmt::Write;

/// The instruction as PTX text, e.g. `@%p1 add.s32 %r1, %r2, 4;`.
pub(crate) fn render_instruction(m: &Module, inst: &Instruction) -> String {
    let mut s = String::new();
    if let Some(g) = inst.guard {
        let _ = write!(
            s,
            "@{}{} ",
            if g.negated { "!" } else { "" },
            name(m, g.pred)
        );
    }
    s.push_str(inst.opcode.name());
    for md in &inst.mods {
        s.push('.');
        s.push_str(md.as_str());
    }
    for (i, o) in inst.operands.iter().enumerate() {
        s.push_str(if i == 0 { " " } else { ", " });
        operand(m, o, &mut s);
    }
    s.push(';');
    s
}

fn name(m: &Module, n: crate::names::Name) -> &str {
    m.names.try_get(n).unwrap_or("<bad name>")
}

fn list(m: &Module, v: &[Operand], open: char, close: char, s: &mut String) {
    s.push(open);
    for (i, o) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        operand(m, o, s);
    }
    s.push(close);
}

fn operand(m: &Module, o: &Operand, s: &mut String) {
    match o {
        Operand::Reg { name: n, sel } => {
            let _ = write!(s, "{}{sel}", name(m, *n));
        }
        Operand::Special { reg, sel } => {
            let _ = write!(s, "{reg}{sel}");
        }
        Operand::Int(v) => {
            let _ = write!(s, "{v}");
        }
        Operand::Uint(v) => {
            let _ = write!(s, "{v}U");
        }
        Operand::F32(b) => {
            let _ = write!(s, "0f{b:08X}");
        }
        Operand::F64(b) | Operand::Dec(b) => {
            let _ = write!(s, "0d{b:016X}");
        }
        Operand::Sym { name: n, offset } => {
            let _ = write!(s, "{}{offset:+}", name(m, *n));
        }
        Operand::Addr {
            base,
            offset,
            unified,
        } => {
            s.push('[');
            match base {
                Some(b) if *offset != 0 => {
                    let _ = write!(s, "{}{offset:+}", name(m, *b));
                }
                Some(b) => s.push_str(name(m, *b)),
                None => {
                    let _ = write!(s, "{offset}");
                }
            }
            s.push(']');
            if *unified {
                s.push_str(".unified");
            }
        }
        Operand::Vector(v) => list(m, v, '{', '}', s),
        Operand::Tuple(v) => list(m, v, '[', ']', s),
        Operand::Args(v) => list(m, v, '(', ')', s),
        Operand::Pair(p) => {
            operand(m, &p[0], s);
            s.push('|');
            operand(m, &p[1], s);
        }
        Operand::Not(n) => {
            let _ = write!(s, "!{}", name(m, *n));
        }
        Operand::Neg(o) => {
            s.push('-');
            operand(m, o, s);
        }
        Operand::Sink => s.push('_'),
    }
}
