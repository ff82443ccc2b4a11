//! What every part of the lowering shares: the module being built ([`B`]), the one checked
//! way to append an instruction ([`B::emit`]), the instruction being lowered ([`Parts`]), and
//! the spelling of the model's types and qualifiers as IR modifiers.

use crate::model::*;
use ptx_ir_core::{
    Cmp, Declarator, Flag, Guard, Instruction, Modifier, Module, Name, Opcode, Operand, Param,
    Selector, Space, SpecialReg, Statement, Type, VarDecl, Vector,
};

/// The module being built and the body of the function being lowered.
pub(super) struct B {
    pub(super) m: Module,
    pub(super) body: Vec<Statement>,
    pub(super) labels: u32,
}

/// An instruction being lowered: its guard, the operands before its sources (the destination,
/// or what a family puts there instead: an address, a vector) and its sources, which a family's
/// lowering may rewrite; `depth` is the nesting depth of its region (its membermask is
/// `%m<depth>`).
pub(super) struct Parts {
    pub(super) guard: Option<Guard>,
    pub(super) ops: Vec<Operand>,
    pub(super) srcs: Vec<Operand>,
    pub(super) depth: u32,
}

pub(super) fn it_type(t: It) -> Type {
    match (t.bits, t.signed) {
        (16, false) => Type::U16,
        (16, true) => Type::S16,
        (32, false) => Type::U32,
        (32, true) => Type::S32,
        (64, false) => Type::U64,
        _ => Type::S64,
    }
}

pub(super) fn int_type(bits: u8, signed: bool) -> Type {
    match (bits, signed) {
        (8, false) => Type::U8,
        (8, true) => Type::S8,
        (b, s) => it_type(It { bits: b, signed: s }),
    }
}

pub(super) fn bits_type(bits: u32) -> Type {
    match bits {
        16 => Type::B16,
        32 => Type::B32,
        _ => Type::B64,
    }
}

pub(super) fn class_type(c: Class) -> Type {
    match c {
        Class::P => Type::Pred,
        Class::H => Type::B16,
        Class::R => Type::B32,
        Class::D => Type::B64,
        Class::F => Type::F32,
        Class::Fd => Type::F64,
    }
}

pub(super) fn ft_type(f: Ft) -> Type {
    match f {
        Ft::F32 => Type::F32,
        Ft::F64 => Type::F64,
    }
}

pub(super) fn t(x: Type) -> Modifier {
    Modifier::Type(x)
}

/// The flags of a float `min`/`max` (before its type), shared by the single and half formats.
pub(super) fn minmax_mods(ftz: bool, nan: bool, xorsign: bool) -> Vec<Modifier> {
    let mut m = vec![];
    if ftz {
        m.push(f(Flag::Ftz));
    }
    if nan {
        m.push(f(Flag::NaN));
    }
    if xorsign {
        m.push(f(Flag::XorSign));
        m.push(f(Flag::Abs));
    }
    m
}

pub(super) fn f(x: Flag) -> Modifier {
    Modifier::Flag(x)
}

/// An integer immediate as the reader would produce it.
pub(super) fn int_imm(v: i128) -> Operand {
    if let Ok(x) = i64::try_from(v) {
        Operand::Int(x)
    } else {
        Operand::Uint(v as u64)
    }
}

impl B {
    pub(super) fn name(&mut self, s: &str) -> Name {
        self.m.names.intern(s)
    }

    pub(super) fn r(&mut self, s: &str) -> Operand {
        Operand::reg(self.name(s))
    }

    pub(super) fn reg(&mut self, r: Reg) -> Operand {
        let s = format!("{}{}", r.class.prefix(), r.idx);
        self.r(&s)
    }

    /// Appends `op` with `mods` and `ops` under `guard`, checked against the instruction table
    /// as [`ptx_ir_core::build::FunctionBuilder::inst`] checks it.
    ///
    /// # Panics
    ///
    /// If no form of `op` takes the qualifiers and operands: the lowering has a bug, which the
    /// message names with the table's diagnosis.
    pub(super) fn emit(
        &mut self,
        guard: Option<Guard>,
        op: Opcode,
        mods: Vec<Modifier>,
        ops: Vec<Operand>,
    ) {
        let mut i = Instruction::new(op, mods, ops);
        if let Err(e) = ptx_ir_core::check::check(i.opcode, &i.mods, &i.operands) {
            panic!("the lowering spells an instruction the table refuses: {e}");
        }
        i.guard = guard;
        self.body.push(Statement::Inst(i));
    }

    /// [`B::emit`] without a guard.
    pub(super) fn e(&mut self, op: Opcode, mods: Vec<Modifier>, ops: Vec<Operand>) {
        self.emit(None, op, mods, ops);
    }

