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

// `call` is threaded through for forms that treat call operands specially.
#[allow(clippy::only_used_in_recursion)]
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
        body: Some(
            crate::body::Body::try_from_statements(&body)
                .map_err(|_| arbitrary::Error::IncorrectFormat)?,
        ),
    })));
    // Every generated name is in range by construction.
    let _ = renumber_names(&mut m);
    Ok(m)
}

// ------------------------------------------------------------------ whole modules

/// Generators of every module-level construct (variables with initialisers, functions with
/// parameters and directives, nested blocks, labels, `.loc`/`.pragma`, branch and call target
/// lists, call prototypes, sections, files, aliases), each drawn only in the canonical form the
/// reader produces, so that `parse(print(m)) == m` holds once names are renumbered.
pub mod full {
    use super::{instruction, NamePool};
    use crate::module::{
        ArchSuffix, Attribute, Declarator, FileDecl, FuncDirective, Function, FunctionKind, Init,
        InlinedAt, Item, Linkage, Loc, Module, Param, Prototype, PtrAttr, Section, SectionEntry,
        Statement, Target, VarDecl, Version,
    };
    use crate::operand::{BinaryOp, Expr, UnaryOp};
    use crate::visit::renumber_names;
    use crate::vocab::{Space, Type, Vector};
    use arbitrary::{Result, Unstructured};
    use smallvec::SmallVec;

    /// Bounds on the size of generated modules.
    #[derive(Copy, Clone, Debug)]
    pub struct Config {
        /// Most module items.
        pub max_items: usize,
        /// Most statements per body (and per nested block).
        pub max_statements: usize,
        /// Deepest `{ }` nesting inside a body.
        pub max_block_depth: u32,
        /// Deepest constant expression.
        pub max_expr_depth: u32,
    }

    impl Default for Config {
        fn default() -> Self {
            Config {
                max_items: 8,
                max_statements: 16,
                max_block_depth: 3,
                max_expr_depth: 4,
            }
        }
    }

    /// A module using every kind of module-level construct, with names renumbered into print
    /// order.
    pub fn module(u: &mut Unstructured, cfg: &Config) -> Result<Module> {
        let version = Version {
            major: u.arbitrary()?,
            minor: u.arbitrary()?,
        };
        let mut target = vec![target(u)?];
        while target.len() < 3 && u.ratio(1, 3)? {
            target.push(target_entry(u)?);
        }
        let address_size = *u.choose(&[None, Some(32), Some(64)])?;
        let mut m = Module::new(version, target, address_size);
        let n = u.int_in_range(0..=cfg.max_items)?;
        {
            let mut g = Gen {
                pool: NamePool::new(&mut m.names),
                cfg,
            };
            for _ in 0..n {
                let item = g.item(u)?;
                m.items.push(item);
            }
        }
        // Every generated name is in range by construction.
        let _ = renumber_names(&mut m);
        Ok(m)
    }

    fn target(u: &mut Unstructured) -> Result<Target> {
        Ok(Target::Sm {
            arch: *u.choose(&[50, 70, 80, 86, 89, 90, 100, 120])?,
            suffix: *u.choose(&[ArchSuffix::None, ArchSuffix::A, ArchSuffix::F])?,
        })
    }

    fn target_entry(u: &mut Unstructured) -> Result<Target> {
        Ok(match u.int_in_range(0..=5u8)? {
            0 => Target::Compute(u.arbitrary()?),
            1 => Target::TexmodeUnified,
            2 => Target::TexmodeIndependent,
            3 => Target::Debug,
            4 => Target::MapF64ToF32,
            _ => Target::Sm {
                arch: u.arbitrary()?,
                suffix: u.arbitrary()?,
            },
        })
    }

    /// Characters of generated strings (`.pragma`, `.file`): anything printable but `"`, `\`.
    const STRING_CHARS: &[u8] = b"abcdefxyz0123456789 _-+./:;,=()[]{}<>!?#@$%^&*~";

    fn string(u: &mut Unstructured) -> Result<Box<str>> {
        let n = u.int_in_range(0..=12usize)?;
        let mut s = String::with_capacity(n);
        for _ in 0..n {
            s.push(*u.choose(STRING_CHARS)? as char);
        }
        Ok(s.into())
    }

