//! The load step: a [`Program`] compiled once from a [`Module`].
//!
//! Functions are resolved by name, bodies flattened into instruction vectors with labels turned
//! into indices, registers (ranges and scoped `{ }` declarations included) given dense
//! per-function slots, and variables laid out with addresses: `.global` and `.const` with their
//! initialisers, `.shared` at static offsets (dynamic `extern` after them), `.local` and
//! function `.param` in per-thread frames, kernel `.param` in the launch's parameter buffer.
//! Operands are decoded once into [`Opnd`]s so that execution never looks up a name.

use crate::arity::Arity;
use crate::code::{DInst, FuncId, MemBase, Opnd, Types};
use crate::error::Error;
use crate::fmt;
use crate::mem::{self, FUNC_BASE, KPARAM_BASE};
use ptx_ir_core::{
    BinaryOp, Declarator, Expr, FunctionKind, Init, Instruction, Interner, Item, Module, Name,
    Opcode, Operand, Param, Selector, Space, Statement, Type, UnaryOp, VarDecl,
};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Where a function parameter lives.
#[derive(Clone, Copy, Debug)]
pub enum ParamLoc {
    /// A `.reg` parameter: a register slot.
    Reg(u32),
    /// A `.param` parameter: an offset in the frame (functions) or the parameter buffer
    /// (kernels).
    Mem(u32),
}

/// A formal parameter.
#[derive(Clone, Copy, Debug)]
pub struct FParam {
    /// Where it lives.
    pub loc: ParamLoc,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Element type.
    pub ty: Type,
}

/// The targets of an indirect call.
#[derive(Clone, Debug)]
pub enum CallList {
    /// `.calltargets` or a call table: exactly these functions (a call table: the functions its
    /// initialiser names).
    Targets(Vec<FuncId>),
    /// `.callprototype`: any function whose parameters and return values match these.
    Proto {
        /// The prototype's parameters, in order.
        params: Vec<ProtoParam>,
        /// The prototype's return parameters, in order.
        returns: Vec<ProtoParam>,
    },
}

/// A parameter of a `.callprototype`, as far as a called function must match it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProtoParam {
    /// `.reg` (else `.param`).
    pub reg: bool,
    /// Size in bytes.
    pub size: u32,
    /// Element type.
    pub ty: Type,
}

impl ProtoParam {
    /// Whether formal `p` of a called function matches: the same space and size, and types of
    /// one kind (a `.bN` type matches any type of its size, `.uN` and `.sN` match each other).
    pub fn matches(&self, p: &FParam) -> bool {
        let kind = |t: Type| {
            if t.is_bits() {
                0
            } else if t.is_signed() || t.is_unsigned() {
                1
            } else if t.is_float() {
                2
            } else {
                3
            }
        };
        let (a, b) = (kind(self.ty), kind(p.ty));
        self.reg == matches!(p.loc, ParamLoc::Reg(_))
            && self.size == p.size
            && self.ty.bits() == p.ty.bits()
            && (a == 0 || b == 0 || a == b)
    }
}

/// A `.local` variable of a function's frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LocalVar {
    /// Offset in the interpreter's frame.
    pub frame_off: u32,
    /// Size in bytes.
    pub size: u32,
    /// Offset from the low end of the GPU frame's `.local` area, which lies below the call's
    /// saved registers (declaration order from the stack pointer up).
    pub stack_off: u32,
}

/// A compiled function.
#[derive(Clone, Debug)]
pub struct Func {
    /// Its name.
    pub name: String,
    /// `.entry` or `.func`.
    pub kind: FunctionKind,
    /// Whether it has a body.
    pub defined: bool,
    /// The decoded body.
    pub code: Vec<DInst>,
    /// The warp-wide form of each instruction of `code` that has one.
    pub(crate) lanewise: Vec<Option<crate::lanewise::Lanewise>>,
    /// The original instructions, for accessors and messages.
    pub insts: Vec<Instruction>,
    /// Register slots in each file (narrow slot 0 is the carry flag).
    pub slots: crate::regs::Slots,
    /// Parameters, in order.
    pub params: Vec<FParam>,
    /// Return parameters, in order.
    pub returns: Vec<FParam>,
    /// Bytes of `.local` and `.param` storage per call in the interpreter's frame layout.
    pub frame_size: u32,
    /// Bytes of the GPU stack frame of a call, besides [`crate::mem::CALL_FRAME_COST`]: the
    /// function's `.local` variables, rounded up to 16. `.param` variables are not in it: ptxas
    /// passes them in registers (measured: a recursive function with two `.param .b32` and no
    /// `.local` has a 16-byte frame, `tools/hostile/results/stack.txt`).
    pub stack_bytes: u32,
    /// The function's `.local` variables, by offset in the interpreter's frame: where each lies
    /// in the GPU frame, to find the stack depth an access reaches.
    pub local_vars: Vec<LocalVar>,
    /// `.branchtargets` lists.
    pub branch_tables: Vec<Vec<u32>>,
    /// Indirect call target lists.
    pub call_lists: Vec<CallList>,
    /// `.reqnctapercluster`, if given.
    pub req_cluster: Option<[u32; 3]>,
    /// `.explicitcluster`
    pub explicit_cluster: bool,
    /// `.maxclusterrank`, if given.
    pub max_cluster_rank: Option<u32>,
    /// `.maxnreg`, if given.
    pub max_nreg: Option<u32>,
    /// `.reqntid`, if given.
    pub req_ntid: Option<[u32; 3]>,
    /// `.maxntid`, if given.
    pub max_ntid: Option<[u32; 3]>,
    /// A kernel's bytes of static `.shared`: its window holds the module-scope variables, the
    /// function-scope ones of every device function, then its own (0 for a device function).
    pub shared_static: u32,
    /// Offset of the dynamic (`extern`) shared array in a kernel's window: past its static
    /// variables, aligned, and the same for all kernels that can call a device function naming
    /// the array (0 for a device function).
    pub shared_dynamic_offset: u32,
}

/// A loaded module, ready to launch.
#[derive(Clone, Debug)]
pub struct Program {
    /// The module's names.
    pub names: Interner,
    /// Functions, in module order (declarations resolved to their definitions).
    pub funcs: Vec<Func>,
    /// Function by name.
    pub by_name: FxHashMap<String, FuncId>,
    /// Module `.global` variables: (alignment, initial bytes), in allocation order; the launch
    /// allocates them first, so their addresses are fixed.
    pub globals: Vec<(u64, Vec<u8>)>,
    /// The constant bank.
    pub consts: Vec<u8>,
    /// Bytes of module-scope `.local` at the bottom of every thread's stack.
    pub local_static: u32,
    /// The module's `.global` `.texref`, `.samplerref` and `.surfref` variables, in module
    /// order.
    pub opaque: Vec<OpaqueVar>,
    /// Whether the module declares `.target texmode_independent` (PTX ISA 5.3: samplers are
    /// `.samplerref` variables of their own); unified mode otherwise.
    pub independent: bool,
    /// Whether the module's `.target` says `debug` (nvcc `-G`, compiled without optimisation).
    pub debug: bool,
}

