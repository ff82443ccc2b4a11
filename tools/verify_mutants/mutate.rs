//! Mutants of corpus kernels for measuring the verifier against `ptxas`.
//!
//! Two sources of cases, both deterministic (same corpus, same cases, same ids):
//!
//! * isolated instructions: each distinct instruction word of the corpus (up to three times,
//!   from different files) is put alone in a copy of its function (signature, top-level
//!   declarations, the variables it names, the instruction, `ret`); the copy must verify clean.
//!   Its mutants move the target and PTX version around the availability table's boundary,
//!   swap operand registers for registers of other types, undeclared or out-of-scope ones,
//!   duplicate declarations, change immediates, vector widths, state spaces and guards.
//! * whole small files: branch targets moved to other functions' labels or nowhere, and call
//!   arguments dropped.
//!
//! Each case records the kind of mutation and whether the mutation was meant to keep the module
//! valid (`expect`); the verifier's verdict and `ptxas`'s are compared per kind.

#![allow(dead_code)]

use ptx_ir::ir::avail::{Sm, KNOWN};
use ptx_ir::ir::verify::{self, Rule};
use ptx_ir::ir::{
    ArchSuffix, Declarator, Function, Instruction, Item, Module, Name, Operand, Space, Statement,
    Target, Type, VarDecl, Version,
};
use std::collections::{BTreeMap, BTreeSet};

/// One generated module.
#[derive(Clone, Debug)]
pub struct Case {
    /// Stable id: `kind-NNNN`.
    pub id: String,
    /// The kind of mutation.
    pub kind: &'static str,
    /// Whether the mutation was meant to keep the module valid.
    pub expect_valid: bool,
    /// The `-arch` to give `ptxas` (the module's target).
    pub arch: String,
    /// The corpus file it came from.
    pub source: String,
    /// The PTX text.
    pub text: String,
}

impl Case {
    /// FNV-1a of the text: ties a recorded `ptxas` result to the exact text it judged.
    pub fn hash(&self) -> String {
        let mut h: u64 = 0xcbf29ce484222325;
        for b in self.text.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
        format!("{h:016x}")
    }

    /// Whether the verifier accepts the case (warnings do not count).
    pub fn verifier_accepts(&self) -> Result<bool, String> {
        let m = ptx_ir::text::parse(&self.text).map_err(|e| e.to_string())?;
        Ok(!verify::has_errors(&verify::verify(&m)))
    }
}

/// Targets `ptxas` of CUDA 13 accepts (it dropped everything before `sm_75`).
const PTXAS_MIN_ARCH: u16 = 75;

const V90: Version = Version { major: 9, minor: 0 };

/// PTX ISA versions in order.
const VERSIONS: &[(u8, u8)] = &[
    (1, 0),
    (1, 1),
    (1, 2),
    (1, 3),
    (1, 4),
    (1, 5),
    (2, 0),
    (2, 1),
    (2, 2),
    (2, 3),
    (3, 0),
    (3, 1),
    (3, 2),
    (4, 0),
    (4, 1),
    (4, 2),
    (4, 3),
    (5, 0),
    (6, 0),
    (6, 1),
    (6, 2),
    (6, 3),
    (6, 4),
    (6, 5),
    (7, 0),
    (7, 1),
    (7, 2),
    (7, 3),
    (7, 4),
    (7, 5),
    (7, 6),
    (7, 7),
    (7, 8),
    (8, 0),
    (8, 1),
    (8, 2),
    (8, 3),
    (8, 4),
    (8, 5),
    (8, 6),
    (8, 7),
    (8, 8),
    (9, 0),
];

fn prev_version(v: Version) -> Option<Version> {
    let i = VERSIONS
        .iter()
        .position(|&(a, b)| a == v.major && b == v.minor)?;
    let &(major, minor) = VERSIONS.get(i.checked_sub(1)?)?;
    Some(Version { major, minor })
}

fn sm_target(sm: Sm) -> Target {
    Target::Sm {
        arch: sm.arch,
        suffix: sm.suffix,
    }
}

fn module_sm(m: &Module) -> Option<Sm> {
    Sm::of_module(&m.target)
}

struct Gen {
    cases: Vec<Case>,
    per_kind: BTreeMap<&'static str, usize>,
    caps: BTreeMap<&'static str, usize>,
}

impl Gen {
    fn full(&self, kind: &'static str) -> bool {
        let cap = self.caps.get(kind).copied().unwrap_or(120);
        self.per_kind.get(kind).copied().unwrap_or(0) >= cap
    }

    fn push(&mut self, kind: &'static str, expect_valid: bool, source: &str, m: &Module) {
        if self.full(kind) {
            return;
        }
        let Some(sm) = module_sm(m) else { return };
        let n = self.per_kind.entry(kind).or_insert(0);
        *n += 1;
        let text = ptx_ir::text::print(m);
        // A mutant must still read back: the printer and reader agree on every case.
        if ptx_ir::text::parse(&text).is_err() {
            *n -= 1;
            return;
        }
        self.cases.push(Case {
            id: format!("{kind}-{:04}", *n),
            kind,
            expect_valid,
            arch: sm.to_string(),
            source: source.to_string(),
            text,
        });
    }
}

