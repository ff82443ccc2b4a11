//! Generators of well-formed IR, driven by the instruction table's forms: a random opcode, one
//! of its forms, a member for every required slot (and some optional ones), and operands of the
//! kinds the form asks for. What they produce prints to PTX that the reader accepts, so they feed
//! the round-trip properties and fuzzers. Requires the `arbitrary` feature.

use crate::form::{Form, OperandKind};
use crate::inst::{Guard, Instruction};
use crate::module::{Function, FunctionKind, Item, Linkage, Module, Statement, Target, Version};
use crate::names::{Interner, Name};
use crate::operand::{Operand, OperandList, Selector};
use crate::special::SpecialReg;
use crate::table::Opcode;
use crate::visit::renumber_names;
use arbitrary::{Result, Unstructured};

/// Name prefixes used for generated registers and labels (none collides with a special
/// register).
const PREFIXES: &[&str] = &[
    "%r", "%rd", "%p", "%f", "%fd", "%h", "L", "$L__BB0_", "sym", "_Z3fooPf",
];

/// A source of names for generated operands.
pub struct NamePool<'a> {
    names: &'a mut Interner,
}

impl<'a> NamePool<'a> {
    /// Generates names into `names`.
    pub fn new(names: &'a mut Interner) -> Self {
        NamePool { names }
    }

    /// A register-like or label-like name.
    pub fn name(&mut self, u: &mut Unstructured) -> Result<Name> {
        let p = u.choose(PREFIXES)?;
        let k: u8 = u.int_in_range(0..=31)?;
        Ok(self.names.intern(&format!("{p}{k}")))
    }
}

/// Generates one instruction accepted by the reader (in printed form) for `op`, or for a
/// random opcode when `op` is `None`.
pub fn instruction(
    u: &mut Unstructured,
    pool: &mut NamePool,
    op: Option<Opcode>,
) -> Result<Instruction> {
    let op = match op {
        Some(op) => op,
        None => *u.choose(Opcode::ALL)?,
    };
    let forms = op.forms();
    // A form's optional slots can shadow a later required slot (order-free matching puts a
    // modifier in the first free slot that takes it); retry with fresh choices when that
    // happens, falling back to required slots only.
    for attempt in 0..4 {
        let form = u.choose(forms)?;
        let mut mods = crate::inst::Mods::new();
        for slot in &form.slots {
            if slot.required || (attempt < 3 && u.ratio(1, 3)?) {
                mods.push(*u.choose(&slot.members)?);
            }
        }
        if form.match_mods(&mods).is_err() {
            continue;
        }
        let operands = operands(u, pool, op, form)?;
        let guard = if u.ratio(1, 8)? {
            Some(Guard {
                pred: pool.name(u)?,
                negated: u.arbitrary()?,
            })
        } else {
            None
        };
        return Ok(Instruction {
            guard,
            opcode: op,
            mods,
            operands,
        });
    }
    // Required slots only, first form: always well formed by construction of the table tests.
    let form = &forms[0];
    let mods = form
        .slots
        .iter()
        .filter(|s| s.required)
        .map(|s| s.members[0])
        .collect();
    let operands = operands(u, pool, op, form)?;
    Ok(Instruction {
        guard: None,
        opcode: op,
        mods,
        operands,
    })
}

fn operands(
    u: &mut Unstructured,
    pool: &mut NamePool,
    op: Opcode,
    form: &Form,
) -> Result<OperandList> {
    let call = op == Opcode::Call;
    // Leaving out optional operands can make later ones land in an earlier slot; check with the
    // form's own matcher and retry, falling back to every operand present (always a match).
    for _ in 0..4 {
        let mut out = OperandList::new();
        for spec in &form.operands {
            if spec.optional && u.arbitrary()? {
                continue;
            }
            out.push(operand(u, pool, spec.kind, call, 0)?);
        }
        if form.match_operands(&out) {
            return Ok(out);
        }
    }
    form.operands
        .iter()
        .map(|s| operand(u, pool, s.kind, call, 0))
        .collect()
}

fn reg(u: &mut Unstructured, pool: &mut NamePool) -> Result<Operand> {
    Ok(Operand::Reg {
        name: pool.name(u)?,
        sel: Selector::NONE,
    })
}

fn special(u: &mut Unstructured) -> Result<Operand> {
    let reg = match u.int_in_range(0..=4u8)? {
        0 => SpecialReg::Pm(u.int_in_range(0..=7)?),
        1 => SpecialReg::Envreg(u.int_in_range(0..=31)?),
        _ => *u.choose(SpecialReg::PLAIN)?,
    };
    let sel = if reg.ty().1 && u.arbitrary()? {
        Selector::component(u.int_in_range(0..=2)?).unwrap_or_default()
    } else {
        Selector::NONE
    };
    Ok(Operand::Special { reg, sel })
}

fn literal(u: &mut Unstructured) -> Result<Operand> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 | 1 => Operand::Int(u.arbitrary()?),
        2 => Operand::Uint(u.arbitrary()?),
        3 => Operand::F32(u.arbitrary()?),
        4 => Operand::F64(u.arbitrary()?),
        _ => {
            let v: f64 = u.arbitrary()?;
            if v.is_finite() {
                Operand::Dec(v.to_bits())
            } else {
                Operand::Dec(0.5f64.to_bits())
            }
        }
    })
}