/// A module-scope opaque variable (PTX ISA 5.3): a texture or surface reference, which a launch
/// binds to an object ([`crate::exec::Launch::bind`]), or a sampler, described by its
/// initialiser.
#[derive(Clone, Debug, PartialEq)]
pub struct OpaqueVar {
    /// Its name.
    pub name: String,
    /// `.texref`, `.samplerref` or `.surfref`.
    pub ty: ptx_ir_core::Type,
    /// Its `.global` address: what the variable's name evaluates to, and where a launch
    /// stores the handle of the object bound to it.
    pub addr: u64,
    /// Its index in [`Program::globals`].
    pub global: usize,
    /// The members its initialiser assigns (none without one).
    pub fields: Vec<ptx_ir_core::OpaqueField>,
}

/// Placeholder address of the dynamic shared array until the static layout is known; operands
/// holding `EXTERN_SHARED + k` are patched to `shared_dynamic_offset + k` of the kernel (or the
/// kernels calling the device function) after loading.
const EXTERN_SHARED: u64 = 0xe000_0000_0000_0000;

/// The generic address of a variable at `a` in `space`: `.global` addresses are generic ones,
/// the other spaces have their windows. The dynamic shared array's placeholder keeps its
/// place in the window until [`patch_extern`] knows the layout.
fn generic_address(space: Space, a: u64) -> u64 {
    match space {
        Space::Shared | Space::SharedCta | Space::SharedCluster => {
            mem::SHARED_WINDOW.wrapping_add(a)
        }
        Space::Local => mem::LOCAL_WINDOW + a,
        Space::Const => mem::CONST_WINDOW + a,
        Space::Param | Space::ParamEntry | Space::ParamFunc => mem::PARAM_WINDOW + a,
        _ => a,
    }
}

/// Calls `f` on every address an operand holds (immediates and static memory bases).
fn for_each_static(o: &mut Opnd, f: &mut impl FnMut(&mut u64)) {
    match o {
        Opnd::Imm(v) | Opnd::Mem(MemBase::Static(v), _) => f(v),
        Opnd::Vec(v) | Opnd::Args(v) | Opnd::Tuple(v) => {
            v.iter_mut().for_each(|x| for_each_static(x, f))
        }
        Opnd::Pair(p) => p.iter_mut().for_each(|x| for_each_static(x, f)),
        _ => {}
    }
}

/// The base `v` is an address relative to, if it holds the dynamic shared array's placeholder
/// itself (a shared-space address) or its generic address.
fn extern_base(v: u64) -> Option<u64> {
    [
        EXTERN_SHARED,
        EXTERN_SHARED.wrapping_add(mem::SHARED_WINDOW),
    ]
    .into_iter()
    .find(|&base| v.wrapping_sub(base) < (1 << 32))
}

/// Whether code names the dynamic shared array.
fn names_extern(code: &mut [DInst]) -> bool {
    let mut found = false;
    for d in code {
        for o in d.opnds.iter_mut() {
            for_each_static(o, &mut |v| found |= extern_base(*v).is_some());
        }
    }
    found
}

/// Replaces the dynamic shared array's placeholder in `code` by its offset `dyn_off`.
fn patch_extern(code: &mut [DInst], dyn_off: u64) {
    for d in code {
        for o in d.opnds.iter_mut() {
            for_each_static(o, &mut |v| {
                if let Some(base) = extern_base(*v) {
                    *v = *v - base + dyn_off + (base - EXTERN_SHARED);
                }
            });
        }
    }
}

/// Whether a `.shared` declarator is the dynamic (`extern`) array: unsized, no initialiser.
fn is_extern_shared(d: &Declarator) -> bool {
    d.dims.iter().any(|x| x.is_none()) && d.init.is_none()
}

/// The largest variable the loader lays out (bytes).
const MAX_VAR: u64 = 1 << 28;

/// The carry flag's slot in every function.
pub const CC_SLOT: u32 = 0;

#[derive(Clone, Copy, Debug)]
enum Sym {
    Reg {
        slot: u32,
        bits: u16,
        count: u8,
    },
    /// A variable at a fixed address of its state space.
    Static(u64, Space),
    Frame(u32),
    Label(u32),
    BrTargets(u32),
    CallList(u32),
    Func(FuncId),
}

fn type_bytes(t: Type) -> u32 {
    t.bits().div_ceil(8).max(1)
}

fn vec_count(v: Option<ptx_ir_core::Vector>) -> u32 {
    match v {
        None => 1,
        Some(ptx_ir_core::Vector::V2) => 2,
        Some(ptx_ir_core::Vector::V4) => 4,
        Some(ptx_ir_core::Vector::V8) => 8,
    }
}

fn align_up(x: u64, a: u64) -> u64 {
    let a = a.max(1);
    x.div_ceil(a).saturating_mul(a)
}

/// Resolved globals of the module.
struct ModuleScope {
    syms: FxHashMap<Name, Sym>,
    /// Call tables: the functions named in the initialiser of each `.global` or `.const`
    /// variable, by name and address (a function-scope table is a module static under its
    /// local name).
    tables: FxHashMap<(Name, u64), Vec<FuncId>>,
    /// Global allocations placed so far and their next address.
    global_next: u64,
}

struct Loader<'m> {
    m: &'m Module,
    arity: fn(&DInst) -> Arity,
    funcs: Vec<Func>,
    func_ids: FxHashMap<Name, FuncId>,
    module: ModuleScope,
    globals: Vec<(u64, Vec<u8>)>,
    consts: Vec<u8>,
    /// The next free offset of the shared window all kernels have in common: module-scope
    /// `.shared` variables, then the function-scope ones of the device functions.
    shared: u64,
    /// The end of the common part of the window, known before any function is flattened.
    shared_common: u64,
    /// While a kernel is flattened: the next free offset for its own function-scope `.shared`
    /// variables, which lie past the common part.
    kernel_shared: Option<u64>,
    shared_extern_align: u64,
    local_static: u64,
    /// Bytes of `.global` and `.const` initial contents laid out so far.
    storage: u64,
    opaque: Vec<OpaqueVar>,
}

fn load_err(f: &str, inst: Option<String>, msg: impl Into<String>) -> Error {
    Error::Load {
        function: f.to_string(),
        inst,
        message: msg.into(),
    }
}