fn clean(m: &Module) -> bool {
    !verify::has_errors(&verify::verify(m))
}

fn rules_of(m: &Module) -> BTreeSet<Rule> {
    verify::verify(m)
        .into_iter()
        .filter(|d| d.severity() == verify::Severity::Error)
        .map(|d| d.rule)
        .collect()
}

/// Names an operand mentions.
fn operand_names(o: &Operand, out: &mut Vec<Name>) {
    o.for_each_name(&mut |n| out.push(n));
}

fn init_names(i: &ptx_ir::ir::Init, refs: &mut bool) {
    match i {
        ptx_ir::ir::Init::Expr(e) => e.for_each_name(&mut |_| *refs = true),
        ptx_ir::ir::Init::List(l) => l.iter().for_each(|x| init_names(x, refs)),
        ptx_ir::ir::Init::Packed(_) | ptx_ir::ir::Init::Opaque(_) => {}
    }
}

/// The isolated module: `f`'s signature, its top-level declarations, `inst`, `ret`.
fn isolate(m: &Module, f: &Function, inst: &Instruction) -> Option<Module> {
    let mut names = Vec::new();
    for o in &inst.operands {
        operand_names(o, &mut names);
    }
    let mut items = Vec::new();
    for item in &m.items {
        match item {
            Item::Variable(v) if v.names.iter().any(|d| names.contains(&d.name)) => {
                // An initialiser naming functions or variables would need them copied too.
                let mut refs = false;
                for d in &v.names {
                    if let Some(init) = &d.init {
                        init_names(init, &mut refs);
                    }
                }
                if refs {
                    return None;
                }
                items.push(item.clone());
            }
            Item::Function(g) if names.contains(&g.name) => return None,
            _ => {}
        }
    }
    let body = f.statements()?;
    let mut new_body: Vec<Statement> = body
        .iter()
        .filter(|s| matches!(s, Statement::Decl(_)))
        .cloned()
        .collect();
    new_body.push(Statement::Inst(inst.clone()));
    new_body.push(Statement::Inst(Instruction::new(
        ptx_ir::ir::Opcode::Ret,
        [],
        [],
    )));
    let mut g = f.clone();
    // `.noreturn` would contradict the `ret` that ends the copy.
    g.directives.retain(|d| {
        !matches!(
            d,
            ptx_ir::ir::FuncDirective::NoReturn | ptx_ir::ir::FuncDirective::Pragma(_)
        )
    });
    g.set_statements(Some(new_body));
    items.push(Item::Function(Box::new(g)));
    let target = m
        .target
        .iter()
        .copied()
        .filter(|t| !matches!(t, Target::Debug))
        .collect();
    Some(Module {
        names: m.names.clone(),
        version: m.version,
        target,
        address_size: m.address_size,
        items,
    })
}

/// The isolated function (the last item) and the index of the instruction in its body.
fn iso_parts(m: &mut Module) -> (&mut Vec<Statement>, usize) {
    let Some(Item::Function(f)) = m.items.last_mut() else {
        unreachable!("isolate puts the function last")
    };
    let body = f.statements_mut().expect("isolated function has a body");
    let k = body
        .iter()
        .position(|s| matches!(s, Statement::Inst(_)))
        .expect("isolated body has the instruction");
    (body, k)
}

fn iso_inst(m: &mut Module) -> &mut Instruction {
    let (body, k) = iso_parts(m);
    match &mut body[k] {
        Statement::Inst(i) => i,
        _ => unreachable!(),
    }
}

fn reg_decl(name: Name, ty: Type) -> Statement {
    Statement::Decl(Box::new(VarDecl {
        linkage: None,
        space: Space::Reg,
        attributes: Vec::new(),
        align: None,
        vector: None,
        ty,
        names: vec![Declarator {
            name,
            range: None,
            dims: Default::default(),
            init: None,
        }]
        .into(),
    }))
}

fn range_decl(name: Name, ty: Type, n: u32) -> Statement {
    let Statement::Decl(mut d) = reg_decl(name, ty) else {
        unreachable!()
    };
    d.names[0].range = Some(n);
    Statement::Decl(d)
}

/// Declared `.reg` scalar types of the isolated function's top-level declarations.
fn reg_types(m: &Module) -> BTreeMap<String, (Type, Option<u32>)> {
    let mut out = BTreeMap::new();
    if let Some(Item::Function(f)) = m.items.last() {
        for s in f.statements().into_iter().flatten() {
            if let Statement::Decl(d) = s {
                if d.space == Space::Reg && d.vector.is_none() {
                    for x in &d.names {
                        out.insert(m.names.get(x.name).to_string(), (d.ty, x.range));
                    }
                }
            }
        }
    }
    out
}

