//! [`K`]: a protocol kernel under construction, built through the IR builder
//! ([`ptx_ir_core::build`]) — the common prologue (buffer addresses, thread and CTA indices),
//! the scratch registers, numbered labels, and the epilogues that store per-thread result slots
//! and dump shared memory to the output buffer. [`kernel`] builds the module around a family's
//! body (for `sm_90a` or `sm_100a`, with a cluster shape and tensor-map parameters as its
//! [`Head`] asks) and prints it.
//!
//! Every instruction goes through the builder, which checks it against the instruction table
//! and checks that every name it uses is declared: a family that builds something the builder
//! refuses has a bug, and [`kernel`] panics with the builder's diagnosis.

use ptx_ir_core::build::{
    BuildError, FunctionBuilder, Label, ModuleBuilder, Reg, RegRange, Sreg, Var,
};
use ptx_ir_core::{
    Cmp, Declarator, Flag, FuncDirective, Modifier, Operand, Param, Scope, Sem, Shape, Space,
    SpecialReg, Target, Type, VarDecl, Vector, Version,
};

/// What a kernel is built for, besides its body: the target, a cluster shape and the
/// tensor-map parameters.
#[derive(Clone, Debug)]
pub struct Head {
    target: Target,
    cluster: Option<u32>,
    maps: u32,
}

impl Head {
    /// A kernel for `sm_90a` without clusters or tensor maps.
    pub fn hopper() -> Head {
        Head {
            target: Target::sm_a(90),
            cluster: None,
            maps: 0,
        }
    }

    /// A kernel for `sm_100a`.
    pub fn blackwell() -> Head {
        Head {
            target: Target::sm_a(100),
            ..Head::hopper()
        }
    }

    /// Launched in clusters of `n` CTAs (`.reqnctapercluster n, 1, 1`).
    pub fn cluster(self, n: u32) -> Head {
        Head {
            cluster: Some(n),
            ..self
        }
    }

    /// With `n` tensor-map parameters `.param .align 64 .b8 tm<i>[128]` after the buffers.
    pub fn maps(self, n: u32) -> Head {
        Head { maps: n, ..self }
    }
}

/// Builds the kernel `k(.param .u64 pin, .param .u64 pout{, tensor maps})` of `head` and
/// returns its module as PTX text. The body declares what it needs (shared arrays, named
/// registers) first, then calls [`K::prologue`] and builds its instructions; [`kernel`] adds
/// the final `ret`.
///
/// # Panics
///
/// If the builder refuses something the body builds, or the body never called
/// [`K::prologue`]: the family has a bug, which the message names.
pub fn kernel(head: Head, body: impl FnOnce(&mut K<'_>) -> Result<(), BuildError>) -> String {
    let mut mb = ModuleBuilder::new(Version::new(8, 7), head.target);
    let built = (|| {
        let mut f = mb.entry("k")?;
        if let Some(n) = head.cluster {
            f.directive(FuncDirective::ReqNctaPerCluster(
                [n, 1, 1].into_iter().collect(),
            ));
        }
        let pin = f.param(Type::U64, "pin")?;
        let pout = f.param(Type::U64, "pout")?;
        let mut maps = Vec::new();
        for i in 0..head.maps {
            let name = f.intern(&format!("tm{i}"));
            maps.push(f.param_decl(Param {
                space: Space::Param,
                align: Some(64),
                vector: None,
                ty: Type::B8,
                ptr: None,
                name,
                dims: std::iter::once(Some(128)).collect(),
            })?);
        }
        let mut k = K::new(f, [pin, pout], maps)?;
        body(&mut k)?;
        if !k.begun {
            return Err(BuildError::Misuse {
                reason: "the kernel's body never built the prologue",
            });
        }
        k.f.ret((), ())?;
        k.f.finish()?;
        Ok(())
    })();
    if let Err(e) = built {
        panic!("a protocol kernel builds what the builder refuses: {e}");
    }
    ptx_ir_text::print(&mb.finish())
}

/// A kernel under construction: its [`FunctionBuilder`] and the registers every kernel has.
///
/// Registers: the scratch ranges `%p<16>`, `%h<16>`, `%r<128>`, `%rd<64>` ([`K::p`],
/// [`K::h`], [`K::r`], [`K::rd`]), `%rin`/`%rout` (the buffers' global addresses), `%tx`,
/// `%cta` (`%ctaid.x`), `%nt` (`%ntid.x`) and `%gtid` (the global thread index).
pub struct K<'m> {
    /// The kernel's builder: every instruction goes through its methods.
    pub f: FunctionBuilder<'m>,
    /// `%tid.x`.
    pub tx: Reg,
    /// `%ctaid.x`.
    pub cta: Reg,
    /// `%ntid.x`.
    pub nt: Reg,
    /// The global thread index `%cta * %nt + %tx`.
    pub gtid: Reg,
    /// The input buffer's global address.
    pub rin: Reg,
    /// The output buffer's global address.
    pub rout: Reg,
    /// The tensor-map parameters, in order.
    pub maps: Vec<Var>,
    params: [Var; 2],
    p: Vec<Reg>,
    h: Vec<Reg>,
    r: Vec<Reg>,
    rd: Vec<Reg>,
    label: u32,
    begun: bool,
}