impl Program {
    /// Compiles a module, checking each instruction's operands against `arity`, what its handler
    /// reads (the interpreter's table gives it: `Program::load` in `exec`).
    pub(crate) fn compile(m: &Module, arity: fn(&DInst) -> Arity) -> Result<Program, Error> {
        let mut l = Loader {
            m,
            arity,
            funcs: Vec::new(),
            func_ids: FxHashMap::default(),
            module: ModuleScope {
                syms: FxHashMap::default(),
                tables: FxHashMap::default(),
                global_next: mem::GLOBAL_BASE,
            },
            globals: Vec::new(),
            consts: Vec::new(),
            shared: 0,
            shared_common: 0,
            kernel_shared: None,
            shared_extern_align: 0,
            local_static: 0,
            storage: 0,
            opaque: Vec::new(),
        };
        l.collect_functions();
        // Variables first (in order), since initialisers may name functions and earlier
        // variables.
        for item in &m.items {
            if let Item::Variable(v) = item {
                l.module_var(v)?;
            }
        }
        let mut defs: Vec<(FuncId, &ptx_ir_core::Function)> = Vec::new();
        for f in m.functions() {
            if let Some(&id) = l.func_ids.get(&f.name) {
                if f.body.is_some() {
                    defs.push((id, f));
                } else if !l.funcs[id as usize].defined && l.funcs[id as usize].params.is_empty() {
                    l.signature(id, f)?;
                }
            }
        }
        // Each kernel's shared window (as ptxas allocates it): the module-scope variables, the
        // function-scope ones of the device functions (at one place for every kernel, since
        // their code is shared), then the kernel's own, then the dynamic array. The common
        // part's end is needed before the first kernel is flattened.
        l.shared_common = l.shared;
        for (_, f) in &defs {
            if f.kind == FunctionKind::Func {
                l.shared_common = l.prescan_shared(f.statements().unwrap_or(&[]), l.shared_common);
            }
        }
        for (id, f) in defs {
            l.function(id, f)?;
        }
        debug_assert_eq!(l.shared, l.shared_common);
        place_dynamic_shared(&mut l.funcs, l.shared_common, l.shared_extern_align.max(16));
        let by_name = l
            .funcs
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.clone(), i as FuncId))
            .collect();
        Ok(Program {
            names: m.names.clone(),
            funcs: l.funcs,
            by_name,
            globals: l.globals,
            consts: l.consts,
            local_static: align_up(l.local_static, 16) as u32,
            opaque: l.opaque,
            independent: m.target.contains(&ptx_ir_core::Target::TexmodeIndependent),
            debug: m.target.contains(&ptx_ir_core::Target::Debug),
        })
    }

    /// The address of function `f` as seen by `mov` and call tables.
    pub fn func_addr(f: FuncId) -> u64 {
        FUNC_BASE + 16 * f as u64
    }

    /// The function at address `a`, if any.
    pub fn func_at(&self, a: u64) -> Option<FuncId> {
        let off = a.checked_sub(FUNC_BASE)?;
        if off % 16 != 0 {
            return None;
        }
        let i = off / 16;
        (i < self.funcs.len() as u64).then_some(i as FuncId)
    }

    /// Instruction `pc` of function `f` as a finding or an error names it.
    pub fn site(&self, f: FuncId, pc: u32) -> crate::error::Site {
        crate::error::Site {
            function: self
                .funcs
                .get(f as usize)
                .map(|f| f.name.clone())
                .unwrap_or_default(),
            index: pc,
            inst: self.inst_text(f, pc),
        }
    }

    /// The instruction text at `pc` of function `f`.
    pub fn inst_text(&self, f: FuncId, pc: u32) -> String {
        self.funcs
            .get(f as usize)
            .and_then(|func| func.insts.get(pc as usize))
            .map(|i| fmt::inst(&self.names, i))
            .unwrap_or_default()
    }

    /// The functions a kernel can reach: direct calls, and every function whose address is taken.
    pub(crate) fn reachable(&self, entry: FuncId) -> Vec<FuncId> {
        reachable_in(&self.funcs, entry)
    }
}

/// Places each kernel's dynamic (`extern`) shared array past its static variables, aligned to
/// `ext_align` ([`Func::shared_dynamic_offset`]), and replaces the array's placeholder in the
/// code naming it. A device function's code has one offset for the array, so the kernels that
/// can call a device function naming it place it at the furthest of their offsets; a device
/// function no kernel calls places it past the common part of the window, `common`.
fn place_dynamic_shared(funcs: &mut [Func], common: u64, ext_align: u64) {
    let common_dyn = align_up(common, ext_align);
    for f in funcs.iter_mut() {
        if f.kind == FunctionKind::Entry {
            f.shared_dynamic_offset = sat32(align_up(f.shared_static as u64, ext_align));
        }
    }
    // A device function naming the dynamic array has one offset for it: every kernel that
    // can call it places the array there (the furthest of their offsets).
    let named: Vec<FuncId> = (0..funcs.len() as FuncId)
        .filter(|&g| {
            let f = &mut funcs[g as usize];
            f.kind == FunctionKind::Func && names_extern(&mut f.code)
        })
        .collect();
    let mut callers: Vec<Vec<FuncId>> = vec![Vec::new(); named.len()];
    if !named.is_empty() {
        let taken = taken_in(funcs);
        for k in 0..funcs.len() as FuncId {
            if funcs[k as usize].kind != FunctionKind::Entry {
                continue;
            }
            let mut roots = taken.clone();
            roots.push(k);
            let reach = reached_from(funcs, roots);
            for (i, g) in named.iter().enumerate() {
                if reach.binary_search(g).is_ok() {
                    callers[i].push(k);
                }
            }
        }
        // Raise the offsets of kernels sharing such a function to their maximum, until no
        // offset changes (a kernel may call several).
        loop {
            let mut changed = false;
            for ks in &callers {
                let top = ks
                    .iter()
                    .map(|&k| funcs[k as usize].shared_dynamic_offset)
                    .max()
                    .unwrap_or(0);
                for &k in ks {
                    let off = &mut funcs[k as usize].shared_dynamic_offset;
                    changed |= *off != top;
                    *off = top;
                }
            }
            if !changed {
                break;
            }
        }
    }
    for (i, &g) in named.iter().enumerate() {
        let off = callers[i].first().map_or(common_dyn, |&k| {
            funcs[k as usize].shared_dynamic_offset as u64
        });
        patch_extern(&mut funcs[g as usize].code, off);
    }
    for f in funcs.iter_mut() {
        if f.kind == FunctionKind::Entry {
            let off = f.shared_dynamic_offset as u64;
            patch_extern(&mut f.code, off);
        }
    }
}

/// `x` as a `u32`, saturated (a window that large fails the launch's shared-memory limit).
fn sat32(x: u64) -> u32 {
    x.min(u32::MAX as u64) as u32
}

/// The functions of `funcs` a kernel can reach, in ascending order: direct calls, and every
/// function whose address is taken.
fn reachable_in(funcs: &[Func], entry: FuncId) -> Vec<FuncId> {
    let mut roots = taken_in(funcs);
    roots.push(entry);
    reached_from(funcs, roots)
}

/// The functions of `funcs` whose address is taken (a call list names them, or an instruction
/// other than a call).
fn taken_in(funcs: &[Func]) -> Vec<FuncId> {
    let mut taken = Vec::new();
    for f in funcs {
        for d in &f.code {
            for o in d.opnds.iter() {
                if let Opnd::Func(g) = o {
                    if d.op != Opcode::Call {
                        taken.push(*g);
                    }
                }
            }
        }
        for cl in &f.call_lists {
            if let CallList::Targets(ts) = cl {
                taken.extend(ts.iter().copied());
            }
        }
    }
    taken
}

/// The functions of `funcs` that direct calls reach from `stack`, in ascending order.
fn reached_from(funcs: &[Func], mut stack: Vec<FuncId>) -> Vec<FuncId> {
    let mut seen = vec![false; funcs.len()];
    while let Some(f) = stack.pop() {
        if seen.get(f as usize).copied().unwrap_or(true) {
            continue;
        }
        seen[f as usize] = true;
        for d in &funcs[f as usize].code {
            if d.op == Opcode::Call {
                if let Some(Opnd::Func(g)) = d.opnds.get(1) {
                    stack.push(*g);
                }
            }
        }
    }
    (0..funcs.len() as FuncId)
        .filter(|&f| seen[f as usize])
        .collect()
}