    pub(super) fn label(&mut self, kind: &str) -> (Name, String) {
        self.labels += 1;
        let s = format!("$L_{kind}_{}", self.labels);
        (self.name(&s), s)
    }

    pub(super) fn decl(&mut self, ty: Type, prefix: &str, n: u32) {
        let name = self.name(prefix);
        self.body.push(Statement::Decl(Box::new(VarDecl {
            linkage: None,
            space: Space::Reg,
            attributes: Vec::new(),
            align: None,
            vector: None,
            ty,
            names: vec![Declarator {
                name,
                range: Some(n),
                dims: Default::default(),
                init: None,
            }]
            .into(),
        })));
    }

    /// A source operand of an instruction whose operand has `class` and, for integer
    /// immediates, type `ty` (signed immediates are written sign-extended).
    pub(super) fn src(&mut self, s: Src, class: Class, signed: bool) -> Operand {
        match s {
            Src::Reg(r) => self.reg(r),
            Src::Lane => Operand::Special {
                reg: SpecialReg::Laneid,
                sel: Selector::NONE,
            },
            Src::Imm(v) => match class {
                Class::F => Operand::F32(v as u32),
                Class::Fd => Operand::F64(v),
                c => {
                    let bits = c.bits();
                    let v = v & mask(bits);
                    if signed {
                        let sh = 128 - bits;
                        int_imm(((v as i128) << sh) >> sh)
                    } else {
                        int_imm(v as i128)
                    }
                }
            },
        }
    }
}

pub(super) fn special(r: SpecialReg, x: bool) -> Operand {
    Operand::Special {
        reg: r,
        sel: if x {
            Selector::component(0).unwrap_or_default()
        } else {
            Selector::NONE
        },
    }
}

pub(super) fn mask_reg(b: &mut B, depth: u32) -> Operand {
    b.r(&format!("%m{depth}"))
}

/// `mov.u32 %t7, %laneid` (special registers are read with `mov`); returns `%t7`.
pub(super) fn lane_to_t7(b: &mut B) -> Operand {
    let t7 = b.r("%t7");
    b.e(
        Opcode::Mov,
        vec![t(Type::U32)],
        vec![t7.clone(), special(SpecialReg::Laneid, false)],
    );
    t7
}

/// `vec` consecutive registers of `class` from index `first` (cyclically): one register, or a
/// vector operand.
pub(super) fn vec_regs(b: &mut B, class: Class, first: u8, vec: u8) -> Operand {
    let regs: Vec<Operand> = (0..vec)
        .map(|k| {
            b.reg(Reg {
                class,
                idx: (first + k) % class.count(),
            })
        })
        .collect();
    if vec == 1 {
        regs[0].clone()
    } else {
        Operand::vector(regs)
    }
}

pub(super) fn cmp_mod(c: Cmp, lohi: bool) -> Modifier {
    match (c, lohi) {
        (Cmp::Lt, true) => f(Flag::Lo),
        (Cmp::Gt, true) => f(Flag::Hi),
        _ => Modifier::Cmp(c),
    }
}

pub(super) fn cmp_type(t: CmpT) -> Type {
    match t {
        CmpT::Int(x) => it_type(x),
        CmpT::Bits(b) => bits_type(b as u32),
        CmpT::F(f) => ft_type(f),
    }
}

/// The `.param` type of a value of class `c`.
pub(super) fn param_type(c: Class) -> Type {
    match c {
        Class::D => Type::B64,
        Class::F => Type::F32,
        _ => Type::B32,
    }
}

pub(super) fn param_decl(b: &mut B, name: &str, c: Class) -> Param {
    Param {
        space: Space::Param,
        align: None,
        vector: None,
        ty: param_type(c),
        ptr: None,
        name: b.name(name),
        dims: Default::default(),
    }
}

pub(super) fn mem_mods(space: Option<Space>, vec: u8, ty: Type) -> Vec<Modifier> {
    let mut m: Vec<Modifier> = space.map(Modifier::Space).into_iter().collect();
    match vec {
        2 => m.push(Modifier::Vector(Vector::V2)),
        4 => m.push(Modifier::Vector(Vector::V4)),
        _ => {}
    }
    m.push(t(ty));
    m
}

/// The type of a half-precision value: the format, or its packed pair.
pub(super) fn half_type(hf: Type, x2: bool) -> Type {
    match (hf, x2) {
        (Type::F16, true) => Type::F16x2,
        (Type::Bf16, true) => Type::Bf16x2,
        (t, _) => t,
    }
}

pub(super) fn cvt_type(t: CvtT) -> Type {
    match t {
        CvtT::Int(b, s) => int_type(b, s),
        CvtT::F(f) => ft_type(f),
    }
}