    /// An `i64`, often one at the edge of the range (where readers overflow).
    fn edgy(u: &mut Unstructured) -> Result<i64> {
        Ok(if u.ratio(1, 4)? {
            *u.choose(&[i64::MIN, i64::MIN + 1, i64::MAX, -1, 0, 1, u32::MAX as i64])?
        } else {
            u.arbitrary()?
        })
    }

    fn pow2(u: &mut Unstructured) -> Result<u32> {
        Ok(1u32 << u.int_in_range(0..=12u32)?)
    }

    /// Types a declaration may use (any type prints and reads back).
    const DECL_TYPES: &[Type] = &[
        Type::Pred,
        Type::B8,
        Type::B16,
        Type::B32,
        Type::B64,
        Type::B128,
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::F16,
        Type::F16x2,
        Type::F32,
        Type::F64,
        Type::Bf16,
        Type::U16x2,
        Type::S16x2,
        Type::Texref,
        Type::Samplerref,
        Type::Surfref,
    ];

    struct Gen<'a, 'c> {
        pool: NamePool<'a>,
        cfg: &'c Config,
    }

    impl Gen<'_, '_> {
        fn name(&mut self, u: &mut Unstructured) -> Result<crate::names::Name> {
            self.pool.name(u)
        }

        fn item(&mut self, u: &mut Unstructured) -> Result<Item> {
            Ok(match u.int_in_range(0..=9u8)? {
                0..=3 => Item::Function(Box::new(self.function(u)?)),
                4..=5 => Item::Variable(Box::new(self.decl(u, true)?)),
                6 => Item::File(Box::new(FileDecl {
                    index: u.arbitrary()?,
                    path: string(u)?,
                    meta: u.arbitrary()?,
                })),
                7 => Item::Section(Box::new(self.section(u)?)),
                8 => Item::Pragma(string(u)?),
                _ => Item::Alias {
                    alias: self.name(u)?,
                    aliasee: self.name(u)?,
                },
            })
        }

        fn attributes(&mut self, u: &mut Unstructured) -> Result<Vec<Attribute>> {
            let mut v = Vec::new();
            if u.ratio(1, 6)? {
                for _ in 0..u.int_in_range(1..=2)? {
                    v.push(if u.arbitrary()? {
                        Attribute::Managed
                    } else {
                        Attribute::Unified(u.arbitrary()?, u.arbitrary()?)
                    });
                }
            }
            Ok(v)
        }

        fn dims(&mut self, u: &mut Unstructured) -> Result<SmallVec<[Option<u64>; 1]>> {
            let mut d = SmallVec::new();
            if u.ratio(1, 3)? {
                for _ in 0..u.int_in_range(1..=2)? {
                    d.push(if u.ratio(1, 4)? {
                        None
                    } else {
                        Some(u.int_in_range(0..=4096)?)
                    });
                }
            }
            Ok(d)
        }

        /// A variable declaration at module scope or in a body.
        fn decl(&mut self, u: &mut Unstructured, module: bool) -> Result<VarDecl> {
            let (linkage, space) = if module {
                (
                    *u.choose(&[
                        None,
                        Some(Linkage::Extern),
                        Some(Linkage::Visible),
                        Some(Linkage::Weak),
                        Some(Linkage::Common),
                    ])?,
                    *u.choose(&[
                        Space::Global,
                        Space::Const,
                        Space::Shared,
                        Space::Local,
                        Space::Tex,
                        Space::Param,
                    ])?,
                )
            } else {
                // `.reg` three times in ten, each other body space once.
                let space = if u.ratio(1, 5)? {
                    Space::Reg
                } else {
                    *u.choose(&Space::IN_BODY)?
                };
                (None, space)
            };
            let attributes = self.attributes(u)?;
            let align = if u.ratio(1, 4)? { Some(pow2(u)?) } else { None };
            let vector = if u.ratio(1, 6)? {
                Some(*u.choose(Vector::ALL)?)
            } else {
                None
            };
            let ty = *u.choose(DECL_TYPES)?;
            let mut names = Vec::new();
            for _ in 0..u.int_in_range(1..=3)? {
                let name = self.name(u)?;
                let range = if u.ratio(1, 5)? {
                    Some(u.arbitrary()?)
                } else {
                    None
                };
                let dims = self.dims(u)?;
                let init = if u.ratio(1, 3)? {
                    Some(self.init(u, ty, vector, 0)?)
                } else {
                    None
                };
                names.push(Declarator {
                    name,
                    range,
                    dims,
                    init,
                });
            }
            Ok(VarDecl {
                linkage,
                space,
                attributes,
                align,
                vector,
                ty,
                names: names.into(),
            })
        }