impl<'m> Loader<'m> {
    fn name(&self, n: Name) -> &str {
        self.m.names.try_get(n).unwrap_or("?")
    }

    fn collect_functions(&mut self) {
        for f in self.m.functions() {
            if self.func_ids.contains_key(&f.name) {
                // A later definition of a declared function fills the same id.
                if f.body.is_some() {
                    if let Some(&id) = self.func_ids.get(&f.name) {
                        self.funcs[id as usize].defined = true;
                    }
                }
                continue;
            }
            let id = self.funcs.len() as FuncId;
            self.func_ids.insert(f.name, id);
            self.module.syms.insert(f.name, Sym::Func(id));
            let dims3 = |v: &[u32]| {
                let mut c = [1u32; 3];
                for (i, x) in v.iter().enumerate().take(3) {
                    c[i] = *x;
                }
                c
            };
            use ptx_ir_core::FuncDirective as FD;
            let req_cluster = f.directives.iter().find_map(|d| match d {
                FD::ReqNctaPerCluster(v) => Some(dims3(v)),
                _ => None,
            });
            let req_ntid = f.directives.iter().find_map(|d| match d {
                FD::ReqNtid(v) => Some(dims3(v)),
                _ => None,
            });
            let max_ntid = f.directives.iter().find_map(|d| match d {
                FD::MaxNtid(v) => Some(dims3(v)),
                _ => None,
            });
            let max_cluster_rank = f.directives.iter().find_map(|d| match d {
                FD::MaxClusterRank(n) => Some(*n),
                _ => None,
            });
            let max_nreg = f.directives.iter().find_map(|d| match d {
                FD::MaxNreg(n) => Some(*n),
                _ => None,
            });
            let explicit_cluster = f
                .directives
                .iter()
                .any(|d| matches!(d, FD::ExplicitCluster));
            self.funcs.push(Func {
                name: self.name(f.name).to_string(),
                kind: f.kind,
                defined: f.body.is_some(),
                code: Vec::new(),
                lanewise: Vec::new(),
                insts: Vec::new(),
                slots: crate::regs::Slots { narrow: 1, wide: 0 },
                params: Vec::new(),
                returns: Vec::new(),
                frame_size: 0,
                stack_bytes: 0,
                local_vars: Vec::new(),
                branch_tables: Vec::new(),
                call_lists: Vec::new(),
                req_cluster,
                explicit_cluster,
                max_cluster_rank,
                max_nreg,
                req_ntid,
                max_ntid,
                shared_static: 0,
                shared_dynamic_offset: 0,
            });
        }
    }

    fn var_size(&self, v: &VarDecl, d: &Declarator) -> u64 {
        let elem = type_bytes(v.ty) as u64 * vec_count(v.vector) as u64;
        let mut n: u64 = 1;
        for dim in &d.dims {
            match dim {
                Some(k) => n = n.saturating_mul(*k),
                None => {
                    // `[]` with an initialiser takes the initialiser's length.
                    n = n.saturating_mul(match &d.init {
                        Some(Init::List(l)) => l.len() as u64,
                        Some(Init::Packed(b)) => (b.len() as u64 / elem.max(1)).max(1),
                        _ => 0,
                    });
                }
            }
        }
        elem.saturating_mul(n)
    }

    fn var_align(v: &VarDecl) -> u64 {
        v.align
            .map(|a| a as u64)
            .unwrap_or((type_bytes(v.ty) * vec_count(v.vector)) as u64)
            .max(1)
    }

    /// Where the function-scope static `.shared` variables of a body end when laid out from
    /// `next` in the order flattening meets them (a block's declarations, then its nested
    /// blocks).
    fn prescan_shared(&self, body: &[Statement], mut next: u64) -> u64 {
        for s in body {
            if let Statement::Decl(v) = s {
                if v.space == Space::Shared {
                    for d in v.names.iter().filter(|d| !is_extern_shared(d)) {
                        next =
                            align_up(next, Self::var_align(v)).saturating_add(self.var_size(v, d));
                    }
                }
            }
        }
        for s in body {
            if let Statement::Block(b) = s {
                next = self.prescan_shared(b, next);
            }
        }
        next
    }

    fn module_var(&mut self, v: &VarDecl) -> Result<(), Error> {
        for d in &v.names {
            let size = self.var_size(v, d);
            if size > MAX_VAR {
                return Err(load_err(
                    "<module>",
                    None,
                    format!(
                        "`{}` is {size} bytes, larger than the interpreter's limit of {MAX_VAR} bytes for one variable",
                        self.name(d.name)
                    ),
                ));
            }
            let align = Self::var_align(v);
            if matches!(v.space, Space::Global | Space::Const) {
                // Loading builds their contents, so bound them before any launch's budget.
                self.storage = self.storage.saturating_add(size);
                if self.storage > mem::DEFAULT_MEM_LIMIT {
                    return Err(load_err(
                        "<module>",
                        None,
                        format!(
                            "`{}` ({size} bytes) brings the module's .global and .const variables to {} bytes, over the interpreter's memory limit of {} bytes",
                            self.name(d.name),
                            self.storage,
                            mem::DEFAULT_MEM_LIMIT
                        ),
                    ));
                }
            }
            match v.space {
                Space::Global => {
                    let bytes = self.init_bytes(v, d, size)?;
                    let base = align_up(self.module.global_next, align.max(256));
                    self.module.global_next = base + size.max(1) + 256;
                    self.globals.push((align, bytes));
                    self.module
                        .syms
                        .insert(d.name, Sym::Static(base, Space::Global));
                    if ptx_ir_core::opaque::is_opaque(v.ty) {
                        let fields = match &d.init {
                            Some(Init::Opaque(f)) => f.clone(),
                            _ => Vec::new(),
                        };
                        self.opaque.push(OpaqueVar {
                            name: self.name(d.name).to_string(),
                            ty: v.ty,
                            addr: base,
                            global: self.globals.len() - 1,
                            fields,
                        });
                    }
                    self.note_table(d, base);
                }
                Space::Const => {
                    let bytes = self.init_bytes(v, d, size)?;
                    let base = align_up(self.consts.len() as u64, align);
                    self.consts.resize(base as usize, 0);
                    self.consts.extend_from_slice(&bytes);
                    self.module
                        .syms
                        .insert(d.name, Sym::Static(base, Space::Const));
                    self.note_table(d, base);
                }
                Space::Shared => {
                    if is_extern_shared(d) {
                        // `extern .shared x[]`: the dynamic shared array.
                        self.shared_extern_align = self.shared_extern_align.max(align);
                        self.module
                            .syms
                            .insert(d.name, Sym::Static(EXTERN_SHARED, Space::Shared));
                    } else {
                        // A kernel's own variables past the common part, the others in it.
                        let next = self.kernel_shared.as_mut().unwrap_or(&mut self.shared);
                        let base = align_up(*next, align);
                        *next = base + size;
                        self.module
                            .syms
                            .insert(d.name, Sym::Static(base, Space::Shared));
                    }
                }
                Space::Local => {
                    let base = align_up(self.local_static, align);
                    self.local_static = base + size;
                    self.module
                        .syms
                        .insert(d.name, Sym::Static(base, Space::Local));
                }
                _ => {
                    // .tex and friends: no storage the interpreter models.
                }
            }
        }
        Ok(())
    }

