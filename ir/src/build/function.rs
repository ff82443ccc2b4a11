//! [`FunctionBuilder`]: parameters, registers (allocated, named, or declared as named ranges),
//! labels, branch and call target lists, call prototypes, scopes, guards and the one checked
//! entry point for instructions, [`FunctionBuilder::inst`].

use super::module::ModuleBuilder;
use super::names::{check_identifier, check_not_fresh, class_of, CLASSES};
use super::types::{BuildError, FnRef, Label, Reg, RegRange, Var};
use crate::body::Body;
use crate::check::{check, spell};
use crate::inst::{Guard, Instruction};
use crate::module::{
    Declarator, FuncDirective, Function, FunctionKind, Item, Linkage, Param, Prototype, Statement,
    VarDecl,
};
use crate::names::{split_range, Name};
use crate::operand::Operand;
use crate::table::Opcode;
use crate::vocab::{Modifier, Space, Type};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

// The module builder's doors to function builders live here, beside what they open, so
// that the module builder does not import the function builder that refers back to it.
impl ModuleBuilder {
    /// Begins a kernel (`.visible .entry name`). It joins the module when
    /// [`FunctionBuilder::finish`] succeeds.
    pub fn entry(&mut self, name: &str) -> Result<FunctionBuilder<'_>, BuildError> {
        let n = self.symbol(name)?;
        Ok(FunctionBuilder::new(self, FunctionKind::Entry, n))
    }

    /// Begins a device function (`.func name`). It joins the module when
    /// [`FunctionBuilder::finish`] succeeds.
    pub fn func(&mut self, name: &str) -> Result<FunctionBuilder<'_>, BuildError> {
        let n = self.symbol(name)?;
        Ok(FunctionBuilder::new(self, FunctionKind::Func, n))
    }
}

/// Builds one function of a [`ModuleBuilder`]. Obtained from [`ModuleBuilder::entry`] or
/// [`ModuleBuilder::func`]; the function joins the module when [`FunctionBuilder::finish`]
/// succeeds (dropping the builder discards it).
#[must_use = "a function joins the module only when `finish` is called"]
#[derive(Debug)]
pub struct FunctionBuilder<'m> {
    mb: &'m mut ModuleBuilder,
    func: Function,
    ordinal: u32,
    /// Open scopes; `stack[0]` is the body.
    stack: Vec<Vec<Statement>>,
    /// What each open nested scope declared (`scoped[k]` for `stack[k + 1]`): released when
    /// the scope closes, so that a sibling scope may declare the same names.
    scoped: Vec<Vec<Scoped>>,
    /// Register ranges declared by name (`.reg .b32 %t<8>;`): prefix spelling -> count.
    ranges: FxHashMap<Box<str>, u32>,
    /// Registers allocated per class of [`CLASSES`], and the classes in order of first use
    /// (the order of their declarations).
    counts: [u32; CLASSES.len()],
    class_order: Vec<usize>,
    /// Registers allocated by `reg`.
    fresh: FxHashSet<Name>,
    /// Registers declared by name, in declaration order.
    named: Vec<(Name, Type)>,
    /// Function-scope names: parameters, named registers, labels, scoped variables.
    locals: FxHashSet<Name>,
    /// Labels created, and whether each has been placed.
    labels: FxHashMap<Name, bool>,
    label_order: Vec<Name>,
    next_label: u32,
    guard: Option<Guard>,
}

impl<'m> FunctionBuilder<'m> {
    pub(super) fn new(mb: &'m mut ModuleBuilder, kind: FunctionKind, name: Name) -> Self {
        let ordinal = mb.begun;
        mb.begun += 1;
        FunctionBuilder {
            mb,
            func: Function {
                linkage: match kind {
                    FunctionKind::Entry => Some(Linkage::Visible),
                    FunctionKind::Func => None,
                },
                kind,
                attributes: Vec::new(),
                returns: None,
                name,
                params: Some(Vec::new()),
                directives: Vec::new(),
                body: None,
            },
            ordinal,
            stack: vec![Vec::new()],
            scoped: Vec::new(),
            ranges: FxHashMap::default(),
            counts: [0; CLASSES.len()],
            class_order: Vec::new(),
            fresh: FxHashSet::default(),
            named: Vec::new(),
            locals: FxHashSet::default(),
            labels: FxHashMap::default(),
            label_order: Vec::new(),
            next_label: 0,
            guard: None,
        }
    }