        fn init(
            &mut self,
            u: &mut Unstructured,
            ty: Type,
            vector: Option<Vector>,
            depth: u32,
        ) -> Result<Init> {
            if crate::opaque::is_opaque(ty) {
                return self.opaque_init(u, ty);
            }
            let packs = Init::packs(ty, vector);
            match u.int_in_range(0..=2u8)? {
                0 => Ok(Init::Expr(self.expr(u, 0)?)),
                1 if packs && depth == 0 => {
                    let w = (ty.bits() / 8) as usize;
                    let n = u.int_in_range(1..=24usize)?;
                    let mut b = Vec::with_capacity(n * w);
                    for _ in 0..n * w {
                        b.push(u.arbitrary()?);
                    }
                    Ok(Init::Packed(b.into_boxed_slice()))
                }
                _ if depth < 3 => {
                    let n = u.int_in_range(0..=5usize)?;
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        items.push(self.init(u, ty, vector, depth + 1)?);
                    }
                    // A non-empty list of plain integers that fit the type is read as packed:
                    // keep one element that is not.
                    let plain = |i: &Init| matches!(i, Init::Expr(Expr::Int(_) | Expr::Uint(_)));
                    if packs && depth == 0 && !items.is_empty() && items.iter().all(plain) {
                        items[0] = Init::Expr(Expr::Sym(self.name(u)?));
                    }
                    Ok(Init::List(items))
                }
                _ => Ok(Init::Expr(self.expr(u, 0)?)),
            }
        }

        /// The member list of an opaque variable of type `ty`, as the reader gives it: some of
        /// the type's members ([`crate::opaque::OpaqueMember::TABLE`]), each once, in any
        /// order, with a value of its kind.
        fn opaque_init(&mut self, u: &mut Unstructured, ty: Type) -> Result<Init> {
            use crate::opaque::{
                AddressMode, FilterMode, OpaqueField, OpaqueMember, OpaqueValue, ValueKind,
            };
            let mut members: Vec<OpaqueMember> = OpaqueMember::TABLE
                .iter()
                .map(|r| r.0)
                .filter(|m| m.belongs_to(ty))
                .collect();
            let mut fields = Vec::new();
            while !members.is_empty() && (fields.is_empty() || u.ratio(2, 3)?) {
                let member = members.remove(u.choose_index(members.len())?);
                let value = match member.kind() {
                    ValueKind::Count => OpaqueValue::Int(if u.arbitrary()? {
                        u.int_in_range(0..=4096)?
                    } else {
                        u.arbitrary()?
                    }),
                    ValueKind::Flag => OpaqueValue::Int(u.int_in_range(0..=1)?),
                    ValueKind::Filter => OpaqueValue::Filter(u.choose(&FilterMode::ALL)?.0),
                    ValueKind::Address => OpaqueValue::Address(u.choose(&AddressMode::ALL)?.0),
                };
                fields.push(OpaqueField { member, value });
            }
            Ok(Init::Opaque(fields))
        }

        /// A constant expression in the reader's canonical shape: no parentheses dropped, no
        /// negated literal (the reader folds `-1` into the literal), binary operators nested
        /// as precedence climbing builds them.
        fn expr(&mut self, u: &mut Unstructured, depth: u32) -> Result<Expr> {
            if depth >= self.cfg.max_expr_depth {
                return self.atom(u);
            }
            Ok(match u.int_in_range(0..=9u8)? {
                0..=4 => self.atom(u)?,
                5 | 6 => {
                    let op = *u.choose(&[
                        BinaryOp::Mul,
                        BinaryOp::Div,
                        BinaryOp::Rem,
                        BinaryOp::Add,
                        BinaryOp::Sub,
                        BinaryOp::Shl,
                        BinaryOp::Shr,
                        BinaryOp::And,
                        BinaryOp::Xor,
                        BinaryOp::Or,
                    ])?;
                    let mut a = self.expr(u, depth + 1)?;
                    let mut b = self.expr(u, depth + 1)?;
                    if matches!(&a, Expr::Binary(o, ..) if o.precedence() < op.precedence()) {
                        a = Expr::Paren(Box::new(a));
                    }
                    if matches!(&b, Expr::Binary(o, ..) if o.precedence() <= op.precedence()) {
                        b = Expr::Paren(Box::new(b));
                    }
                    Expr::Binary(op, Box::new(a), Box::new(b))
                }
                7 => Expr::Paren(Box::new(self.expr(u, depth + 1)?)),
                _ => {
                    let op = *u.choose(&[
                        UnaryOp::Neg,
                        UnaryOp::Not,
                        UnaryOp::LogicalNot,
                        UnaryOp::Plus,
                    ])?;
                    let mut e = self.expr(u, depth + 1)?;
                    if matches!(e, Expr::Binary(..)) {
                        e = Expr::Paren(Box::new(e));
                    }
                    // `-` before a digit is part of the literal.
                    if op == UnaryOp::Neg && starts_with_digit(&e) {
                        e = Expr::Paren(Box::new(e));
                    }
                    Expr::Unary(op, Box::new(e))
                }
            })
        }