/// The registers of `range`, in order.
fn members(f: &mut FunctionBuilder, range: RegRange) -> Result<Vec<Reg>, BuildError> {
    (0..range.count).map(|i| f.reg_in(range, i)).collect()
}

impl<'m> K<'m> {
    /// Declares the registers every kernel has.
    fn new(
        mut f: FunctionBuilder<'m>,
        params: [Var; 2],
        maps: Vec<Var>,
    ) -> Result<K<'m>, BuildError> {
        let p = f.reg_range(Type::Pred, "%p", 16)?;
        let h = f.reg_range(Type::B16, "%h", 16)?;
        let r = f.reg_range(Type::B32, "%r", 128)?;
        let rd = f.reg_range(Type::B64, "%rd", 64)?;
        let (p, h, r, rd) = (
            members(&mut f, p)?,
            members(&mut f, h)?,
            members(&mut f, r)?,
            members(&mut f, rd)?,
        );
        let [tx, cta, nt, gtid] = reg_list(&mut f, Type::B32, ["%tx", "%cta", "%nt", "%gtid"])?;
        let [rin, rout] = reg_list(&mut f, Type::B64, ["%rin", "%rout"])?;
        Ok(K {
            f,
            tx,
            cta,
            nt,
            gtid,
            rin,
            rout,
            maps,
            params,
            p,
            h,
            r,
            rd,
            label: 0,
            begun: false,
        })
    }

    /// `%p<i>`.
    pub fn p(&self, i: u32) -> Reg {
        self.p[i as usize]
    }

    /// `%h<i>`.
    pub fn h(&self, i: u32) -> Reg {
        self.h[i as usize]
    }

    /// `%r<i>`.
    pub fn r(&self, i: u32) -> Reg {
        self.r[i as usize]
    }

    /// `%rd<i>`.
    pub fn rd(&self, i: u32) -> Reg {
        self.rd[i as usize]
    }

    fn declaring(&self) -> Result<(), BuildError> {
        if self.begun {
            return Err(BuildError::Misuse {
                reason: "a kernel's declarations come before its prologue",
            });
        }
        Ok(())
    }

    /// Declares a shared variable `.shared .align <align> .<ty> name`, an array of `len`
    /// elements if `len` is given.
    pub fn shared(
        &mut self,
        name: &str,
        align: u32,
        ty: Type,
        len: Option<u32>,
    ) -> Result<Var, BuildError> {
        self.declaring()?;
        let n = self.f.intern(name);
        self.f.declare(VarDecl {
            linkage: None,
            space: Space::Shared,
            attributes: Vec::new(),
            align: Some(align),
            vector: None,
            ty,
            names: std::iter::once(Declarator {
                name: n,
                range: None,
                dims: len.map(|l| Some(u64::from(l))).into_iter().collect(),
                init: None,
            })
            .collect(),
        })?;
        Ok(Var {
            name: n,
            space: Space::Shared,
            ty,
        })
    }

    /// Declares named registers of one type in one declaration (`.reg .b32 a, b;`).
    pub fn regs<const N: usize>(
        &mut self,
        ty: Type,
        names: [&str; N],
    ) -> Result<[Reg; N], BuildError> {
        self.declaring()?;
        reg_list(&mut self.f, ty, names)
    }

    /// Declares the register range `.reg .<ty> prefix<count>` and returns its registers.
    pub fn range(&mut self, ty: Type, prefix: &str, count: u32) -> Result<Vec<Reg>, BuildError> {
        self.declaring()?;
        let range = self.f.reg_range(ty, prefix, count)?;
        members(&mut self.f, range)
    }

    /// The common prologue: loads the buffer addresses and computes the thread indices. The
    /// body's declarations come before it, its instructions after.
    pub fn prologue(&mut self) -> Result<(), BuildError> {
        self.declaring()?;
        self.begun = true;
        let f = &mut self.f;
        let [pin, pout] = self.params;
        f.ld((Space::Param, Type::U64), (self.rin, pin.at(0)))?;
        f.ld((Space::Param, Type::U64), (self.rout, pout.at(0)))?;
        f.cvta((Flag::To, Space::Global, Type::U64), (self.rin, self.rin))?;
        f.cvta((Flag::To, Space::Global, Type::U64), (self.rout, self.rout))?;
        f.mov(Type::U32, (self.tx, Sreg::axis(SpecialReg::Tid, 0)))?;
        f.mov(Type::U32, (self.cta, Sreg::axis(SpecialReg::Ctaid, 0)))?;
        f.mov(Type::U32, (self.nt, Sreg::axis(SpecialReg::Ntid, 0)))?;
        f.mad(
            (Flag::Lo, Type::U32),
            (self.gtid, self.cta, self.nt, self.tx),
        )
    }

    /// A fresh label (`$L1`, `$L2`, ...).
    pub fn label(&mut self) -> Result<Label, BuildError> {
        self.label += 1;
        self.f.label(&format!("$L{}", self.label))
    }

    /// Places a label.
    pub fn place(&mut self, l: Label) -> Result<(), BuildError> {
        self.f.place(l)
    }

    /// `@p cp.async.bulk.commit_group;` then `@p cp.async.bulk.wait_group{.read} 0;`: every
    /// bulk operation issued so far is done (or, with `read`, has read its source).
    pub fn bulk_drain(&mut self, p: Reg, read: bool) -> Result<(), BuildError> {
        self.f.guard(p).cp_async_bulk_commit_group((), ())?;
        let wait = read.then_some(Flag::Read);
        self.f.guard(p).cp_async_bulk_wait_group(wait, 0)
    }

    /// Spins until the mbarrier at the shared address in `%r7` completes the phase of parity
    /// `phase & 1` (`try_wait.parity` in a loop, result in `%p2`).
    pub fn wait_phase(&mut self, phase: u32) -> Result<(), BuildError> {
        let l = self.label()?;
        let (p2, r7) = (self.p(2), self.r(7));
        self.spin_try_wait(l, false, p2, r7.at(0), phase & 1)
    }

    /// `at: mbarrier.try_wait.parity{.acquire.cta}.shared::cta.b64 p, addr, parity;` then
    /// `@!p bra at;`: spins until the mbarrier at `addr` completes the phase of `parity`.
    pub fn spin_try_wait(
        &mut self,
        at: Label,
        acquire: bool,
        p: Reg,
        addr: Operand,
        parity: impl Into<Operand>,
    ) -> Result<(), BuildError> {
        self.place(at)?;
        let mods = (
            Flag::Parity,
            acquire.then_some(Sem::Acquire),
            acquire.then_some(Scope::Cta),
            Space::SharedCta,
            Type::B64,
        );
        self.f.mbarrier_try_wait(mods, (p, addr, parity.into()))?;
        self.f.guard_not(p).bra((), at)
    }

    /// Copies `bytes` (a multiple of `16 * block`) from the global address in `%rd22` (plus
    /// `16 * %tx`, which the caller has added) to the shared address in `%r8` (likewise), 16
    /// bytes per thread and round.
    pub fn fill_shared(&mut self, bytes: u32, block: u32) -> Result<(), BuildError> {
        let v = vector([self.r(10), self.r(11), self.r(12), self.r(13)]);
        let (rd22, r8) = (self.rd(22), self.r(8));
        for w in (0..bytes).step_by(16 * block as usize) {
            self.f.ld(
                (Space::Global, Vector::V4, Type::U32),
                (v.clone(), rd22.at(w.into())),
            )?;
            self.f.st(
                (Space::Shared, Vector::V4, Type::U32),
                (r8.at(w.into()), v.clone()),
            )?;
        }
        Ok(())
    }

    /// Stores the u32 register `reg` to output byte offset `%gtid * per + at` (a per-thread
    /// result slot); `per` and `at` are multiples of 4.
    pub fn slot(&mut self, reg: Reg, per: u32, at: u32) -> Result<(), BuildError> {
        self.slot_address(per)?;
        let rd60 = self.rd(60);
        self.f
            .st((Space::Global, Type::U32), (rd60.at(at.into()), reg))
    }

    /// As [`K::slot`], for the threads where predicate `pred` holds.
    pub fn slot_if(&mut self, pred: Reg, reg: Reg, per: u32, at: u32) -> Result<(), BuildError> {
        self.slot_address(per)?;
        let rd60 = self.rd(60);
        self.f
            .guard(pred)
            .st((Space::Global, Type::U32), (rd60.at(at.into()), reg))
    }

    /// `%rd60`: the address of this thread's result slots of `per` bytes.
    fn slot_address(&mut self, per: u32) -> Result<(), BuildError> {
        let rd60 = self.rd(60);
        self.f
            .mul((Flag::Wide, Type::U32), (rd60, self.gtid, per))?;
        self.f.add(Type::S64, (rd60, self.rout, rd60))
    }

    /// Copies `bytes` (a multiple of 4) of shared memory from the shared address in `base` to
    /// the output at byte `at + %cta * bytes`, word `i` by thread `i % ntid`. The caller makes
    /// the shared memory complete and visible first (a barrier).
    pub fn dump_shared(
        &mut self,
        base: Reg,
        bytes: u32,
        block: u32,
        at: u64,
    ) -> Result<(), BuildError> {
        let (rd61, rd62) = (self.rd(61), self.rd(62));
        let (r120, r121, r122, p15) = (self.r(120), self.r(121), self.r(122), self.p(15));
        let f = &mut self.f;
        f.mul((Flag::Wide, Type::U32), (rd61, self.cta, bytes))?;
        f.add(Type::S64, (rd61, rd61, at))?;
        f.add(Type::S64, (rd61, self.rout, rd61))?;
        f.shl(Type::B32, (r120, self.tx, 2))?;
        f.add(Type::U32, (r121, base, r120))?;
        f.mul((Flag::Wide, Type::U32), (rd62, self.tx, 4))?;
        f.add(Type::S64, (rd62, rd61, rd62))?;
        for w in (0..bytes / 4).step_by(block as usize) {
            let k = bytes / 4 - w;
            let off = i64::from(w * 4);
            if k < block {
                f.setp((Cmp::Lt, Type::U32), (p15, self.tx, k))?;
                f.guard(p15)
                    .ld((Space::Shared, Type::U32), (r122, r121.at(off)))?;
                f.guard(p15)
                    .st((Space::Global, Type::U32), (rd62.at(off), r122))?;
            } else {
                f.ld((Space::Shared, Type::U32), (r122, r121.at(off)))?;
                f.st((Space::Global, Type::U32), (rd62.at(off), r122))?;
            }
        }
        Ok(())
    }
}