/// The type of register `n` in the isolated function, if it is a declared scalar register.
fn reg_type(m: &Module, n: Name) -> Option<Type> {
    let s = m.names.get(n);
    let decls = reg_types(m);
    if let Some((t, None)) = decls.get(s) {
        return Some(*t);
    }
    let digits = s.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits == s.len() {
        return None;
    }
    let (prefix, num) = s.split_at(s.len() - digits);
    let idx: u32 = num.parse().ok()?;
    match decls.get(prefix) {
        Some((t, Some(c))) if idx < *c => Some(*t),
        _ => None,
    }
}

/// The operand position a type or name mutation replaces.
fn mutation_position(inst: &Instruction) -> Option<usize> {
    use ptx_ir::ir::Opcode as O;
    let k = match inst.opcode {
        O::St => 1,
        O::Ld | O::Ldu | O::Cvt => 0,
        _ if inst.operands.len() >= 2 => 1,
        _ => 0,
    };
    match inst.operands.get(k) {
        Some(Operand::Reg { sel, .. }) if sel.is_none() => Some(k),
        _ => None,
    }
}

const CANDIDATE_TYPES: &[Type] = &[
    Type::Pred,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S32,
    Type::S64,
    Type::F16,
    Type::F32,
    Type::F64,
];

fn with_target(m: &Module, sm: Sm, v: Version) -> Module {
    let mut x = m.clone();
    x.target = vec![sm_target(sm)];
    x.version = v;
    x
}

fn candidates() -> Vec<Sm> {
    let mut c: Vec<Sm> = KNOWN
        .iter()
        .filter(|&&a| a >= PTXAS_MIN_ARCH)
        .flat_map(|&a| {
            [ArchSuffix::None, ArchSuffix::F, ArchSuffix::A]
                .into_iter()
                .map(move |s| Sm::new(a, s))
        })
        .filter(|s| s.exists())
        .collect();
    c.sort_by_key(|s| s.portability_key());
    c
}

fn meets_all(sm: Sm, req: &verify::Requirements) -> bool {
    req.features.iter().all(|f| sm.satisfies(f.sm))
}

/// Target and version mutants of an isolated module.
fn target_cases(g: &mut Gen, src: &str, iso: &Module) {
    let req = verify::requirements(iso);
    let Some(min) = req.target else { return };
    let feat_ptx = req
        .features
        .iter()
        .map(|f| f.ptx)
        .max()
        .unwrap_or(Version { major: 1, minor: 0 });
    // The minimum target (not below what ptxas still supports), at PTX 9.0: valid.
    let all = candidates();
    if let Some(&lowest) = all.iter().find(|s| meets_all(**s, &req)) {
        g.push("target-at-min", true, src, &with_target(iso, lowest, V90));
        // Below it: the highest supported target that fails a requirement: invalid.
        let below = all
            .iter()
            .rev()
            .find(|s| s.portability_key() < lowest.portability_key() && !meets_all(**s, &req));
        if let Some(&b) = below {
            g.push("target-too-old", false, src, &with_target(iso, b, V90));
        }
        // Architecture- and family-specific features: another a/f target that has the
        // feature (valid) and one of a later architecture that does not (invalid).
        if lowest.suffix != ArchSuffix::None || min.suffix != ArchSuffix::None {
            if let Some(&other) = all
                .iter()
                .find(|s| s.suffix != ArchSuffix::None && **s != lowest && meets_all(**s, &req))
            {
                g.push("target-family-ok", true, src, &with_target(iso, other, V90));
            }
            if let Some(&later) = all.iter().find(|s| {
                s.suffix != ArchSuffix::None && s.arch > lowest.arch && !meets_all(**s, &req)
            }) {
                g.push(
                    "target-family-bad",
                    false,
                    src,
                    &with_target(iso, later, V90),
                );
            }
        }
    }
    // Versions: on the lowest target, the least version both the features and the target
    // allow (valid), and the one before it (invalid).
    let Some(&lowest) = all.iter().find(|s| meets_all(**s, &req)) else {
        return;
    };
    let need = feat_ptx.max(lowest.introduced());
    g.push("version-at-min", true, src, &with_target(iso, lowest, need));
    if let Some(p) = prev_version(need) {
        let kind = if feat_ptx > lowest.introduced() {
            "ptx-too-old"
        } else {
            "target-needs-newer-ptx"
        };
        g.push(kind, false, src, &with_target(iso, lowest, p));
    }
}

