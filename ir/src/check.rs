//! Checking an instruction against its opcode's forms, with a diagnosis that names what is
//! wrong: the qualifier no form takes, the qualifier that does not combine with the others, the
//! qualifier that is missing, or the operand count and kinds.

use crate::form::{Form, OperandKind, Slot};
use crate::operand::Operand;
use crate::table::Opcode;
use crate::vocab::Modifier;

/// Why an instruction matches none of its opcode's forms. `Display` gives the message the
/// reader, verifier and builder report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormError {
    /// The qualifiers fit a form but the number of operands does not.
    OperandCount {
        /// The instruction as spelled (`add.s32`).
        inst: String,
        /// The operand counts the form takes (`3`, `2 to 3`).
        want: String,
        /// Whether the form takes a single operand.
        single: bool,
        /// The form's operands as written (`d, a, b`).
        operands: String,
        /// How many were given.
        given: usize,
    },
    /// An operand of a kind the form does not take there.
    OperandKind {
        /// The instruction as spelled.
        inst: String,
        /// Which operand (from 1).
        position: usize,
        /// What the form takes there.
        expected: String,
        /// The form (`add.s32 d, a, b`).
        form: String,
    },
    /// A qualifier that no form of the opcode takes.
    UnknownQualifier {
        /// The qualifier.
        qualifier: String,
        /// The opcode.
        opcode: &'static str,
    },
    /// A qualifier that does not combine with the others.
    Incompatible {
        /// The qualifier.
        qualifier: String,
        /// The instruction as spelled.
        inst: String,
        /// The closest form.
        closest: String,
    },
    /// Qualifiers the closest form needs and the instruction lacks.
    Missing {
        /// The instruction as spelled.
        inst: String,
        /// What is missing (`a type and a rounding`).
        missing: String,
        /// The closest form.
        closest: String,
    },
}

impl std::fmt::Display for FormError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FormError::OperandCount {
                inst,
                want,
                single,
                operands,
                given,
            } => write!(
                f,
                "`{inst}` takes {want} operand{} ({operands}); {given} given",
                if *single { "" } else { "s" }
            ),
            FormError::OperandKind {
                inst,
                position,
                expected,
                form,
            } => write!(
                f,
                "operand {position} of `{inst}` must be {expected} (form `{form}`)"
            ),
            FormError::UnknownQualifier { qualifier, opcode } => {
                write!(f, "`{qualifier}` is not a qualifier of `{opcode}`")
            }
            FormError::Incompatible {
                qualifier,
                inst,
                closest,
            } => write!(
                f,
                "`{qualifier}` cannot be combined with the other qualifiers of `{inst}` \
                 (closest form: `{closest}`)"
            ),
            FormError::Missing {
                inst,
                missing,
                closest,
            } => write!(
                f,
                "`{inst}` is missing {missing} (closest form: `{closest}`)"
            ),
        }
    }
}

impl std::error::Error for FormError {}

/// Checks `mods` and `operands` against the forms of `op`; returns the first matching form, or
/// what is wrong.
pub fn check(
    op: Opcode,
    mods: &[Modifier],
    operands: &[Operand],
) -> Result<&'static Form, FormError> {
    let forms = op.forms();
    let mut mods_ok: Option<&Form> = None;
    for f in forms {
        if f.match_mods(mods).is_ok() {
            if f.match_operands(operands) {
                return Ok(f);
            }
            mods_ok.get_or_insert(f);
        }
    }
    let spelled = spell(op, mods);
    if let Some(f) = mods_ok {
        let min = f.operands.iter().filter(|o| !o.optional).count();
        let max = f.operands.len();
        let want = if min == max {
            format!("{max}")
        } else {
            format!("{min} to {max}")
        };
        if operands.len() < min || operands.len() > max {
            return Err(FormError::OperandCount {
                inst: spelled,
                want,
                single: max == 1,
                operands: f
                    .render(op.name())
                    .split_once(' ')
                    .map_or("", |(_, o)| o)
                    .to_string(),
                given: operands.len(),
            });
        }
        let bad = first_misfit(f, operands);
        return Err(FormError::OperandKind {
            inst: spelled,
            position: bad.0 + 1,
            expected: bad.1.describe().to_string(),
            form: f.render(op.name()),
        });
    }
    if let Some(m) = mods
        .iter()
        .find(|&&m| !forms.iter().any(|f| f.slots.iter().any(|s| s.accepts(m))))
    {
        return Err(FormError::UnknownQualifier {
            qualifier: m.to_string(),
            opcode: op.name(),
        });
    }
    // The closest form: fewest stray plus missing qualifiers.
    let (f, stray, missing) = forms
        .iter()
        .map(|f| {
            let (s, m) = f.mismatch(mods);
            (f, s, m)
        })
        .min_by_key(|(_, s, m)| s.len() + m.len())
        .expect("every opcode has a form");
    if let Some(m) = stray.first() {
        return Err(FormError::Incompatible {
            qualifier: m.to_string(),
            inst: spelled,
            closest: f.render(op.name()),
        });
    }
    let need: Vec<String> = missing.iter().map(|s| render_slot(s, true)).collect();
    Err(FormError::Missing {
        inst: spelled,
        missing: need.join(" and "),
        closest: f.render(op.name()),
    })
}

