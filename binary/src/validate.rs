//! The IR invariants a decoded module must satisfy beyond what its types enforce: the ones the
//! printer and the other consumers rely on to not panic.
//!
//! - every [`Name`] indexes the module's string table (consumers call `Interner::get`, which
//!   panics on a foreign name);
//! - every [`Shape`](ptx_ir_core::Shape) modifier is inside the shape table (its spelling is a
//!   table lookup);
//! - every [`Selector`] is one the reader can produce, and every numbered special register is in
//!   its range (otherwise they print as something else);
//! - every packed initialiser belongs to a declaration of an 8-, 16-, 32- or 64-bit type and
//!   holds a whole number of elements (the printer reads each element into a `u64`).
//!
//! - recursive values nest at most as deep as the reader lets them ([`ptx_ir_core::limits`]):
//!   `{ }` scopes, initialiser lists, operands and expressions each to their own bound; the
//!   decoder's default depth limit admits all of them at once, so every module that passes
//!   `validate` decodes with the default limits (and the encoder refuses any other).
//!
//! Nesting depth is also bounded while decoding (see [`crate::guard`]), so the recursion here is
//! bounded too. The walk matches every IR enum exhaustively: a new variant does not compile
//! until it is handled here.

use ptx_ir_core::limits::{MAX_EXPR_DEPTH, MAX_INIT_DEPTH, MAX_OPERAND_DEPTH, MAX_SCOPE_DEPTH};

/// The deepest nesting of recursive IR values a valid module has, whatever their kind: the
/// deepest of the bounds of [`ptx_ir_core::limits`].
pub const MAX_NESTING: u32 = const_max(
    const_max(MAX_EXPR_DEPTH, MAX_INIT_DEPTH),
    const_max(MAX_OPERAND_DEPTH, MAX_SCOPE_DEPTH),
);

const fn const_max(a: u32, b: u32) -> u32 {
    if a > b {
        a
    } else {
        b
    }
}

/// Serde levels of a module outside its recursive values (items, declarations, statement
/// entries, options, enums), with room to spare: the guard counts a level per sequence,
/// option and enum.
const OUTER_LEVELS: u32 = 32;

/// The serde nesting of the deepest valid module: an expression as deep as allowed inside
/// initialiser lists as deep as allowed (each list is an `Init` enum and a sequence: two
/// levels; each expression level one enum). [`crate::DecodeLimits::DEFAULT`] uses it.
pub const MAX_SERDE_DEPTH: u32 = OUTER_LEVELS + 2 * MAX_INIT_DEPTH + MAX_EXPR_DEPTH + 1;

// Operands and scopes nested up to the bounds must also get through the body columns' decoder.
const _: () = assert!(ptx_ir_core::body::MAX_OPERAND_DEPTH >= MAX_OPERAND_DEPTH);
const _: () = assert!(ptx_ir_core::body::MAX_SCOPE_DEPTH >= MAX_SCOPE_DEPTH as usize);

use ptx_ir_core::{
    Atom, BodyRef, DataValue, DeclRef, Declarator, Expr, FuncDirective, Function, Init, InstRef,
    Item, Modifier, Module, Name, Operand, Operands, Param, Prototype, Section, SectionEntry,
    Selector, SpecialReg, Stmt, StmtRef, Type, VarDecl,
};

/// A broken invariant: what, and where (`items[3].body[12]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// What is wrong.
    pub detail: String,
    /// Where, as a path into the module.
    pub path: String,
}

type R = Result<(), String>;

/// Checks the invariants listed in the module documentation.
pub fn validate(m: &Module) -> Result<(), Invalid> {
    validate_with(m, false)
}

/// [`validate`] for a module whose bodies were decoded under
/// [`ptx_ir_core::body::with_decode_bounds`] with its string table's size, [`MAX_NESTING`] and
/// [`body_entry`]: they were checked while decoding.
pub(crate) fn validate_decoded(m: &Module) -> Result<(), Invalid> {
    validate_with(m, true)
}

/// The check of a body entry that the decoder reads through serde, for a string table of
/// `names` names: what [`validate`] checks of it.
pub(crate) fn body_entry(s: &Stmt, names: usize) -> Result<(), String> {
    let v = V {
        n: names,
        decoded: true,
    };
    v.entry(s)
}