    /// Records call tables (arrays initialised with function names) for indirect calls: the
    /// functions named in the initialiser of the variable at `addr`.
    fn note_table(&mut self, d: &Declarator, addr: u64) {
        let mut fs = Vec::new();
        if let Some(i) = &d.init {
            i.for_each_name(&mut |n| fs.extend(self.func_ids.get(&n)));
        }
        self.module.tables.insert((d.name, addr), fs);
    }

    fn eval(&self, e: &Expr) -> Result<Value, String> {
        Ok(match e {
            Expr::Int(v) => Value::Int(*v as u64),
            Expr::Uint(v) => Value::Int(*v),
            Expr::F32(b) => Value::F32(*b),
            Expr::F64(b) | Expr::Dec(b) => Value::F64(*b),
            Expr::Sym(n) => match self.module.syms.get(n) {
                Some(Sym::Static(a, _)) => Value::Int(*a),
                Some(Sym::Func(f)) => Value::Int(Program::func_addr(*f)),
                _ => return Err(format!("`{}` is not a module variable", self.name(*n))),
            },
            Expr::Generic(n) => match self.module.syms.get(n) {
                Some(Sym::Static(a, space)) => Value::Int(generic_address(*space, *a)),
                _ => return Err(format!("`{}` is not a module variable", self.name(*n))),
            },
            Expr::Paren(x) | Expr::Unary(UnaryOp::Plus, x) => self.eval(x)?,
            Expr::Unary(op, x) => {
                let v = self.eval(x)?.int()?;
                Value::Int(match op {
                    UnaryOp::Neg => v.wrapping_neg(),
                    UnaryOp::Not => !v,
                    UnaryOp::LogicalNot => (v == 0) as u64,
                    UnaryOp::Plus => v,
                })
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.eval(a)?.int()?, self.eval(b)?.int()?);
                Value::Int(match op {
                    BinaryOp::Add => a.wrapping_add(b),
                    BinaryOp::Sub => a.wrapping_sub(b),
                    BinaryOp::Mul => a.wrapping_mul(b),
                    BinaryOp::Div => (a as i64)
                        .checked_div(b as i64)
                        .ok_or("division by zero in an initialiser")?
                        as u64,
                    BinaryOp::Rem => (a as i64)
                        .checked_rem(b as i64)
                        .ok_or("division by zero in an initialiser")?
                        as u64,
                    BinaryOp::Shl => a.wrapping_shl(b as u32),
                    BinaryOp::Shr => ((a as i64).wrapping_shr(b as u32)) as u64,
                    BinaryOp::And => a & b,
                    BinaryOp::Xor => a ^ b,
                    BinaryOp::Or => a | b,
                })
            }
        })
    }

    fn init_bytes(&self, v: &VarDecl, d: &Declarator, size: u64) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; size as usize];
        let Some(init) = &d.init else {
            return Ok(out);
        };
        let err = |m: String| load_err("<module>", None, format!("{}: {m}", self.name(d.name)));
        let eb = type_bytes(v.ty) as usize;
        match init {
            Init::Packed(b) => {
                let n = b.len().min(out.len());
                out[..n].copy_from_slice(&b[..n]);
            }
            _ => {
                let mut elems = Vec::new();
                flatten_init(init, &mut elems);
                for (i, e) in elems.iter().enumerate() {
                    let val = self.eval(e).map_err(err)?;
                    let bits = val.as_type(v.ty);
                    let off = i * eb;
                    if let Some(dst) = out.get_mut(off..off + eb) {
                        mem::put_le(dst, bits);
                    }
                }
            }
        }
        Ok(out)
    }

    fn param(&self, p: &Param) -> (u32, u32) {
        let elem = type_bytes(p.ty) * vec_count(p.vector);
        let mut n: u64 = 1;
        for d in &p.dims {
            n = n.saturating_mul(d.unwrap_or(1));
        }
        let size = (elem as u64).saturating_mul(n) as u32;
        let align = p.align.unwrap_or(elem).max(1);
        (size, align)
    }

    /// Parameters of a declaration-only function, so indirect calls through it can be checked.
    fn signature(&mut self, id: FuncId, f: &ptx_ir_core::Function) -> Result<(), Error> {
        let mut scope = FxHashMap::default();
        let mut st = FnState::default();
        let (params, returns) = self.formals(f, &mut scope, &mut st);
        let func = &mut self.funcs[id as usize];
        func.params = params;
        func.returns = returns;
        Ok(())
    }

    fn formals(
        &self,
        f: &ptx_ir_core::Function,
        scope: &mut FxHashMap<Name, Sym>,
        st: &mut FnState,
    ) -> (Vec<FParam>, Vec<FParam>) {
        let entry = f.kind == FunctionKind::Entry;
        let mut kparam_off = 0u64;
        let mut one = |p: &Param, st: &mut FnState, scope: &mut FxHashMap<Name, Sym>| {
            let (size, align) = self.param(p);
            let loc = if p.space == Space::Reg {
                let bits = reg_bits(p.ty);
                let slot = st.alloc_slots(bits, vec_count(p.vector));
                scope.insert(
                    p.name,
                    Sym::Reg {
                        slot,
                        bits,
                        count: vec_count(p.vector) as u8,
                    },
                );
                ParamLoc::Reg(slot)
            } else if entry {
                let off = align_up(kparam_off, align as u64);
                kparam_off = off + size as u64;
                scope.insert(p.name, Sym::Static(KPARAM_BASE + off, Space::ParamEntry));
                ParamLoc::Mem(off as u32)
            } else {
                let off = st.alloc_frame(size, align);
                scope.insert(p.name, Sym::Frame(off));
                ParamLoc::Mem(off)
            };
            FParam {
                loc,
                size,
                align,
                ty: p.ty,
            }
        };
        let mut returns = Vec::new();
        for p in f.returns.iter().flatten() {
            returns.push(one(p, st, scope));
        }
        let mut params = Vec::new();
        for p in f.params.iter().flatten() {
            params.push(one(p, st, scope));
        }
        (params, returns)
    }

    fn function(&mut self, id: FuncId, f: &'m ptx_ir_core::Function) -> Result<(), Error> {
        let fname = self.name(f.name).to_string();
        let mut st = FnState::default();
        let mut top = FxHashMap::default();
        let (params, returns) = self.formals(f, &mut top, &mut st);
        let body = f.statements().unwrap_or(&[]);
        let entry = f.kind == FunctionKind::Entry;
        self.kernel_shared = entry.then_some(self.shared_common);
        // Every label of the function, for branches into nested blocks.
        let mut all_labels = FxHashMap::default();
        let mut pc = 0u32;
        collect_labels(body, &mut pc, &mut all_labels);
        let mut fl = Flatten {
            l: self,
            fname: &fname,
            scopes: vec![top],
            ranges: vec![FxHashMap::default()],
            st,
            code: Vec::new(),
            insts: Vec::new(),
            all_labels,
            branch_tables: Vec::new(),
            call_lists: Vec::new(),
            pending_targets: Vec::new(),
        };
        fl.block(body)?;
        fl.resolve_pending()?;
        let Flatten {
            st,
            mut code,
            mut insts,
            branch_tables,
            call_lists,
            ..
        } = fl;
        // A module of many small functions (a deep call chain) would otherwise keep up to twice
        // their instructions in spare capacity.
        code.shrink_to_fit();
        insts.shrink_to_fit();
        let mut slots = st.slots;
        // `.target debug` makes ptxas compile without optimisation: nothing is fused or folded.
        if !self.m.target.contains(&ptx_ir_core::Target::Debug) {
            crate::lower::lower(&insts, &mut code, &branch_tables, &mut slots, entry);
        }
        if self.m.target.iter().any(|t| {
            matches!(
                t,
                ptx_ir_core::Target::Sm { arch: 90, .. } | ptx_ir_core::Target::Compute(90)
            )
        }) {
            crate::lower::remote_rmw(&mut code);
        }
        let func = &mut self.funcs[id as usize];
        func.defined = true;
        func.code = code;
        func.insts = insts;
        func.slots = slots;
        func.params = params;
        func.returns = returns;
        func.frame_size = align_up(st.frame as u64, 16) as u32;
        func.stack_bytes = align_up(st.locals as u64, 16).min(mem::STACK_MAX as u64) as u32;
        func.local_vars = st.local_vars;
        func.branch_tables = branch_tables;
        func.call_lists = call_lists;
        if let Some(end) = self.kernel_shared.take() {
            func.shared_static = sat32(end);
        }
        Ok(())
    }
}