/// Declares named registers of one type in one declaration (`.reg .b32 a, b;`).
fn reg_list<const N: usize>(
    f: &mut FunctionBuilder,
    ty: Type,
    names: [&str; N],
) -> Result<[Reg; N], BuildError> {
    let regs = names.map(|s| Reg {
        name: f.intern(s),
        ty,
    });
    f.declare(VarDecl {
        linkage: None,
        space: Space::Reg,
        attributes: Vec::new(),
        align: None,
        vector: None,
        ty,
        names: regs
            .iter()
            .map(|r| Declarator {
                name: r.name,
                range: None,
                dims: Default::default(),
                init: None,
            })
            .collect(),
    })?;
    Ok(regs)
}

/// The vector operand `{a, b, ...}` of `regs`.
pub fn vector(regs: impl IntoIterator<Item = Reg>) -> Operand {
    Operand::vector(regs.into_iter().map(Into::into))
}

/// The matrix shape `.m<m>n<n>` (`k` 0) or `.m<m>n<n>k<k>` as a qualifier.
pub fn shape(m: u32, n: u32, k: u32) -> Result<Modifier, BuildError> {
    Shape::all()
        .find(|s| !s.is_tmem() && s.dims() == (m as u16, n as u16, k as u16))
        .map(Modifier::Shape)
        .ok_or(BuildError::Misuse {
            reason: "the ISA has no such matrix shape",
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest kernel: the declarations, the prologue and `ret`, for the target and with
    /// the directive and parameters the head asks for.
    #[test]
    fn an_empty_body_builds_the_frame() {
        let text = kernel(Head::blackwell().cluster(2).maps(1), |k| k.prologue());
        let m = ptx_ir_text::parse(&text).expect("the kernel reads back");
        assert_eq!(ptx_ir_text::print(&m), text);
        for line in [
            ".target sm_100a",
            ".reqnctapercluster 2, 1, 1",
            ".param .align 64 .b8 tm0[128]",
            ".reg .b32 %r<128>;",
            ".reg .b32 %tx, %cta, %nt, %gtid;",
            "mad.lo.u32 %gtid, %cta, %nt, %tx;",
            "ret;",
        ] {
            assert!(text.contains(line), "{line} is missing:\n{text}");
        }
        assert_eq!(m.instruction_count(), 9);
    }

    /// Declarations come before the prologue, and the prologue is not left out.
    #[test]
    #[should_panic(expected = "a kernel's declarations come before its prologue")]
    fn a_declaration_after_the_prologue_panics() {
        kernel(Head::hopper(), |k| {
            k.prologue()?;
            k.shared("late", 4, Type::B32, None).map(|_| ())
        });
    }

    #[test]
    #[should_panic(expected = "the kernel's body never built the prologue")]
    fn a_body_without_the_prologue_panics() {
        kernel(Head::hopper(), |_| Ok(()));
    }

    /// An instruction no form takes stops the build with the builder's diagnosis.
    #[test]
    #[should_panic(expected = "a protocol kernel builds what the builder refuses: invalid `add`")]
    fn a_malformed_instruction_panics() {
        kernel(Head::hopper(), |k| {
            k.prologue()?;
            let r = k.r(0);
            k.f.add((), (r, r, 1))
        });
    }

    #[test]
    fn shapes() {
        assert_eq!(shape(16, 8, 32).unwrap().as_str(), "m16n8k32");
        assert_eq!(shape(8, 8, 0).unwrap().as_str(), "m8n8");
        assert_eq!(shape(64, 16, 8).unwrap().as_str(), "m64n16k8");
        assert!(shape(16, 8, 3).is_err());
    }
}