/// Operand mutants: other register types, undeclared and out-of-scope registers.
fn operand_cases(g: &mut Gen, src: &str, iso: &Module, salt: usize) {
    let mut m = iso.clone();
    let Some(k) = mutation_position(iso_inst(&mut m)) else {
        return;
    };
    let typed = verify::checks_operand_types(iso_inst(&mut m));
    let Some(orig) = iso_inst(&mut m).operands[k].as_name() else {
        return;
    };
    let Some(orig_ty) = reg_type(&m, orig) else {
        return;
    };
    // Other register types, classified by the verifier's rules.
    let mut bad = 0;
    let mut ok = 0;
    for j in 0..if typed { CANDIDATE_TYPES.len() } else { 0 } {
        let ty = CANDIDATE_TYPES[(j + salt) % CANDIDATE_TYPES.len()];
        if ty == orig_ty {
            continue;
        }
        let mut x = iso.clone();
        let n = x.names.intern(&format!("%mut_{}", ty.as_str()));
        let (body, at) = iso_parts(&mut x);
        body.insert(at, reg_decl(n, ty));
        if let Statement::Inst(i) = &mut body[at + 1] {
            i.operands[k] = Operand::reg(n);
        }
        let rules = rules_of(&x);
        if rules.is_empty() && ok < 1 {
            ok += 1;
            g.push("operand-type-ok", true, src, &x);
        } else if rules.len() == 1 && rules.contains(&Rule::OperandType) && bad < 2 {
            bad += 1;
            g.push("operand-type-bad", false, src, &x);
        }
    }
    // An undeclared register.
    let mut x = iso.clone();
    let n = x.names.intern("%undeclared0");
    iso_inst(&mut x).operands[k] = Operand::reg(n);
    g.push("undeclared-register", false, src, &x);
    // The register declared in a nested block: used outside it (invalid), inside it (valid).
    for inside in [false, true] {
        let mut x = iso.clone();
        let n = x.names.intern("%scoped0");
        let (body, at) = iso_parts(&mut x);
        let Statement::Inst(mut inst) = body.remove(at) else {
            unreachable!()
        };
        inst.operands[k] = Operand::reg(n);
        let block = if inside {
            vec![reg_decl(n, orig_ty), Statement::Inst(inst)]
        } else {
            body.insert(at, Statement::Inst(inst));
            vec![reg_decl(n, orig_ty)]
        };
        body.insert(at, Statement::Block(block));
        if inside {
            g.push("register-in-scope", true, src, &x);
        } else {
            g.push("register-out-of-scope", false, src, &x);
        }
    }
}

/// Declaration mutants of an isolated module.
fn declaration_cases(g: &mut Gen, src: &str, iso: &Module) {
    let mut x = iso.clone();
    let n = x.names.intern("%dup0");
    let (body, at) = iso_parts(&mut x);
    body.insert(at, reg_decl(n, Type::B32));
    body.insert(at, reg_decl(n, Type::B32));
    g.push("duplicate-declaration", false, src, &x);

    let mut x = iso.clone();
    let n = x.names.intern("%dupr");
    let (body, at) = iso_parts(&mut x);
    body.insert(at, range_decl(n, Type::B32, 4));
    body.insert(at, range_decl(n, Type::B64, 8));
    g.push("duplicate-declaration", false, src, &x);

    let mut x = iso.clone();
    let n = x.names.intern("%dup0");
    let (body, at) = iso_parts(&mut x);
    body.insert(at, Statement::Block(vec![reg_decl(n, Type::B64)]));
    body.insert(at, reg_decl(n, Type::B32));
    g.push("shadow-in-block", true, src, &x);
}

/// Guards: a `.b32` register (invalid) or a fresh predicate (valid).
fn guard_cases(g: &mut Gen, src: &str, iso: &Module) {
    for (ty, kind, valid) in [
        (Type::B32, "guard-type-bad", false),
        (Type::Pred, "guard-type-ok", true),
    ] {
        let mut x = iso.clone();
        let n = x.names.intern(&format!("%gd_{}", ty.as_str()));
        let (body, at) = iso_parts(&mut x);
        body.insert(at, reg_decl(n, ty));
        if let Statement::Inst(i) = &mut body[at + 1] {
            i.guard = Some(ptx_ir::ir::Guard {
                pred: n,
                negated: false,
            });
        }
        g.push(kind, valid, src, &x);
    }
}

/// Immediates with fixed ranges.
fn immediate_cases(g: &mut Gen, src: &str, iso: &Module) {
    use ptx_ir::ir::Opcode as O;
    let mut m = iso.clone();
    let inst = iso_inst(&mut m).clone();
    let (k, bad, good): (usize, &[i64], &[i64]) = match inst.opcode {
        O::Lop3 => (
            4,
            &[256, 300, 511, 1024, -1, 4096],
            &[0, 1, 0x96, 0xe8, 0xfe, 255],
        ),
        O::Bar | O::Barrier
            if matches!(inst.operands.first(), Some(Operand::Int(_)))
                && !inst.has(ptx_ir::ir::Flag::Red) =>
        {
            (0, &[16, 17, 32, 100], &[0, 1, 7, 15])
        }
        O::Setmaxnreg => (0, &[16, 20, 100, 260, 264], &[24, 32, 96, 240, 256]),
        O::CpAsync if inst.has(ptx_ir::ir::CacheOp::Cg) => (2, &[4, 8, 32], &[16]),
        O::CpAsync => (2, &[2, 12, 32], &[4, 8, 16]),
        _ => return,
    };
    if !matches!(inst.operands.get(k), Some(Operand::Int(_))) {
        return;
    }
    for (vals, kind, valid) in [(bad, "immediate-bad", false), (good, "immediate-ok", true)] {
        for &v in vals {
            let mut x = iso.clone();
            iso_inst(&mut x).operands[k] = Operand::Int(v);
            g.push(kind, valid, src, &x);
        }
    }
    // Integer literals wider than a 16-bit instruction type (the verifier only warns).
    if inst.ty().is_some_and(|t| t.bits() == 16 && !t.is_float()) && inst.operands.len() >= 3 {
        let mut x = iso.clone();
        iso_inst(&mut x).operands[2] = Operand::Int(70000);
        g.push("immediate-width", true, src, &x);
    }
}