fn first_misfit(f: &Form, ops: &[Operand]) -> (usize, OperandKind) {
    // Walk like the matcher, reporting the first operand no position accepts.
    let mut i = 0;
    for spec in &f.operands {
        match ops.get(i) {
            Some(o) if spec.kind.accepts(o) => i += 1,
            _ if spec.optional => {}
            _ => return (i, spec.kind),
        }
    }
    (i, f.operands.last().map_or(OperandKind::Any, |s| s.kind))
}

/// `op.mod.mod` as written.
pub fn spell(op: Opcode, mods: &[Modifier]) -> String {
    let mut s = op.name().to_string();
    for m in mods {
        s.push('.');
        s.push_str(m.as_str());
    }
    s
}

fn render_slot(s: &Slot, bare: bool) -> String {
    let members: Vec<&str> = s.members.iter().map(|m| m.as_str()).collect();
    let inner = if members.len() == 1 {
        format!(".{}", members[0])
    } else if members.len() <= 8 {
        format!(".{{{}}}", members.join("|"))
    } else {
        format!(".{{{}|...}}", members[..6].join("|"))
    };
    if s.required || bare {
        inner
    } else {
        format!("{{{inner}}}")
    }
}

impl Form {
    /// The form in ISA-like notation, e.g. `add{.sat}.s32 d, a, b`.
    pub fn render(&self, mnemonic: &str) -> String {
        let mut s = mnemonic.to_string();
        for slot in &self.slots {
            s.push_str(&render_slot(slot, false));
        }
        let ops: Vec<String> = self
            .operands
            .iter()
            .map(|o| {
                let l = match o.kind {
                    OperandKind::Dst => "d",
                    OperandKind::Src => "a",
                    OperandKind::Pred => "p",
                    OperandKind::Mem => "[addr]",
                    OperandKind::Tuple => "[...]",
                    OperandKind::Label => "label",
                    OperandKind::Vector => "{...}",
                    OperandKind::Args => "(args)",
                    OperandKind::Imm => "imm",
                    OperandKind::Any => "x",
                };
                if o.optional {
                    format!("{l}?")
                } else {
                    l.to_string()
                }
            })
            .collect();
        if !ops.is_empty() {
            s.push(' ');
            s.push_str(&ops.join(", "));
        }
        s
    }

    /// The qualifiers that find no slot, and the required slots left empty, under the matcher's
    /// first-free-slot assignment.
    pub fn mismatch(&self, mods: &[Modifier]) -> (Vec<Modifier>, Vec<&Slot>) {
        let mut filled = vec![false; self.slots.len()];
        let mut stray = Vec::new();
        for &m in mods {
            match self
                .slots
                .iter()
                .enumerate()
                .position(|(i, s)| !filled[i] && s.accepts(m))
            {
                Some(i) => filled[i] = true,
                None => stray.push(m),
            }
        }
        let missing = self
            .slots
            .iter()
            .zip(&filled)
            .filter(|(s, f)| s.required && !**f)
            .map(|(s, _)| s)
            .collect();
        (stray, missing)
    }
}
