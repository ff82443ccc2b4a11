//! What every part of the lowering shares: the function being built ([`B`], around the IR
//! builder's [`FunctionBuilder`]), the one checked way to append an instruction ([`B::emit`]),
//! the instruction being lowered ([`Parts`]), and the model's types as IR types.

use crate::model::*;
use ptx_ir_core::build::{BuildError, FunctionBuilder, Label};
use ptx_ir_core::{
    Cmp, Flag, Guard, Instruction, Modifier, Name, Opcode, Operand, Selector, Space, SpecialReg,
    Type, Vector,
};

/// The function being lowered, built through the IR builder, and the module's label counter
/// (labels are numbered across the module: `$L_else_7`).
pub(super) struct B<'a, 'm> {
    pub(super) f: &'a mut FunctionBuilder<'m>,
    pub(super) labels: &'a mut u32,
}

/// The value of a builder call the lowering makes.
///
/// # Panics
///
/// If the builder refuses it: the lowering has a bug, which the message names with the
/// builder's diagnosis.
pub(super) fn built<T>(r: Result<T, BuildError>) -> T {
    r.unwrap_or_else(|e| panic!("the lowering builds what the builder refuses: {e}"))
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

impl B<'_, '_> {
    pub(super) fn name(&mut self, s: &str) -> Name {
        self.f.intern(s)
    }

    pub(super) fn r(&mut self, s: &str) -> Operand {
        Operand::reg(self.name(s))
    }

    pub(super) fn reg(&mut self, r: Reg) -> Operand {
        let s = format!("{}{}", r.class.prefix(), r.idx);
        self.r(&s)
    }

    /// Appends `op` with `mods` and `ops` under `guard` through the builder, which checks it
    /// against the instruction table and checks that every name it uses is declared.
    ///
    /// # Panics
    ///
    /// If the builder refuses the instruction: the lowering has a bug, which the message names
    /// with the builder's diagnosis.
    pub(super) fn emit(
        &mut self,
        guard: Option<Guard>,
        op: Opcode,
        mods: Vec<Modifier>,
        ops: Vec<Operand>,
    ) {
        let mut i = Instruction::new(op, mods, ops);
        i.guard = guard;
        if let Err(e) = self.f.push(i) {
            panic!("the lowering spells an instruction the builder refuses: {e}");
        }
    }

    /// [`B::emit`] without a guard.
    pub(super) fn e(&mut self, op: Opcode, mods: Vec<Modifier>, ops: Vec<Operand>) {
        self.emit(None, op, mods, ops);
    }

    /// The next label name of `kind` (`$L_else_7`), for a label or a target list.
    pub(super) fn label_name(&mut self, kind: &str) -> String {
        *self.labels += 1;
        format!("$L_{kind}_{}", self.labels)
    }

    /// A fresh label of `kind`, placed later with [`B::place`].
    pub(super) fn label(&mut self, kind: &str) -> Name {
        let s = self.label_name(kind);
        built(self.f.label(&s)).0
    }

    /// Places `label` here.
    pub(super) fn place(&mut self, label: Name) {
        built(self.f.place(Label(label)));
    }

    /// Declares the register range `.reg .<ty> <prefix><n>;` here.
    pub(super) fn decl(&mut self, ty: Type, prefix: &str, n: u32) {
        built(self.f.reg_range(ty, prefix, n));
    }

    /// Runs `body` in a nested scope `{ ... }`.
    pub(super) fn block(&mut self, body: impl FnOnce(&mut B)) {
        let labels = &mut *self.labels;
        built(self.f.block(|f| {
            body(&mut B { f, labels });
            Ok(())
        }));
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
        CmpT::F(f) => f,
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
        CvtT::F(f) => f,
    }
}