fn vector(u: &mut Unstructured, pool: &mut NamePool, dst: bool) -> Result<Operand> {
    let n = u.int_in_range(1..=8usize)?;
    let mut items = OperandList::new();
    for _ in 0..n {
        items.push(if dst && u.ratio(1, 6)? {
            Operand::Sink
        } else if !dst && u.ratio(1, 6)? {
            Operand::Int(u.int_in_range(-8..=8)?)
        } else {
            reg(u, pool)?
        });
    }
    Ok(Operand::Vector(Box::new(items)))
}

fn operand(
    u: &mut Unstructured,
    pool: &mut NamePool,
    kind: OperandKind,
    call: bool,
    depth: u32,
) -> Result<Operand> {
    Ok(match kind {
        OperandKind::Dst => match u.int_in_range(0..=9u8)? {
            0 => Operand::Sink,
            1 => vector(u, pool, true)?,
            2 => {
                let a = if u.ratio(1, 4)? {
                    Operand::Sink
                } else {
                    reg(u, pool)?
                };
                Operand::Pair(Box::new([a, reg(u, pool)?]))
            }
            _ => reg(u, pool)?,
        },
        OperandKind::Src => match u.int_in_range(0..=11u8)? {
            0 | 1 => literal(u)?,
            2 => special(u)?,
            3 => Operand::Sym {
                name: pool.name(u)?,
                offset: u.arbitrary()?,
            },
            4 => vector(u, pool, false)?,
            5 => Operand::Neg(Box::new(reg(u, pool)?)),
            6 => {
                let sel = Selector::digits('b', &[u.int_in_range(0..=3)?]).unwrap_or_default();
                Operand::Reg {
                    name: pool.name(u)?,
                    sel,
                }
            }
            _ => reg(u, pool)?,
        },
        OperandKind::Pred => match u.int_in_range(0..=3u8)? {
            0 => Operand::Not(pool.name(u)?),
            1 => Operand::Int(u.int_in_range(0..=1)?),
            _ => reg(u, pool)?,
        },
        OperandKind::Mem => addr(u, pool)?,
        OperandKind::Tuple => {
            if depth == 0 && u.arbitrary()? {
                let mut items = OperandList::new();
                items.push(reg(u, pool)?);
                items.push(vector(u, pool, false)?);
                Operand::Tuple(Box::new(items))
            } else {
                addr(u, pool)?
            }
        }
        OperandKind::Label => reg(u, pool)?,
        OperandKind::Vector => vector(u, pool, false)?,
        OperandKind::Args => {
            let n = u.int_in_range(0..=4usize)?;
            let mut items = OperandList::new();
            for _ in 0..n {
                items.push(if u.ratio(1, 4)? {
                    Operand::Int(u.int_in_range(0..=100)?)
                } else {
                    reg(u, pool)?
                });
            }
            Operand::Args(Box::new(items))
        }
        OperandKind::Imm => Operand::Int(u.int_in_range(-4..=1024)?),
        OperandKind::Any => {
            let k = *u.choose(&[OperandKind::Src, OperandKind::Mem, OperandKind::Dst])?;
            return operand(u, pool, k, call, depth + 1);
        }
    })
}

fn addr(u: &mut Unstructured, pool: &mut NamePool) -> Result<Operand> {
    let base = if u.ratio(1, 8)? {
        None
    } else {
        Some(pool.name(u)?)
    };
    let offset = if u.arbitrary()? {
        0
    } else {
        u.int_in_range(-4096..=4096)?
    };
    Ok(Operand::Addr {
        base,
        offset,
        unified: u.ratio(1, 16)?,
    })
}

/// A module with one entry whose body holds generated instructions (and labels), with names
/// renumbered into print order so that it equals its printed-and-re-read form.
pub fn module(u: &mut Unstructured) -> Result<Module> {
    let mut m = Module::new(
        Version { major: 9, minor: 0 },
        vec![Target::Sm {
            arch: 90,
            suffix: crate::module::ArchSuffix::A,
        }],
        Some(64),
    );
    let mut body = Vec::new();
    let name;
    {
        let mut pool = NamePool::new(&mut m.names);
        name = pool.name(u)?;
        let n = u.int_in_range(1..=24usize)?;
        for _ in 0..n {
            if u.ratio(1, 10)? {
                body.push(Statement::Label(pool.name(u)?));
            } else {
                body.push(Statement::Inst(instruction(u, &mut pool, None)?));
            }
        }
    }
    m.items.push(Item::Function(Box::new(Function {
        linkage: Some(Linkage::Visible),
        kind: FunctionKind::Entry,
        attributes: Vec::new(),
        returns: None,
        name,
        params: Some(Vec::new()),
        directives: Vec::new(),
        body: Some(body),
    })));
    // Every generated name is in range by construction.
    let _ = renumber_names(&mut m);
    Ok(m)
}