fn flatten_init<'a>(i: &'a Init, out: &mut Vec<&'a Expr>) {
    match i {
        Init::Expr(e) => out.push(e),
        Init::List(l) => l.iter().for_each(|x| flatten_init(x, out)),
        // An opaque variable's members describe it; its storage holds no value of them.
        Init::Packed(_) | Init::Opaque(_) => {}
    }
}

fn collect_labels(body: &[Statement], pc: &mut u32, out: &mut FxHashMap<Name, u32>) {
    for s in body {
        match s {
            Statement::Inst(_) => *pc += 1,
            Statement::Label(n) => {
                out.entry(*n).or_insert(*pc);
            }
            Statement::Block(b) => collect_labels(b, pc, out),
            _ => {}
        }
    }
}

/// Register width in bits for a declared type.
fn reg_bits(t: Type) -> u16 {
    match t {
        Type::Pred => 1,
        _ => (t.bits().clamp(8, 128)) as u16,
    }
}

#[derive(Default)]
struct FnState {
    slots: crate::regs::Slots,
    frame: u32,
    /// Bytes of `.local` variables (the GPU frame).
    locals: u32,
    local_vars: Vec<LocalVar>,
}

impl FnState {
    fn alloc_slots(&mut self, bits: u16, count: u32) -> u32 {
        if self.slots.narrow == 0 {
            self.slots.narrow = 1; // slot 0: carry flag
        }
        self.slots.alloc(bits, count)
    }

    fn alloc_frame(&mut self, size: u32, align: u32) -> u32 {
        let off = align_up(self.frame as u64, align as u64) as u32;
        self.frame = off.saturating_add(size);
        off
    }
}

/// A constant-expression value.
#[derive(Clone, Copy)]
enum Value {
    Int(u64),
    F32(u32),
    F64(u64),
}

impl Value {
    fn int(self) -> Result<u64, String> {
        match self {
            Value::Int(v) => Ok(v),
            _ => Err("float in an integer expression".into()),
        }
    }

    /// Bits of the value stored as type `t`.
    fn as_type(self, t: Type) -> u64 {
        match (self, t) {
            (Value::Int(v), Type::F32) => (v as i64 as f32).to_bits() as u64,
            (Value::Int(v), Type::F64) => (v as i64 as f64).to_bits(),
            (Value::F64(b), Type::F32) => crate::float::f64_to_f32_rn(b) as u64,
            (Value::F32(b), Type::F64) => (f32::from_bits(b) as f64).to_bits(),
            (Value::F64(b), Type::F16) => crate::float::convert_bits(
                b,
                crate::float::Fmt::F64,
                crate::float::Fmt::F16,
                ptx_ir_core::Rounding::Rn,
            ),
            (Value::Int(v), _) => v,
            (Value::F32(b), _) => b as u64,
            (Value::F64(b), _) => b,
        }
    }
}

struct Flatten<'a, 'm> {
    l: &'a mut Loader<'m>,
    fname: &'a str,
    scopes: Vec<FxHashMap<Name, Sym>>,
    /// Per scope, its register ranges `%p<N>` by prefix: (N, width, vector count). A name of a
    /// range gets a slot when an instruction first mentions it, so the cost of a declaration
    /// does not depend on N.
    ranges: Vec<FxHashMap<String, (u32, u16, u8)>>,
    st: FnState,
    code: Vec<DInst>,
    insts: Vec<Instruction>,
    all_labels: FxHashMap<Name, u32>,
    branch_tables: Vec<Vec<u32>>,
    call_lists: Vec<CallList>,
    /// `.branchtargets` whose labels are resolved after the whole body is seen.
    pending_targets: Vec<(u32, Vec<Name>)>,
}

impl<'a, 'm> Flatten<'a, 'm> {
    fn lookup(&mut self, n: Name) -> Option<Sym> {
        for k in (0..self.scopes.len()).rev() {
            if let Some(x) = self.scopes[k].get(&n) {
                return Some(*x);
            }
            if let Some(x) = self.range_reg(k, n) {
                return Some(x);
            }
        }
        if let Some(x) = self.l.module.syms.get(&n) {
            return Some(*x);
        }
        self.all_labels.get(&n).map(|&pc| Sym::Label(pc))
    }

    /// `n` as a member of a register range of scope `k`, given a slot now if it has none.
    fn range_reg(&mut self, k: usize, n: Name) -> Option<Sym> {
        let ranges = self.ranges.get(k)?;
        if ranges.is_empty() {
            return None;
        }
        let name = self.l.name(n);
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        // `%r<N>` names `%r0` .. `%r(N-1)`, without leading zeros; the prefix may itself end in
        // digits, so try every split (at most the 10 digits of a `u32`).
        for d in 1..=digits.min(10) {
            let (prefix, num) = name.split_at(name.len() - d);
            if num.len() > 1 && num.starts_with('0') {
                continue;
            }
            let Some(&(count, bits, vcount)) = ranges.get(prefix) else {
                continue;
            };
            let Ok(i) = num.parse::<u64>() else {
                continue;
            };
            if i < count as u64 {
                let slot = self.st.alloc_slots(bits, vcount as u32);
                let sym = Sym::Reg {
                    slot,
                    bits,
                    count: vcount,
                };
                self.scopes[k].insert(n, sym);
                return Some(sym);
            }
        }
        None
    }

    fn err(&self, inst: Option<&Instruction>, msg: impl Into<String>) -> Error {
        load_err(self.fname, inst.map(|i| fmt::inst(&self.l.m.names, i)), msg)
    }