fn width_case(g: &mut Gen, src: &str, iso: &Module) {
    // `add.u16 d, a, 70000`-style literals on any 16-bit integer instruction with a source
    // literal slot.
    let mut m = iso.clone();
    let inst = iso_inst(&mut m).clone();
    use ptx_ir::ir::Opcode as O;
    if !matches!(
        inst.opcode,
        O::Add | O::Sub | O::And | O::Or | O::Xor | O::Min | O::Max
    ) {
        return;
    }
    if inst.ty().is_some_and(|t| t.bits() == 16 && !t.is_float()) && inst.operands.len() == 3 {
        let mut x = iso.clone();
        iso_inst(&mut x).operands[2] = Operand::Int(70000);
        g.push("immediate-width", true, src, &x);
    }
}

/// Vector widths of `ld`/`st`.
fn vector_cases(g: &mut Gen, src: &str, iso: &Module) {
    use ptx_ir::ir::Opcode as O;
    let mut m = iso.clone();
    let inst = iso_inst(&mut m).clone();
    let k = match inst.opcode {
        O::Ld => 0,
        O::St => 1,
        _ => return,
    };
    match inst.operands.get(k) {
        Some(Operand::Vector(items)) if items.len() >= 2 => {
            // One element short.
            let mut x = iso.clone();
            if let Operand::Vector(v) = &mut iso_inst(&mut x).operands[k] {
                v.pop();
            }
            g.push("vector-width-bad", false, src, &x);
            // `.v8` of a 32-bit type in `.global`: sm_100 and PTX 8.8 (valid there, invalid
            // on an older target).
            let t = inst.ty();
            if items.len() == 4
                && t.is_some_and(|t| t.bits() == 32)
                && matches!(inst.space(), Some(Space::Global) | None)
            {
                let mut x = iso.clone();
                let extra: Vec<Name> = (0..4)
                    .map(|i| x.names.intern(&format!("%v8x{i}")))
                    .collect();
                let ty = t.unwrap_or(Type::B32);
                let (body, at) = iso_parts(&mut x);
                for &n in &extra {
                    body.insert(at, reg_decl(n, ty));
                }
                let at = at + extra.len();
                if let Statement::Inst(i) = &mut body[at] {
                    for md in i.mods.iter_mut() {
                        if *md == ptx_ir::ir::Modifier::Vector(ptx_ir::ir::Vector::V4) {
                            *md = ptx_ir::ir::Modifier::Vector(ptx_ir::ir::Vector::V8);
                        }
                    }
                    if let Operand::Vector(v) = &mut i.operands[k] {
                        v.extend(extra.iter().map(|&n| Operand::reg(n)));
                    }
                }
                let sm = module_sm(&x);
                if sm.is_some_and(|s| s.arch < 100) {
                    g.push("vector-v8-old-target", false, src, &x);
                }
                g.push(
                    "vector-v8",
                    true,
                    src,
                    &with_target(&x, Sm::new(100, ArchSuffix::None), V90),
                );
            }
        }
        Some(Operand::Reg { name, sel }) if sel.is_none() && inst.vector().is_none() => {
            // `{%r}`: a one-element vector without `.vN` is accepted.
            let mut x = iso.clone();
            iso_inst(&mut x).operands[k] = Operand::vector([Operand::reg(*name)]);
            g.push("vector-single", true, src, &x);
            // Two elements without `.v2`.
            let mut x = iso.clone();
            iso_inst(&mut x).operands[k] =
                Operand::vector([Operand::reg(*name), Operand::reg(*name)]);
            if k == 1 {
                g.push("vector-width-bad", false, src, &x);
            }
        }
        _ => {}
    }
}

/// State spaces: a variable accessed through the wrong space.
fn space_cases(g: &mut Gen, src: &str, iso: &Module) {
    use ptx_ir::ir::Opcode as O;
    let mut m = iso.clone();
    let inst = iso_inst(&mut m).clone();
    if !matches!(inst.opcode, O::Ld | O::St | O::Atom | O::Red) {
        return;
    }
    let Some(space) = inst.space() else { return };
    let has_var_base = inst.operands.iter().any(|o| match o {
        Operand::Addr { base: Some(b), .. } => reg_type(&m, *b).is_none(),
        _ => false,
    });
    if !has_var_base {
        return;
    }
    let to = match space {
        Space::Shared | Space::SharedCta | Space::SharedCluster | Space::Param => Space::Global,
        Space::Global | Space::Const => Space::Shared,
        _ => return,
    };
    let mut x = iso.clone();
    for md in iso_inst(&mut x).mods.iter_mut() {
        if *md == ptx_ir::ir::Modifier::Space(space) {
            *md = ptx_ir::ir::Modifier::Space(to);
        }
    }
    g.push("state-space-bad", false, src, &x);
}