    /// The function's name.
    pub fn name(&self) -> FnRef {
        FnRef(self.func.name)
    }

    /// Sets the linkage (kernels default to `.visible`, device functions to none).
    pub fn linkage(&mut self, linkage: Option<Linkage>) -> &mut Self {
        self.func.linkage = linkage;
        self
    }

    /// Adds a performance-tuning directive (`.maxntid`, `.reqntid`, `.maxnreg`, ...).
    pub fn directive(&mut self, d: FuncDirective) -> &mut Self {
        self.func.directives.push(d);
        self
    }

    /// Interns a name without declaring it.
    pub fn intern(&mut self, s: &str) -> Name {
        self.mb.intern(s)
    }

    /// A fresh function-scope name: a PTX identifier not yet used in the function or at module
    /// scope.
    fn local_name(&mut self, s: &str) -> Result<Name, BuildError> {
        check_identifier(s)?;
        check_not_fresh(s)?;
        let n = self.mb.intern(s);
        if self.locals.contains(&n)
            || self.mb.symbols.contains(&n)
            || n == self.func.name
            || self.in_range(s)
            || self.ranges.contains_key(s)
        {
            return Err(BuildError::Duplicate {
                name: s.to_string(),
            });
        }
        self.locals.insert(n);
        Ok(n)
    }

    /// [`FunctionBuilder::local_name`] for a declaration of the current scope: a nested
    /// scope releases it when it closes.
    fn scoped_name(&mut self, s: &str) -> Result<Name, BuildError> {
        let n = self.local_name(s)?;
        if let Some(names) = self.scoped.last_mut() {
            names.push(Scoped::Name(n));
        }
        Ok(n)
    }

    /// Whether `s` is a member of a register range of this function (`%t3` of `%t<8>`).
    fn in_range(&self, s: &str) -> bool {
        !self.ranges.is_empty()
            && split_range(s).is_some_and(|(prefix, i)| {
                self.ranges
                    .get(prefix)
                    .is_some_and(|&count| i < u64::from(count))
            })
    }

    /// Appends a parameter `.param .<ty> name` and returns it (load it with `ld.param`).
    pub fn param(&mut self, ty: Type, name: &str) -> Result<Var, BuildError> {
        let n = self.local_name(name)?;
        self.func
            .params
            .get_or_insert_with(Vec::new)
            .push(simple_param(ty, n));
        Ok(Var {
            name: n,
            space: Space::Param,
            ty,
        })
    }

    /// Appends a parameter built by hand (alignment, `.ptr` attribute, arrays); its name must
    /// be a fresh identifier interned with [`FunctionBuilder::intern`].
    pub fn param_decl(&mut self, p: Param) -> Result<Var, BuildError> {
        let v = self.param_var(&p)?;
        self.func.params.get_or_insert_with(Vec::new).push(p);
        Ok(v)
    }

    /// Declares the name of a parameter built by hand, as a variable of the function.
    fn param_var(&mut self, p: &Param) -> Result<Var, BuildError> {
        let s = self.mb.spelling(p.name)?;
        Ok(Var {
            name: self.local_name(&s)?,
            space: p.space,
            ty: p.ty,
        })
    }

    /// Appends a return parameter of a device function: `.func (.param .<ty> name) f(...)`.
    pub fn ret_param(&mut self, ty: Type, name: &str) -> Result<Var, BuildError> {
        if self.func.kind == FunctionKind::Entry {
            return Err(BuildError::Misuse {
                reason: "a kernel has no return parameters",
            });
        }
        let n = self.local_name(name)?;
        self.func
            .returns
            .get_or_insert_with(Vec::new)
            .push(simple_param(ty, n));
        Ok(Var {
            name: n,
            space: Space::Param,
            ty,
        })
    }

    /// Appends a return parameter built by hand (a `.reg` return parameter, alignment, arrays);
    /// its name must be a fresh identifier interned with [`FunctionBuilder::intern`].
    pub fn ret_param_decl(&mut self, p: Param) -> Result<Var, BuildError> {
        if self.func.kind == FunctionKind::Entry {
            return Err(BuildError::Misuse {
                reason: "a kernel has no return parameters",
            });
        }
        let v = self.param_var(&p)?;
        self.func.returns.get_or_insert_with(Vec::new).push(p);
        Ok(v)
    }