    /// The generic address of variable `n`, found at address `a` of its own space.
    fn generic_of(&mut self, n: Name, a: u64) -> u64 {
        match self.lookup(n) {
            Some(Sym::Static(_, space)) => generic_address(space, a),
            _ => a,
        }
    }

    fn block(&mut self, body: &[Statement]) -> Result<(), Error> {
        let mut scope: FxHashMap<Name, Sym> = FxHashMap::default();
        // Labels and directives of this block are visible throughout it.
        let mut pc = self.code.len() as u32;
        for s in body {
            match s {
                Statement::Inst(_) => pc += 1,
                Statement::Block(b) => pc += ptx_ir_core::count_instructions(b) as u32,
                Statement::Label(n) => {
                    scope.insert(*n, Sym::Label(pc));
                }
                _ => {}
            }
        }
        self.scopes.push(scope);
        self.ranges.push(FxHashMap::default());
        for s in body {
            if let Statement::Decl(v) = s {
                self.decl(v)?;
            }
        }
        for s in body {
            match s {
                Statement::Decl(_)
                | Statement::Label(_)
                | Statement::Loc(_)
                | Statement::Pragma(_) => {}
                Statement::Block(b) => self.block(b)?,
                Statement::Inst(i) => {
                    let d = self.decode(i)?;
                    self.code.push(d);
                    self.insts.push(i.clone());
                }
                Statement::BranchTargets { label, targets } => {
                    let idx = self.branch_tables.len() as u32;
                    self.branch_tables.push(Vec::new());
                    self.pending_targets.push((idx, targets.clone()));
                    self.top().insert(*label, Sym::BrTargets(idx));
                }
                Statement::CallTargets { label, targets } => {
                    let mut fs = Vec::new();
                    for t in targets {
                        match self.l.func_ids.get(t) {
                            Some(&f) => fs.push(f),
                            None => {
                                return Err(self.err(
                                    None,
                                    format!(
                                        ".calltargets names unknown function `{}`",
                                        self.l.name(*t)
                                    ),
                                ))
                            }
                        }
                    }
                    let idx = self.call_lists.len() as u32;
                    self.call_lists.push(CallList::Targets(fs));
                    self.top().insert(*label, Sym::CallList(idx));
                }
                Statement::CallPrototype { label, proto } => {
                    let shape = |ps: &Option<Vec<Param>>| -> Vec<ProtoParam> {
                        ps.iter()
                            .flatten()
                            .map(|p| ProtoParam {
                                reg: p.space == Space::Reg,
                                size: self.l.param(p).0,
                                ty: p.ty,
                            })
                            .collect()
                    };
                    let list = CallList::Proto {
                        params: shape(&proto.params),
                        returns: shape(&proto.returns),
                    };
                    let idx = self.call_lists.len() as u32;
                    self.call_lists.push(list);
                    self.top().insert(*label, Sym::CallList(idx));
                }
            }
        }
        self.scopes.pop();
        self.ranges.pop();
        Ok(())
    }

    fn top(&mut self) -> &mut FxHashMap<Name, Sym> {
        let n = self.scopes.len() - 1;
        &mut self.scopes[n]
    }

    fn resolve_pending(&mut self) -> Result<(), Error> {
        for (idx, names) in std::mem::take(&mut self.pending_targets) {
            let mut pcs = Vec::new();
            for n in names {
                match self.all_labels.get(&n) {
                    Some(&pc) => pcs.push(pc),
                    None => {
                        return Err(self.err(
                            None,
                            format!(".branchtargets names unknown label `{}`", self.l.name(n)),
                        ))
                    }
                }
            }
            if let Some(t) = self.branch_tables.get_mut(idx as usize) {
                *t = pcs;
            }
        }
        Ok(())
    }