/// Labels and calls in whole (small, non-debug) files.
fn whole_file_cases(g: &mut Gen, src: &str, m: &Module) {
    use ptx_ir::ir::Opcode as O;
    // Labels per function (top level and nested).
    // Top-level labels only: a branch into a `{ }` block is not a plain retarget.
    fn labels(body: &[Statement], out: &mut Vec<Name>) {
        for s in body {
            if let Statement::Label(l) = s {
                out.push(*l);
            }
        }
    }
    let funcs: Vec<(usize, Vec<Name>)> = m
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match it {
            Item::Function(f) => f.statements().map(|b| {
                let mut l = Vec::new();
                labels(b, &mut l);
                (i, l)
            }),
            _ => None,
        })
        .collect();
    let (mut bras, mut calls) = (0, 0);
    for (fi, (item, own)) in funcs.iter().enumerate() {
        let Item::Function(f) = &m.items[*item] else {
            continue;
        };
        let mut paths = Vec::new();
        inst_paths(f.statements().unwrap_or(&[]), &mut Vec::new(), &mut paths);
        for path in paths {
            let Some(inst) = inst_at(f.statements().unwrap_or(&[]), &path) else {
                continue;
            };
            let edit = |x: &mut Module, to: Name| {
                if let Item::Function(f) = &mut x.items[*item] {
                    if let Some(i) = f
                        .statements_mut()
                        .map(|b| b.as_mut_slice())
                        .and_then(|b| inst_at_mut(b, &path))
                    {
                        if i.opcode == O::Bra {
                            i.operands[0] = Operand::reg(to);
                        }
                    }
                }
            };
            match inst.opcode {
                O::Bra if bras < 4 => {
                    bras += 1;
                    let cur = inst.operands[0].as_name();
                    if let Some(&other) = own.iter().find(|&&l| Some(l) != cur) {
                        let mut x = m.clone();
                        edit(&mut x, other);
                        g.push("label-same-function", true, src, &x);
                    }
                    let foreign = funcs
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != fi)
                        .find_map(|(_, (_, ls))| ls.iter().find(|l| !own.contains(l)).copied());
                    if let Some(l) = foreign {
                        let mut x = m.clone();
                        edit(&mut x, l);
                        g.push("label-other-function", false, src, &x);
                    }
                    let mut x = m.clone();
                    let nowhere = x.names.intern("$L__nowhere");
                    edit(&mut x, nowhere);
                    g.push("label-undefined", false, src, &x);
                }
                O::Call if calls < 4 => {
                    let has_args = inst
                        .operands
                        .iter()
                        .any(|o| matches!(o, Operand::Args(a) if !a.is_empty()));
                    if !has_args {
                        continue;
                    }
                    calls += 1;
                    let mut x = m.clone();
                    if let Item::Function(f) = &mut x.items[*item] {
                        if let Some(i) = f
                            .statements_mut()
                            .map(|b| b.as_mut_slice())
                            .and_then(|b| inst_at_mut(b, &path))
                        {
                            if let Some(Operand::Args(a)) = i
                                .operands
                                .iter_mut()
                                .rev()
                                .find(|o| matches!(o, Operand::Args(a) if !a.is_empty()))
                            {
                                a.pop();
                            }
                        }
                    }
                    g.push("call-signature-bad", false, src, &x);
                    // The callee renamed to a function that does not exist.
                    let mut x = m.clone();
                    let nowhere = x.names.intern("no_such_function");
                    if let Item::Function(f) = &mut x.items[*item] {
                        if let Some(i) = f
                            .statements_mut()
                            .map(|b| b.as_mut_slice())
                            .and_then(|b| inst_at_mut(b, &path))
                        {
                            if let Some(o) = i.operands.iter_mut().find(|o| o.as_name().is_some()) {
                                *o = Operand::reg(nowhere);
                            }
                        }
                    }
                    g.push("call-undeclared", false, src, &x);
                }
                _ => {}
            }
        }
        branch_target_cases(g, src, m, *item, own, &funcs, fi);
    }
}