    /// Allocates a fresh register for values of `ty`, named after its class (`%r3` for 32-bit
    /// integers, `%rd0` for 64-bit, `%f1` for `.f32`, `%p2` for predicates, ...). Each class is
    /// declared once, at the top of the body, as a range (`.reg .b32 %r<4>;`).
    ///
    /// A function that declared a register range with the class's prefix
    /// ([`FunctionBuilder::reg_range`]) cannot allocate from the class.
    pub fn reg(&mut self, ty: Type) -> Result<Reg, BuildError> {
        let class = class_of(ty)?;
        if self.ranges.contains_key(class.prefix) {
            return Err(BuildError::BadName {
                name: class.prefix.to_string(),
                reason: "declared as a register range in this function, so `reg` cannot \
                         allocate from it",
            });
        }
        let i = CLASSES
            .iter()
            .position(|c| c.prefix == class.prefix)
            .unwrap_or(0);
        if self.counts[i] == 0 {
            self.class_order.push(i);
        }
        let k = self.counts[i];
        self.counts[i] += 1;
        let name = self.mb.intern(&format!("{}{k}", class.prefix));
        self.fresh.insert(name);
        Ok(Reg { name, ty })
    }

    /// Allocates `N` fresh registers of one type: `let [a, b] = f.regs(Type::U32)?;`.
    pub fn regs<const N: usize>(&mut self, ty: Type) -> Result<[Reg; N], BuildError> {
        let mut v = Vec::with_capacity(N);
        for _ in 0..N {
            v.push(self.reg(ty)?);
        }
        match v.try_into() {
            Ok(a) => Ok(a),
            Err(_) => unreachable!("exactly N registers were allocated"),
        }
    }

    /// Declares a register by name with exactly this type (`.reg .f32 %acc;`), at the top of
    /// the body.
    pub fn reg_named(&mut self, ty: Type, name: &str) -> Result<Reg, BuildError> {
        if matches!(
            ty,
            Type::B1024 | Type::Texref | Type::Samplerref | Type::Surfref
        ) {
            return Err(BuildError::NoRegisterClass(ty));
        }
        let n = self.local_name(name)?;
        self.named.push((n, ty));
        Ok(Reg { name: n, ty })
    }

    /// Declares `count` registers of type `ty` named `prefix0` .. `prefix<count - 1>` with one
    /// range declaration, `.reg .b32 %t<8>;`, in the current scope where it is called (after
    /// the statements before it, unlike [`FunctionBuilder::reg`]'s declarations, which go to
    /// the top of the body): `f.reg_range(Type::B32, "%t", 8)` declares `%t0` .. `%t7`. Name
    /// them with [`FunctionBuilder::reg_in`] (or intern `"%t3"` and use it as an operand).
    ///
    /// The prefix is a PTX identifier that does not end in a digit; none of the names may be
    /// declared already, nor may the prefix be declared as a name or another range. A prefix
    /// of [`FunctionBuilder::reg`]'s register classes (`%r`, `%rd`, `%f`, `%p`, ...) may be used
    /// only in a function that allocates nothing of that class, and the function cannot
    /// allocate from the class afterwards. In a nested scope the range is released when the
    /// scope closes, like [`FunctionBuilder::local`]'s variables.
    pub fn reg_range(
        &mut self,
        ty: Type,
        prefix: &str,
        count: u32,
    ) -> Result<RegRange, BuildError> {
        self.no_guard()?;
        class_of(ty)?;
        if count == 0 {
            return Err(BuildError::Misuse {
                reason: "a register range holds at least one register",
            });
        }
        check_identifier(prefix)?;
        let bad = |reason| {
            Err(BuildError::BadName {
                name: prefix.to_string(),
                reason,
            })
        };
        if prefix.ends_with(|c: char| c.is_ascii_digit()) {
            return bad("a register range's prefix cannot end in a digit");
        }
        if let Some(i) = CLASSES.iter().position(|c| c.prefix == prefix) {
            if self.counts[i] > 0 {
                return bad("the prefix of registers `reg` allocated in this function");
            }
        }
        let n = self.mb.intern(prefix);
        let taken = |s: &str| {
            s == prefix || split_range(s).is_some_and(|(p, i)| p == prefix && i < u64::from(count))
        };
        let names = self.mb.names();
        let clash = self
            .locals
            .iter()
            .chain(&self.mb.symbols)
            .chain(std::iter::once(&self.func.name))
            .filter_map(|&m| names.try_get(m))
            .find(|s| taken(s))
            .map(str::to_string);
        if let Some(name) = clash {
            return Err(BuildError::Duplicate { name });
        }
        if self.ranges.contains_key(prefix) {
            return Err(BuildError::Duplicate {
                name: prefix.to_string(),
            });
        }
        self.ranges.insert(prefix.into(), count);
        if let Some(names) = self.scoped.last_mut() {
            names.push(Scoped::Range(prefix.into()));
        }
        self.current().push(reg_decl(ty, n, Some(count)));
        Ok(RegRange {
            prefix: n,
            ty,
            count,
        })
    }