    fn decl(&mut self, v: &VarDecl) -> Result<(), Error> {
        match v.space {
            Space::Reg => {
                let bits = reg_bits(v.ty);
                let count = vec_count(v.vector);
                for d in &v.names {
                    match d.range {
                        Some(n) => {
                            let prefix = self.l.name(d.name).to_string();
                            if let Some(r) = self.ranges.last_mut() {
                                r.insert(prefix, (n, bits, count as u8));
                            }
                        }
                        None => {
                            let slot = self.st.alloc_slots(bits, count);
                            self.top().insert(
                                d.name,
                                Sym::Reg {
                                    slot,
                                    bits,
                                    count: count as u8,
                                },
                            );
                        }
                    }
                }
            }
            Space::Local | Space::Param | Space::ParamFunc => {
                for d in &v.names {
                    let size = self.l.var_size(v, d).min(mem::STACK_MAX as u64) as u32;
                    let align = Loader::var_align(v) as u32;
                    let off = self.st.alloc_frame(size, align);
                    if v.space == Space::Local {
                        let stack_off = align_up(self.st.locals as u64, align as u64)
                            .min(mem::STACK_MAX as u64)
                            as u32;
                        self.st.locals = stack_off.saturating_add(size);
                        self.st.local_vars.push(LocalVar {
                            frame_off: off,
                            size,
                            stack_off,
                        });
                    }
                    self.top().insert(d.name, Sym::Frame(off));
                }
            }
            Space::Shared | Space::Global | Space::Const => {
                // Function-scope statics are module statics with a local name.
                let saved: Vec<(Name, Option<Sym>)> = v
                    .names
                    .iter()
                    .map(|d| (d.name, self.l.module.syms.get(&d.name).copied()))
                    .collect();
                self.l.module_var(v)?;
                for (n, old) in saved {
                    if let Some(s) = self.l.module.syms.get(&n).copied() {
                        self.top().insert(n, s);
                    }
                    match old {
                        Some(o) => {
                            self.l.module.syms.insert(n, o);
                        }
                        None => {
                            self.l.module.syms.remove(&n);
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The type float literals of operand `k` are converted to.
    fn operand_type(i: &Instruction, k: usize) -> Option<Type> {
        let ts = i.types();
        match i.opcode {
            Opcode::Cvt | Opcode::Set if k >= 1 => ts.last().copied(),
            Opcode::Slct if k == 3 => ts.get(1).copied(),
            _ => ts.first().copied(),
        }
    }

    fn decode(&mut self, i: &Instruction) -> Result<DInst, Error> {
        let guard = match &i.guard {
            None => None,
            Some(g) => match self.lookup(g.pred) {
                Some(Sym::Reg { slot, .. }) => Some((slot, g.negated)),
                _ => {
                    return Err(self.err(
                        Some(i),
                        format!("guard `{}` is not a declared register", self.l.name(g.pred)),
                    ))
                }
            },
        };
        let mut opnds = SmallVec::new();
        for (k, o) in i.operands.iter().enumerate() {
            let ty = Self::operand_type(i, k);
            opnds.push(self.operand(i, o, ty)?);
        }
        if i.opcode == Opcode::Call {
            opnds = self.normalize_call(i, opnds)?;
        }
        let Some(d) = DInst::new(i.opcode, guard, &i.mods, opnds) else {
            return Err(self.err(
                Some(i),
                format!(
                    "more than {} type qualifiers, which no instruction form takes",
                    Types::MAX
                ),
            ));
        };
        // What the handler reads, checked once here so that it takes its operands as given.
        (self.l.arity)(&d)
            .check(&d.opnds)
            .map_err(|e| self.err(Some(i), format!("`{}`: {e}", i.opcode.name())))?;
        Ok(d)
    }

    /// Calls become `[Args(returns), target, Args(params), list-or-Sink]`; a call table (a
    /// `.global` or `.const` variable) as the list becomes the list of the functions its
    /// initialiser names.
    fn normalize_call(
        &mut self,
        i: &Instruction,
        o: SmallVec<[Opnd; 4]>,
    ) -> Result<SmallVec<[Opnd; 4]>, Error> {
        let mut it = o.into_iter().peekable();
        let rets = match it.peek() {
            Some(Opnd::Args(_)) => it.next().unwrap_or(Opnd::Sink),
            _ => Opnd::Args(Box::new([])),
        };
        let target = it
            .next()
            .ok_or_else(|| self.err(Some(i), "call without a target"))?;
        let args = match it.peek() {
            Some(Opnd::Args(_)) => it.next().unwrap_or(Opnd::Sink),
            _ => Opnd::Args(Box::new([])),
        };
        let mut list = it.next().unwrap_or(Opnd::Sink);
        if let (Opnd::Imm(a), Some(Operand::Reg { name, .. })) = (&list, i.operands.last()) {
            if let Some(fs) = self.l.module.tables.get(&(*name, *a)) {
                let idx = self.call_lists.len() as u32;
                self.call_lists.push(CallList::Targets(fs.clone()));
                list = Opnd::CallList(idx);
            }
        }
        Ok(smallvec::smallvec![rets, target, args, list])
    }

    fn name_operand(&mut self, i: &Instruction, n: Name, sel: Selector) -> Result<Opnd, Error> {
        match self.lookup(n) {
            Some(Sym::Reg { slot, bits, count }) => {
                if sel.is_none() {
                    Ok(Opnd::Reg { slot, bits })
                } else if let Some(c) = sel.as_component() {
                    // A component of a vector register.
                    let c = (c % 4) as u32;
                    if c >= count as u32 {
                        return Err(self.err(Some(i), "vector component out of range"));
                    }
                    let per = if bits > 64 { 2 } else { 1 };
                    Ok(Opnd::Reg {
                        slot: slot + c * per,
                        bits,
                    })
                } else {
                    Ok(Opnd::Selected(slot, sel))
                }
            }
            Some(Sym::Static(a, _)) => Ok(Opnd::Imm(a)),
            Some(Sym::Frame(off)) => Ok(Opnd::Frame(off)),
            Some(Sym::Label(pc)) => Ok(Opnd::Label(pc)),
            Some(Sym::Func(f)) => Ok(Opnd::Func(f)),
            Some(Sym::BrTargets(t)) => Ok(Opnd::Targets(t)),
            Some(Sym::CallList(t)) => Ok(Opnd::CallList(t)),
            None => Err(self.err(Some(i), format!("`{}` is not declared", self.l.name(n)))),
        }
    }

    fn operand(&mut self, i: &Instruction, o: &Operand, ty: Option<Type>) -> Result<Opnd, Error> {
        Ok(match o {
            // A call table is a variable like any other here (its address); `normalize_call`
            // turns the one a call names into its list of functions.
            Operand::Reg { name, sel } => self.name_operand(i, *name, *sel)?,
            Operand::Special { reg, sel } => {
                let c = sel.as_component().unwrap_or(0) % 4;
                Opnd::Special(*reg, c)
            }
            Operand::Int(v) => Opnd::Imm(*v as u64),
            Operand::Uint(v) => Opnd::Imm(*v),
            Operand::F32(b) => Opnd::Imm(Value::F32(*b).as_type(ty.unwrap_or(Type::F32))),
            Operand::F64(b) => Opnd::Imm(Value::F64(*b).as_type(ty.unwrap_or(Type::F64))),
            Operand::Dec(b) => Opnd::Imm(Value::F64(*b).as_type(ty.unwrap_or(Type::F64))),
            Operand::Sym { name, offset } => match self.name_operand(i, *name, Selector::NONE)? {
                Opnd::Imm(a) => Opnd::Imm(a.wrapping_add(*offset as u64)),
                Opnd::Func(f) => Opnd::Imm(Program::func_addr(f).wrapping_add(*offset as u64)),
                Opnd::Frame(off) => Opnd::Frame(off.wrapping_add(*offset as u32)),
                _ => return Err(self.err(Some(i), "symbol+offset of a non-variable")),
            },
            Operand::Addr { base, offset, .. } => match base {
                None => Opnd::Mem(MemBase::None, *offset),
                Some(n) => match self.name_operand(i, *n, Selector::NONE)? {
                    Opnd::Reg { slot, .. } => Opnd::Mem(MemBase::Reg(slot), *offset),
                    // A variable named in a generic address is its generic address: ptxas
                    // makes `ld.u32 [sv]` of a `.shared` variable a shared access (seed 000's
                    // `clusterlaunchcontrol.try_cancel ... [addr], [mbar]`, on an H200).
                    Opnd::Imm(a) if i.space().is_none() => {
                        Opnd::Mem(MemBase::Static(self.generic_of(*n, a)), *offset)
                    }
                    Opnd::Imm(a) => Opnd::Mem(MemBase::Static(a), *offset),
                    Opnd::Frame(f) => Opnd::Mem(MemBase::Frame(f), *offset),
                    _ => {
                        return Err(self.err(
                            Some(i),
                            format!("`{}` cannot be an address", self.l.name(*n)),
                        ))
                    }
                },
            },
            Operand::Vector(v) => {
                let mut out = Vec::with_capacity(v.len());
                for x in v.iter() {
                    out.push(self.operand(i, x, ty)?);
                }
                Opnd::Vec(out.into_boxed_slice())
            }
            Operand::Args(v) => {
                let mut out = Vec::with_capacity(v.len());
                for x in v.iter() {
                    out.push(self.operand(i, x, None)?);
                }
                Opnd::Args(out.into_boxed_slice())
            }
            Operand::Tuple(v) => {
                let mut out = Vec::with_capacity(v.len());
                for (k, x) in v.iter().enumerate() {
                    let o = self.operand(i, x, None)?;
                    // A variable named as the head of a tuple (the tensor map) is its generic
                    // address, as a register holding it would be.
                    let o = match (k, x, o) {
                        (0, Operand::Reg { name, .. }, Opnd::Imm(a)) => {
                            Opnd::Imm(self.generic_of(*name, a))
                        }
                        (_, _, o) => o,
                    };
                    out.push(o);
                }
                Opnd::Tuple(out.into_boxed_slice())
            }
            Operand::Pair(p) => Opnd::Pair(Box::new([
                self.operand(i, &p[0], ty)?,
                self.operand(i, &p[1], ty)?,
            ])),
            Operand::Not(n) => match self.lookup(*n) {
                Some(Sym::Reg { slot, .. }) => Opnd::Not(slot),
                _ => {
                    return Err(self.err(
                        Some(i),
                        format!("`!{}`: not a predicate register", self.l.name(*n)),
                    ))
                }
            },
            Operand::Neg(o) => Opnd::Neg(Box::new(self.operand(i, o, ty)?)),
            Operand::Sink => Opnd::Sink,
        })
    }
}