/// `brx.idx` with a `.branchtargets` list of the function's labels: declared before the
/// branch (valid), after it (invalid), or naming another function's label (invalid).
fn branch_target_cases(
    g: &mut Gen,
    src: &str,
    m: &Module,
    item: usize,
    own: &[Name],
    funcs: &[(usize, Vec<Name>)],
    fi: usize,
) {
    use ptx_ir::ir::Opcode as O;
    if own.len() < 2 {
        return;
    }
    let foreign = funcs
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != fi)
        .find_map(|(_, (_, ls))| ls.iter().find(|l| !own.contains(l)).copied());
    for (kind, valid) in [
        ("branchtargets-ok", true),
        ("branchtargets-after-use", false),
        ("branchtargets-foreign-label", false),
    ] {
        let mut x = m.clone();
        let idx = x.names.intern("%bx_idx");
        let list = x.names.intern("$bx_targets");
        let targets = match kind {
            "branchtargets-foreign-label" => match foreign {
                Some(f) => vec![own[0], f],
                None => continue,
            },
            _ => vec![own[0], own[1]],
        };
        let Item::Function(f) = &mut x.items[item] else {
            return;
        };
        let Some(body) = f.statements_mut() else {
            return;
        };
        let Some(at) = body.iter().position(|s| matches!(s, Statement::Label(_))) else {
            return;
        };
        let decl = reg_decl(idx, Type::U32);
        let bt = Statement::BranchTargets {
            label: list,
            targets,
        };
        let brx = Statement::Inst(Instruction::new(
            O::BrxIdx,
            [],
            [Operand::reg(idx), Operand::reg(list)],
        ));
        let seq = if kind == "branchtargets-after-use" {
            vec![decl, brx, bt]
        } else {
            vec![decl, bt, brx]
        };
        for (k, st) in seq.into_iter().enumerate() {
            body.insert(at + k, st);
        }
        g.push(kind, valid, src, &x);
    }
}

/// Paths (indices through nested blocks) of every instruction of a body.
fn inst_paths(body: &[Statement], prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, s) in body.iter().enumerate() {
        prefix.push(i);
        match s {
            Statement::Inst(_) => out.push(prefix.clone()),
            Statement::Block(b) => inst_paths(b, prefix, out),
            _ => {}
        }
        prefix.pop();
    }
}

fn inst_at<'a>(body: &'a [Statement], path: &[usize]) -> Option<&'a Instruction> {
    match (body.get(*path.first()?)?, path.len()) {
        (Statement::Inst(i), 1) => Some(i),
        (Statement::Block(b), _) => inst_at(b, &path[1..]),
        _ => None,
    }
}

fn inst_at_mut<'a>(body: &'a mut [Statement], path: &[usize]) -> Option<&'a mut Instruction> {
    match (body.get_mut(*path.first()?)?, path.len()) {
        (Statement::Inst(i), 1) => Some(i),
        (Statement::Block(b), _) => inst_at_mut(b, &path[1..]),
        _ => None,
    }
}

/// Generates every case from `(name, text)` corpus files, in a fixed order.
pub fn generate(files: &[(String, String)]) -> Vec<Case> {
    let mut g = Gen {
        cases: Vec::new(),
        per_kind: BTreeMap::new(),
        caps: BTreeMap::from([
            ("iso-valid", 400),
            ("target-at-min", 250),
            ("target-too-old", 250),
            ("version-at-min", 250),
            ("ptx-too-old", 200),
            ("target-needs-newer-ptx", 60),
            ("operand-type-bad", 200),
            ("operand-type-ok", 120),
            ("undeclared-register", 60),
            ("register-out-of-scope", 40),
            ("register-in-scope", 40),
            ("duplicate-declaration", 40),
            ("shadow-in-block", 20),
            ("guard-type-bad", 30),
            ("guard-type-ok", 30),
            ("immediate-width", 10),
            ("state-space-bad", 40),
            ("vector-single", 20),
            ("vector-width-bad", 40),
            ("vector-v8", 10),
            ("vector-v8-old-target", 10),
            ("label-same-function", 40),
            ("label-other-function", 40),
            ("label-undefined", 40),
            ("call-signature-bad", 40),
        ]),
    };
    // Compiler output with the widest variety of instructions first.
    let rank = |n: &str| {
        ["nvcc/", "triton/", "lib/nccl/", "lib/curand/"]
            .iter()
            .position(|p| n.starts_with(p))
            .unwrap_or(4)
    };
    let mut files: Vec<&(String, String)> = files.iter().collect();
    files.sort_by(|a, b| (rank(&a.0), &a.0).cmp(&(rank(&b.0), &b.0)));
    let mut modules = Vec::new();
    for (name, text) in files {
        let Ok(m) = ptx_ir::text::parse(text) else {
            continue;
        };
        let debug = m.target.iter().any(|t| matches!(t, Target::Debug));
        if !debug && text.lines().count() <= 3000 && clean(&m) {
            whole_file_cases(&mut g, name, &m);
        }
        modules.push((name.as_str(), m));
    }
    // The distinct instruction words of each file (top level of function bodies).
    use ptx_ir::ir::Opcode as O;
    let mut queues: Vec<std::collections::VecDeque<(usize, usize, String)>> = Vec::new();
    for (_, m) in &modules {
        let mut q = std::collections::VecDeque::new();
        let mut keys = BTreeSet::new();
        for (fi, f) in m.functions().enumerate() {
            for (si, s) in f.statements().into_iter().flatten().enumerate() {
                let Statement::Inst(inst) = s else { continue };
                if matches!(inst.opcode, O::Bra | O::BrxIdx | O::Call | O::Ret | O::Exit) {
                    continue;
                }
                let key = ptx_ir::ir::check::spell(inst.opcode, &inst.mods);
                if keys.insert(key.clone()) {
                    q.push_back((fi, si, key));
                }
            }
        }
        queues.push(q);
    }
    // Round robin over files, so that every file contributes to every kind.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut salt = 0usize;
    loop {
        let mut progressed = false;
        for (qi, q) in queues.iter_mut().enumerate() {
            let (name, m) = (&modules[qi].0, &modules[qi].1);
            while let Some((fi, si, key)) = q.pop_front() {
                progressed = true;
                let n = seen.entry(key).or_insert(0);
                if *n >= 3 {
                    continue;
                }
                let Some(f) = m.functions().nth(fi) else {
                    continue;
                };
                let Some(Statement::Inst(inst)) = f.statements().and_then(|b| b.get(si)) else {
                    continue;
                };
                let Some(iso) = isolate(m, f, inst) else {
                    continue;
                };
                if !clean(&iso) || module_sm(&iso).is_none_or(|s| s.arch < PTXAS_MIN_ARCH) {
                    continue;
                }
                *n += 1;
                salt += 1;
                let mut plain = iso.clone();
                iso_inst(&mut plain).guard = None;
                g.push("iso-valid", true, name, &iso);
                if *n == 1 {
                    target_cases(&mut g, name, &plain);
                    immediate_cases(&mut g, name, &plain);
                    vector_cases(&mut g, name, &plain);
                    width_case(&mut g, name, &plain);
                }
                operand_cases(&mut g, name, &plain, salt);
                space_cases(&mut g, name, &plain);
                if salt % 4 == 0 {
                    declaration_cases(&mut g, name, &plain);
                }
                if salt % 5 == 0 {
                    guard_cases(&mut g, name, &plain);
                }
                break;
            }
        }
        if !progressed {
            break;
        }
    }
    g.cases
}