    /// Register `index` of `range` (`%t3` for index 3 of `%t<8>`).
    pub fn reg_in(&mut self, range: RegRange, index: u32) -> Result<Reg, BuildError> {
        let prefix = self.mb.spelling(range.prefix)?;
        if index >= range.count || self.ranges.get(prefix.as_str()) != Some(&range.count) {
            return Err(BuildError::Undeclared {
                name: format!("{prefix}{index}"),
            });
        }
        Ok(Reg {
            name: self.mb.intern(&format!("{prefix}{index}")),
            ty: range.ty,
        })
    }

    /// Declares a variable in the current scope (`.param .b32 arg0;` inside a call block,
    /// `.local .u32 tmp;`).
    ///
    /// The name is released when the scope closes: a later sibling scope may declare it again
    /// (the call blocks of a kernel each declare their `.param` arguments), and it cannot be
    /// referred to after the scope.
    pub fn local(&mut self, space: Space, ty: Type, name: &str) -> Result<Var, BuildError> {
        let n = self.scoped_name(name)?;
        self.current().push(Statement::Decl(Box::new(VarDecl {
            linkage: None,
            space,
            attributes: Vec::new(),
            align: None,
            vector: None,
            ty,
            names: smallvec::smallvec![Declarator {
                name: n,
                range: None,
                dims: SmallVec::new(),
                init: None,
            }],
        })));
        Ok(Var { name: n, space, ty })
    }

    /// Adds a declaration built by hand in the current scope (arrays, alignment, vectors); its
    /// names must be fresh identifiers interned with [`FunctionBuilder::intern`].
    /// Scoped like [`FunctionBuilder::local`].
    pub fn declare(&mut self, decl: VarDecl) -> Result<(), BuildError> {
        for d in &decl.names {
            let s = self.mb.spelling(d.name)?;
            self.scoped_name(&s)?;
        }
        self.current().push(Statement::Decl(Box::new(decl)));
        Ok(())
    }

    /// Creates a label named `name`; place it with [`FunctionBuilder::place`].
    pub fn label(&mut self, name: &str) -> Result<Label, BuildError> {
        let n = self.local_name(name)?;
        self.labels.insert(n, false);
        self.label_order.push(n);
        Ok(Label(n))
    }

    /// Creates a fresh label (`$L__BB<function>_<n>`, as nvcc names them).
    pub fn fresh_label(&mut self) -> Label {
        loop {
            let s = format!("$L__BB{}_{}", self.ordinal, self.next_label);
            self.next_label += 1;
            if let Ok(l) = self.label(&s) {
                return l;
            }
        }
    }

    /// Places `label` here. Each label is placed exactly once.
    pub fn place(&mut self, label: Label) -> Result<(), BuildError> {
        self.no_guard()?;
        match self.labels.get_mut(&label.0) {
            Some(placed @ false) => *placed = true,
            Some(true) => {
                return Err(BuildError::Label {
                    name: self.mb.spelling(label.0)?,
                    problem: "is placed twice",
                })
            }
            None => {
                return Err(BuildError::Label {
                    name: self.mb.spelling(label.0)?,
                    problem: "was not created by this function's builder",
                })
            }
        }
        self.current().push(Statement::Label(label.0));
        Ok(())
    }

    /// A `.branchtargets` list for `brx.idx`, declared here: `ts: .branchtargets L0, L1;`.
    pub fn branch_targets(&mut self, name: &str, targets: &[Label]) -> Result<Label, BuildError> {
        self.no_guard()?;
        let n = self.local_name(name)?;
        self.current().push(Statement::BranchTargets {
            label: n,
            targets: targets.iter().map(|l| l.0).collect(),
        });
        Ok(Label(n))
    }