        fn atom(&mut self, u: &mut Unstructured) -> Result<Expr> {
            Ok(match u.int_in_range(0..=8u8)? {
                0 | 1 => Expr::Int(edgy(u)?),
                2 => Expr::Int(u.int_in_range(-16..=300)?),
                3 => Expr::Uint(u.arbitrary()?),
                4 => Expr::F32(u.arbitrary()?),
                5 => Expr::F64(u.arbitrary()?),
                6 => {
                    let v: f64 = u.arbitrary()?;
                    // NaN has no decimal spelling (it prints as `0d...`).
                    Expr::Dec(if v.is_nan() { 1.5f64 } else { v }.to_bits())
                }
                7 => Expr::Sym(self.name(u)?),
                _ => Expr::Generic(self.name(u)?),
            })
        }

        fn section(&mut self, u: &mut Unstructured) -> Result<Section> {
            let base = *u.choose(&[
                ".debug_info",
                ".debug_abbrev",
                ".debug_str",
                ".debug_loc",
                ".nv_debug_info_ptx",
            ])?;
            let name = if u.ratio(1, 4)? {
                format!("{base}{}", u.int_in_range(0..=99u8)?)
            } else {
                base.to_string()
            };
            // In the reader's form: one-byte lines gathered into columns.
            let mut entries = crate::module::SectionBuilder::new();
            for _ in 0..u.int_in_range(0..=6)? {
                entries.push(match u.int_in_range(0..=2u8)? {
                    0 => SectionEntry::Label(self.name(u)?),
                    1 => {
                        let mut b = Vec::new();
                        for _ in 0..u.int_in_range(1..=20)? {
                            b.push(u.arbitrary()?);
                        }
                        SectionEntry::Bytes(crate::module::ByteLine::new(&b))
                    }
                    _ => {
                        let ty = *u.choose(&[Type::B8, Type::B16, Type::B32, Type::B64])?;
                        let mut values = Vec::new();
                        for _ in 0..u.int_in_range(1..=4)? {
                            values.push(self.expr(u, 1)?);
                        }
                        // `.b8` of plain bytes is read as `Bytes`.
                        let byte = |e: &Expr| matches!(e, Expr::Int(v) if (0..=255).contains(v));
                        if ty == Type::B8 && values.iter().all(byte) {
                            values.push(Expr::Sym(self.name(u)?));
                        }
                        SectionEntry::data(ty, values)
                    }
                });
            }
            Ok(Section {
                name: name.into(),
                entries: entries.finish(),
            })
        }

        fn param(&mut self, u: &mut Unstructured) -> Result<Param> {
            let space = if u.ratio(1, 5)? {
                Space::Reg
            } else {
                Space::Param
            };
            let ptr = if u.ratio(1, 5)? {
                Some(PtrAttr {
                    space: if u.arbitrary()? {
                        Some(*u.choose(&[
                            Space::Global,
                            Space::Shared,
                            Space::Const,
                            Space::Local,
                            Space::SharedCta,
                        ])?)
                    } else {
                        None
                    },
                    align: if u.arbitrary()? { Some(pow2(u)?) } else { None },
                })
            } else {
                None
            };
            Ok(Param {
                space,
                align: if u.ratio(1, 4)? { Some(pow2(u)?) } else { None },
                vector: if u.ratio(1, 8)? {
                    Some(*u.choose(&[Vector::V2, Vector::V4])?)
                } else {
                    None
                },
                ty: *u.choose(DECL_TYPES)?,
                ptr,
                name: self.name(u)?,
                dims: self.dims(u)?,
            })
        }

        fn params(&mut self, u: &mut Unstructured) -> Result<Vec<Param>> {
            let mut v = Vec::new();
            for _ in 0..u.int_in_range(0..=4)? {
                v.push(self.param(u)?);
            }
            Ok(v)
        }