/// Every `.ptx` file under `dir`, as `(path relative to dir, text)`, sorted.
pub fn read_corpus(dir: &std::path::Path) -> Vec<(String, String)> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_some_and(|e| e == "ptx") {
                if let Ok(t) = std::fs::read_to_string(&p) {
                    let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
                    out.push((rel, t));
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

/// One recorded `ptxas` result: `id`, `hash`, exit status.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Case id.
    pub id: String,
    /// [`Case::hash`] of the text `ptxas` judged.
    pub hash: String,
    /// `ptxas`'s exit status (0 = accepted).
    pub rc: i32,
    /// First line of `ptxas`'s complaint.
    pub message: String,
}

/// Reads a results TSV: `id kind expect arch hash rc message` with a header line.
pub fn read_results(text: &str) -> Vec<Recorded> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Some(Recorded {
                id: c.first()?.to_string(),
                hash: c.get(4)?.to_string(),
                rc: c.get(5)?.parse().ok()?,
                message: c.get(6).unwrap_or(&"").to_string(),
            })
        })
        .collect()
}

/// Agreement of the verifier with recorded `ptxas` results, per kind.
#[derive(Clone, Debug, Default)]
pub struct Agreement {
    /// kind -> (agree, total, verifier-rejects-ptxas-accepts, verifier-accepts-ptxas-rejects)
    pub by_kind: BTreeMap<&'static str, (usize, usize, usize, usize)>,
    /// Results whose case is no longer generated with the same text.
    pub stale: usize,
    /// Disagreements: id, ptxas verdict, verifier verdict, ptxas message.
    pub disagreements: Vec<String>,
}

impl Agreement {
    /// Totals over every kind.
    pub fn total(&self) -> (usize, usize) {
        self.by_kind
            .values()
            .fold((0, 0), |(a, t), (x, y, _, _)| (a + x, t + y))
    }
}

/// Compares the verifier with `results` over `cases`.
pub fn compare(cases: &[Case], results: &[Recorded]) -> Agreement {
    let by_id: BTreeMap<&str, &Case> = cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut a = Agreement::default();
    for r in results {
        let Some(c) = by_id.get(r.id.as_str()) else {
            a.stale += 1;
            continue;
        };
        if c.hash() != r.hash {
            a.stale += 1;
            continue;
        }
        let ptxas_ok = r.rc == 0;
        let ours = c.verifier_accepts().unwrap_or(false);
        let e = a.by_kind.entry(c.kind).or_default();
        e.1 += 1;
        if ptxas_ok == ours {
            e.0 += 1;
        } else {
            if ptxas_ok {
                e.2 += 1;
            } else {
                e.3 += 1;
            }
            a.disagreements.push(format!(
                "{}\tptxas={}\tverifier={}\t{}",
                c.id,
                if ptxas_ok { "accept" } else { "reject" },
                if ours { "accept" } else { "reject" },
                r.message
            ));
        }
    }
    a
}