    /// A `.calltargets` list for an indirect `call` through a register, declared here:
    /// `ts: .calltargets f0, f1;`. Each target must be a function of the module (or this one).
    pub fn call_targets(&mut self, name: &str, targets: &[FnRef]) -> Result<Label, BuildError> {
        self.no_guard()?;
        let len = self.mb.names().len();
        for t in targets {
            if t.0.index() >= len {
                return Err(BuildError::ForeignName(t.0.index()));
            }
            if !self.mb.symbols.contains(&t.0) && t.0 != self.func.name {
                return Err(BuildError::Undeclared {
                    name: self.mb.spelling(t.0)?,
                });
            }
        }
        let n = self.local_name(name)?;
        self.current().push(Statement::CallTargets {
            label: n,
            targets: targets.iter().map(|t| t.0).collect(),
        });
        Ok(Label(n))
    }

    /// A `.callprototype` for an indirect `call` through a register, declared here:
    /// `p: .callprototype (.param .b32 _) _ (.param .b32 _);`. The parameters' names are the
    /// prototype's own (not declared in the function): PTX identifiers or `_`, interned with
    /// [`FunctionBuilder::intern`].
    pub fn call_prototype(&mut self, name: &str, proto: Prototype) -> Result<Label, BuildError> {
        self.no_guard()?;
        let params = proto.returns.iter().chain(&proto.params).flatten();
        for p in params {
            let s = self.mb.spelling(p.name)?;
            if s != "_" {
                check_identifier(&s)?;
            }
        }
        let n = self.local_name(name)?;
        self.current().push(Statement::CallPrototype {
            label: n,
            proto: Box::new(proto),
        });
        Ok(Label(n))
    }

    /// Guards the next instruction with `@p`: `f.guard(p).bra(exit)?`.
    pub fn guard(&mut self, p: Reg) -> &mut Self {
        self.guard = Some(Guard {
            pred: p.name,
            negated: false,
        });
        self
    }

    /// Guards the next instruction with `@!p`.
    pub fn guard_not(&mut self, p: Reg) -> &mut Self {
        self.guard = Some(Guard {
            pred: p.name,
            negated: true,
        });
        self
    }

    /// Builds a nested scope `{ ... }` with `body`. Declarations made inside are scoped to it:
    /// their names are released when it closes (a later scope may declare them again; an
    /// operand after the scope cannot name them). Labels stay the function's. If `body` fails,
    /// the scope is dropped and the error returned.
    pub fn block<R>(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<R, BuildError>,
    ) -> Result<R, BuildError> {
        self.no_guard()?;
        self.stack.push(Vec::new());
        self.scoped.push(Vec::new());
        let r = body(self);
        let inner = self.stack.pop().unwrap_or_default();
        for s in self.scoped.pop().unwrap_or_default() {
            match s {
                Scoped::Name(n) => {
                    self.locals.remove(&n);
                }
                Scoped::Range(prefix) => {
                    self.ranges.remove(&prefix);
                }
            }
        }
        let r = r?;
        self.no_guard()?;
        self.current().push(Statement::Block(inner));
        Ok(r)
    }

    /// Adds a `.pragma "text";` statement.
    pub fn pragma(&mut self, text: &str) -> Result<(), BuildError> {
        self.no_guard()?;
        if text.contains(['"', '\n', '\\']) {
            return Err(BuildError::Misuse {
                reason: "a pragma cannot contain quotes, backslashes or newlines",
            });
        }
        self.current().push(Statement::Pragma(text.into()));
        Ok(())
    }

    /// The one entry point for instructions: checks `op` with `mods` and `operands` against
    /// the instruction table and appends it (guarded if [`FunctionBuilder::guard`] was
    /// called). On error nothing is appended and the error carries the table's diagnosis.
    pub fn inst<M, O>(&mut self, op: Opcode, mods: M, operands: O) -> Result<(), BuildError>
    where
        M: IntoIterator<Item = Modifier>,
        O: IntoIterator<Item = Operand>,
    {
        self.push(Instruction::new(op, mods, operands))
    }