fn validate_with(m: &Module, decoded: bool) -> Result<(), Invalid> {
    let v = V {
        n: m.names.len(),
        decoded,
    };
    for (i, item) in m.items.iter().enumerate() {
        v.item(item).map_err(|detail| Invalid {
            detail,
            path: format!("items[{i}]"),
        })?;
    }
    Ok(())
}

struct V {
    n: usize,
    /// Compact bodies were checked by the decoder.
    decoded: bool,
}

/// The error for `what` nested past `limit` levels.
fn too_deep(what: &str, limit: u32) -> String {
    format!("{what} nest deeper than {limit} levels")
}

/// `depth`, the levels of `what` around a value, if it is within `limit`.
#[inline]
fn within(depth: u32, what: &str, limit: u32) -> Result<u32, String> {
    if depth > limit {
        Err(too_deep(what, limit))
    } else {
        Ok(depth)
    }
}

impl V {
    #[inline]
    fn name(&self, n: Name) -> R {
        if n.index() < self.n {
            Ok(())
        } else {
            Err(format!(
                "name index {} outside the string table ({} names)",
                n.index(),
                self.n
            ))
        }
    }

    fn item(&self, item: &Item) -> R {
        match item {
            Item::Function(f) => self.function(f),
            Item::Variable(d) => self.decl(d),
            Item::File(_) | Item::Pragma(_) => Ok(()),
            Item::Section(s) => self.section(s),
            Item::Alias { alias, aliasee } => {
                self.name(*alias)?;
                self.name(*aliasee)
            }
        }
    }