        fn directive(&mut self, u: &mut Unstructured) -> Result<FuncDirective> {
            let dims = |u: &mut Unstructured| -> Result<SmallVec<[u32; 3]>> {
                let mut v = SmallVec::new();
                for _ in 0..u.int_in_range(1..=3)? {
                    v.push(u.int_in_range(0..=1024)?);
                }
                Ok(v)
            };
            Ok(match u.int_in_range(0..=12u8)? {
                0 => FuncDirective::MaxNtid(dims(u)?),
                1 => FuncDirective::ReqNtid(dims(u)?),
                2 => FuncDirective::MinNctaPerSm(u.arbitrary()?),
                3 => FuncDirective::MaxNctaPerSm(u.arbitrary()?),
                4 => FuncDirective::MaxNreg(u.arbitrary()?),
                5 => FuncDirective::ReqNctaPerCluster(dims(u)?),
                6 => FuncDirective::ExplicitCluster,
                7 => FuncDirective::MaxClusterRank(u.arbitrary()?),
                8 => FuncDirective::BlocksAreClusters,
                9 => FuncDirective::NoReturn,
                10 => FuncDirective::AbiPreserve(u.arbitrary()?),
                11 => FuncDirective::AbiPreserveControl(u.arbitrary()?),
                _ => FuncDirective::Pragma(string(u)?),
            })
        }

        fn function(&mut self, u: &mut Unstructured) -> Result<Function> {
            let kind = if u.arbitrary()? {
                FunctionKind::Entry
            } else {
                FunctionKind::Func
            };
            let linkage = *u.choose(&[
                None,
                Some(Linkage::Extern),
                Some(Linkage::Visible),
                Some(Linkage::Weak),
            ])?;
            let attributes = self.attributes(u)?;
            let returns = if kind == FunctionKind::Func && u.arbitrary()? {
                Some(self.params(u)?)
            } else {
                None
            };
            let name = self.name(u)?;
            let params = if u.ratio(7, 8)? {
                Some(self.params(u)?)
            } else {
                None
            };
            let mut directives = Vec::new();
            while directives.len() < 3 && u.ratio(1, 3)? {
                directives.push(self.directive(u)?);
            }
            let body = if u.ratio(1, 6)? {
                None
            } else {
                let stmts = self.statements(u, 0)?;
                Some(
                    crate::body::Body::try_from_statements(&stmts)
                        .map_err(|_| arbitrary::Error::IncorrectFormat)?,
                )
            };
            Ok(Function {
                linkage,
                kind,
                attributes,
                returns,
                name,
                params,
                directives,
                body,
            })
        }

        fn statements(&mut self, u: &mut Unstructured, depth: u32) -> Result<Vec<Statement>> {
            let n = u.int_in_range(0..=self.cfg.max_statements)?;
            let mut body = Vec::with_capacity(n);
            for _ in 0..n {
                body.push(self.statement(u, depth)?);
            }
            Ok(body)
        }

        fn names(&mut self, u: &mut Unstructured) -> Result<Vec<crate::names::Name>> {
            let mut v = Vec::new();
            for _ in 0..u.int_in_range(1..=4)? {
                v.push(self.name(u)?);
            }
            Ok(v)
        }