    /// Appends an instruction built by hand, checked like [`FunctionBuilder::inst`]. A pending
    /// guard applies if the instruction has none.
    pub fn push(&mut self, mut inst: Instruction) -> Result<(), BuildError> {
        let pending = self.guard.take();
        if inst.guard.is_none() {
            inst.guard = pending;
        } else if pending.is_some() {
            return Err(BuildError::Invalid {
                inst: spell(inst.opcode, &inst.mods),
                message: "the instruction has its own guard and one was set with `guard`".into(),
            });
        }
        if let Err(e) = check(inst.opcode, &inst.mods, &inst.operands) {
            return Err(BuildError::Invalid {
                inst: spell(inst.opcode, &inst.mods),
                message: e.to_string(),
            });
        }
        let len = self.mb.names().len();
        let mut bad = None;
        inst.for_each_name(&mut |n| {
            if bad.is_none() && !self.is_declared(n) {
                bad = Some(n);
            }
        });
        if let Some(n) = bad {
            if n.index() >= len {
                return Err(BuildError::ForeignName(n.index()));
            }
            return Err(BuildError::Undeclared {
                name: self.mb.spelling(n)?,
            });
        }
        self.current().push(Statement::Inst(inst));
        Ok(())
    }

    /// Whether `n` names something this function may refer to: its registers (members of its
    /// register ranges included), parameters, labels and the variables of the open scopes, the
    /// module's functions and variables, or itself.
    fn is_declared(&self, n: Name) -> bool {
        self.fresh.contains(&n)
            || self.locals.contains(&n)
            || self.mb.symbols.contains(&n)
            || n == self.func.name
            || (!self.ranges.is_empty()
                && self.mb.names().try_get(n).is_some_and(|s| self.in_range(s)))
    }

    /// Finishes the function: declares the registers at the top of the body, checks that every
    /// label was placed and no guard is pending, and adds the function to the module.
    pub fn finish(mut self) -> Result<FnRef, BuildError> {
        self.no_guard()?;
        for &l in &self.label_order {
            if !self.labels[&l] {
                return Err(BuildError::Label {
                    name: self.mb.spelling(l)?,
                    problem: "is never placed",
                });
            }
        }
        let mut body = Vec::with_capacity(self.class_order.len() + self.named.len());
        for &i in &self.class_order {
            let c = CLASSES[i];
            let prefix = self.mb.intern(c.prefix);
            body.push(reg_decl(c.decl, prefix, Some(self.counts[i])));
        }
        for &(n, ty) in &self.named {
            body.push(reg_decl(ty, n, None));
        }
        body.append(&mut self.stack[0]);
        let mut func = self.func;
        func.body = Some(Body::try_from_statements(&body).map_err(BuildError::Body)?);
        let name = func.name;
        self.mb.symbols.insert(name);
        self.mb.module.items.push(Item::Function(Box::new(func)));
        Ok(FnRef(name))
    }

    /// Finishes the function as a declaration without a body (`.extern .func (.param .b32 r)
    /// vprintf(.param .b64 fmt, .param .b64 args);`), to call a function defined elsewhere.
    /// Only the signature, linkage and directives may have been set.
    pub fn finish_declaration(self) -> Result<FnRef, BuildError> {
        if self.stack.iter().any(|s| !s.is_empty())
            || !self.class_order.is_empty()
            || !self.named.is_empty()
            || !self.labels.is_empty()
            || self.guard.is_some()
        {
            return Err(BuildError::Misuse {
                reason: "a declaration has no body: no registers, labels or statements",
            });
        }
        let func = self.func;
        let name = func.name;
        self.mb.symbols.insert(name);
        self.mb.module.items.push(Item::Function(Box::new(func)));
        Ok(FnRef(name))
    }

    fn current(&mut self) -> &mut Vec<Statement> {
        // The stack always holds the body; `block` pops only what it pushed.
        if self.stack.is_empty() {
            self.stack.push(Vec::new());
        }
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    fn no_guard(&mut self) -> Result<(), BuildError> {
        match self.guard.take() {
            Some(_) => Err(BuildError::DanglingGuard),
            None => Ok(()),
        }
    }
}

/// A declaration of a nested scope, released when the scope closes.
#[derive(Debug)]
enum Scoped {
    /// A variable (or parameter of a call block).
    Name(Name),
    /// A register range, by prefix.
    Range(Box<str>),
}

fn simple_param(ty: Type, name: Name) -> Param {
    Param {
        space: Space::Param,
        align: None,
        vector: None,
        ty,
        ptr: None,
        name,
        dims: SmallVec::new(),
    }
}

fn reg_decl(ty: Type, name: Name, range: Option<u32>) -> Statement {
    Statement::Decl(Box::new(VarDecl {
        linkage: None,
        space: Space::Reg,
        attributes: Vec::new(),
        align: None,
        vector: None,
        ty,
        names: smallvec::smallvec![Declarator {
            name,
            range,
            dims: SmallVec::new(),
            init: None,
        }],
    }))
}
