//! Instruction text for messages. The interpreter depends on the IR only, so it renders the
//! few things an error needs itself instead of pulling in the printer.

use ptx_ir_core::{Instruction, Interner, Name, Operand};

fn name(names: &Interner, n: Name) -> String {
    names.try_get(n).unwrap_or("?").to_string()
}

fn operand(names: &Interner, o: &Operand, out: &mut String) {
    match o {
        Operand::Reg { name: n, sel } => {
            out.push_str(&name(names, *n));
            out.push_str(&sel.to_string());
        }
        Operand::Special { reg, sel } => {
            out.push_str(&reg.to_string());
            out.push_str(&sel.to_string());
        }
        Operand::Int(v) => out.push_str(&v.to_string()),
        Operand::Uint(v) => out.push_str(&format!("{v}U")),
        Operand::F32(b) => out.push_str(&format!("0f{b:08X}")),
        Operand::F64(b) | Operand::Dec(b) => out.push_str(&format!("0d{b:016X}")),
        Operand::Sym { name: n, offset } => {
            out.push_str(&name(names, *n));
            if *offset != 0 {
                out.push_str(&format!("{offset:+}"));
            }
        }
        Operand::Addr {
            base,
            offset,
            unified,
        } => {
            out.push('[');
            match base {
                Some(b) => {
                    out.push_str(&name(names, *b));
                    if *offset != 0 {
                        out.push_str(&format!("{offset:+}"));
                    }
                }
                None => out.push_str(&offset.to_string()),
            }
            out.push(']');
            if *unified {
                out.push_str(".unified");
            }
        }
        Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
            let (open, close) = match o {
                Operand::Vector(_) => ('{', '}'),
                Operand::Tuple(_) => ('[', ']'),
                _ => ('(', ')'),
            };
            out.push(open);
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                operand(names, x, out);
            }
            out.push(close);
        }
        Operand::Pair(p) => {
            operand(names, &p[0], out);
            out.push('|');
            operand(names, &p[1], out);
        }
        Operand::Not(n) => {
            out.push('!');
            out.push_str(&name(names, *n));
        }
        Operand::Neg(x) => {
            out.push('-');
            operand(names, x, out);
        }
        Operand::Sink => out.push('_'),
    }
}

/// The instruction as PTX text (without the trailing `;`).
pub fn inst(names: &Interner, i: &Instruction) -> String {
    let mut out = String::new();
    if let Some(g) = &i.guard {
        out.push('@');
        if g.negated {
            out.push('!');
        }
        out.push_str(&name(names, g.pred));
        out.push(' ');
    }
    out.push_str(i.opcode.name());
    for m in &i.mods {
        out.push_str(&m.to_string());
    }
    for (k, o) in i.operands.iter().enumerate() {
        out.push_str(if k == 0 { " " } else { ", " });
        operand(names, o, &mut out);
    }
    out
}