    fn section(&self, s: &Section) -> R {
        for e in &s.entries {
            match e {
                SectionEntry::Label(n) => self.name(*n)?,
                SectionEntry::Bytes(_) | SectionEntry::ByteColumn(_) => {}
                SectionEntry::Data { ty: _, values } => {
                    for x in values {
                        self.expr(x, 0)?;
                    }
                }
                SectionEntry::Value { ty: _, value } => {
                    if let DataValue::Sym(n) = value {
                        self.name(*n)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn params(&self, ps: &Option<Vec<Param>>) -> R {
        for p in ps.iter().flatten() {
            self.name(p.name)?;
        }
        Ok(())
    }

    fn directives(&self, ds: &[FuncDirective]) -> R {
        for d in ds {
            match d {
                FuncDirective::MaxNtid(_)
                | FuncDirective::ReqNtid(_)
                | FuncDirective::MinNctaPerSm(_)
                | FuncDirective::MaxNctaPerSm(_)
                | FuncDirective::MaxNreg(_)
                | FuncDirective::ReqNctaPerCluster(_)
                | FuncDirective::ExplicitCluster
                | FuncDirective::MaxClusterRank(_)
                | FuncDirective::BlocksAreClusters
                | FuncDirective::NoReturn
                | FuncDirective::AbiPreserve(_)
                | FuncDirective::AbiPreserveControl(_)
                | FuncDirective::Pragma(_) => {}
            }
        }
        Ok(())
    }

    fn function(&self, f: &Function) -> R {
        self.params(&f.returns)?;
        self.name(f.name)?;
        self.params(&f.params)?;
        self.directives(&f.directives)?;
        match f.body.as_ref().map(|b| (b, b.compact_parts())) {
            // Checked entry by entry as it was decoded.
            Some((_, Some(_))) if self.decoded => Ok(()),
            Some((_, Some((stmts, mods, operands)))) => self.compact(stmts, mods, operands),
            Some((b, None)) => self.statements(b.as_ref(), 0),
            None => Ok(()),
        }
    }

    /// A compact body, scanned array by array: the same checks as [`V::statements`] without
    /// walking the statement structure.
    fn compact(&self, stmts: &[Stmt], mods: &[Modifier], operands: Operands<'_>) -> R {
        // Ends of the open scopes, to bound their nesting.
        let mut open: Vec<usize> = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            while open.last() == Some(&i) {
                open.pop();
            }
            let r = match s {
                Stmt::Block { len, .. } => {
                    open.push(i + 1 + *len as usize);
                    if open.len() > MAX_SCOPE_DEPTH as usize {
                        Err(too_deep("scopes", MAX_SCOPE_DEPTH))
                    } else {
                        Ok(())
                    }
                }
                s => self.entry(s),
            };
            r.map_err(|e| format!("{e} (body entry {i})"))?;
        }
        mods.iter().try_for_each(|m| self.modifier(*m))?;
        // A cheap test per atom (inlined into the scan); the message only for a failure.
        let deepest = operands
            .scan(|i, a| {
                let ok = match a {
                    Atom::Name(n) => n.index() < self.n,
                    Atom::Selector(s) => s.is_valid(),
                    Atom::Special(r) => r.is_valid(),
                    Atom::Malformed => false,
                };
                if ok {
                    Ok(())
                } else {
                    Err((i, a))
                }
            })
            .map_err(|(i, a)| {
                let e = match a {
                    Atom::Name(n) => self.name(n).err(),
                    Atom::Selector(s) => self.selector(s).err(),
                    Atom::Special(r) => Some(format!("special register {r:?} out of range")),
                    Atom::Malformed => None,
                };
                let e = e.unwrap_or_else(|| "malformed operand cells".to_string());
                format!("{e} (operand {i} of the body)")
            })?;
        if deepest > MAX_OPERAND_DEPTH as usize {
            return Err(too_deep("operands", MAX_OPERAND_DEPTH));
        }
        Ok(())
    }

    /// A compact body's entry, scopes aside.
    fn entry(&self, s: &Stmt) -> R {
        match s {
            Stmt::Inst(p) => match p.guard() {
                Some(g) => self.name(g.pred),
                None => Ok(()),
            },
            Stmt::Label(n) => self.name(*n),
            Stmt::Decl(d) => self.decl(d),
            Stmt::PlainDecl(p) => {
                self.name(p.name)?;
                match p.shape {
                    ptx_ir_core::PlainShape::Pair(n) => self.name(n),
                    _ => Ok(()),
                }
            }
            Stmt::Loc(l) => match &l.inlined {
                Some(x) => self.name(x.function_name),
                None => Ok(()),
            },
            Stmt::Pragma(_) | Stmt::Block { .. } | Stmt::LineLoc { .. } => Ok(()),
            Stmt::BranchTargets(t) | Stmt::CallTargets(t) => {
                self.name(t.label)?;
                t.targets.iter().try_for_each(|n| self.name(*n))
            }
            Stmt::CallPrototype(p) => {
                self.name(p.0)?;
                self.prototype(&p.1)
            }
        }
    }

    fn decl(&self, d: &VarDecl) -> R {
        for x in &d.names {
            self.declarator(x, d.ty)?;
        }
        Ok(())
    }

    fn declarator(&self, d: &Declarator, ty: Type) -> R {
        self.name(d.name)?;
        if let Some(i) = &d.init {
            self.init(i, ty, 0)?;
        }
        Ok(())
    }

    /// An initialiser inside `depth` lists.
    fn init(&self, i: &Init, ty: Type, depth: u32) -> R {
        match i {
            Init::Expr(e) => self.expr(e, 0),
            Init::List(items) => {
                let d = within(depth + 1, "initialiser lists", MAX_INIT_DEPTH)?;
                items.iter().try_for_each(|i| self.init(i, ty, d))
            }
            Init::Packed(bytes) => {
                let bits = ty.bits();
                if !matches!(bits, 8 | 16 | 32 | 64) {
                    return Err(format!("packed initialiser of a {bits}-bit type"));
                }
                let w = bits as usize / 8;
                if bytes.len() % w != 0 {
                    return Err(format!(
                        "packed initialiser of {} bytes is not a whole number of {w}-byte elements",
                        bytes.len()
                    ));
                }
                Ok(())
            }
        }
    }

    /// The statements of a scope inside `depth` scopes (the body is inside none).
    fn statements(&self, body: BodyRef<'_>, depth: u32) -> R {
        for (i, s) in body.iter().enumerate() {
            self.statement(s, depth)
                .map_err(|e| format!("{e} (body statement {i})"))?;
        }
        Ok(())
    }

    fn statement(&self, s: StmtRef<'_>, depth: u32) -> R {
        match s {
            StmtRef::Inst(i) => self.inst(i),
            StmtRef::Label(n) => self.name(n),
            StmtRef::Decl(DeclRef::Full(d)) => self.decl(d),
            StmtRef::Decl(DeclRef::Plain(p)) => {
                self.name(p.name)?;
                match p.shape {
                    ptx_ir_core::PlainShape::Pair(n) => self.name(n),
                    _ => Ok(()),
                }
            }
            StmtRef::Loc(l) => match l.inlined {
                Some(i) => self.name(i.function_name),
                None => Ok(()),
            },
            StmtRef::Pragma(_) => Ok(()),
            StmtRef::Block(b) => self.statements(b, within(depth + 1, "scopes", MAX_SCOPE_DEPTH)?),
            StmtRef::BranchTargets { label, targets } | StmtRef::CallTargets { label, targets } => {
                self.name(label)?;
                targets.iter().try_for_each(|t| self.name(*t))
            }
            StmtRef::CallPrototype { label, proto } => {
                self.name(label)?;
                self.prototype(proto)
            }
        }
    }

    fn prototype(&self, p: &Prototype) -> R {
        self.params(&p.returns)?;
        self.params(&p.params)?;
        self.directives(&p.directives)
    }

    fn inst(&self, i: InstRef<'_>) -> R {
        if let Some(g) = i.guard {
            self.name(g.pred)?;
        }
        i.mods.iter().try_for_each(|m| self.modifier(*m))?;
        i.operands.iter().try_for_each(|o| self.operand(&o, 0))
    }

    fn modifier(&self, m: Modifier) -> R {
        if let Modifier::Shape(s) = m {
            if ptx_ir_core::Shape::from_ordinal(s.ordinal()).is_none() {
                return Err(format!(
                    "shape index {} outside the shape table",
                    s.ordinal()
                ));
            }
        }
        Ok(())
    }

    #[inline]
    fn selector(&self, s: Selector) -> R {
        if s.is_none() || s.is_valid() {
            Ok(())
        } else {
            Err(format!("invalid selector encoding {:#06x}", s.bits()))
        }
    }

    /// An operand inside `depth` lists, pairs or negations.
    fn operand(&self, o: &Operand, depth: u32) -> R {
        match o {
            Operand::Reg { name, sel } => {
                self.name(*name)?;
                self.selector(*sel)
            }
            Operand::Special { reg, sel } => {
                if !reg.is_valid() {
                    return Err(format!("special register {reg:?} out of range"));
                }
                self.special_sel(*reg, *sel)
            }
            Operand::Int(_)
            | Operand::Uint(_)
            | Operand::F32(_)
            | Operand::F64(_)
            | Operand::Dec(_)
            | Operand::Sink => Ok(()),
            Operand::Sym { name, offset: _ } | Operand::Not(name) => self.name(*name),
            Operand::Addr { base, .. } => match base {
                Some(b) => self.name(*b),
                None => Ok(()),
            },
            Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
                let d = within(depth + 1, "operands", MAX_OPERAND_DEPTH)?;
                v.iter().try_for_each(|o| self.operand(o, d))
            }
            Operand::Pair(p) => {
                let d = within(depth + 1, "operands", MAX_OPERAND_DEPTH)?;
                p.iter().try_for_each(|o| self.operand(o, d))
            }
            Operand::Neg(o) => self.operand(o, within(depth + 1, "operands", MAX_OPERAND_DEPTH)?),
        }
    }

    fn special_sel(&self, _reg: SpecialReg, sel: Selector) -> R {
        self.selector(sel)
    }

    /// An expression `depth` operator levels below its root. Recursion stops at the bound, so
    /// a tree of any depth (built through the API and passed to the encoder) is safe here.
    fn expr(&self, e: &Expr, depth: u32) -> R {
        match e {
            Expr::Int(_) | Expr::Uint(_) | Expr::F32(_) | Expr::F64(_) | Expr::Dec(_) => Ok(()),
            Expr::Sym(n) | Expr::Generic(n) => self.name(*n),
            Expr::Unary(_, e) | Expr::Paren(e) => {
                self.expr(e, within(depth + 1, "expressions", MAX_EXPR_DEPTH)?)
            }
            Expr::Binary(_, a, b) => {
                let d = within(depth + 1, "expressions", MAX_EXPR_DEPTH)?;
                self.expr(a, d)?;
                self.expr(b, d)
            }
        }
    }
}