        fn statement(&mut self, u: &mut Unstructured, depth: u32) -> Result<Statement> {
            Ok(match u.int_in_range(0..=19u8)? {
                0..=9 => Statement::Inst(instruction(u, &mut self.pool, None)?),
                10 | 11 => Statement::Label(self.name(u)?),
                12 | 13 => Statement::Decl(Box::new(self.decl(u, false)?)),
                14 => Statement::Loc(Loc {
                    file: u.arbitrary()?,
                    line: u.arbitrary()?,
                    col: u.arbitrary()?,
                    inlined: if u.arbitrary()? {
                        Some(Box::new(InlinedAt {
                            function_name: self.name(u)?,
                            offset: if u.arbitrary()? { 0 } else { edgy(u)? },
                            file: u.arbitrary()?,
                            line: u.arbitrary()?,
                            col: u.arbitrary()?,
                        }))
                    } else {
                        None
                    },
                }),
                15 => Statement::Pragma(string(u)?),
                16 if depth < self.cfg.max_block_depth => {
                    Statement::Block(self.statements(u, depth + 1)?)
                }
                16 | 17 => {
                    let label = self.name(u)?;
                    let targets = self.names(u)?;
                    if u.arbitrary()? {
                        Statement::BranchTargets { label, targets }
                    } else {
                        Statement::CallTargets { label, targets }
                    }
                }
                18 => {
                    let label = self.name(u)?;
                    let returns = if u.arbitrary()? {
                        Some(self.params(u)?)
                    } else {
                        None
                    };
                    let params = if u.ratio(3, 4)? {
                        Some(self.params(u)?)
                    } else {
                        None
                    };
                    let mut directives = Vec::new();
                    while directives.len() < 2 && u.ratio(1, 4)? {
                        let n = u.int_in_range(0..=64)?;
                        directives.push(match u.int_in_range(0..=2u8)? {
                            0 => FuncDirective::NoReturn,
                            1 => FuncDirective::AbiPreserve(n),
                            _ => FuncDirective::AbiPreserveControl(n),
                        });
                    }
                    Statement::CallPrototype {
                        label,
                        proto: Box::new(Prototype {
                            returns,
                            params,
                            directives,
                        }),
                    }
                }
                _ => Statement::Inst(instruction(u, &mut self.pool, None)?),
            })
        }
    }

    /// Whether `e` prints starting with a digit.
    fn starts_with_digit(e: &Expr) -> bool {
        match e {
            Expr::Int(v) => *v >= 0,
            Expr::Uint(_) | Expr::F32(_) | Expr::F64(_) => true,
            Expr::Dec(b) => f64::from_bits(*b).is_sign_positive(),
            Expr::Binary(_, a, _) => starts_with_digit(a),
            _ => false,
        }
    }
}

/// The name walks of `visit` on generated modules (here, so that `visit` does not import the
/// generator that imports it).
#[cfg(test)]
mod tests {
    use crate::visit::{compact_names, for_each_name, for_each_name_mut, tree_names};
    use arbitrary::Unstructured;

    /// Compact bodies are renamed in place, without their statement tree: the names must come
    /// in the order the tree walk (the printer's) gives, and renaming must change only names.
    #[test]
    fn compact_bodies_are_walked_in_print_order() {
        let mut bodies = 0;
        for seed in 0..300u32 {
            let bytes: Vec<u8> = (0..4096u32)
                .map(|k| {
                    (k.wrapping_mul(2654435761)
                        .wrapping_add(seed.wrapping_mul(40503))
                        >> 13) as u8
                })
                .collect();
            let Ok(mut m) = super::module(&mut Unstructured::new(&bytes)) else {
                continue;
            };
            // Each compact body's entry-by-entry walk (what `for_each_name` makes) against
            // the walk of its statement tree.
            for b in m.functions().filter_map(|f| f.body.as_ref()) {
                let (mut compact, mut tree) = (Vec::new(), Vec::new());
                if compact_names(b, &mut |n: &crate::Name| compact.push(*n)) {
                    tree_names(b.statements(), &mut |n: &crate::Name| tree.push(*n));
                    assert_eq!(compact, tree, "seed {seed}");
                }
            }
            let mut tree_order = Vec::new();
            for_each_name(&m, &mut |n| tree_order.push(n));
            bodies += m
                .functions()
                .filter(|f| f.body.as_ref().is_some_and(|b| b.is_compact()))
                .count();
            let before = m.clone();
            let mut mut_order = Vec::new();
            for_each_name_mut(&mut m, &mut |n| mut_order.push(*n));
            assert_eq!(tree_order, mut_order, "seed {seed}");
            assert!(m == before, "seed {seed}: walking changed the module");
            // A renaming and its inverse give the module back.
            let len = m.names.len();
            let flip = |n: &mut crate::Name| *n = crate::Name::from_index(len - 1 - n.index());
            for_each_name_mut(&mut m, &mut |n| flip(n));
            if !tree_order.is_empty() {
                let mut flipped = Vec::new();
                for_each_name(&m, &mut |n| flipped.push(n));
                let want: Vec<_> = tree_order
                    .iter()
                    .map(|n| crate::Name::from_index(len - 1 - n.index()))
                    .collect();
                assert_eq!(flipped, want, "seed {seed}");
            }
            for_each_name_mut(&mut m, &mut |n| flip(n));
            assert!(
                m == before,
                "seed {seed}: renaming twice is not the identity"
            );
        }
        assert!(bodies > 100, "only {bodies} compact bodies generated");
    }
}
